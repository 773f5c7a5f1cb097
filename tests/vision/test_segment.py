"""The foreground's dark candidates (vision.segment)."""

import numpy as np
import pytest

from vision.segment import _enclosed


def test_lit_faces_inside_their_darkened_rest_are_one_piece_a_shadow_beside_is_not():
    # path-traced green upright on green felt: a small tinted core (the lit faces about the
    # apex) amid faces as dark as a shadow
    faces = np.zeros((40, 40), bool)
    faces[16:24, 16:24] = True
    rest = np.zeros((40, 40), bool)
    rest[8:32, 8:32] = True
    rest &= ~faces
    assert _enclosed(faces, rest)
    # a shadow on one side of the piece's faces
    beside = np.zeros((40, 40), bool)
    beside[16:24, 24:40] = True
    assert not _enclosed(faces, beside)


def test_a_black_piece_beside_a_marker_sheet_is_found():
    # its dark blob touches the sheet's edge with its rim only (12 mm from the paper). Its
    # colour is a knife's edge since the picture's cast (0.16) is taken out: 0.005 greener
    # than GREENER_THAN_TABLE asks of a black piece read green (calibration.white_balance)
    import math
    from domain import Color, Pose, Size
    from vision.scenes import rendered
    from seeded import detect
    r = rendered(9305, colors=tuple(c.value for c in Color))
    p = min(detect(r).pieces, key=lambda p: math.dist(p.position, (129.7, 469.4)))
    assert math.dist(p.position, (129.7, 469.4)) < 3.0
    assert (p.size, p.pose) == (Size.LARGE, Pose.UPRIGHT) and p.color.value in ("black", "green")


def test_a_dark_turned_square_keeps_its_corners_and_a_seam_stays_cut():
    # a dark piece turned 45° (log -0.5 on the bare table), a plank's seam 2 px wide running off it
    import cv2
    from vision.segment import DARK_REGROW_PX, dark_candidates, regrown
    lum = np.zeros((120, 160), np.float32)
    square = cv2.boxPoints(((60.0, 60.0), (25.0, 25.0), 45.0))
    piece = np.zeros(lum.shape, np.uint8)
    cv2.fillConvexPoly(piece, np.round(square).astype(np.int32), 1)
    lum[piece > 0] = -0.5
    lum[59:61, 60:150] = np.minimum(lum[59:61, 60:150], -0.6)
    opened, darker = dark_candidates(lum, np.full(lum.shape, 255, np.uint8))
    found = regrown(opened > 0, darker > 0).astype(np.uint8) * 255
    assert np.count_nonzero(found[piece > 0]) >= 0.99 * np.count_nonzero(piece)   # opened alone: 0.977
    outside = cv2.distanceTransform(cv2.bitwise_not(found), cv2.DIST_L2, 5)
    assert all(outside[int(round(y)), int(round(x))] <= 1.0 for x, y in square)   # opened alone: 2 px
    right_of_piece = int(np.nonzero(piece[59:61].any(axis=0))[0].max())
    seam = np.nonzero(found[55:65, right_of_piece + 1:].any(axis=0))[0]
    assert len(seam) <= DARK_REGROW_PX + 2   # the blur's reach


def test_the_hue_threshold_rises_where_the_table_is_noisier_around():
    # a table lit from one side: the dim half's texture changes hue three times as much
    from vision.rectify import TableGrid
    from vision.segment import NOISE_FACTOR, BackgroundFiller
    rng = np.random.default_rng(1)
    filler = BackgroundFiller(np.full((200, 400), 255, np.uint8), TableGrid(0.0, 0.0, 1.0, 400, 200))
    chroma = np.abs(rng.normal(0, 0.03, (200, 400))).astype(np.float32)
    chroma[:, :200] *= 3
    chroma_min = max(0.18, NOISE_FACTOR * float(np.median(chroma)))
    scale = filler.texture_scale(chroma, chroma_min)
    assert np.all(scale[:, 300:] == 1.0)                         # the lit half: the whole's threshold
    dim = float(np.mean(chroma[:, :150]))   # each cell's mean, the cells' median
    assert np.median(scale[:, :150]) == pytest.approx(chroma_min / (NOISE_FACTOR * dim), rel=0.1)
    # a hue change of 0.25 is evidence in the lit half, texture in the dim one
    patch = 0.25
    assert patch * scale[100, 350] > chroma_min > patch * scale[100, 50]


def test_a_dim_corner_of_felt_makes_no_pieces():
    from vision.evaluate import Score
    from vision.scenes import rendered
    from seeded import detect
    r = rendered(9604, surface="felt")   # the lamps on one side: its far half dim
    score = Score()
    score.add(r.truth, detect(r), "9604")
    assert score.false_rate <= 0.1, score.mistakes   # with the whole table's threshold: 16 of 34
