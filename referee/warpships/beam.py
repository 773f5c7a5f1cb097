"""The teleport beam: which ship a flat ship fires at, how far, and how robust that answer is.

A small red ship with its nose at x = 40 points along +x at a green large upright whose
near edge is at x = 100: the contact is 60 mm away, and the beam could slide 12.7 mm
sideways (half the large base: the beam runs through the middle) before missing it.

>>> from domain import Piece, TableState
>>> ship = Piece.flat_from_nose("p2", "red", "small", (40.0, 0.0), 0.0)
>>> nest = Piece.upright("p7", "green", "large", (112.7, 0.0))
>>> r = rule_beam(TableState((ship, nest)), "p2")
>>> r.target, r.valid, r.distance, r.clearance, r.reason
('p7', True, 60.0, 12.7, 'first ship on the beam is green')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from domain import Point, TableState
from referee import geometry as g
from referee.warpships.table import Ship, ShipError, Table


# Turning a ship further than this about its nose is no longer "the same aim": the angular
# clearance (`turn`) is capped here.
MAX_TURN_DEG = 90.0
# A corner closer than this to the nose is at the nose (float noise, not a direction).
NOSE_CONTACT_MM = 1e-6
# An outline spanning 180 degrees from the nose (the nose on its edge), give or take float noise.
ANGLE_EPS_DEG = 1e-7


@dataclass(frozen=True)
class BeamRuling:
    """What the beam of `ship` hits. `clearance` is how far the beam line could shift
    sideways (either side, parallel) before the first ship on it changed."""

    ship: str
    target: str | None
    valid: bool
    reason: str
    distance: float | None
    clearance: float | None
    uncertainty_mm: float = 0.0
    heading_uncertainty_deg: float = 0.0
    turn: float = MAX_TURN_DEG  # degrees the ship could turn about its nose, same answer
    # Geometry for drawings (table mm): the nose, the beam direction, the first contact,
    # and how far the beam may shift to each side (+: towards perp(direction)).
    nose: Point = (0.0, 0.0)
    direction: Point = (1.0, 0.0)
    contact: Point | None = None
    clear_plus: float | None = None
    clear_minus: float | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def too_close_to_call(self) -> bool:
        """The beam passes within the measurement error (position or heading) of changing."""
        return ((self.clearance is not None and self.uncertainty_mm > 0
                 and self.clearance <= self.uncertainty_mm)
                or (self.heading_uncertainty_deg > 0 and self.turn <= self.heading_uncertainty_deg))

    @property
    def call(self) -> str:
        if self.too_close_to_call:
            return "too close to call"
        return "shot" if self.valid else "no shot"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "ship": self.ship, "target": self.target, "valid": self.valid, "reason": self.reason,
            "distance": _mm(self.distance), "clearance": _mm(self.clearance),
            "call": self.call, "uncertainty": _mm(self.uncertainty_mm), "turn": round(self.turn, 2)}
        if self.too_close_to_call:
            why = (f"a shift of {self.clearance:.1f} mm" if self.clearance is not None
                   and self.clearance <= self.uncertainty_mm else f"a turn of {self.turn:.1f}°")
            d["reason"] += f" (too close to call: {why} would change it, within the measurement error)"
        d.update(self.extra)
        return d


def _mm(v: float | None) -> float | None:
    return None if v is None else round(v, 1)


@dataclass(frozen=True)
class _Shadow:
    """A ship in the beam's frame: its part ahead of the nose and that part's sideways span."""

    ship: Ship
    ahead: list[Point]
    lo: float
    hi: float

    def entry(self, v: float) -> float:
        c = g.chord(self.ahead, v)
        return math.inf if c is None else c[0]


def rule_beam(state: TableState, ship_id: str, *, uncertainty_mm: float = 0.0,
              heading_uncertainty_deg: float = 0.0) -> BeamRuling:
    """Rule the beam of flat ship `ship_id` on `state` (see the module doc).

    Too close to call: the beam's sideways `clearance` within `uncertainty_mm` (the
    measuring error the caller states), or its `turn` within `heading_uncertainty_deg`.
    """
    table = Table.of(state)
    firing = table.ship(ship_id)
    if not firing.flat:
        raise ShipError(f"ship {ship_id} is upright: only flat (flying) ships fire a beam")
    return cast_beam(table, firing, uncertainty_mm=uncertainty_mm, heading_uncertainty_deg=heading_uncertainty_deg)


def shadows(table: Table, firing: Ship) -> list[_Shadow]:
    nose, d = firing.piece.nose, firing.piece.direction
    out = []
    for s in table.ships:
        if s is firing or g.dot(g.sub(s.centre, nose), d) + s.radius < 0:
            continue  # the bounding circle is wholly behind the nose
        ahead = g.clip_u_ge(g.to_frame(s.poly, nose, d))
        if len(ahead) >= 2:
            vs = [p[1] for p in ahead]
            out.append(_Shadow(s, ahead, min(vs), max(vs)))
    return out


@dataclass(frozen=True)
class _Sector:
    """A ship seen from the nose: the angles (degrees from the heading) its outline spans."""

    ship: Ship
    nose: Point
    heading: float
    lo: float
    hi: float

    def entry(self, angle: float) -> float:
        e = g.ray_entry(self.ship.poly, self.nose, g.unit(self.heading + angle))
        return math.inf if e is None else e


def _sector(s: Ship, nose: Point, h: float) -> _Sector | None:
    """Angular span of a ship round the nose (None when it straddles the direction straight
    behind the nose, or wraps round it: turning that far is no longer aiming)."""
    # a corner on the nose has no direction: the others span the ship's cone from there
    angs = [(math.degrees(math.atan2(y - nose[1], x - nose[0])) - h + 180.0) % 360.0 - 180.0
            for x, y in s.poly if math.dist((x, y), nose) > NOSE_CONTACT_MM]
    if angs and max(angs) - min(angs) <= 180.0 + ANGLE_EPS_DEG:  # 180: the nose on its edge
        return _Sector(s, nose, h, min(angs), max(angs))
    return None


def turn_clearance(table: Table, firing: Ship, hit: Ship | None) -> float:
    """Degrees the firing ship could turn about its nose (either way) before its first ship
    changed, capped at MAX_TURN_DEG. Ships whose bounding circle cannot reach the angles
    still in question are skipped (a cheap pre-filter)."""
    nose, h = firing.piece.nose, firing.piece.heading
    target = _sector(hit, nose, h) if hit else None
    if hit and target is None:
        return MAX_TURN_DEG  # a target wrapped round the nose stays hit
    plus, minus = (target.hi, -target.lo) if target else (MAX_TURN_DEG, MAX_TURN_DEG)
    sec = [target] if target else []
    for s in table.ships:
        if s is firing or s is hit:
            continue
        d = math.dist(s.centre, nose)
        if d > s.radius:
            c = (math.degrees(math.atan2(s.centre[1] - nose[1], s.centre[0] - nose[0])) - h + 180.0) % 360.0 - 180.0
            w = math.degrees(math.asin(s.radius / d))
            if c - w >= plus or c + w <= -minus:
                continue
        x = _sector(s, nose, h)
        if x is not None:
            sec.append(x)
    return min(MAX_TURN_DEG, *_clearances(sec, target))


def first_hit(shadows_: list[_Shadow], v: float = 0.0) -> tuple[_Shadow | None, float]:
    """The first ship met by the beam shifted sideways by v, and its distance."""
    best, dist = None, math.inf
    for sh in shadows_:
        if sh.lo <= v <= sh.hi:
            e = sh.entry(v)
            if e < dist:
                best, dist = sh, e
    return best, dist


def cast_beam(table: Table, firing: Ship, *, uncertainty_mm: float = 0.0,
              heading_uncertainty_deg: float = 0.0) -> BeamRuling:
    sh = shadows(table, firing)
    hit, dist = first_hit(sh)
    plus, minus = _clearances(sh, hit)
    clearance = None if math.isinf(min(plus, minus)) else min(plus, minus)
    nose, d = firing.piece.nose, firing.piece.direction
    turn = turn_clearance(table, firing, hit.ship if hit else None)
    common = dict(ship=firing.id, clearance=clearance, uncertainty_mm=uncertainty_mm,
                  heading_uncertainty_deg=heading_uncertainty_deg, turn=turn, nose=nose,
                  direction=d, clear_plus=None if math.isinf(plus) else plus,
                  clear_minus=None if math.isinf(minus) else minus)
    if hit is None:
        return BeamRuling(target=None, valid=False, reason="the beam meets no ship", distance=None,
                          **common)
    tgt = hit.ship.piece
    colour = tgt.color.value
    valid = tgt.color is not firing.piece.color
    reason = (f"first ship on the beam is {colour}" if valid
              else f"first ship on the beam is the same colour ({colour}): no shot")
    return BeamRuling(target=tgt.id, valid=valid, reason=reason, distance=dist,
                      contact=g.add(nose, d, dist),
                      extra={"target_color": colour, "target_size": tgt.size.value,
                             "target_pose": tgt.pose.value},
                      **common)


def _clearances(sh: list, hit) -> tuple[float, float]:
    """Exact room on each side before the first ship changes, for a beam shifted sideways
    (spans in mm, `_Shadow`) or turned about the nose (spans in degrees, `_Sector`).

    The first ship can only change where some ship's span starts or ends: the target's
    own span ends, or another ship's span begins and that ship is in front of the target
    there. Disjoint convex ships keep one order along parallel lines, and along rays from
    one point outside them (a line separating the two is crossed once), so comparing at
    that single place is enough.
    """
    if hit is None:
        plus = min((s.lo for s in sh if s.lo > 0), default=math.inf)
        minus = min((-s.hi for s in sh if s.hi < 0), default=math.inf)
        return plus, minus
    plus, minus = hit.hi, -hit.lo
    for s in sh:
        if s is hit:
            continue
        if 0 < s.lo < plus and s.entry(s.lo) < hit.entry(s.lo):
            plus = s.lo
        if 0 < -s.hi < minus and s.entry(s.hi) < hit.entry(s.hi):
            minus = -s.hi
    return plus, minus
