"""The live loop: frames in, confirmed tables and rulings out.

Every frame goes through the cheap motion gate. Only once the table has been still
for `QUIET_FRAMES` frames, with nothing over it, does the heavy detector read it (on a
worker thread, so the loop keeps up with the camera); `AGREEING_FRAMES` readings in a
row must agree before the table counts; a confirmed change goes to the game's referee.
After a table is confirmed the detector rests until something moves again.

Everything the loop learns leaves through `sink(LiveEvent)`: the dashboard stores it,
pushes it to the browsers and, when recording, writes it to the session folder.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from domain import InputError, TableState
from vision.live.camera_watch import CameraWatch
from vision.live.motion import DEFAULT_GATE_PIXEL_MM, GATE_WIDTH, MotionGate, find_occluder
from vision.live.sources import CorruptFrame, FrameLost, FrameSource
from vision.live.tracking import Debouncer, Tracker, same_table


# Frames read at once: the debouncer's two readings run side by side, on two cores when
# the detector works in processes (vision.live.processes; the dashboard's does), which
# nearly halves the wait before a ruling.
DETECTION_WORKERS = 2
# The same error is reported once in this many seconds (a broken detector fails every frame).
ERROR_REPEAT_S = 10.0


@dataclass
class LiveEvent:
    """kind: status | table | ruling | camera | error; data is JSON-ready; frame is what it was read from."""

    kind: str
    data: dict[str, Any]
    frame: np.ndarray | None = None
    frame_index: int | None = None
    at: float = field(default_factory=time.time)


class Referee(Protocol):
    def on_change(self, before: TableState, after: TableState) -> list[dict[str, Any]]: ...


class Detector(Protocol):
    def detect(self, image_bgr: np.ndarray, registration: Any = None,
               palette: Sequence[str] | None = None) -> Any: ...


@dataclass
class LoopStats:
    frames: int = 0
    detections: int = 0
    corrupt_frames: int = 0
    last_detection_ms: float = 0.0
    fps: float = 0.0


class LiveLoop:
    def __init__(self, source: FrameSource | None, detector: Detector, referee: Referee,
                 sink: Callable[[LiveEvent], None], *, table_centre: tuple[float, float] = (380.0, 280.0),
                 quiet_frames: int | None = None, agreeing_frames: int | None = None,
                 realtime: bool = True, threaded_detection: bool = True, tracker: Tracker | None = None):
        self.source, self.detector, self.referee, self.sink = source, detector, referee, sink
        self.gate = MotionGate(quiet_frames) if quiet_frames else MotionGate()
        self.debouncer = Debouncer(agreeing_frames) if agreeing_frames else Debouncer()
        self.tracker = tracker or Tracker()
        self.watch = CameraWatch(table_centre)
        self.realtime, self.threaded = realtime, threaded_detection
        self.stats = LoopStats()
        self.lock = threading.RLock()  # guards tracker/referee against the dashboard's threads
        self.latest_frame: np.ndarray | None = None
        self.latest_detection: Any = None
        self.status = "starting"
        self._background: np.ndarray | None = None  # gate image of the last confirmed table
        self._started = bool(self.tracker.confirmed.pieces)
        self._generation = 0  # bumped on motion: readings of older frames are stale
        self._registered_in = -1  # the generation of the last frame registered
        self._idle = False  # the table was read since it last moved
        self._capture = False
        self._occluded_said = False
        self._last_error: tuple[Any, float] = (None, 0.0)
        self._pending: tuple | None = None
        self._wake = threading.Condition()
        self._stop = threading.Event()
        self._workers: list[threading.Thread] = []

    # -- controls -----------------------------------------------------------------------
    def request_capture(self) -> None:
        """The "end turn" button: read the next still frame at once, without waiting for more
        quiet frames or for the occluder check (a frame that is still moving is never read)."""
        self._capture = True

    def reset(self, table: TableState) -> None:
        """Start again from `table` (a new game): its pieces are the baseline, not a move."""
        with self.lock:
            self.tracker = Tracker(table)
            self._started = bool(table.pieces)
            self._background, self._idle = None, False
            self._generation += 1
            self.debouncer.reset()

    def stop(self) -> None:
        self._stop.set()
        with self._wake:
            self._wake.notify_all()

    # -- per frame ----------------------------------------------------------------------
    def process(self, frame: np.ndarray) -> None:
        """One frame through the gate; a still frame with nothing over the table is handed to the
        detector (after QUIET_FRAMES still frames; threaded, at once, kept only if they follow)."""
        self.stats.frames += 1
        index = self.stats.frames
        self.latest_frame = frame
        reading = self.gate.update(frame)
        if reading.moving:
            self._generation += 1
            self._idle = self._occluded_said = False
            with self.lock:
                self.debouncer.reset()
            self._set_status("the table is moving")
            return
        forced, self._capture = self._capture, False
        # Threaded, a still frame is read at once, speculatively: its reading counts only if
        # the table is still quiet for QUIET_FRAMES frames when it is done (see _read), so
        # the wait for quiet frames overlaps the detector's work instead of preceding it.
        if not forced and (self._idle or not (self.threaded or self.gate.settled)):
            return
        if not forced:
            why = find_occluder(self._background, self.gate.current, self._gate_pixel_mm())
            if why:
                if not self._occluded_said:
                    self._occluded_said = True
                    self._set_status(f"waiting: {why} (press End turn if the table is clear)")
                return
        job = (frame, index, self._generation, forced)
        if self.threaded:
            with self._wake:
                self._pending = job
                self._wake.notify()
        else:
            self._read_safely(job)

    def _gate_pixel_mm(self) -> float:
        reg = self.watch.last_good
        if reg is None:
            return DEFAULT_GATE_PIXEL_MM
        width = reg.view.intrinsics.width
        return reg.view.mm_per_pixel(self.watch.table_centre) * width / GATE_WIDTH

    def _register(self, frame: np.ndarray, index: int) -> tuple[bool, Any]:
        """(usable, registration) for this frame: a fresh one, or the last good one when the
        markers are hidden; (False, None) when there is none to fall back on."""
        register = getattr(self.detector, "register", None)
        if register is None:
            return True, None  # the detector registers by itself
        try:
            registration = register(frame)
        except InputError as e:
            if self.watch.last_good is None:
                self._set_status(f"cannot read this frame: {e}")
                return False, None
            self._set_status(f"{e}: keeping the last good registration")
            return True, self.watch.last_good
        with self.lock:
            self._check_camera(registration, frame, index)
            return True, self.watch.last_good

    def _check_camera(self, registration: Any, frame: np.ndarray, index: int) -> None:
        warning = self.watch.update(registration)
        if warning:
            self._emit("camera", {"message": warning}, frame, index)

    def _read(self, frame: np.ndarray, index: int, generation: int, forced: bool) -> None:
        t0 = time.perf_counter()
        if generation == self._registered_in and self.watch.last_good is not None and not forced \
                and hasattr(self.detector, "register"):
            # the table has not moved since a frame of it was registered: nor has the camera
            # (a camera knocked moves the whole picture, the gate sees it); skipping the
            # registration takes ~25 ms off the debouncer's second reading
            usable, registration = True, self.watch.last_good
        else:
            usable, registration = self._register(frame, index)
            self._registered_in = generation
        if not usable:
            return
        try:
            # the colours the game in play uses (WarpShips: its ships'), if the referee says
            detection = self.detector.detect(frame, registration=registration,
                                             palette=getattr(self.referee, "palette", None))
        except InputError as e:  # too few markers seen (hidden by a hand), unreadable picture
            self._set_status(f"cannot read this frame: {e}")
            return
        self.stats.detections += 1
        self.stats.last_detection_ms = (time.perf_counter() - t0) * 1000
        if registration is None:
            with self.lock:
                self._check_camera(detection.registration, frame, index)
        if not forced and (generation != self._generation or not self.gate.settled):
            return  # the table moved while this frame was being read, or has not yet settled
        self.latest_detection = detection
        with self.lock:
            reading = self.tracker.adopt(detection.state)
            confirmed = reading if forced else self.debouncer.push(reading)
            if confirmed is None:
                return
            self._idle = True
            self._background = self.gate.current
            before = self.tracker.confirmed
            if self._started and hasattr(self.referee, "clean"):  # the game's own sense of what can change
                confirmed = self.referee.clean(before, confirmed)
            if self._started and same_table(before, confirmed):
                self._set_status("the table is still: no change")
                return
            self.tracker.confirm(confirmed)
            self._emit("table", {"table": confirmed.to_dict(), "before": before.to_dict(), "forced": forced},
                       frame, index)
            rulings = self.referee.on_change(before, confirmed) if self._started else []
            self._started = True
        for ruling in rulings:
            self._emit("ruling", ruling, frame, index)
        self._set_status("the table is still: read")

    def _emit(self, kind: str, data: dict[str, Any], frame: np.ndarray | None = None,
              index: int | None = None) -> None:
        if kind == "error":
            now, message = time.monotonic(), data.get("message")
            if self._last_error[0] == message and now - self._last_error[1] < ERROR_REPEAT_S:
                return
            self._last_error = (message, now)
        self.sink(LiveEvent(kind, data, frame, index))

    def _set_status(self, text: str) -> None:
        if text != self.status:
            self.status = text
            self._emit("status", {"message": text})

    # -- threads ------------------------------------------------------------------------
    def _detect_forever(self) -> None:
        while True:
            with self._wake:
                while self._pending is None and not self._stop.is_set():
                    self._wake.wait(0.5)
                job, self._pending = self._pending, None
            if job is None:  # stopped, nothing left to read
                return
            self._read_safely(job)

    def _read_safely(self, job: tuple) -> None:
        try:
            self._read(*job)
        except Exception as e:  # a detector bug must not kill the loop: say it, go on
            self._emit("error", {"message": f"detector failed: {type(e).__name__}: {e}"})

    def start_workers(self) -> None:
        self._workers = [threading.Thread(target=self._detect_forever, name=f"detector-{i}", daemon=True)
                         for i in range(DETECTION_WORKERS)]
        for w in self._workers:
            w.start()

    def run(self) -> None:
        """Read the source until it ends or `stop()`; pace recordings at their own frame rate."""
        if self.threaded:
            self.start_workers()
        period = 1.0 / self.source.fps if self.realtime and not self.source.live else 0.0
        next_at, t_start = time.perf_counter(), time.perf_counter()
        try:
            while not self._stop.is_set():
                try:
                    frame = self.source.read()
                except CorruptFrame as e:
                    self.stats.corrupt_frames += 1
                    self._emit("error", {"message": f"skipped a corrupt frame: {e}"})
                    continue
                except FrameLost as e:
                    self._emit("error", {"message": str(e)})
                    break
                if frame is None:
                    self._set_status("the source ended")
                    break
                self.process(frame)
                self.stats.fps = self.stats.frames / max(1e-6, time.perf_counter() - t_start)
                if period:
                    next_at += period
                    delay = next_at - time.perf_counter()
                    if delay > 0:
                        self._stop.wait(delay)
                    else:
                        next_at = time.perf_counter()
        finally:
            self.source.close()
            self.stop()
            for w in self._workers:  # let the last still frames be read
                w.join(timeout=30)
