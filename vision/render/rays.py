"""Camera rays and their way through pyramid walls (geometry only, no light).

World frame: table mm, x right, y down, z = height above the table. `Pixels` says which
picture positions a batch of rays goes through, so objects can pick the rays near them
by their projected bounding box.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from calibration.camera import CameraView
from vision.render.materials import F0_PLASTIC, IOR_PLASTIC
from vision.render.shapes import WALL_MM, Convex
from vision.render.world import Shell

UNDISTORT_STEP = 8          # px between exactly undistorted grid points; bilinear in between
EDGE_ROUND_MM = 0.4        # moulding radius of a pyramid's edges
PIP_RADIUS_MM = 1.1        # the pips are shallow round dimples this big...
PIP_SLOPE = 0.6            # ...whose sides lean up to atan(0.6) = 31 degrees
PRISM_START = 1.4           # a wall crossed over more than this many slab thicknesses is a prism...
PRISM_LOSS = 0.7            # ...and the straight-through light falls as exp(-PRISM_LOSS × excess)


@dataclass(frozen=True)
class Pixels:
    """Where rays go through the picture (u, v), as a full raster (grid = (h, w)) or a list."""

    u: np.ndarray
    v: np.ndarray
    grid: tuple[int, int] | None = None

    def select(self, box) -> np.ndarray:
        """Indices of the rays inside a pixel box (u0, u1, v0, v1)."""
        if self.grid is None:
            return np.flatnonzero((self.u >= box[0]) & (self.u <= box[1]) & (self.v >= box[2]) & (self.v <= box[3]))
        h, w = self.grid
        u0, u1 = max(math.ceil(box[0]), 0), min(math.floor(box[1]), w - 1)
        v0, v1 = max(math.ceil(box[2]), 0), min(math.floor(box[3]), h - 1)
        if u0 > u1 or v0 > v1:
            return np.zeros(0, dtype=np.int64)
        return (np.arange(v0, v1 + 1)[:, None] * w + np.arange(u0, u1 + 1)[None, :]).ravel()


def _undistort_table(view: CameraView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact undistorted normalised coordinates on a coarse grid: (grid u, grid v, values)."""
    K, s = view.intrinsics, UNDISTORT_STEP
    gu = np.arange(-2 * s, K.width + 3 * s, s, dtype=np.float64)
    gv = np.arange(-2 * s, K.height + 3 * s, s, dtype=np.float64)
    mesh = np.stack(np.meshgrid(gu, gv), axis=-1).reshape(-1, 2)
    return gu, gv, view.undistort_pixels(mesh).reshape(len(gv), len(gu), 2)


def _weights(x: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    f = (x - g[0]) / UNDISTORT_STEP
    i = np.clip(np.floor(f).astype(int), 0, len(g) - 2)
    return i, (f - i)[:, None]


def _normalised(view: CameraView, pix: Pixels) -> np.ndarray:
    """Undistorted normalised image coordinates of pixels: exact on a coarse grid,
    bilinear in between (lens distortion is smooth: error far below 0.01 px)."""
    K = view.intrinsics
    if not any(K.dist):
        return np.column_stack([(pix.u - K.cx) / K.fx, (pix.v - K.cy) / K.fy])
    gu, gv, table = _undistort_table(view)
    if pix.grid is not None:  # separable: along u for every coarse row, then along v
        h, w = pix.grid
        iu, au = _weights(np.arange(w, dtype=np.float64), gu)
        iv, av = _weights(np.arange(h, dtype=np.float64), gv)
        rows = table[:, iu] * (1 - au[None]) + table[:, iu + 1] * au[None]
        return (rows[iv] * (1 - av[:, :, None]) + rows[iv + 1] * av[:, :, None]).reshape(-1, 2)
    iu, au = _weights(pix.u, gu)
    iv, av = _weights(pix.v, gv)
    return ((1 - av) * ((1 - au) * table[iv, iu] + au * table[iv, iu + 1])
            + av * ((1 - au) * table[iv + 1, iu] + au * table[iv + 1, iu + 1]))


def camera_rays(view: CameraView, pix: Pixels) -> tuple[np.ndarray, np.ndarray]:
    """World origins and unit directions (z up) of the rays through pixels (u, v)."""
    rays = _normalised(view, pix)
    R = view.rotation
    d = np.empty((len(rays), 3))
    # camera ray (x, y, 1) to the table frame (R.T @ ray), whose third axis is -height
    d[:, 0] = R[0, 0] * rays[:, 0] + R[1, 0] * rays[:, 1] + R[2, 0]
    d[:, 1] = R[0, 1] * rays[:, 0] + R[1, 1] * rays[:, 1] + R[2, 1]
    d[:, 2] = -(R[0, 2] * rays[:, 0] + R[1, 2] * rays[:, 1] + R[2, 2])
    d /= np.sqrt(np.einsum("ij,ij->i", d, d))[:, None]
    o = np.broadcast_to(view.position, d.shape)
    return o, d


def pixel_box(view: CameraView, pts: np.ndarray, pad: float = 2.0) -> tuple[float, float, float, float]:
    px = view.project(pts)
    return px[:, 0].min() - pad, px[:, 0].max() + pad, px[:, 1].min() - pad, px[:, 1].max() + pad


def shell_path(sh: Shell, o: np.ndarray, d: np.ndarray, t_max: np.ndarray | float):
    """Plastic intervals of a ray through a shell, clipped to (0, t_max).

    Returns (start1, end1, start2, end2, outer face at start1, cavity face at start2,
    cavity hit?); empty intervals have end <= start.
    """
    a0, a1, fa, _ = sh.outer.hit(o, d)
    b0, b1, _, fb = sh.cavity.hit(o, d)
    a0c, a1c = np.maximum(a0, 0.0), np.minimum(a1, t_max)
    cav = b0 < b1
    e1 = np.where(cav, np.minimum(b0, a1c), a1c)
    s2 = np.where(cav, np.maximum(b1, a0c), np.inf)
    return a0c, e1, s2, a1c, fa, fb, cav


def refraction_scale(n: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Ratio of the refracted path through a thin wall to the straight one: cos θi / cos θt.

    Rays are not bent (a thin wall only shifts them sideways), but the light inside the
    plastic runs closer to the wall normal, so it crosses less plastic than a straight
    line would at grazing angles.
    """
    cos_i = np.abs(np.einsum("ij,ij->i", n, d)) / np.linalg.norm(d, axis=1)
    sin_t2 = (1 - cos_i ** 2) / IOR_PLASTIC ** 2
    return cos_i / np.sqrt(1 - sin_t2)


def rounded_normal(solid: Convex, X: np.ndarray, face: np.ndarray) -> np.ndarray:
    """Normal at points X on `face` of a convex solid whose edges are rounded with radius
    EDGE_ROUND_MM: within that distance of an edge it turns towards the neighbouring face,
    halfway at the edge itself."""
    n_f = solid.normals[face]
    inside = solid.offsets[None, :] - X @ solid.normals.T            # distance to each plane
    cos_fg = n_f @ solid.normals.T
    along = inside / np.sqrt(np.clip(1 - cos_fg ** 2, 1e-6, None))   # distance to each edge, in the face
    along[np.arange(len(X)), face] = np.inf
    g = np.argmin(along, axis=1)
    e = along[np.arange(len(X)), g]
    w = 0.5 * np.clip(1 - e / EDGE_ROUND_MM, 0, 1) ** 2
    n = n_f + w[:, None] * (solid.normals[g] - n_f)
    return n / np.linalg.norm(n, axis=1, keepdims=True)


def dimpled_normal(sh: Shell, X: np.ndarray, face: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Tilt normals n at points X on the side faces of a shell inside its pips: shallow
    round dimples, so the normal leans towards each dimple's centre."""
    side = np.flatnonzero(face < 4)
    if len(side) == 0:
        return n
    centres = sh.pips[face[side]]                                   # m × pips × 3
    off = X[side, None, :] - centres
    dist = np.linalg.norm(off, axis=2)
    k = np.argmin(dist, axis=1)
    near = dist[np.arange(len(side)), k] < PIP_RADIUS_MM
    if not near.any():
        return n
    rows = side[near]
    radial = off[near, k[near]] / PIP_RADIUS_MM                     # 0 at the centre, 1 at the rim
    out = n.copy()
    out[rows] = n[rows] - PIP_SLOPE * radial
    out[rows] /= np.linalg.norm(out[rows], axis=1, keepdims=True)
    return out


def prism_factor(n: np.ndarray, d: np.ndarray, straight: np.ndarray) -> np.ndarray:
    """Share of the light that gets straight through a wall crossing: 1 for a parallel
    slab; where the straight path is much longer than a slab's (ridges, the apex, the rim
    seen edge-on) the wall acts as a prism and throws light aside (dark outlines, the
    look of clear plastic), modelled as an exponential loss in the excess thickness."""
    cos_i = np.abs(np.einsum("ij,ij->i", n, d)) / np.linalg.norm(d, axis=1)
    slabs = straight * cos_i / WALL_MM
    return np.exp(-PRISM_LOSS * np.clip(slabs - PRISM_START, 0, None))


def wall_transmission(sh: Shell, d: np.ndarray, path) -> np.ndarray:
    """Light (rgb share) a ray carries through a shell's walls: absorption over the
    refracted path, Fresnel losses at the surfaces, prism losses at thick places."""
    s1, e1, s2, e2, fa, fb, _ = path
    scale = np.linalg.norm(d, axis=1)
    T = np.ones((len(d), 3))
    for start, end, n in ((s1, e1, sh.outer.normals[fa]), (s2, e2, sh.cavity.normals[fb])):
        straight = np.clip(end - start, 0, None) * scale
        crossed = straight > 0
        if not crossed.any():
            continue
        length = straight * refraction_scale(n, d)
        loss = np.where(crossed, (1 - F0_PLASTIC) ** 2 * prism_factor(n, d, straight), 1.0)
        T *= np.exp(-length[:, None] * sh.plastic.sigma) * loss[:, None]
    return T


def slab_shift(n: np.ndarray, d: np.ndarray, straight: np.ndarray) -> np.ndarray:
    """Sideways displacement of a ray crossing a wall (taken as a parallel slab) whose
    straight path would be `straight` mm long: the refracted ray leaves parallel to d."""
    eta = 1.0 / IOR_PLASTIC
    cos_i = np.clip(-np.einsum("ij,ij->i", n, d), 1e-3, 1.0)
    cos_t = np.sqrt(1 - eta ** 2 * (1 - cos_i ** 2))
    d_t = eta * d + (eta * cos_i - cos_t)[:, None] * n
    thickness = np.minimum(straight * cos_i, PRISM_START * WALL_MM)   # prisms scatter, see prism_factor
    return thickness[:, None] * (d_t / cos_t[:, None] - d / cos_i[:, None])
