"""A table state seen as WarpShips ships: footprints, a cheap bounding pre-filter, sanity checks.

>>> from domain import Piece, TableState
>>> t = Table.of(TableState((Piece.upright("n", "red", "large", (0, 0)),
...                          Piece.upright("m", "blue", "large", (20, 0)))))
Traceback (most recent call last):
...
referee.warpships.table.ContradictionError: pieces m and n overlap by 5.4 mm: two ships cannot share the same spot
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from domain import Piece, Point, Pose, StateError, TableState
from referee import geometry as g

# Two footprints may seem to overlap this deep before the state is called contradictory:
# touching pieces, each measured to about 0.5-1 mm by the detector, can look 1 mm
# interpenetrated; a real overlap of solid plastic is impossible.
OVERLAP_TOLERANCE_MM = 1.5

class ContradictionError(StateError):
    """The table state(s) cannot all be true (overlapping ships, vanished ships, ...)."""


class ShipError(StateError):
    """A ship id that does not exist or cannot do what was asked."""


class Ship(NamedTuple):
    """One piece on the table with its footprint and bounding data (a tuple: cheap to build)."""

    piece: Piece
    poly: tuple[Point, ...]
    box: tuple[float, float, float, float]
    centre: Point
    radius: float

    @staticmethod
    def of(piece: Piece) -> "Ship":
        """The ship of a piece (cached: consecutive states share most of their pieces)."""
        return _ship(piece)

    @staticmethod
    def build(piece: Piece) -> "Ship":
        poly = tuple(g.footprint(piece))
        xs = [p[0] for p in poly]
        ys = [p[1] for p in poly]
        cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
        r2 = max((x - cx) ** 2 + (y - cy) ** 2 for x, y in poly)
        return Ship(piece, poly, (min(xs), min(ys), max(xs), max(ys)), (cx, cy), math.sqrt(r2))

    @property
    def id(self) -> str:
        return self.piece.id

    @property
    def flat(self) -> bool:
        return self.piece.pose is Pose.FLAT


@lru_cache(maxsize=4096)
def _ship(piece: Piece) -> Ship:
    return Ship.build(piece)


def boxes_near(a: tuple[float, float, float, float], b: tuple[float, float, float, float],
               gap: float) -> bool:
    """Whether two bounding boxes come within `gap` of each other (the cheap pre-filter)."""
    return a[0] - gap <= b[2] and b[0] - gap <= a[2] and a[1] - gap <= b[3] and b[1] - gap <= a[3]


@dataclass(frozen=True)
class Table:
    """Validated ships of one table state."""

    state: TableState
    ships: tuple[Ship, ...]

    @staticmethod
    def of(state: TableState) -> "Table":
        """Ships of a state, checked for overlaps (cached: the same state is often ruled twice)."""
        return _table(state)

    @property
    def warp_radius(self) -> float:
        return self.state.warp_diameter / 2

    def ship(self, sid: str) -> Ship:
        for s in self.ships:
            if s.id == sid:
                return s
        ids = ", ".join(s.id for s in self.ships) or "none"
        raise ShipError(f"no ship {sid!r} on the table (ids: {ids})")

    def others(self, *exclude: str) -> list[Ship]:
        return [s for s in self.ships if s.id not in exclude]

    def near(self, box: tuple[float, float, float, float], gap: float, *exclude: str) -> list[Ship]:
        return [s for s in self.ships if s.id not in exclude and boxes_near(box, s.box, gap)]


@lru_cache(maxsize=16)
def _table(state: TableState) -> Table:
    ships = tuple(Ship.of(p) for p in state.pieces)
    check_no_overlap(ships)
    return Table(state, ships)


def check_no_overlap(ships: tuple[Ship, ...]) -> None:
    """Raise ContradictionError when two footprints overlap deeper than the tolerance."""
    order = sorted(ships, key=lambda s: s.box[0])
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            if b.box[0] > a.box[2]:
                break
            if not boxes_near(a.box, b.box, 0.0):
                continue
            sep = g.separation(a.poly, b.poly)
            if sep < -OVERLAP_TOLERANCE_MM:
                first, second = sorted((a.id, b.id))
                raise ContradictionError(f"pieces {first} and {second} overlap by {-sep:.1f} mm: "
                                         "two ships cannot share the same spot")
