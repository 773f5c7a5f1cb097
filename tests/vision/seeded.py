"""Helpers for tests on seeded renders: detect a render's table, check one piece."""

import math

from vision.pipeline import Detector


def detect(r):
    """The table state detected in a render (its layout and intrinsics given)."""
    return Detector(r.spec.layout, r.intrinsics).detect(r.image).state


def assert_read_as(state, where, within_mm, colour, size, pose):
    """The piece detected nearest `where` (table mm) is within `within_mm` of it and is
    read as `colour`, `size`, `pose`."""
    p = min(state.pieces, key=lambda p: math.dist(p.position, where))
    assert math.dist(p.position, where) < within_mm
    assert (p.color.value, p.size, p.pose) == (colour, size, pose)
