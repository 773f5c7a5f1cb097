"""The 3-D pyramid models and how they look on the table plane from the camera.

Detection works in a top-down picture of the table plane (z = 0, see vision.rectify).
A point lifted h mm above the table does not appear above its own foot there: the
camera's ray through it meets the table further out, at

    apparent = C + (P - C) · Hc / (Hc - h)        (C: camera centre, Hc: its height)

so an upright piece's apex leans away from the camera and a flat piece's raised
corners lean too, while everything touching the table stays put. The silhouette of a
convex pyramid is the union of its projected faces, which is what `model_sdf`
measures distances to.

>>> from domain import Size
>>> faces = hypothesis_faces(np.array([[100.0, 50.0, 0.0]]), ["upright"], [Size.LARGE],
...                          camera=np.array([100.0, 50.0, 900.0]))
>>> faces.shape  # one hypothesis, 5 faces, 4 corners each, (x, y)
(1, 5, 4, 2)
>>> round(float(model_sdf(faces, np.array([[[100.0, 50.0], [120.0, 50.0]]]))[0, 1]), 2)
7.3
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import cv2
import numpy as np

from domain import Piece, Pose, Size

# Hypothesis kinds: what a blob on the table could be.
UPRIGHT, FLAT, COIN = "upright", "flat", "coin"


def lift(points: np.ndarray, heights: np.ndarray, camera: np.ndarray) -> np.ndarray:
    """Where points `heights` mm above the table appear on the table plane, mm (…×2)."""
    scale = camera[2] / (camera[2] - heights)
    return camera[:2] + (points - camera[:2]) * scale[..., None]


@dataclass(frozen=True)
class Model:
    """A pyramid pose as a rigid set of 5 vertices in its own frame.

    offsets: (along, across) mm from the anchor (upright: base centre, along a base edge;
    flat: tail, along the heading); heights: mm above the table; faces: vertex indices,
    triangles repeating their last corner so every face has 4.
    """

    kind: str
    size: Size
    offsets: np.ndarray
    heights: np.ndarray
    faces: np.ndarray


@lru_cache(maxsize=None)
def model(kind: str, size: Size) -> Model:
    h = size.base / 2
    if kind == UPRIGHT:
        # base corners, then the apex
        offsets = [(h, h), (-h, h), (-h, -h), (h, -h), (0, 0)]
        return Model(kind, size, np.array(offsets, float), np.array([0, 0, 0, 0, size.height]),
                     np.array([[0, 1, 4, 4], [1, 2, 4, 4], [2, 3, 4, 4], [3, 0, 4, 4], [0, 1, 2, 3]]))
    # tail-left, tail-right, raised-right, nose, raised-left: domain.Piece.footprint's order
    f, r = size.flat_raised_offset, size.flat_raised_height
    offsets = [(0, h), (0, -h), (f, -h), (size.slant, 0), (f, h)]
    return Model(kind, size, np.array(offsets, float), np.array([0, 0, r, 0, r]),
                 np.array([[0, 1, 3, 3], [0, 1, 2, 4], [1, 2, 3, 3], [0, 4, 3, 3], [4, 2, 3, 3]]))


def place(params: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """(x, y, angle) rows and local offsets (N×5×2) → table positions of the vertices (N×5×2)."""
    a = np.radians(params[:, 2])
    c, s = np.cos(a)[:, None], np.sin(a)[:, None]
    along, across = offsets[..., 0], offsets[..., 1]
    return np.stack([params[:, None, 0] + along * c - across * s,
                     params[:, None, 1] + along * s + across * c], -1)


def apparent_vertices(params: np.ndarray, offsets: np.ndarray, heights: np.ndarray,
                      camera: np.ndarray) -> np.ndarray:
    """Where each hypothesis's vertices appear on the table plane (N×5×2, mm)."""
    return lift(place(params, offsets), heights, camera)


def hypothesis_faces(params: np.ndarray, kinds: Sequence[str], sizes: Sequence[Size],
                     camera: np.ndarray) -> np.ndarray:
    """Apparent faces on the table plane (N×5×4×2, mm) of pyramid hypothesis rows."""
    models = [model(k, s) for k, s in zip(kinds, sizes)]
    verts = apparent_vertices(params, np.array([m.offsets for m in models]),
                              np.array([m.heights for m in models]), camera)
    faces = np.array([m.faces for m in models])
    return verts[np.arange(len(verts))[:, None, None], faces]


def _edge_normals(a: np.ndarray, b: np.ndarray, orient: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Outward unit normals of edges a→b of faces with the given orientation sign, and lengths."""
    e = b - a
    length = np.hypot(e[..., 0], e[..., 1])
    with np.errstate(invalid="ignore", divide="ignore"):
        n = np.stack([e[..., 1], -e[..., 0]], -1) * (orient / length)[..., None]
    # np.nan_to_num(n): a repeated corner (length 0) gives 0·inf = nan; inf needs a
    # subnormal edge, so the full conversion is rarely needed
    n[np.isnan(n)] = 0.0
    return (np.nan_to_num(n) if np.isinf(n).any() else n), length


def model_sdf(faces: np.ndarray, points: np.ndarray, active: bool = False):
    """Signed distance (mm, negative inside) from points (N×K×2) to each hypothesis's
    silhouette (N×F×4×2), approximated as min over faces of max over edge half-planes.

    With `active`, also returns which face and edge decide each distance (N×K each) and
    the faces' orientation signs (N×F), for `active_sdf_jacobian`.
    """
    b = np.roll(faces, -1, axis=2)
    area2 = np.sum(faces[..., 0] * b[..., 1] - b[..., 0] * faces[..., 1], axis=2)  # N×F, twice the area
    orient = np.where(area2 >= 0, 1.0, -1.0)
    n, length = _edge_normals(faces, b, orient[..., None])
    offset = faces[..., 0] * n[..., 0] + faces[..., 1] * n[..., 1]   # N×F×4
    offset[length <= 1e-9] = np.inf                                  # repeated corner: no edge
    offset[np.abs(area2) <= 1e-6] = -np.inf                           # edge-on face: never nearest
    # max over a face's 4 edges, then min over the faces, as running comparisons (strict,
    # so ties go to the first like argmax/argmin): far cheaper than reductions over axes of 4
    # A triangle's repeated corner (slot 2) is no edge (-inf, never the max): that slot is
    # evaluated on the faces that have one in some row only (the quadrilaterals).
    px, py = points[:, None, :, 0], points[:, None, :, 1]
    face = edge = None
    for i in range(faces.shape[2]):
        live = np.flatnonzero((length[:, :, i] > 1e-9).any(axis=0))
        if face is not None and len(live) < faces.shape[1]:
            s = px * n[:, live, i, 0, None] + py * n[:, live, i, 1, None] - offset[:, live, i, None]
            more = s > face[:, live]
            face[:, live] = np.where(more, s, face[:, live])
            sub = edge[:, live]
            sub[more] = i
            edge[:, live] = sub
            continue
        s = px * n[:, :, i, 0, None] + py * n[:, :, i, 1, None] - offset[:, :, i, None]   # N×F×K
        if face is None:
            face, edge = s, np.zeros(s.shape, np.intp)
        else:
            more = s > face
            face = np.where(more, s, face)
            edge[more] = i
    sdf, best, best_edge = face[:, 0], np.zeros(face[:, 0].shape, np.intp), edge[:, 0]
    for f in range(1, faces.shape[1]):
        less = face[:, f] < sdf
        sdf = np.where(less, face[:, f], sdf)
        best[less] = f
        best_edge = np.where(less, edge[:, f], best_edge)
    if not active:
        return sdf
    return sdf, (best, best_edge, orient)


def vertices_and_motion(params: np.ndarray, offsets: np.ndarray, heights: np.ndarray,
                        camera: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """`apparent_vertices` (N×5×2), and how they move with the parameters: a vertex lifted
    h mm moves on the table plane Hc/(Hc − h) times as far as its foot, so d/dx =
    scale·(1, 0) and d/dy = scale·(0, 1); its derivative by the angle (degrees) is
    perpendicular to its offset from the anchor. Returns the vertices and (scale N×5,
    d/dangle N×5×2); the angle's sine, cosine and products are shared."""
    scale = camera[2] / (camera[2] - heights)
    a = np.radians(params[:, 2])
    c, s = np.cos(a)[:, None], np.sin(a)[:, None]
    along, across = offsets[..., 0], offsets[..., 1]
    along_c, across_s, along_s, across_c = along * c, across * s, along * s, across * c
    verts = np.empty(offsets.shape)
    verts[..., 0] = camera[0] + (params[:, None, 0] + along_c - across_s - camera[0]) * scale
    verts[..., 1] = camera[1] + (params[:, None, 1] + along_s + across_c - camera[1]) * scale
    turn = scale * (np.pi / 180)
    d_angle = np.empty(offsets.shape)
    d_angle[..., 0] = -(along_s + across_c) * turn
    d_angle[..., 1] = (along_c - across_s) * turn
    return verts, (scale, d_angle)


def active_sdf_jacobian(verts: np.ndarray, motion: tuple[np.ndarray, np.ndarray], faces: np.ndarray,
                        points: np.ndarray, active: tuple[np.ndarray, np.ndarray, np.ndarray]
                        ) -> tuple[np.ndarray, np.ndarray]:
    """`model_sdf` with each point's deciding face and edge held fixed (the cheap local
    form, N×K) and its derivatives by (x, y, angle) (N×K×3), given the vertices' motion
    (`vertices_and_motion`): the distance r = (p − a)·n to the deciding edge a→b moves
    with a and with the edge's unit normal n = orient·(e_y, −e_x)/|e|, e = b − a:
    dr = −da·n + (p − a)·perp(de)·orient/|e| − r·(e·de)/|e|²."""
    face, edge, orient = active
    scale, turn = motion
    n, nv = scale.shape
    # flat indices and np.take: much cheaper than fancy indexing of these small arrays
    row = np.arange(n)[:, None]
    slot = (row * faces.shape[1] + face) * faces.shape[2]
    i0 = faces.take(slot + edge) + row * nv
    i1 = faces.take(slot + (edge + 1) % faces.shape[2]) + row * nv
    vx, vy = verts[..., 0].ravel(), verts[..., 1].ravel()
    tx, ty = turn[..., 0].ravel(), turn[..., 1].ravel()
    ax, ay = vx.take(i0), vy.take(i0)
    ex, ey = vx.take(i1) - ax, vy.take(i1) - ay
    length2 = ex * ex + ey * ey
    o = orient.take(row * faces.shape[1] + face)
    inv = np.divide(o, np.sqrt(length2), out=np.zeros_like(length2), where=length2 > 1e-18)
    inv2 = inv * inv                                                   # 1/|e|², 0 on a repeated corner
    qx, qy = points[..., 0] - ax, points[..., 1] - ay
    nx, ny = ey * inv, -ex * inv
    r = qx * nx + qy * ny
    # x and y move both ends alike, scaled by their lift; the angle turns them
    s0 = scale.take(i0)
    ds = scale.take(i1) - s0
    t0x, t0y = tx.take(i0), ty.take(i0)
    dtx, dty = tx.take(i1) - t0x, ty.take(i1) - t0y
    J = np.empty(r.shape + (3,))
    J[..., 0] = -s0 * nx - ds * (qy * inv + r * ex * inv2)
    J[..., 1] = -s0 * ny + ds * (qx * inv - r * ey * inv2)
    J[..., 2] = -(t0x * nx + t0y * ny) + (qx * dty - qy * dtx) * inv - r * (ex * dtx + ey * dty) * inv2
    return r, J


def coin_sdf(params: np.ndarray, radius: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Signed distance from points (N×K×2) to circles (x, y) of the given radii (N)."""
    return np.hypot(points[..., 0] - params[:, None, 0], points[..., 1] - params[:, None, 1]) - radius[:, None]


def silhouette(kind: str, size: Size, params: Sequence[float], camera: np.ndarray) -> np.ndarray:
    """The apparent outline (convex polygon, M×2 mm) of one pyramid hypothesis."""
    # `apparent_vertices` for one row, written out: the decisions call this per hypothesis
    m = model(kind, size)
    x, y, angle = (float(v) for v in params)
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return cv2.convexHull(_apparent_f32(m.offsets, m.heights, x, y, c, s, camera)).reshape(-1, 2).astype(float)


def silhouettes(kinds: Sequence[str], sizes: Sequence[Size], params: np.ndarray,
                camera: np.ndarray) -> list[np.ndarray]:
    """`silhouette` of many pyramid rows (N×3 params), identical to it row by row: the
    vertices are computed together, only the 5-point hulls one by one."""
    models = [model(k, z) for k, z in zip(kinds, sizes)]
    if not models:
        return []
    offsets = np.array([m.offsets for m in models])
    heights = np.array([m.heights for m in models])
    a = np.radians(params[:, 2])
    app = _apparent_f32(offsets, heights, params[:, 0, None], params[:, 1, None],
                        np.cos(a)[:, None], np.sin(a)[:, None], camera)
    return [cv2.convexHull(v).reshape(-1, 2).astype(float) for v in app]


def _apparent_f32(offsets: np.ndarray, heights: np.ndarray, x, y, c, s, camera: np.ndarray) -> np.ndarray:
    """Apparent vertices (…×5×2 float32, as cv2.convexHull takes them) of pyramids at
    (x, y) turned by (cos, sin) = (c, s), all broadcast against offsets[..., 0]."""
    along, across = offsets[..., 0], offsets[..., 1]
    scale = camera[2] / (camera[2] - heights)
    app = np.empty(offsets.shape, np.float32)
    app[..., 0] = camera[0] + (x + along * c - across * s - camera[0]) * scale
    app[..., 1] = camera[1] + (y + along * s + across * c - camera[1]) * scale
    return app


def to_piece(pid: str, colour: str, kind: str, size: Size, params: Sequence[float],
             confidence: float) -> Piece:
    """The domain piece a fitted hypothesis stands for."""
    x, y, angle = (float(v) for v in params)
    if kind == UPRIGHT:
        return Piece.upright(pid, colour, size, (x, y), angle, confidence)
    return Piece.flat(pid, colour, size, (x, y), angle, confidence)


def piece_params(piece: Piece) -> tuple[str, np.ndarray]:
    """Inverse of `to_piece`: the hypothesis kind and parameters of a domain piece."""
    if piece.pose is Pose.UPRIGHT:
        return UPRIGHT, np.array([*piece.center, piece.rotation])
    return FLAT, np.array([*piece.tail, piece.heading])


def model_points_3d(piece: Piece) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """A piece's vertices as table (x, y, height) rows and its edges, for drawing."""
    kind, params = piece_params(piece)
    m = model(kind, piece.size)
    pts = place(params[None], m.offsets[None])[0]
    edges = {tuple(sorted((int(f[i]), int(f[(i + 1) % 4])))) for f in m.faces for i in range(4)
             if f[i] != f[(i + 1) % 4]}
    return np.column_stack([pts, m.heights]), sorted(edges)
