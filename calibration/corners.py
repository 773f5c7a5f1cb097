"""Marker corners to a fraction of a pixel, from the straight edges of the black square.

Corner detectors (cornerSubPix included) pull a blurred convex corner inwards: blur rounds
it, and on a marker 40-60 px wide seen through a slightly soft lens the pull is 0.3-0.5 px.
A straight edge is not biased by a symmetric blur: its 50% crossing stays where the edge
is. So each side of the black square is sampled along its middle, the crossing found on
short profiles across it, a line fitted through the crossings, and the corners taken where
neighbouring lines meet.
"""

from __future__ import annotations

import cv2
import numpy as np

# Part of each side sampled: its middle, clear of the rounded corners.
SIDE_SPAN = (0.15, 0.85)
# Profiles across a side reach this fraction of a module either way: inside the one-module
# black border, and inside the white paper beyond it.
PROFILE_REACH_MODULES = 0.45
PROFILE_STEP_PX = 0.25
# Profiles whose dark-to-light step is below this (grey levels) are shadowed or occluded.
MIN_EDGE_CONTRAST = 25.0
# A refined corner further than this from its first estimate (px) is kept as first found.
MAX_SHIFT_PX = 2.0


def refine_corners(grey: np.ndarray, corners: np.ndarray, modules: int) -> np.ndarray:
    """4×2 corners (OpenCV order, clockwise in the picture) → refined 4×2 corners."""
    side_px = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))
    reach = PROFILE_REACH_MODULES * side_px / modules
    if reach < 1.0:  # too small to sample across an edge
        return corners
    # a float crop around the marker: interpolated profiles keep their fractions of a grey level
    x0, y0 = np.floor(corners.min(axis=0) - reach - 2).astype(int).clip(0)
    x1, y1 = np.ceil(corners.max(axis=0) + reach + 3).astype(int)
    crop = grey[y0:y1, x0:x1].astype(np.float32)
    local = corners - (x0, y0)
    lines = [_edge_line(crop, local[k], local[(k + 1) % 4], reach) for k in range(4)]
    if any(line is None for line in lines):
        return corners
    out = corners.copy()
    for k in range(4):  # corner k is where side k−1 (into it) meets side k (out of it)
        p = _intersect(lines[k - 1], lines[k])
        if p is not None and np.linalg.norm(p - local[k]) <= MAX_SHIFT_PX:
            out[k] = p + (x0, y0)
    return out


def _edge_line(grey: np.ndarray, a: np.ndarray, b: np.ndarray, reach: float):
    """(point, unit direction) of the black square's edge from corner a to corner b, or None."""
    length = float(np.linalg.norm(b - a))
    d = (b - a) / length
    n = np.array([d[1], -d[0]])  # outward: towards the paper for clockwise corners
    ts = np.linspace(*SIDE_SPAN, max(6, int(length * (SIDE_SPAN[1] - SIDE_SPAN[0]) / 2)))
    ss = np.arange(-reach, reach + 1e-9, PROFILE_STEP_PX)
    pts = a[None, None, :] + (ts[:, None, None] * length) * d + ss[None, :, None] * n
    prof = cv2.remap(grey, pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float64)
    dark, light = prof[:, :2].mean(axis=1), prof[:, -2:].mean(axis=1)
    good = light - dark >= MIN_EDGE_CONTRAST
    if good.sum() < 3:
        return None
    prof, lo, hi, ts = prof[good], dark[good], light[good], ts[good]
    half = (lo + hi) / 2
    above = prof >= half[:, None]
    j = np.argmax(above, axis=1)  # first sample past half-way
    ok = above.any(axis=1) & (j > 0)
    if ok.sum() < 3:
        return None
    rows, j, half, ts = np.flatnonzero(ok), j[ok], half[ok], ts[ok]
    before, after = prof[rows, j - 1], prof[rows, j]
    s = ss[j - 1] + (half - before) / np.maximum(after - before, 1e-9) * PROFILE_STEP_PX
    pts = a + (ts * length)[:, None] * d + s[:, None] * n
    centre = pts.mean(axis=0)
    _, _, vt = np.linalg.svd(pts - centre)
    return centre, vt[0]


def _intersect(l1, l2) -> np.ndarray | None:
    (p, u), (q, v) = l1, l2
    m = np.column_stack([u, -v])
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    s = np.linalg.solve(m, q - p)
    return p + s[0] * u
