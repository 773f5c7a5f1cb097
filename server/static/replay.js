"use strict";
const gameId = document.getElementById("replay").dataset.game;
let steps = [];

function show(i) {
  const s = steps[i];
  if (!s) return;
  document.getElementById("step").value = i;
  document.getElementById("step-no").textContent = i + 1;
  document.getElementById("step-text").textContent = `${new Date(s.at * 1000).toLocaleTimeString()} — ${s.kind}: ${s.text}`;
  const pic = document.getElementById("step-picture");
  pic.hidden = !s.picture;
  if (s.picture) pic.src = s.picture;
  drawMap(document.getElementById("map"), s.map);
}

api(`/api/games/${gameId}/steps`).then(r => {
  steps = r.steps;
  const range = document.getElementById("step");
  range.max = Math.max(0, steps.length - 1);
  document.getElementById("step-count").textContent = steps.length;
  range.addEventListener("input", () => show(Number(range.value)));
  document.getElementById("prev").onclick = () => show(Math.max(0, Number(range.value) - 1));
  document.getElementById("next").onclick = () => show(Math.min(steps.length - 1, Number(range.value) + 1));
  if (steps.length) show(steps.length - 1);
  else document.getElementById("step-text").textContent = "Nothing was recorded in this game.";
});
