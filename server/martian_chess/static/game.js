// A game page: join (or reclaim) a seat, follow the game live, play by tapping squares.
import { drawBoard } from "./board.js";
import { loadToken, saveToken } from "./seat.js";

const root = document.getElementById("game");
const gameId = root.dataset.gameId;
const api = root.dataset.api;
const $ = (id) => document.getElementById(id);
const SIDE = { bottom: "Bottom", top: "Top" };

let state = null;
let seat = null;
let token = loadToken(gameId);
let selected = null;
let endDismissedRound = null;

async function post(path, body = {}) {
  const res = await fetch(`${api}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token, ...body }),
  });
  const data = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

function show(next) {
  if (state && next.version < state.version) return; // an older answer arriving late
  if (state && next.round !== state.round) {
    endDismissedRound = null;
    if (seat) joinSeat(); // a rematch swaps sides: ask which seat this browser has now
  }
  state = next;
  if (selected && !(state.legal[selected] && myTurn())) selected = null;
  render();
}

function seatsFull() {
  return state.seats.top.taken && state.seats.bottom.taken;
}

function myTurn() {
  return seat && state && !state.outcome && seatsFull() && state.turn === seat;
}

function render() {
  const targets = selected && myTurn() ? state.legal[selected] || [] : [];
  const movable = myTurn() ? Object.keys(state.legal) : [];
  drawBoard($("board"), state, { seat, selected, targets, movable });
  renderPanel();
  renderEnd();
}

function playerLine(side) {
  const you = seat === side ? " (you)" : "";
  const info = state.seats[side];
  const who = info.camera ? "physical board" : info.taken ? "player" : "waiting for an opponent";
  const turn = !state.outcome && state.turn === side ? " — to move" : "";
  return `${SIDE[side]}${you}: ${who}${turn}`;
}

function renderPanel() {
  const near = seat === "top" ? "top" : "bottom", far = near === "top" ? "bottom" : "top";
  $("bar-near").textContent = playerLine(near);
  $("bar-far").textContent = playerLine(far);
  $("bar-near").classList.toggle("active", !state.outcome && state.turn === near);
  $("bar-far").classList.toggle("active", !state.outcome && state.turn === far);
  const you = (side) => (seat === side ? " (you)" : "");
  $("score-near").textContent = `${SIDE[near]}${you(near)} ${state.scores[near]}`;
  $("score-far").textContent = `${SIDE[far]}${you(far)} ${state.scores[far]}`;
  $("role").textContent = seat ? `You play ${SIDE[seat].toLowerCase()} — your pieces are the ones on your side of the canal.`
                               : "You are watching as a spectator.";
  let status;
  if (state.outcome) status = "Game over.";
  else if (!seatsFull()) status = "Waiting for an opponent to open the link.";
  else if (myTurn()) status = selected ? "Tap a highlighted square." : "Your turn: tap one of your pieces.";
  else status = `${SIDE[state.turn]} to move.`;
  $("status").textContent = status;
  const clock = $("clock-count");
  clock.hidden = state.clock === null;
  clock.textContent = state.clock === null ? "" : `Clock called: ${state.clock} move${state.clock === 1 ? "" : "s"} left without a capture`;
  $("call-clock").hidden = !(myTurn() && state.clock === null);
  $("share").hidden = !(seat && !seatsFull());
  $("share-link").value = location.href;
  $("move-list").replaceChildren(...state.moves.map((m) => {
    const li = document.createElement("li");
    li.textContent = m === "clock" ? "clock called" : m;
    return li;
  }));
  $("history").replaceChildren(...state.history.map((h) => {
    const li = document.createElement("li");
    const result = h.winner === null ? "draw" : `${SIDE[h.winner].toLowerCase()} won`;
    li.textContent = `Round ${h.round}: ${result}, ${h.scores.bottom}–${h.scores.top}`;
    return li;
  }));
  $("flags").replaceChildren(...state.flags.map((f) => {
    const li = document.createElement("li");
    li.textContent = `Camera: ${f.message}`;
    return li;
  }));
}

function renderEnd() {
  const screen = $("end-screen");
  const outcome = state.outcome;
  screen.hidden = !outcome || endDismissedRound === state.round;
  if (!outcome) return;
  let title;
  if (outcome.winner === null) title = "Draw";
  else if (seat) title = outcome.winner === seat ? "You win!" : "You lose";
  else title = `${SIDE[outcome.winner]} wins`;
  $("end-title").textContent = title;
  $("end-scores").textContent = `Bottom ${outcome.scores.bottom} — Top ${outcome.scores.top}`;
  $("end-reason").textContent = outcome.reason;
  $("rematch").hidden = !seat;
}

async function act(path, body) {
  $("message").textContent = "";
  try {
    show(await post(path, body));
  } catch (e) {
    $("message").textContent = e.message;
  }
}

$("board").addEventListener("click", (event) => {
  const square = event.target.closest("[data-square]");
  if (!square || !myTurn()) return;
  const name = square.dataset.square;
  if (selected && (state.legal[selected] || []).includes(name)) {
    const move = `${selected}-${name}`;
    selected = null;
    act("/move", { move });
    return;
  }
  selected = state.legal[name] ? (selected === name ? null : name) : null;
  render();
});

$("copy-link").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText(location.href);
    $("copy-link").textContent = "Copied";
  } catch {
    $("share-link").select();
  }
});
$("call-clock").addEventListener("click", () => act("/clock"));
$("rematch").addEventListener("click", () => act("/rematch"));
$("end-close").addEventListener("click", () => { endDismissedRound = state.round; render(); });

async function joinSeat() {
  const joined = await post("/join");
  seat = joined.seat;
  if (joined.token) { token = joined.token; saveToken(gameId, token); }
  show(joined.state);
}

async function start() {
  try {
    await joinSeat();
  } catch (e) {
    $("status").textContent = `Could not open the game: ${e.message}`;
    return;
  }
  const events = new EventSource(`${api}/events`);
  events.onmessage = (msg) => show(JSON.parse(msg.data));
  events.onerror = () => { $("status").textContent = "Reconnecting…"; };
  events.onopen = () => { if (state) renderPanel(); };
}

start();
