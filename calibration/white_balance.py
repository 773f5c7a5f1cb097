"""The markers' paper when it is clipped, and white balance from it when the camera left
a colour cast.

The detector reads colours in log units of 8-bit levels against the white paper, which
undoes any cast a camera's gains can make, so long as the paper is measured and the
gain acts alike on every level. Three things break that when the camera left a strong
cast (its white balance fixed for other light, as a renderer's or a phone's may be) or
overexposed:

* the cast channel's paper is clipped at 255, its true level unknown, and the cast it
  leaves is read as every piece's colour. `unclipped_paper` measures it on the markers'
  mid-tones instead: where ink and paper blur together the camera records their mix in
  light, ink reflects a nearly grey ~3.5 % of the paper's light, so the channels' ratios
  there (in light, not levels) are the paper's;
* an overexposed paper is clipped in every channel, and every piece reads brighter
  against it than it is: `paper_from_ink` puts it where the printed black says;
* the sRGB curve's straight toe and the dark levels' offset treat a gain differently on
  dark pixels, which are the dark pieces (blue and green uprights read black or purple).
  `balance` returns a look-up table that applies the gains that make the paper grey, in
  light, so the picture reaches the detector as a balanced camera would give it.

>>> import numpy as np
>>> balance(np.array([200.0, 200.0, 201.0])) is None      # within CAST_TOLERANCE: as it is
True
>>> lut, paper = balance(np.array([150.0, 200.0, 250.0]))  # warm: blue lifted, red lowered
>>> [round(float(v)) for v in paper]
[200, 200, 200]
>>> [int(lut[0, 150, 0]), int(lut[0, 200, 1]), int(lut[0, 250, 2])]
[200, 200, 200]
"""

from __future__ import annotations

import numpy as np

from calibration.development import PAPER_CLIPPED
from calibration.srgb import LINEAR, levels, to_linear

# The mid-tones that measure a clipped channel: marker points whose 3×3 neighbourhood
# stays under MIDTONE_MAX in every channel (a JPEG's chroma is shared by 2×2 blocks, so a
# clipped neighbour would pull the ratios), at least MIDTONE_MIN of the paper's light in
# the reference channel (below, the ink's own tint and the noise weigh). Measured on
# path-traced pictures cast 1.5× warm and cool (the true paper known from the uncast
# picture): 277 for 277, 281 for 279 (8-bit, extended).
MIDTONE_MAX = 245
MIDTONE_MIN = 0.05
MIDTONE_COUNT = 30    # fewer mid-tones than this: the paper as measured
# Printed black reflects this share of the paper's light: log -3.30 (median; -3.44 to
# -3.14, 10th-90th percentile) on 30 of our renders exposed so that nothing clips, -3.40
# (-3.53 to -3.28) on 30 path-traced ones. A paper clipped in every channel is put this
# far above the ink, within ~6 % of its level.
INK_LIGHT = float(np.exp(-3.35))
# Casts within this (natural log of light, largest channel's distance from the channels'
# mean) are left to the comparisons against the paper: our own renders' varied white
# balance leaves the paper up to 0.18 off grey (median 0.06), path-traced ones 0.11; a
# camera balanced for daylight under 3000 K lamps is ~0.4 off. From 0.1 rather than 0.2,
# our sets and both path-traced wall models read 306 -> 298 mistakes, the coin scenes'
# held-out pennies all read as pennies (three read as nickels before), light cloth 3
# fewer; ten colours lose a black upright beside a marker sheet to green (0.005 past
# colour_reading.GREENER_THAN_TABLE) and Rainbow with black gains a false piece. (Before
# the coin test's bound moved to -0.94, two held-out pennies were lost from 0.1.)
CAST_TOLERANCE = 0.1
# A paper channel under this share of the brightest one's light (a coloured bulb) holds
# too little to be scaled up: the picture is left as it is, not its noise amplified.
FAINTEST_CHANNEL = 0.05


def _light(levels_bgr: np.ndarray) -> np.ndarray:
    """The light of 8-bit levels, rounded as a picture holds them; a level above 255 (a
    clipped channel's estimate) on the sRGB curve continued."""
    v = np.asarray(levels_bgr, float)
    return to_linear(np.where(v > 255, v, np.clip(np.round(v), 0, 255)) / 255)


def unclipped_paper(paper_bgr: np.ndarray, samples_bgr: np.ndarray, neighbourhood_max: np.ndarray) -> np.ndarray:
    """The paper's BGR (`paper_bgr`, measured) with each clipped channel raised to what the
    markers' mid-tones say (`samples_bgr`: N×3 8-bit values at points over the markers,
    `neighbourhood_max`: each point's 3×3 maximum over the channels). Never lowered: a
    clipped channel is at least what it shows. With every channel clipped the paper is
    kept: its level is unknown, and in a picture that overexposed the paper so far the
    mid-tones lie at the markers' edges, where a lens's colour fringes and sharpening tint
    them (a grey paper measured 4-9 % off grey on our renders).

    >>> import numpy as np
    >>> from calibration.srgb import encode
    >>> white = np.array([0.45, 0.6, 1.2])          # the paper's light: red clips
    >>> [int(v) for v in encode(white)]
    [179, 203, 255]
    >>> samples = encode(np.linspace(0.05, 0.75, 50)[:, None] * white).astype(float)   # ink to paper
    >>> paper = unclipped_paper(np.array([179.0, 203.0, 255.0]), samples, samples.max(axis=1))
    >>> [round(float(v)) for v in paper]      # red as the curve continued gives 1.2: 276
    [179, 203, 276]
    """
    paper = np.asarray(paper_bgr, float)
    clipped = paper >= PAPER_CLIPPED
    if not clipped.any() or clipped.all():
        return paper
    ref = int(np.argmax(np.where(clipped, -1.0, paper)))   # the brightest unclipped: least noise
    light, top = _light(samples_bgr), float(_light(paper[ref]))
    keep = (np.asarray(neighbourhood_max) <= MIDTONE_MAX) & (light[:, ref] >= MIDTONE_MIN * top)
    if np.count_nonzero(keep) < MIDTONE_COUNT:
        return paper
    ratio = np.median(light[keep] / light[keep, ref:ref + 1], axis=0)
    return np.where(clipped, np.maximum(paper, levels(ratio * top)), paper)


def paper_from_ink(paper_bgr: np.ndarray, ink_bgr: np.ndarray) -> np.ndarray:
    """A paper clipped in every channel (`paper_bgr`), raised to what the markers' printed
    black (`ink_bgr`) says: ink reflects INK_LIGHT of the paper's light. Never lowered (a
    lifted, filmic ink says less than the clip).

    >>> import numpy as np
    >>> [round(float(v)) for v in paper_from_ink(np.full(3, 255.0), np.array([70.0, 70.0, 75.0]))]
    [325, 325, 345]
    >>> [round(float(v)) for v in paper_from_ink(np.full(3, 255.0), np.array([40.0, 40.0, 40.0]))]
    [255, 255, 255]
    """
    light = _light(ink_bgr) / INK_LIGHT
    return np.maximum(np.asarray(paper_bgr, float), levels(light))


def marker_samples(image: np.ndarray, px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The BGR values at picture points `px` (N×2, rounded; those outside or on the
    picture's border dropped) and each one's 3×3 maximum over the channels, for
    `unclipped_paper`."""
    h, w = image.shape[:2]
    ij = np.round(px).astype(int)
    ij = ij[(ij[:, 0] >= 1) & (ij[:, 0] < w - 1) & (ij[:, 1] >= 1) & (ij[:, 1] < h - 1)]
    if image.ndim != 3 or not len(ij):
        return np.zeros((0, 3)), np.zeros(0)
    flat, at = image.reshape(-1, 3), ij[:, 1] * w + ij[:, 0]
    around = np.take(flat, at[:, None] + (np.arange(-1, 2)[:, None] * w + np.arange(-1, 2)).ravel(), axis=0)
    return np.take(flat, at, axis=0).astype(float), around.max(axis=(1, 2)).astype(float)


def balance(paper_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """A cv2.LUT table (1×256×3 uint8) that makes the paper grey, gains applied in light,
    and the paper's levels after it; None when the cast is within CAST_TOLERANCE, or a
    channel too faint to scale (FAINTEST_CHANNEL). The paper keeps its middle channel's
    light (its brightest may be an estimate above 255).

    >>> balance(np.array([3.0, 120.0, 200.0])) is None   # a red bulb: blue hardly recorded
    True
    """
    light = _light(paper_bgr)
    logs = np.log(np.maximum(light, 1e-6))
    if np.abs(logs - logs.mean()).max() <= CAST_TOLERANCE or light.min() < FAINTEST_CHANNEL * light.max():
        return None
    grey = float(np.median(light))
    gains = grey / np.maximum(light, 1e-6)
    lut = np.clip(np.round(levels(LINEAR[:, None] * gains[None, :])), 0, 255).astype(np.uint8)
    return lut[None], np.full(3, float(levels(np.array(grey))))
