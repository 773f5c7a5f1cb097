"""Solid shapes in the renderer's world frame and ray intersection with them.

World frame: table millimetres x (right), y (down), z = height above the table (up).
A pyramid shell is the outer convex solid minus its cavity (the same solid with every
side face moved inwards by the wall thickness, open at the base), so a ray meets plastic
on at most two intervals. Everything is vectorised over rays: `o` (N×3), `d` (N×3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from domain import Piece, Pose, Size

WALL_MM = 1.5        # shell wall thickness of a Looney pyramid
EPS = 1e-6


@dataclass(frozen=True)
class Convex:
    """Intersection of half-spaces n·p <= c (outward unit normals n, K×3)."""

    normals: np.ndarray
    offsets: np.ndarray
    vertices: np.ndarray  # for bounds and shadows

    def hit(self, o: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Slab test: entry t, exit t, entry face index, exit face index (t_in >= t_out: miss)."""
        denom = d @ self.normals.T                    # N×K
        num = self.offsets[None, :] - o @ self.normals.T
        with np.errstate(divide="ignore", invalid="ignore"):
            t = num / denom
        entering = denom < -EPS
        leaving = denom > EPS
        t_in_k = np.where(entering, t, -np.inf)
        t_out_k = np.where(leaving, t, np.inf)
        # parallel to a face and outside it: never inside
        outside = ~entering & ~leaving & (num < 0)
        f_in = np.argmax(t_in_k, axis=1)
        f_out = np.argmin(t_out_k, axis=1)
        rows = np.arange(len(o))
        t_in = t_in_k[rows, f_in]
        t_out = t_out_k[rows, f_out]
        t_out = np.where(outside.any(axis=1), -np.inf, t_out)
        return t_in, t_out, f_in, f_out

    def transformed(self, R: np.ndarray, t: np.ndarray) -> "Convex":
        n = self.normals @ R.T
        return Convex(n, self.offsets + n @ t, self.vertices @ R.T + t)


def _pyramid(size: Size, inset: float = 0.0) -> Convex:
    """Pyramid in local coordinates: base square centred on the origin, apex on +z.

    With inset > 0 the four side faces move inwards by `inset` (the cavity); the base
    plane z >= 0 stays, so the cavity is open at the base.
    """
    a, h = size.base / 2, size.height
    normals, offsets = [], []
    for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1)):
        n = np.array([dx * h, dy * h, a])
        ln = np.linalg.norm(n)
        normals.append(n / ln)
        offsets.append(a * h / ln - inset)
    normals.append(np.array([0.0, 0.0, -1.0]))
    offsets.append(0.0)
    verts = np.array([[a, a, 0], [-a, a, 0], [-a, -a, 0], [a, -a, 0], [0, 0, h]], float)
    return Convex(np.array(normals), np.array(offsets), verts)


def _rot_z(deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _flat_pose(size: Size, heading: float) -> tuple[np.ndarray, np.ndarray]:
    """Rotation and local point that make the pyramid lie on its +x face, pointing along heading.

    The +x face holds the tail edge (x = a, z = 0) and the apex; it must end up on the table
    with the apex `heading` degrees from the tail.
    """
    a, h = size.base / 2, size.height
    slant = math.hypot(a, h)
    e1 = np.array([-a, 0.0, h]) / slant          # tail midpoint -> apex, along the face
    en = np.array([h, 0.0, a]) / slant           # outward normal of that face
    e2 = np.cross(en, e1)
    hd = math.radians(heading)
    w1 = np.array([math.cos(hd), math.sin(hd), 0.0])
    wn = np.array([0.0, 0.0, -1.0])
    w2 = np.cross(wn, w1)
    R = np.column_stack([w1, w2, wn]) @ np.column_stack([e1, e2, en]).T
    return R, np.array([a, 0.0, 0.0])


def piece_transform(piece: Piece, size: Size | None = None, lift: float = 0.0,
                    tilt_deg: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Rotation R and translation t taking the local pyramid of `size` into the world."""
    size = size or piece.size
    if piece.pose is Pose.UPRIGHT:
        R = _rot_z(piece.rotation)
        t = np.array([piece.center[0], piece.center[1], lift])
    else:
        R, local_tail = _flat_pose(size, piece.heading)
        t = np.array([piece.tail[0], piece.tail[1], lift]) - R @ local_tail
    if tilt_deg:
        # tilt about a horizontal axis through the solid's centre (a piece held in fingers)
        centre = R @ np.array([0, 0, size.height / 4]) + t
        c, s = math.cos(math.radians(tilt_deg)), math.sin(math.radians(tilt_deg))
        Rt = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
        R, t = Rt @ R, Rt @ (t - centre) + centre
    return R, t


def shell(piece: Piece, size: Size | None = None, offset_xy: tuple[float, float] = (0.0, 0.0),
          extra_rotation: float = 0.0, lift: float = 0.0, tilt_deg: float = 0.0) -> tuple[Convex, Convex]:
    """(outer solid, cavity) of a piece in the world; `size` draws a nested inner piece."""
    size = size or piece.size
    R, t = piece_transform(piece, size, lift, tilt_deg)
    R = R @ _rot_z(extra_rotation)
    t = t + np.array([offset_xy[0], offset_xy[1], 0.0])
    return _pyramid(size).transformed(R, t), _pyramid(size, WALL_MM).transformed(R, t)


@dataclass(frozen=True)
class Cylinder:
    """Upright disc (a coin): centre of the bottom face, radius, thickness."""

    center: tuple[float, float, float]
    radius: float
    thickness: float

    @property
    def vertices(self) -> np.ndarray:
        cx, cy, cz = self.center
        r = self.radius
        return np.array([[cx + sx * r, cy + sy * r, cz + sz * self.thickness]
                         for sx in (-1, 1) for sy in (-1, 1) for sz in (0, 1)])

    def hit(self, o: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Nearest entry t (inf when missed) and the outward normal there."""
        cx, cy, cz = self.center
        ox, oy = o[:, 0] - cx, o[:, 1] - cy
        a = d[:, 0] ** 2 + d[:, 1] ** 2
        b = 2 * (ox * d[:, 0] + oy * d[:, 1])
        c = ox ** 2 + oy ** 2 - self.radius ** 2
        disc = b * b - 4 * a * c
        sq = np.sqrt(np.maximum(disc, 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            ts0, ts1 = (-b - sq) / (2 * a), (-b + sq) / (2 * a)
            tz0 = (cz - o[:, 2]) / d[:, 2]
            tz1 = (cz + self.thickness - o[:, 2]) / d[:, 2]
        tz_in, tz_out = np.minimum(tz0, tz1), np.maximum(tz0, tz1)
        t_in = np.maximum(ts0, tz_in)
        t_out = np.minimum(ts1, tz_out)
        ok = (disc > 0) & (t_in < t_out) & (t_out > 0)
        p = o + d * t_in[:, None]
        side = ts0 > tz_in
        n = np.where(side[:, None], np.column_stack([p[:, 0] - cx, p[:, 1] - cy, np.zeros(len(o))]) / self.radius,
                     np.array([0.0, 0.0, 1.0]))
        return np.where(ok, t_in, np.inf), n


@dataclass(frozen=True)
class Capsule:
    """Segment a-b swept by a sphere of radius r (forearm, fingers)."""

    a: np.ndarray
    b: np.ndarray
    r: float

    @property
    def vertices(self) -> np.ndarray:
        lo = np.minimum(self.a, self.b) - self.r
        hi = np.maximum(self.a, self.b) + self.r
        return np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])

    def hit(self, o: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Nearest entry t (inf when missed) and the outward normal (after Inigo Quilez's
        capIntersect). Most rays miss: the work after the first test is on the rest only."""
        ba = self.b - self.a
        baba = float(ba @ ba)
        oa = o - self.a
        bard = d @ ba
        baoa = oa @ ba
        dd = np.einsum("ij,ij->i", d, d)
        qa = baba * dd - bard * bard
        qb = baba * np.einsum("ij,ij->i", d, oa) - baoa * bard
        qc = baba * np.einsum("ij,ij->i", oa, oa) - baoa * baoa - self.r ** 2 * baba
        disc = qb * qb - qa * qc
        t = np.full(len(o), np.inf)
        n = np.zeros((len(o), 3))
        near = np.flatnonzero(disc >= 0)   # the ray comes within r of the axis line
        if len(near) == 0:
            return t, n
        with np.errstate(divide="ignore", invalid="ignore"):
            tb = (-qb[near] - np.sqrt(disc[near])) / qa[near]
        y = baoa[near] + tb * bard[near]
        body = (y > 0) & (y < baba) & (tb > 0)
        t[near[body]] = tb[body]
        for end, sel in ((self.a, ~body & (y <= 0)), (self.b, ~body & (y >= baba))):
            j = near[sel]
            oc = o[j] - end
            b2 = np.einsum("ij,ij->i", d[j], oc)
            h2 = b2 * b2 - dd[j] * (np.einsum("ij,ij->i", oc, oc) - self.r ** 2)
            ts = (-b2 - np.sqrt(np.maximum(h2, 0))) / dd[j]
            ok = (h2 >= 0) & (ts > 0)
            t[j[ok]] = ts[ok]
        hit = np.flatnonzero(np.isfinite(t))
        p = o[hit] + d[hit] * t[hit, None]
        s_ = np.clip(((p - self.a) @ ba) / baba, 0, 1)
        nn = p - (self.a + s_[:, None] * ba)
        n[hit] = nn / np.maximum(np.linalg.norm(nn, axis=1, keepdims=True), 1e-9)
        return t, n
