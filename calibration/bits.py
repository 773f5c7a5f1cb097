"""Reading the bits of marker candidates OpenCV found but could not read.

In a soft picture (a webcam hunting for focus, a cheap lens: blur σ ≥ 2.5 px on markers
40-60 px wide) OpenCV's detector still finds the black squares but misreads their bits and
rejects them. Each rejected square is read again here: warped to a square of
SAMPLE_CELL_PX pixels a cell, each cell's middle averaged, the cells split at half way
between the black border and the brightest bits, and the result compared with the codes
of the layout's missing markers in all four turns.

>>> import cv2
>>> from calibration.markers import aruco_dictionary
>>> d = aruco_dictionary("DICT_4X4_50")
>>> img = np.full((200, 200), 255, np.uint8)
>>> img[50:110, 60:120] = cv2.resize(d.generateImageMarker(7, 6), (60, 60), interpolation=cv2.INTER_NEAREST)
>>> img = cv2.GaussianBlur(img, (0, 0), 3.0)
>>> square = np.array([[[60, 50], [120, 50], [120, 110], [60, 110]]], np.float32)
>>> found = read_candidates(img, [square], d, {7, 9}, modules=6)
>>> list(found), np.round(found[7][0]).tolist()
([7], [60.0, 50.0])
"""

from __future__ import annotations

import cv2
import numpy as np

# Pixels a cell is sampled on, and the share of its width left out at each side (the
# blurred boundary with the next cell).
SAMPLE_CELL_PX = 10
SAMPLE_MARGIN = 0.3
# Bits allowed wrong: a cell next to three of the other colour can flip under heavy blur.
# The code read must also be at least CODE_MARGIN_BITS further from every other code of
# the dictionary (any turn): a square that happens to be near one code is near several.
MAX_BIT_ERRORS = 2
CODE_MARGIN_BITS = 2
# Share of the border cells that must read black.
BORDER_BLACK_MIN = 0.9


def read_candidates(grey: np.ndarray, squares, dictionary, missing: set[int],
                    modules: int) -> dict[int, np.ndarray]:
    """Missing marker id → 4×2 corners (OpenCV's order: the code's top-left first,
    clockwise) of the candidate squares that read as one of `missing`."""
    codes = _codes(dictionary, modules)
    out: dict[int, np.ndarray] = {}
    for square in squares:
        quad = np.asarray(square, np.float64).reshape(4, 2)
        bits = _bits(grey, quad, modules)
        if bits is None:
            continue
        errors = np.array([[np.count_nonzero(np.rot90(bits, k) != code) for k in range(4)] for code in codes])
        best = np.unravel_index(np.argmin(errors), errors.shape)
        marker, turns = int(best[0]), int(best[1])
        others = np.delete(errors.ravel(), np.ravel_multi_index(best, errors.shape))
        if (marker in missing and marker not in out and errors[best] <= MAX_BIT_ERRORS
                and others.min() >= errors[best] + CODE_MARGIN_BITS):
            out[marker] = np.roll(quad, -turns, axis=0)
    return out


def _codes(dictionary, modules: int) -> list[np.ndarray]:
    """Every code of the dictionary as a modules×modules 0/1 grid, border included."""
    n = dictionary.bytesList.shape[0]
    return [(dictionary.generateImageMarker(i, modules) > 127).astype(np.uint8) for i in range(n)]


def _bits(grey: np.ndarray, quad: np.ndarray, modules: int) -> np.ndarray | None:
    """The candidate's cells as 0/1 (white = 1), or None when its border is not black."""
    size = modules * SAMPLE_CELL_PX
    target = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    warp = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
    square = cv2.warpPerspective(grey, warp, (size, size), flags=cv2.INTER_LINEAR).astype(np.float32)
    margin = int(round(SAMPLE_MARGIN * SAMPLE_CELL_PX))
    cells = square.reshape(modules, SAMPLE_CELL_PX, modules, SAMPLE_CELL_PX)[:, margin:SAMPLE_CELL_PX - margin,
                                                                             :, margin:SAMPLE_CELL_PX - margin]
    means = cells.mean(axis=(1, 3))
    border = np.ones((modules, modules), bool)
    border[1:-1, 1:-1] = False
    threshold = 0.5 * (means[border].mean() + np.percentile(means[~border], 90))
    bits = (means > threshold).astype(np.uint8)
    if np.mean(bits[border] == 0) < BORDER_BLACK_MIN:
        return None
    return bits
