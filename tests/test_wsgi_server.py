"""The server of `pyramid-referee serve`: werkzeug's, with its request threads kept and reused."""

import http.client
import threading
import time

from server import wsgi_server


def _app(release: threading.Event, waiting: list):
    def app(environ, start_response):
        if environ["PATH_INFO"] == "/wait":   # a long request, like a server-sent-event stream
            waiting.append(1)
            release.wait(10)
        body = str(threading.get_ident()).encode()
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
        return [body]
    return app


def _serve(release: threading.Event, waiting: list | None = None):
    srv = wsgi_server.make_server("127.0.0.1", 0, _app(release, [] if waiting is None else waiting))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def _get(srv, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", srv.server_port, timeout=10)
    conn.request("GET", path)
    r = conn.getresponse()
    answer = r.status, r.read().decode()
    conn.close()
    return answer


def _until(condition, timeout=5.0):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.005)


def test_an_idle_thread_serves_the_next_request():
    srv = _serve(threading.Event())
    try:
        threads = set()
        for _ in range(10):
            status, ident = _get(srv, "/")
            assert status == 200
            threads.add(ident)
            _until(lambda: srv._idle == 1)   # the thread is back, waiting
        assert len(threads) == 1
    finally:
        srv.shutdown()


def test_long_requests_do_not_hold_up_the_others():
    release, started = threading.Event(), []
    srv = _serve(release, started)
    try:
        answers = []
        waiting = [threading.Thread(target=lambda: answers.append(_get(srv, "/wait")[0])) for _ in range(3)]
        for t in waiting:
            t.start()
        _until(lambda: len(started) == 3)   # three threads busy
        assert _get(srv, "/")[0] == 200   # a fourth thread is started for it
        assert answers == []
        release.set()
        for t in waiting:
            t.join()
        assert answers == [200] * 3
        _until(lambda: srv._idle == 4)
    finally:
        srv.shutdown()


def test_idle_threads_end(monkeypatch):
    monkeypatch.setattr(wsgi_server, "IDLE_S", 0.1)
    srv = _serve(threading.Event())
    try:
        status, ident = _get(srv, "/")
        assert status == 200
        _until(lambda: srv._idle == 0 and all(str(t.ident) != ident for t in threading.enumerate()))
        assert _get(srv, "/")[0] == 200   # and a new one starts when needed
    finally:
        srv.shutdown()
