"""How the picture was developed: its contrast, measured on the markers' printed ink.

The detector compares colours in log units of 8-bit values, which assumes a plain
development: scene light through the sRGB curve. Many pictures are not developed so.
A renderer's filmic view transform (Blender's AgX and Filmic, ACES, Reinhard) or a
camera's flat profile lifts the darks and compresses every contrast: a piece changes
the table less, in hue and brightness, than the thresholds expect, and faint pieces
are lost or read a size small.

The markers measure it. Black toner on white paper reflects ~5 % of the light the
paper does; plainly developed, its 8-bit value is PLAIN_INK_LOG below the paper's (log
units of level + LEVEL_OFFSET). A picture whose ink is lighter than
LIFTED_INK_LOG has had its contrasts flattened, and `restore_contrast` scales every log
contrast about the paper's level back by PLAIN_INK_LOG / measured (a power curve
through the paper's value). Ink darker than plain is left alone: pure black print and
a contrasty camera curve look alike there, and the detector copes with more contrast
far better than with less. Nor is paper clipped by overexposure: its true level is not
known.

>>> import numpy as np
>>> paper = np.array([230.0, 230.0, 230.0])
>>> contrast_gamma(np.array([50.0, 50.0, 50.0]), paper)      # plainly developed
1.0
>>> contrast_gamma(np.array([95.0, 95.0, 95.0]), np.full(3, 255.0))   # paper clipped: unknown
1.0
>>> g = contrast_gamma(np.array([80.0, 80.0, 80.0]), paper)  # lifted ink
>>> round(g, 2)
1.48
>>> lut = restore_contrast(g, paper)
>>> int(lut[0, 230, 0]), int(lut[0, 80, 0])                 # the paper stays, the ink darkens
(230, 47)
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from calibration.camera import CameraView
from calibration.markers import MarkerLayout

# log((ink + 4) / (paper + 4)) of printed black ink in a plainly developed picture
# (measured as `ink_black`): -1.37 … -1.76 on 50 of our renders, median -1.51; -1.43 …
# -1.68 on 77 path-traced ones, median -1.54 (pictures with clipped paper left out).
PLAIN_INK_LOG = -1.52
# Ink lighter than this (log, as above) says the picture's contrasts were flattened well
# beyond any plain development of printed ink (strongly defocused, 2.5 px, it stays
# below -1.24). Our renders developed through a filmic view transform
# (vision.render.sensor) measure -0.82 … -1.79, median -1.25; a stop brighter -0.63 …
# -1.51, median -1.0. The restored contrast also amplifies the table's texture and noise
# in its darkest channel (green felt's red): mildly flattened pictures lose more to
# false pieces than they gain in pieces found, so only strongly flattened ones are
# restored.
LIFTED_INK_LOG = -1.15
# No more than this: further, restored colours overshoot their models (a stop-brighter
# filmic development's red read orange, blue yellow: colour 97.6 % with a bound of 2.0,
# 97.8 % with this one, 97.9 % unrestored on 30 renders).
GAMMA_MAX = 1.6
# Paper this bright (8-bit, any channel) may be clipped: its true level, and so the ink's
# contrast to it, is unknown (an overexposed plain picture's ink looks lifted).
PAPER_CLIPPED = 250
# The ink: the darkest INK_SHARE of points over the markers' black squares (about 60 %
# of a square is black), on a grid of SQUARE_STEPS a side.
INK_SHARE = 0.1
SQUARE_STEPS = 30
# Logs of 8-bit levels are taken of level + LEVEL_OFFSET: the sensor's noise floor (a
# channel this dark says little), which keeps the darkest levels' logs from diverging.
LEVEL_OFFSET = 4.0


def ink_black(image: np.ndarray, view: CameraView, layout: MarkerLayout, seen: list[int]) -> np.ndarray:
    """BGR of the seen markers' printed black: the median of the darkest INK_SHARE of
    points over their black squares, each the mean of its 3×3 pixels (noise averaged
    down). A marker's black modules form clusters two or more modules wide, whose middles
    a defocused picture keeps black; the thin border alone it greys."""
    if not seen:
        return np.zeros(3)
    samples = []
    h, w = image.shape[:2]
    for px in np.split(squares_px(view, layout, seen), len(seen)):
        x0, y0 = np.floor(px.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 3
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 - x0 < 3 or y1 - y0 < 3:
            continue
        crop = cv2.blur(image[y0:y1, x0:x1], (3, 3)).reshape(y1 - y0, x1 - x0, -1)
        ij = np.round(px - (x0, y0)).astype(int)
        ok = (ij[:, 0] >= 0) & (ij[:, 0] < x1 - x0) & (ij[:, 1] >= 0) & (ij[:, 1] < y1 - y0)
        samples.append(crop[ij[ok, 1], ij[ok, 0]].astype(np.float64))
    if not samples:
        return np.zeros(3)
    values = np.concatenate(samples)
    level = values.mean(axis=1)
    return np.median(values[level <= np.percentile(level, INK_SHARE * 100)], axis=0)


# the last pose's (view, layout, seen) and square pixels, one tuple (swapped whole, so
# threads never see a key with another pose's pixels): a video's frames share a pose
_last_squares: tuple = ((None, None, ()), None)


def squares_px(view: CameraView, layout: MarkerLayout, seen: list[int]) -> np.ndarray:
    """The seen markers' square_points in the picture, marker after marker (one projection
    for them all: the call's overhead dominates)."""
    global _last_squares
    (v, lay, ids), px = _last_squares
    if v is not view or lay is not layout or ids != tuple(seen):
        px = view.project(np.concatenate([square_points(layout, i) for i in seen]))
        _last_squares = ((view, layout, tuple(seen)), px)
    return px


@lru_cache(maxsize=64)
def square_points(layout: MarkerLayout, marker_id: int) -> np.ndarray:
    """A grid of table points (SQUARE_STEPS a side) over a marker's black square."""
    m = layout.marker(marker_id)
    g = np.linspace(-m.size / 2, m.size / 2, SQUARE_STEPS)
    xx, yy = np.meshgrid(g, g)
    return np.column_stack([xx.ravel(), yy.ravel()]) + m.center


def ink_log(ink_bgr: np.ndarray, paper_bgr: np.ndarray) -> float:
    """The ink's level below the paper's: mean over channels of log((ink + LEVEL_OFFSET) / (paper + LEVEL_OFFSET))."""
    ink, paper = (np.log(np.asarray(v, float) + LEVEL_OFFSET) for v in (ink_bgr, paper_bgr))
    return float(np.mean(ink - paper))


def contrast_gamma(ink_bgr: np.ndarray, paper_bgr: np.ndarray) -> float:
    """The factor that restores a flattened picture's log contrasts (1.0: leave it)."""
    m = ink_log(ink_bgr, paper_bgr)
    if m <= LIFTED_INK_LOG or np.max(paper_bgr) >= PAPER_CLIPPED:
        return 1.0
    return float(min(PLAIN_INK_LOG / min(m, -1e-3), GAMMA_MAX))


def restore_contrast(gamma: float, paper_bgr: np.ndarray) -> np.ndarray:
    """A cv2.LUT table (1×256×3 uint8) scaling log contrasts about the paper's level by
    `gamma`, channel by channel."""
    levels = np.log(np.arange(256, dtype=np.float64) + LEVEL_OFFSET)[:, None]
    paper = np.log(np.asarray(paper_bgr, float) + LEVEL_OFFSET)[None, :]
    out = np.exp(paper + gamma * (levels - paper)) - LEVEL_OFFSET
    return np.clip(np.round(out), 0, 255).astype(np.uint8)[None]
