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

from typing import Sequence

import numpy as np

from domain import Piece, Pose, Size

# Hypothesis kinds: what a blob on the table could be.
UPRIGHT, FLAT, COIN = "upright", "flat", "coin"


def lift(points: np.ndarray, heights: np.ndarray, camera: np.ndarray) -> np.ndarray:
    """Where points `heights` mm above the table appear on the table plane, mm (…×2)."""
    scale = camera[2] / (camera[2] - heights)
    return camera[:2] + (points - camera[:2]) * scale[..., None]


def _rot(angle_deg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.radians(angle_deg)
    return np.stack([np.cos(a), np.sin(a)], -1), np.stack([-np.sin(a), np.cos(a)], -1)


def upright_vertices(params: np.ndarray, size: Size) -> tuple[np.ndarray, np.ndarray]:
    """(x, y, rotation) rows → the 4 base corners and apex (N×5×2) and their heights (5,)."""
    u, v = _rot(params[:, 2])
    c, h = params[:, None, :2], size.base / 2
    signs = np.array([(1, 1), (-1, 1), (-1, -1), (1, -1)], float)
    corners = c + h * (signs[None, :, :1] * u[:, None] + signs[None, :, 1:] * v[:, None])
    pts = np.concatenate([corners, c], axis=1)
    return pts, np.array([0, 0, 0, 0, size.height])


def flat_vertices(params: np.ndarray, size: Size) -> tuple[np.ndarray, np.ndarray]:
    """(tail x, tail y, heading) rows → tail-left, tail-right, raised-right, nose, raised-left
    (N×5×2, the order of domain.Piece.footprint) and their heights (5,)."""
    d, p = _rot(params[:, 2])
    t, h, f = params[:, :2], size.base / 2, size.flat_raised_offset
    pts = np.stack([t + h * p, t - h * p, t - h * p + f * d, t + size.slant * d, t + h * p + f * d], 1)
    r = size.flat_raised_height
    return pts, np.array([0, 0, r, 0, r])


# Faces as vertex indices (triangles repeat their last corner so every face has 4).
_UPRIGHT_FACES = np.array([[0, 1, 4, 4], [1, 2, 4, 4], [2, 3, 4, 4], [3, 0, 4, 4], [0, 1, 2, 3]])
_FLAT_FACES = np.array([[0, 1, 3, 3], [0, 1, 2, 4], [1, 2, 3, 3], [0, 4, 3, 3], [4, 2, 3, 3]])


def hypothesis_vertices(params: np.ndarray, kinds: Sequence[str], sizes: Sequence[Size],
                        camera: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Apparent vertices on the table plane (N×5×2, mm) of each hypothesis row, and its
    faces as vertex indices (N×5×4). Coin rows get zeros (see `coin_sdf`)."""
    verts = np.zeros((len(params), 5, 2))
    faces = np.zeros((len(params), 5, 4), int)
    for kind, size in {(k, s) for k, s in zip(kinds, sizes) if k != COIN}:
        rows = np.array([i for i, (k, s) in enumerate(zip(kinds, sizes)) if k == kind and s == size])
        make, idx = (upright_vertices, _UPRIGHT_FACES) if kind == UPRIGHT else (flat_vertices, _FLAT_FACES)
        pts, heights = make(params[rows], size)
        verts[rows] = lift(pts, np.broadcast_to(heights, pts.shape[:2]), camera)
        faces[rows] = idx
    return verts, faces


def hypothesis_faces(params: np.ndarray, kinds: Sequence[str], sizes: Sequence[Size],
                     camera: np.ndarray) -> np.ndarray:
    """Apparent faces on the table plane (N×5×4×2, mm) of each hypothesis row."""
    verts, faces = hypothesis_vertices(params, kinds, sizes, camera)
    return verts[np.arange(len(verts))[:, None, None], faces]


def _edge_normals(a: np.ndarray, b: np.ndarray, orient: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Outward unit normals of edges a→b of faces with the given orientation sign, and lengths."""
    e = b - a
    length = np.hypot(e[..., 0], e[..., 1])
    with np.errstate(invalid="ignore", divide="ignore"):
        n = np.stack([e[..., 1], -e[..., 0]], -1) * (orient / length)[..., None]
    return n, length


def model_sdf(faces: np.ndarray, points: np.ndarray, active: bool = False):
    """Signed distance (mm, negative inside) from points (N×K×2) to each hypothesis's
    silhouette (N×F×4×2), approximated as min over faces of max over edge half-planes.

    With `active`, also returns which face and edge decide each distance (N×K each) and
    the faces' orientation signs (N×F), for `active_sdf`.
    """
    a = faces
    b = np.roll(faces, -1, axis=2)
    area2 = np.sum(a[..., 0] * b[..., 1] - b[..., 0] * a[..., 1], axis=2)  # N×F, twice the area
    orient = np.where(area2 >= 0, 1.0, -1.0)
    n, length = _edge_normals(a, b, orient[..., None])
    q = points[:, None, None, :, :]                                # N×1×1×K×2
    s = np.sum((q - a[..., None, :]) * n[..., None, :], axis=-1)   # N×F×4×K
    s = np.where((length > 1e-9)[..., None], s, -np.inf)           # repeated corner: no edge
    edge = s.argmax(axis=2)                                        # N×F×K
    face = np.take_along_axis(s, edge[:, :, None], axis=2)[:, :, 0]
    face = np.where((np.abs(area2) > 1e-6)[..., None], face, np.inf)  # edge-on face
    best = face.argmin(axis=1)                                     # N×K
    sdf = np.take_along_axis(face, best[:, None], axis=1)[:, 0]
    if not active:
        return sdf
    return sdf, best, np.take_along_axis(edge, best[:, None], axis=1)[:, 0], orient


def active_sdf(verts: np.ndarray, faces: np.ndarray, points: np.ndarray, face: np.ndarray,
               edge: np.ndarray, orient: np.ndarray) -> np.ndarray:
    """`model_sdf` with each point's deciding face and edge held fixed: the cheap local
    form used for derivatives (N×K)."""
    rows = np.arange(len(verts))[:, None]
    i0 = faces[rows, face, edge]
    i1 = faces[rows, face, (edge + 1) % 4]
    a, b = verts[rows, i0], verts[rows, i1]
    n, _ = _edge_normals(a, b, orient[rows, face])
    return np.sum((points - a) * n, axis=-1)


def coin_sdf(params: np.ndarray, radius: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Signed distance from points (N×K×2) to circles (x, y) of the given radii (N)."""
    return np.hypot(points[..., 0] - params[:, None, 0], points[..., 1] - params[:, None, 1]) - radius[:, None]


def silhouette(kind: str, size: Size, params: Sequence[float], camera: np.ndarray) -> np.ndarray:
    """The apparent outline (convex polygon, M×2 mm) of one pyramid hypothesis."""
    import cv2  # local: geometry stays usable without OpenCV for doctests of the maths
    make = upright_vertices if kind == UPRIGHT else flat_vertices
    pts, heights = make(np.asarray(params, float)[None], size)
    app = lift(pts[0], heights, camera)
    return cv2.convexHull(app.astype(np.float32)).reshape(-1, 2).astype(float)


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
    make = upright_vertices if kind == UPRIGHT else flat_vertices
    pts, heights = make(params[None], piece.size)
    faces = _UPRIGHT_FACES if kind == UPRIGHT else _FLAT_FACES
    edges = {tuple(sorted((int(f[i]), int(f[(i + 1) % 4])))) for f in faces for i in range(4) if f[i] != f[(i + 1) % 4]}
    return np.column_stack([pts[0], heights]), sorted(edges)


def footprint_area(kind: str, size: Size) -> float:
    """Area of the table contact outline seen from above, mm²."""
    make = upright_vertices if kind == UPRIGHT else flat_vertices
    pts = make(np.zeros((1, 3)), size)[0][0]
    if kind == UPRIGHT:
        pts = pts[:4]
    x, y = pts[:, 0], pts[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))

