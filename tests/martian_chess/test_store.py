"""The online games' SQLite store under the threaded server: no lost or partial writes."""

import threading
import time

import pytest

from server.martian_chess.store import GameStore


def _bump(game):
    game["count"] += 1


def test_concurrent_moves_on_one_game_are_all_kept(tmp_path):
    store = GameStore(str(tmp_path / "games.sqlite3"))
    store.create({"id": "g", "version": 0, "count": 0})
    threads = [threading.Thread(target=lambda: [store.update("g", _bump) for _ in range(50)]) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    game = store.get("g")
    assert (game["count"], game["version"]) == (400, 400)
    # another store on the same file (another server process) reads what was written
    assert GameStore(str(tmp_path / "games.sqlite3")).get("g")["count"] == 400


def test_a_change_made_meanwhile_is_kept_and_the_change_made_again_on_it(tmp_path):
    # the store reads and changes a game with no lock held and writes it only if its
    # version is still the one read: another request's change in between is not lost
    store = GameStore(str(tmp_path / "games.sqlite3"))
    store.create({"id": "g", "version": 0, "count": 0})
    seen = []

    def add_ten(game):
        seen.append(game["count"])
        if len(seen) == 1:
            store.update("g", _bump)   # another request, between this one's read and write
        game["count"] += 10
        return "done"

    game, result = store.update("g", add_ten)
    assert seen == [0, 1]
    assert (game["count"], game["version"], result) == (11, 2, "done")
    assert store.get("g") == game


def test_a_refused_change_leaves_the_game_as_it_was(tmp_path):
    store = GameStore(str(tmp_path / "games.sqlite3"))
    store.create({"id": "g", "version": 0, "count": 0})

    def refuse(game):
        game["count"] = 99
        raise ValueError("illegal move")

    with pytest.raises(ValueError):
        store.update("g", refuse)
    assert store.get("g") == {"id": "g", "version": 0, "count": 0}
    store.update("g", _bump)   # the connection it used is still good
    assert store.get("g")["count"] == 1
    with pytest.raises(KeyError):
        store.update("nope", _bump)


def test_the_first_requests_of_a_new_server_arriving_together(tmp_path, monkeypatch):
    # each used to open the database (switching it to WAL: "database is locked" while
    # another did the same) and make a broker of its own, whose listeners heard nothing
    from server.martian_chess import views
    from tests.martian_chess.helpers import make_app
    opened = []

    class SlowToOpen(GameStore):
        def __init__(self, path):
            opened.append(path)
            time.sleep(0.2)   # every request arrives while the first is still opening it
            super().__init__(path)

    monkeypatch.setattr(views, "GameStore", SlowToOpen)
    app = make_app(str(tmp_path / "fresh.sqlite3"))
    start = threading.Barrier(8)
    answers = []

    def create():
        client = app.test_client()
        start.wait()
        answers.append(client.post("/martian-chess/api/games", json={}).status_code)

    threads = [threading.Thread(target=create) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [201] * 8
    assert len(opened) == 1
