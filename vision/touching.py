"""Touching pieces: one blob, several pieces, cut apart.

Pieces of different colours are cut by hue, pieces meeting at a narrow neck by erosion,
same-coloured pieces pressed together along the valley of weaker evidence between them.

>>> import numpy as np
>>> two = np.zeros((50, 50), np.uint8)
>>> two[2:22, 2:22] = 255; two[24:44, 24:44] = 255; two[20:26, 20:26] = 255   # corner to corner
>>> round(float(solidity(two)), 2), [int(np.count_nonzero(p)) for p in split(two)]
(0.66, [417, 411])
"""

from __future__ import annotations

import cv2
import numpy as np

from vision import mask_kernels
from vision.mask_kernels import components
from vision.medians import median

# A blob bigger than this (mm²; a large upright's silhouette is at most ~850) may be
# pieces of different colours touching: its hues (HUE_BINS bins around the circle)
# are looked at, and peaks of at least HUE_PEAK_SHARE of the highest split it.
MERGED_MM2 = 900.0
HUE_BINS = 24
HUE_PEAK_SHARE = 0.25
# A pyramid's silhouette is convex; a blob whose area is less than this share of its
# convex hull is taken for touching pieces and split (eroding up to SPLIT_ERODE_MAX
# pixels, keeping parts of at least SPLIT_SEED_PX).
SOLIDITY_MIN = 0.75
SPLIT_ERODE_MAX = 5
SPLIT_SEED_PX = 20
# A blob still too big for one piece (MERGED_MM2) after those splits is same-coloured
# pieces touching: the table or the shade in the crevice between them shows as a valley
# of weaker evidence. It is cut at rising levels (these fractions of its median
# evidence) until it falls apart into parts of at least MIN_BLOB_MM2.
VALLEY_LEVELS = (0.6, 0.75, 0.9, 1.05)
# A blob from VALLEY_MM2 (two small pieces' bases and their rims) up to MERGED_MM2 may be
# one piece or two small ones: only a deep valley cuts it (the crevice between two
# pieces), not the shallower step between one piece's faces (a large flat's raised
# tail face, cut at 0.9-1.05, read as a medium flat and a small piece).
VALLEY_MM2 = 500.0
DEEP_VALLEY_LEVELS = VALLEY_LEVELS[:2]   # 0.6 and 0.75
# Smallest blob worth fitting, mm²: half the base of a small piece (14.3 mm square).
MIN_BLOB_MM2 = 100.0

# Where a cropped mask lies in the box it was cut from: ((x, y), (width, height)).
Within = tuple[tuple[int, int], tuple[int, int]]


def split_by_hue(mask: np.ndarray, hue: np.ndarray, res: float) -> list[np.ndarray]:
    """Pieces of different colours touching: a blob too big for one piece whose pixels'
    hues gather around several clearly separate directions is cut by hue."""
    if np.count_nonzero(mask) * res ** 2 < MERGED_MM2:
        return [mask]
    h = hue[mask > 0]
    chroma = np.hypot(h[:, 0], h[:, 1])
    angle = np.degrees(np.arctan2(h[:, 1], h[:, 0])) % 360
    hist, _ = np.histogram(angle, bins=HUE_BINS, range=(0, 360), weights=chroma)
    hist = hist + 0.5 * (np.roll(hist, 1) + np.roll(hist, -1))
    peaks = [i for i in range(HUE_BINS) if hist[i] >= hist[i - 1] and hist[i] > hist[(i + 1) % HUE_BINS]
             and hist[i] >= HUE_PEAK_SHARE * hist.max()]
    if len(peaks) < 2:
        return [mask]
    centres = (np.array(peaks) + 0.5) * 360 / HUE_BINS
    gap = angle_apart(angle[:, None], centres[None, :])
    owner = np.full(mask.shape, -1)
    owner[mask > 0] = np.argmin(gap, axis=1)
    out = []
    for k in range(len(peaks)):
        sub = cv2.morphologyEx(((owner == k) * 255).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, labels, stats = components(sub)
        out += [(labels == i).astype(np.uint8) * 255 for i in range(1, n)
                if stats[i, cv2.CC_STAT_AREA] * res ** 2 >= MIN_BLOB_MM2]
    return out or [mask]


def angle_apart(a, b):
    """How far apart two directions are, degrees (0-180); elementwise on arrays."""
    return np.abs((a - b + 180.0) % 360.0 - 180.0)


def split_by_valley(mask: np.ndarray, score: np.ndarray, res: float, within: Within | None = None) -> list[np.ndarray]:
    """Same-coloured pieces touching: a part too big for one piece, or for one small
    piece with a deep valley across it, cut along the valley of weaker evidence between
    them; each pixel goes to the nearest part (`within`: as for `split`).

    >>> two = np.zeros((20, 40), np.uint8); two[2:18, 2:38] = 255      # 576 mm² at 1 mm
    >>> crevice, faces = np.full(two.shape, 2.0), np.full(two.shape, 2.0)
    >>> crevice[:, 19:21] = 0.8; faces[:, 19:21] = 1.6   # a crevice; a step between faces
    >>> len(split_by_valley(two, crevice, 1.0)), len(split_by_valley(two, faces, 1.0))
    (2, 1)
    """
    area = np.count_nonzero(mask) * res ** 2
    if area < VALLEY_MM2:
        return [mask]
    inside = score[mask > 0]
    typical = float(median(inside))
    for fraction in VALLEY_LEVELS if area >= MERGED_MM2 else DEEP_VALLEY_LEVELS:
        core = cv2.morphologyEx(((score > fraction * typical) & (mask > 0)).astype(np.uint8), cv2.MORPH_OPEN,
                                np.ones((3, 3), np.uint8))
        n, labels, stats = components(core)
        seeds = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] * res ** 2 >= MIN_BLOB_MM2]
        if len(seeds) >= 2:
            return _nearest_seed(mask, labels, seeds, within)
    return [mask]


def _nearest_seed(mask: np.ndarray, labels: np.ndarray, seeds: list[int],
                  within: Within | None = None) -> list[np.ndarray]:
    """The mask's pixels shared out to the nearest of the seed components; measured in
    the box `within` says the mask was cropped from, if it says one."""
    if within is not None:
        (x, y), _ = within
        whole, crop = in_box(labels, within), np.s_[y:y + labels.shape[0], x:x + labels.shape[1]]
    else:
        whole, crop = labels, np.s_[:, :]
    dist = np.stack([cv2.distanceTransform((whole != i).astype(np.uint8), cv2.DIST_L2, 3)[crop] for i in seeds])
    owner = np.argmin(dist, axis=0)
    return [((owner == k) & (mask > 0)).astype(np.uint8) * 255 for k in range(len(seeds))]


def in_box(mask: np.ndarray, within: Within) -> np.ndarray:
    """A mask cropped from a bigger box, placed back in it (zero elsewhere)."""
    (x, y), (width, height) = within
    out = np.zeros((height, width), mask.dtype)
    out[y:y + mask.shape[0], x:x + mask.shape[1]] = mask
    return out


def split(mask: np.ndarray, within: Within | None = None, hull: np.ndarray | None = None) -> list[np.ndarray]:
    """Touching pieces: a mask much less convex than a pyramid's silhouette is eroded
    until it falls apart, and each pixel goes to the nearest part. `within`: where the
    mask was cropped from a bigger box, ((x, y), (w, h)): the distances to the parts are
    measured in that box, as they would be uncropped (OpenCV sums the distance
    transform's steps in floats, which round by the path they take). `hull`: the
    mask's convex_fill, if the caller has it."""
    if solidity(mask, hull) >= SOLIDITY_MIN:
        return [mask]
    kernel = np.ones((3, 3), np.uint8)
    core = mask
    for _ in range(SPLIT_ERODE_MAX):
        core = cv2.erode(core, kernel)
        n, labels, stats = components(core)
        seeds = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= SPLIT_SEED_PX]
        if len(seeds) >= 2:
            return _nearest_seed(mask, labels, seeds, within)
    return [mask]


def solidity(mask: np.ndarray, hull: np.ndarray | None = None) -> float:
    """Area over convex hull area (`hull`: its convex_fill, if already made)."""
    if hull is None:
        hull = convex_fill(mask)
    return np.count_nonzero(mask) / max(np.count_nonzero(hull), 1)


def convex_fill(mask: np.ndarray) -> np.ndarray:
    """The mask's convex hull, filled: a pyramid's silhouette is convex, so notches are
    faces that mirror a lamp or the table and holes are see-through plastic."""
    out = np.zeros_like(mask)
    pts = row_ends(mask)
    if len(pts):
        cv2.fillConvexPoly(out, cv2.convexHull(pts), 255)
    return out


def row_ends(mask: np.ndarray) -> np.ndarray:
    """Each row's first and last set pixel (x, y), int32, of a binary mask: their convex
    hull is the whole mask's, from far fewer points (compiled: vision.mask_kernels)."""
    return mask_kernels.row_ends(np.ascontiguousarray(mask))
