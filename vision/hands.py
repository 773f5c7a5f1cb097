"""A hand or an arm over the table: a blob too big for pieces that comes in from outside
the camera's view. Its blob is not read as pieces, and while one is over the table the
lamp is not looked for (no piece explains its shadow; its fingers read as pieces)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.segment import Foreground, blob_mask

# A blob bigger than this (mm²) that reaches the edge of the table's view is a hand or an
# arm (a palm alone is ~85 × 85 mm; an arm comes in from outside the view). One that does
# not is a cluster of pieces pressed together (a fleet round its home star), read as such.
HAND_MM2 = 4000.0


def is_hand(mask: np.ndarray, box: tuple[int, int, int, int], res: float, outside_view: np.ndarray) -> bool:
    """Is a blob (its mask in `box`, grid pixels of `res` mm) a hand or an arm (HAND_MM2)?
    `outside_view`: the grid cells the camera does not see."""
    return np.count_nonzero(mask) * res ** 2 > HAND_MM2 and reaches_view_edge(mask, box, outside_view)


def hand_over(fg: Foreground, res: float, outside_view: np.ndarray) -> bool:
    """Is a hand or an arm over the table? (Only blobs whose boxes could hold one are
    looked at.)"""
    big = [(label, box) for label, box in fg.blobs + fg.dark_blobs if box[2] * box[3] * res ** 2 > HAND_MM2]
    return any(is_hand(*blob_mask(fg, label, box, 0), res, outside_view) for label, box in big)


def reaches_view_edge(mask: np.ndarray, box: tuple[int, int, int, int], outside_view: np.ndarray) -> bool:
    """Does a blob (its mask in `box`) touch the grid's border or what the camera does not see?"""
    x, y, w, h = box
    rows, cols = outside_view.shape
    on_border = (x == 0 and mask[:, 0].any()) or (y == 0 and mask[0].any()) \
        or (x + w == cols and mask[:, -1].any()) or (y + h == rows and mask[-1].any())
    grown = cv2.dilate(mask, np.ones((3, 3), np.uint8)) > 0
    return bool(on_border or np.any(grown & outside_view[y:y + h, x:x + w]))
