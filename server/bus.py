"""Fan-out of live events to the browsers' server-sent-event streams."""

from __future__ import annotations

import json
import queue
import threading
from typing import Any, Iterator

# A browser that stops reading is dropped once this many events wait for it, so one
# stalled tab cannot grow memory without bound.
MAX_QUEUED = 200
# Comment lines keep proxies and the browser from closing an idle stream, seconds.
KEEPALIVE_S = 15.0


class EventBus:
    def __init__(self) -> None:
        self._subscribers: set[queue.Queue] = set()
        self._lock = threading.Lock()

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        message = f"event: {kind}\ndata: {json.dumps(data)}\n\n"
        with self._lock:
            for q in list(self._subscribers):
                try:
                    q.put_nowait(message)
                except queue.Full:
                    self._subscribers.discard(q)

    def stream(self, keepalive_s: float = KEEPALIVE_S) -> Iterator[str]:
        """The text/event-stream body of one browser; ends when the browser goes away."""
        q: queue.Queue = queue.Queue(MAX_QUEUED)
        with self._lock:
            self._subscribers.add(q)
        try:
            yield "retry: 2000\n\n"
            while True:
                try:
                    yield q.get(timeout=keepalive_s)
                except queue.Empty:
                    yield ": keepalive\n\n"
        finally:
            with self._lock:
                self._subscribers.discard(q)

    @property
    def listeners(self) -> int:
        with self._lock:
            return len(self._subscribers)
