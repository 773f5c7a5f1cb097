"""How sharp the picture is, measured where its sharpness is known: the markers' edges.

Each marker's black square meets the white paper around it in four straight edges at
known places on the table. Across such an edge a blurred picture rises from black to
white as its blur's integral: for a Gaussian blur of σ pixels (a lens out of focus, a
renderer's pixel filter, demosaicing and compression together come close to one), at a
distance d from the edge the light is the share 0.5·(1 + erf(d / (√2·σ))) of the way up.
Profiles across the edges (EDGE_PROFILES a side, away from the corners), taken in linear
light and scaled between the black and white beyond the blur, are fitted with that curve
for σ and a common shift of the edge (the registration's own error, a tenth of a pixel,
in the light the picture stands for; calibration.view_transforms reads a renderer's view
transform from the shift in other lights, `edge_fits`).

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
# and the shift then moving under FIT_SETTLED_PX) on the samples' means in bins BIN_PX
# wide (their width rounds σ by under 0.01 px), the plateaus' levels too.
FIT_STEPS = 10
FIT_SETTLED_PX = 0.002
BIN_PX = 0.1
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


@dataclass(frozen=True)
class EdgeFit:
    """The markers' edges as one blurred step: its σ and how far it sits from where the
    markers put it (+ towards the paper), in picture pixels, pixels a table mm, and how
    far the profiles lie from the step (RMS, in shares of the step)."""

    shift_px: float
    sigma_px: float
    px_per_mm: float
    rms: float


def marker_blur(image: np.ndarray, view: CameraView, layout: MarkerLayout, seen: Sequence[int]) -> Blur | None:
    """The blur of `image` measured across the edges of the markers `seen` (see the
    module's notes); None when too few edges can be read."""
    return blur_of(plain_edge_fit(image, view, layout, seen))


def plain_edge_fit(image: np.ndarray, view: CameraView, layout: MarkerLayout, seen: Sequence[int]) -> EdgeFit | None:
    """The markers' edges fitted in the light of a plain (sRGB) development (`edge_fits`);
    None when too few edges can be read."""
    return edge_fits(image, view, layout, seen, {"sRGB": LINEAR}).get("sRGB")


def blur_of(fit: EdgeFit | None) -> Blur | None:
    """The blur of the markers' edges fitted in sRGB's light (None: not measured)."""
    return None if fit is None else Blur(fit.sigma_px, fit.sigma_px / fit.px_per_mm)


def edge_fits(image: np.ndarray, view: CameraView, layout: MarkerLayout, seen: Sequence[int],
              to_light: dict[str, np.ndarray]) -> dict[str, EdgeFit]:
    """The markers' edges fitted in the light each of `to_light`'s tables (8-bit level →
    light) says the picture's levels stand for (see the module's notes), on the same
    profiles (those with a step in sRGB's light, MIN_STEP); none when too few edges can
    be read."""
    if not seen:
        return {}
    table, across = _profile_points(layout, tuple(sorted(seen)))
    n, k = across.shape
    # each profile's ends projected, the samples laid evenly between them: over its ~12 mm
    # perspective and a strong barrel lens (k1 = -0.3) move them by 0.013 px at most
    ends_px = view.project(table.reshape(-1, 2)).reshape(n, 2, 1, 2)
    share = np.linspace(0.0, 1.0, k)[None, :, None]
    px = ends_px[:, 0] + (ends_px[:, 1] - ends_px[:, 0]) * share
    h, w = image.shape[:2]
    inside = (px[..., 0] >= 0) & (px[..., 0] <= w - 1) & (px[..., 1] >= 0) & (px[..., 1] <= h - 1)
    # pixels per mm across each edge, from the profile's own ends
    scale = np.linalg.norm(px[:, -1] - px[:, 0], axis=1) / (across[:, -1] - across[:, 0])
    ends = int(round(PLATEAU_SHARE * k))
    crops = _crops(px, image.shape)
    srgb = _light_at(image, crops, (n, k), LINEAR)
    black, white = _plateaus(srgb, ends)
    ok = inside.all(axis=1) & (white - black >= MIN_STEP)
    if np.count_nonzero(ok) < MIN_PROFILES:
        return {}
    d = across[ok] * scale[ok, None]
    out = {}
    for name, lut in to_light.items():
        light = (srgb if lut is LINEAR else _light_at(image, crops, (n, k), lut))[ok].astype(np.float64)
        black, white = _plateaus(light, ends)
        fitted = _fit_step(d, (light - black[:, None]) / np.maximum(white - black, 1e-12)[:, None], ends)
        if fitted is not None:
            out[name] = EdgeFit(fitted[0], fitted[1], float(np.median(scale[ok])), fitted[2])
    return out


def _plateaus(light: np.ndarray, ends: int) -> tuple[np.ndarray, np.ndarray]:
    """Each profile's black and white: the medians of its first and last `ends` samples."""
    return np.median(light[:, :ends], axis=1), np.median(light[:, -ends:], axis=1)


def _crops(px: np.ndarray, shape: tuple[int, ...]) -> list[tuple[slice, tuple[slice, slice],
                                                                  tuple[np.ndarray, np.ndarray]]]:
    """Each marker's profiles (4 · EDGE_PROFILES rows of `px`, profiles × samples × 2) with
    the crop of a picture of `shape` around them and their points in the crop (x, y maps)."""
    h, w = shape[:2]
    rows = 4 * EDGE_PROFILES
    # x and y apart: numpy reduces a middle axis of pairs ~30 times slower
    x, y = (px[..., i].reshape(len(px) // rows, -1) for i in (0, 1))
    low = np.clip(np.floor(np.column_stack([x.min(axis=1), y.min(axis=1)])).astype(int) - 1, 0, (w - 1, h - 1))
    high = np.clip(np.ceil(np.column_stack([x.max(axis=1), y.max(axis=1)])).astype(int) + 2, low + 1, (w, h))
    at = (px - np.repeat(low, rows, axis=0)[:, None]).astype(np.float32)
    return [(slice(m * rows, (m + 1) * rows), np.s_[y0:y1, x0:x1], (at[m * rows:(m + 1) * rows, :, 0],
                                                                    at[m * rows:(m + 1) * rows, :, 1]))
            for m, ((x0, y0), (x1, y1)) in enumerate(zip(low, high))]


def _light_at(image: np.ndarray, crops: list, n: tuple[int, int], lut: np.ndarray) -> np.ndarray:
    """The light (`lut`: 8-bit level → light) at the profiles' points (`crops`, `_crops`;
    `n`: profiles, samples), interpolated between their four pixels in that light and
    averaged over the channels."""
    out = np.empty(n, np.float32)
    lut = lut.astype(np.float32)
    for rows, box, at in crops:
        light = cv2.remap(lut[image[box]], at[0], at[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        out[rows] = light.sum(axis=-1) / 3 if light.ndim == 3 else light
    return out


def _fit_step(d: np.ndarray, v: np.ndarray, ends: int) -> tuple[float, float, float] | None:
    """The shift, σ and RMS distance of the blurred step nearest the profiles (d: each
    sample's signed distance from the edge, px; v: its light scaled from the profile's
    black, its first `ends` samples, to its white, its last `ends`), by Gauss-Newton on
    the samples' means in BIN_PX bins (the Jacobian by differences). The step is
    0.5·(1 + erf((d - shift) / (√2·σ))) scaled the same way: a blur wide for the border
    module leaves its black a little lit and its white a little dim, and the scaled
    profile looks sharper than the blur is."""
    centre, mean, count = _binned(d, v)
    weight = np.sqrt(count)
    dark, dark_count = _binned(d[:, :ends])[::2]
    light, light_count = _binned(d[:, -ends:])[::2]
    at = np.concatenate([centre, dark, light])
    split = np.cumsum([len(centre), len(dark)])

    def models(p: np.ndarray) -> np.ndarray:
        """The scaled step at the profile bins for each row of parameters p (shift, σ)."""
        step = 0.5 * (1 + erf((at - p[:, :1]) / (math.sqrt(2) * p[:, 1:])))
        on, lo, hi = np.split(step, split, axis=1)
        lo, hi = lo @ dark_count / dark_count.sum(), hi @ light_count / light_count.sum()
        return (on - lo[:, None]) / np.maximum(hi - lo, 1e-6)[:, None]

    p = np.array([0.0, 1.0])
    nudge = np.eye(2) * 1e-3
    for _ in range(FIT_STEPS):
        m = models(np.vstack([p, p + nudge, p - nudge]))
        r = (m[0] - mean) * weight
        j = ((m[1:3] - m[3:5]) / 2e-3).T * weight[:, None]
        change = np.linalg.lstsq(j, -r, rcond=None)[0]
        p = p + change
        p[1] = min(max(p[1], 0.05), 20.0)
        if np.abs(change).max() < FIT_SETTLED_PX:
            break
    rms = float(np.sqrt(np.sum(count * (models(p[None])[0] - mean) ** 2) / np.sum(count)))
    return (float(p[0]), float(p[1]), rms) if np.all(np.isfinite(p)) and np.isfinite(rms) else None


def _binned(d: np.ndarray, v: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Samples at distances `d` gathered in BIN_PX bins: each used bin's mean distance,
    mean value of `v` (zeros without it) and sample count."""
    bins = np.round(d.ravel() / BIN_PX).astype(np.int64)
    bins -= bins.min()
    count = np.bincount(bins)
    used = count > 0
    n = count[used].astype(np.float64)
    centre = np.bincount(bins, d.ravel())[used] / n
    mean = np.bincount(bins, v.ravel())[used] / n if v is not None else np.zeros_like(n)
    return centre, mean, n


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
