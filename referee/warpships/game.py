"""A WarpShips game: players, turn order, colonies, the shots' rolls, the end, a JSON record.

The game is an explicit immutable value: `apply` rules the move from the current table to
the table seen after it (rule_move), fires the moved ship's beam, resolves the rolls
(entered faces or a seeded RNG) with bonus teleports and chain reactions, takes the
teleported ships off the table into the mover's colony and returns the next game.

>>> import random
>>> from domain import Piece
>>> from referee.geometry import add, unit
>>> game = WarpShipsGame.new(["ann", "bob"], seed=7)
>>> game.to_move, len(game.table.pieces), game.over
('ann', 12, False)
>>> n = game.table.pieces[0]
>>> after = game.table.with_piece(n.moved(size=n.stack[1], stack=n.stack[1:]))
>>> out = n.rotation + 180  # n1 is the top-left nest: launch it up-left, off the table
>>> tail = add(n.center, unit(out), n.size.base / 2 + 101.6)  # warp flush, tail flush
>>> landed = Piece.flat("s1", n.color, n.size, tail, out)
>>> game = game.apply(after.with_piece(landed), rolls=[])  # the beam meets nothing
>>> game.to_move, game.history[-1].notation()
('bob', 'ann: launch n1 -> s1; no target')
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from domain import InputError, Pose, TableState
from referee.warpships import colony
from referee.warpships.colony import Ship
from referee.warpships.move import MoveRuling, rule_move
from referee.warpships.odds import Shot, parse_face, resolve_shot, roller
from referee.warpships.setup import setup_table

MIN_PLAYERS, MAX_PLAYERS = 2, 4
RECORD_VERSION = 1


class GameError(InputError):
    """A move the game cannot take (illegal, game over, wrong rolls, bad record)."""


@dataclass(frozen=True)
class Turn:
    player: str
    after: TableState  # the table as seen right after the move, before teleports
    ruling: MoveRuling
    shot: Shot
    gained: tuple[Ship, ...]

    def notation(self) -> str:
        r = self.ruling
        return f"{self.player}: {r.kind} {r.ship_before} -> {r.ship}; {self.shot.notation()}" + (
            f" => +{len(self.gained)}" if self.gained else "")


@dataclass(frozen=True)
class Result:
    winners: tuple[str, ...]
    why: str  # "twin cities" | "diverse community" | "population divided"

    @property
    def tie(self) -> bool:
        return len(self.winners) > 1


@dataclass(frozen=True)
class WarpShipsGame:
    players: tuple[str, ...]
    table: TableState
    turn_index: int = 0
    colonies: tuple[tuple[Ship, ...], ...] = ()
    history: tuple[Turn, ...] = ()
    result: Result | None = None
    initial: TableState | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= len(self.players) <= MAX_PLAYERS or len(set(self.players)) != len(self.players):
            raise GameError(f"WarpShips needs {MIN_PLAYERS}-{MAX_PLAYERS} players with distinct names, "
                            f"got {list(self.players)}")
        if not self.colonies:
            object.__setattr__(self, "colonies", tuple(() for _ in self.players))
        if self.initial is None:
            object.__setattr__(self, "initial", self.table)

    @classmethod
    def new(cls, players: Sequence[str], *, seed: int | None = None, table: TableState | None = None,
            first: int = 0) -> "WarpShipsGame":
        """A fresh game on the standard set-up (or `table`); `first` is the starting player's index
        (the rules: whoever was most recently transported)."""
        t = table if table is not None else setup_table(seed)
        return cls(tuple(players), t, turn_index=first % max(1, len(players)))

    @property
    def to_move(self) -> str:
        return self.players[self.turn_index]

    @property
    def over(self) -> bool:
        return self.result is not None

    def colony(self, player: str) -> tuple[Ship, ...]:
        return self.colonies[self.players.index(player)]

    def legal_actions(self) -> list:
        """Legal launches and flies on the advisor's grid (advisor.candidate_moves)."""
        from referee.warpships.advisor import candidate_moves
        return [] if self.over else [c for c, _ in candidate_moves(self.table)]

    def apply(self, after: TableState, *, rolls: Sequence[str] | None = None,
              rng: random.Random | None = None, uncertainty_mm: float = 0.0) -> "WarpShipsGame":
        """Play the current player's move (the table `after` it) and its shot.

        `rolls`: the faces the players rolled, in order (a shot with no valid target needs
        none); without them the rolls come from `rng` (seed it to replay). A move ruled
        illegal but too close to call within `uncertainty_mm` stands: the camera cannot
        overrule the player (the umpire's call).
        """
        if self.over:
            raise GameError(f"the game is over ({self.result.why}); no more moves")  # type: ignore[union-attr]
        ruling = rule_move(self.table, after, uncertainty_mm=uncertainty_mm)
        if not ruling.legal and not ruling.too_close_to_call:
            raise GameError(f"illegal {ruling.kind} of {ruling.ship_before}: {ruling.reason}")
        faces = None if rolls is None else [parse_face(f) for f in rolls]
        shot = resolve_shot(after, ruling.ship, roller(faces, rng))
        if faces is not None and len(faces) != len(shot.steps):
            raise GameError(f"{len(faces)} rolls given but the shot used {len(shot.steps)}")
        gained = tuple((after.piece(i).color.value, after.piece(i).size.value) for i in shot.teleported)
        table = teleport(after, shot.teleported)
        colonies = list(self.colonies)
        colonies[self.turn_index] = colonies[self.turn_index] + gained
        turn = Turn(self.to_move, after, ruling, shot, gained)
        nxt = replace(self, table=table, colonies=tuple(colonies), history=self.history + (turn,),
                      turn_index=(self.turn_index + 1) % len(self.players))
        return replace(nxt, result=nxt._ending(self.to_move))

    def _ending(self, mover: str) -> Result | None:
        why = colony.complete(self.colony(mover))
        if why:
            return Result((mover,), why)
        named = dict(zip(self.players, (list(c) for c in self.colonies)))
        if colony.population_divided(named, ships_on_table(self.table)):
            return Result(tuple(colony.greatest(named)), "population divided")
        return None

    # -- record --------------------------------------------------------------------------
    def to_record(self) -> dict[str, Any]:
        return {"game": "warpships", "version": RECORD_VERSION, "players": list(self.players),
                "first": (self.turn_index - len(self.history)) % len(self.players),
                "table": self.initial.to_dict(),  # type: ignore[union-attr]
                "turns": [{"player": t.player, "after": t.after.to_dict(),
                           "rolls": [s.face for s in t.shot.steps], "ruling": t.ruling.to_dict(),
                           "uncertainty": t.ruling.uncertainty_mm,
                           "shot": t.shot.notation(), "gained": [list(s) for s in t.gained]}
                          for t in self.history],
                "colonies": {p: [list(s) for s in self.colony(p)] for p in self.players},
                "result": None if self.result is None else {"winners": list(self.result.winners),
                                                             "why": self.result.why}}

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_record(), f, indent=1)

    @classmethod
    def replay(cls, record: dict[str, Any]) -> "WarpShipsGame":
        """Re-derive every ruling and roll outcome of a record; GameError if it disagrees."""
        try:
            game = cls.new(record["players"], table=TableState.from_dict(record["table"]),
                           first=int(record.get("first", 0)))
            turns = record["turns"]
        except (KeyError, TypeError, ValueError) as e:
            raise GameError(f"not a WarpShips record: {e}") from None
        for i, t in enumerate(turns, 1):
            if t.get("player") != game.to_move:
                raise GameError(f"turn {i}: the record says {t.get('player')!r} moved, but it was "
                                f"{game.to_move}'s turn")
            try:
                game = game.apply(TableState.from_dict(t["after"]), rolls=t["rolls"],
                                  uncertainty_mm=float(t.get("uncertainty", 0.0)))
            except (KeyError, TypeError) as e:
                raise GameError(f"turn {i}: malformed record entry ({e})") from None
            except InputError as e:
                raise GameError(f"turn {i}: {e}") from None
            if [list(s) for s in game.history[-1].gained] != t.get("gained", []):
                raise GameError(f"turn {i}: the record's gains {t.get('gained')} differ from the replay's")
        want = record.get("colonies")
        got = {p: [list(s) for s in game.colony(p)] for p in game.players}
        if want is not None and want != got:
            raise GameError("the replayed colonies differ from the record's")
        return game

    @classmethod
    def load(cls, path: str) -> "WarpShipsGame":
        try:
            with open(path, encoding="utf-8") as f:
                record = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            raise GameError(f"cannot read the record {path}: {e}") from None
        return cls.replay(record)


def teleport(state: TableState, ids: Sequence[str]) -> TableState:
    """Take these ships off the table: a flat ship goes; a nest loses its outermost ship."""
    for pid in ids:
        p = state.piece(pid)
        if p.pose is Pose.UPRIGHT and len(p.stack) > 1:
            state = state.with_piece(p.moved(size=p.stack[1], stack=p.stack[1:]))
        else:
            state = state.without(pid)
    return state


def ships_on_table(state: TableState) -> list[Ship]:
    """Every ship still on the table, nests counted ship by ship."""
    out: list[Ship] = []
    for p in state.pieces:
        sizes = p.stack if p.pose is Pose.UPRIGHT and p.stack else (p.size,)
        out += [(p.color.value, s.value) for s in sizes]
    return out
