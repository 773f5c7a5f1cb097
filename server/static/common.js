// Shared helpers of every page: JSON requests, the notice line, the live status, the SVG map.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const PIECE_FILL = {red: "#d33", yellow: "#e8c400", green: "#2a2", blue: "#26d", black: "#222",
  purple: "#84c", clear: "#ddd", orange: "#f80", cyan: "#1cc", white: "#fafafa"};

async function api(path, body) {
  const opts = body === undefined ? {} : {method: "POST", headers: {"Content-Type": "application/json"},
                                         body: JSON.stringify(body)};
  const res = await fetch(path, opts);
  const data = await res.json().catch(() => ({error: `${res.status} ${res.statusText}`}));
  if (!res.ok) { notice(data.error || `request failed (${res.status})`, true); throw new Error(data.error); }
  return data;
}

function notice(text, bad) {
  const n = document.getElementById("notice");
  n.textContent = text;
  n.className = bad ? "notice bad" : "notice";
  n.hidden = false;
  clearTimeout(notice.timer);
  notice.timer = setTimeout(() => { n.hidden = true; }, 6000);
}

function svg(tag, attrs, parent) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

const pts = list => list.map(p => p.join(",")).join(" ");

// Draw a /api/map answer into an <svg>; onPiece(id) is called when a piece is clicked.
function drawMap(el, map, onPiece) {
  el.replaceChildren();
  el.setAttribute("viewBox", map.viewbox.join(" "));
  const [x0, y0, w, h] = map.viewbox;
  svg("rect", {x: x0, y: y0, width: w, height: h, class: "felt"}, el);
  for (const m of map.markers) {
    svg("polygon", {points: pts(m.corners), class: "marker"}, el);
  }
  if (map.warp) {
    svg("circle", {cx: map.warp.center[0], cy: map.warp.center[1], r: map.warp.radius,
                   class: map.warp.legal ? "warp" : "warp illegal"}, el);
  }
  for (const p of map.pieces) {
    const g = svg("g", {class: `piece ${p.pose}${p.unsure ? " unsure" : ""}`, "data-id": p.id, tabindex: 0}, el);
    svg("polygon", {points: pts(p.footprint), fill: PIECE_FILL[p.color] || "#888"}, g);
    const t = svg("text", {x: p.label[0], y: p.label[1] - 4, class: "label"}, g);
    t.textContent = `${p.id} ${p.size[0].toUpperCase()}${p.stack.length > 1 ? "×" + p.stack.length : ""}`;
    const title = svg("title", {}, g);
    title.textContent = `${p.id}: ${p.color} ${p.size} ${p.pose}` +
      (p.unsure ? ` (the camera reads such a piece right ${Math.round(100 * p.confidence)} % of the time: check it)` : "");
    if (onPiece) g.addEventListener("click", () => onPiece(p.id));
  }
  if (map.beam) {
    const b = map.beam;
    svg("line", {x1: b.from[0], y1: b.from[1], x2: b.to[0], y2: b.to[1],
                 class: `beam ${b.valid ? "valid" : "invalid"} ${b.too_close_to_call ? "close" : ""}`}, el);
  }
}

// The live status line (every page): one EventSource, shared with the page's own handlers.
const liveEvents = new EventSource("/api/stream");
liveEvents.addEventListener("status", e => {
  document.getElementById("status").textContent = JSON.parse(e.data).message;
});
for (const kind of ["error", "camera"]) {
  liveEvents.addEventListener(kind, e => { if (e.data) notice(JSON.parse(e.data).message, true); });
}
