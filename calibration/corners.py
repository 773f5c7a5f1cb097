"""Marker corners to a fraction of a pixel, from the straight edges of the black square.

Corner detectors (cornerSubPix included) pull a blurred convex corner inwards: blur rounds
it, and on a marker 40-60 px wide seen through a slightly soft lens the pull is 0.3-0.5 px.
A straight edge is not biased by a symmetric blur: its 50% crossing stays where the edge
is — 50 % of the light, that is: lenses blur light, and cameras then encode it with a
gamma curve (sRGB), under which half-way in pixel values is only ~21 % of the light, a
crossing pulled into the black square (~1 px, 4 % of a 45 px marker, with a blur of
σ = 2.5 px). So each side of the black square is sampled along its middle, the profiles
across it decoded to linear light, the crossing found half-way, a line fitted through the
crossings, and the corners taken where neighbouring lines meet.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.srgb import LINEAR, encode

_LIGHT = LINEAR.astype(np.float32).reshape(1, 256)

# Part of each side sampled (its middle, clear of the rounded corners), and how many
# profiles across it.
SIDE_SPAN = (0.15, 0.85)
SAMPLES_ALONG = 16
# Profiles across a side reach this fraction of a module either way (inside the one-module
# black border, and inside the white paper beyond it), in this many samples.
PROFILE_REACH_MODULES = 0.45
SAMPLES_ACROSS = 29
# Profiles whose dark-to-light step is below this (grey levels, as encoded) are shadowed or
# occluded.
MIN_EDGE_CONTRAST = 25.0
# A side needs this many good profiles for its line.
MIN_PROFILES = 4
# A refined corner further than this from its first estimate (px) is kept as first found.
MAX_SHIFT_PX = 2.0


def refine_corners(grey: np.ndarray, corners: np.ndarray, modules: int) -> np.ndarray:
    """M×4×2 marker corners (OpenCV order, clockwise in the picture; grey uint8 picture)
    → refined M×4×2 corners. All markers' profiles are sampled in one remap."""
    a = np.asarray(corners, np.float64)
    b = np.roll(a, -1, axis=1)
    length = np.linalg.norm(b - a, axis=2)  # M × 4: side k runs from corner k to k+1
    d = (b - a) / length[..., None]
    n = np.stack([d[..., 1], -d[..., 0]], axis=-1)  # outward: towards the paper
    reach = PROFILE_REACH_MODULES * length.mean(axis=1) / modules  # M
    ts = np.linspace(*SIDE_SPAN, SAMPLES_ALONG)
    ss = np.linspace(-1.0, 1.0, SAMPLES_ACROSS)[None, :] * reach[:, None]  # M × S
    along = a[:, :, None, :] + (ts[None, None, :, None] * length[..., None, None]) * d[:, :, None, :]
    pts = along[:, :, :, None, :] + ss[:, None, None, :, None] * n[:, :, None, None, :]  # M×4×T×S×2
    flat = pts.reshape(-1, SAMPLES_ACROSS, 2).astype(np.float32)
    # sampled in light (interpolating pixel values would bend the profile as the curve does)
    light = cv2.remap(cv2.LUT(grey, _LIGHT), flat[..., 0], flat[..., 1], cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_REPLICATE).reshape(pts.shape[:4])
    offset, ok = _crossings(light, ss)
    ok &= encode(light[..., -2:].mean(axis=-1)).astype(float) - encode(light[..., :2].mean(axis=-1)) >= MIN_EDGE_CONTRAST
    edge_pts = along + offset[..., None] * n[:, :, None, :]
    centre, direction, enough = _fit_lines(edge_pts, ok)
    # corner k is where side k−1 (into it) meets side k (out of it)
    p, u = np.roll(centre, 1, axis=1), np.roll(direction, 1, axis=1)
    new, meets = _intersect(p, u, centre, direction)
    good = meets & enough & np.roll(enough, 1, axis=1) & (reach[:, None] >= 1.0) \
        & (np.linalg.norm(new - a, axis=2) <= MAX_SHIFT_PX)
    return np.where(good[..., None], new, a)


def _crossings(prof: np.ndarray, ss: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each profile (last axis, linear light; dark inside → light outside) crosses
    half-way, as an offset along it (M×4×T), and which profiles gave one."""
    dark, light = prof[..., :2].mean(axis=-1), prof[..., -2:].mean(axis=-1)
    half = (dark + light) / 2
    above = prof >= half[..., None]
    j = np.argmax(above, axis=-1)  # first sample past half-way
    ok = above.any(axis=-1) & (j > 0)
    j = np.maximum(j, 1)
    before = np.take_along_axis(prof, (j - 1)[..., None], axis=-1)[..., 0]
    after = np.take_along_axis(prof, j[..., None], axis=-1)[..., 0]
    step = (ss[:, 1] - ss[:, 0])[:, None, None]
    start = np.take_along_axis(ss[:, None, :].repeat(prof.shape[1], axis=1), j - 1, axis=-1)
    return start + (half - before) / np.maximum(after - before, 1e-9) * step, ok


def _fit_lines(points: np.ndarray, ok: np.ndarray):
    """Total-least-squares line through each side's good points: (centre, unit direction,
    whether it had MIN_PROFILES points), each M×4(×2)."""
    w = ok.astype(np.float64)
    count = w.sum(axis=-1)
    centre = (points * w[..., None]).sum(axis=2) / np.maximum(count, 1)[..., None]
    q = (points - centre[:, :, None, :]) * np.sqrt(w)[..., None]
    cov = np.einsum("mktj,mkti->mkji", q, q)
    _, vecs = np.linalg.eigh(cov)
    return centre, vecs[..., :, -1], count >= MIN_PROFILES


def _intersect(p, u, q, v) -> tuple[np.ndarray, np.ndarray]:
    """Where lines p + s·u and q + t·v meet (…×2), and whether they are far from parallel."""
    det = u[..., 0] * -v[..., 1] - (-v[..., 0]) * u[..., 1]
    meets = np.abs(det) > 1e-6
    r = q - p
    s = (r[..., 0] * -v[..., 1] - (-v[..., 0]) * r[..., 1]) / np.where(meets, det, 1.0)
    return p + s[..., None] * u, meets
