"""SQLite storage of online Martian Chess games: one JSON document per game.

The database path is app.config["DATABASE"]; games survive a restart of the server.
Every change goes through `update`, which reads, changes and writes the game inside one
IMMEDIATE transaction, so two requests for the same game never overwrite each other.
"""

from __future__ import annotations

import json
import queue
import sqlite3
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

SCHEMA = """
CREATE TABLE IF NOT EXISTS martian_chess_games (
    id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    data TEXT NOT NULL
)"""
# Seconds a writer waits for another writer's lock before SQLite gives up.
BUSY_TIMEOUT_S = 10.0


class GameStore:
    """Games as JSON documents keyed by their link id."""

    def __init__(self, path: str):
        self.path = path
        # Connections are lent to one thread at a time and kept: the threaded server runs
        # each request on a new thread, and opening a connection per request cost more
        # than the request's own work.
        self._idle: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
        # Writers of this process take turns here rather than in SQLite: a writer that
        # finds SQLite's lock taken sleeps in growing steps (up to 100 ms) before trying
        # again, which put 150 ms into the slowest moves under load; this lock hands over
        # at once. SQLite's own lock still guards against other processes.
        self._writing = threading.Lock()
        with self._borrowed() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(SCHEMA)

    @contextmanager
    def _borrowed(self) -> Iterator[sqlite3.Connection]:
        try:
            db = self._idle.get_nowait()
        except queue.Empty:
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA synchronous=NORMAL")
        try:
            yield db
        finally:
            self._idle.put(db)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._writing, self._borrowed() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def create(self, game: dict[str, Any]) -> None:
        with self._transaction() as db:
            db.execute("INSERT INTO martian_chess_games (id, version, data) VALUES (?, ?, ?)",
                       (game["id"], game["version"], json.dumps(game)))

    def get(self, game_id: str) -> dict[str, Any] | None:
        with self._borrowed() as db:
            row = db.execute("SELECT data FROM martian_chess_games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def update(self, game_id: str, change: Callable[[dict[str, Any]], Any]) -> tuple[dict[str, Any], Any]:
        """Apply `change(game)` (which mutates the dict and may raise) and save it atomically.

        Returns (game, whatever change returned); raises KeyError for an unknown id.
        """
        with self._transaction() as db:
            row = db.execute("SELECT data FROM martian_chess_games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise KeyError(game_id)
            game = json.loads(row[0])
            result = change(game)
            game["version"] += 1
            db.execute("UPDATE martian_chess_games SET version = ?, data = ? WHERE id = ?",
                       (game["version"], json.dumps(game), game_id))
        return game, result
