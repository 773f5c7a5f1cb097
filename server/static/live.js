// The live page: camera picture, table map, rulings, scores, die, corrections.
"use strict";

const CAMERA_REFRESH_MS = 300;
let state = null;

function cardFor(r) {
  const card = document.getElementById("ruling-card").content.firstElementChild.cloneNode(true);
  card.dataset.id = r.id;
  card.classList.add(r.kind, r.status);
  if (r.too_close_to_call) card.classList.add("close");
  const pic = card.querySelector(".pic");
  if (r.kind === "move" || r.kind === "beam" || r.kind === "uncertain") {
    // the picture is stored just after the ruling is announced: retry a moment later
    let tries = 0;
    pic.onerror = () => { if (++tries > 3) pic.remove(); else setTimeout(() => { pic.src = pic.src.split("?")[0] + `?try=${tries}`; }, 500); };
    pic.src = `/api/rulings/${r.id}/picture.jpg`;
  } else pic.remove();
  card.querySelector(".kind").textContent = r.kind + (r.advisory ? " (advisory)" : "");
  card.querySelector(".summary").textContent = r.summary;
  const m = card.querySelector(".margin");
  if (r.too_close_to_call) m.innerHTML = "<strong class='close-call'>TOO CLOSE TO CALL</strong> — look at the table and decide";
  else if (r.margin !== null && r.margin !== undefined) m.textContent = `margin ${r.margin.toFixed(1)} mm`;
  card.querySelector(".state").textContent = r.status === "open" ? "" : r.status;
  for (const b of card.querySelectorAll("button[data-action]")) {
    b.addEventListener("click", async () => {
      const note = b.dataset.action === "confirm" ? "" : (prompt(`Why ${b.dataset.action}?`) || "");
      await api(`/api/rulings/${r.id}`, {action: b.dataset.action, note});
      refresh();
    });
  }
  return card;
}

function render() {
  const g = state.game;
  document.getElementById("game-title").textContent =
    `${g.title} — game ${g.id}: ${g.players.map(p => p.name).join(" vs ")}` + (g.turn ? ` — ${g.turn} to play` : "");
  document.getElementById("shadow-badge").hidden = !g.shadow;
  const box = document.getElementById("rulings");
  box.replaceChildren(...state.rulings.slice().reverse().map(cardFor));
  if (!state.rulings.length) box.innerHTML = "<p class='small'>No ruling yet.</p>";
  const scores = document.getElementById("scores");
  scores.replaceChildren();
  for (const [name, s] of Object.entries(state.scores)) {
    const div = document.createElement("div");
    div.className = "score" + (s.complete ? " won" : "");
    div.textContent = `${name}: ${s.ships ?? s.points ?? 0} ${s.ships !== undefined ? "ships" : "points"}` +
      (s.colony && s.colony.length ? ` (${s.colony.map(c => c.color[0] + c.size[0].toUpperCase()).join(" ")})` : "") +
      (s.complete ? " — colony complete!" : "");
    scores.appendChild(div);
  }
  const roll = g.pending_roll;
  document.getElementById("roll-prompt").textContent = roll
    ? `Roll for ${roll.ship} (${roll.ship_size}) firing at ${roll.target} (${roll.target_size}).` : "No roll needed.";
  const list = document.getElementById("pieces");
  list.replaceChildren(...state.table.pieces.map(p => {
    const li = document.createElement("li");
    li.dataset.id = p.id;
    li.textContent = `${p.id}: ${p.color} ${p.size} ${p.pose}`;
    li.addEventListener("click", () => fixPiece(p.id));
    return li;
  }));
}

async function refresh() {
  const [s, map] = await Promise.all([api("/api/state"), api("/api/map")]);
  state = s;
  render();
  drawMap(document.getElementById("map"), map, fixPiece);
  markUnsure(map);
}

// Pieces the camera is unsure of (the map says which) are flagged in the list as well.
function markUnsure(map) {
  const unsure = new Map(map.pieces.filter(p => p.unsure).map(p => [p.id, p.confidence]));
  for (const li of document.querySelectorAll("#pieces li")) {
    li.classList.toggle("unsure", unsure.has(li.dataset.id));
    li.title = unsure.has(li.dataset.id)
      ? `the camera reads such a piece right ${Math.round(100 * unsure.get(li.dataset.id))} % of the time: check it` : "";
  }
}

function fixPiece(id) {
  const p = state.table.pieces.find(q => q.id === id);
  if (!p) return;
  const dlg = document.getElementById("fix-piece");
  const form = document.getElementById("fix-form");
  document.getElementById("fix-id").textContent = id;
  form.color.value = p.color;
  form.size.value = p.size;
  dlg.onclose = async () => {
    if (dlg.returnValue !== "save") return;
    await api(`/api/pieces/${id}`, {color: form.color.value, size: form.size.value});
    notice(`${id} corrected`);
    refresh();
  };
  dlg.showModal();
}

function refreshCamera() {
  const img = document.getElementById("camera");
  const next = new Image();
  next.onload = () => { img.src = next.src; setTimeout(refreshCamera, CAMERA_REFRESH_MS); };
  next.onerror = () => setTimeout(refreshCamera, CAMERA_REFRESH_MS * 5);
  next.src = `/api/frame.jpg?t=${Date.now()}`;
}

async function refreshInfo() {
  const l = await fetch("/api/live").then(r => r.json()).catch(() => null);
  if (l && l.source) document.getElementById("live-info").textContent =
    `${l.source}: ${l.fps} fps, ${l.detections} readings, last ${l.detection_ms} ms`;
  if (l && !document.getElementById("status").textContent) document.getElementById("status").textContent = l.status;
}

for (const kind of ["table", "ruling", "ruling_update", "game", "scores"]) {
  liveEvents.addEventListener(kind, refresh);
}
liveEvents.addEventListener("ruling", e => notice(JSON.parse(e.data).summary));
for (const b of document.querySelectorAll(".die button")) {
  b.addEventListener("click", async () => {
    const res = await api("/api/die", {face: b.dataset.face});
    if (res.rulings.length) notice(res.rulings.map(r => r.summary).join(" · "));
    refresh();
  });
}
document.getElementById("end-turn").addEventListener("click", async () => {
  notice((await api("/api/end-turn", {})).message);
});
refresh();
refreshCamera();
refreshInfo();
setInterval(refreshInfo, 2000);
