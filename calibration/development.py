"""How the picture was developed: its contrast, measured on the markers' printed ink.

The detector compares colours in log units of 8-bit values, which assumes a plain
development: scene light through the sRGB curve. Many pictures are not developed so.
A renderer's filmic view transform (Blender's AgX and Filmic, ACES, Reinhard) or a
camera's flat profile lifts the darks and compresses every contrast: a piece changes
the table less, in hue and brightness, than the thresholds expect, and faint pieces
are lost or read a size small.

The markers measure it. Black toner on white paper reflects ~5 % of the light the
paper does; plainly developed, its 8-bit value is PLAIN_INK_LOG below the paper's (log
units, values + 4 as in vision.segment). A picture whose ink is lighter than
LIFTED_INK_LOG has had its contrasts flattened, and `restore_contrast` scales every log
contrast about the paper's level back by PLAIN_INK_LOG / measured (a power curve
through the paper's value). Ink darker than plain is left alone: pure black print and
a contrasty camera curve look alike there, and the detector copes with more contrast
far better than with less. Nor is paper clipped by overexposure: its true level is not
known.

>>> import numpy as np
>>> paper = np.array([230.0, 230.0, 230.0])
>>> contrast_gamma(np.array([60.0, 60.0, 60.0]), paper)      # plainly developed
1.0
>>> contrast_gamma(np.array([95.0, 95.0, 95.0]), np.full(3, 255.0))   # paper clipped: unknown
1.0
>>> g = contrast_gamma(np.array([95.0, 95.0, 95.0]), paper)  # lifted ink
>>> round(g, 2)
1.55
>>> lut = restore_contrast(g, paper)
>>> int(lut[0, 230, 0]), int(lut[0, 95, 0])                 # the paper stays, the ink darkens
(230, 58)
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from calibration.camera import CameraView
from calibration.markers import MarkerLayout

# log((ink + 4) / (paper + 4)) of printed black ink in a plainly developed picture:
# measured -1.23 … -1.41 on our renders, -1.26 … -1.43 on path-traced ones.
PLAIN_INK_LOG = -1.33
# Ink lighter than this (log, as above) says the picture's contrasts were flattened well
# beyond any plain development of printed ink (a defocused or glary picture of it stays
# below -1.2 on our renders). Our renders developed through a filmic view transform
# (vision.render.sensor) measure -0.75 … -1.33, and a stop brighter -0.58 … -1.09. The
# restored contrast also amplifies the table's texture and noise in its darkest channel
# (felt's red): mildly flattened pictures (-1.0 … -1.15) lose more to false pieces than
# they gain in pieces found, so only strongly flattened ones are restored.
LIFTED_INK_LOG = -1.0
# No more than this: a reading past it (ink nearly as light as the paper) is a marker
# under a reflection or misread, not a development.
GAMMA_MAX = 2.0
# Paper this bright (8-bit, any channel) may be clipped: its true level, and so the ink's
# contrast to it, is unknown (an overexposed plain picture's ink looks lifted).
PAPER_CLIPPED = 250
# Points on each marker's black border ring (its outermost module), this many a side.
BORDER_STEPS = 25
_OFFSET = 4.0   # as vision.segment's LOG_LUT: the sensor's noise floor, levels


def ink_black(image: np.ndarray, view: CameraView, layout: MarkerLayout, seen: list[int]) -> np.ndarray:
    """Median BGR of the seen markers' black border rings (middle of the outermost module)."""
    px = np.round(view.project(_border_points(layout, tuple(seen)))).astype(int)
    h, w = image.shape[:2]
    inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    if not inside.any():
        return np.zeros(3)
    return np.median(image[px[inside, 1], px[inside, 0]].reshape(-1, image.shape[2] if image.ndim == 3 else 1),
                     axis=0).astype(np.float64)


@lru_cache(maxsize=16)
def _border_points(layout: MarkerLayout, ids: tuple[int, ...]) -> np.ndarray:
    out = []
    for m in map(layout.marker, ids):
        d = m.size / 2 - 0.5 * m.size / layout.modules
        g = np.linspace(-d, d, BORDER_STEPS)
        ring = np.concatenate([np.column_stack([g, np.full_like(g, s * d)]) for s in (-1, 1)]
                              + [np.column_stack([np.full_like(g, s * d), g]) for s in (-1, 1)])
        out.append(ring + m.center)
    return np.concatenate(out)


def ink_log(ink_bgr: np.ndarray, paper_bgr: np.ndarray) -> float:
    """The ink's level below the paper's: mean over channels of log((ink + 4) / (paper + 4))."""
    return float(np.mean(np.log(np.asarray(ink_bgr, float) + _OFFSET) - np.log(np.asarray(paper_bgr, float) + _OFFSET)))


def contrast_gamma(ink_bgr: np.ndarray, paper_bgr: np.ndarray) -> float:
    """The factor that restores a flattened picture's log contrasts (1.0: leave it)."""
    m = ink_log(ink_bgr, paper_bgr)
    if m <= LIFTED_INK_LOG or np.max(paper_bgr) >= PAPER_CLIPPED:
        return 1.0
    return float(min(PLAIN_INK_LOG / min(m, -1e-3), GAMMA_MAX))


def restore_contrast(gamma: float, paper_bgr: np.ndarray) -> np.ndarray:
    """A cv2.LUT table (1×256×3 uint8) scaling log contrasts about the paper's level by
    `gamma`, channel by channel."""
    levels = np.log(np.arange(256, dtype=np.float64) + _OFFSET)[:, None]
    paper = np.log(np.asarray(paper_bgr, float) + _OFFSET)[None, :]
    out = np.exp(paper + gamma * (levels - paper)) - _OFFSET
    return np.clip(np.round(out), 0, 255).astype(np.uint8)[None]
