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
from vision import gauss_newton as gn

# Hypothesis kinds: what a blob on the table could be.
UPRIGHT, FLAT, COIN = "upright", "flat", "coin"


def following(points: np.ndarray) -> np.ndarray:
    """Each vertex's successor around a closed polygon: np.roll(points, -1, axis=0),
    without np.roll's general machinery (~5 µs a call, and the rules call it often).

    >>> following(np.arange(3)).tolist()
    [1, 2, 0]
    """
    return np.concatenate((points[1:], points[:1]))


def polygon_centroid(points: np.ndarray) -> np.ndarray:
    """A closed polygon's centroid, by the shoelace formula (its vertices' mean if it
    has no area).

    >>> polygon_centroid(np.array([[0, 0], [4, 0], [4, 2], [0, 2]])).tolist()
    [2.0, 1.0]
    """
    p = points.astype(float)
    q = following(p)
    cross = p[:, 0] * q[:, 1] - q[:, 0] * p[:, 1]
    area = cross.sum() / 2
    if abs(area) < 1e-9:
        return p.mean(axis=0)
    return ((p + q) * cross[:, None]).sum(axis=0) / (6 * area)


def preceding(points: np.ndarray) -> np.ndarray:
    """Each vertex's predecessor around a closed polygon: np.roll(points, 1, axis=0).

    >>> preceding(np.arange(3)).tolist()
    [2, 0, 1]
    """
    return np.concatenate((points[-1:], points[:-1]))


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


def model_sdf(faces: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Signed distance (mm, negative inside) from points (N×K×2) to each hypothesis's
    silhouette (N×F×4×2), approximated as min over faces of max over edge half-planes:
    the fits' own measure (vision.gauss_newton, compiled)."""
    return gn.model_sdf(np.ascontiguousarray(faces, float), np.ascontiguousarray(points, float))


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
    return [cv2.convexHull(v).reshape(-1, 2).astype(float) for v in _rows_apparent_f32(kinds, sizes, params, camera)]


def silhouette_areas(kinds: Sequence[str], sizes: Sequence[Size], params: np.ndarray,
                     camera: np.ndarray) -> list[float]:
    """The area (mm², cv2.contourArea's) of each row's `silhouette`: of the float32 hulls
    themselves, which hold the values silhouette's float64 copies do (a third of the
    time of converting each hull there and back)."""
    return [cv2.contourArea(cv2.convexHull(v)) for v in _rows_apparent_f32(kinds, sizes, params, camera)]


def _rows_apparent_f32(kinds: Sequence[str], sizes: Sequence[Size], params: np.ndarray,
                       camera: np.ndarray) -> np.ndarray:
    """Apparent vertices (N×5×2 float32) of pyramid rows of these kinds and sizes at params (N×3)."""
    models = [model(k, z) for k, z in zip(kinds, sizes)]
    if not models:
        return np.empty((0, 5, 2), np.float32)
    offsets = np.array([m.offsets for m in models])
    heights = np.array([m.heights for m in models])
    a = np.radians(params[:, 2])
    return _apparent_f32(offsets, heights, params[:, 0, None], params[:, 1, None],
                         np.cos(a)[:, None], np.sin(a)[:, None], camera)


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


@lru_cache(maxsize=256)
def piece_vertices(piece: Piece) -> np.ndarray:
    """A piece's vertices as table (x, y, height) rows (read only: kept for the same piece
    asked again, as the lamp's search and each shadow reading do, ~0.5 ms a frame)."""
    kind, params = piece_params(piece)
    m = model(kind, piece.size)
    out = np.column_stack([place(params[None], m.offsets[None])[0], m.heights])
    out.flags.writeable = False
    return out


def model_points_3d(piece: Piece) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """A piece's vertices as table (x, y, height) rows and its edges, for drawing."""
    faces = model(piece_params(piece)[0], piece.size).faces
    edges = {tuple(sorted((int(f[i]), int(f[(i + 1) % 4])))) for f in faces for i in range(4)
             if f[i] != f[(i + 1) % 4]}
    return piece_vertices(piece), sorted(edges)
