"""Martian Chess figures: perft 5 from the setup, and online play under load.

Online: a real server (the blueprint on the server `pyramid-referee serve` runs,
server/wsgi_server.py, loopback, in a process of its own) and GAMES concurrent games,
each driven by its own client thread (in this process) that plays both seats with random
legal moves after a human-like think time. Prints the move round trip (POST move
-> JSON answer) p50/p95/p99 against the goal p99 <= 50 ms.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flask import Flask  # noqa: E402
from werkzeug.serving import WSGIRequestHandler  # noqa: E402

from referee.martian_chess import Position  # noqa: E402
from server.martian_chess import bp  # noqa: E402
from server.wsgi_server import make_server  # noqa: E402

GAMES = 200
MOVES_PER_GAME = 16
# Seconds a player "thinks" before each move (uniform): 200 games then make ~100 moves/s.
THINK_S = (1.0, 3.0)
GOAL_P99_MS = 50.0
# The stress run: no think time at all, a few moves a game (a worst case, not a goal).
BURST_THINK_S = (0.0, 0.0)
BURST_MOVES = 5


def perft_figure() -> None:
    pos = Position.setup()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        nodes = pos.perft(5)
        times.append(time.perf_counter() - t0)
    print(f"perft 5 from the setup: {nodes} in {min(times):.2f} s (best of 3; {nodes / min(times):,.0f} leaves/s)")


class QuietHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs) -> None:  # thousands of lines would hide the figures
        pass


class Client:
    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def post(self, path: str, body: dict) -> tuple[int, dict]:
        self.conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        r = self.conn.getresponse()
        return r.status, json.loads(r.read())


def play_game(port: int, rng: random.Random, think: tuple[float, float], moves: int,
              latencies: list[float], errors: list[str]) -> None:
    client = Client(port)
    status, created = client.post("/martian-chess/api/games", {})
    gid = created["id"]
    api = f"/martian-chess/api/games/{gid}"
    _, joined = client.post(f"{api}/join", {})
    tokens = {"bottom": created["token"], "top": joined["token"]}
    state = joined["state"]
    for _ in range(moves):
        if state["outcome"]:
            break
        time.sleep(rng.uniform(*think))
        frm = rng.choice(sorted(state["legal"]))
        move = f"{frm}-{rng.choice(state['legal'][frm])}"
        t0 = time.perf_counter()
        status, state = client.post(f"{api}/move", {"token": tokens[state["turn"]], "move": move})
        latencies.append((time.perf_counter() - t0) * 1000)
        if status != 200:
            errors.append(f"{status}: {state}")
            return


def serve(database: str, ports) -> None:
    """The server, in a process of its own as in play (the browsers are elsewhere): the
    clients' 200 threads must not share its interpreter lock."""
    app = Flask(__name__)
    app.config.update(DATABASE=database)
    app.register_blueprint(bp)
    server = make_server("127.0.0.1", 0, app, request_handler=QuietHandler)
    server.socket.listen(1024)
    ports.put(server.server_port)
    server.serve_forever()


def online_figures(think: tuple[float, float], moves: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ctx = multiprocessing.get_context("spawn")
        ports = ctx.Queue()
        server = ctx.Process(target=serve, args=(str(Path(tmp) / "bench.sqlite3"), ports), daemon=True)
        server.start()
        port = ports.get(timeout=60)
        latencies: list[float] = []
        errors: list[str] = []
        threads = [threading.Thread(target=play_game, args=(port, random.Random(i), think, moves, latencies, errors))
                   for i in range(GAMES)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        server.terminate()
        server.join()
    q = statistics.quantiles(latencies, n=100)
    p50, p95, p99 = statistics.median(latencies), q[94], q[98]
    verdict = "meets" if p99 <= GOAL_P99_MS else "MISSES"
    print(f"online: {GAMES} concurrent games, {len(latencies)} moves in {wall:.1f} s "
          f"({len(latencies) / wall:.0f} moves/s), think time {think[0]}-{think[1]} s")
    print(f"move round trip: p50 {p50:.1f} ms, p95 {p95:.1f} ms, p99 {p99:.1f} ms, max {max(latencies):.1f} ms "
          f"({verdict} the goal p99 <= {GOAL_P99_MS:.0f} ms); errors: {len(errors)}")
    for e in errors[:3]:
        print("  ", e)


if __name__ == "__main__":
    perft_figure()
    online_figures(THINK_S, MOVES_PER_GAME)
    print("stress, no think time (every client fires its next move at once):")
    online_figures(BURST_THINK_S, BURST_MOVES)
