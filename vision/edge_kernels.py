"""vision.edges' arithmetic, compiled (numba): the structure tensor from a box's
gradients, and the steps across hypotheses' apparent edges (each sample point placed,
the edge map looked up there and the step across the edge measured in one pass), and
the edge search's rounds of moves (its sines and cosines numpy's), instead of OpenCV
calls per box and numpy passes over arrays of every row's points.

Bit for bit what the numpy and OpenCV calls they replaced gave (docs/detection-speed.md):
float32 throughout, in numpy's order; the look-up as OpenCV 5's bilinear remap computes
it on an x86-64 CPU with FMA (lerp along x, then y, each a fused multiply-add; zero
outside the picture); the tensor's channel sums in cv2.transform's order.
Every kernel a kernel calls is in this file (`_fma` and the eight running sums as
vision.segment_kernels and vision.gauss_newton have their own): numba's cache notices
changes to a kernel's own file only.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from vision.compiled import jit

F32 = np.float32
# Pixel coordinates further than this are outside any picture (and still fit an int32).
FAR_PX = F32(2 ** 30)
# numpy sums up to this many values with 8 running sums (its pairwise sum's block); a
# row's mean step is numpy's for rows of at most this many steps.
MEAN_BLOCK = 128


@jit()
def structure_tensor(gx, gy, tensor, dy, dx, y0, y1, x0, x1):
    """tensor[y, x] = (Jxx, Jxy, Jyy) for y0 <= y < y1, x0 <= x < x1 from a box's log
    gradients gx, gy (h×w×3 float32) at [y − dy, x − dx]: the products summed over the
    channels as cv2.transform with a row of ones sums them, ((c0 + c1) + c2) + 0 (its
    zero shift turns −0 into +0), as cv2.multiply, cv2.transform and cv2.merge did."""
    zero = F32(0.0)
    for y in range(y0, y1):
        for x in range(x0, x1):
            a0, a1, a2 = gx[y - dy, x - dx, 0], gx[y - dy, x - dx, 1], gx[y - dy, x - dx, 2]
            b0, b1, b2 = gy[y - dy, x - dx, 0], gy[y - dy, x - dx, 1], gy[y - dy, x - dx, 2]
            tensor[y, x, 0] = ((a0 * a0 + a1 * a1) + a2 * a2) + zero
            tensor[y, x, 1] = ((a0 * b0 + a1 * b1) + a2 * b2) + zero
            tensor[y, x, 2] = ((b0 * b0 + b1 * b1) + b2 * b2) + zero


@intrinsic
def _fma(typingctx, a, b, c):
    """a·b + c rounded once (float32), as OpenCV's vector code computes it."""
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context, builder, signature, args):
        f = ir.FloatType()
        return builder.call(builder.module.declare_intrinsic("llvm.fma", [f], ir.FunctionType(f, [f, f, f])), args)
    return sig, codegen


@jit(inline="always")
def _pixel(image, x, y, c):
    """image[y, x, c], zero outside (cv2.BORDER_CONSTANT)."""
    if 0 <= x < image.shape[1] and 0 <= y < image.shape[0]:
        return image[y, x, c]
    return F32(0.0)


@jit(inline="always")
def _lerp(wx, wy, v00, v01, v10, v11):
    """cv2.remap's INTER_LINEAR of four neighbours: along x on the rows above and below,
    then along y."""
    top = _fma(wx, v01 - v00, v00)
    return _fma(wy, _fma(wx, v11 - v10, v10) - top, top)


@jit()
def _border(image, ix, iy, wx, wy, c):
    """Channel c of the bilinear look-up whose four neighbours (ix, iy)..(ix + 1, iy + 1)
    are not all inside the picture: those outside count as zero."""
    return _lerp(wx, wy, _pixel(image, ix, iy, c), _pixel(image, ix + 1, iy, c),
                 _pixel(image, ix, iy + 1, c), _pixel(image, ix + 1, iy + 1, c))


@jit()
def steps(params, cos, sin, ends, rows, repeat, camera, t, grid, tensor, out, means):
    """The step across each edge at each sample point (into out, N·repeat × E × S, unless
    it has no rows) and each row's mean step (into means, N·repeat; as numpy's mean of
    out's row), for rows at params (N·repeat × 2 or more: x, y; float32) turned by (cos,
    sin) of their angles. ends: each edge's two ends' offsets in the piece's frame (G×E×2
    per end) and lift scales (G×E) of G geometry rows, of which row i's is
    rows[i // repeat]; camera (x, y); t: the samples' fractions along an edge; grid: (x0,
    y0, res) of the edge map's grid; tensor: its structure tensor (H×W×3). E × S is at
    most MEAN_BLOCK."""
    off0, scale0, off1, scale1 = ends
    cx, cy = camera[0], camera[1]
    x0, y0, res = grid[0], grid[1], grid[2]
    half, two, zero, floor_len = F32(0.5), F32(2.0), F32(0.0), F32(1e-6)
    # dividing by a power of two is multiplying by its inverse, exactly (the usual 1 mm)
    inverse = F32(1.0) / res
    by_inverse = math.frexp(res)[0] == 0.5
    flat, height, width = tensor.reshape(tensor.size), tensor.shape[0], tensor.shape[1]
    # unsigned offsets: a signed one is tested for wrap-around at every load
    row, one, two_u, three = np.uintp(3 * width), np.uintp(1), np.uintp(2), np.uintp(3)
    n_samples = t.shape[0]
    pxs, pys = np.empty(n_samples, F32), np.empty(n_samples, F32)
    row_steps, keep = np.empty(off0.shape[1] * n_samples, F32), out.shape[0] > 0
    # The look-up is written out here, not called: an array handed to a function, even
    # inlined, is reference-counted at each call (two atomic operations; ~1/3 of the time).
    for i in range(params.shape[0]):
        g = rows[i // repeat]
        x, y = params[i, 0] - cx, params[i, 1] - cy
        c, s = cos[i], sin[i]
        for e in range(off0.shape[1]):
            ax = cx + (x + off0[g, e, 0] * c - off0[g, e, 1] * s) * scale0[g, e]
            ay = cy + (y + off0[g, e, 0] * s + off0[g, e, 1] * c) * scale0[g, e]
            dx = cx + (x + off1[g, e, 0] * c - off1[g, e, 1] * s) * scale1[g, e] - ax
            dy = cy + (y + off1[g, e, 0] * s + off1[g, e, 1] * c) * scale1[g, e] - ay
            length = max(math.hypot(dx, dy), floor_len)
            nx, ny = -dy / length, dx / length
            # the sample points, in grid pixels (the choice outside the loop: inside it the
            # compiler divided as well as multiplied and picked one, every sample)
            if by_inverse:
                for k in range(n_samples):
                    pxs[k] = (ax + t[k] * dx - x0) * inverse - half
                    pys[k] = (ay + t[k] * dy - y0) * inverse - half
            else:
                for k in range(n_samples):
                    pxs[k] = (ax + t[k] * dx - x0) / res - half
                    pys[k] = (ay + t[k] * dy - y0) / res - half
            for k in range(n_samples):
                px, py = pxs[k], pys[k]
                # the edge map at (px, py): zero outside the picture (and, as OpenCV's,
                # for a coordinate not a number or beyond FAR_PX)
                j0 = j1 = j2 = zero
                if abs(px) < FAR_PX and abs(py) < FAR_PX:
                    ix, iy = int(px), int(py)   # floor (math.floor is a library call) ...
                    ix -= F32(ix) > px          # (... exact: below 2**24 any int is a float32,
                    iy -= F32(iy) > py          # above it px is a whole number)
                    wx, wy = px - F32(ix), py - F32(iy)
                    if 0 <= ix < width - 1 and 0 <= iy < height - 1:   # the usual case: all four inside
                        above = np.uintp((iy * width + ix) * 3)
                        below = above + row
                        j0 = _lerp(wx, wy, flat[above], flat[above + three], flat[below], flat[below + three])
                        j1 = _lerp(wx, wy, flat[above + one], flat[above + three + one],
                                   flat[below + one], flat[below + three + one])
                        j2 = _lerp(wx, wy, flat[above + two_u], flat[above + three + two_u],
                                   flat[below + two_u], flat[below + three + two_u])
                    else:
                        j0 = _border(tensor, ix, iy, wx, wy, 0)
                        j1 = _border(tensor, ix, iy, wx, wy, 1)
                        j2 = _border(tensor, ix, iy, wx, wy, 2)
                step2 = (nx * nx * j0 + two * nx * ny * j1) + ny * ny * j2
                row_steps[e * n_samples + k] = math.sqrt(max(step2, zero))
        if keep:
            for e in range(off0.shape[1]):
                for k in range(n_samples):
                    out[i, e, k] = row_steps[e * n_samples + k]
        # numpy's mean: its pairwise sum (under MEAN_BLOCK values: 8 running sums, then
        # those in pairs) over the count, in float32
        n = row_steps.shape[0]
        if n < 8:
            total = zero
            for k in range(n):
                total += row_steps[k]
        else:
            r0, r1, r2, r3 = row_steps[0], row_steps[1], row_steps[2], row_steps[3]
            r4, r5, r6, r7 = row_steps[4], row_steps[5], row_steps[6], row_steps[7]
            k = 8
            while k <= n - 8:
                r0 += row_steps[k]
                r1 += row_steps[k + 1]
                r2 += row_steps[k + 2]
                r3 += row_steps[k + 3]
                r4 += row_steps[k + 4]
                r5 += row_steps[k + 5]
                r6 += row_steps[k + 6]
                r7 += row_steps[k + 7]
                k += 8
            total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
            while k < n:
                total += row_steps[k]
                k += 1
        means[i] = (zero + total) / F32(n)


# np.radians of a float32 angle: one product with π/180 rounded to float32.
DEG_TO_RAD = F32(math.pi / 180)


@jit()
def reachable_angles(params, turn, moves_per_round):
    """Every angle a row of params (N×3, degrees, float64) can reach in a round of the
    ascent (`ascent_round`), in radians as np.radians(float32(angle)) gives them
    (N × 2^(moves_per_round + 1)): a tree in heap order, node k's children 2k + 1 and
    2k + 2 its angle plus turn and plus −turn (float64, as numpy adds a move), the root
    the row's angle plus 0.0; last, the row's angle itself (plus −0.0: the root but
    for the sign of a zero)."""
    nodes = 2 ** (moves_per_round + 1) - 1
    angles = np.empty((params.shape[0], nodes + 1), F32)
    degrees = np.empty(nodes)
    for i in range(params.shape[0]):
        degrees[0] = params[i, 2] + 0.0
        for k in range(1, nodes):
            degrees[k] = degrees[(k - 1) // 2] + (turn if k % 2 == 1 else -turn)
        for k in range(nodes):
            angles[i, k] = F32(degrees[k]) * DEG_TO_RAD
        angles[i, nodes] = F32(params[i, 2]) * DEG_TO_RAD
    return angles


@jit()
def ascent_round(params, best, moves, cos, sin, moves_per_round, ends, rows, camera, t, grid, tensor):
    """One round of vision.edges' coordinate ascent, in place: moves_per_round times,
    every row still live tries each of `moves` (M×3, float64, added to its params N×3)
    and takes the one whose mean step (`steps`) is highest (ties: the first; numpy's
    argmax) if it beats the row's best (N, float32), else it stops for the round. (cos,
    sin) are numpy's of `reachable_angles`, which index them as the row's angle moved
    (a move with a positive angle goes to a node's first child, a negative to its second;
    a move of x or y keeps the node, and at the root a trial angle with its sign bit set
    is the last column: the angle itself). ends ... tensor: as `steps`' (rows: each
    row's geometry row)."""
    n, n_moves = params.shape[0], moves.shape[0]
    as_is = cos.shape[1] - 1
    live, node = np.arange(n), np.zeros(n, np.int64)
    geometry = np.empty(n, np.int64)
    trial = np.empty((n * n_moves, 2), F32)
    trial_cos, trial_sin = np.empty(n * n_moves, F32), np.empty(n * n_moves, F32)
    means = np.empty(n * n_moves, F32)
    no_steps = np.empty((0, ends[1].shape[1], t.shape[0]), F32)
    for _ in range(moves_per_round):
        if n == 0:
            break
        for r in range(n):
            i = live[r]
            geometry[r] = rows[i]
            for j in range(n_moves):
                q = r * n_moves + j
                trial[q, 0] = F32(params[i, 0] + moves[j, 0])
                trial[q, 1] = F32(params[i, 1] + moves[j, 1])
                k = node[i]
                if moves[j, 2] > 0:
                    k = 2 * k + 1
                elif moves[j, 2] < 0:
                    k = 2 * k + 2
                elif k == 0 and math.copysign(1.0, params[i, 2] + moves[j, 2]) < 0:
                    k = as_is
                trial_cos[q], trial_sin[q] = cos[i, k], sin[i, k]
        m = n * n_moves
        steps(trial[:m], trial_cos[:m], trial_sin[:m], ends, geometry[:n], n_moves, camera, t, grid, tensor,
              no_steps, means[:m])
        kept = 0
        for r in range(n):
            i = live[r]
            pick, top = 0, means[r * n_moves]
            if not math.isnan(top):
                for j in range(1, n_moves):
                    v = means[r * n_moves + j]
                    if v > top or math.isnan(v):
                        pick, top = j, v
                        if math.isnan(v):
                            break
            if top > best[i]:
                for c in range(3):
                    params[i, c] = params[i, c] + moves[pick, c]
                best[i] = top
                if moves[pick, 2] > 0:
                    node[i] = 2 * node[i] + 1
                elif moves[pick, 2] < 0:
                    node[i] = 2 * node[i] + 2
                live[kept] = i
                kept += 1
        n = kept


# A hypothesis row's kind, as the starts' codes number it (code = kind · 3 + size index).
UPRIGHT_KIND, FLAT_KIND = 0, 1


@jit()
def starts(win_code, win_params, top_start, top_code, top_params, turns, corners, keeps, base, slant):
    """vision.edge_steps' starts of the edge search for n blobs, in its order: each
    blob's winner (win_code, win_params: n, n×3) first, then for each of its cheapest
    fits of a (kind, size) (rows top_start[b]:top_start[b + 1] of top_code, top_params)
    that fit and the other sizes laid where it lies: an upright about the same centre,
    a bigger one also with the fit at each of `corners` (unit steps in its frame) at its
    angle and each of `turns` more; a flat piece with its tail where the fit's is moved
    `keeps` of the slant's difference (tail, nose, middle where they are); for a flat
    fit, an upright of each size with its back edge on the fit's tail, at its angle and
    turned. Last, each size's first upright turned by `turns`. Codes are kind · 3 + size
    (sizes in domain.Size's order, `base` and `slant` theirs, mm). Returns each start's
    blob, code and (x, y, angle), float64 as Python's math computed them (libm's cos and
    sin, the same operations in the same order)."""
    n = win_code.shape[0]
    # per blob: the winner, 9 turned; per fit: itself and, for an upright, two sizes
    # each with (1 + 8 corners · 4 turns), for a flat one 2 · 3 + 3 · 4
    most = n * (1 + 3 * turns.shape[0]) + top_code.shape[0] * (1 + 2 * (1 + corners.shape[0] * (1 + turns.shape[0])))
    owner = np.empty(most, np.int64)
    code = np.empty(most, np.int64)
    params = np.empty((most, 3))
    count = 0
    for b in range(n):
        first = count
        owner[count], code[count] = b, win_code[b]
        params[count, 0], params[count, 1], params[count, 2] = win_params[b, 0], win_params[b, 1], win_params[b, 2]
        count += 1
        for t in range(top_start[b], top_start[b + 1]):
            kind, size = top_code[t] // 3, top_code[t] % 3
            x, y, angle = top_params[t, 0], top_params[t, 1], top_params[t, 2]
            owner[count], code[count] = b, top_code[t]
            params[count, 0], params[count, 1], params[count, 2] = x, y, angle
            count += 1
            ux, uy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
            for other in range(3):
                if other == size:
                    continue
                if kind == UPRIGHT_KIND:
                    owner[count], code[count] = b, UPRIGHT_KIND * 3 + other
                    params[count, 0], params[count, 1], params[count, 2] = x, y, angle
                    count += 1
                    grow = (base[other] - base[size]) / 2
                    if grow <= 0:
                        continue
                    for q in range(turns.shape[0] + 1):
                        turn = 0.0 if q == 0 else turns[q - 1]
                        a = math.radians(angle + turn)
                        cx, cy = math.cos(a), math.sin(a)
                        for k in range(corners.shape[0]):
                            i, j = corners[k, 0], corners[k, 1]
                            owner[count], code[count] = b, UPRIGHT_KIND * 3 + other
                            params[count, 0] = x + grow * (i * cx - j * cy)
                            params[count, 1] = y + grow * (i * cy + j * cx)
                            params[count, 2] = angle + turn
                            count += 1
                    continue
                shift = slant[size] - slant[other]
                for k in range(keeps.shape[0]):
                    owner[count], code[count] = b, FLAT_KIND * 3 + other
                    params[count, 0] = x + keeps[k] * shift * ux
                    params[count, 1] = y + keeps[k] * shift * uy
                    params[count, 2] = angle
                    count += 1
            if kind == FLAT_KIND:
                for other in range(3):
                    half = base[other] / 2
                    for q in range(turns.shape[0] + 1):
                        turn = 0.0 if q == 0 else turns[q - 1]
                        owner[count], code[count] = b, UPRIGHT_KIND * 3 + other
                        params[count, 0], params[count, 1], params[count, 2] = x + half * ux, y + half * uy, angle + turn
                        count += 1
        end = count
        for size in range(3):
            for r in range(first, end):
                if code[r] == UPRIGHT_KIND * 3 + size:
                    for q in range(turns.shape[0]):
                        owner[count], code[count] = b, code[r]
                        params[count, 0], params[count, 1] = params[r, 0], params[r, 1]
                        params[count, 2] = params[r, 2] + turns[q]
                        count += 1
                    break
    return owner[:count], code[:count], params[:count]
