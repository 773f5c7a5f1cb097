"""SQLite storage of online Martian Chess games: one JSON document per game.

The database path is app.config["DATABASE"]; games survive a restart of the server.
Every change goes through `update`, which writes a changed game only if nobody changed it
since it was read (its version), so two requests for the same game never overwrite each
other.
"""

from __future__ import annotations

import json
import queue
import sqlite3
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
        # requests on many threads, and opening a connection per request cost more than
        # the request's own work.
        self._idle: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
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

    def _write(self, sql: str, params: tuple) -> int:
        """Run one writing statement on its own (SQLite commits it by itself): rows changed.

        Writers hold SQLite's write lock for this one statement only, inside SQLite's C
        code, where no Python thread can hold them up. They used to hold it (and a
        process-level Python lock) from BEGIN IMMEDIATE over the read, the change and
        the write to COMMIT: five SQLite calls, each letting go of Python's interpreter
        lock and waiting to win it back from the other request threads, all while every
        other writer queued. Whenever the machine stalled (a shared VM's CPUs taken by
        its host for tens of ms) that queue grew: up to 0.1 s in the slowest 1 % of
        bench_martian_chess's moves, 0.5 s once the server accepted connections at once
        (server/wsgi_server.py), and the stress run's p99 1.2 -> 0.5 s without it. A
        writer that finds SQLite's lock taken sleeps in its busy handler (1 ms first);
        with one short statement that is rare.
        """
        with self._borrowed() as db:
            return db.execute(sql, params).rowcount

    def create(self, game: dict[str, Any]) -> None:
        self._write("INSERT INTO martian_chess_games (id, version, data) VALUES (?, ?, ?)",
                    (game["id"], game["version"], json.dumps(game)))

    def get(self, game_id: str) -> dict[str, Any] | None:
        with self._borrowed() as db:
            row = db.execute("SELECT data FROM martian_chess_games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def update(self, game_id: str, change: Callable[[dict[str, Any]], Any]) -> tuple[dict[str, Any], Any]:
        """Apply `change(game)` (which mutates the dict and may raise) and save it atomically.

        Returns (game, whatever change returned); raises KeyError for an unknown id.
        Optimistic: the game is read and changed with no lock held, and written only if
        its version is still the one read; if another request changed it meanwhile, the
        change is made again on the newer game (which may now refuse it, e.g. "not your
        turn"). So two requests for the same game never overwrite each other, and
        `change` must only change the dict it is given (it may run more than once).
        """
        while True:
            game = self.get(game_id)
            if game is None:
                raise KeyError(game_id)
            seen = game["version"]
            result = change(game)
            game["version"] = seen + 1
            if self._write("UPDATE martian_chess_games SET version = ?, data = ? WHERE id = ? AND version = ?",
                           (game["version"], json.dumps(game), game_id, seen)):
                return game, result
