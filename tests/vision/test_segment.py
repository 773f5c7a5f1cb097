"""The foreground's dark candidates (vision.segment)."""

import numpy as np

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
    # its dark blob touches the sheet's edge with its rim only (12 mm from the paper)
    from domain import Color, Pose, Size
    from vision.scenes import rendered
    from seeded import assert_read_as, detect
    r = rendered(9305, colors=tuple(c.value for c in Color))
    assert_read_as(detect(r), (129.7, 469.4), 3.0, "black", Size.LARGE, Pose.UPRIGHT)


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
