"""Move rulings: was this launch or fly legal under the WarpShips rules, and by how much.

A large red ship launched straight off the +x base edge of its nest: the warp (101.6 mm)
sits flush against the edge, the ship's tail flush on the far side of the warp.

>>> from domain import Piece, TableState
>>> nest = Piece.upright("n", "red", "large", (0, 0), stack=["large", "medium"])
>>> before = TableState((nest,))
>>> after = TableState((nest.moved(size=nest.stack[1], stack=nest.stack[1:]),
...                     Piece.flat("s", "red", "large", (12.7 + 101.6, 0), 0)))
>>> r = rule_move(before, after)
>>> r.kind, r.legal, r.warp_center, r.margin
('launch', True, (63.5, 0.0), 0.5)
>>> r.to_dict()["call"]
'legal'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from domain import Point, TableState
from referee import geometry as g
from referee.warpships.match import Change, find_change
from referee.warpships.placement import (FLUSH_TOLERANCE_MM, Placement, best_placement, fly_locus,
                                         landing_locus, launch_loci)
from referee.warpships.table import ContradictionError, Ship, Table


@dataclass(frozen=True)
class MoveRuling:
    ship: str  # the moved ship's id in the after state
    kind: str  # "launch" | "fly"
    legal: bool
    reason: str
    warp_center: Point | None  # one legal placement (None when illegal)
    margin: float  # mm the worst-placed thing could move before the ruling flips
    uncertainty_mm: float = 0.0
    ship_before: str = ""
    warp_radius: float = 50.8
    closest_warp_center: Point | None = None  # best try, even when illegal (for drawings)
    blocker: str | None = None  # the ship that binds the margin, if any
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def too_close_to_call(self) -> bool:
        return self.uncertainty_mm > 0 and abs(self.margin) <= self.uncertainty_mm

    @property
    def call(self) -> str:
        if self.too_close_to_call:
            return "too close to call"
        return "legal" if self.legal else "illegal"

    def to_dict(self) -> dict[str, Any]:
        wc = None if self.warp_center is None else [round(v, 1) for v in self.warp_center]
        reason = self.reason
        if self.too_close_to_call:
            reason += (f" (too close to call: {abs(self.margin):.1f} mm from flipping, within the "
                       f"{self.uncertainty_mm:.1f} mm measurement error)")
        d = {"ship": self.ship, "kind": self.kind, "legal": self.legal, "reason": reason,
             "warp_center": wc, "margin": round(self.margin, 1), "call": self.call,
             "uncertainty": round(self.uncertainty_mm, 1), "ship_before": self.ship_before,
             "blocker": self.blocker}
        d.update(self.extra)
        return d


def rule_move(before: TableState, after: TableState, *, uncertainty_mm: float = 0.0) -> MoveRuling:
    """Work out the one move between the states and rule it (see the module doc)."""
    if abs(before.warp_diameter - after.warp_diameter) > 1e-6:
        raise ContradictionError(f"the warp changed size between the states "
                                 f"({before.warp_diameter} mm, then {after.warp_diameter} mm)")
    tb, ta = Table.of(before), Table.of(after)
    change = find_change(before, after)
    return judge(change, tb, ta, uncertainty_mm=uncertainty_mm)


def judge(change: Change, tb: Table, ta: Table, *, uncertainty_mm: float = 0.0) -> MoveRuling:
    """Rule a known change (the advisor calls this directly on its own candidates)."""
    R = tb.warp_radius
    mover = ta.ship(change.after.id)
    start = tb.ship(change.before.id)
    origins = launch_loci(start, R) if change.kind == "launch" else [fly_locus(start, R)]
    landing = landing_locus(mover.piece, mover.poly, R)
    reach = g.bbox([pt for _, lo in origins for pt in _ends(lo)] + list(_ends(landing)))
    obstacles = tb.near(reach, R + FLUSH_TOLERANCE_MM, start.id)
    best = best_placement(origins, landing, R, obstacles)
    land_clear, land_blocker = _landing_clearance(mover, ta)
    margin = min(best.margin, land_clear)
    legal = margin >= 0
    if land_clear <= best.margin:
        blocker = land_blocker
    else:
        blocker = best.blocker if best.disc <= FLUSH_TOLERANCE_MM - best.gap else None
    reason = _reason(change, best, land_clear, land_blocker, margin, R)
    return MoveRuling(ship=mover.id, kind=change.kind, legal=legal, reason=reason,
                      warp_center=best.center if legal else None, margin=margin,
                      uncertainty_mm=uncertainty_mm, ship_before=start.id, warp_radius=R,
                      closest_warp_center=best.center,
                      blocker=blocker)


def _ends(locus: tuple) -> list[Point]:
    if locus[0] == "seg":
        return [locus[1], locus[2]]
    _, o, r, _, _ = locus
    return [(o[0] - r, o[1] - r), (o[0] + r, o[1] + r)]


def _landing_clearance(mover: Ship, ta: Table) -> tuple[float, str | None]:
    """How far the landed ship stays off every other ship (negative: overlap depth)."""
    best, who = math.inf, None
    for s in ta.near(mover.box, FLUSH_TOLERANCE_MM, mover.id):
        sep = g.separation(mover.poly, s.poly)
        if sep < best:
            best, who = sep, s.id
    return best, who


def _reason(change: Change, best: Placement, land: float, land_blocker: str | None,
            margin: float, R: float) -> str:
    verb = "launch" if change.kind == "launch" else "fly"
    if margin >= 0:
        parts = [f"{verb} from {best.origin}: the warp is flush within {best.gap:.1f} mm"]
        if best.blocker is not None:
            parts.append(f"clears {best.blocker} by {best.disc:.1f} mm")
        if land_blocker is not None:
            parts.append(f"the ship lands {land:.1f} mm from {land_blocker}")
        return "; ".join(parts)
    if land == margin:
        return f"the ship lands on {land_blocker} (overlapping it by {-land:.1f} mm)"
    if best.disc == margin:
        return (f"the warp cannot lie flat there: it would overlap {best.blocker} by {-best.disc:.1f} mm"
                if best.disc < 0 else f"the warp would touch {best.blocker}")
    tail_gap = _tail_distance(change)
    if tail_gap > 2 * R:
        where = "old nose" if change.kind == "fly" else f"base of {change.before.id}"
        return (f"the new tail is {tail_gap:.0f} mm from the {where}; "
                f"the warp spans only {2 * R:.1f} mm")
    start = "touching only the old nose" if change.kind == "fly" else f"flush against {change.before.id}"
    return (f"no warp {start} has the new tail edge flush: it is {best.gap:.1f} mm off "
            f"(placement tolerance {FLUSH_TOLERANCE_MM} mm)")


def _tail_distance(change: Change) -> float:
    """Straight distance from where the move starts (old nose / nest base) to the new tail."""
    tail = change.after.tail
    if change.kind == "fly":
        return math.dist(change.before.nose, tail)  # type: ignore[arg-type]
    return max(0.0, g.signed_distance(tail, change.before.footprint()))  # type: ignore[arg-type]
