"""The model fits' damped robust Gauss-Newton (vision.fit), compiled: row by row (each
hypothesis on its own), point by point, instead of numpy passes over all rows at once.

The arithmetic of the numpy version it replaced (docs/detection-speed.md): the same
residuals, analytic Jacobian, constants, refresh schedule and early stop; the costs that
decide whether a step is taken summed in numpy's order; only the normal equations and
the 3×3 solve round in their own order (numpy's went to BLAS and LAPACK).

A row's model: its 5 vertices' offsets from the anchor (along, across, mm) and heights,
its 5 faces as vertex indices (triangles repeat their last corner); a coin row has a
radius instead (and keeps its angle). Every kernel a kernel calls is in this file:
numba's cache notices changes to a kernel's own file only. The per-row functions that
take tuples of arrays are inlined: a call takes and drops a reference to each array
(atomic operations), ~0.6 µs a step; inlined, the fits take 2.0 ms a frame, not 2.7.
"""

from __future__ import annotations

import math

import numpy as np

from vision.compiled import jit

DEG = math.pi / 180          # np.radians' factor
FLOAT_MAX = np.finfo(np.float64).max   # np.nan_to_num's stand-in for an infinity
# numpy's pairwise summation: blocks of this many values, summed 8 at a time
PAIRWISE_BLOCK = 128
# Nothing there: an edge of a repeated corner, a point at a coin's centre (length, mm);
# a face seen edge-on (twice its area, mm²).
NEAR_ZERO_MM = 1e-9
FACE_MIN_MM2 = 1e-6
# Below this squared length (mm²) an edge has no normal in the Jacobian.
EDGE_MIN_MM2 = 1e-18
# Levenberg-Marquardt damping: its start, and its factors after a kept / refused step;
# the floor keeps a parameter no point pins (a coin's angle) from a singular system.
DAMPING = 1e-2
DAMPING_FLOOR = 1e-6
DAMPING_KEPT, DAMPING_REFUSED = 0.3, 10.0
# Every row stops when each kept step moved it less than this (mm, degrees) at a refresh.
STEP_DONE = 1e-3
# A residual that is not a number costs as much as this one (mm).
NAN_COST_MM = 1e3


@jit()
def _finite(x, nan):
    """np.nan_to_num of one value."""
    if x != x:
        return nan
    if x == np.inf:
        return FLOAT_MAX
    if x == -np.inf:
        return -FLOAT_MAX
    return x


@jit()
def _pairwise_block(a, start, n):
    """a[start:start + n].sum() in numpy's order for n <= PAIRWISE_BLOCK: 8 running sums."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[start + i]
        return res
    r0, r1, r2, r3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    r4, r5, r6, r7 = a[start + 4], a[start + 5], a[start + 6], a[start + 7]
    i = 8
    while i < n - n % 8:
        k = start + i
        r0 += a[k]
        r1 += a[k + 1]
        r2 += a[k + 2]
        r3 += a[k + 3]
        r4 += a[k + 4]
        r5 += a[k + 5]
        r6 += a[k + 6]
        r7 += a[k + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[start + i]
        i += 1
    return res


@jit()
def pairwise_sum(a, n):
    """a[:n].sum() in numpy's order: blocks summed by `_pairwise_block`, halves (cut at a
    multiple of 8) added. Without recursion: numba's cache cannot load recursive kernels."""
    if n <= PAIRWISE_BLOCK:
        return _pairwise_block(a, 0, n)
    # post-order walk of the halving tree: tasks (start, count, halves summed?), values
    tasks = np.empty((64, 3), np.int64)
    values = np.empty(64)
    tasks[0, 0], tasks[0, 1], tasks[0, 2] = 0, n, 0
    top, n_values = 1, 0
    while top:
        top -= 1
        start, count, joined = tasks[top, 0], tasks[top, 1], tasks[top, 2]
        if joined:
            n_values -= 1
            values[n_values - 1] += values[n_values]
        elif count <= PAIRWISE_BLOCK:
            values[n_values] = _pairwise_block(a, start, count)
            n_values += 1
        else:
            half = count // 2
            half -= half % 8
            tasks[top, 2] = 1
            tasks[top + 1, 0], tasks[top + 1, 1], tasks[top + 1, 2] = start + half, count - half, 0
            tasks[top + 2, 0], tasks[top + 2, 1], tasks[top + 2, 2] = start, half, 0
            top += 3
    return values[0]


@jit()
def vertices(p, offsets, heights, camera, verts, scale, turn):
    """Where a row's vertices appear on the table plane (5×2 into `verts`) and how they
    move: by x and y `scale` times as far as their foot (h mm up: Hc/(Hc − h)), by the
    angle (a degree) `turn` (5×2)."""
    a = p[2] * DEG
    c, s = math.cos(a), math.sin(a)
    for v in range(offsets.shape[0]):
        sc = camera[2] / (camera[2] - heights[v])
        along_c, across_s = offsets[v, 0] * c, offsets[v, 1] * s
        along_s, across_c = offsets[v, 0] * s, offsets[v, 1] * c
        verts[v, 0] = camera[0] + (p[0] + along_c - across_s - camera[0]) * sc
        verts[v, 1] = camera[1] + (p[1] + along_s + across_c - camera[1]) * sc
        t = sc * DEG
        turn[v, 0] = -(along_s + across_c) * t
        turn[v, 1] = (along_c - across_s) * t
        scale[v] = sc


@jit()
def face_edges(corners, edges, orient):
    """Each face's (F×4×2 corners) edges as outward unit normal and offset (F×4×3, the
    normal's NaNs cleared) and its orientation sign (F). A repeated corner is no edge
    (offset inf: never a face's largest distance), a face seen edge-on no face (−inf:
    never the nearest)."""
    for f in range(corners.shape[0]):
        area2 = 0.0
        for i in range(4):
            j = (i + 1) % 4
            area2 += corners[f, i, 0] * corners[f, j, 1] - corners[f, j, 0] * corners[f, i, 1]
        o = 1.0 if area2 >= 0 else -1.0
        orient[f] = o
        for i in range(4):
            j = (i + 1) % 4
            ex, ey = corners[f, j, 0] - corners[f, i, 0], corners[f, j, 1] - corners[f, i, 1]
            length = math.hypot(ex, ey)
            k = o / length
            nx, ny = _finite(ey * k, 0.0), _finite(-ex * k, 0.0)
            offset = corners[f, i, 0] * nx + corners[f, i, 1] * ny
            if length <= NEAR_ZERO_MM:
                offset = np.inf
            if abs(area2) <= FACE_MIN_MM2:
                offset = -np.inf
            edges[f, i, 0], edges[f, i, 1], edges[f, i, 2] = nx, ny, offset


@jit()
def silhouette_distances(edges, points, edge_offset, r, face, edge, edge_max, edge_arg):
    """Signed distance (mm, negative inside) of points (K×2) to the silhouette, the union
    of convex faces (`face_edges`): min over faces of the max over a face's edge
    half-planes, ties to the first; plus `edge_offset`, into r (K). Which face and edge
    decide each point's distance go into `face`, `edge` (K). Face by face and edge by
    edge over all points, so the compiler vectorises the loops (`edge_max`, `edge_arg`:
    K of scratch); a repeated corner (offset inf, distance −inf) is never the max."""
    n = points.shape[0]
    for f in range(edges.shape[0]):
        nx, ny, off = edges[f, 0, 0], edges[f, 0, 1], edges[f, 0, 2]
        for k in range(n):
            edge_max[k] = points[k, 0] * nx + points[k, 1] * ny - off
            edge_arg[k] = 0
        for i in range(1, 4):
            nx, ny, off = edges[f, i, 0], edges[f, i, 1], edges[f, i, 2]
            if off == np.inf:
                continue
            for k in range(n):
                s = points[k, 0] * nx + points[k, 1] * ny - off
                if s > edge_max[k]:
                    edge_max[k], edge_arg[k] = s, i
        for k in range(n):
            if f == 0 or edge_max[k] < r[k]:
                r[k], face[k], edge[k] = edge_max[k], f, edge_arg[k]
    for k in range(n):
        r[k] += edge_offset


@jit()
def model_sdf(faces, points):
    """`silhouette_distances` of points (N×K×2) to each row's faces (N×F×4×2 corners), N×K."""
    n_rows, n_points = points.shape[0], points.shape[1]
    out = np.empty((n_rows, n_points))
    edges, orient = np.empty((faces.shape[1], 4, 3)), np.empty(faces.shape[1])
    face, edge = np.empty(n_points, np.int64), np.empty(n_points, np.int64)
    edge_max, edge_arg = np.empty(n_points), np.empty(n_points, np.int64)
    for n in range(n_rows):
        face_edges(faces[n], edges, orient)
        silhouette_distances(edges, points[n], 0.0, out[n], face, edge, edge_max, edge_arg)
    return out


@jit()
def _local(verts, scale, turn, faces, orient, points, face, edge, edge_offset, r, J):
    """`silhouette_distances` with each point's deciding face and edge held (the cheap
    local form, into r) and its derivatives by (x, y, angle) (K×3 into J): the distance
    r = (p − a)·n to the deciding edge a→b moves with a and with the edge's unit normal
    n = orient·(e_y, −e_x)/|e|, e = b − a:
    dr = −da·n + (p − a)·perp(de)·orient/|e| − r·(e·de)/|e|²."""
    for k in range(points.shape[0]):
        f = face[k]
        i0, i1 = faces[f, edge[k]], faces[f, (edge[k] + 1) % 4]
        ax, ay = verts[i0, 0], verts[i0, 1]
        ex, ey = verts[i1, 0] - ax, verts[i1, 1] - ay
        length2 = ex * ex + ey * ey
        inv = orient[f] / math.sqrt(length2) if length2 > EDGE_MIN_MM2 else 0.0
        inv2 = inv * inv                                  # 1/|e|², 0 on a repeated corner
        qx, qy = points[k, 0] - ax, points[k, 1] - ay
        nx, ny = ey * inv, -ex * inv
        d = qx * nx + qy * ny
        # x and y move both ends alike, scaled by their lift; the angle turns them
        s0 = scale[i0]
        ds = scale[i1] - s0
        t0x, t0y = turn[i0, 0], turn[i0, 1]
        dtx, dty = turn[i1, 0] - t0x, turn[i1, 1] - t0y
        J[k, 0] = -s0 * nx - ds * (qy * inv + d * ex * inv2)
        J[k, 1] = -s0 * ny + ds * (qx * inv - d * ey * inv2)
        J[k, 2] = -(t0x * nx + t0y * ny) + (qx * dty - qy * dtx) * inv - d * (ex * dtx + ey * dty) * inv2
        r[k] = d + edge_offset


@jit()
def _coin(p, radius, points, edge_offset, r, J):
    """Signed distance of points (K×2) to a coin's circle (into r) and, unless J is
    empty, its derivatives by (x, y, angle: none)."""
    for k in range(points.shape[0]):
        dx, dy = points[k, 0] - p[0], points[k, 1] - p[1]
        dist = math.hypot(dx, dy)
        r[k] = dist - radius + edge_offset
        if J.shape[0]:
            along = dist if dist > NEAR_ZERO_MM else np.inf
            J[k, 0], J[k, 1], J[k, 2] = -dx / along, -dy / along, 0.0


@jit(inline="always")
def _full(n, p, model, data, scratch, r, face, edge, orient):
    """Row n's residuals at parameters p with the deciding faces and edges found anew
    (into r, face, edge, orient)."""
    offsets, heights, faces, radius = model
    points, _, camera, edge_offset = data
    verts, scale, turn, corners, edges, edge_max, edge_arg = scratch[:7]
    if radius[n] > 0:
        _coin(p, radius[n], points[n], edge_offset[n], r, np.empty((0, 3)))
        return
    vertices(p, offsets[n], heights[n], camera, verts, scale, turn)
    for f in range(faces.shape[1]):
        for i in range(4):
            corners[f, i, 0], corners[f, i, 1] = verts[faces[n, f, i], 0], verts[faces[n, f, i], 1]
    face_edges(corners, edges, orient)
    silhouette_distances(edges, points[n], edge_offset[n], r, face, edge, edge_max, edge_arg)


@jit(inline="always")
def _jacobian(n, p, model, data, scratch, face, edge, orient, r, J):
    """Row n's local residuals (into r) and Jacobian (into J) at p with the deciding faces
    and edges given."""
    offsets, heights, faces, radius = model
    points, _, camera, edge_offset = data
    verts, scale, turn = scratch[:3]
    if radius[n] > 0:
        _coin(p, radius[n], points[n], edge_offset[n], r, J)
        return
    vertices(p, offsets[n], heights[n], camera, verts, scale, turn)
    _local(verts, scale, turn, faces[n], orient, points[n], face, edge, edge_offset[n], r, J)


@jit(inline="always")
def _cost(w, r, terms):
    """Σ w·r² (a NaN residual costing NAN_COST_MM), summed as numpy sums."""
    for k in range(r.shape[0]):
        x = _finite(r[k], NAN_COST_MM)
        terms[k] = w[k] * (x * x)
    return pairwise_sum(terms, r.shape[0])


@jit()
def _solve3(A, g, out):
    """out = A⁻¹·g for a 3×3 A (overwritten): LU with partial pivoting, as LAPACK's."""
    for j in range(3):
        piv = j
        for i in range(j + 1, 3):
            if abs(A[i, j]) > abs(A[piv, j]):
                piv = i
        if piv != j:
            for c in range(3):
                A[j, c], A[piv, c] = A[piv, c], A[j, c]
            g[j], g[piv] = g[piv], g[j]
        inv = 1.0 / A[j, j]
        for i in range(j + 1, 3):
            A[i, j] *= inv
            for c in range(j + 1, 3):
                A[i, c] -= A[i, j] * A[j, c]
            g[i] -= A[i, j] * g[j]
    for j in range(2, -1, -1):
        out[j] = g[j] / A[j, j]
        for i in range(j):
            g[i] -= out[j] * A[i, j]


@jit(inline="always")
def _step(n, refresh, last, params, lam, steps, state, trial_state, model, data, scratch, robust):
    """One damped Gauss-Newton step of row n, taken if it costs no more (weighed as the
    current residuals are: `robust` is vision.fit's (ROBUST_MM, OPEN_WEIGHT)); its size
    goes into steps[n]. Returns whether it was taken."""
    r, J, face, edge, orient = state[0][n], state[1][n], state[2][n], state[3][n], state[4][n]
    r_new, J_new, face_new, edge_new, orient_new = trial_state
    open_side = data[1][n]
    w, terms, A, g, trial = scratch[7:]
    robust_mm, open_weight = robust
    # the normal equations' sums in registers (J·W·J symmetric: 6 of its 9)
    a00 = a01 = a02 = a11 = a12 = a22 = g0 = g1 = g2 = 0.0
    for k in range(r.shape[0]):
        q = r[k] / robust_mm
        w[k] = (open_weight if open_side[k] and r[k] < 0 else 1.0) / (1.0 + q * q)
        x = _finite(r[k], 0.0)
        j0, j1, j2 = J[k, 0], J[k, 1], J[k, 2]
        j0 = j0 if np.isfinite(j0) else 0.0
        j1 = j1 if np.isfinite(j1) else 0.0
        j2 = j2 if np.isfinite(j2) else 0.0
        J[k, 0], J[k, 1], J[k, 2] = j0, j1, j2
        w0, w1, w2 = j0 * w[k], j1 * w[k], j2 * w[k]
        a00 += w0 * j0
        a01 += w0 * j1
        a02 += w0 * j2
        a11 += w1 * j1
        a12 += w1 * j2
        a22 += w2 * j2
        g0 += w0 * x
        g1 += w1 * x
        g2 += w2 * x
    A[0, 0], A[0, 1], A[0, 2], g[0] = a00, a01, a02, g0
    A[1, 0], A[1, 1], A[1, 2], g[1] = a01, a11, a12, g1
    A[2, 0], A[2, 1], A[2, 2], g[2] = a02, a12, a22, g2
    for i in range(3):
        damp = lam[n] * (A[i, i] + DAMPING_FLOOR)
        for j in range(3):
            A[i, j] += damp * (1.0 if i == j else 0.0)
    step = steps[n]
    _solve3(A, g, step)
    coin = model[3][n] > 0
    for i in range(3):
        step[i] = -step[i] * (0.0 if i == 2 and coin else 1.0)   # a coin has no angle
        trial[i] = params[n, i] + step[i]
    if refresh:
        _full(n, trial, model, data, scratch, r_new, face_new, edge_new, orient_new)
        if not last:   # (after the last step the Jacobian is not needed)
            _jacobian(n, trial, model, data, scratch, face_new, edge_new, orient_new, terms, J_new)
    else:
        _jacobian(n, trial, model, data, scratch, face, edge, orient, r_new, J_new)
    old = _cost(w, r, terms)
    new = _cost(w, r_new, terms)
    if not new <= old:
        lam[n] *= DAMPING_REFUSED
        return False
    lam[n] *= DAMPING_KEPT
    params[n] = trial
    r[:] = r_new
    if not (refresh and last):
        J[:] = J_new
    if refresh:
        face[:] = face_new
        edge[:] = edge_new
        orient[:] = orient_new
    return True


@jit()
def solve(params, model, points, open_side, camera, edge_offset, robust, iterations, refresh_every):
    """Fit every row (params N×3, updated in place): `iterations` damped Gauss-Newton
    steps, the deciding faces and edges found anew every `refresh_every` steps and at
    the last; all rows stop early when every step taken at a refresh was tiny. Returns
    the residuals at the parameters found (N×K, each deciding face and edge found anew).
    The rows go in step because of that early stop (prange over them was tried: docs)."""
    n_rows, n_points = points.shape[0], points.shape[1]
    n_faces = model[2].shape[1]
    data = (points, open_side, camera, edge_offset)
    # one row's working arrays: vertices, their scale and turn, face corners and edges,
    # edge_max, edge_arg, weights, terms (K each), the normal equations, the trial step
    scratch = (np.empty((5, 2)), np.empty(5), np.empty((5, 2)), np.empty((n_faces, 4, 2)), np.empty((n_faces, 4, 3)),
               np.empty(n_points), np.empty(n_points, np.int64), np.empty(n_points), np.empty(n_points),
               np.empty((3, 3)), np.empty(3), np.empty(3))
    # each row's r, J, deciding face and edge (N×K), face orientations (N×F); a trial's
    state = (np.empty((n_rows, n_points)), np.empty((n_rows, n_points, 3)), np.zeros((n_rows, n_points), np.int64),
             np.zeros((n_rows, n_points), np.int64), np.ones((n_rows, n_faces)))
    trial_state = (np.empty(n_points), np.empty((n_points, 3)), np.zeros(n_points, np.int64),
                   np.zeros(n_points, np.int64), np.ones(n_faces))
    r, J, face, edge, orient = state
    lam = np.full(n_rows, DAMPING)
    steps = np.zeros((n_rows, 3))
    fresh = np.ones(n_rows, np.bool_)   # rows whose r is the full residual, not the local form
    for n in range(n_rows):
        _full(n, params[n], model, data, scratch, r[n], face[n], edge[n], orient[n])
        _jacobian(n, params[n], model, data, scratch, face[n], edge[n], orient[n], trial_state[0], J[n])
    for it in range(iterations):
        # which face and edge decide each point is re-examined every few steps only
        last = it == iterations - 1
        refresh = it % refresh_every == refresh_every - 1 or last
        done = refresh
        for n in range(n_rows):
            if _step(n, refresh, last, params, lam, steps, state, trial_state, model, data, scratch, robust):
                fresh[n] = refresh
                for i in range(3):
                    done = done and abs(steps[n, i]) < STEP_DONE
        if done:
            break
    for n in range(n_rows):
        if not fresh[n]:
            _full(n, params[n], model, data, scratch, r[n], face[n], edge[n], orient[n])
    return r
