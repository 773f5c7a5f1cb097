"""The decision's rules on hand-made fits (vision.decide)."""

from types import SimpleNamespace

import numpy as np

from domain import Size
from vision.decide import without_shadows
from vision.fit import Fit, Hypothesis
from vision.geometry import FLAT, UPRIGHT

CAMERA = np.array([320.0, 240.0, 900.0])


def entry(dark: bool, kind: str, size: Size, params) -> tuple:
    return SimpleNamespace(dark=dark), Fit(Hypothesis(0, kind, size), np.array(params, float), 0.5, 0.9), 1.0


def test_a_dark_upright_around_a_coloured_part_is_that_piece():
    # PBR: a large upright's faces pass its light with little hue left; only part shows colour
    lit = entry(False, UPRIGHT, Size.SMALL, (101.0, 101.0, 10.0))
    dark = entry(True, UPRIGHT, Size.LARGE, (100.0, 100.0, 10.0))
    out = without_shadows([lit, dark], CAMERA)
    assert len(out) == 1 and out[0][0] is lit[0] and out[0][1] is dark[1]


def test_a_dark_candidate_beside_or_only_partly_explained_is_a_shadow():
    lit = entry(False, UPRIGHT, Size.SMALL, (100.0, 100.0, 10.0))
    beside = entry(True, UPRIGHT, Size.LARGE, (120.0, 100.0, 10.0))   # touching, not holding
    flat = entry(True, FLAT, Size.LARGE, (88.0, 100.0, 0.0))           # holding, but a flat model
    for dark in (beside, flat):
        out = without_shadows([lit, dark], CAMERA)
        assert len(out) == 1 and out[0] is lit
