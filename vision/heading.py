"""A flat piece's heading (and position) refit with the camera's side of it left open.

Lying flat, a pyramid's two lateral faces (tail corner, raised corner, nose) are steep:
they lean out past the vertical by ~4°, so an overhead camera sees at most one, the one
on its side, and always at grazing incidence. There the plastic mirrors the room
(Fresnel reflection rises steeply past 60°) and looks pale, often as pale as the
table, and the colour fades towards that face's ridge too: the blob's edge on the
camera's side lies anywhere from the face's foot on the table (the model's outline)
to a few mm inside it, widest at the tail where the face is tallest. The fit
(vision.fit), which lays the model's outline on every outline point, turns the model
towards the colour it sees: ~1.5° towards the camera's side when it is off to one side.

Here the pose is refit with the outline points on the camera's side of the piece's axis
counted only where they lie outside the model (an edge there bounds the piece from
outside, never from inside); the far side (the top face's ridge against the table,
seen squarely), the nose and the tail decide the heading.

The points lie on the blob's own contour (vision.parts.Part.contour), not on its
convex hull: a shadow or a speck joined to the piece is then a local bump whose points
lie far from the model (the robust loss discounts them), where the hull would bridge
it to the rest of the outline with straight edges that tilt the whole side.
"""

from __future__ import annotations

import math

import numpy as np

from domain import Size
from vision import fit as fitting
from vision import heading_kernels as kernels
from vision.geometry import FLAT, model

# A face seen at more than this angle of incidence (between its normal and the ray to
# the camera) is grazing: unpolarised Fresnel reflectance of plastic (n ≈ 1.5) is ~9 %
# at 60° and rises steeply after (~18 % at 70°, ~40 % at 80°), as bright as the
# coloured light the plastic sends back in its weak channels.
GRAZING_DEG = 60.0
# The flat model's lateral faces (vision.geometry.model): right (tail-right, raised-right,
# nose) and left (tail-left, raised-left, nose).
RIGHT_FACE, LEFT_FACE = 2, 3
# Outline points per piece: one every ~1-1.5 mm of a piece's outline.
POINTS = 96
ITERATIONS = 3


def _face_normals(size: Size) -> tuple[np.ndarray, np.ndarray]:
    """Outward unit normals of a flat model's faces in its own frame (5×3), and a corner
    of each (5×3)."""
    m = model(FLAT, size)
    v = np.column_stack([m.offsets, m.heights])
    centre = v.mean(axis=0)
    a, b, c = v[m.faces[:, 0]], v[m.faces[:, 1]], v[m.faces[:, 2]]
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    n *= np.sign(np.sum(n * (a - centre), axis=1))[:, None]
    return n, a


_NORMALS = {s: _face_normals(s) for s in Size}


def grazing_faces(size: Size, params: np.ndarray, camera: np.ndarray) -> np.ndarray:
    """Which faces (5 bools) of a flat piece at (tail x, tail y, heading) the camera
    sees at grazing incidence."""
    normals, corners = _NORMALS[size]
    a = math.radians(float(params[2]))
    c, s = math.cos(a), math.sin(a)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    ray = camera - (corners @ rot.T + [params[0], params[1], 0.0])
    cos_inc = np.sum((normals @ rot.T) * ray, axis=1) / np.linalg.norm(ray, axis=1)
    return (cos_inc > 0) & (cos_inc < math.cos(math.radians(GRAZING_DEG)))


# The shadow zone (see `residuals`): the silhouette swept along the picture's shadow
# direction by this fraction of the raised corners' height. The part of a shadow dark
# enough to join the blob is its umbra next to the caster (the penumbra widens with the
# distance from it): about half the shadow of a lamp 45° high.
SHADOW_REACH = 0.5
# Outline points darker than the bare table (below vision.shadows.SHADE_LOG), outside
# the model and inside its shadow zone are likely shadow: their weight in the (robust)
# cost is this much. The discount multiplies the weight, not the distance: a shadow
# lump 5 mm beyond the model is still 5 mm away, and the robust loss must see that.
SHADOW_WEIGHT = 0.09
# The flat model's raised corners (vision.geometry.model), the tallest points.
RAISED = np.array([2, 4])
# Finite-difference steps of (x, y, heading) for the Jacobian: mm, mm, degrees; the
# seven poses a row's residuals are worked out at (its own, each coordinate up, down).
_STEP = np.array([0.02, 0.02, 0.02])
_NUDGE = np.vstack([np.zeros(3), np.diag(_STEP), -np.diag(_STEP)])
_NO_SHADOW = np.zeros(0)


def hull_sdf(verts: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Signed distance (mm, negative inside) of points (N×K×2) to the convex hull of
    each row's vertices (N×V×2; the apparent vertices: the silhouette): the largest
    signed distance to the hull's edge lines (exact inside, at most the true distance
    outside), compiled (vision.heading_kernels)."""
    out = np.empty(points.shape[:2])
    for n in range(len(verts)):
        kernels.hull_sdf(np.ascontiguousarray(verts[n], float), verts.shape[1],
                         np.ascontiguousarray(points[n], float), 0.0, out[n])
    return out


def residuals(offsets: np.ndarray, heights: np.ndarray, params: np.ndarray, camera: np.ndarray,
              side: np.ndarray, points: np.ndarray, edge_offset: np.ndarray, shadow: np.ndarray | None = None,
              dark: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Signed distances (mm) of each row's outline points (N×K×2) to its model's
    silhouette, their derivatives by (x, y, heading) (N×K×3, central differences: 7
    poses per row) and their weights (N×K): 0 for points on its open side (side: +1
    left, −1 right, 0 none; N) inside the silhouette, SHADOW_WEIGHT for `dark` points
    (N×K) outside the silhouette but in its shadow zone, given the picture's shadow
    direction `shadow` (a unit vector, or None), 1 otherwise. Compiled
    (vision.heading_kernels), row by row."""
    n, k = points.shape[:2]
    r, J, w = np.empty((n, k)), np.empty((n, k, 3)), np.empty((n, k))
    shadow, dark = _shadow_args(shadow, dark, (n, k))
    verts, d = np.empty((offsets.shape[1] + len(RAISED), 2)), np.empty((kernels.POSES, k))
    for i in range(n):
        kernels.residuals(*_row_args(offsets, heights, params, camera, side, points, edge_offset, shadow, dark, i),
                          verts, d, r[i], J[i], w[i])
    return r, J, w


def _shadow_args(shadow: np.ndarray | None, dark: np.ndarray | None, shape: tuple[int, int]) -> tuple[np.ndarray, ...]:
    """The kernels' shadow direction (none: no length) and dark points."""
    if shadow is None or dark is None:
        return _NO_SHADOW, np.zeros(shape, bool)
    return np.asarray(shadow, float), np.ascontiguousarray(dark, bool)


def _row_args(offsets, heights, params, camera, side, points, edge_offset, shadow, dark, i) -> tuple:
    """kernels.residuals' arguments for row i, in fixed types (it compiles once)."""
    return (np.ascontiguousarray(offsets[i], float), np.ascontiguousarray(heights[i], float),
            np.ascontiguousarray(params[i], float), np.asarray(camera, float), float(side[i]),
            np.ascontiguousarray(points[i], float), float(np.asarray(edge_offset).reshape(-1)[i]), shadow, dark[i],
            RAISED, _NUDGE, SHADOW_REACH, SHADOW_WEIGHT)


def refine(sizes: list[Size], params: np.ndarray, camera: np.ndarray, points: np.ndarray, open_side: np.ndarray,
           edge_offset: np.ndarray, shadow: np.ndarray | None = None, dark: np.ndarray | None = None) -> np.ndarray:
    """(tail x, tail y, heading) rows (N×3) of flat pieces refit to their outline points
    (N×K×2 mm; `open_side` N×K where undecided pixels border them; the true edge
    `edge_offset` mm outside them, N) with the side where the camera sees a lateral face
    (if any) open inwards and points darker than the table (`dark`, N×K) in the shadow
    zone along the picture's shadow direction (`shadow`, unit vector or None) counting
    less: damped, robust Gauss-Newton (ITERATIONS steps, each taken only if it lowers
    the cost), compiled (vision.heading_kernels)."""
    p = np.asarray(params, float).copy()
    if not len(p):
        return p
    grazing = np.array([grazing_faces(s, q, camera) for s, q in zip(sizes, p)])
    side = grazing[:, LEFT_FACE].astype(float) - grazing[:, RIGHT_FACE]
    models = [model(FLAT, s) for s in sizes]
    offsets, heights = np.array([m.offsets for m in models]), np.array([m.heights for m in models], float)
    shadow, dark = _shadow_args(shadow, dark, points.shape[:2])
    kernels.refine(offsets, heights, p, np.asarray(camera, float), side, np.ascontiguousarray(points, float),
                   np.ascontiguousarray(open_side, bool), np.asarray(edge_offset, float).reshape(-1), shadow, dark,
                   RAISED, _NUDGE, SHADOW_REACH, SHADOW_WEIGHT, float(fitting.ROBUST_MM), float(fitting.OPEN_WEIGHT),
                   ITERATIONS)
    return p
