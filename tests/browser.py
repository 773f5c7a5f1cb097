"""Plumbing shared by the browser tests: Debian's Chromium through Playwright, apps on loopback."""

from __future__ import annotations

import os
import threading

import pytest
from werkzeug.serving import BaseWSGIServer

from server.wsgi_server import make_server

CHROMIUM = "/usr/bin/chromium"
# Headless as root, on a machine whose only network is loopback: without the
# background-networking flags Chromium keeps dialling Google's hosts.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

requires_chromium = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                       reason="Chromium not installed (make browser)")


def serve_in_thread(app) -> tuple[str, BaseWSGIServer]:
    """Serve a WSGI app on a free loopback port in a daemon thread, on the server
    `pyramid-referee serve` runs: (base URL, server)."""
    srv = make_server("127.0.0.1", 0, app)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{srv.server_port}", srv


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
