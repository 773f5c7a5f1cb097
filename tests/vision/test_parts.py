"""A blob into its pieces (vision.parts), on a synthetic rectified table."""

import numpy as np

from vision.parts import PIECE_MAX_MM2, refine
from vision.rectify import TableGrid
from vision.segment import BackgroundFiller, blob_masks, foreground

TABLE_BGR = (100, 130, 160)
PAPER_WHITE = np.array([235.0, 235.0, 235.0])


def _parts(filters):
    """The parts (mm² each) of the blobs of a 1 mm grid table with these (rows, cols,
    bgr transmission) patches on it."""
    grid = TableGrid(0.0, 0.0, 1.0, 300, 300)
    table = np.empty((300, 300, 3), np.float32)
    table[:] = TABLE_BGR
    for rows, cols, transmission in filters:
        table[rows, cols] *= np.array(transmission, np.float32)
    table = np.clip(table, 0, 255).astype(np.uint8)
    usable = np.full((300, 300), 255, np.uint8)
    fg = foreground(table, usable, BackgroundFiller(usable, grid), PAPER_WHITE)
    return [np.count_nonzero(p.mask) for weak, box in blob_masks(fg, 10) for p in refine(fg, weak, box)]


def test_a_piece_with_a_shadow_as_dark_and_twice_its_size_is_cut_to_the_piece():
    # a low lamp: the yellow plastic (624 mm²) darkens the table as much as its shadow
    # beside it (1200 mm²), whose tint is diluted by the room's light
    piece = (slice(100, 124), slice(100, 126), (0.25, 0.9, 0.95))
    shadow = (slice(100, 130), slice(126, 166), (0.45, 0.62, 0.65))
    alone = _parts([piece])
    together = _parts([piece, shadow])
    assert len(together) == 1 and together[0] < PIECE_MAX_MM2
    # the piece and the blurred seam between them (a column or two of 26 rows)
    assert alone[0] <= together[0] <= 1.15 * alone[0]
