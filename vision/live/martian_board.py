"""Martian Chess on a physical board: each confirmed table goes to the engine's physical-board
referee (`referee.martian_chess.physical.rule_table`), which finds the one legal move that
explains it or flags what it saw. A flag is *uncertain* (the players sort it out); a move is
played on the game's Position. Optionally every confirmed table is also forwarded to an
online game's camera seat (`forward`, e.g. a POST to /martian-chess/api/games/ID/table).
"""

from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable

from domain import TableState
from vision.live.turns import new_ruling

# Seconds to wait for an online game to take a forwarded table.
FORWARD_TIMEOUT_S = 5.0


def _setup():
    from referee.martian_chess import Position
    return Position.setup()


def _default_geometry():
    from referee.martian_chess.physical import BoardGeometry
    return BoardGeometry.default()


@dataclass
class MartianChessReferee:
    shadow: bool = False
    players: tuple[str, ...] = ("Player 1", "Player 2")  # bottom, top
    position: Any = field(default_factory=_setup)
    geometry: Any = field(default_factory=_default_geometry)
    forward: Callable[[dict[str, Any]], None] | None = None

    def on_change(self, before: TableState, after: TableState) -> list[dict[str, Any]]:
        from referee.martian_chess.physical import rule_table
        rulings = []
        if self.forward is not None:
            try:
                self.forward(after.to_dict())
            except Exception as e:  # the online game being away must not stop the table game
                rulings.append(new_ruling("uncertain", f"could not send the board to the online game: {e}",
                                          advisory=True))
        r = rule_table(self.position, after, self.geometry, before)
        if r.status == "move":
            self.position.push(r.move)
            rulings.append(new_ruling("move", r.message, r.to_dict(), advisory=self.shadow))
        elif r.status == "flag":
            rulings.append(new_ruling("uncertain", r.message + " — please check the board and confirm or correct.",
                                      r.to_dict(), advisory=True))
        return rulings

    def scores(self, players: list[dict[str, str]]) -> dict[str, Any]:
        return {p["name"]: {"points": self.position.scores[i]} for i, p in enumerate(players[:2])}

    def public(self) -> dict[str, Any]:
        outcome = self.position.outcome()
        return {"turn": self.players[self.position.turn], "position": self.position.notation(),
                "result": outcome.to_dict() if outcome else None, "pending_roll": None}

    def snapshot(self) -> dict[str, Any]:
        return {"position": self.position.notation()}

    def restore(self, snap: dict[str, Any], players: list[dict[str, str]]) -> None:
        from referee.martian_chess import Position
        self.players = tuple(p["name"] for p in players)
        if snap.get("position"):
            self.position = Position.from_notation(snap["position"])


def online_forwarder(url: str, token: str) -> Callable[[dict[str, Any]], None]:
    """POST each table to an online game's physical-board endpoint as its camera seat."""
    def send(table: dict[str, Any]) -> None:
        req = urllib.request.Request(url, data=json.dumps({"token": token, "table": table}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(req, timeout=FORWARD_TIMEOUT_S) as res:
            res.read()
    return send
