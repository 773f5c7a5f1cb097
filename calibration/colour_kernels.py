"""calibration.colour's search over paleness and show-through, compiled (numba): for
each reading, the grid point whose cost is least, in one pass over the grid instead of
~20 numpy passes over readings × grid arrays a colour model.

The same operations in the same order as the numpy expressions they replaced (each a
plain IEEE operation, as numpy's element-wise ones), so the same costs and choices; the
dot products (numpy's, through BLAS) are still computed by the caller. The kernel comes
from vision.compiled, the project's one place for numba's settings and cache.
"""

from __future__ import annotations

import math

import numpy as np

from vision.compiled import jit


@jit()
def grid_search(og, tg, oo, tt, ot, om, mt, faint_ok, kk, ww, lo, hi, mg, mm, gg, k_min, obs, t, m, grey,
                best, b_best, residual, norm):
    """For each reading n: the grid point g (kk, ww: paleness and show-through; hi: the
    brightness's upper bound there, lo its lower) at which

        cost = |obs − kk·m − ww·t − b·grey|²,  b = clip(r_grey / gg, lo, hi)

    is least (into best, the first of equal ones, a NaN first of all, as np.argmin), its
    b (into b_best), the residual there (into residual, N×3) and its length (into norm,
    as np.linalg.norm), from the readings' dot products: og = obs·grey, tg = t·grey,
    oo = obs·obs, tt = t·t, ot = obs·t, om = obs·m, mt = t·m, and the model's mg = m·grey,
    mm = m·m, gg = grey·grey. Grid points of paleness under k_min only where faint_ok."""
    inf = math.inf
    size = kk.shape[0]
    # the grid's own terms, once (each as its numpy expression formed it)
    k_mg, k_k_mm, w_w, two_k, k_w = np.empty(size), np.empty(size), np.empty(size), np.empty(size), np.empty(size)
    faint = np.empty(size, np.bool_)
    for g in range(size):
        k, w = kk[g], ww[g]
        k_mg[g], k_k_mm[g], w_w[g], two_k[g], k_w[g] = k * mg, k * k * mm, w * w, 2 * k, k * w
        faint[g] = k < k_min
    cost, bright = np.empty(size), np.empty(size)
    for n in range(og.shape[0]):
        two_ot, two_mt, blocked = 2 * ot[n], 2 * mt[n], not faint_ok[n]
        for g in range(size):   # (no branches: the compiler runs several points at once)
            r_grey = og[n] - k_mg[g] - tg[n] * ww[g]
            r_sq = oo[n] + k_k_mm[g] + tt[n] * w_w[g] - two_k[g] * om[n] - two_ot * ww[g] + two_mt * k_w[g]
            b = r_grey / gg
            b = lo if b <= lo else b       # np.clip, whose NaN stays NaN
            b = hi[g] if b >= hi[g] else b
            c = r_sq - 2 * b * r_grey + b * b * gg
            cost[g] = inf if blocked and faint[g] else c
            bright[g] = b
        pick = 0   # np.argmin: the first least, or the first NaN
        for g in range(1, size):
            if math.isnan(cost[pick]):
                break
            if cost[g] < cost[pick] or math.isnan(cost[g]):
                pick = g
        best[n], b_best[n] = pick, bright[pick]
        length = 0.0
        for c in range(3):
            residual[n, c] = obs[n, c] - kk[pick] * m[c] - ww[pick] * t[n, c] - bright[pick] * grey[c]
            length += residual[n, c] * residual[n, c]
        norm[n] = math.sqrt(length)
