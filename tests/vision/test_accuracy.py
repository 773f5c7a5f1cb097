"""Detection accuracy on held-out rendered tables, registered from their markers.

The camera's intrinsics are given (as `detect --camera camera.json` does): from the
markers alone a nearly top-down camera's focal length and height are poorly determined,
and the height is what corrects for a piece's lean. Seeds here were never used while
developing the detector. The floors below are what the detector reaches today, below
the product's targets where it falls short (docs/detection.md has the figures and the
targets); a change that loses accuracy fails.
"""


import pytest

from domain import Color
from vision.evaluate import CoinScore, Score
from vision.scenes import rendered

from seeded import detect

HELD_OUT = range(9000, 9010)
ALL_COLOURS = tuple(c.value for c in Color)


@pytest.fixture(scope="module")
def score():
    s = Score()
    for seed in HELD_OUT:
        r = rendered(seed)
        s.add(r.truth, detect(r), str(seed))
    print(s.summary())
    return s


# Floors measured on the corrected renderer (the table mirrored in the pieces' faces lit
# by the lamps' irradiance at the table, docs/renderer.md): darker, more piece-like
# tinted shadows cost found, false and size detections against the older, too bright pieces.
def test_pieces_found_and_nothing_invented(score):
    assert score.found_rate >= 0.90, score.mistakes
    assert score.false_rate <= 0.055, score.mistakes


def test_colour_size_and_pose(score):
    assert score.rate(score.colour_ok) >= 0.98, score.mistakes
    assert score.rate(score.size_ok) >= 0.94, score.mistakes
    assert score.rate(score.pose_ok) >= 0.965, score.mistakes


def test_positions_and_headings_in_table_mm(score):
    assert score.position_median <= 1.0
    # (2.2 until 9008's small green upright was found from its lit half, 3.6 mm off;
    # 2.3 until two small uprights read with their shadows as a flat piece were found
    # (9005, 9008, vision.decide TIGHT_FIT_COST_MM: found 97.2 -> 97.9 %, false
    # 0.7 -> 0 %), 4.3 and 2.3 mm off towards their shadows, p95 2.17 -> 2.45 mm; the
    # target is 3 mm; 1.27 mm since each pose is averaged with its edges' best lie,
    # vision.edges POSE_BY_EDGES)
    assert score.percentile(score.position_err, 95) <= 1.5
    assert score.percentile(score.heading_err, 50) <= 0.75
    # (2.0 until the renderer's haze was absorbed and its thick places stopped mirroring
    # the room, docs/renderer.md 2026-11-23: darker, more saturated flats, 2.79°; the
    # target is 3°; 2.6° since a flat piece's pose is averaged with its edges' best lie,
    # vision.edges POSE_BY_EDGES; 3.26° since the pieces' shadows are read out and the
    # picture read again, vision.light, over the target: of these 48 flats a green large
    # one on felt lost the rim of its shadow side, 0.02 -> 3.3° off, and a yellow small
    # one turned 2.7 -> 4.0°, while the p95 fell over the other sets, path traced 2.42 ->
    # 2.37°, A 3.01 -> 2.44°, held out 2.32 -> 2.14°, N 2.67 -> 2.37°; protecting each
    # caster's own rim 2 px wide brought this set to 2.91° but cost 7 mistakes over the
    # others)
    assert score.percentile(score.heading_err, 95) <= 3.3


def test_confidence_is_the_chance_a_piece_is_read_right(score):
    # fitted on other renders (bench/fit_confidence.py); the old confidence, the weakest
    # of three margins, scored Brier 0.14 and calibration error 0.23 on held-out renders
    figures = score.confidence_figures()
    assert figures["brier"] <= 0.07, figures
    assert figures["calibration_error"] <= 0.08, figures
    assert figures["sure_share"] >= 0.75 and figures["sure_right"] >= 0.97, figures


def test_all_ten_colours():
    s = Score()
    for seed in (9100, 9101, 9102):
        r = rendered(seed, colors=ALL_COLOURS)
        s.add(r.truth, detect(r), str(seed))
    print(s.summary())
    # (35 of 41 until the pieces' shadows were read out and the picture read again,
    # vision.light: a blue flat is taken for the cast shadow of the piece beside it)
    assert s.found_rate >= 0.82, s.mistakes
    # 29 of 35 (31 of 36 until the renderer's haze was absorbed, docs/renderer.md
    # 2026-11-23): among the misread, a black upright on green felt read as red (red
    # plastic passes almost nothing of the felt's green: it looks as dark as black there)
    assert s.rate(s.colour_ok) >= 0.82, s.mistakes
    # black and white are opaque: found where they stand even when their colour is doubtful
    opaque = [t for seed in (9100, 9101, 9102) for t in rendered(seed, colors=ALL_COLOURS).truth.pieces
              if t.color.value in ("black", "white")]
    missed = [m for m in s.mistakes if "missed black" in m or "missed white" in m]
    assert len(missed) <= len(opaque) // 2, missed


def test_spike_coins_found_and_their_metal_read():
    """Pennies and nickels among the pieces (2-4 a table; seeds not used in developing
    vision.coins): found, none invented, the right metal, centres in table mm."""
    s = CoinScore()
    for seed in range(7920, 7930):
        r = rendered(seed, coins=(2, 4))
        s.add(r.truth, detect(r), str(seed))
    print(s.summary())
    assert s.found_rate >= 0.95, s.mistakes
    assert s.false_rate <= 0.05, s.mistakes
    # 26 of 29 until the picture's cast was taken out (calibration.white_balance,
    # 2026-11-28): three pennies of 7929 under a light that mirrored them nearly as a
    # nickel's grey; all since
    assert s.kind_rate >= 0.85, s.mistakes
    # 0.17 and 0.47 mm since a coin's centre is taken back from its top face's lift
    # (vision.coins.on_table; 0.5 mm median before, on all 60 coin seeds)
    assert s.percentile_centre(50) <= 0.35 and s.percentile_centre(95) <= 1.0, s.centre_err
