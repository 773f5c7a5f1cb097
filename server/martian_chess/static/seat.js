// The seat token lives in this browser's localStorage, so closing the tab and coming
// back reclaims the seat.
const key = (gameId) => `martian-chess:seat:${gameId}`;

export function loadToken(gameId) {
  try { return localStorage.getItem(key(gameId)); } catch { return null; }
}

export function saveToken(gameId, token) {
  try { localStorage.setItem(key(gameId), token); } catch { /* private mode: seat lasts the tab */ }
}
