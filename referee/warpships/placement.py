"""Where the warp can go: tangency loci of the warp centre, solved exactly, then cleared.

A warp flush against a straight edge from outside has its centre on that edge pushed
out by the radius (a segment). A warp touched by a ship's nose only has its centre on
the circle of the radius around the nose, within the nose's normal cone (an arc). A
ship whose tail edge lies flush against the warp, body outside, has the warp centre on
its tail edge pushed back by the radius (a segment). A move is legal when the locus of
its start meets the locus of its landing (within the placement tolerance) at a point
whose disc touches no other ship.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from domain import Piece, Point
from referee import geometry as g
from referee.warpships.table import Ship

# "Flush" as a state file can show it: a warp this far (summed over its two contacts) from
# touching both still counts as touching. It absorbs only the rounding of coordinates
# written to 0.1 mm and headings to 0.1° (about 0.1 mm a contact); doubt from measuring a
# real table belongs to the caller's uncertainty ("too close to call"), not to the rule,
# so an illegal margin reads as the plain shortfall (the contract's 231 mm fly: -129.4 + 0.5).
FLUSH_TOLERANCE_MM = 0.5

# Spacing of the extra warp positions tried along each locus to steer the disc clear of
# other ships (the exact crossing of the loci is always tried first). 0.5 mm is finer
# than the detector can see; a base edge gives about 50 positions.
SAMPLE_STEP_MM = 0.5


@dataclass(frozen=True)
class Placement:
    """The best warp centre found: how far its contacts are off (`gap`) and how far its disc
    stays off the nearest other ship (`disc`, negative when overlapping `blocker`)."""

    center: Point
    gap: float
    disc: float
    origin: str  # which contact the warp starts from, in words
    blocker: str | None

    @property
    def margin(self) -> float:
        return min(FLUSH_TOLERANCE_MM - self.gap, self.disc)


def launch_loci(nest: Ship, radius: float) -> list[tuple[str, tuple]]:
    """One segment per base edge of the nest: where a flush warp's centre may be."""
    cx, cy = nest.centre
    out = []
    for i, a in enumerate(nest.poly):
        b = nest.poly[(i + 1) % len(nest.poly)]
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        n = g.sub(mid, (cx, cy))
        L = math.hypot(*n)
        n = (n[0] / L, n[1] / L)
        label = f"the base edge of {nest.id} facing {g.heading_of(n):.0f}°"
        out.append((label, ("seg", g.add(a, n, radius), g.add(b, n, radius))))
    return out


def fly_locus(ship: Ship, radius: float) -> tuple[str, tuple]:
    """The arc of warp centres touching the ship at its nose only (nose's normal cone)."""
    p = ship.piece
    d = p.direction
    raised, nose = ship.poly[2], ship.poly[3]
    edge = g.sub(nose, raised)
    n = g.perp(edge)
    L = math.hypot(*n)
    half = math.acos(max(-1.0, min(1.0, abs(g.dot(n, d)) / L)))
    h = math.atan2(d[1], d[0])
    return f"the nose of {p.id}", ("arc", nose, radius, h - half, h + half)


def landing_locus(piece: Piece, poly: tuple[Point, ...], radius: float) -> tuple:
    """Warp centres that have this flat ship's tail edge flush against the warp, body outside."""
    d = piece.direction
    return ("seg", g.add(poly[0], d, -radius), g.add(poly[1], d, -radius))


def _disc(center: Point, radius: float, obstacles: list[Ship]) -> tuple[float, str | None]:
    best, who = math.inf, None
    for s in obstacles:
        if math.dist(center, s.centre) - s.radius - radius >= best:
            continue  # its bounding circle is already farther than the nearest so far
        c = g.disc_clearance(center, radius, s.poly)
        if c < best:
            best, who = c, s.id
    return best, who


def _gap(c: Point, l1: tuple, l2: tuple) -> float:
    return g.locus_point_distance(l1, c)[0] + g.locus_point_distance(l2, c)[0]


def best_placement(origins: list[tuple[str, tuple]], landing: tuple, radius: float,
                   obstacles: list[Ship]) -> Placement:
    """The warp centre that best satisfies both contacts and clears `obstacles`.

    First the exact crossing (or closest approach) of each start locus with the landing
    locus, and the warp centred behind the tail. Only when another ship binds one of those
    are positions along both loci tried every SAMPLE_STEP_MM within the tolerance (else no
    other position can do better: none has a smaller gap than the closest approach).
    """
    mid = ((landing[1][0] + landing[2][0]) / 2, (landing[1][1] + landing[2][1]) / 2)
    best: Placement | None = None
    best_key = (-math.inf,)
    near = []  # start loci that come within tolerance of the landing
    blocked = False  # did another ship bind any placement tried?

    def consider(label: str, locus: tuple, gap: float, c: Point) -> None:
        nonlocal best, best_key, blocked
        disc, who = _disc(c, radius, obstacles)
        cand = Placement(c, gap, disc, label, who)
        blocked = blocked or disc < FLUSH_TOLERANCE_MM - gap
        # Ties go to a warp truly touching the start (so a drawing shows where the
        # shortfall is), then to one centred behind the tail (a straight launch).
        key = (round(cand.margin, 9), -round(g.locus_point_distance(locus, c)[0], 9), -math.dist(c, mid))
        if key > best_key:
            best, best_key = cand, key

    for label, locus in origins:
        gap, p, q = g.closest_pair(locus, landing)
        for c in (p, q, ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)):
            consider(label, locus, gap, c)
        if gap <= FLUSH_TOLERANCE_MM:
            near.append((label, locus))
            for c in (mid, g.locus_point_distance(locus, mid)[1]):
                if (cg := _gap(c, locus, landing)) <= FLUSH_TOLERANCE_MM:
                    consider(label, locus, cg, c)
    assert best is not None, "every move has at least one start locus"
    if blocked:  # another ship is in the way somewhere: look for the most room
        for label, locus in near:
            for c in (c for lo in (locus, landing) for c in g.locus_samples(lo, SAMPLE_STEP_MM)):
                if (cg := _gap(c, locus, landing)) <= FLUSH_TOLERANCE_MM:
                    consider(label, locus, cg, c)
    return best
