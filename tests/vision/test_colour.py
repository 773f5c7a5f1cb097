"""Colour models: the shipped defaults, file errors, and calibration from a picture."""

import numpy as np
import pytest

from calibration.colour import ColourFileError, ColourModels, refine_from_picture
from calibration.markers import MarkerLayout
from domain import Color, InputError, Piece, Pose, Size
from vision.pipeline import Detector
from vision.scenes import rendered

from colour_helpers import read_colour as _read
from fakes import FakeRegistration, draw_scene, tilted_view
from seeded import assert_read_as, detect


def test_defaults_cover_every_colour():
    assert sorted(ColourModels.load().names) == sorted(c.value for c in Color)


def test_opaque_white_is_not_the_table_seen_through_clear():
    models = ColourModels.load()
    wood = np.array([[-1.2, -0.9, -0.6]])
    assert models.classify(np.array([[-0.2, -0.2, -0.25]]), wood)[0] == ["white"]
    assert models.classify(wood - 0.1, wood)[0] == ["clear"]
    assert models.classify(np.array([[-3.0, -2.9, -2.9]]), wood)[0] == ["black"]


def test_a_green_upright_whose_most_tinted_quarter_mirrors_warm_lamps_is_green():
    # path-traced 9204: a green large upright on green felt. Its most tinted quarter is
    # where its faces mirror the warm lamps most, the only red the camera gets through
    # green plastic: that quarter reads yellow, the whole blob green (the warm mirror, vision/colour_reading.py)
    det = Detector(MarkerLayout.default())
    felt = [-1.04, -0.84, -1.46]
    quarter, whole = [-2.68, -1.47, -2.0], [-1.98, -1.38, -2.41]
    models = det.models
    assert models.classify(np.array([quarter]), np.array([felt]))[0] == ["yellow"]
    assert models.classify(np.array([whole]), np.array([felt]))[0] == ["green"]
    assert _read(det, [quarter, whole], felt)[0] == "green"


def test_a_red_flat_over_felt_read_black_is_red():
    # Cycles 9237: a red small flat over green felt passes the felt's little red and cuts
    # its green, as black plastic's faces would show it; but black mirrors only the room
    # and the felt, and is never redder than grey there (BLACK_IS_NOT_RED)
    det = Detector(MarkerLayout.default())
    felt = np.array([-1.17, -0.77, -1.66])
    flat = felt + [-0.78, -1.23, -0.10]
    assert det.models.classify(np.array([flat]), np.array([felt]))[0] == ["black"]
    colour, margin = _read(det, [flat, flat], felt)
    assert colour == "red" and margin < 0.1
    # a black piece over felt mirrors grey: it stays black
    grey = np.array([-2.0, -2.0, -2.02])
    assert _read(det, [grey, grey], felt)[0] == "black"


def test_a_plain_darkening_of_wood_is_no_tinted_plastic():
    # Cycles 9212: a dark streak of wood figure, darker than the wood around it by the
    # same ~0.25 log in every channel. Yellow plastic that hides the wood's own yellowish
    # hue explains it as well as clear does (then red level with green made it a green
    # upright): but plastic that changes the table's hue by nothing is clear plastic or
    # table (HUELESS_TINT)
    det = Detector(MarkerLayout.default())
    wood = np.array([-0.6, -0.42, -0.25])
    streak = wood + [-0.26, -0.25, -0.23]
    assert det.models.classify(np.array([streak]), np.array([wood]))[0] == ["yellow"]
    assert _read(det, [streak, streak], wood)[0] == "clear"
    # a tinted reading of the same darkness stays plastic
    assert _read(det, [wood + [-0.5, -0.25, -0.2]] * 2, wood)[0] == "yellow"


def test_a_plain_darkening_reads_clear_only_as_table_when_a_calibration_put_clear_out_of_play():
    # a calibration picture of red, yellow, green and blue charges clear, black and white
    # (OFF_PALETTE_PRIOR): a hueless blob is then no clear piece, but a dark candidate
    # still reads clear, which the detector takes for table (its calibration pictures'
    # own shadows)
    from calibration.colour import ColourModel
    from vision.colour_reading import best_readings
    shipped = ColourModels.load()
    charged = ColourModels(tuple(ColourModel(m.name, m.kind, m.appearance, m.spread, float(p), m.brightness)
                                 for m, p in zip(shipped.models, shipped.palette_prior(["red", "yellow", "green", "blue"]))))
    wood = np.array([-0.6, -0.42, -0.25])
    streak = wood + [-0.26, -0.25, -0.23]
    r = np.array([[[streak, wood], [streak, wood]]] * 2)
    best, d, _ = best_readings(charged, r, np.array([False, True]))
    read = [charged.names[int(np.argmin(d[i, best[i]]))] for i in range(2)]
    assert read[0] != "clear" and read[1] == "clear"


def test_a_plain_darkening_of_green_felt_may_be_green_plastic():
    # green plastic over green felt changes the felt's hue little (Cycles 9200's green
    # flat: 0.04): it stays green where the same reading over wood would not
    det = Detector(MarkerLayout.default())
    felt = np.array([-1.04, -0.84, -1.46])
    dark = felt + [-0.3, -0.3, -0.3]
    assert _read(det, [dark, dark], felt)[0] == det.models.classify(np.array([dark]), np.array([felt]))[0][0] == "green"


def test_a_dark_olive_upright_whose_red_fell_against_its_green_is_green_not_yellow():
    # path-traced 9248: a green large upright on wood passes so little light that both of
    # its readings (most tinted quarter, whole) are a dark olive, nearer yellow than green.
    # But the whole blob's red fell further than its green against the wood beside it,
    # which yellow plastic (it cuts only blue) cannot do (YELLOW_PASSES_RED)
    det = Detector(MarkerLayout.default())
    wood = [-0.46, -0.35, -0.22]
    quarter, whole = [-2.11, -1.31, -1.38], [-1.78, -1.23, -1.2]
    assert det.models.classify(np.array([quarter, whole]), np.array([wood, wood]))[0] == ["yellow", "yellow"]
    colour, margin = _read(det, [quarter, whole], wood)
    assert colour == "green"
    assert margin < 0.1   # a near call, said with little confidence
    # a plain yellow upright on wood (held out 9219) whose red fell as well stays yellow:
    # green is 2 spreads further
    wood = [-1.32, -1.06, -0.8]
    assert _read(det, [[-2.67, -0.8, -0.62], [-1.97, -0.79, -0.59]], wood)[0] == "yellow"


def test_a_dark_olive_upright_whose_red_stayed_level_with_its_green_is_green_when_green_is_near():
    # path-traced 9208 and 9211: green large uprights over wood, olive, their red level
    # with their green against the wood (risen 0.00 and 0.03: a reading's noise), green
    # 0.30 and 0.37 spreads further than yellow (RED_LEVEL, RED_LEVEL_GAP)
    det = Detector(MarkerLayout.default())
    wood = [-0.51, -0.33, -0.17]
    assert _read(det, [[-1.53, -1.04, -0.84], [-1.28, -0.88, -0.72]], wood)[0] == "green"
    wood = [-0.41, -0.34, -0.2]
    assert _read(det, [[-2.03, -1.52, -1.3], [-1.78, -1.37, -1.2]], wood)[0] == "green"
    # a pale yellow flat (held out 9620) whose red rose only 0.04 above its green, but
    # which green explains 0.69 spreads worse, stays yellow
    cloth = [-0.93, -0.62, -0.36]
    assert _read(det, [[-1.54, -0.69, -0.38], [-1.25, -0.67, -0.37]], cloth)[0] == "yellow"


def test_green_over_felt_reads_green_where_red_or_yellow_plastic_would_show_more():
    # over green felt (red-poor) the red a green piece shows is its faces' mirror of the
    # room. Held out 9616: a green medium flat reads red, but red plastic lifts red above
    # green against felt by 0.8 or more, this blob by 0.27 (RED_LIFTS_RED). Renders' 9210:
    # a green large upright reads yellow, but yellow plastic drops blue 0.35 or more below
    # green, this blob by 0.23 (BLUE_BELOW_GREEN). Both said as near calls.
    det = Detector(MarkerLayout.default())
    colour, margin = _read(det, [[-1.3, -0.81, -1.4], [-1.3, -0.81, -1.48]], [-1.05, -0.63, -1.58])
    assert colour == "green" and margin < 0.1
    colour, margin = _read(det, [[-2.04, -1.04, -2.13], [-1.79, -1.04, -2.21]], [-1.01, -0.49, -1.72])
    assert colour == "green" and margin < 0.1
    # a path-traced red upright (9204) lifting red by 0.81 and a yellow flat (9220) whose
    # blue fell only 0.1 below green (1.45 spreads nearer yellow) keep their colours
    assert _read(det, [[-1.62, -1.43, -0.98], [-1.48, -1.25, -1.06]], [-0.96, -0.75, -1.37])[0] == "red"
    # path traced with refracting walls, red uprights over felt pass less still and lift
    # red by only 0.55-0.72 (9218, 9207), but red explains them 1.58 spreads or more
    # better than green, more than any green read red (RED_LIFT_SPREAD): still red
    assert _read(det, [[-2.91, -2.18, -1.75], [-2.48, -1.87, -1.82]], [-1.22, -0.79, -1.29])[0] == "red"
    assert _read(det, [[-1.88, -1.42, -1.49], [-1.81, -1.30, -1.65]], [-1.02, -0.55, -1.60])[0] == "red"
    assert _read(det, [[-0.62, -0.25, -0.06], [-0.58, -0.24, -0.08]], [-0.98, -0.74, -1.43])[0] == "yellow"
    # over wood (red-rich) neither tell is used: a yellow reading there stays yellow
    assert _read(det, [[-2.67, -0.8, -0.62], [-1.97, -0.79, -0.59]], [-1.32, -1.06, -0.8])[0] == "yellow"


def test_a_red_upright_over_felt_read_green_is_red_where_its_quarter_lifts_red_as_no_green_does(monkeypatch):
    # path traced through refracting walls, 9210: a red medium upright on green felt passes
    # so little that its whole blob lifts red above green by only 0.58, as green pieces'
    # mirrors do (RED_LIFTS_RED reads it green), but its most tinted quarter lifts red by
    # 0.96, where no green piece's does over felt (QUARTER_LIFTS_RED)
    from vision import colour_reading
    det = Detector(MarkerLayout.default())
    felt = [-1.03, -0.54, -1.71]
    quarter, whole = [-1.89, -1.40, -1.61], [-1.83, -1.26, -1.85]
    colour, margin = _read(det, [quarter, whole], felt)
    assert colour == "red" and margin < 0.1
    monkeypatch.setattr(colour_reading, "QUARTER_LIFTS_RED", np.inf)
    assert _read(det, [quarter, whole], felt)[0] == "green"
    monkeypatch.undo()
    # the green piece whose quarter lifts red most over felt (N 9712, a small flat: 0.78)
    assert _read(det, [[-1.75, -1.02, -1.79], [-1.75, -1.01, -1.93]], [-1.06, -0.55, -2.10])[0] == "green"


def test_a_dark_upright_greener_than_the_table_is_green_not_black():
    # path-traced 9231: a green small upright on wood passes so little light that its
    # whole reading is nearest black. But black plastic only mirrors the room and the
    # table, and this blob is 0.4 (log) greener than the wood beside it (BLACK_IS_NOT_GREEN)
    det = Detector(MarkerLayout.default())
    wood = [-0.6, -0.52, -0.42]
    quarter, whole = [-2.28, -1.5, -1.75], [-2.02, -1.43, -1.61]
    assert det.models.classify(np.array([whole]), np.array([wood]))[0] == ["black"]
    colour, margin = _read(det, [quarter, whole], wood)
    assert colour == "green" and margin < 0.1
    # path-traced black pieces on wood (9801, 9802) stay black: no greener than the table
    assert _read(det, [[-1.56, -1.41, -1.28], [-1.6, -1.43, -1.28]], [-0.47, -0.29, -0.13])[0] == "black"
    assert _read(det, [[-1.36, -1.34, -1.38], [-1.41, -1.36, -1.33]], [-1.29, -1.07, -0.66])[0] == "black"


def test_a_dark_upright_a_little_greener_than_the_table_is_green_when_its_blue_rose_less():
    # path-traced with refracting walls, 9212: a green medium upright on wood passes so
    # little light that it reads black, only 0.13 greener than the wood; but its green
    # fell against the table less than its blue did (GREENER_THAN_TABLE)
    det = Detector(MarkerLayout.default())
    wood = [-0.44, -0.37, -0.27]
    colour, margin = _read(det, [[-1.93, -1.48, -1.43], [-1.44, -1.17, -1.13]], wood)
    assert colour == "green" and margin < 0.1
    # the path-traced black flat on wood above (9802) is 0.11 greener than the wood, but
    # it mirrors a room cooler than the wood: its blue rose more than its green (by 0.17)
    assert _read(det, [[-1.36, -1.34, -1.38], [-1.41, -1.36, -1.33]], [-1.29, -1.07, -0.66])[0] == "black"


def test_a_dark_upright_whose_most_tinted_quarter_is_plainly_bluer_than_the_table_is_blue():
    # path traced through refracting walls, 9217: a blue large upright on wood passes so
    # little light that the whole blob reads black; its most tinted quarter is 0.96 (log)
    # bluer than the wood beside it, where black plastic mirroring the room reaches 0.56
    # (BLACK_IS_NOT_BLUE)
    det = Detector(MarkerLayout.default())
    wood = [-0.74, -0.53, -0.31]
    quarter, whole = [-1.22, -2.0, -1.71], [-1.53, -1.9, -1.59]
    assert det.models.classify(np.array([whole]), np.array([wood]))[0] == ["black"]
    colour, margin = _read(det, [quarter, whole], wood)
    assert colour == "blue" and margin < 0.1
    # our Rainbow 9802: a black flat on a warm wood whose quarter mirrors a cooler room,
    # 0.56 bluer than the wood: black
    assert _read(det, [[-1.34, -1.31, -1.54], [-1.49, -1.4, -1.41]], [-1.05, -0.79, -0.37])[0] == "black"


def test_a_green_flat_brighter_in_red_than_the_green_felt_is_green():
    # seed 9700: a green medium flat on green felt. Its top face mirrors the room, and in
    # red, which neither the felt nor the plastic passes much, its most tinted quarter
    # looks brighter than the bare felt, which no filter does. Of its two readings (that
    # quarter, the whole), the one some colour explains best names it (vision.pipeline);
    # without MIRROR_GRID that was the quarter, read red
    models = ColourModels.load()
    felt = np.array([-1.3, -0.6, -1.89])
    readings = np.array([[-1.2, -0.73, -1.37], [-1.4, -0.84, -1.7]])
    d = models.distances(readings, np.array([felt, felt]))
    assert models.names[d[d.min(axis=1).argmin()].argmin()] == "green"


@pytest.mark.parametrize("text, needle", [
    ("{", "not valid JSON"), ('{"colours": {}}', "non-empty"),
    ('{"colours": {"red": {"kind": "glowing", "appearance": [0, 0, 0], "spread": 1}}}', "kind"),
    ('{"colours": {"red": {"kind": "opaque", "appearance": [0, 0], "spread": 1}}}', "appearance"),
    ('{"colours": {"red": {"kind": "opaque", "appearance": [0, 0, 0], "spread": 0}}}', "spread"),
])
def test_bad_colour_files(tmp_path, text, needle):
    path = tmp_path / "colours.json"
    path.write_text(text)
    with pytest.raises(ColourFileError, match=needle):
        ColourModels.load(str(path))


def test_round_trip(tmp_path):
    models = ColourModels.load()
    models.save(str(tmp_path / "c.json"))
    assert ColourModels.load(str(tmp_path / "c.json")) == models


def _calibration_picture(colours, table_bgr):
    view = tilted_view()
    pieces = [Piece.upright(f"p{i}", c, "large", (150 + 140 * i, 260), 10 * i) for i, c in enumerate(colours)]
    return draw_scene(view, pieces, table_bgr=table_bgr), FakeRegistration(view), pieces


def test_calibration_learns_plastics_unlike_the_defaults():
    # the fake plastics are paler than the defaults expect: calibrate on one table,
    # then every piece is right on another
    colours = ["red", "yellow", "green", "blue"]
    img, reg, _ = _calibration_picture(colours, (90, 120, 160))
    models = refine_from_picture(img, MarkerLayout.default(), colours, registration=reg)
    changed = [m.name for m, d in zip(models.models, ColourModels.load().models) if m.appearance != d.appearance]
    assert sorted(changed) == sorted(colours)
    img2, reg2, pieces = _calibration_picture(colours[::-1], (120, 125, 130))
    seen = Detector(MarkerLayout.default(), models=models).detect(img2, reg2).state.pieces
    assert sorted(p.color.value for p in seen) == sorted(colours)
    by_x = sorted(seen, key=lambda p: p.center[0])
    assert [p.color.value for p in by_x] == colours[::-1]


def test_a_calibration_piece_too_grey_to_measure_keeps_its_default(monkeypatch):
    # Cycles 9238: a yellow upright over dark wood passed so little light that it measured
    # nearly grey, and that "yellow" then took every dark blob (CALIBRATION_MIN_SPAN)
    import fakes
    monkeypatch.setitem(fakes.TINTS, "yellow", (0.44, 0.47, 0.48))
    colours = ["red", "yellow", "green", "blue"]
    img, reg, _ = _calibration_picture(colours, (120, 125, 130))
    notes: list[str] = []
    models = refine_from_picture(img, MarkerLayout.default(), colours, registration=reg, notes=notes)
    shipped = ColourModels.load()
    assert models.models[models.names.index("yellow")].appearance == \
        shipped.models[shipped.names.index("yellow")].appearance
    assert [n.split(":")[0] for n in notes] == ["yellow"]
    # the others are measured as usual
    assert all(models.models[models.names.index(c)].appearance != shipped.models[shipped.names.index(c)].appearance
               for c in ("red", "green", "blue"))


def test_calibration_needs_exactly_the_named_pieces():
    img, reg, _ = _calibration_picture(["red", "blue"], (90, 120, 160))
    with pytest.raises(InputError, match="should show 3 pieces"):
        refine_from_picture(img, MarkerLayout.default(), ["red", "blue", "green"], registration=reg)
    with pytest.raises(InputError, match="only once"):
        refine_from_picture(img, MarkerLayout.default(), ["red", "red"], registration=reg)


def test_a_calibration_picture_with_a_piece_too_many_is_refused_unless_it_is_doubtful(monkeypatch):
    from calibration import colour
    img, reg, _ = _calibration_picture(["red", "blue", "green"], (90, 120, 160))
    # the green piece is as plain as the others: a piece left on the table, not a false one
    with pytest.raises(InputError, match="should show 2 pieces"):
        refine_from_picture(img, MarkerLayout.default(), ["red", "blue"], registration=reg)
    # were the green one doubtful (a false piece), it is left out and said; the named
    # colours are measured from their pieces
    monkeypatch.setattr(colour, "CALIBRATION_EXTRA_CONFIDENCE", 1.01)
    notes: list[str] = []
    models = refine_from_picture(img, MarkerLayout.default(), ["red", "blue"], registration=reg, notes=notes)
    assert len(notes) == 1 and notes[0].startswith("left out a doubtful piece (read as green")
    shipped = ColourModels.load()
    changed = [m.name for m, d in zip(models.models, shipped.models) if m.appearance != d.appearance]
    assert sorted(changed) == ["blue", "red"]


def test_a_faint_piece_shows_the_table_through_it():
    # a green piece on light wood drowned in mirrored light (measured on a render): only
    # a faint green tint on the wood; the wood's own yellow is not yellow plastic
    models = ColourModels.load()
    wood = np.array([[-0.42, -0.22, -0.09]])
    assert models.classify(np.array([[-0.45, 0.01, -0.13]]), wood)[0] == ["green"]


@pytest.mark.parametrize("observed, table", [
    ([-3.06, -2.41, -1.08], [-0.61, -0.53, -0.43]),   # large upright over wood
    ([-2.44, -1.64, -1.10], [-1.25, -0.67, -1.43]),   # large upright over green felt
    ([-1.57, -1.30, -0.77], [-0.96, -1.04, -0.97]),   # large upright over dark wood
])
def test_path_traced_red_uprights_are_red_not_orange(observed, table):
    # measured on path-traced pictures (bench/pbr): the steep faces mirror the table
    # beside the piece, and the red plastic's two weak channels come out unequal
    assert ColourModels.load().classify(np.array([observed]), np.array([table]))[0] == ["red"]


@pytest.mark.parametrize("seed, where, size", [
    (9604, (308.0, 159.0), Size.MEDIUM),   # held out
    (9621, (420.0, 245.0), Size.SMALL),
    (9000, (113.0, 426.0), Size.MEDIUM),
])
def test_red_uprights_on_green_felt_are_red_not_orange(seed, where, size):
    # the felt has little red: what the faces mirror lifts the green channel a little over
    # what red plastic passes, and orange explained them 0.07-0.27 spread better than red
    # until its prior rose to 0.8 (calibration/data/colours.json)
    assert_read_as(detect(rendered(seed)), where, 2.0, "red", size, Pose.UPRIGHT)


@pytest.mark.parametrize("observed, table", [
    ([-1.24, -2.25, -1.84], [-0.72, -0.72, -0.64]),   # large upright over grey cloth
    ([-1.02, -1.91, -2.10], [-1.00, -0.53, -1.60]),   # large flat over green felt
])
def test_path_traced_blue_pieces_are_blue_not_purple(observed, table):
    # measured on path-traced pictures (bench/pbr); purple is the rarer Xeno colour
    assert ColourModels.load().classify(np.array([observed]), np.array([table]))[0] == ["blue"]


# Since the renderer's haze is absorbed (docs/renderer.md, 2026-11-23) these pieces are
# darker and their mirror of the room is more of what is seen: 9210 and 9224 read
# yellow (green again by RED_LIFTS_RED and BLUE_BELOW_GREEN, vision/colour_reading.py);
# 9225 was missed until the dark candidate took in its lit faces' fragments, too small
# to be fitted on their own (vision.segment).
@pytest.mark.parametrize("seed, where, size, pose", [
    (9210, (266, 415), Size.LARGE, Pose.UPRIGHT),    # over green felt
    (9225, (552, 426), Size.MEDIUM, Pose.UPRIGHT),
    (9224, (475, 343), Size.LARGE, Pose.FLAT),
])
def test_green_pieces_mirroring_the_room_read_green(seed, where, size, pose):
    # green lets almost no red through: where the felt under it is red-poor, the red its
    # faces mirror is all the red there is, and the blob's most hue-changed pixels (the
    # most mirroring ones) read yellow or red; the whole blob reads green
    assert_read_as(detect(rendered(seed)), where, 4.0, "green", size, pose)


WARPSHIPS = ("red", "yellow", "green", "blue")


@pytest.mark.parametrize("observed, table", [
    ([-1.67, -1.33, -1.37], [-0.46, -0.41, -0.30]),   # small upright over wood
    ([-1.93, -1.65, -1.91], [-0.63, -0.39, -0.25]),   # large upright over wood
])
def test_path_traced_dark_green_uprights_read_green_when_the_game_uses_green(observed, table):
    # measured on path-traced pictures (bench/pbr): the steep faces let little light
    # through and mirror the table, so nothing but the game's colours tells them from black
    models = ColourModels.load()
    d = models.distances(np.array([observed]), np.array([table]))
    assert models.nearest(d)[0] == ["black"]
    assert models.nearest(d + models.palette_prior(WARPSHIPS))[0] == ["green"]


@pytest.mark.parametrize("observed, table, colour", [
    ([-1.87, -1.23, -1.50], [-0.34, -0.17, -0.11], "green"),   # small upright over wood
    ([-1.24, -1.08, -1.24], [-0.38, -0.39, -0.36], "green"),   # large upright over grey cloth
    ([-1.35, -1.13, -1.34], [-0.41, -0.42, -0.37], "green"),   # large upright over grey cloth
    ([-1.37, -1.25, -1.14], [-0.65, -0.43, -0.27], "black"),   # large upright over wood
    ([-1.38, -1.34, -1.38], [-1.29, -1.07, -0.66], "black"),   # small flat over dark wood
    ([-1.05, -1.10, -1.11], [-0.34, -0.37, -0.37], "black"),   # large upright over grey cloth
    ([-1.50, -1.49, -1.59], [-1.16, -0.75, -1.65], "black"),   # large upright over green felt
])
def test_path_traced_dark_green_uprights_and_black_pieces_read_apart(observed, table, colour):
    # measured on path-traced pictures (bench/pbr): these green uprights read 0.03-0.1
    # spread nearer black than green, and black's prior (0.1) tips them; the black
    # pieces are the black readings nearest another colour, and keep their margin
    assert ColourModels.load().classify(np.array([observed]), np.array([table]))[0] == [colour]


@pytest.mark.parametrize("observed, table, colour", [
    ([-0.57, -1.60, -0.89], [-0.24, -0.31, -0.32], "purple"),   # a large upright over grey cloth
    ([-1.09, -1.48, -1.30], [-0.41, -0.36, -0.27], "blue"),     # path-traced, read black without
])
def test_a_game_palette_leaves_plain_readings_alone(observed, table, colour):
    models = ColourModels.load()
    d = models.distances(np.array([observed]), np.array([table])) + models.palette_prior(WARPSHIPS)
    assert models.nearest(d)[0] == [colour]


def test_a_game_palette_changes_nothing_where_every_piece_plainly_is_the_games():
    r = rendered(9600)
    detector = Detector(r.spec.layout, r.intrinsics)
    assert {p.color.value for p in r.truth.pieces} <= set(WARPSHIPS)
    read = [[(p.color, p.size, p.pose, p.position) for p in detector.detect(r.image, palette=palette).state.pieces]
            for palette in (WARPSHIPS, None)]
    assert read[0] == read[1]   # (confidences may rise: the runner-up colour may be out of play)


def test_a_flat_piece_glaring_white_reads_its_colour():
    # held out 9619: a blue medium flat whose top face mirrors a lamp over most of its
    # blob; its most tinted quarter is plainly blue (vision.colour_reading.GLARE_PLAIN)
    assert_read_as(detect(rendered(9619)), (114, 411), 3.0, "blue", Size.MEDIUM, Pose.FLAT)


def test_a_calibration_picture_leaves_the_colours_it_does_not_show_out_of_play():
    # one medium upright of each colour in use, rendered on a table of its own
    from dataclasses import replace
    from calibration.colour import OFF_PALETTE_PRIOR
    from vision.evaluate import Score
    from vision.render import random_scene, render_cached
    colours = ["red", "yellow", "green", "blue"]
    spec = random_scene(9300)
    spec = replace(spec, pieces=tuple(Piece.upright(f"c{i}", c, Size.MEDIUM, (250.0 + 100 * i, 280.0), 20.0 * i)
                                      for i, c in enumerate(colours)))
    r = render_cached(spec)
    models = refine_from_picture(r.image, spec.layout, colours, intrinsics=r.intrinsics)
    assert {m.name: m.prior for m in models.models} == {
        m.name: (0.0 if m.name in colours else OFF_PALETTE_PRIOR) for m in models.models}
    # read as well as with the shipped models on held-out tables: 0 colours misread
    # against their 2 (when every prior was dropped, the Xeno colours as likely as these: 4)
    calibrated, shipped = Score(), Score()
    for seed in range(9000, 9010):
        t = rendered(seed)
        calibrated.add(t.truth, Detector(t.spec.layout, t.intrinsics, models=models).detect(t.image).state)
        shipped.add(t.truth, Detector(t.spec.layout, t.intrinsics).detect(t.image).state)
    assert calibrated.rate(calibrated.colour_ok) >= shipped.rate(shipped.colour_ok) - 0.01, calibrated.mistakes


@pytest.mark.parametrize("seed", [9822, 9825])
def test_a_calibration_picture_is_measured_from_its_pieces_not_every_blob(seed):
    # one medium upright of each colour of the Rainbow stash with black, on the table of a
    # held-out render: a black piece's shadow is a blob too, and the calibration took the
    # blobs for the pieces (found 6 and 7, and refused the picture)
    from dataclasses import replace
    from vision.render import render_cached
    colours = ["red", "yellow", "green", "blue", "black"]
    spec = replace(rendered(seed, colors=tuple(colours)).spec,
                   pieces=tuple(Piece.upright(f"c{i}", c, Size.MEDIUM, (200.0 + 90 * i, 280.0), 20.0 * i)
                                for i, c in enumerate(colours)))
    r = render_cached(spec)
    models = refine_from_picture(r.image, spec.layout, colours, intrinsics=r.intrinsics)
    shipped = {m.name: m.appearance for m in ColourModels.load().models}
    assert all(m.appearance != shipped[m.name] for m in models.models if m.name in colours)
    # and the calibrated models read the calibration picture's pieces as what they are
    state = Detector(spec.layout, r.intrinsics, models=models).detect(r.image).state
    assert sorted(p.color.value for p in state.pieces) == sorted(colours)
