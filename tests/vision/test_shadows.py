"""Shadows tell what stands from what lies (vision.shadows), on seeded renders."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from domain import Pose, Size
from vision import shadows
from vision.rectify import TableGrid
from vision.scenes import rendered

from seeded import assert_read_as, detect


def test_a_small_upright_mirroring_the_lamps_is_not_a_penny():
    # pale pink on green felt, round-ish from above: only its shadow says it stands
    state = detect(rendered(9223))
    assert not state.coins
    for where in ((512.9, 348.4), (607.7, 251.8)):
        assert_read_as(state, where, 1.5, "red", Size.SMALL, Pose.UPRIGHT)


def test_coins_lying_flat_stay_coins():
    r = rendered(9400, coins=(1, 3))
    state = detect(r)
    assert sorted(c.kind for c in state.coins) == sorted(c.kind for c in r.truth.coins)
    for c in r.truth.coins:
        assert min(math.dist(c.center, d.center) for d in state.coins) < 1.0


def test_a_piece_with_its_paler_shadow_is_not_a_bigger_piece():
    # green flat on felt: the shadow beyond its tail is tinted nearly as strongly as the
    # plastic per pixel, but as a whole paler and darker (decide._paler_and_darker)
    state = detect(rendered(9218))
    where = (463.6, 439.1)
    assert_read_as(state, where, 2.0, "green", Size.MEDIUM, Pose.FLAT)


def test_a_flat_piece_and_its_shadow_beyond_its_nose():
    # the cheapest medium start points back from the shadow; the other start leaves it out
    state = detect(rendered(9003))
    where = (122.1, 331.3)
    assert_read_as(state, where, 3.0, "red", Size.MEDIUM, Pose.FLAT)


def test_a_rival_reaching_into_the_shadow_does_not_leave_it_out():
    # a medium flat pointing from inside a blue large upright into its shadow
    state = detect(rendered(9227))
    where = (117.7, 289.6)
    assert_read_as(state, where, 2.0, "blue", Size.LARGE, Pose.UPRIGHT)


def test_an_upright_and_its_shadow_are_not_a_flat_pointing_away_from_the_lamp():
    # yellow large uprights on wood, their shadows paler than the plastic but no darker
    # (the steep faces mirror the dim table): the hue change does not fall outwards
    # across the upright's outline, as it does from a flat piece's tail to its tip
    state = detect(rendered(9212))
    for where in ((186.4, 375.2), (150.0, 407.3)):
        assert_read_as(state, where, 2.0, "yellow", Size.LARGE, Pose.UPRIGHT)


def test_an_upright_whose_shadow_is_as_tinted_as_its_faces_is_not_a_flat():
    # yellow uprights on wood whose shadows are neither paler nor darker than their
    # faces (0.84-0.91 of the hue change): only the hue change not fading outwards
    # across the upright's outline tells them from a flat piece's tail and nose
    for seed, where, size in ((9202, (622.1, 384.6), Size.LARGE), (9212, (354.9, 315.4), Size.MEDIUM)):
        state = detect(rendered(seed))
        assert_read_as(state, where, 2.0, "yellow", size, Pose.UPRIGHT)


@pytest.mark.parametrize("where, colour", [
    # (the blue one was missed from the renderer's haze absorbed, docs/renderer.md
    # 2026-11-23, until the hue threshold also cleared the dim table's own texture)
    ((482.1, 361.3), "blue"),
    ((538.9, 411.1), "yellow"),
])
def test_large_uprights_whose_tinted_shadows_outgrow_them(where, colour):
    # a low lamp and little other light: each blob is a large upright and a shadow two or
    # four times its area, tinted by it; cut at the blob's median darkening it stayed
    # bigger than any piece and no model was tried (vision.parts, PIECE_MAX_MM2)
    assert_read_as(detect(rendered(9223)), where, 2.0, colour, Size.LARGE, Pose.UPRIGHT)


def test_a_large_flat_piece_pointed_by_itself_not_with_its_shadow():
    # a blob of 919 mm²: the yellow large flat and its shadow, as dark as the plastic but
    # tinted less; with the shadow in, the fit turned the piece 5° towards it
    r = rendered(9608)
    t = next(p for p in r.truth.pieces if math.dist(p.position, (474.0, 154.0)) < 2)
    assert_read_as(state := detect(r), t.position, 3.0, "yellow", Size.LARGE, Pose.FLAT)
    found = min(state.pieces, key=lambda p: math.dist(p.position, t.position))
    assert abs((found.heading - t.heading + 180) % 360 - 180) < 2.0


@pytest.mark.parametrize("seed, where, colour", [
    (9211, (533.0, 437.0), "blue"),
    (9624, (536.0, 91.0), "red"),
])
def test_a_small_upright_and_its_sharp_coloured_shadow_are_not_a_flat_piece(seed, where, colour):
    # the blob looks like a small flat pointing along the shadows, its "nose" as sharp as
    # a piece's (vision.edge_steps); but its tint there is diluted: light through the
    # plastic, not plastic
    assert_read_as(detect(rendered(seed)), where, 3.0, colour, Size.SMALL, Pose.UPRIGHT)


def _blob(centre, dark=False):
    """A stand-in for vision.blobs.Blob: a 10 px square outline about `centre` (grid px)."""
    square = np.array([[-5.0, -5.0], [5.0, -5.0], [5.0, 5.0], [-5.0, 5.0]])
    return SimpleNamespace(dark=dark, origin_px=np.array(centre, float), centre_px=np.array(centre, float),
                           part=SimpleNamespace(dark=False, outline=square))


def test_touching_a_lit_blob_on_its_shadow_side():
    lamp_east = np.array([-1.0, 0.0])   # shadows fall west
    lit = [_blob((100, 100))]
    grid = TableGrid(0.0, 0.0, 1.0, 200, 200)
    west, south, far_west = _blob((89, 100), dark=True), _blob((100, 111), dark=True), _blob((70, 100), dark=True)
    assert shadows._touches_on_shadow_side(west, lit, lamp_east, grid)           # touching it: its shadow's place
    assert not shadows._touches_on_shadow_side(south, lit, lamp_east, grid)      # beside it
    assert not shadows._touches_on_shadow_side(far_west, lit, lamp_east, grid)   # 20 mm from its base
    # no shadow direction known: anything may be a shadow
    assert shadows._touches_on_shadow_side(south, lit, None, grid)


def test_a_dark_part_left_out_on_a_pieces_shadow_side_may_be_a_piece():
    # a green upright darkening the cloth beside a hand, left out of the blob it shares
    # with its neighbour, on that one's shadow side: dropped before its fit until the
    # shadow rules were left to decide (nineteenth pass: that early drop had dropped 2
    # pieces and 1 shadow over every set)
    assert_read_as(detect(rendered(9908, hands=1)), (98.0, 227.0), 5.0, "green", Size.MEDIUM, Pose.UPRIGHT)


def test_a_green_upright_beside_a_yellow_one_on_wood():
    # darker than the wood all over, left out of the blob it shares with a yellow upright;
    # it lies beside it, not on its shadow side
    assert_read_as(detect(rendered(9623)), (571, 315), 5.0, "green", Size.SMALL, Pose.UPRIGHT)


@pytest.mark.parametrize("seed, where, pose", [
    (9710, (79, 443), Pose.FLAT),       # a green flat on felt touching a blue flat's tail
    (9722, (366, 242), Pose.UPRIGHT),   # a green upright on felt beside a red one
])
def test_a_dark_piece_touching_another_off_its_shadow_side_is_no_shadow(seed, where, pose):
    # green on green felt only darkens the felt, like a shadow: a dark candidate. It
    # touches a coloured piece, but on the side towards the lamp, where that piece's
    # shadow cannot fall, and fits a pyramid's outline as tightly as a whole piece
    # (vision.decide TIGHT_FIT_COST_MM)
    assert_read_as(detect(rendered(seed)), where, 3.0, "green", Size.SMALL, pose)


@pytest.mark.parametrize("seed, where, colour, size, options", [
    (9704, (272, 173), "red", Size.SMALL, {}),                   # on felt, along its own shadow
    (9540, (129, 366), "yellow", Size.MEDIUM, {"crowd": 1.0}),   # in a cluster
])
def test_a_flat_piece_fitting_its_outline_tightly_is_no_upright_and_its_shadow(seed, where, colour, size, options):
    # what the flat covers beyond an upright rival lies on that rival's shadow side, dark
    # as a shadow: but the flat's rigid outline fits the blob closely, which an upright
    # and its shadow seldom do (vision.decide TIGHT_FIT_COST_MM)
    assert_read_as(detect(rendered(seed, **options)), where, 3.0, colour, size, Pose.FLAT)


@pytest.mark.parametrize("seed, where, colour, size", [
    (9727, (690, 378), "red", Size.SMALL),    # in a red upright's shadow
    (9608, (637, 171), "blue", Size.LARGE),   # in a blue upright's shadow, by a marker sheet
])
def test_a_flat_piece_in_its_neighbours_shadow_is_not_that_shadow(seed, where, colour, size):
    # on the shadow side of a piece of its own hue, darker and paler than it, as a tinted
    # shadow would be; but the flat's model fits its outline tightly (vision.decide
    # TIGHT_FIT_COST_MM), which a shadow's blob does not
    assert_read_as(detect(rendered(seed)), where, 3.0, colour, size, Pose.FLAT)


def test_a_flat_whose_edges_step_like_a_piece_is_not_its_neighbours_tinted_shadow():
    """Seed 9209: a green medium flat beside a green upright, as pale and dark as the
    upright's tinted shadow; its edges step like a piece's (0.32, vision.edges), which no
    shadow of the sets does past 0.19 (vision.edges.CAST_SHADOW_EDGES). It was dropped, and
    what was left of it read as a large upright."""
    state = detect(rendered(9209))
    assert_read_as(state, (439.0, 222.0), 2.0, "green", Size.MEDIUM, Pose.FLAT)
    assert not [p for p in state.pieces if p.pose is Pose.UPRIGHT and math.dist(p.position, (467, 235)) < 10]


def test_a_hard_shadow_with_an_outline_but_no_ridges_is_still_a_shadow():
    """Seed 9608 under one bare bulb: beside a blue upright lie a blue flat and the
    upright's sharp, tinted shadow, fitted together as flats pointing the wrong way.
    Their outlines step like a piece's (edges 0.23-0.26) but their ridges do not (0.7 of
    the outline's; pieces 0.99 or more: vision.edges.RIDGE_SHARE), so they stay dropped
    as the upright's shadow and do not take the upright's place."""
    state = detect(rendered(9608, bare_bulb=True))
    assert_read_as(state, (641.0, 134.0), 2.5, "blue", Size.MEDIUM, Pose.UPRIGHT)


@pytest.mark.parametrize("seed, nose", [(9724, (157.0, 372.0)), (9708, (469.0, 340.0))])
def test_a_flat_piece_in_a_shadow_bigger_than_itself_is_found(seed, nose):
    # a low lamp: the red flat and its red shadow made one blob too big for any piece,
    # so nothing was fitted to it and the piece was lost; without its shadow (the pixels
    # darker than the table and tinted far less than its most tinted part) it is one
    # (vision.pipeline OWN_SHADOW_TINT_PERCENTILE)
    assert_read_as(detect(rendered(seed)), nose, 3.0, "red", Size.LARGE, Pose.FLAT)
