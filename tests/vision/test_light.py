"""The main lamp found from the pieces' shade, and their shadows read out of the picture
before it is read again (vision.light, vision.pipeline)."""

import cv2
import numpy as np
import pytest

from calibration.markers import MarkerLayout
from domain import Piece, Size
from vision import light
from vision.evaluate import Score
from vision.geometry import piece_vertices
from vision.rectify import TableGrid
from vision.scenes import rendered

from seeded import detect

GRID = TableGrid.around(MarkerLayout.default())
OVERHEAD = np.array([380.0, 280.0, 1e6])    # a camera so far up that nothing leans
PIECES = [Piece.upright("", "red", size, (x, y), angle, 1.0)
          for size, x, y, angle in [(Size.LARGE, 150.0, 150.0, 10.0), (Size.MEDIUM, 400.0, 200.0, 40.0),
                                    (Size.SMALL, 600.0, 350.0, 0.0), (Size.LARGE, 250.0, 400.0, 70.0),
                                    (Size.MEDIUM, 500.0, 450.0, 25.0)]]


def shaded_table(lamp_towards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The darkening (log) of a table whose pieces cast hard shadows under a far lamp,
    and the pieces' bodies."""
    body = light.bodies(light.outlines(PIECES, GRID, OVERHEAD), (), GRID)
    shadow = np.zeros((GRID.height, GRID.width), np.uint8)
    for p in PIECES:
        poly = GRID.to_px(light.shadow_polygon(piece_vertices(p), lamp_towards))
        cv2.fillConvexPoly(shadow, np.round(poly * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    lum = np.where(shadow > 0, -0.6, 0.0).astype(np.float32)
    lum += np.random.default_rng(1).normal(0, 0.05, lum.shape).astype(np.float32)   # the table's noise
    return lum, body


@pytest.mark.parametrize("azimuth, elevation", [(30.0, 50.0), (200.0, 35.0), (-100.0, 65.0)])
def test_the_lamp_is_found_from_the_shade_beside_the_pieces(azimuth, elevation):
    truth = light.towards(np.radians(azimuth), np.radians(elevation))
    lum, body = shaded_table(truth)
    lamp = light.find_lamp(PIECES, body, lum, np.ones(lum.shape, bool), GRID)
    assert np.degrees(np.arccos(np.clip(lamp.towards @ truth, -1, 1))) <= 6.0
    assert lamp.agreement > 0.6   # (0.72-0.95: a short shadow hides more of itself under its piece's rim)


def test_no_pieces_or_no_shade_no_lamp():
    flat = np.zeros((GRID.height, GRID.width), np.float32)
    body = light.bodies(light.outlines(PIECES, GRID, OVERHEAD), (), GRID)
    assert light.find_lamp([], body, flat, np.ones(flat.shape, bool), GRID) is None
    assert light.find_lamp(PIECES, body, flat, np.ones(flat.shape, bool), GRID) is None


def test_a_shadow_is_taken_out_but_not_another_piece_or_clear_plastic_in_it():
    towards = light.towards(0.0, np.radians(45.0))        # shadows fall towards -x
    red = Piece.upright("", "red", Size.LARGE, (300.0, 250.0), 0.0, 1.0)
    body = light.bodies(light.outlines([red], GRID, OVERHEAD), (), GRID)
    lum = np.zeros((GRID.height, GRID.width), np.float32)
    hue = np.zeros((GRID.height, GRID.width, 2), np.float32)
    red_hue, blue_hue = np.array([0.6, 0.1]), np.array([-0.5, 0.4])
    col, row = np.round(GRID.to_px(np.array([[300.0, 250.0]]))[0]).astype(int)
    hue[row - 12:row + 13, col - 12:col + 13] = red_hue                 # the caster
    lum[:, :col] = -0.4                                                  # shade on its shadow side
    hue[row - 3:row + 4, col - 28:col - 22] = 0.5 * red_hue              # its tinted shadow
    hue[row - 3:row + 4, col - 40:col - 34] = blue_hue                   # a blue piece standing in it
    lum[row - 3:row + 4, col - 21:col - 17] = 0.2                        # clear plastic glinting in it
    casts = light.predicted_shadows([red], light.outlines([red], GRID, OVERHEAD), light.Lamp(towards, 1.0), hue, GRID)
    cut = light.cast_shadows(casts, body, lum, hue, np.ones(lum.shape, bool))
    assert cut[row, col - 25] and cut[row + 5, col - 25]                 # tinted, and plain dark
    assert not cut[row, col - 37] and not cut[row, col - 19]             # the blue piece, the clear one
    assert not (cut & (body > 0)).any() and not cut[:, col + 20:].any()  # nor the caster, nor its lit side


def test_under_a_bare_bulb_the_second_reading_mends_pieces_read_with_their_shadows(monkeypatch):
    # held-out scenes lit by their strongest lamp alone, a bare bulb: hard shadows, tinted
    # where the light crossed a piece
    scenes = [rendered(seed, bare_bulb=True) for seed in range(9000, 9010)]

    def mistakes():
        s = Score()
        for r in scenes:
            s.add(r.truth, detect(r), str(r.spec.seed))
        return len(s.mistakes), s

    read_again, s = mistakes()
    monkeypatch.setattr(light, "find_lamp", lambda *args: None)    # the first reading alone
    first, _ = mistakes()
    # measured: 27 -> 16 mistakes (size 93.9 -> 98.5 %, pose 97.0 -> 99.3 %)
    assert read_again <= first - 8, s.mistakes


def test_the_drawing_outlines_each_shadow_the_lamp_casts():
    from dataclasses import replace as with_field
    from vision.annotate import annotate
    from vision.pipeline import Detector
    r = rendered(9003, bare_bulb=True)
    d = Detector(r.spec.layout, r.intrinsics).detect(r.image)
    assert d.lamp is not None
    drawn, plain = annotate(r.image, d), annotate(r.image, with_field(d, lamp=None))
    view = d.registration.view
    upright = next(p for p in d.state.pieces if p.center is not None)
    shadow = light.shadow_polygon(piece_vertices(upright), d.lamp.towards)
    tip = shadow[np.argmax((shadow - upright.center) @ d.lamp.shadow_direction)]   # its apex's shadow
    x, y = np.round(view.project(np.array([tip]))[0]).astype(int)
    assert (drawn[y - 1:y + 2, x - 1:x + 2] != plain[y - 1:y + 2, x - 1:x + 2]).any()


def random_window(rng: np.random.Generator, largest: int, mean_lum: float) -> tuple:
    """A random piece's window for the compiled shadow kernels: its shape, predicted
    shadow, bodies, usable table, hue and darkening, and the caster's hue."""
    shape = tuple(rng.integers(5, largest, 2))
    shadow = (rng.random(shape) < 0.6).astype(np.uint8)
    body = (rng.random(shape) < 0.2).astype(np.uint8)
    usable = rng.random(shape) < 0.9
    hue = rng.normal(0, 0.2, shape + (2,)).astype(np.float32)
    lum = rng.normal(mean_lum, 0.2, shape).astype(np.float32)
    caster = np.array([rng.normal(0, 0.5), rng.normal(0, 0.5)])
    return shape, shadow, body, usable, hue, lum, caster


def test_the_compiled_shadow_test_takes_out_what_the_numpy_expressions_did():
    """vision.light_kernels.take_out_window against the numpy it replaced, on random
    windows with hues near the caster's cosine and chromas near PLAIN_CHROMA."""
    from vision.light_kernels import take_out_window
    rng = np.random.default_rng(7)
    for _ in range(50):
        shape, shadow, body, usable, hue, lum, caster = random_window(rng, 40, -0.1)
        rows, cols = np.nonzero((shadow > 0) & (body == 0) & usable)
        hs = hue[rows, cols]
        chroma = np.hypot(hs[:, 0], hs[:, 1])
        same = hs @ caster > light.SAME_HUE_COS * chroma * float(np.hypot(*caster))
        plain = (chroma < light.PLAIN_CHROMA) & (lum[rows, cols] < 0)
        expected = np.zeros(shape, bool)
        expected[rows[plain | same], cols[plain | same]] = True
        got = np.zeros(shape, bool)
        take_out_window(shadow, body, usable, hue, lum, caster, light.PLAIN_CHROMA, light.SAME_HUE_COS, got)
        assert np.array_equal(got, expected)


def test_a_piece_read_in_a_neighbours_shadow_and_looking_like_it_is_that_shadow():
    towards = light.towards(0.0, np.radians(20.0))        # long shadows towards -x
    red = Piece.upright("", "red", Size.LARGE, (300.0, 250.0), 0.0, 1.0)
    ghost = Piece.upright("", "blue", Size.SMALL, (265.0, 250.0), 0.0, 1.0)   # read in the red's shadow
    real = Piece.upright("", "yellow", Size.SMALL, (250.0, 250.0), 0.0, 1.0)  # standing in it
    pieces = [red, ghost, real]
    seen = light.outlines(pieces, GRID, OVERHEAD)
    body = light.bodies(seen, (), GRID)
    lum = np.zeros((GRID.height, GRID.width), np.float32)
    hue = np.zeros((GRID.height, GRID.width, 2), np.float32)
    room = np.array([-0.6, -0.3])                         # a cool room's light in a warm lamp's shadows
    col, row = np.round(GRID.to_px(np.array([[300.0, 250.0]]))[0]).astype(int)
    lum[:, :col - 13] = -0.4
    hue[:, :col - 13] = 0.4 * room                        # 0.27 chroma: hue evidence, not plain shade
    hue[row - 12:row + 13, col - 12:col + 13] = (0.6, 0.1)                # the red caster
    x, y = np.round(GRID.to_px(np.array([real.center]))[0]).astype(int)
    hue[y - 6:y + 7, x - 6:x + 7] = (0.5, -0.5)                            # the yellow plastic
    usable = np.ones(lum.shape, bool)
    casts = light.predicted_shadows(pieces, seen, light.Lamp(towards, 1.0), hue, GRID)
    assert light.shadow_like(casts, seen, [1, 2], body, lum, hue, usable, GRID) == {1}
    assert light.shadow_like(casts, seen, [2], body, lum, hue, usable, GRID) == set()
    bare = np.zeros_like(lum)                             # no shade: no tint to tell it by
    assert light.shadow_like(casts, seen, [1, 2], body, bare, hue, usable, GRID) == set()


def test_pieces_read_in_shadows_tinted_by_the_room_are_taken_out_with_them(monkeypatch):
    # our renders with a false piece in another's shadow, as generated and under a bare bulb
    # (measured: 12 false pieces over the four without the rule, 4 with it; none missed more)
    from vision import pipeline
    scenes = [rendered(9005), rendered(9223), rendered(9005, bare_bulb=True), rendered(9618, bare_bulb=True)]

    def score():
        s = Score()
        for r in scenes:
            s.add(r.truth, detect(r), str(r.spec.seed))
        return s

    kept = score()
    monkeypatch.setattr(pipeline, "SHADOW_LIKE_EDGES", -1.0)   # no piece's edges weak enough
    unkept = score()
    false = lambda s: s.n_found - s.n_matched
    assert false(kept) <= false(unkept) - 6, kept.mistakes
    assert kept.n_matched >= unkept.n_matched


def test_the_compiled_shadow_samples_are_the_numpy_selection():
    from vision.light_kernels import shadow_samples
    rng = np.random.default_rng(3)
    for _ in range(30):
        _, shadow, body, usable, hue, lum, caster = random_window(rng, 30, -0.2)
        pick = (shadow > 0) & (body == 0) & usable & (lum < -0.1)
        pick &= hue @ caster <= light.SAME_HUE_COS * np.hypot(hue[..., 0], hue[..., 1]) * np.hypot(*caster)
        expected = hue[pick] / -lum[pick][:, None]
        got = shadow_samples(shadow, body, usable, hue, lum, -0.1, caster, light.SAME_HUE_COS)
        assert np.allclose(got, expected, rtol=1e-5, atol=1e-6)
