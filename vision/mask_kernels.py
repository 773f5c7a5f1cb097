"""Binary masks' bookkeeping, compiled (numba): connected components' areas and boxes
in one pass over their labels, each row's first and last set pixel, a blob's evidence
cut at a level, the components touching a part, outline points made coarse. The same
values as the OpenCV and numpy calls they replaced (docs/detection-speed.md).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.compiled import jit

# What cv2.connectedComponentsWithStats reports for a background (label 0) with no pixel.
EMPTY_BACKGROUND = (-1, 2 ** 31 - 1, 0, 0, 0)
# Pixels tested at once for any set (a whole-table mask is mostly background):
# the test vectorises; 16 int32 is one cache line (8 and 32 were slower, 64 much slower).
LABEL_BLOCK = 16


def components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """cv2.connectedComponentsWithStats(mask, connectivity=8) without its centroids: the
    same labels, the statistics counted in one pass (~a third of its time on the
    table, ~0.4 on a blob's box)."""
    n, labels = cv2.connectedComponents(mask, connectivity=8)
    return n, labels, component_stats(labels, n)


@jit()
def component_stats(labels, n):
    """cv2.connectedComponentsWithStats' statistics of `labels` (n labels): each one's
    left, top, width, height and area (n×5 int32), in one pass. The background (label
    0, most pixels) is measured from each row's ends only, and blocks of it skipped."""
    lo_x, lo_y = np.full(n, 2 ** 31 - 1, np.int64), np.full(n, 2 ** 31 - 1, np.int64)
    hi_x, hi_y = np.full(n, -2 ** 31, np.int64), np.full(n, -2 ** 31, np.int64)
    area = np.zeros(n, np.int64)
    height, width = labels.shape
    for y in range(height):
        row = labels[y]
        first, last = 0, width - 1
        while first < width and row[first] != 0:
            first += 1
        if first < width:
            while row[last] != 0:
                last -= 1
            lo_x[0], hi_x[0] = min(lo_x[0], first), max(hi_x[0], last)
            lo_y[0], hi_y[0] = min(lo_y[0], y), y
        whole_blocks = width - width % LABEL_BLOCK
        for start in range(0, width, LABEL_BLOCK):
            for x in range(start, block_end(row, start, whole_blocks)):
                k = row[x]
                if k:
                    area[k] += 1
                    lo_x[k] = min(lo_x[k], x)
                    hi_x[k] = max(hi_x[k], x)
                    lo_y[k] = min(lo_y[k], y)
                    hi_y[k] = max(hi_y[k], y)
    area[0] = height * width - area.sum()
    stats = np.empty((n, 5), np.int32)
    for k in range(n):
        stats[k, 0], stats[k, 1] = lo_x[k], lo_y[k]
        stats[k, 2], stats[k, 3] = hi_x[k] - lo_x[k] + 1, hi_y[k] - lo_y[k] + 1
        stats[k, 4] = area[k]
    if area[0] == 0:   # (every other label has pixels)
        for i in range(5):
            stats[0, i] = EMPTY_BACKGROUND[i]
    return stats



@jit()
def row_ends(mask):
    """Each row's first and last set pixel (x, y) of a binary mask, int32: the firsts
    of the rows that have one, top to bottom, then their lasts."""
    height, width = mask.shape
    ends = np.empty((height, 3), np.int32)   # first, last, row
    count = 0
    for y in range(height):
        row = mask[y]
        first = 0
        while first < width and row[first] == 0:
            first += 1
        if first == width:
            continue
        last = width - 1
        while row[last] == 0:
            last -= 1
        ends[count, 0], ends[count, 1], ends[count, 2] = first, last, y
        count += 1
    out = np.empty((2 * count, 2), np.int32)
    for k in range(count):
        out[k, 0], out[k, 1] = ends[k, 0], ends[k, 2]
        out[count + k, 0], out[count + k, 1] = ends[k, 1], ends[k, 2]
    return out


@jit()
def window_sums(dark, below, pieces, centres, reach, out):
    """For each centre (col, row; centres N×2 int64), over its window (rows row − reach
    to row + reach, columns likewise, cut to the picture): how many pixels have `dark`
    under `below` (its dtype's comparison) and are not `pieces`, and the sums of their
    columns and rows counted from the window's first (into out, N×3: as np.nonzero's
    count and the exact sums its coordinates' means divide). A row is counted without
    branches, in int32 (a window's row is at most a few hundred pixels): LLVM vectorises
    that."""
    height, width = dark.shape
    for n in range(centres.shape[0]):
        col, row = centres[n, 0], centres[n, 1]
        y0, x0 = max(row - reach, 0), max(col - reach, 0)
        y1, x1 = min(row + reach + 1, height), min(col + reach + 1, width)
        count, sum_x, sum_y = 0, 0, 0
        for y in range(y0, y1):
            dark_row, pieces_row = dark[y, x0:x1], pieces[y, x0:x1]
            in_row, row_x = np.int32(0), np.int32(0)
            for x in range(dark_row.size):
                shade = np.int32(dark_row[x] < below) & np.int32(pieces_row[x] == 0)
                in_row += shade
                row_x += shade * np.int32(x)
            count += in_row
            sum_x += row_x
            sum_y += in_row * (y - y0)
        out[n, 0], out[n, 1], out[n, 2] = count, sum_x, sum_y


@jit()
def label_counts(labels, where, n):
    """np.bincount(labels[where != 0], minlength=n) of labels below n (`where` mostly
    0: blocks of it skipped)."""
    counts = np.zeros(n, np.int64)
    height, width = labels.shape
    whole_blocks = width - width % LABEL_BLOCK
    for y in range(height):
        row, marked = labels[y], where[y]
        for start in range(0, width, LABEL_BLOCK):
            for x in range(start, block_end(marked, start, whole_blocks)):
                if marked[x]:
                    counts[row[x]] += 1
    return counts


@jit(inline="always")
def block_end(row, start, whole_blocks):
    """Where a scan of `row` from `start` (a multiple of LABEL_BLOCK) ends: at `start`
    itself, nothing to scan, when the block's LABEL_BLOCK values are all 0; else at the
    block's end, or the row's for its last, partial block (`whole_blocks`: where that
    one starts)."""
    if start >= whole_blocks:
        return len(row)
    any_set = 0
    for i in range(LABEL_BLOCK):
        any_set |= row[start + i]
    return start + LABEL_BLOCK if any_set else start


@jit()
def layer_counts(layers, mask, undecided, reach):
    """For each layer of a stack (L × H × W, nonzero: drawn) the pixels it draws on the
    mask and those it draws off the mask where undecided is 0 (L × 2 int64). `reach`
    (L × 4: x0, y0, x1, y1, ends excluded, clipped to the layers) bounds where each
    layer draws: only there is it read. (Counted without branches, a row's in int32:
    LLVM vectorises that.)"""
    counts = np.zeros((layers.shape[0], 2), np.int64)
    height, width = mask.shape
    for k in range(layers.shape[0]):
        x0, y0 = max(reach[k, 0], 0), max(reach[k, 1], 0)
        x1, y1 = min(reach[k, 2], width), min(reach[k, 3], height)
        on, off = 0, 0
        for y in range(y0, y1):
            row, inside, undecided_row = layers[k, y, x0:x1], mask[y, x0:x1], undecided[y, x0:x1]
            row_on, row_off = np.int32(0), np.int32(0)
            for x in range(row.size):
                drawn, on_mask = np.int32(row[x] != 0), np.int32(inside[x] != 0)
                row_on += drawn & on_mask
                row_off += drawn & (on_mask ^ 1) & np.int32(undecided_row[x] == 0)
            on += row_on
            off += row_off
        counts[k, 0], counts[k, 1] = on, off
    return counts


@jit()
def coarse_points(points, scale, x0, y0):
    """Integer pixel coordinates (N×1×2, as OpenCV gives them) on a grid `scale` times
    finer whose first pixel is coarse pixel (x0, y0), in coarse pixel coordinates
    (N×2 float64): (p + (origin · scale + 0.5)) / scale − 0.5, as numpy's calls did it
    (the sum exact in float64), without their ~4 µs."""
    out = np.empty((points.shape[0], 2))
    for i in range(points.shape[0]):
        out[i, 0] = (points[i, 0, 0] + (x0 * scale + 0.5)) / scale - 0.5
        out[i, 1] = (points[i, 0, 1] + (y0 * scale + 0.5)) / scale - 0.5
    return out


@jit()
def cut_at(weak, tinted_shadow, score, level, cut, mask):
    """A blob's evidence `score` cut at `level` (float32): score − level on the pixels of
    `weak` not `tinted_shadow`, −level elsewhere, into `cut` (float32); 255 into `mask`
    where that is positive, 0 elsewhere. numpy's np.where((weak > 0) & ~tinted_shadow,
    score - level, -level) and (cut > 0) * 255 in one pass, in float32 as numpy took a
    Python float level."""
    height, width = weak.shape
    for y in range(height):
        for x in range(width):
            v = score[y, x] - level if weak[y, x] and not tinted_shadow[y, x] else -level
            cut[y, x] = v
            mask[y, x] = 255 if v > 0 else 0


@jit()
def touching_components(near, seed, taken, x0, y0):
    """The 8-connected components of the pixels of `near` outside `seed` and `taken`
    that reach a pixel of `seed` or one of its 8 neighbours (uint8 0/255, the shape of
    `near`): cv2.connectedComponents' components of near & ~seed & ~taken, kept where
    cv2.dilate(seed, 3×3) meets them, grown from those pixels. `seed` and `taken` (binary
    masks of one shape) lie in `near` from column x0, row y0: a blob's part is looked for
    around its own pixels, not over its whole box."""
    height, width = near.shape
    out = np.zeros((height, width), np.uint8)
    stack = np.empty((height * width, 2), np.int64)
    top = 0
    rows, cols = seed.shape
    for y in range(max(y0 - 1, 0), min(y0 + rows + 1, height)):   # the pixels a seed pixel may touch
        for x in range(max(x0 - 1, 0), min(x0 + cols + 1, width)):
            if near[y, x] and not out[y, x] and _outside(seed, taken, y - y0, x - x0):
                touches = False
                for j in range(y - y0 - 1, y - y0 + 2):
                    for i in range(x - x0 - 1, x - x0 + 2):
                        touches = touches or (0 <= j < rows and 0 <= i < cols and seed[j, i] != 0)
                if touches:
                    out[y, x] = 255
                    stack[top, 0], stack[top, 1] = y, x
                    top += 1
    while top:
        top -= 1
        y, x = stack[top, 0], stack[top, 1]
        for v in range(max(y - 1, 0), min(y + 2, height)):
            for u in range(max(x - 1, 0), min(x + 2, width)):
                if near[v, u] and not out[v, u] and _outside(seed, taken, v - y0, u - x0):
                    out[v, u] = 255
                    stack[top, 0], stack[top, 1] = v, u
                    top += 1
    return out


@jit(inline="always")
def _outside(seed, taken, j, i):
    """Is pixel (i, j) of `seed`'s frame set in neither `seed` nor `taken` (or beyond them)?"""
    return not (0 <= j < seed.shape[0] and 0 <= i < seed.shape[1] and (seed[j, i] or taken[j, i]))


@jit()
def pixel_sums(mask):
    """A 0/1 mask's pixel count and the sums of its pixels' columns and rows: the zeroth
    and first moments cv2.moments(mask, binaryImage=True) reports, counted in integers
    (~a tenth of its time on a blob's box)."""
    count, sum_x, sum_y = 0, 0, 0
    height, width = mask.shape
    for y in range(height):
        row = mask[y]
        in_row, row_x = 0, 0
        for x in range(width):
            v = np.int64(row[x])
            in_row += v
            row_x += v * x
        count += in_row
        sum_x += row_x
        sum_y += in_row * y
    return count, sum_x, sum_y
