"""Legal launches and flies from a table, and a ranking by expected ships gained.

The table is continuous, so moves are generated on a documented grid:
- launch: the warp against each of the 4 base edges of every nest, centred and at 1/6
  and 5/6 along the edge (LAUNCH_EDGE_POSITIONS);
- fly: the warp touching the nose only, at FLY_DIRECTIONS directions spread evenly
  across the nose's normal cone (kept FLY_CONE_USE inside it so the touch is the nose's);
- the ship placed around the warp every LANDING_STEP_DEG degrees, tail flush, pointing
  straight out.
A move is kept when the warp and the landed ship both stay CANDIDATE_CLEARANCE_MM clear
of every other ship (so rule_move rules it legal even after rounding). Each kept move's
shot is rated exactly (odds.table_odds).

>>> from referee.warpships.setup import setup_table
>>> best = advise(setup_table(seed=3), top=1)[0]
>>> best.kind, best.expected > 0
('launch', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Iterator

from domain import Piece, Point, TableState
from referee import geometry as g
from referee.warpships.beam import cast_beam
from referee.warpships.odds import ShotOdds, table_odds
from referee.warpships.placement import fly_locus, launch_loci
from referee.warpships.table import Ship, Table, boxes_near

LAUNCH_EDGE_POSITIONS = (1 / 6, 1 / 2, 5 / 6)
FLY_DIRECTIONS = 7
FLY_CONE_USE = 0.95
LANDING_STEP_DEG = 15.0
CANDIDATE_CLEARANCE_MM = 1.0


@dataclass(frozen=True)
class Candidate:
    kind: str  # launch | fly
    ship: str  # the ship moved (nest id for a launch)
    new_id: str  # its id once landed
    warp_center: Point
    heading: float
    after: TableState
    odds: ShotOdds | None = None

    @property
    def expected(self) -> Fraction:
        return self.odds.expected if self.odds else Fraction(0)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "ship": self.ship, "new_id": self.new_id,
                             "warp_center": [round(v, 1) for v in self.warp_center],
                             "heading": round(self.heading, 1),
                             "landed": self.after.piece(self.new_id).to_dict()}
        if self.odds:
            d.update(target=self.odds.target, expected_ships=round(float(self.expected), 4),
                     distribution=self.odds.to_dict()["distribution"])
        return d


def _warp_centres(ship: Ship, R: float) -> list[Point]:
    if not ship.flat:
        return [g.add(lo[1], g.sub(lo[2], lo[1]), t) for _, lo in launch_loci(ship, R)
                for t in LAUNCH_EDGE_POSITIONS]
    _, (_, nose, r, a0, a1) = fly_locus(ship, R)
    mid, half = (a0 + a1) / 2, (a1 - a0) / 2 * FLY_CONE_USE
    angs = [mid + half * (2 * i / (FLY_DIRECTIONS - 1) - 1) for i in range(FLY_DIRECTIONS)]
    return [(nose[0] + r * math.cos(a), nose[1] + r * math.sin(a)) for a in angs]


def _clear(poly, ships: list[Ship], box) -> bool:
    return all(g.separation(poly, s.poly) >= CANDIDATE_CLEARANCE_MM
               for s in ships if boxes_near(box, s.box, CANDIDATE_CLEARANCE_MM))


def _remainder(p: Piece) -> Piece | None:
    """What a nest leaves behind after a launch."""
    return p.moved(size=p.stack[1], stack=p.stack[1:]) if len(p.stack) > 1 else None


def candidate_moves(state: TableState) -> Iterator[tuple[Candidate, Table]]:
    """Every legal move on the grid, with the after-table (built once, already checked)."""
    table = Table.of(state)
    R = table.warp_radius
    used = {p.id for p in state.pieces}
    for mover in table.ships:
        others = table.others(mover.id)
        left = [] if mover.flat else [Ship.of(r) for r in [_remainder(mover.piece)] if r is not None]
        kind = "fly" if mover.flat else "launch"
        new_id = mover.id if mover.flat else _fresh_id(mover.id, used)
        for c in _warp_centres(mover, R):
            if any(g.disc_clearance(c, R, s.poly) < CANDIDATE_CLEARANCE_MM for s in others
                   if math.dist(c, s.centre) < R + s.radius + CANDIDATE_CLEARANCE_MM):
                continue
            for k in range(round(360 / LANDING_STEP_DEG)):
                h = k * LANDING_STEP_DEG
                landed = Piece.flat(new_id, mover.piece.color, mover.piece.size, g.add(c, g.unit(h), R), h)
                ship = Ship.of(landed)
                if not _clear(ship.poly, others + left, ship.box):
                    continue
                ships = tuple(others + left + [ship])
                after = TableState(tuple(s.piece for s in ships), state.coins, state.warp_diameter)
                yield Candidate(kind, mover.id, new_id, c, h, after), Table(after, ships)


def _fresh_id(base: str, used: set[str]) -> str:
    i = 1
    while f"{base}.{i}" in used:
        i += 1
    return f"{base}.{i}"


def advise(state: TableState, top: int = 5) -> list[Candidate]:
    """The `top` moves by expected ships gained."""
    rated = []
    for cand, table in candidate_moves(state):
        odds = table_odds(table, cand.new_id)
        if odds.target is not None:
            clearance = cast_beam(table, table.ship(cand.new_id)).clearance or 0.0
            rated.append((odds.expected, 1 - odds.distribution.get(0, 0), clearance,
                          replace(cand, odds=odds)))
    # Ties: the larger chance of gaining anything, then the beam with more room to spare.
    rated.sort(key=lambda r: r[:3], reverse=True)
    return [r[3] for r in rated[:top]]
