"""vision.heading's refit of flat pieces, compiled (numba): each piece's damped, robust
Gauss-Newton in one loop — its seven poses' apparent vertices, the outline points'
signed distances to their hulls, the derivatives, the weights, the normal equations and
their 3×3 solve — instead of numpy passes over stacks of every piece's poses and
points, BLAS's small products and LAPACK's solves.

The same formulas as the numpy code they replaced; its sums and its solve (Gaussian
elimination, partial pivoting) in their own order, so the poses are within rounding of
numpy's, not bit for bit (docs/detection-speed.md). Every kernel a kernel calls is in
this file: numba's cache notices changes to a kernel's own file only.
"""

from __future__ import annotations

import math

import numpy as np

from vision.compiled import jit

# A vertex pair closer than this (mm), or a vertex off a pair's line by less, is on it.
HULL_TOL = 1e-6
# The seven poses of a row: the row's, then each of (x, y, heading) nudged up, then down.
POSES = 7


@jit()
def apparent(offsets, heights, x, y, angle, camera, out):
    """Where a model's vertices (offsets V×2 in its frame, heights V) appear on the
    table for a pose (x, y, angle in degrees), into out (V×2), as
    geometry.apparent_vertices works them out."""
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    for v in range(offsets.shape[0]):
        px = x + offsets[v, 0] * c - offsets[v, 1] * s
        py = y + offsets[v, 0] * s + offsets[v, 1] * c
        scale = camera[2] / (camera[2] - heights[v])
        out[v, 0] = camera[0] + (px - camera[0]) * scale
        out[v, 1] = camera[1] + (py - camera[1]) * scale


@jit()
def hull_sdf(verts, n_verts, points, edge_offset, out):
    """Signed distance (mm, negative inside) of points (K×2) to the convex hull of the
    first n_verts of verts, plus edge_offset, into out (K): the largest signed distance
    to the hull's edge lines (exact inside, at most the true distance outside). The
    hull's edges are the pairs of distinct vertices with every other on one side."""
    for k in range(points.shape[0]):
        out[k] = -math.inf
    for i in range(n_verts):
        for j in range(i + 1, n_verts):
            ex, ey = verts[j, 0] - verts[i, 0], verts[j, 1] - verts[i, 1]
            length = math.hypot(ex, ey)
            if not length > HULL_TOL:
                continue
            nx, ny = ey / length, -ex / length
            c = nx * verts[i, 0] + ny * verts[i, 1]
            outward = inward = True
            for v in range(n_verts):
                side = nx * verts[v, 0] + ny * verts[v, 1] - c
                outward = outward and side <= HULL_TOL
                inward = inward and side >= -HULL_TOL
            if not (outward or inward):
                continue   # no edge of the hull
            sign = 1.0 if outward else -1.0
            for k in range(points.shape[0]):
                out[k] = max(out[k], (nx * sign) * points[k, 0] + (ny * sign) * points[k, 1] - c * sign)
    for k in range(points.shape[0]):
        out[k] += edge_offset


@jit()
def residuals(offsets, heights, params, camera, side, points, edge_offset, shadow, dark, raised, nudge,
              shadow_reach, shadow_weight, verts, d, r, J, w):
    """One row's vision.heading.residuals: the signed distances of its outline points
    (K×2) to its silhouette (into r, K), their derivatives by (x, y, heading) from the
    POSES nudged poses (`nudge`, 7×3; into J, K×3) and their weights (into w, K): 0
    on the open `side` (+1 left, −1 right, 0 none) inside the silhouette, shadow_weight
    for `dark` points outside it in the shadow zone (the silhouette and the `raised`
    corners' feet moved shadow_reach of their height along `shadow`, a unit vector, or
    none if it has no length), 1 otherwise. Scratch: verts (V+2 × 2), d (POSES × K)."""
    n_v = offsets.shape[0]
    for j in range(POSES):
        apparent(offsets, heights, params[0] + nudge[j, 0], params[1] + nudge[j, 1], params[2] + nudge[j, 2],
                 camera, verts)
        hull_sdf(verts, n_v, points, edge_offset, d[j])
    a = math.radians(params[2])
    across_x, across_y = -math.sin(a), math.cos(a)   # the heading's left
    for k in range(points.shape[0]):
        r[k] = d[0, k]
        for i in range(3):
            J[k, i] = (d[1 + i, k] - d[4 + i, k]) / (2 * nudge[1 + i, i])
        on_side = ((points[k, 0] - params[0]) * across_x + (points[k, 1] - params[1]) * across_y) * side > 0
        w[k] = 1.0 if r[k] > 0 or not on_side else 0.0
    if shadow.shape[0] == 0:
        return
    # a shadow starts at its caster: the zone is the silhouette and the raised corners'
    # feet moved along the shadow (the nose, on the table, casts none)
    apparent(offsets, heights, params[0], params[1], params[2], camera, verts)
    c, s = math.cos(a), math.sin(a)
    for q in range(raised.shape[0]):
        v = raised[q]
        reach = shadow_reach * heights[v]
        verts[n_v + q, 0] = params[0] + offsets[v, 0] * c - offsets[v, 1] * s + reach * shadow[0]
        verts[n_v + q, 1] = params[1] + offsets[v, 0] * s + offsets[v, 1] * c + reach * shadow[1]
    hull_sdf(verts, n_v + raised.shape[0], points, edge_offset, d[0])
    for k in range(points.shape[0]):
        if r[k] > 0 and d[0, k] <= 0 and dark[k]:
            w[k] = shadow_weight


@jit()
def _cost(r, w, open_side, robust, open_weight, wts):
    """The robust cost of residuals r weighted w (vision.fit.point_weights), and the
    weights (into wts)."""
    total = 0.0
    for k in range(r.shape[0]):
        wts[k] = (open_weight if open_side[k] and r[k] < 0 else 1.0) / (1.0 + (r[k] / robust) ** 2) * w[k]
        total += wts[k] * r[k] * r[k]
    return total


@jit()
def _solve3(A, g, out):
    """A⁻¹g for a 3×3 A (Gaussian elimination with partial pivoting; A and g are
    overwritten), into out."""
    for col in range(3):
        pivot = col
        for row in range(col + 1, 3):
            if abs(A[row, col]) > abs(A[pivot, col]):
                pivot = row
        if pivot != col:
            for k in range(3):
                A[col, k], A[pivot, k] = A[pivot, k], A[col, k]
            g[col], g[pivot] = g[pivot], g[col]
        for row in range(col + 1, 3):
            f = A[row, col] / A[col, col]
            for k in range(col, 3):
                A[row, k] -= f * A[col, k]
            g[row] -= f * g[col]
    for row in range(2, -1, -1):
        v = g[row]
        for k in range(row + 1, 3):
            v -= A[row, k] * out[k]
        out[row] = v / A[row, row]


@jit()
def refine(offsets, heights, params, camera, side, points, open_side, edge_offset, shadow, dark, raised, nudge,
           shadow_reach, shadow_weight, robust, open_weight, iterations):
    """vision.heading.refine's damped, robust Gauss-Newton, row by row (params N×3 are
    refit in place; offsets N×V×2, heights N×V, side N, points N×K×2, open_side and
    dark N×K, edge_offset N; `residuals` says the rest)."""
    n_points, n_v = points.shape[1], offsets.shape[1]
    verts = np.empty((n_v + raised.shape[0], 2))
    d = np.empty((POSES, n_points))
    r, r1, w, w1, wts = np.empty(n_points), np.empty(n_points), np.empty(n_points), np.empty(n_points), \
        np.empty(n_points)
    J, J1 = np.empty((n_points, 3)), np.empty((n_points, 3))
    A, g, step, trial = np.empty((3, 3)), np.empty(3), np.empty(3), np.empty(3)
    for n in range(params.shape[0]):
        p = params[n]
        residuals(offsets[n], heights[n], p, camera, side[n], points[n], edge_offset[n], shadow, dark[n], raised,
                  nudge, shadow_reach, shadow_weight, verts, d, r, J, w)
        lam = 1e-2
        for _ in range(iterations):
            cost = _cost(r, w, open_side[n], robust, open_weight, wts)
            for i in range(3):
                g[i] = 0.0
                for j in range(3):
                    A[i, j] = 0.0
            for k in range(n_points):
                for i in range(3):
                    jw = J[k, i] * wts[k]
                    g[i] += jw * r[k]
                    for j in range(3):
                        A[i, j] += jw * J[k, j]
            for i in range(3):
                A[i, i] += lam * (A[i, i] + 1e-6)
            _solve3(A, g, step)
            for i in range(3):
                trial[i] = p[i] - step[i]
            residuals(offsets[n], heights[n], trial, camera, side[n], points[n], edge_offset[n], shadow, dark[n],
                      raised, nudge, shadow_reach, shadow_weight, verts, d, r1, J1, w1)
            if _cost(r1, w1, open_side[n], robust, open_weight, wts) <= cost:
                p[:] = trial
                r[:], J[:], w[:] = r1, J1, w1
                lam *= 0.3
            else:
                lam *= 10
