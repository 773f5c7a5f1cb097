"""Fixtures of the online Martian Chess tests."""

from __future__ import annotations

import pytest

from tests.martian_chess.helpers import ENDGAME, make_app


@pytest.fixture
def app(tmp_path):
    return make_app(str(tmp_path / "games.sqlite3"), MARTIAN_CHESS_START=ENDGAME, MARTIAN_CHESS_FIRST="bottom")


@pytest.fixture
def client(app):
    return app.test_client()
