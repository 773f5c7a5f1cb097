"""A dashboard app on painted clips with the fake detector, fast and camera-free."""

from __future__ import annotations

import time

import pytest

from domain import Piece
from server.app import create_app
from tests.live.fakes import FakeDetector, ListSource, turn_clip

BEFORE = [Piece.upright("a", "red", "large", (200, 200)), Piece.upright("b", "blue", "medium", (520, 330))]
AFTER = [Piece.upright("a", "red", "large", (290, 260)), BEFORE[1]]


def wait_for(predicate, timeout=20.0):
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


@pytest.fixture
def make_app(tmp_path):
    apps = []

    def make(frames=None, **config):
        cfg = {"DATABASE": str(tmp_path / "games.sqlite3"), "TESTING": True, **config}
        if frames is not None:
            cfg.update(FRAME_SOURCE=ListSource(frames), DETECTOR=FakeDetector(), LIVE_REALTIME=False)
        app = create_app(cfg)
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["live"].stop()


@pytest.fixture
def played(make_app):
    """An app that has watched one turn (a red piece moved) and reached the end of the clip."""
    frames, _ = turn_clip(BEFORE, AFTER)
    app = make_app(frames)
    service = app.extensions["live"]
    wait_for(lambda: not service.thread.is_alive())
    service.flush()
    return app
