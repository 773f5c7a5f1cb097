"""vision.edges' arithmetic, compiled (numba): the structure tensor from a box's
gradients, and the steps across hypotheses' apparent edges (each sample point placed,
the edge map looked up there and the step across the edge measured in one pass),
instead of OpenCV calls per box and numpy passes over arrays of every row's points.

Bit for bit what the numpy and OpenCV calls they replaced gave (docs/detection-speed.md):
float32 throughout, in numpy's order; the look-up as OpenCV 5's bilinear remap computes
it on an x86-64 CPU with FMA (lerp along x, then y, each a fused multiply-add; zero
outside the picture); the tensor's channel sums in cv2.transform's order.
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
def steps(params, cos, sin, ends, repeat, camera, t, grid, tensor, out):
    """The step across each edge at each sample point (into out, N·repeat × E × S), for
    rows at params (N·repeat × 3, float32) turned by (cos, sin) of their angles.
    ends: each edge's two ends' offsets in the piece's frame (E×2 per end) and lift
    scales (E), for N rows (row i's pose is geometry row i // repeat); camera (x, y);
    t: the samples' fractions along an edge; grid: (x0, y0, res) of the edge map's grid;
    tensor: its structure tensor (H×W×3)."""
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
    # The look-up is written out here, not called: an array handed to a function, even
    # inlined, is reference-counted at each call (two atomic operations; ~1/3 of the time).
    for i in range(params.shape[0]):
        g = i // repeat
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
                out[i, e, k] = math.sqrt(max(step2, zero))
