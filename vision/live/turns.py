"""Turn each confirmed change of the table into what the game's referee says about it.

WarpShips: the change is a launch or a fly (`rule_move`); the moved ship then fires
(`rule_beam`); a valid target asks the players for a die roll. Ships that a teleport
removed are expected to leave the table and are not a move. A change that no legal
reading explains (two ships moved, a ship vanished) is *uncertain*: the players are
asked, the referee does not rule on it.

Each ruling is a JSON-ready dict: `id`, `kind` (move | beam | roll | uncertain),
`summary` (one line for the card), `ruling` (the referee's own JSON, as the contract
prints it), `margin` (mm), `too_close_to_call`, `advisory` (shadow mode) and `status`.
"""

from __future__ import annotations

import math
import random
import uuid
from dataclasses import dataclass, replace
from typing import Any, Callable

from domain import InputError, Pose, Size, TableState
from referee.warpships.colony import GAME_COLOURS
from vision.live.tracking import only_taken_off, same_places

# The detector's stated position error, mm: a ruling within this of flipping is "too close to call".
DEFAULT_UNCERTAINTY_MM = 2.0
# Readings of a nest (or a flat ship's tail) this close are the same spot, mm.
NEST_SPOT_MM = 5.0

def new_ruling(kind: str, summary: str, ruling: dict[str, Any] | None = None, *, margin: float | None = None,
               too_close: bool = False, advisory: bool = False, **extra: Any) -> dict[str, Any]:
    return {"id": "r" + uuid.uuid4().hex[:10], "kind": kind, "summary": summary, "ruling": ruling or {},
            "margin": None if margin is None else round(float(margin), 2), "too_close_to_call": bool(too_close),
            "advisory": advisory, "status": "open", **extra}


@dataclass
class WarpShipsReferee:
    """Rules each confirmed change of a WarpShips table and keeps the game (turns, rolls,
    colonies) in a `referee.warpships.WarpShipsGame`; `shadow` marks every ruling advisory."""

    rule_move: Callable[..., Any]
    rule_beam: Callable[..., Any]
    shadow: bool = False
    uncertainty_mm: float = DEFAULT_UNCERTAINTY_MM
    players: tuple[str, ...] = ("Player 1", "Player 2")
    game: Any = None  # WarpShipsGame, started on the first confirmed move
    expected: dict[str, Any] | None = None  # the table once the teleported ships are taken off
    undo_to: dict[str, Any] | None = None  # the table before an illegal move
    pending: dict[str, Any] | None = None  # the shot waiting for die rolls
    # the colours of the game's ships: the detector reads a doubtful piece as one of them
    palette: tuple[str, ...] = GAME_COLOURS

    @classmethod
    def real(cls, **kw: Any) -> "WarpShipsReferee":
        from referee.warpships import rule_beam, rule_move
        return cls(rule_move, rule_beam, **kw)

    def on_change(self, before: TableState, after: TableState) -> list[dict[str, Any]]:
        before, after = with_nests(before), with_nests(after)
        if self.expected is not None:
            if same_places(TableState.from_dict(self.expected), after, nest_sizes=True):
                self.expected = None
                return []  # the teleported ships were taken off the table, as the roll said
            if only_taken_off(before, after):
                return []  # some of them so far
            self.expected = None
        undo, self.undo_to = self.undo_to, None
        if undo is not None and same_places(TableState.from_dict(undo), after):
            return []  # an illegal move was taken back
        rulings: list[dict[str, Any]] = []
        if self.pending is not None:
            rulings.append(self._uncertain(f"the table changed before the die was rolled for "
                                           f"{self.pending['ship']}"))
            self.pending = None
        ruled, m, b = self._move_and_beam(before, after, self.shadow)
        rulings += ruled
        if m is not None and not m.get("legal") and b is None:
            self.undo_to = before.to_dict()  # the players are expected to take it back
        if b is None:
            return rulings
        self.pending = {"before": before.to_dict(), "after": after.to_dict(), "ship": m["ship"], "faces": []}
        if b.get("valid"):
            ship, target = after.piece(b["ship"]), after.piece(b["target"])
            self.pending.update(ship_size=ship.size.value, target=target.id, target_size=target.size.value)
            rulings.append(new_ruling("roll", f"roll the die: {ship.size.value} {ship.color.value} {ship.id} "
                                      f"fires at {target.size.value} {target.color.value} {target.id}",
                                      self.public()["pending_roll"], advisory=self.shadow))
        else:
            rulings += self._finish_turn([])
        return rulings

    def clean(self, before: TableState, after: TableState) -> TableState:
        """`after` without the size changes no WarpShips move can make: a nest never grows, and
        it shrinks only when its top ship left as a newly flat ship or a teleport took it."""
        expected = TableState.from_dict(self.expected) if self.expected else TableState()
        new_flat = [p for p in after.pieces if p.pose is Pose.FLAT and not any(
            q.pose is Pose.FLAT and math.dist(q.tail, p.tail) <= NEST_SPOT_MM for q in before.pieces)]
        shrunk = {i: q for i, p in enumerate(after.pieces)
                  if (q := _nest_at(before, p)) is not None and p.size.pips < q.size.pips}
        launched = _launch_sources(shrunk, new_flat)
        pieces = []
        for i, p in enumerate(after.pieces):
            q = _nest_at(before, p)
            if q is not None and p.size is not q.size:
                taken = _nest_at(expected, p) is not None and _nest_at(expected, p).size is p.size
                if p.size.pips > q.size.pips or not (i in launched or taken):
                    p = replace(p, size=q.size, stack=q.stack)  # a misread size: the nest is as it was
            pieces.append(p)
        return replace(after, pieces=tuple(pieces))

    def recheck(self, before: TableState, after: TableState) -> list[dict[str, Any]]:
        """A challenged ruling: the move and the beam ruled again on `after` as corrected now,
        without touching the game (its turn was already taken)."""
        rulings = self._move_and_beam(with_nests(before), with_nests(after), True)[0]
        for r in rulings:
            r["summary"] = "re-check: " + r["summary"]
        return rulings

    def _move_and_beam(self, before: TableState, after: TableState, advisory: bool
                       ) -> tuple[list[dict[str, Any]], dict[str, Any] | None, dict[str, Any] | None]:
        """The move's ruling and, when it may stand, the moved ship's beam: (rulings, move, beam)."""
        try:
            move = self.rule_move(before, after, uncertainty_mm=self.uncertainty_mm)
        except InputError as e:
            return [self._uncertain(f"I cannot tell what happened: {e}")], None, None
        except Exception as e:  # a referee bug on an odd table: the players decide, the loop goes on
            return [self._uncertain(f"the referee could not rule this change ({type(e).__name__}: {e})")], None, None
        m = move.to_dict()
        rulings = [new_ruling("move", _move_summary(m, move.too_close_to_call), m, margin=m.get("margin"),
                              too_close=move.too_close_to_call, advisory=advisory)]
        if not m.get("legal") and not move.too_close_to_call:
            return rulings, m, None
        try:
            beam = self.rule_beam(after, m["ship"], uncertainty_mm=self.uncertainty_mm)
        except Exception as e:  # refused (InputError) or failed: the players decide
            return rulings + [self._uncertain(f"cannot trace the beam of {m.get('ship')}: {e}")], m, None
        b = beam.to_dict()
        rulings.append(new_ruling("beam", _beam_summary(b), b, margin=b.get("clearance"),
                                  too_close=beam.too_close_to_call, advisory=advisory))
        return rulings, m, b

    # -- the game: turns, rolls, colonies ------------------------------------------------------
    def roll(self, face: str | None, players: list[dict[str, str]] | None = None) -> list[dict[str, Any]]:
        """One roll of the Pyramid Die (a face such as "S+L", or None: roll it here)."""
        from referee.warpships.odds import FACES, RollError, parse_face, resolve_shot, roller
        if self.pending is None or "target" not in self.pending:
            raise InputError("no shot is waiting for a roll")
        face = parse_face(face) if face else random.choice(FACES)
        faces = self.pending["faces"] + [face]
        after = TableState.from_dict(self.pending["after"])
        try:
            shot = resolve_shot(after, self.pending["ship"], roller(faces))
        except RollError:  # the beam hit a flying ship that fires on: a chain reaction
            self.pending["faces"] = faces
            return [new_ruling("roll", f"rolled {face}: hit — chain reaction, roll again", {"faces": faces},
                               advisory=self.shadow)]
        return self._finish_turn(faces, shot.notation())

    def _finish_turn(self, faces: list[str], shot_text: str = "no target") -> list[dict[str, Any]]:
        from referee.warpships.game import WarpShipsGame
        pending, self.pending = self.pending, None
        before, after = TableState.from_dict(pending["before"]), TableState.from_dict(pending["after"])
        try:
            game = self.game or WarpShipsGame.new(list(self.players), table=before)
            self.game = game.apply(after, rolls=faces, uncertainty_mm=self.uncertainty_mm)
        except InputError as e:
            return [self._uncertain(f"the game cannot take this turn: {e}")]
        turn = self.game.history[-1]
        after_teleport = self.game.table
        if turn.gained:
            self.expected = after_teleport.to_dict()
        if not faces:
            return []
        text = f"{turn.player}: {shot_text}" + (f" — {len(turn.gained)} ship(s) to the colony; take "
                                                f"{', '.join(self._taken(after, after_teleport))} off the table"
                                                if turn.gained else "")
        if self.game.result is not None:
            text += f" — {', '.join(self.game.result.winners)} wins ({self.game.result.why})"
        return [new_ruling("teleport", text, {"rolls": faces, "gained": [list(s) for s in turn.gained]},
                           advisory=self.shadow)]

    def scores(self, players: list[dict[str, str]]) -> dict[str, Any]:
        out = {}
        for p in players:
            colony = self.game.colony(p["name"]) if self.game and p["name"] in self.game.players else ()
            complete = bool(self.game and self.game.result and p["name"] in self.game.result.winners)
            out[p["name"]] = {"ships": len(colony), "colony": [{"color": c, "size": s} for c, s in colony],
                              "complete": complete}
        return out

    def public(self) -> dict[str, Any]:
        """Game facts for the dashboard: whose turn, the roll asked for, the result."""
        p = self.pending
        roll = None if not p or "target" not in p else {
            "ship": p["ship"], "ship_size": p["ship_size"], "target": p["target"],
            "target_size": p["target_size"], "rolls_so_far": list(p["faces"])}
        game = self.game
        return {"turn": game.to_move if game else self.players[0], "pending_roll": roll,
                "result": None if not game or not game.result else
                {"winners": list(game.result.winners), "why": game.result.why}}

    def snapshot(self) -> dict[str, Any]:
        return {"record": self.game.to_record() if self.game else None, "pending": self.pending,
                "expected": self.expected}

    def restore(self, snap: dict[str, Any], players: list[dict[str, str]]) -> None:
        from referee.warpships.game import WarpShipsGame
        self.players = tuple(p["name"] for p in players)
        self.game = WarpShipsGame.replay(snap["record"]) if snap.get("record") else None
        self.pending = snap.get("pending")
        self.expected = snap.get("expected")

    def _uncertain(self, why: str) -> dict[str, Any]:
        return new_ruling("uncertain", why + " — please check the table and confirm or correct.",
                          advisory=True)

    @staticmethod
    def _taken(after: TableState, teleported: TableState) -> list[str]:
        left = {p.id: p for p in teleported.pieces}
        return [p.id for p in after.pieces if p.id not in left or left[p.id].size is not p.size]


def _launch_sources(shrunk: dict[int, Any], new_flat: list[Any]) -> set[int]:
    """Which shrunken nests (index → the nest as it was) a new flat ship left: each ship
    left one nest of its colour and size, the nearest to where it landed. Another nest
    of that kind read smaller in the same picture lost nothing (pieces do not vanish)."""
    sources: set[int] = set()
    for ship in new_flat:
        options = [(math.dist(q.center, ship.tail), i) for i, q in shrunk.items()
                   if i not in sources and q.color is ship.color and q.size is ship.size]
        if options:
            sources.add(min(options)[1])
    return sources


def _nest_at(state: TableState, p: Any) -> Any:
    """The upright piece of `state` of p's colour standing where upright p stands, if any."""
    if p.pose is not Pose.UPRIGHT:
        return None
    return next((q for q in state.pieces if q.pose is Pose.UPRIGHT and q.color is p.color
                 and math.dist(q.center, p.center) <= NEST_SPOT_MM), None)


def with_nests(state: TableState) -> TableState:
    """WarpShips nests start as full trios and only ever lose their outermost ship, so an
    upright piece the camera sees only from above holds every smaller size too."""
    order = (Size.LARGE, Size.MEDIUM, Size.SMALL)
    return replace(state, pieces=tuple(
        replace(p, stack=order[order.index(p.size):]) if p.pose is Pose.UPRIGHT and not p.stack else p
        for p in state.pieces))


def _move_summary(m: dict[str, Any], too_close: bool = False) -> str:
    verdict = "legal" if m.get("legal") else "ILLEGAL"
    if too_close:
        verdict = f"too close to call (reads {verdict.lower()})"
    return f"{m.get('kind', 'move')} of {m.get('ship')}: {verdict} — {m.get('reason', '')}".rstrip(" —")


def _beam_summary(b: dict[str, Any]) -> str:
    if b.get("target") is None:
        return f"{b.get('ship')} fires at nothing — {b.get('reason', '')}".rstrip(" —")
    verdict = "valid target" if b.get("valid") else "not a valid target"
    return f"{b.get('ship')} fires at {b.get('target')}: {verdict} — {b.get('reason', '')}".rstrip(" —")
