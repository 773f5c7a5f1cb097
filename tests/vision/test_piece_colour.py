"""A piece's colour told again once its pose is known (vision.piece_colour): red or green
by the lean over felt, cyan and purple flats, green uprights and flats that yellow
explains, an upright read black whose own pixels are blue, and a dark candidate over
felt taken for green."""

from types import SimpleNamespace

import numpy as np
import pytest

from calibration.markers import MarkerLayout
from vision.colour_reading import NEAR_CALL
from vision.piece_colour import BLACK_UPRIGHT_BLUE_RISE, black_or_blue, blue_rise, by_pose, green_on_felt
from vision.pipeline import Detector

from colour_helpers import read_colour, whole_blob


def _told(det, blob, pose, name, margin, prior):
    """by_pose for a piece read `name` from `blob` (its whole reading and distances)."""
    return by_pose(det.models.names, name, margin, pose, getattr(blob, "whole", None), blob.colour_distances, prior,
                   getattr(blob, "whole_distances", None))


@pytest.mark.parametrize("change, table, pose, colour", [
    # the least-leaning red upright and red flat over felt (Blender's Cycles 9210, 9204),
    # the most-leaning green upright (Mitsuba, thin walls, 9237) and green flat
    # (refracting walls, 9256); change: the whole blob's against the felt, b, g, r
    ([-0.60, -0.57, -0.30], [-0.97, -0.53, -1.47], "upright", "red"),
    ([-0.57, -0.79, 0.16], [-1.16, -0.98, -1.48], "flat", "red"),
    ([-1.12, -0.87, -0.52], [-1.07, -0.61, -1.70], "upright", "green"),
    ([-0.19, -0.45, 0.00], [-1.29, -0.55, -1.78], "flat", "green"),
])
def test_a_piece_over_felt_read_red_or_green_is_told_by_its_pose(change, table, pose, colour):
    det = Detector(MarkerLayout.default())
    names = det.models.names
    distances = np.full(len(names), 3.0)
    distances[names.index("red")], distances[names.index("green")] = 0.5, 0.45   # a near call
    blob = SimpleNamespace(whole=np.array([np.add(table, change), table]), colour_distances=distances)
    other = "green" if colour == "red" else "red"
    everything = det.models.palette_prior(None)
    assert _told(det, blob, pose, colour, 0.3, everything) == (colour, 0.3)   # kept, its margin too
    turned, margin = _told(det, blob, pose, other, 0.3, everything)
    assert turned == colour and margin < 0.1                                        # turned: a near call
    without = det.models.palette_prior([c for c in names if c != colour])
    assert _told(det, blob, pose, other, 0.3, without) == (other, 0.3)       # not into a colour out of play
    distances[names.index("red")] = 0.45 + 2.0                                      # red plainly worse
    assert _told(det, blob, pose, other, 0.3, everything) == (other, 0.3)
    distances[names.index("red")] = 0.5
    wood = [-1.3, -1.1, -0.7]
    blob.whole = np.array([np.add(wood, change), wood])
    assert _told(det, blob, pose, other, 0.3, everything) == (other, 0.3)    # not over a red-rich table


def test_a_flat_piece_read_cyan_that_green_nearly_explains_is_green():
    # Blender's Cycles and Mitsuba's refracting walls: green flats read cyan by +0.12 to
    # +0.30 spreads; the Xeno stash's cyan flats are cyan by +0.72 or more
    det = Detector(MarkerLayout.default())
    names = det.models.names
    everything = det.models.palette_prior(None)

    def flat_read_cyan(by):   # cyan nearer than green by `by` spreads
        distances = np.full(len(names), 3.0)
        distances[names.index("cyan")], distances[names.index("green")] = 0.5, 0.5 + by
        return SimpleNamespace(colour_distances=distances)

    turned, margin = _told(det, flat_read_cyan(0.26), "flat", "cyan", 0.26, everything)
    assert turned == "green" and margin < 0.1
    assert _told(det, flat_read_cyan(0.72), "flat", "cyan", 0.72, everything) == ("cyan", 0.72)
    assert _told(det, flat_read_cyan(0.26), "upright", "cyan", 0.26, everything) == ("cyan", 0.26)
    xeno = det.models.palette_prior(["orange", "purple", "cyan", "white", "clear"])
    assert _told(det, flat_read_cyan(0.26), "flat", "cyan", 0.26, xeno) == ("cyan", 0.26)


@pytest.mark.parametrize("whole, pose, colour", [
    # whole blobs (observed, felt beside it; b, g, r) of flats read purple: Blender's
    # Cycles 9243 and Mitsuba's refracting walls 9237, blue flats whose red stayed below
    # the felt's; our ten colours 9303 and the Xeno stash 9307, purple flats lifting it
    ([[-1.35, -1.59, -1.85], [-1.07, -0.73, -1.59]], "flat", "blue"),
    ([[-1.26, -1.89, -2.13], [-1.05, -0.59, -1.70]], "flat", "blue"),
    ([[-0.90, -1.51, -1.25], [-1.22, -0.68, -1.51]], "flat", "purple"),
    ([[-0.91, -1.74, -1.23], [-1.26, -0.77, -1.89]], "flat", "purple"),
    # uprights are left alone (ours lift red by -0.16 to +0.68)
    ([[-1.35, -1.59, -1.85], [-1.07, -0.73, -1.59]], "upright", "purple"),
])
def test_a_flat_read_purple_over_felt_that_does_not_lift_red_is_blue(whole, pose, colour):
    det = Detector(MarkerLayout.default())
    observed, table = np.array(whole)
    blob = whole_blob(det, whole)
    assert det.models.names[int(np.argmin(blob.colour_distances))] == "purple"
    everything = det.models.palette_prior(None)
    told, margin = _told(det, blob, pose, "purple", 0.4, everything)
    assert told == colour and (margin < 0.1 if colour != "purple" else margin == 0.4)
    xeno = det.models.palette_prior(["orange", "purple", "cyan", "white", "clear"])
    assert _told(det, blob, pose, "purple", 0.4, xeno) == ("purple", 0.4)   # blue out of play
    wood = np.array([-1.3, -1.1, -0.7])
    blob.whole = np.array([observed - table + wood, wood])
    assert _told(det, blob, pose, "purple", 0.4, everything) == ("purple", 0.4)   # not over wood


@pytest.mark.parametrize("whole, pose, colour", [
    # whole blobs (observed, felt beside it; b, g, r) read green by BLUE_BELOW_GREEN (their
    # blue fell less than 0.35 below green): Blender's Cycles' yellow uprights 9241 and
    # 9228, which yellow explains 0.96 and 0.90 spreads better than green, are yellow...
    ([[-1.80, -1.13, -1.73], [-0.94, -0.57, -1.30]], "upright", "yellow"),
    ([[-2.00, -1.28, -1.82], [-1.27, -0.88, -1.48]], "upright", "yellow"),
    # ... where our green uprights (A 9210, N 9726: 0.43 and 0.06) stay green
    ([[-1.71, -0.96, -2.01], [-1.02, -0.51, -1.75]], "upright", "green"),
    ([[-1.65, -1.07, -2.08], [-1.09, -0.66, -1.86]], "upright", "green"),
    # and flats keep the rule (our green flats come within 0.63)
    ([[-1.80, -1.13, -1.73], [-0.94, -0.57, -1.30]], "flat", "green"),
])
def test_an_upright_read_green_over_felt_that_yellow_plainly_explains_is_yellow(whole, pose, colour):
    det = Detector(MarkerLayout.default())
    observed, felt = np.array(whole)
    assert read_colour(det, [list(observed), list(observed)], list(felt))[0] == "green"   # BLUE_BELOW_GREEN
    assert _green_told(det, whole, pose) == (colour, "green")


def test_a_dark_candidate_read_clear_over_felt_is_green_where_green_nearly_explains_it():
    # Blender's Cycles 9204: a green medium flat over teal felt darkens it almost plainly
    # (the felt shares green's hue), so its blob is a dark candidate nearest clear, which
    # is taken for table; green explains it within GREEN_SHARES_FELT of clear
    det = Detector(MarkerLayout.default())
    names = det.models.names
    observed, felt = np.array([-1.56, -1.35, -1.80]), np.array([-1.16, -0.98, -1.48])
    distances = det.models.distances(observed[None], felt[None])[0]
    assert names[int(np.argmin(distances))] == "clear"
    everything = det.models.palette_prior(None)
    assert green_on_felt(names, distances, felt, everything)
    # not where green is out of play, nor over wood, where a plain darkening is table
    assert not green_on_felt(names, distances, felt, det.models.palette_prior(["red", "blue", "clear"]))
    wood = np.array([-0.6, -0.5, -0.4])
    on_wood = det.models.distances((observed - felt + wood)[None], wood[None])[0]
    assert not green_on_felt(names, on_wood, wood, everything)


@pytest.mark.parametrize("whole, pose, colour", [
    # whole blobs (observed, table beside it; b, g, r) read green off felt: Blender's
    # Cycles' yellow flats over grey cloth and wood (9304, 9206), their red cut nearly as
    # much as their green (-0.02, -0.16), are yellow...
    ([[-1.41, -1.08, -1.03], [-0.79, -0.82, -0.75]], "flat", "yellow"),
    ([[-1.94, -1.39, -1.19], [-1.36, -1.13, -0.77]], "flat", "yellow"),
    # ... where green flats drop red 0.33 or more below green (Cycles 9246 over cloth,
    # Mitsuba's thin walls 9244 over wood: -0.41, -0.63) and stay green
    ([[-1.47, -1.19, -1.53], [-0.70, -0.70, -0.63]], "flat", "green"),
    ([[-1.54, -1.31, -1.77], [-1.14, -1.05, -0.88]], "flat", "green"),
    # uprights are left alone (YELLOW_PASSES_RED was measured on them)
    ([[-1.41, -1.08, -1.03], [-0.79, -0.82, -0.75]], "upright", "green"),
])
def test_a_flat_read_green_whose_red_fell_too_little_for_green_plastic_is_yellow(whole, pose, colour):
    assert _green_told(Detector(MarkerLayout.default()), whole, pose) == (colour, "green")


def _green_told(det, whole, pose) -> tuple[str, str]:
    """What `by_pose` tells a blob read green (by `whole`, as best_readings leaves it: green
    a near call) once its `pose` is known, with every colour in play and without yellow."""
    names = det.models.names
    blob = whole_blob(det, whole)
    blob.colour_distances[names.index("green")] = blob.colour_distances.min() - 0.05
    everything = det.models.palette_prior(None)
    without_yellow = det.models.palette_prior([c for c in names if c != "yellow"])
    return (_told(det, blob, pose, "green", 0.05, everything)[0],
            _told(det, blob, pose, "green", 0.05, without_yellow)[0])


@pytest.mark.parametrize("rise, pose, palette, colour", [
    # the least and most of Cycles' blue uprights over wood read black, mended (9267, 9250)
    (0.27, "upright", None, "blue"),
    (0.47, "upright", None, "blue"),
    # the bluest black upright read black over any renderer's table (Cycles 9815, wood)
    (0.19, "upright", None, "black"),
    # flats are left alone, and blue out of play is never read
    (0.47, "flat", None, "black"),
    (0.47, "upright", ["red", "black"], "black"),
])
def test_an_upright_read_black_whose_own_pixels_are_plainly_bluer_than_its_table_is_blue(rise, pose, palette,
                                                                                        colour):
    det = Detector(MarkerLayout.default())
    told, margin = black_or_blue(det.models.names, "black", 0.4, pose, rise, det.models.palette_prior(palette))
    assert told == colour and margin == (0.4 if colour == "black" else NEAR_CALL)


def test_a_blue_upright_read_black_over_wood_is_blue_by_its_own_pixels():
    # the median pixels (b, g, r) inside two Cycles uprights over wood, and of the bare
    # wood under them: 9250's blue medium upright, so dark that its blob reads black, and
    # a black large upright of the Rainbow stash (9815, at 633, 183), mirroring room and wood
    det = Detector(MarkerLayout.default())
    through_blue, its_wood = np.array([[62, 57, 66]], np.uint8), np.array([[97, 133, 160]], np.uint8)
    mirroring, under_black = np.array([[33, 35, 48]], np.uint8), np.array([[88, 109, 132]], np.uint8)
    assert blue_rise(through_blue, its_wood) > BLACK_UPRIGHT_BLUE_RISE > blue_rise(mirroring, under_black)
    everything = det.models.palette_prior(None)
    for seen, bare, colour in [(through_blue, its_wood, "blue"), (mirroring, under_black, "black")]:
        assert black_or_blue(det.models.names, "black", 0.4, "upright", blue_rise(seen, bare), everything)[0] == colour
