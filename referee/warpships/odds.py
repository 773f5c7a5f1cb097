"""The Pyramid Die, one shot resolved (bonus teleports and chain reactions), and its exact odds.

Faces: S, M, L, S+M, S+L, M+L (facts.md). A shot at a size succeeds on the three faces
showing it; a bonus needs the exact pair of the two ships' (different) sizes.

>>> from fractions import Fraction
>>> sum(Fraction(1, 6) for f in FACES if hits(f, Size.LARGE))
Fraction(1, 2)
>>> [f for f in FACES if bonus(f, Size.LARGE, Size.SMALL)]
['S+L']
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterator

from domain import InputError, Size, TableState
from referee.warpships.beam import cast_beam
from referee.warpships.table import Ship, ShipError, Table

FACES = ("S", "M", "L", "S+M", "S+L", "M+L")
_LETTER = {"S": Size.SMALL, "M": Size.MEDIUM, "L": Size.LARGE}
ONE_FACE = Fraction(1, len(FACES))


class RollError(InputError):
    """A die face that is not on the Pyramid Die, or too few / too many rolls for a shot."""


def parse_face(text: str) -> str:
    """Normalise a face as a player types it ('l+s', 'SL', 'S + L') to one of FACES.

    >>> parse_face("l + s"), parse_face("M")
    ('S+L', 'M')
    """
    raw = str(text).upper().replace(" ", "").replace("+", "")
    ok = raw and set(raw) <= set("SML") and len(set(raw)) == len(raw)
    face = "+".join(sorted(raw, key="SML".index)) if ok else ""
    if face not in FACES:
        raise RollError(f"{text!r} is not a Pyramid Die face (one of: {', '.join(FACES)})")
    return face


def face_sizes(face: str) -> frozenset[Size]:
    return frozenset(_LETTER[c] for c in face.split("+"))


def hits(face: str, target: Size) -> bool:
    return target in face_sizes(face)


def bonus(face: str, firing: Size, target: Size) -> bool:
    return firing is not target and face_sizes(face) == {firing, target}


@dataclass(frozen=True)
class Step:
    """One roll of a shot: who fired at whom, the face, and what it did."""

    firer: str
    target: str
    face: str
    success: bool
    bonus: bool

    def notation(self) -> str:
        mark = "bonus" if self.bonus else ("hit" if self.success else "miss")
        return f"{self.firer}>{self.target} [{self.face}] {mark}"


@dataclass(frozen=True)
class Shot:
    """A resolved shot: the rolls and the ships teleported (piece ids, in order taken)."""

    steps: tuple[Step, ...]
    teleported: tuple[str, ...]

    def notation(self) -> str:
        return ", ".join(s.notation() for s in self.steps) or "no target"


class _Chain:
    """The beams of one table (computed once each), walked roll by roll."""

    def __init__(self, table: Table, active_id: str):
        self.table = table
        self.active = table.ship(active_id)
        if not self.active.flat:
            raise ShipError(f"ship {active_id} is upright: only a ship that has just moved (flat) fires")
        self._targets: dict[str, Ship | None] = {}

    def target_of(self, ship: Ship) -> Ship | None:
        """The valid target of a flat ship's beam, or None."""
        if ship.id not in self._targets:
            b = cast_beam(self.table, ship)
            self._targets[ship.id] = self.table.ship(b.target) if b.valid else None
        return self._targets[ship.id]

    def step(self, firer: Ship, target: Ship, taken: tuple[str, ...], face: str
             ) -> tuple[Step, tuple[str, ...], tuple[Ship, Ship] | None]:
        """Resolve one roll: the step, ships taken so far, and the next (firer, target) or None."""
        first = not taken
        ok = hits(face, target.piece.size)
        is_bonus = ok and first and bonus(face, firer.piece.size, target.piece.size)
        st = Step(firer.id, target.id, face, ok, is_bonus)
        if not ok:
            return st, taken, None
        taken = taken + (target.id,) + ((firer.id,) if is_bonus else ())
        nxt = self.target_of(target) if target.flat else None
        if nxt is None or nxt.id in taken:
            return st, taken, None
        return st, taken, (target, nxt)


def resolve_shot(state: TableState, active_id: str, roll: Callable[[], str]) -> Shot:
    """Fire `active_id`'s beam and roll (via `roll()`) until the chain ends."""
    chain = _Chain(Table.of(state), active_id)
    first = chain.target_of(chain.active)
    steps: list[Step] = []
    taken: tuple[str, ...] = ()
    pair = (chain.active, first) if first is not None else None
    while pair is not None:
        st, taken, pair = chain.step(*pair, taken, parse_face(roll()))
        steps.append(st)
    return Shot(tuple(steps), taken)


def roller(faces: list[str] | None = None, rng: random.Random | None = None) -> Callable[[], str]:
    """Rolls entered by the players (in order), or drawn from a seeded RNG."""
    if faces is None:
        rng = rng or random.Random()
        return lambda: rng.choice(FACES)
    it = iter(faces)

    def next_face() -> str:
        try:
            return next(it)
        except StopIteration:
            raise RollError(f"the shot needs roll number {len(faces) + 1}, only {len(faces)} given") from None
    return next_face


@dataclass(frozen=True)
class ShotOdds:
    ship: str
    target: str | None
    distribution: dict[int, Fraction]  # ships gained -> probability

    @property
    def expected(self) -> Fraction:
        return sum((n * p for n, p in self.distribution.items()), Fraction(0))

    def to_dict(self) -> dict:
        return {"ship": self.ship, "target": self.target,
                "distribution": {str(n): str(p) for n, p in sorted(self.distribution.items())},
                "expected_ships": round(float(self.expected), 4), "expected_exact": str(self.expected)}


def shot_odds(state: TableState, active_id: str) -> ShotOdds:
    """Exact distribution of the number of ships a shot gains, over every roll of the chain.

    >>> from domain import Piece
    >>> st = TableState((Piece.flat_from_nose("a", "red", "large", (0, 0), 0),
    ...                  Piece.upright("t", "blue", "small", (50, 0))))
    >>> {n: str(p) for n, p in shot_odds(st, "a").distribution.items()}
    {0: '1/2', 1: '1/3', 2: '1/6'}
    """
    return table_odds(Table.of(state), active_id)


def table_odds(table: Table, active_id: str) -> ShotOdds:
    """shot_odds on an already built (and checked) Table."""
    chain = _Chain(table, active_id)
    first = chain.target_of(chain.active)
    dist: dict[int, Fraction] = {}
    if first is None:
        return ShotOdds(active_id, None, {0: Fraction(1)})
    for p, taken in _outcomes(chain, (chain.active, first), ()):
        dist[len(taken)] = dist.get(len(taken), Fraction(0)) + p
    return ShotOdds(active_id, first.id, dict(sorted(dist.items())))


def _outcomes(chain: _Chain, pair: tuple[Ship, Ship], taken: tuple[str, ...]
              ) -> Iterator[tuple[Fraction, tuple[str, ...]]]:
    for face in FACES:
        _, now, nxt = chain.step(*pair, taken, face)
        if nxt is None:
            yield ONE_FACE, now
        else:
            for p, t in _outcomes(chain, nxt, now):
                yield ONE_FACE * p, t
