"""Live pipeline figures.

1. Frames per second the live loop sustains at 1280×960: frames of a turn (still table,
   hands moving, still table) from memory through `LiveLoop.process` with detection on its
   worker thread, as a camera would deliver them as fast as the loop takes them. Goal ≥ 25.
2. Latency from the first quiet frame to the ruling reaching the browser: the dashboard
   runs on werkzeug (loopback), a paced 25 fps source plays turns (hands, then the still
   table), and an SSE client timestamps each `ruling` event. Goal ≤ 300 ms (median).

Frames are the bundled demo footage (the project's renderer) and the detector is the real
one when both are available; otherwise painted frames and the fake detector of the tests,
and the figures say so.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from werkzeug.serving import WSGIRequestHandler, make_server  # noqa: E402

from server.app import create_app  # noqa: E402
from server.startup import DEMO_FOOTAGE, live_detector  # noqa: E402
from vision.live.loop import LiveLoop  # noqa: E402

FPS_FRAMES = 600
CAMERA_FPS = 25.0
TURNS = 6
STILL_FRAMES = 50  # 2 s of still table after each turn: time to read, rule and settle


def footage_turn() -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], str]:
    """(still before, hand frames, still after) of the demo's first move, at 1280×960."""
    playlist = os.path.join(DEMO_FOOTAGE, "playlist.json")
    if os.path.exists(playlist):
        with open(playlist, encoding="utf-8") as f:
            entries = json.load(f)["frames"]
        load = lambda e: cv2.imread(os.path.join(DEMO_FOOTAGE, e["file"]))  # noqa: E731
        end = next(i for i, e in enumerate(entries) if i > 0 and e["repeat"] > 1)
        return [load(entries[0])], [load(e) for e in entries[1:end]], [load(entries[end])], "demo footage"
    from domain import Piece
    from tests.live.fakes import HandSpec, paint
    a, b = [Piece.upright("a", "red", "large", (200, 200))], [Piece.upright("a", "red", "large", (300, 260))]
    hands = [paint(a, HandSpec((300, 560 - 40 * i))) for i in range(5)]
    return [paint(a)], hands, [paint(b)], "painted frames (no footage yet)"


def detector_or_fake():
    try:
        d = live_detector()   # in worker processes, as the dashboard runs it
        from calibration import registration  # noqa: F401
        return d, "real detector, in worker processes"
    except ImportError as e:
        from tests.live.fakes import FakeDetector
        return FakeDetector(), f"fake detector ({e})"


class Null:
    def on_change(self, before, after):
        return []


def bench_fps(detector, turn) -> float:
    before, hands, after = turn[:3]
    clip = (before * 40 + hands + after * 40 + hands[::-1]) * (FPS_FRAMES // (80 + 2 * len(hands)) + 1)
    loop = LiveLoop(None, detector, Null(), lambda e: None, threaded_detection=True)
    loop.start_workers()
    t0 = time.perf_counter()
    for frame in clip[:FPS_FRAMES]:
        loop.process(frame)
    elapsed = time.perf_counter() - t0
    loop.stop()
    return FPS_FRAMES / elapsed, loop.stats.detections


class PacedTurns:
    """A 25 fps camera playing TURNS turns; remembers when each first quiet frame went out."""

    def __init__(self, turn):
        before, hands, after = turn[:3]
        self.frames, self.first_quiet_at_index = [], []
        self.frames += before * STILL_FRAMES
        for k in range(TURNS):
            a, b = (before, after) if k % 2 == 0 else (after, before)
            self.frames += hands + (hands[::-1] if k % 2 else [])
            self.first_quiet_at_index.append(len(self.frames))
            self.frames += b * STILL_FRAMES
        self.sent_at: dict[int, float] = {}
        self.name, self.fps, self.live, self.i = "paced turns", CAMERA_FPS, False, 0

    def read(self):
        if self.i >= len(self.frames):
            return None
        self.sent_at[self.i] = time.perf_counter()
        self.i += 1
        return self.frames[self.i - 1]

    def close(self):
        pass


class Timed:
    """The detector, timing each reading (to tell the pipeline's overhead from the detector's)."""

    def __init__(self, detector):
        self.detector, self.ms = detector, []
        if hasattr(detector, "register"):
            self.register = detector.register

    def detect(self, image, registration=None, palette=None):
        t0 = time.perf_counter()
        try:
            return self.detector.detect(image, registration=registration, palette=palette)
        finally:
            self.ms.append((time.perf_counter() - t0) * 1000)


def bench_latency(detector, turn) -> list[float]:
    source = PacedTurns(turn)
    db = os.path.join(tempfile.mkdtemp(), "bench.sqlite3")
    app = create_app({"DATABASE": db, "FRAME_SOURCE": source, "DETECTOR": detector, "GAME": "warpships"})
    WSGIRequestHandler.log_request = lambda *a, **k: None
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    arrivals: list[float] = []

    def listen():
        with urllib.request.urlopen(f"http://127.0.0.1:{srv.server_port}/api/stream", timeout=60) as res:
            for line in res:
                if line.startswith(b"event: ruling"):
                    arrivals.append(time.perf_counter())
    threading.Thread(target=listen, daemon=True).start()
    service = app.extensions["live"]
    service.thread.join(timeout=120)
    time.sleep(0.5)
    service.stop()
    srv.shutdown()
    latencies = []
    for k, index in enumerate(source.first_quiet_at_index):
        start = source.sent_at.get(index)
        nxt = source.sent_at.get(source.first_quiet_at_index[k + 1], float("inf")) if k + 1 < TURNS else float("inf")
        got = [t for t in arrivals if start is not None and start <= t < nxt]
        if got:
            latencies.append((got[0] - start) * 1000)
    return latencies


def bench_demo() -> None:
    """The whole demo footage through the real pipeline: how faithfully it is ruled."""
    from tests.live.test_footage import play_demo
    with tempfile.TemporaryDirectory() as folder:
        clip, script, rulings, watching, referee = play_demo(folder)
    moves = [r for r in rulings if r["kind"] == "move"]
    as_played = sum(1 for m, t in zip(moves, script)
                    if m["ruling"]["kind"] == t["kind"] and (m["ruling"]["legal"] or m["too_close_to_call"]))
    uncertain = sum(1 for r in rulings if r["kind"] == "uncertain")
    gained = sum(len(referee.game.colony(p)) for p in referee.game.players) if referee.game else 0
    hands = sum(1 for i in watching.read_entries if clip[i]["hand"])
    print(f"demo footage, real pipeline: {as_played}/{len(script)} turns ruled as played, {uncertain} uncertain, "
          f"{gained}/{sum(len(t['teleported']) for t in script)} ships to the right colonies, "
          f"{hands} of {len(watching.read_entries)} frames read had a hand in them")


def main() -> None:
    turn = footage_turn()
    detector, what = detector_or_fake()
    print(f"frames: {turn[3]}, {turn[0][0].shape[1]}×{turn[0][0].shape[0]}; {what}")
    fps, detections = bench_fps(detector, turn)
    print(f"live loop: {fps:.0f} frames/s sustained over {FPS_FRAMES} frames "
          f"({detections} detections on quiet frames; goal >= 25)")
    timed = Timed(detector)
    lat = bench_latency(timed, turn)
    if timed.ms:
        print(f"one reading (registration given): median {statistics.median(timed.ms):.0f} ms over "
              f"{len(timed.ms)} readings, two at a time on {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    if lat:
        q = statistics.quantiles(lat, n=10, method="inclusive") if len(lat) > 1 else [lat[0]] * 9  # within the samples
        print(f"first quiet frame -> ruling in the browser: median {statistics.median(lat):.0f} ms, "
              f"p90 {q[8]:.0f} ms, max {max(lat):.0f} ms over {len(lat)} turns (goal median <= 300 ms)")
    else:
        print("first quiet frame -> ruling: no ruling arrived (see the dashboard's status)")
    close = getattr(detector, "close", None)
    if close is not None:
        close()
    if os.path.exists(os.path.join(DEMO_FOOTAGE, "playlist.json")):
        bench_demo()


if __name__ == "__main__":
    main()
