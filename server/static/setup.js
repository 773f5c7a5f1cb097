"use strict";
document.getElementById("setup-form").addEventListener("submit", async e => {
  e.preventDefault();
  const f = e.target;
  const players = [];
  for (let i = 0; i < 4; i++) {
    const name = f[`name${i}`].value.trim();
    if (name) players.push({name, color: f[`color${i}`].value});
  }
  const res = await api("/api/games", {game: f.game.value, players, shadow: f.shadow.checked});
  notice(`game ${res.game.id} started`);
  setTimeout(() => { location.href = "/"; }, 400);
});
