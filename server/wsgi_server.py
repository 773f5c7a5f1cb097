"""The HTTP server of `pyramid-referee serve`: werkzeug's, with its request threads kept.

werkzeug's threaded server starts a new thread for every connection (and it closes every
connection after one request, so a browser connects again for each move). Its one
accepting thread waits in `Thread.start()` until the new thread has run, which needs
Python's interpreter lock twice; with other request threads busy that took 1.4 ms at the
median and 20-40 ms at the 99th percentile, so under 200 online games the accepting
thread was busy a quarter to half of the time, and whenever the machine stalled for a
moment the connections queued in the listen backlog for 0.1-1 s (bench_martian_chess).

Here a request is handed to an idle thread over a queue, which the accepting thread does
without waiting; a new thread is started only when every thread is busy (server-sent
event streams hold theirs for as long as the page is open), and one idle for IDLE_S
ends.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler

# Seconds a request thread waits for work before it ends.
IDLE_S = 60.0


class PooledWSGIServer(BaseWSGIServer):
    multithread = True   # (werkzeug then speaks HTTP/1.1, as its threaded server does)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        # Threads waiting for work minus jobs queued: never negative, so no job waits
        # for a busy thread.
        self._idle = 0
        self._count = threading.Lock()

    def process_request(self, request, client_address) -> None:  # the accepting thread
        with self._count:
            spare = self._idle > 0
            if spare:
                self._idle -= 1
        self._jobs.put((request, client_address))
        if not spare:
            threading.Thread(target=self._work, daemon=True, name="request").start()

    def _work(self) -> None:
        while True:
            try:
                request, client_address = self._jobs.get(timeout=IDLE_S)
            except queue.Empty:
                with self._count:
                    if self._idle == 0:   # a job is queued for this thread: take it
                        continue
                    self._idle -= 1
                return
            try:
                self.finish_request(request, client_address)
            except Exception:
                self.handle_error(request, client_address)
            finally:
                self.shutdown_request(request)
            with self._count:
                self._idle += 1


def make_server(host: str, port: int, app, request_handler: type[WSGIRequestHandler] | None = None,
                ) -> PooledWSGIServer:
    """Like werkzeug.serving.make_server(host, port, app, threaded=True)."""
    return PooledWSGIServer(host, port, app, handler=request_handler)
