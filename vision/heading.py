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
from vision.geometry import FLAT, apparent_vertices, model, place

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
RAISED = [2, 4]
_PAIRS = {k: np.array([(i, j) for i in range(k) for j in range(i + 1, k)]) for k in (5, 7)}
# Finite-difference steps of (x, y, heading) for the Jacobian: mm, mm, degrees.
_STEP = np.array([0.02, 0.02, 0.02])


def hull_sdf(verts: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Signed distance (mm, negative inside) of points (N×K×2) to the convex hull of
    each row's vertices (N×V×2, V = 5 or 7; the apparent vertices: the silhouette): the
    largest signed distance to the hull's edge lines (exact inside, at most the true
    distance outside). The hull's edges are the vertex pairs (of distinct points) with
    every other vertex on one side of their line."""
    pairs = _PAIRS[verts.shape[1]]
    a, b = verts[:, pairs[:, 0]], verts[:, pairs[:, 1]]                    # N×P×2
    e = b - a
    length = np.hypot(e[..., 0], e[..., 1])
    n = np.stack([e[..., 1], -e[..., 0]], -1) / np.maximum(length, 1e-9)[..., None]
    c = np.sum(n * a, -1)
    side = n @ verts.transpose(0, 2, 1) - c[..., None]                      # N×P×V
    tol = 1e-6
    outward = np.all(side <= tol, -1)
    inward = np.all(side >= -tol, -1)
    sign = np.where(outward & (length > tol), 1.0, np.where(inward & (length > tol), -1.0, 0.0))
    # a pair that is no hull edge: its line pushed out of reach
    c = np.where(sign == 0, np.inf, c * sign)
    d = (n * sign[..., None]) @ points.transpose(0, 2, 1) - c[..., None]
    return d.max(axis=1)


def residuals(offsets: np.ndarray, heights: np.ndarray, params: np.ndarray, camera: np.ndarray,
              side: np.ndarray, points: np.ndarray, edge_offset: np.ndarray, shadow: np.ndarray | None = None,
              dark: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Signed distances (mm) of each row's outline points (N×K×2) to its model's
    silhouette, their derivatives by (x, y, heading) (N×K×3, central differences: one
    batch of 7 poses per row) and their weights (N×K): 0 for points on its open side
    (side: +1 left, −1 right, 0 none; N) inside the silhouette, SHADOW_WEIGHT for `dark`
    points (N×K) outside the silhouette but in its shadow zone, given the picture's
    shadow direction `shadow` (a unit vector, or None), 1 otherwise."""
    n = len(params)
    nudge = np.vstack([np.zeros(3), np.diag(_STEP), -np.diag(_STEP)])          # 7×3
    poses = (params[:, None] + nudge).reshape(-1, 3)
    verts = apparent_vertices(poses, np.repeat(offsets, 7, 0), np.repeat(heights, 7, 0), camera)
    d = hull_sdf(verts, np.repeat(points, 7, 0)).reshape(n, 7, -1) + edge_offset[:, None]
    r = d[:, 0]
    J = ((d[:, 1:4] - d[:, 4:7]) / (2 * _STEP[:, None])).transpose(0, 2, 1)
    a = np.radians(params[:, 2])
    across = np.stack([-np.sin(a), np.cos(a)], -1)                     # the heading's left
    on_side = np.sum((points - params[:, None, :2]) * across[:, None], -1) * side[:, None] > 0
    weight = ((r > 0) | ~on_side).astype(float)
    if shadow is not None and dark is not None:
        # a shadow starts at its caster: the zone is the silhouette and the raised
        # corners' feet moved along the shadow (the nose, on the table, casts none)
        reach = SHADOW_REACH * heights[:, RAISED]                               # N×2
        feet = place(params, offsets[:, RAISED]) + reach[..., None] * shadow
        zone = hull_sdf(np.concatenate([verts[::7], feet], 1), points) + edge_offset
        weight[(r > 0) & (zone <= 0) & dark] = SHADOW_WEIGHT
    return r, J, weight


def refine(sizes: list[Size], params: np.ndarray, camera: np.ndarray, points: np.ndarray, open_side: np.ndarray,
           edge_offset: np.ndarray, shadow: np.ndarray | None = None, dark: np.ndarray | None = None) -> np.ndarray:
    """(tail x, tail y, heading) rows (N×3) of flat pieces refit to their outline points
    (N×K×2 mm; `open_side` N×K where undecided pixels border them; the true edge
    `edge_offset` mm outside them, N) with the side where the camera sees a lateral face
    (if any) open inwards and points darker than the table (`dark`, N×K) in the shadow
    zone along the picture's shadow direction (`shadow`, unit vector or None) counting
    less: damped, robust Gauss-Newton, all pieces at once."""
    p = np.asarray(params, float).copy()
    if not len(p):
        return p
    grazing = np.array([grazing_faces(s, q, camera) for s, q in zip(sizes, p)])
    side = grazing[:, LEFT_FACE].astype(float) - grazing[:, RIGHT_FACE]
    pts, opn, eo = points, open_side, np.asarray(edge_offset, float)[:, None]
    models = [model(FLAT, s) for s in sizes]
    offsets, heights = np.array([m.offsets for m in models]), np.array([m.heights for m in models])

    def weights(r: np.ndarray, w: np.ndarray) -> np.ndarray:
        return fitting.point_weights(r, opn) * w

    def cost(r: np.ndarray, w: np.ndarray) -> np.ndarray:
        return np.sum(weights(r, w) * r * r, axis=1)

    lam = np.full(len(p), 1e-2)
    r, J, w = residuals(offsets, heights, p, camera, side, pts, eo, shadow, dark)
    for _ in range(ITERATIONS):
        Jw = J * weights(r, w)[..., None]
        A = Jw.transpose(0, 2, 1) @ J
        g = (Jw.transpose(0, 2, 1) @ r[..., None])[..., 0]
        A += (lam[:, None, None] * (np.einsum("nii->ni", A) + 1e-6)[:, :, None]) * np.eye(3)
        trial = p - np.linalg.solve(A, g[..., None])[..., 0]
        r1, J1, w1 = residuals(offsets, heights, trial, camera, side, pts, eo, shadow, dark)
        better = cost(r1, w1) <= cost(r, w)
        p[better], r[better], J[better], w[better] = trial[better], r1[better], J1[better], w1[better]
        lam = np.where(better, lam * 0.3, lam * 10)
    return p
