"""The dashboard's side of the live pipeline: one current game, its loop, storage and browsers.

`LiveService` receives every `LiveEvent` of the loop, stores what matters in SQLite,
pushes it to the browsers (server-sent events) and answers the players' requests:
new game, end turn, die roll, corrections, rulings confirmed / overridden / challenged.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import replace
from typing import Any, Callable

import cv2
import numpy as np

from calibration.markers import MarkerLayout
from domain import InputError, TableState
from server.bus import EventBus
from server.db import NotFound, Store
from server.games import DEFAULT_GAME, check_players, game_kind
from vision.live.loop import LiveEvent, LiveLoop
from vision.live.session import SessionRecorder
from vision.live.tracking import Tracker

# Pictures kept with rulings and shown in the live view: wide enough to see a beam's
# clearance, small enough to store a long game (~60 kB each).
PICTURE_WIDTH = 960
JPEG_QUALITY = 80
# The demo enters the footage's die rolls this long after the referee asks, seconds: long
# enough to read the prompt on the dashboard.
AUTO_ROLL_DELAY_S = 1.0
RULING_ACTIONS = {"confirm": "confirmed", "override": "overridden", "challenge": "challenged"}


class RequestError(InputError):
    """A player's request that cannot be carried out as asked."""


def jpeg(frame: np.ndarray, width: int = PICTURE_WIDTH, quality: int = JPEG_QUALITY) -> bytes:
    h, w = frame.shape[:2]
    if w > width:
        frame = cv2.resize(frame, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return buf.tobytes() if ok else b""


class LiveService:
    def __init__(self, store: Store, bus: EventBus, *, annotate: Callable[[np.ndarray, Any], np.ndarray] | None = None,
                 recorder: SessionRecorder | None = None, layout: MarkerLayout | None = None,
                 referee_options: dict[str, Any] | None = None):
        self.store, self.bus, self.recorder = store, bus, recorder
        self.layout = layout or MarkerLayout.default()  # where the markers lie: the map's frame
        self.referee_options = referee_options or {}
        self.annotate = annotate
        self.lock = threading.RLock()
        self.loop: LiveLoop | None = None
        self.thread: threading.Thread | None = None
        self._on_stop: Callable[[], Any] | None = None
        self.status = "no camera"
        # One writer thread keeps SQLite and the session folder off the loop's path: browsers
        # hear of a ruling at once, and writes stay in order.
        self._writes: queue.Queue = queue.Queue()
        threading.Thread(target=self._write_forever, name="storage", daemon=True).start()
        self.auto_rolls: list[str] = []  # the demo's scripted die faces, in order
        self.last_before: TableState | None = None  # the table before the latest change
        self._auto_next = 0
        game = store.latest_game()
        if game is None:
            game = self._create(DEFAULT_GAME, None, False)
        self._load(game)

    # -- game ---------------------------------------------------------------------------
    def _create(self, kind: str, players: Any, shadow: bool) -> dict[str, Any]:
        k = game_kind(kind)
        checked = check_players(k, players)
        self.flush()  # the old game's writes land before the new game's id is taken
        gid = self.store.new_game(k.name, checked, shadow, {})
        return self.store.game(gid)

    def _load(self, game: dict[str, Any]) -> None:
        self.game = game
        saved = game["state"]
        self.table = TableState.from_dict(saved["table"]) if saved.get("table") else TableState()
        self.referee = game_kind(game["kind"]).referee(game["shadow"], self.referee_options)
        if hasattr(self.referee, "restore"):
            self.referee.restore(saved.get("referee") or {}, game["players"])
        self.rulings = self.store.rulings(game["id"])
        self._auto_next = 0
        if self.loop is not None:
            self.loop.referee = self.referee
            self.loop.reset(self.table)

    def new_game(self, kind: str, players: Any = None, shadow: bool = False) -> dict[str, Any]:
        with self.lock:
            game = self._create(kind, players, shadow)
            self._load(game)
            self._save()
        self.bus.publish("game", self.state())
        return self.game

    def _save(self) -> None:
        state = {"table": self.table.to_dict()}
        if hasattr(self.referee, "snapshot"):
            state["referee"] = self.referee.snapshot()
        self.game["state"] = state
        gid = self.game["id"]
        self._write(lambda: self.store.save_state(gid, state))

    def scores(self) -> dict[str, Any]:
        if hasattr(self.referee, "scores"):
            return self.referee.scores(self.game["players"])
        return {}

    def state(self) -> dict[str, Any]:
        """The contract's GET /api/state."""
        with self.lock:
            g = self.game
            game = {"id": g["id"], "kind": g["kind"], "title": game_kind(g["kind"]).title,
                    "players": g["players"], "shadow": g["shadow"], "status": self.status}
            if hasattr(self.referee, "public"):
                game.update(self.referee.public())
            return {"game": game, "table": self.table.to_dict(), "rulings": list(self.rulings),
                    "scores": self.scores()}

    # -- the loop -----------------------------------------------------------------------
    def attach(self, loop: LiveLoop, on_stop: Callable[[], Any] | None = None) -> None:
        """Run `loop` (already built on a source) on a thread, feeding this service;
        `on_stop` releases what was built for it (the detector's worker processes)."""
        self._on_stop = on_stop
        loop.sink = self.handle
        loop.referee = self.referee
        loop.reset(self.table)  # a restored table is the baseline, not a move
        self.loop = loop
        self.thread = threading.Thread(target=loop.run, name="live-loop", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        if self.loop is not None:
            self.loop.stop()
        if self.thread is not None:
            self.thread.join(timeout=5)
        if self._on_stop is not None:
            self._on_stop()
        self.flush()

    def picture(self, frame: np.ndarray | None, detection: Any = None) -> bytes | None:
        if frame is None:
            return None
        if self.annotate is not None and detection is not None:
            try:
                frame = self.annotate(frame, detection)
            except Exception:  # a drawing bug must not lose the ruling: keep the plain frame
                pass
        return jpeg(frame)

    def handle(self, event: LiveEvent) -> None:
        """Every event of the loop (on the loop's threads)."""
        if self.recorder is not None:
            self._write(lambda: self.recorder.record(event))
        if event.kind == "status":
            self.status = event.data["message"]
            self.bus.publish("status", {"message": self.status, "at": event.at})
            return
        with self.lock:
            gid = self.game["id"]
            detection = self.loop.latest_detection if self.loop else None
            if event.kind == "table":
                self.table = TableState.from_dict(event.data["table"])
                self.last_before = TableState.from_dict(event.data["before"]) if "before" in event.data else None
                payload = {"table": self.table.to_dict(), "scores": self.scores()}
                self._save()
                self._write(lambda: self.store.add_event(gid, "table", event.data,
                                                         self.picture(event.frame, detection), event.at))
            elif event.kind == "ruling":
                payload = dict(event.data, at=event.at)
                self.rulings.append(payload)
                self._save()
                summary = {"id": payload["id"], "summary": payload["summary"]}
                self._write(lambda: self.store.add_ruling(gid, payload, self.picture(event.frame, detection)),
                            lambda: self.store.add_event(gid, "ruling", summary, at=event.at))
            else:  # camera, error: kept in the history, shown as a notice
                payload = dict(event.data, at=event.at)
                self._write(lambda: self.store.add_event(gid, event.kind, event.data, at=event.at))
        self.bus.publish(event.kind, payload)
        if event.kind == "ruling":
            self._maybe_auto_roll([payload])

    # -- storage ------------------------------------------------------------------------
    def _write(self, *jobs: Callable[[], Any]) -> None:
        for job in jobs:
            self._writes.put(job)

    def _write_forever(self) -> None:
        while True:
            job = self._writes.get()
            try:
                job()
            except Exception as e:  # a full disk must not stop the game: say so, go on
                self.bus.publish("error", {"message": f"could not store: {type(e).__name__}: {e}"})
            finally:
                self._writes.task_done()

    def flush(self) -> None:
        """Wait until everything handed to storage is written."""
        self._writes.join()

    # -- players' requests --------------------------------------------------------------
    def end_turn(self) -> None:
        if self.loop is None:
            raise RequestError("no camera is running: start the server with --source or --demo")
        self.loop.request_capture()

    def correct_piece(self, pid: str, changes: dict[str, Any]) -> dict[str, Any]:
        allowed = {"color", "size", "pose", "center", "rotation", "tail", "heading"}
        bad = set(changes) - allowed
        if not changes or bad:
            raise RequestError(f"a correction may change only {', '.join(sorted(allowed))}")
        with self.lock:
            tracker = self.loop.tracker if self.loop else Tracker(self.table)
            lock = self.loop.lock if self.loop else threading.RLock()
            with lock:
                try:
                    tracker.confirmed.piece(pid)
                except KeyError:
                    raise NotFound(f"no piece {pid!r} on the table") from None
                self.table = tracker.correct(pid, changes)
            self._save()
            gid, data = self.game["id"], {"piece": pid, "changes": changes, "table": self.table.to_dict()}
            self._write(lambda: self.store.add_event(gid, "correction", data))
        self.bus.publish("table", {"table": self.table.to_dict(), "scores": self.scores()})
        return self.table.piece(pid).to_dict()

    def act_on_ruling(self, rid: str, action: str, note: str = "") -> dict[str, Any]:
        if action not in RULING_ACTIONS:
            raise RequestError(f"unknown action {action!r} (one of: {', '.join(RULING_ACTIONS)})")
        with self.lock:
            ruling = next((r for r in self.rulings if r["id"] == rid), None)
            if ruling is None:
                raise NotFound(f"no ruling {rid!r} in this game")
            ruling["status"] = RULING_ACTIONS[action]
            ruling.setdefault("history", []).append({"action": action, "note": str(note)[:500], "at": time.time()})
            gid, data, snapshot = self.game["id"], {"ruling": rid, "note": str(note)[:500]}, dict(ruling)
            self._write(lambda: self.store.update_ruling(snapshot), lambda: self.store.add_event(gid, action, data))
        self.bus.publish("ruling_update", ruling)
        if action == "challenge":
            self._recheck()
        return ruling

    def _recheck(self) -> None:
        """A challenge: rule the latest change again on the table as corrected now (the game
        is not replayed); without a change to recheck, read the table again."""
        if self.last_before is not None and hasattr(self.referee, "recheck"):
            with self.lock:
                fixes = self.loop.tracker.corrections if self.loop else {}
                before = TableState(tuple(replace(p, color=fixes[p.id].color, size=fixes[p.id].size)
                                          if p.id in fixes else p for p in self.last_before.pieces))
                rulings = self.referee.recheck(before, self.table)
            self._add_rulings(rulings)
        elif self.loop is not None:
            self.loop.request_capture()

    def _add_rulings(self, rulings: list[dict[str, Any]]) -> None:
        """Rulings made outside the loop (rolls, rechecks): kept, stored, announced."""
        with self.lock:
            gid = self.game["id"]
            for r in rulings:
                r["at"] = time.time()
                self.rulings.append(r)
                self._write(lambda r=r: self.store.add_ruling(gid, r, None))
            self._save()
        for r in rulings:
            self.bus.publish("ruling", r)

    def roll(self, face: str | None) -> list[dict[str, Any]]:
        """A die roll: `face` as read from the physical die, or None to roll on screen."""
        if not hasattr(self.referee, "roll"):
            raise RequestError(f"{self.game['kind']} uses no die")
        with self.lock:
            rulings = self.referee.roll(face, self.game["players"])
        self._add_rulings(rulings)
        self.bus.publish("scores", {"scores": self.scores()})
        self._maybe_auto_roll(rulings)
        return rulings

    def _maybe_auto_roll(self, rulings: list[dict[str, Any]]) -> None:
        """Demo: answer the referee's roll prompt with the footage's next scripted face."""
        if not self.auto_rolls or not any(r["kind"] == "roll" for r in rulings):
            return
        face = self.auto_rolls[self._auto_next % len(self.auto_rolls)]
        self._auto_next += 1

        def roll() -> None:
            try:
                self.roll(face)
            except InputError as e:  # the table moved on meanwhile: say so, carry on
                self.bus.publish("error", {"message": f"demo roll {face}: {e}"})
        timer = threading.Timer(AUTO_ROLL_DELAY_S, roll)
        timer.daemon = True
        timer.start()
