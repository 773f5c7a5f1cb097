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
    lines = _edge_lines(crop, local, reach)
    if lines is None:
        return corners
    out = corners.copy()
    for k in range(4):  # corner k is where side k−1 (into it) meets side k (out of it)
        p = _intersect(lines[k - 1], lines[k])
        if p is not None and np.linalg.norm(p - local[k]) <= MAX_SHIFT_PX:
            out[k] = p + (x0, y0)
    return out


def _edge_lines(grey: np.ndarray, corners: np.ndarray, reach: float):
    """[(point, unit direction)] of the black square's four edges (side k from corner k to
    k+1), or None when one cannot be seen. All profiles are sampled in one remap."""
    a, b = corners, np.roll(corners, -1, axis=0)
    length = np.linalg.norm(b - a, axis=1)
    d = (b - a) / length[:, None]
    n = np.column_stack([d[:, 1], -d[:, 0]])  # outward: towards the paper for clockwise corners
    ts = np.linspace(*SIDE_SPAN, max(6, int(length.min() * (SIDE_SPAN[1] - SIDE_SPAN[0]) / 2)))
    ss = np.arange(-reach, reach + 1e-9, PROFILE_STEP_PX)
    along = a[:, None, :] + (ts[None, :, None] * length[:, None, None]) * d[:, None, :]  # 4 × T × 2
    pts = along[:, :, None, :] + ss[None, None, :, None] * n[:, None, None, :]  # 4 × T × S × 2
    flat = pts.reshape(-1, len(ss), 2).astype(np.float32)
    prof = cv2.remap(grey, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float64).reshape(4, len(ts), len(ss))
    lines = []
    for k in range(4):
        edge = _crossings(prof[k], ss)
        if edge is None:
            return None
        s, ok = edge
        on_edge = along[k][ok] + s[:, None] * n[k]
        centre = on_edge.mean(axis=0)
        _, _, vt = np.linalg.svd(on_edge - centre)
        lines.append((centre, vt[0]))
    return lines


def _crossings(prof: np.ndarray, ss: np.ndarray):
    """Where each profile (row; dark inside → light outside) crosses half-way, as offsets
    along it, and which rows gave one; None when fewer than 3 do."""
    dark, light = prof[:, :2].mean(axis=1), prof[:, -2:].mean(axis=1)
    half = (dark + light) / 2
    above = prof >= half[:, None]
    j = np.argmax(above, axis=1)  # first sample past half-way
    ok = (light - dark >= MIN_EDGE_CONTRAST) & above.any(axis=1) & (j > 0)
    if ok.sum() < 3:
        return None
    rows, j = np.flatnonzero(ok), j[ok]
    before, after = prof[rows, j - 1], prof[rows, j]
    s = ss[j - 1] + (half[ok] - before) / np.maximum(after - before, 1e-9) * PROFILE_STEP_PX
    return s, ok


def _intersect(l1, l2) -> np.ndarray | None:
    (p, u), (q, v) = l1, l2
    m = np.column_stack([u, -v])
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    s = np.linalg.solve(m, q - p)
    return p + s[0] * u
