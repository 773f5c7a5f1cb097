"""Marker sheets bigger than the fixed square about each marker are found in the picture,
and a pale table is not taken for paper (vision.sheets)."""

from dataclasses import replace

import numpy as np
import pytest

from calibration.markers import MarkerLayout
from vision.evaluate import Score
from vision.pipeline import Detector
from vision.rectify import TableGrid
from vision.render import random_scene, render_cached
from vision.sheets import MARKER_PAPER_FACTOR, table_mask

LAYOUT = MarkerLayout.default()
GRID = TableGrid.around(LAYOUT)
WHITE = np.array([230.0, 235.0, 232.0])


@pytest.mark.parametrize("seed", [9200, 9202])
def test_nothing_is_invented_on_a_large_sheets_paper(seed):
    # 150 mm sheets reach 22 mm past the fixed 105 mm square: their paper was read as
    # white and tinted pieces (12 % false detections over 12 such scenes). The scene's
    # pieces were laid for its own, smaller sheets: some lie on the paper, and count.
    r = render_cached(replace(random_scene(seed), paper_mm=150.0))
    score = Score()
    score.add(r.truth, Detector(r.spec.layout, r.intrinsics).detect(r.image).state)
    invented = [m for m in score.mistakes if "false" in m]
    on_paper = [m for m in invented for c in r.spec.layout.markers if max(
        abs(float(v) - c.center[k]) for k, v in enumerate(m.split("(")[1].rstrip(")").split(","))) < 75 + 3]
    assert not on_paper, invented


def _picture(table_level, sheet_mm):
    """A rectified picture: a plain table, a sheet of paper white about each marker."""
    image = np.full((GRID.height, GRID.width, 3), table_level, np.uint8)
    for m in LAYOUT.markers:
        (c0, r0), (c1, r1) = GRID.to_px(np.array([[m.center[0] - sheet_mm / 2, m.center[1] - sheet_mm / 2],
                                                  [m.center[0] + sheet_mm / 2, m.center[1] + sheet_mm / 2]]))
        image[max(int(r0), 0):int(r1), max(int(c0), 0):int(c1)] = WHITE
    return image


def _masked_mm2(mask):
    return np.count_nonzero(mask == 0) * GRID.res ** 2


def test_a_sheet_found_in_the_picture_is_masked_whole():
    visible = np.full((GRID.height, GRID.width), 255, np.uint8)
    square = _masked_mm2(table_mask(GRID, LAYOUT, visible))
    big = _masked_mm2(table_mask(GRID, LAYOUT, visible, _picture((90, 110, 100), 160.0), WHITE))
    # four 160 mm sheets, less what of the corner ones lies off the grid: far more than the squares
    assert big > square + 4 * (120 ** 2 - (LAYOUT.markers[0].size * MARKER_PAPER_FACTOR) ** 2)


def test_a_table_as_pale_as_paper_is_not_paper():
    visible = np.full((GRID.height, GRID.width), 255, np.uint8)
    square = table_mask(GRID, LAYOUT, visible)
    pale = table_mask(GRID, LAYOUT, visible, _picture((215, 220, 218), 85.0), WHITE)
    assert np.array_equal(pale, square)
