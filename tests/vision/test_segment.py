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
