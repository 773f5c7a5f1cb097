"""The detector in worker processes: the debouncer's two readings of a still table on two
cores at once.

The live loop reads two quiet frames side by side (`vision.live.loop.DETECTION_WORKERS`).
In two threads the readings contend for the interpreter's lock: two 1280×960 readings took
360-400 ms against 410 ms one after the other. In two processes they take 230 ms, one
reading's time and a little. A frame costs ~2 ms to send and a reading ~1 ms to return.

`ProcessDetector` has the detector's interface (`detect`, `register`, `layout`); the
registration is done here, in the caller's process (the dashboard asks for it too), and
sent with the frame. Each worker keeps the last registration it was sent, so its detector
reuses its rectifier while the camera stays put.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.connection
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Sequence

import numpy as np

# Worker processes: one per reading the debouncer waits for.
WORKERS = 2

_detector: Any = None          # the worker's own detector
_registration: tuple = (-1, None)   # (serial, registration) last sent to this worker


def _start(factory: Callable[[], Any]) -> None:
    global _detector
    threading.Thread(target=_exit_with_parent, daemon=True).start()
    _detector = factory()
    # the ~130 000 objects the imports and the detector leave live for the worker's life:
    # out of the collector's sight, a full collection (every ~90 frames) takes ~0 ms, not
    # 33-45 ms in the middle of a reading
    gc.freeze()


def _exit_with_parent() -> None:
    """A parent killed outright (SIGKILL, a crash) cannot stop its workers: they see it go."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)


def _ready() -> bool:
    return _detector is not None


def _detect(image: np.ndarray, serial: int, registration: Any, palette: Sequence[str] | None) -> Any:
    global _registration
    if registration is None:
        return _detector.detect(image, palette=palette)
    if _registration[0] != serial:   # a new camera pose; else the worker's own copy, its rectifier kept
        _registration = (serial, registration)
    return _detector.detect(image, registration=_registration[1], palette=palette)


class ProcessDetector:
    """`factory()` builds the detector, here and in each worker (it must pickle: a class or
    a functools.partial of one, with picklable arguments)."""

    def __init__(self, factory: Callable[[], Any], workers: int = WORKERS):
        self.local = factory()
        self._factory, self._workers = factory, workers
        self._lock = threading.Lock()
        self._sent: tuple[Any, int] = (None, 0)   # the last registration object sent, its serial
        self._pool = self._new_pool()

    @property
    def layout(self):
        return self.local.layout

    def register(self, image: np.ndarray):
        return self.local.register(image)

    def detect(self, image: np.ndarray, registration: Any = None, palette: Sequence[str] | None = None) -> Any:
        """The detector's reading of `image`, made in a worker; its errors are raised here. A
        worker that died (killed, out of memory) costs that reading: the pool is started
        again for the next one."""
        with self._lock:
            if registration is not None and registration is not self._sent[0]:
                self._sent = (registration, self._sent[1] + 1)
            serial, pool = self._sent[1], self._pool
        try:
            return pool.submit(_detect, image, serial, registration, palette).result()
        except BrokenProcessPool:
            with self._lock:
                if self._pool is pool:
                    self._pool = self._new_pool()
            raise

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawned, not forked: the dashboard's threads hold locks a forked child would inherit
        pool = ProcessPoolExecutor(self._workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_start, initargs=(self._factory,))
        for _ in range(self._workers):
            pool.submit(_ready)   # start the workers now, not on the first still table
        return pool
