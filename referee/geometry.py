"""Plane geometry shared by the referees: footprints, rays, distances, tangency loci.

Pure Python on tuples of table millimetres, so the rulings are exact closed forms rather
than sampled rasters, and fast on a table of 36 pieces (a bounding-box sweep beats
building shapely objects at that size; the tests check these results against shapely).
Polygons are convex footprints (a base square or a flat pentagon).

>>> sq = [(10, -5), (20, -5), (20, 5), (10, 5)]
>>> ray_entry(sq, (0, 0), (1, 0))
10.0
>>> round(separation(sq, [(25, 0), (30, 0), (30, 3)]), 3)
5.0
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

from domain import Piece, Point

# Below this, two numbers in mm are the same number: far under any measurement error,
# far above double rounding on table-sized coordinates.
EPS_MM = 1e-9

Poly = Sequence[Point]


def footprint(piece: Piece) -> list[Point]:
    """The piece seen from above (upright: base square; flat: the pentagon of facts.md)."""
    return piece.footprint()


def bbox(points: Poly) -> tuple[float, float, float, float]:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def unit(deg: float) -> Point:
    r = math.radians(deg)
    return math.cos(r), math.sin(r)


def heading_of(v: Point) -> float:
    """Direction of a vector in degrees [0, 360)."""
    return math.degrees(math.atan2(v[1], v[0])) % 360.0


def dot(a: Point, b: Point) -> float:
    return a[0] * b[0] + a[1] * b[1]


def cross(a: Point, b: Point) -> float:
    return a[0] * b[1] - a[1] * b[0]


def sub(a: Point, b: Point) -> Point:
    return a[0] - b[0], a[1] - b[1]


def add(a: Point, b: Point, k: float = 1.0) -> Point:
    return a[0] + k * b[0], a[1] + k * b[1]


def perp(d: Point) -> Point:
    """The direction 90 degrees from d (towards +y from +x): the beam's 'left' in maths terms."""
    return -d[1], d[0]


def to_frame(points: Iterable[Point], origin: Point, d: Point) -> list[Point]:
    """Coordinates (u along d, v along perp(d)) relative to origin."""
    ox, oy = origin
    dx, dy = d
    return [((x - ox) * dx + (y - oy) * dy, (y - oy) * dx - (x - ox) * dy) for x, y in points]


def clip_u_ge(poly_uv: Poly, u0: float = 0.0) -> list[Point]:
    """The part of a convex polygon with u >= u0 (Sutherland-Hodgman against one line)."""
    out: list[Point] = []
    n = len(poly_uv)
    for i in range(n):
        a, b = poly_uv[i], poly_uv[(i + 1) % n]
        ina, inb = a[0] >= u0, b[0] >= u0
        if ina:
            out.append(a)
        if ina != inb:
            t = (u0 - a[0]) / (b[0] - a[0])
            out.append((u0, a[1] + t * (b[1] - a[1])))
    return out


def chord(poly_uv: Poly, v: float) -> tuple[float, float] | None:
    """Where the line {v = const} crosses a convex polygon: (u_min, u_max), or None."""
    us: list[float] = []
    n = len(poly_uv)
    for i in range(n):
        (ua, va), (ub, vb) = poly_uv[i], poly_uv[(i + 1) % n]
        lo, hi = (va, vb) if va <= vb else (vb, va)
        if lo - EPS_MM <= v <= hi + EPS_MM:
            if hi - lo < EPS_MM:
                us += [ua, ub]
            else:
                us.append(ua + (v - va) / (vb - va) * (ub - ua))
    return (min(us), max(us)) if us else None


def ray_entry(poly: Poly, origin: Point, d: Point) -> float | None:
    """Distance along the ray origin + t·d (t >= 0, |d| = 1) to a convex polygon; None if missed.

    0 when the origin is already inside or on it.
    """
    c = chord(to_frame(poly, origin, d), 0.0)
    if c is None or c[1] < 0:
        return None
    return max(c[0], 0.0)


def point_segment(p: Point, a: Point, b: Point) -> tuple[float, Point]:
    """Distance from p to the segment ab and the closest point on it."""
    ab = sub(b, a)
    L2 = dot(ab, ab)
    t = 0.0 if L2 < EPS_MM else max(0.0, min(1.0, dot(sub(p, a), ab) / L2))
    q = add(a, ab, t)
    return math.dist(p, q), q


def contains(poly: Poly, p: Point) -> bool:
    """Point in (or on) a convex polygon of either orientation."""
    sign = 0
    n = len(poly)
    for i in range(n):
        c = cross(sub(poly[(i + 1) % n], poly[i]), sub(p, poly[i]))
        if abs(c) < EPS_MM:
            continue
        s = 1 if c > 0 else -1
        if sign and s != sign:
            return False
        sign = s
    return True


def signed_distance(p: Point, poly: Poly) -> float:
    """Distance from p to a convex polygon: positive outside, minus the depth inside."""
    n = len(poly)
    d = min(point_segment(p, poly[i], poly[(i + 1) % n])[0] for i in range(n))
    return -d if contains(poly, p) else d


def _axes(poly: Poly) -> list[Point]:
    n = len(poly)
    out = []
    for i in range(n):
        e = sub(poly[(i + 1) % n], poly[i])
        L = math.hypot(*e)
        if L > EPS_MM:
            out.append((-e[1] / L, e[0] / L))
    return out


def separation(P: Poly, Q: Poly) -> float:
    """Gap between two convex polygons: their distance when apart, minus the depth of
    overlap (the shortest push that separates them) when they overlap.

    The overlap depth is exact by the separating-axis theorem: for convex polygons the
    minimum translation is along one of their edge normals.
    """
    depth = math.inf
    for ax in _axes(P) + _axes(Q):
        pp = [dot(p, ax) for p in P]
        qq = [dot(q, ax) for q in Q]
        gap = max(min(qq) - max(pp), min(pp) - max(qq))
        if gap >= 0:
            return polygon_distance(P, Q)
        depth = min(depth, -gap)
    return -depth


def polygon_distance(P: Poly, Q: Poly) -> float:
    """Distance between two disjoint polygons (closest vertex-to-edge pair)."""
    best = math.inf
    for A, B in ((P, Q), (Q, P)):
        m = len(B)
        for p in A:
            for i in range(m):
                best = min(best, point_segment(p, B[i], B[(i + 1) % m])[0])
    return best


def disc_clearance(center: Point, radius: float, poly: Poly) -> float:
    """How far a disc stays off a convex polygon (negative: how deep it overlaps)."""
    return signed_distance(center, poly) - radius


# -- tangency loci: where a warp centre may lie ------------------------------------------
# A locus is ("seg", a, b) -- a straight segment -- or ("arc", centre, r, a0, a1) -- the
# circle arc of radius r from angle a0 to a1 (radians, a1 > a0, counter-clockwise in maths
# terms, i.e. from +x towards +y).

def locus_point_distance(locus: tuple, p: Point) -> tuple[float, Point]:
    """Distance from p to a locus and the closest point on it."""
    if locus[0] == "seg":
        return point_segment(p, locus[1], locus[2])
    _, o, r, a0, a1 = locus
    ang = math.atan2(p[1] - o[1], p[0] - o[0])
    if _angle_in(ang, a0, a1):
        q = (o[0] + r * math.cos(ang), o[1] + r * math.sin(ang))
        return math.dist(p, q), q
    ends = [(o[0] + r * math.cos(a), o[1] + r * math.sin(a)) for a in (a0, a1)]
    return min((math.dist(p, q), q) for q in ends)


def _angle_in(a: float, a0: float, a1: float) -> bool:
    return (a - a0) % (2 * math.pi) <= (a1 - a0) + 1e-12


def line_circle(a: Point, b: Point, o: Point, r: float) -> list[float]:
    """Parameters t (point a + t·(b-a)) where the line ab meets the circle (o, r)."""
    d = sub(b, a)
    f = sub(a, o)
    A, B, C = dot(d, d), 2 * dot(f, d), dot(f, f) - r * r
    disc = B * B - 4 * A * C
    if A < EPS_MM or disc < 0:
        return []
    s = math.sqrt(disc)
    return [(-B - s) / (2 * A), (-B + s) / (2 * A)]


def locus_meets(l1: tuple, l2: tuple) -> list[Point]:
    """Where two loci cross (a segment with a segment or an arc), exactly."""
    if l1[0] != "seg":
        l1, l2 = l2, l1
    if l1[0] != "seg":
        raise ValueError("arc-arc loci are not needed by any rule")
    a, b = l1[1], l1[2]
    if l2[0] == "seg":
        c, e = l2[1], l2[2]
        r, s = sub(b, a), sub(e, c)
        den = cross(r, s)
        if abs(den) < EPS_MM:
            return []
        t = cross(sub(c, a), s) / den
        u = cross(sub(c, a), r) / den
        return [add(a, r, t)] if 0 <= t <= 1 and 0 <= u <= 1 else []
    _, o, rad, a0, a1 = l2
    out = []
    for t in line_circle(a, b, o, rad):
        p = add(a, sub(b, a), t)
        if 0 <= t <= 1 and _angle_in(math.atan2(p[1] - o[1], p[0] - o[0]), a0, a1):
            out.append(p)
    return out


def locus_samples(locus: tuple, step: float) -> list[Point]:
    """Points along a locus no more than `step` mm apart, ends included."""
    if locus[0] == "seg":
        a, b = locus[1], locus[2]
        n = max(1, math.ceil(math.dist(a, b) / step))
        return [add(a, sub(b, a), i / n) for i in range(n + 1)]
    _, o, r, a0, a1 = locus
    n = max(1, math.ceil((a1 - a0) * r / step))
    return [(o[0] + r * math.cos(a0 + (a1 - a0) * i / n), o[1] + r * math.sin(a0 + (a1 - a0) * i / n))
            for i in range(n + 1)]


def closest_pair(l1: tuple, l2: tuple) -> tuple[float, Point, Point]:
    """Closest points (on l1, on l2) of two loci (segment/arc): a crossing exactly,
    otherwise the best of every endpoint against the other locus and, for an arc, the foot
    of the segment's closest approach to the arc's centre -- the only places a minimum of
    the distance between a segment and a convex arc can sit."""
    hits = locus_meets(l1, l2)
    if hits:
        return 0.0, hits[0], hits[0]
    cands = []
    for swap, (A, B) in enumerate(((l1, l2), (l2, l1))):
        points = _locus_ends(A)
        if A[0] == "seg" and B[0] == "arc":
            points.append(point_segment(B[1], A[1], A[2])[1])
        for p in points:
            d, q = locus_point_distance(B, p)
            cands.append((d, q, p) if swap else (d, p, q))
    return min(cands, key=lambda c: c[0])


def _locus_ends(locus: tuple) -> list[Point]:
    if locus[0] == "seg":
        return [locus[1], locus[2]]
    _, o, r, a0, a1 = locus
    return [(o[0] + r * math.cos(a), o[1] + r * math.sin(a)) for a in (a0, a1)]
