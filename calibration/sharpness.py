"""How sharp the picture is, measured where its sharpness is known: the markers' edges.

Each marker's black square meets the white paper around it in four straight edges at
known places on the table. Across such an edge a blurred picture rises from black to
white as its blur's integral: for a Gaussian blur of σ pixels (a lens out of focus, a
renderer's pixel filter, demosaicing and compression together come close to one), at a
distance d from the edge the light is the share 0.5·(1 + erf(d / (√2·σ))) of the way up.
Profiles across the edges (EDGE_PROFILES a side, away from the corners), taken in linear
light and scaled between the black and white beyond the blur, are fitted with that curve
for σ and a common shift of the edge (the registration's own error, a tenth of a pixel).

Sharpness matters to the detector: a piece's faint faces and thin rims fade into the
table as the blur grows. The 66 path-traced scenes measure 0.59-0.63 px here as
rendered (~0.6 mm on the table), where 98.8 % of the pieces found are read the right
size; blurred 0.5 px more in their light they measure 0.70-0.77 px (97.3 %), 1 px more
1.02-1.17 px (95.8 %, and 1.2 % fewer pieces found), 1.5 px more 1.35-1.60 px (91.4 %).
A picture blurred past SOFT_PICTURE_MM on the table is said to be soft: focus the camera.
(Paper clipped by overexposure cuts the top off each edge and reads sharper than it is:
0.48 px for 0.6 on path-traced pictures a stop over; no harm for the warning.)

>>> from calibration.camera import CameraView
>>> from calibration.markers import MarkerLayout
>>> from calibration.synthetic import picture_of_layout
>>> import cv2
>>> from calibration.srgb import encode
>>> layout, view = MarkerLayout.default(), CameraView.looking_down(distance_mm=900)
>>> sharp = picture_of_layout(layout, view, seed=1)
>>> soft = encode(cv2.GaussianBlur(LINEAR[sharp].astype(np.float32), (0, 0), 2.0))   # in light
>>> a, b = (marker_blur(p, view, layout, [0, 1, 2, 3]) for p in (sharp, soft))
>>> round(a.sigma_px, 1), round(b.sigma_px, 1), a.soft, b.soft   # 2 px more: √(0.46² + 2²) = 2.05
(0.5, 2.0, False, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import cv2
import numpy as np
from scipy.special import erf

from calibration.camera import CameraView
from calibration.markers import MarkerLayout
from calibration.srgb import LINEAR

# Profiles across each side of each marker's black square, spread over the middle
# ALONG_SHARE of the side (a corner's two edges blur into each other).
EDGE_PROFILES = 10
ALONG_SHARE = 0.7
# Each profile reaches these shares of a module (a bit cell: 8.3 mm on the default sheet)
# into the marker's black border (a module wide: the pattern's white cells lie beyond it,
# and their light spreads back as far as the blur) and out over its white quiet zone (1.5
# modules), in PROFILE_SAMPLES steps: past a blur of 2 px at ~1 px a mm. The outer
# PLATEAU_SHARE of it at either end gives the black and the white.
INWARD_MODULES, OUTWARD_MODULES = 0.5, 0.9
PROFILE_SAMPLES = 61
PLATEAU_SHARE = 0.3
# A profile whose white is not this much (linear light, 0-1) above its black crosses no
# edge worth reading (a shadow or a hand on the marker, a clipped or unlit sheet).
MIN_STEP = 0.1
# Fewer usable profiles than this and the sharpness is not measured.
MIN_PROFILES = 8
# The fit: up to FIT_STEPS Gauss-Newton steps (from σ = 1 px it settles within 5-6, σ
# then moving under FIT_SETTLED_PX) on the samples' means in bins BIN_PX wide (their
# width rounds σ by under 0.01 px), the plateaus' levels from every PLATEAU_THIN-th of
# their samples.
FIT_STEPS = 10
FIT_SETTLED_PX = 0.002
BIN_PX = 0.1
PLATEAU_THIN = 5
# A picture whose blur on the table (σ, mm) is more than this is soft: on the path-traced
# scenes (~1 px a mm) sizes fall under 97 % from about here (see above).
SOFT_PICTURE_MM = 0.85


@dataclass(frozen=True)
class Blur:
    """A picture's blur at its markers: σ of a Gaussian, in picture pixels and table mm."""

    sigma_px: float
    sigma_mm: float

    @property
    def soft(self) -> bool:
        return self.sigma_mm > SOFT_PICTURE_MM

    def warning(self) -> str:
        return (f"the picture is soft (blur {self.sigma_px:.1f} px, {self.sigma_mm:.1f} mm on the table): "
                f"focus the camera; pieces' sizes may be misread")


def soft_warning(blur: Blur | None) -> str | None:
    """What to tell the players about a picture's blur (measured, else None): its
    warning if it is soft, else nothing."""
    return blur.warning() if blur is not None and blur.soft else None


def marker_blur(image: np.ndarray, view: CameraView, layout: MarkerLayout, seen: Sequence[int]) -> Blur | None:
    """The blur of `image` measured across the edges of the markers `seen` (see the
    module's notes); None when too few edges can be read."""
    if not seen:
        return None
    table, across = _profile_points(layout, tuple(sorted(seen)))
    n, k = across.shape
    # each profile's ends projected, the samples laid evenly between them: over its ~12 mm
    # perspective and a strong barrel lens (k1 = -0.3) move them by 0.013 px at most
    ends_px = view.project(table.reshape(-1, 2)).reshape(n, 2, 1, 2)
    share = np.linspace(0.0, 1.0, k)[None, :, None]
    px = (ends_px[:, 0] + (ends_px[:, 1] - ends_px[:, 0]) * share).astype(np.float32)
    samples = cv2.remap(image, px[..., 0], px[..., 1], cv2.INTER_LINEAR)
    light = LINEAR[samples].mean(axis=2) if samples.ndim == 3 else LINEAR[samples]
    h, w = image.shape[:2]
    inside = (px[..., 0] >= 0) & (px[..., 0] <= w - 1) & (px[..., 1] >= 0) & (px[..., 1] <= h - 1)
    # pixels per mm across each edge, from the profile's own ends
    scale = np.linalg.norm(px[:, -1] - px[:, 0], axis=1) / (across[:, -1] - across[:, 0])
    ends = int(round(PLATEAU_SHARE * k))
    black, white = np.median(light[:, :ends], axis=1), np.median(light[:, -ends:], axis=1)
    ok = inside.all(axis=1) & (white - black >= MIN_STEP)
    if np.count_nonzero(ok) < MIN_PROFILES:
        return None
    d = across[ok] * scale[ok, None]
    v = (light[ok] - black[ok, None]) / (white[ok] - black[ok])[:, None]
    sigma_px = _fit_sigma(d, v, ends)
    if sigma_px is None:
        return None
    return Blur(sigma_px, sigma_px / float(np.median(scale[ok])))


def _fit_sigma(d: np.ndarray, v: np.ndarray, ends: int) -> float | None:
    """σ (and a shift) of the blurred step nearest the profiles (d: each sample's signed
    distance from the edge, px; v: its light scaled from the profile's black, its first
    `ends` samples, to its white, its last `ends`), by Gauss-Newton on the samples'
    means in BIN_PX bins (the Jacobian by differences). The step is
    0.5·(1 + erf((d - shift) / (√2·σ))) scaled the same way: a blur wide for the border
    module leaves its black a little lit and its white a little dim, and the scaled
    profile looks sharper than the blur is."""
    bins = np.round(d.ravel() / BIN_PX).astype(np.int64)
    bins -= bins.min()
    count = np.bincount(bins)
    used = count > 0
    centre = (np.bincount(bins, d.ravel()) / np.maximum(count, 1))[used]
    mean = (np.bincount(bins, v.ravel()) / np.maximum(count, 1))[used]
    weight = np.sqrt(count[used])
    dark, light = d[:, :ends].ravel()[::PLATEAU_THIN], d[:, -ends:].ravel()[::PLATEAU_THIN]

    def model(p: np.ndarray) -> np.ndarray:
        def step(x: np.ndarray) -> np.ndarray:
            return 0.5 * (1 + erf((x - p[0]) / (math.sqrt(2) * p[1])))
        lo, hi = step(dark).mean(), step(light).mean()
        return (step(centre) - lo) / max(hi - lo, 1e-6)

    p = np.array([0.0, 1.0])
    for _ in range(FIT_STEPS):
        r = (model(p) - mean) * weight
        j = np.column_stack([(model(p + e) - model(p - e)) / (2 * e.sum()) for e in np.eye(2) * 1e-3])
        j *= weight[:, None]
        change = np.linalg.lstsq(j, -r, rcond=None)[0]
        p = p + change
        p[1] = min(max(p[1], 0.05), 20.0)
        if abs(change[1]) < FIT_SETTLED_PX:
            break
    return float(p[1]) if np.all(np.isfinite(p)) else None


@lru_cache(maxsize=16)
def _profile_points(layout: MarkerLayout, seen: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The ends of the profiles across the seen markers' edges (table points, profiles ×
    2 × 2) and each profile's samples' signed distances from its edge (mm, + towards the
    paper; evenly spaced between the ends)."""
    points, offsets = [], []
    for m in map(layout.marker, seen):
        (cx, cy), h = m.center, m.size / 2
        module = m.size / layout.modules
        u = np.linspace(-INWARD_MODULES * module, OUTWARD_MODULES * module, PROFILE_SAMPLES)
        t = np.linspace(-ALONG_SHARE * h, ALONG_SHARE * h, EDGE_PROFILES)
        for nx, ny in ((0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)):
            on_edge = np.column_stack([cx + nx * h - ny * t, cy + ny * h + nx * t])
            reach = np.array([[nx * u[0], ny * u[0]], [nx * u[-1], ny * u[-1]]])
            points.append(on_edge[:, None, :] + reach[None])
            offsets.append(np.broadcast_to(u, (EDGE_PROFILES, PROFILE_SAMPLES)))
    return np.concatenate(points), np.concatenate(offsets)
