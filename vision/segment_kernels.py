"""vision.segment's per-pixel arithmetic, compiled (numba): the log ratio of picture to
bare table, its 3×3 smoothing, its colour parts and hue change in one pass over the
rows; the evidence and its thresholds in a second.

Bit for bit what the OpenCV and numpy calls they replaced gave on an x86-64 CPU with
FMA (docs/detection-speed.md): float32 throughout, constants compared and multiplied
as float32, sums in OpenCV's order, its colour transform's fused multiply-adds (its
vector loop's, and for the picture's last 2-5 pixels its scalar tail's). Every kernel a
kernel calls is in this file: numba's cache notices changes to a kernel's own file only.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from vision.compiled import jit

F32 = np.float32
# cv2.GaussianBlur's 3×3 kernel (sigma 0): 1/4, 1/2, 1/4 along each axis
SMOOTH_CENTRE, SMOOTH_SIDE = F32(0.5), F32(0.25)
# cv2.transform's vector loop does 4 pixels at a time while 2 more remain; the rest is scalar
TRANSFORM_BLOCK, TRANSFORM_SPARE = 4, 2
# Pixels dark_overlaps tests at once for any label (the table is mostly bare): the test
# vectorises (as vision.mask_kernels.LABEL_BLOCK)
LABEL_BLOCK = 16


@intrinsic
def _fma(typingctx, a, b, c):
    """a·b + c rounded once (float32), as OpenCV's vector code computes it."""
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context, builder, signature, args):
        f = ir.FloatType()
        return builder.call(builder.module.declare_intrinsic("llvm.fma", [f], ir.FunctionType(f, [f, f, f])), args)
    return sig, codegen


@jit()
def _reflect(i, n):
    """OpenCV's default border (reflect 101): index −1 is 1, n is n − 2."""
    return -i if i < 0 else 2 * n - 2 - i if i >= n else i


@jit()
def _smoothed_row(table, bg, y, log_lut, ratio, out):
    """Row y's log ratio log(table) − log(bg) (into `ratio`, 3×W float32, a plane per
    channel) smoothed along the row (into `out`): the row pass of the separable 3×3
    Gaussian, c/2 + (left + right)/4, the border reflected."""
    width = ratio.shape[1]
    for x in range(width):
        for c in range(3):
            ratio[c, x] = log_lut[table[y, x, c]] - log_lut[bg[y, x, c]]
    for c in range(3):
        r, o = ratio[c], out[c]
        for x in range(1, width - 1):
            o[x] = r[x] * SMOOTH_CENTRE + (r[x - 1] + r[x + 1]) * SMOOTH_SIDE
        # reflected: the neighbour outside is the one inside
        o[0] = r[0] * SMOOTH_CENTRE + (r[1] + r[1]) * SMOOTH_SIDE
        o[width - 1] = r[width - 1] * SMOOTH_CENTRE + (r[width - 2] + r[width - 2]) * SMOOTH_SIDE


@jit()
def log_ratio_parts(table, bg, log_lut, weight_lut, m, parts, lum, grey, chroma, sample, sampled):
    """segment._log_ratio_parts into its outputs (see there; m: its colour
    transform), row by row: the row-smoothed rows above and below, the column pass, the
    colour transform and the hue change, on a plane per channel (so the compiler
    vectorises the pixels); and the hue change and darkening at the pixels `sample`
    (ascending flat indices) into sampled[0] and [1], while their rows are in the cache.
    Serial: see docs/detection-speed.md for prange."""
    height, width = table.shape[0], table.shape[1]
    # row-smoothed rows, picture row i in slot i % 3 (held: which row a slot has)
    rows = np.empty((3, 3, width), np.float32)
    held = np.full(3, -1)
    ratio, smooth = np.empty((3, width), np.float32), np.empty((3, width), np.float32)
    weight, out = np.empty((3, width), np.float32), np.empty((3, width), np.float32)
    eps = F32(1e-6)
    three, zero = F32(3.0), F32(0.0)
    taken = 0   # samples written
    for y in range(height):
        above, below = _reflect(y - 1, height), _reflect(y + 1, height)
        for i in (above, y, below):
            if held[i % 3] != i:
                _smoothed_row(table, bg, i, log_lut, ratio, rows[i % 3])
                held[i % 3] = i
        up, mid, down = rows[above % 3], rows[y % 3], rows[below % 3]
        for c in range(3):
            for x in range(width):
                smooth[c, x] = mid[c, x] * SMOOTH_CENTRE + (up[c, x] + down[c, x]) * SMOOTH_SIDE
        for x in range(width):
            for c in range(3):
                weight[c, x] = weight_lut[bg[y, x, c]]
        s0, s1, s2, w0, w1, w2 = smooth[0], smooth[1], smooth[2], weight[0], weight[1], weight[2]
        p0, p1, p2, g, ch = out[0], out[1], out[2], grey[y], chroma[y]
        for x in range(width):
            x0, x1, x2 = s0[x], s1[x], s2[x]
            p0[x] = _fma(x0, m[0, 0], _fma(x1, m[0, 1], _fma(x2, m[0, 2], zero)))
            p1[x] = _fma(x0, m[1, 0], _fma(x1, m[1, 1], _fma(x2, m[1, 2], zero)))
            p2[x] = _fma(x0, m[2, 0], _fma(x1, m[2, 1], _fma(x2, m[2, 2], zero)))
            # each channel weighed by how far the table's level is above the noise floor
            total = ((w0[x] + w1[x]) + w2[x]) + eps
            a0, a1, a2 = w0[x] * x0, w1[x] * x1, w2[x] * x2
            mean = ((a0 + a1) + a2) / total
            spread = three * (((a0 * x0 + a1 * x1) + a2 * x2) / total - mean * mean)
            g[x] = mean
            ch[x] = np.sqrt(max(spread, zero))
        for x in range(width):
            parts[y, x, 0], parts[y, x, 1], parts[y, x, 2], lum[y, x] = p0[x], p1[x], p2[x], p2[x]
        if y == height - 1:   # OpenCV's scalar tail for the last pixels (the compiler
            # contracted m0·x0 + m1·x1 + m2·x2 + 0)
            pixels = height * width
            for p in range(pixels - (pixels - TRANSFORM_SPARE) % TRANSFORM_BLOCK - TRANSFORM_SPARE, pixels):
                x = p - y * width
                for j in range(3):
                    parts[y, x, j] = _fma(m[j, 2], s2[x], _fma(m[j, 0], s0[x], m[j, 1] * s1[x])) + zero
                lum[y, x] = parts[y, x, 2]
        while taken < sample.size and sample[taken] < (y + 1) * width:
            x = sample[taken] - y * width
            sampled[0, taken], sampled[1, taken] = ch[x], lum[y, x]
            taken += 1


@jit()
def evidence(lum, grey, chroma, usable, limits, score, dark, full, weak):
    """segment._evidence into score and dark, and where the score passes full evidence
    (> 1) and WEAK (uint8 0/255, as cv2.compare). `limits` (float32): 1 / chroma_min,
    1 / SHADOW_LOG_MIN, 1 / bright_min, SHADOW_LOG_MIN, −SHADOW_HUE_RATIO, DARK_LOG_MAX,
    WEAK."""
    inv_chroma, inv_shadow, inv_bright, shadow_min, hue_ratio, dark_max, weak_min = limits
    zero, one = F32(0.0), F32(1.0)
    for y in range(lum.shape[0]):
        lm, gr, ch, use = lum[y], grey[y], chroma[y], usable[y]
        sc, dk, fu, wk = score[y], dark[y], full[y], weak[y]
        for x in range(lm.shape[0]):
            a, b, c = ch[x] * inv_chroma, lm[x] * inv_shadow, lm[x] * inv_bright
            s = a if a > b else b
            s = s if s > c else c
            # darker with hardly any hue change: a shadow, never evidence
            shadow = gr[x] < zero and gr[x] > shadow_min and ch[x] < hue_ratio * gr[x]
            s = zero if shadow or use[x] == 0 else s
            sc[x] = s
            dk[x] = 255 if shadow and lm[x] < dark_max and use[x] > 0 else 0
            fu[x] = 255 if s > one else 0
            wk[x] = 255 if s > weak_min else 0



@jit()
def hue_length(hue, out):
    """The length of each pixel's hue change (hue: H×W×2, a view), into out (H×W): as
    np.hypot, which calls the C library's hypotf (glibc's: the float of the square root,
    in double, of the two squares' sum, exact in double; infinite if either is), without
    a call a pixel or numpy's passes over strided planes. A row's two parts are copied
    apart first: on contiguous rows the compiler vectorises the square roots."""
    width = hue.shape[1]
    first, second = np.empty(width, np.float64), np.empty(width, np.float64)
    for y in range(hue.shape[0]):
        row, out_row = hue[y], out[y]
        for x in range(width):
            first[x], second[x] = row[x, 0], row[x, 1]
        for x in range(width):
            a, b = first[x], second[x]
            length = F32(math.sqrt(a * a + b * b))
            out_row[x] = np.inf if math.isinf(a) or math.isinf(b) else length


# The sortable keys' bits, taken in three counting passes (most significant first).
_KEY_DIGITS = ((21, 11), (10, 11), (0, 10))


@jit()
def _sortable(values):
    """float32 values' bits as keys in the values' order (uint32; −0 just below +0)."""
    keys = values.copy().view(np.uint32)
    for i in range(keys.size):
        b = keys[i]
        keys[i] = ~b if b >> np.uint32(31) else b | np.uint32(0x80000000)
    return keys


@jit()
def _value_of(key):
    """The float32 whose sortable key this is."""
    bits = np.empty(1, np.uint32)
    bits[0] = key & np.uint32(0x7FFFFFFF) if key >> np.uint32(31) else ~key
    return bits.view(np.float32)[0]


@jit()
def _key_at_rank(keys, rank):
    """The key of this rank (0: the smallest), by counting digits: each pass counts the
    candidates' next digit and keeps those in the digit that holds the rank."""
    candidates, count, key = keys.copy(), keys.size, np.uint32(0)
    for shift, width in _KEY_DIGITS:
        counts = np.zeros(1 << width, np.int64)
        mask = np.uint32((1 << width) - 1)
        for i in range(count):
            counts[(candidates[i] >> np.uint32(shift)) & mask] += 1
        digit = 0
        while rank >= counts[digit]:
            rank -= counts[digit]
            digit += 1
        key |= np.uint32(digit) << np.uint32(shift)
        kept = 0
        for i in range(count):   # (without a branch: the digit is often unpredictable)
            candidates[kept] = candidates[i]
            kept += (candidates[i] >> np.uint32(shift)) & mask == digit
        count = kept
    return key


@jit()
def median_of(values):
    """vision.medians.median of a float32 array without NaNs (its value; where both
    zeros lie at the middle, its sign may differ), from its values' sortable keys."""
    n = values.size
    if n == 0:
        return F32(np.nan)
    keys = _sortable(values)
    upper = _key_at_rank(keys, n // 2)
    if n % 2:
        return _value_of(upper)
    below, lower = 0, np.uint32(0)   # the largest key under the upper middle one
    for i in range(n):
        under = keys[i] < upper
        below += under
        lower = max(lower, keys[i] if under else np.uint32(0))
    lower = upper if below < n // 2 else lower
    return (_value_of(lower) + _value_of(upper)) / F32(2.0)


@jit()
def median_deviation(values):
    """median(|v − median(v)|) of float32 values without NaNs, as vision.medians.median
    and numpy's float32 arithmetic give it."""
    centre = median_of(values)
    deviations = np.empty_like(values)
    for i in range(values.size):
        deviations[i] = abs(values[i] - centre)
    return median_of(deviations)


@jit()
def area_mean(table, f, index, out):
    """cv2.resize(table, INTER_AREA) by a whole factor f ≥ 3 (table f·h × f·w × 3 uint8,
    contiguous) into out (h × w × 3), each cell then taken from cell index (flat, h × w)
    of it: each f × f block's sum times 1/f² in float32, rounded half to even, as
    OpenCV's whole-factor loop does it."""
    height, width = out.shape[0], out.shape[1]
    scale = F32(1.0) / F32(f * f)
    rows = table.reshape(table.shape[0], -1)
    columns = np.empty(rows.shape[1], np.int32)   # a block row's sums down each column
    cells = np.empty(width * 3, np.int32)
    small = np.empty(height * width * 3, np.uint8)
    for y in range(height):
        columns[:] = 0
        for row in range(y * f, y * f + f):
            line = rows[row]
            for i in range(columns.size):
                columns[i] += line[i]
        cells[:] = 0
        for x in range(width):
            for k in range(f):
                for c in range(3):
                    cells[x * 3 + c] += columns[(x * f + k) * 3 + c]
        for i in range(width * 3):
            small[y * width * 3 + i] = np.rint(F32(cells[i]) * scale)
    filled = out.reshape(-1)
    for i in range(height * width):
        j = index[i]
        filled[3 * i], filled[3 * i + 1], filled[3 * i + 2] = small[3 * j], small[3 * j + 1], small[3 * j + 2]


@jit()
def dark_overlaps(labels, classes, dark_labels, m, near_sheet, small_pixels, mask):
    """segment.foreground's tallies of its dark candidates (dark_labels, m labels; 0 none)
    against the weak components (labels, their classes[label]: 0 dropped, 1 kept, 2 kept
    and small, 3 small and fitted; small_pixels: the small ones' area): each candidate's
    pixels on each class (m × 4) and near the sheets (m); each pixel of a small
    component on a candidate as (candidate, component), in row order (N × 2); and mask
    255 on the kept components, else 0."""
    on_class = np.zeros((m, 4), np.int64)
    on_sheet = np.zeros(m, np.int64)
    pairs = np.empty((small_pixels, 2), np.int64)
    count = 0
    height, width = labels.shape
    whole_blocks = width - width % LABEL_BLOCK
    unlabelled = 255 if classes[0] else 0
    for y in range(height):
        label_row, dark_row, mask_row = labels[y], dark_labels[y], mask[y]
        for start in range(0, width, LABEL_BLOCK):
            if start < whole_blocks:
                stop, any_label, any_dark = start + LABEL_BLOCK, 0, 0
                for k in range(LABEL_BLOCK):
                    any_label |= label_row[start + k]
                    any_dark |= dark_row[start + k]
                if any_label == 0 and any_dark == 0:   # (most blocks)
                    for k in range(LABEL_BLOCK):
                        mask_row[start + k] = unlabelled
                    continue
            else:
                stop = width
            for x in range(start, stop):
                i, j = label_row[x], dark_row[x]
                kind = classes[i]
                mask_row[x] = 255 if kind else 0
                if not j:   # (most pixels)
                    continue
                on_class[j, kind] += 1
                on_sheet[j] += near_sheet[y, x]
                if kind >= 2:
                    pairs[count, 0], pairs[count, 1] = j, i
                    count += 1
    return on_class, on_sheet, pairs[:count]
