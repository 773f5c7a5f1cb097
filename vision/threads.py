"""OpenCV's thread pool held to one thread while a detection's per-blob steps run."""

from __future__ import annotations

import threading

import cv2


class OneOpenCVThread:
    """The per-blob steps make thousands of OpenCV calls on crops of ~100×100 pixels,
    where waking OpenCV's thread pool costs more than the call (on two cores: a blob's
    cut 31 → 20 ms a frame on one thread); the whole-table steps keep the pool. The
    thread count found on entry is restored when the last detection in the process
    leaves (detections may overlap in a server's threads)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._inside = 0
        self._found = 0

    def __enter__(self):
        with self._lock:
            if self._inside == 0:
                self._found = cv2.getNumThreads()
                cv2.setNumThreads(1)
            self._inside += 1

    def __exit__(self, *exc):
        with self._lock:
            self._inside -= 1
            if self._inside == 0:
                cv2.setNumThreads(self._found)


one_opencv_thread = OneOpenCVThread()
