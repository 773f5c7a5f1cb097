// Home page: "Start a game" creates a game, keeps the creator's seat token, opens the link.
import { saveToken } from "./seat.js";

const button = document.getElementById("start");
const error = document.getElementById("start-error");

button.addEventListener("click", async () => {
  button.disabled = true;
  error.textContent = "";
  try {
    const res = await fetch(`${location.pathname.replace(/\/$/, "")}/api/games`, { method: "POST" });
    const body = await res.json();
    if (!res.ok) throw new Error(body.error || res.statusText);
    saveToken(body.id, body.token);
    location.href = body.url;
  } catch (e) {
    error.textContent = `Could not start a game: ${e.message}`;
    button.disabled = false;
  }
});
