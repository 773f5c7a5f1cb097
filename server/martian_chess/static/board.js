// Drawing the board as SVG: squares, the glowing canal, tiered pyramids, highlights.
const SVG = "http://www.w3.org/2000/svg";
export const FILES = "abcd";
const CELL = 100;

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

export function squareName(index) {
  return FILES[index % 4] + String(Math.floor(index / 4) + 1);
}

// Where a square is drawn: the viewer's own half at the bottom.
function cellOrigin(index, flipped) {
  const file = index % 4, rank = Math.floor(index / 4);
  const col = flipped ? 3 - file : file;
  const row = flipped ? rank : 7 - rank;
  return [col * CELL, row * CELL];
}

function defs(svg) {
  const d = el("defs", {}, svg);
  const glow = el("filter", { id: "glow", x: "-50%", y: "-50%", width: "200%", height: "200%" }, d);
  el("feGaussianBlur", { stdDeviation: "6", result: "blur" }, glow);
  const merge = el("feMerge", {}, glow);
  el("feMergeNode", { in: "blur" }, merge);
  el("feMergeNode", { in: "SourceGraphic" }, merge);
}

// A pyramid seen from the side, cut into one tier per point of value (the top tier is
// the apex): a pawn is one triangle, a drone two tiers, a queen three.
function piece(group, value, x, y, half) {
  const g = el("g", { class: `piece ${half}`, "data-value": value }, group);
  const base = 30 + value * 12, height = 26 + value * 14, bottom = y + CELL - 14;
  const cx = x + CELL / 2;
  const widthAt = (h) => base * (1 - h / height);
  for (let t = 0; t < value; t++) {
    const h0 = (height * t) / value, h1 = (height * (t + 1)) / value;
    const w0 = widthAt(h0) / 2, w1 = widthAt(h1) / 2;
    const y0 = bottom - h0, y1 = bottom - h1 + (t < value - 1 ? 2 : 0);
    const points = t === value - 1
      ? `${cx - w0},${y0} ${cx + w0},${y0} ${cx},${y1}`
      : `${cx - w0},${y0} ${cx + w0},${y0} ${cx + w1},${y1} ${cx - w1},${y1}`;
    el("polygon", { class: "tier", points }, g);
  }
}

export function drawBoard(svg, state, view) {
  svg.replaceChildren();
  defs(svg);
  const flipped = view.seat === "top";
  const lastMove = state.last_move ? state.last_move.split("-") : [];
  for (let i = 0; i < 32; i++) {
    const [x, y] = cellOrigin(i, flipped);
    const name = squareName(i);
    const half = i < 16 ? "bottom" : "top";
    const classes = ["square", (i % 4 + Math.floor(i / 4)) % 2 ? "light" : "dark", half];
    if (name === view.selected) classes.push("selected");
    if (view.targets.includes(name)) classes.push("target");
    if (lastMove.includes(name)) classes.push("last");
    if (view.movable.includes(name)) classes.push("movable");
    const g = el("g", { class: classes.join(" "), "data-square": name, "data-piece": state.board[i] }, svg);
    el("rect", { x, y, width: CELL, height: CELL }, g);
    if (state.board[i]) piece(g, state.board[i], x, y, half);
    if (view.targets.includes(name)) el("circle", { class: "dot", cx: x + CELL / 2, cy: y + CELL / 2, r: 12 }, g);
    const label = el("text", { class: "coord", x: x + 6, y: y + 16 }, g);
    label.textContent = name;
  }
  el("rect", { class: "canal glow", x: 0, y: 393, width: 400, height: 14, filter: "url(#glow)" }, svg);
  el("rect", { class: "canal core", x: 0, y: 398, width: 400, height: 4 }, svg);
}
