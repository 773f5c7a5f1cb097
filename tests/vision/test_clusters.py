"""Pieces pressed together in a cluster bigger than a hand are read, not ignored as one."""

import pytest

from vision.evaluate import Score
from vision.scenes import rendered

from seeded import detect


@pytest.mark.parametrize("seed", [9473, 9474])
def test_a_cluster_of_pieces_bigger_than_a_palm_is_read(seed):
    # every piece placed beside another: 9473's 18 and 9474's 15 pieces make one blob of
    # over 4000 mm², which was ignored as a hand (6 and 1 of them found)
    r = rendered(seed, crowd=1.0)
    score = Score()
    score.add(r.truth, detect(r), str(seed))
    assert score.found_rate >= 0.75, score.mistakes
    # at most one invented piece (9474 has one since the renderer's change of 2026-11-23)
    assert score.n_found - score.n_matched <= 1, score.mistakes
