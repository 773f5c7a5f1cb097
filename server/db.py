"""SQLite storage of games, their events and their rulings (app.config["DATABASE"]).

One connection per call keeps the module safe across the live loop's and Flask's
threads; the database is small and writes are rare (a few per turn).
"""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import closing
from typing import Any

from domain import InputError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    players TEXT NOT NULL,          -- JSON list of {"name", "color"}
    shadow INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    state TEXT NOT NULL DEFAULT '{}' -- JSON: table, scores, turn, pending roll (latest)
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    image BLOB                       -- JPEG of the frame it was read from, if any
);
CREATE TABLE IF NOT EXISTS rulings (
    id TEXT PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    at REAL NOT NULL,
    data TEXT NOT NULL,
    image BLOB
);
CREATE INDEX IF NOT EXISTS events_by_game ON events(game_id, id);
CREATE INDEX IF NOT EXISTS rulings_by_game ON rulings(game_id, seq);
"""


class NotFound(InputError):
    """A game or ruling that does not exist."""


class Store:
    def __init__(self, path: str):
        self.path = path
        with closing(self._connect()) as c, c:
            c.executescript(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        c = sqlite3.connect(self.path, timeout=10)
        c.row_factory = sqlite3.Row
        return c

    # -- games ------------------------------------------------------------------------
    def new_game(self, kind: str, players: list[dict[str, str]], shadow: bool, state: dict[str, Any]) -> int:
        with closing(self._connect()) as c, c:
            cur = c.execute("INSERT INTO games (kind, players, shadow, created, state) VALUES (?, ?, ?, ?, ?)",
                            (kind, json.dumps(players), int(shadow), time.time(), json.dumps(state)))
            return int(cur.lastrowid)

    def game(self, game_id: int) -> dict[str, Any]:
        with closing(self._connect()) as c:
            row = c.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NotFound(f"no game {game_id}")
        return _game(row)

    def latest_game(self) -> dict[str, Any] | None:
        with closing(self._connect()) as c:
            row = c.execute("SELECT * FROM games ORDER BY id DESC LIMIT 1").fetchone()
        return _game(row) if row else None

    def games(self) -> list[dict[str, Any]]:
        with closing(self._connect()) as c:
            rows = c.execute("SELECT g.*, (SELECT COUNT(*) FROM rulings r WHERE r.game_id = g.id) AS n_rulings "
                             "FROM games g ORDER BY id DESC").fetchall()
        return [{**_game(r), "rulings": r["n_rulings"]} for r in rows]

    def save_state(self, game_id: int, state: dict[str, Any]) -> None:
        with closing(self._connect()) as c, c:
            c.execute("UPDATE games SET state = ? WHERE id = ?", (json.dumps(state), game_id))

    # -- events -----------------------------------------------------------------------
    def add_event(self, game_id: int, kind: str, data: dict[str, Any], image: bytes | None = None,
                  at: float | None = None) -> int:
        with closing(self._connect()) as c, c:
            cur = c.execute("INSERT INTO events (game_id, at, kind, data, image) VALUES (?, ?, ?, ?, ?)",
                            (game_id, at or time.time(), kind, json.dumps(data), image))
            return int(cur.lastrowid)

    def events(self, game_id: int) -> list[dict[str, Any]]:
        with closing(self._connect()) as c:
            rows = c.execute("SELECT id, at, kind, data, image IS NOT NULL AS has_image FROM events "
                             "WHERE game_id = ? ORDER BY id", (game_id,)).fetchall()
        return [{"id": r["id"], "at": r["at"], "kind": r["kind"], "data": json.loads(r["data"]),
                 "has_image": bool(r["has_image"])} for r in rows]

    def _image(self, table: str, key: int | str, what: str) -> bytes:
        with closing(self._connect()) as c:
            row = c.execute(f"SELECT image FROM {table} WHERE id = ?", (key,)).fetchone()
        if row is None or row["image"] is None:
            raise NotFound(f"no picture for {what}")
        return bytes(row["image"])

    def event_image(self, event_id: int) -> bytes:
        return self._image("events", event_id, f"event {event_id}")

    # -- rulings ----------------------------------------------------------------------
    def add_ruling(self, game_id: int, ruling: dict[str, Any], image: bytes | None) -> None:
        with closing(self._connect()) as c, c:
            seq = c.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM rulings WHERE game_id = ?", (game_id,)).fetchone()[0]
            c.execute("INSERT INTO rulings (id, game_id, seq, at, data, image) VALUES (?, ?, ?, ?, ?, ?)",
                      (ruling["id"], game_id, seq, time.time(), json.dumps(ruling), image))

    def update_ruling(self, ruling: dict[str, Any]) -> None:
        with closing(self._connect()) as c, c:
            c.execute("UPDATE rulings SET data = ? WHERE id = ?", (json.dumps(ruling), ruling["id"]))

    def rulings(self, game_id: int) -> list[dict[str, Any]]:
        with closing(self._connect()) as c:
            rows = c.execute("SELECT data FROM rulings WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        return [json.loads(r["data"]) for r in rows]

    def ruling(self, ruling_id: str) -> dict[str, Any]:
        with closing(self._connect()) as c:
            row = c.execute("SELECT data FROM rulings WHERE id = ?", (ruling_id,)).fetchone()
        if row is None:
            raise NotFound(f"no ruling {ruling_id!r}")
        return json.loads(row["data"])

    def ruling_image(self, ruling_id: str) -> bytes:
        return self._image("rulings", ruling_id, f"ruling {ruling_id!r}")


def _game(row: sqlite3.Row) -> dict[str, Any]:
    return {"id": row["id"], "kind": row["kind"], "players": json.loads(row["players"]),
            "shadow": bool(row["shadow"]), "created": row["created"], "state": json.loads(row["state"])}
