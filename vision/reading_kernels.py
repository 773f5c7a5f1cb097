"""vision.colour_reading's two readings of a blob's colour, compiled (numba): the same
values as its numpy (vision.medians) version, bit for bit: the hue change's length in
numpy's float32 order (a row's sum left to right, as numpy's reduction over a short
last axis takes it), the medians and the percentile by quickselect (the values of the
ranks numpy's partitions find: log colours hold no −0 to tie with +0, and the
greatest below a rank is found as vision.medians finds it).
"""

from __future__ import annotations

import math

import numpy as np

from vision.compiled import jit

F32 = np.float32


@jit()
def _select(values, k):
    """The value of rank k (0: the smallest) of a float32 array without NaNs, which is
    reordered (quickselect, three-way: ties end the search): afterwards every value
    before index k is no greater."""
    lo, hi = 0, values.size - 1
    while lo < hi:
        a, b, c = values[lo], values[(lo + hi) // 2], values[hi]
        pivot = max(min(a, b), min(max(a, b), c))   # the median of the three
        lt, i, gt = lo, lo, hi
        while i <= gt:
            v = values[i]
            if v < pivot:
                values[i], values[lt] = values[lt], v
                lt += 1
                i += 1
            elif v > pivot:
                values[i], values[gt] = values[gt], v
                gt -= 1
            else:
                i += 1
        if k < lt:
            hi = lt - 1
        elif k > gt:
            lo = gt + 1
        else:
            return pivot
    return values[k]


@jit()
def _two_ranks(values, k):
    """The values of ranks k − 1 and k (k ≥ 1), as a partition at k and the greatest
    below it give them (vision.medians); the array is reordered."""
    upper = _select(values, k)
    return values[:k].max(), upper


@jit()
def _median(values):
    """vision.medians.median of a float32 array without NaNs (reordered)."""
    n = values.size
    if n % 2:
        return _select(values, n // 2)
    lower, upper = _two_ranks(values, n // 2)
    return (lower + upper) / F32(2.0)


@jit()
def _percentile(values, q):
    """vision.medians.percentile of a float32 array without NaNs (q a percentage;
    the array is reordered)."""
    n = values.size
    virtual = (n - 1) * (q / 100)
    below = math.floor(virtual)
    if below >= n - 1:
        return _select(values, n - 1)
    a, b = _two_ranks(values, below + 1)
    t = virtual - below
    step = b - a
    # numpy multiplies a float32 by a Python float in float32
    return b - step * F32(1 - t) if t >= 0.5 else a + step * F32(t)


@jit()
def _column_medians(rows, keep, out):
    """The medians of each column of rows (N × 3) where keep, into out (3)."""
    count = np.count_nonzero(keep)
    column = np.empty(count, np.float32)
    for c in range(3):
        k = 0
        for i in range(rows.shape[0]):
            if keep[i]:
                column[k] = rows[i, c]
                k += 1
        out[c] = _median(column)


@jit()
def readings(picture, table, where, log_lut, paper_log, saturated_percentile):
    """colour_reading.readings (2 × 2 × 3): the log colours against the paper of the
    picture's and the bare table's pixels where `where` (uint8 BGR boxes; log_lut: the
    log of each level), in row order as numpy's boolean indexing takes them."""
    n = np.count_nonzero(where)
    pixels, bare = np.empty((n, 3), np.float32), np.empty((n, 3), np.float32)
    k = 0
    for y in range(where.shape[0]):
        for x in range(where.shape[1]):
            if where[y, x]:
                for c in range(3):
                    pixels[k, c] = log_lut[picture[y, x, c]] - paper_log[c]
                    bare[k, c] = log_lut[table[y, x, c]] - paper_log[c]
                k += 1
    sat = np.empty(n, np.float32)
    three = F32(3.0)
    for i in range(n):
        c0, c1, c2 = pixels[i, 0] - bare[i, 0], pixels[i, 1] - bare[i, 1], pixels[i, 2] - bare[i, 2]
        mean = ((c0 + c1) + c2) / three
        d0, d1, d2 = c0 - mean, c1 - mean, c2 - mean
        sat[i] = np.sqrt((d0 * d0 + d1 * d1) + d2 * d2)
    keep = sat >= _percentile(sat.copy(), saturated_percentile)
    every = np.ones(n, np.bool_)
    out = np.empty((2, 2, 3), np.float32)
    _column_medians(pixels, keep, out[0, 0])
    _column_medians(bare, keep, out[0, 1])
    _column_medians(pixels, every, out[1, 0])
    _column_medians(bare, every, out[1, 1])
    return out
