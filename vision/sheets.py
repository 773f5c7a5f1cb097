"""The marker sheets on the table, where no piece is looked for.

Each marker is printed on white paper of a size the layout does not give: a card cut to
its quiet zone (`pyramid-referee markers` prints those), or a larger sheet. A square
MARKER_PAPER_FACTOR times the marker's side is always left out. Paper reaching further
is found in the picture: pixels as bright as the markers' paper white in every channel
(PAPER_SHARE) and as neutral (PAPER_NEUTRAL), connected to that square.

A table as bright and as neutral as paper would let that region run on over the table.
So a sheet must be a rectangle (SHEET_FILL) ending within SHEET_MAX_MM of its marker, or
only the square is left out.
A white piece touching a sheet is taken for its paper.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.markers import MarkerLayout
from vision.rectify import TableGrid

# Marker sheets are paper around the black square: this multiple of the square is always
# masked (a 50 mm marker on a card up to 105 mm across).
MARKER_PAPER_FACTOR = 2.1
# Paper: every channel at least this share of the markers' paper white (lamps fall off
# a little across a sheet; a light table is rarely this bright)...
PAPER_SHARE = 0.7
# ...and its channels in the same proportions as the paper white's, within this share
# (light wood and coloured cloth are tinted against white paper).
PAPER_NEUTRAL = 0.9
# A sheet ends within this many mm of its marker's centre each way (an A4 page, 210 ×
# 297 mm, about its marker); paper running further is table.
SHEET_MAX_MM = 150.0
# ...and is a rectangle: it fills at least this share of its smallest bounding rectangle
# (a lamp's bright pool on a pale table does not).
SHEET_FILL = 0.85
# Pixels added around a sheet found in the picture: its edge is blurred into the table.
SHEET_EDGE_PX = 2


def table_mask(grid: TableGrid, layout: MarkerLayout, visible: np.ndarray, table_bgr: np.ndarray | None = None,
               paper_white_bgr: np.ndarray | None = None) -> np.ndarray:
    """Where pieces can be seen (uint8 0/255): the visible table minus the marker sheets,
    each at least its fixed square; with a rectified picture of the table and the
    markers' paper white (BGR levels), also the paper of larger sheets."""
    mask = visible.copy()
    for m in layout.markers:
        square = _box(grid, m.center, m.size * MARKER_PAPER_FACTOR)
        if table_bgr is not None:
            w0, v0, w1, v1 = window = _box(grid, m.center, 2 * SHEET_MAX_MM)
            paper = _paper_like(table_bgr[v0:v1, w0:w1], paper_white_bgr) & (visible[v0:v1, w0:w1] > 0)
            _clear_sheet(mask, paper, square, window)
        c0, r0, c1, r1 = square
        mask[r0:r1, c0:c1] = 0
    return mask


def _box(grid: TableGrid, centre, side_mm: float) -> tuple[int, int, int, int]:
    """A square of `side_mm` about a table point, as grid pixel bounds (c0, r0, c1, r1),
    clipped to the grid."""
    half = side_mm / 2
    (c0, r0), (c1, r1) = grid.to_px(np.array([[centre[0] - half, centre[1] - half],
                                              [centre[0] + half, centre[1] + half]]))
    return (max(int(c0), 0), max(int(r0), 0),
            min(int(np.ceil(c1)) + 1, grid.width), min(int(np.ceil(r1)) + 1, grid.height))


def _paper_like(table_bgr: np.ndarray, paper_white_bgr: np.ndarray) -> np.ndarray:
    """Pixels as bright and as neutral as the markers' paper (bool)."""
    b, g, r = (np.float32(1.0 / max(float(w), 1.0)) * channel.astype(np.float32)
               for channel, w in zip(cv2.split(table_bgr), paper_white_bgr))
    low, high = cv2.min(cv2.min(b, g), r), cv2.max(cv2.max(b, g), r)
    return (low >= PAPER_SHARE) & (low >= PAPER_NEUTRAL * high)


def _clear_sheet(mask: np.ndarray, paper: np.ndarray, square: tuple[int, int, int, int],
                 window: tuple[int, int, int, int]) -> None:
    """Masks the paper (`paper`: paper-like pixels of the window) connected to a marker's
    square within `window` (grid pixel bounds), if it is a rectangle that does not reach
    a side of the window inside the grid: else it is table."""
    w0, v0, w1, v1 = window
    region = paper.astype(np.uint8)
    c0, r0, c1, r1 = square
    region[max(r0 - v0, 0):r1 - v0, max(c0 - w0, 0):c1 - w0] = 1   # the ink is not paper-like
    _, labels = cv2.connectedComponents(region, connectivity=8)
    sheet = labels == labels[(max(r0, v0) + min(r1, v1)) // 2 - v0, (max(c0, w0) + min(c1, w1)) // 2 - w0]
    height, width = mask.shape
    ran_on = (w0 > 0 and sheet[:, 0].any()) or (w1 < width and sheet[:, -1].any()) \
        or (v0 > 0 and sheet[0].any()) or (v1 < height and sheet[-1].any())
    outline, _ = cv2.findContours(sheet.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    (_, (a, b), _) = cv2.minAreaRect(np.vstack(outline))
    rectangle = np.count_nonzero(sheet) >= SHEET_FILL * a * b
    sheet[max(r0 - v0, 0):r1 - v0, max(c0 - w0, 0):c1 - w0] = False   # masked anyway
    if sheet.any() and rectangle and not ran_on:
        grown = cv2.dilate(sheet.astype(np.uint8), np.ones((2 * SHEET_EDGE_PX + 1,) * 2, np.uint8))
        mask[v0:v1, w0:w1][grown > 0] = 0
