"""A blob into its pieces (vision.parts), on a synthetic rectified table."""

import numpy as np
import pytest

from vision.parts import PIECE_MAX_MM2, refine
from vision.rectify import TableGrid
from vision.segment import BackgroundFiller, blob_masks, foreground

TABLE_BGR = (100, 130, 160)
PAPER_WHITE = np.array([235.0, 235.0, 235.0])


def _parts(filters, table_bgr=TABLE_BGR, dark=False):
    """The parts (mm² each) of the blobs of a 1 mm grid table of this colour with these
    (rows, cols, bgr transmission) patches on it; those marked dark (piece or shadow,
    vision.shadows decides) when `dark`, the others when not."""
    grid = TableGrid(0.0, 0.0, 1.0, 300, 300)
    table = np.empty((300, 300, 3), np.float32)
    table[:] = table_bgr
    for rows, cols, transmission in filters:
        table[rows, cols] *= np.array(transmission, np.float32)
    table = np.clip(table, 0, 255).astype(np.uint8)
    usable = np.full((300, 300), 255, np.uint8)
    fg = foreground(table, usable, BackgroundFiller(usable, grid), PAPER_WHITE)
    return [np.count_nonzero(p.mask) for weak, box in blob_masks(fg, 10) for p in refine(fg, weak, box)
            if p.dark == dark]


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


def test_a_faint_piece_touching_a_vivid_one_of_another_colour_is_its_own_part():
    # on green felt a green piece barely tints the felt; touching a yellow piece it is
    # one blob with it, cut at half the yellow's evidence, which it never reaches
    felt = (90, 140, 70)
    yellow = (slice(100, 126), slice(100, 126), (0.3, 1.5, 2.5))
    green = (slice(126, 141), slice(108, 123), (1.0, 1.35, 0.85))   # its lit faces brighten
    green_shadow = (slice(126, 141), slice(108, 123), (0.6, 0.75, 0.45))   # darker all over
    alone = _parts([yellow], felt)
    assert _parts([yellow, green], felt) == [alone[0], pytest.approx(15 * 13, abs=30)]
    assert _parts([yellow, green], felt, dark=True) == []
    # darker all over, it may be the yellow's shadow as well as a piece: marked dark
    assert _parts([yellow, green_shadow], felt) == alone
    assert _parts([yellow, green_shadow], felt, dark=True) == [pytest.approx(15 * 13, abs=30)]


def _triangle(transmission, centre_row, half_rows, tail_col, nose_col):
    """A flat piece pointing right, as column patches: tail edge to nose."""
    return [(slice(centre_row - round(half_rows * (nose_col - c) / (nose_col - tail_col)),
                   centre_row + round(half_rows * (nose_col - c) / (nose_col - tail_col)) + 1), slice(c, c + 1),
             transmission) for c in range(tail_col, nose_col)]


def test_a_darker_piece_more_tinted_than_the_one_it_touches_is_not_its_shadow():
    # clear red plastic with no haze (a path tracer's): a flat piece, seen through two
    # walls, is far darker and deeper red than the large upright whose corner it touches
    grey_cloth = (150, 150, 150)
    upright = (slice(100, 126), slice(100, 126), (0.55, 0.5, 1.1))
    flat = _triangle((0.08, 0.07, 0.55), 126, 7, 126, 156)
    shadow = _triangle((0.3, 0.28, 0.4), 126, 7, 126, 156)   # as dark, its tint diluted
    alone = _parts([upright], grey_cloth) + _parts(flat, grey_cloth)
    both = _parts([upright] + flat, grey_cloth)
    assert len(both) == 2
    assert both[0] == pytest.approx(alone[0], rel=0.1) and both[1] == pytest.approx(alone[1], rel=0.3)
    assert _parts([upright] + shadow, grey_cloth) == alone[:1]


def test_the_compiled_touching_components_are_opencvs():
    # vision.mask_kernels.touching_components against what it replaced: OpenCV's
    # components of near & ~seed & ~taken, kept where the seed dilated by 3×3 meets them
    import cv2
    from vision.mask_kernels import touching_components
    rng = np.random.default_rng(5)
    for _ in range(40):
        h, w = rng.integers(5, 60, 2)
        near = (rng.random((h, w)) < rng.uniform(0.2, 0.7)).astype(np.uint8) * np.uint8(rng.choice([1, 255]))
        seed, taken = (np.zeros((h, w), np.uint8) for _ in range(2))
        for mask in seed, taken:
            y, x = rng.integers(0, h), rng.integers(0, w)
            mask[y:y + rng.integers(1, 12), x:x + rng.integers(1, 12)] = 255
        free = near & ~seed & ~taken
        # seed and taken passed as a crop of near's frame holding every seed pixel
        ys, xs = np.nonzero(seed | taken)
        y0, x0 = rng.integers(0, ys.min() + 1), rng.integers(0, xs.min() + 1)
        y1, x1 = rng.integers(ys.max() + 1, h + 1), rng.integers(xs.max() + 1, w + 1)
        n, labels = cv2.connectedComponents(free, connectivity=8)
        reached = np.unique(labels[(cv2.dilate(seed, np.ones((3, 3), np.uint8)) > 0) & (free > 0)])
        expected = np.isin(labels, reached[reached > 0]).astype(np.uint8) * 255
        found = touching_components(near, seed[y0:y1, x0:x1], taken[y0:y1, x0:x1], x0, y0)
        assert np.array_equal(found, expected)


def test_the_compiled_cut_is_numpys():
    # vision.mask_kernels.cut_at against the numpy calls it replaced, bit for bit
    from vision.mask_kernels import cut_at
    rng = np.random.default_rng(7)
    for _ in range(30):
        h, w = rng.integers(3, 40, 2)
        score = (rng.random((h + 2, w + 2)) * 3).astype(np.float32)[1:-1, 1:-1]   # a view, as refine's
        weak = (rng.random((h, w)) < 0.6).astype(np.uint8) * 255
        shadow = rng.random((h, w)) < 0.2
        level = float(rng.choice([0.5, rng.uniform(0.4, 1.7)]))
        expected = np.where((weak > 0) & ~shadow, score - level, -level).astype(np.float32)
        cut, mask = np.empty((h, w), np.float32), np.empty((h, w), np.uint8)
        cut_at(weak, shadow, score, np.float32(level), cut, mask)
        assert cut.tobytes() == expected.tobytes()
        assert np.array_equal(mask, (expected > 0).astype(np.uint8) * 255)


def test_the_compiled_coarse_points_are_numpys():
    # vision.mask_kernels.coarse_points against the numpy calls it replaced, bit for bit
    from vision.mask_kernels import coarse_points
    rng = np.random.default_rng(11)
    for _ in range(30):
        points = rng.integers(0, 400, (rng.integers(1, 80), 1, 2)).astype(np.int32)
        origin, scale = tuple(int(v) for v in rng.integers(0, 700, 2)), int(rng.choice([1, 2, 4, 8]))
        expected = (points.reshape(-1, 2).astype(float) + np.multiply(origin, scale) + 0.5) / scale - 0.5
        assert coarse_points(points, scale, *origin).tobytes() == expected.tobytes()
