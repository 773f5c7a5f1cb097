"""Rendered pictures: markers findable where the truth says, pieces where the truth says,
hands hiding what they cover, reproducible bytes."""

import dataclasses

import cv2
import numpy as np
import pytest

from domain import Color, Piece, Pose
from vision.render import Hand, random_scene, render, scene_from_pieces
from vision.render.materials import PLASTICS
from vision.render.render import render_linear
from vision.render.tracer import Pixels, trace
from vision.render.world import build_world

SCENES = {"wood": 2, "cloth": 4, "felt": 6}


@pytest.fixture(scope="module")
def renders():
    out = {}
    for kind, seed in SCENES.items():
        spec = random_scene(seed, surface=kind, colors=[c.value for c in Color])
        out[kind] = (render(spec), render(dataclasses.replace(spec, pieces=())))
    return out


def detect_markers(image):
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
    corners, ids, _ = det.detectMarkers(image)
    return {} if ids is None else {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}


@pytest.mark.parametrize("kind", SCENES)
def test_picture_format(renders, kind):
    r, _ = renders[kind]
    assert r.image.shape == (960, 1280, 3) and r.image.dtype == np.uint8
    assert r.jpeg[:2] == b"\xff\xd8"
    decoded = cv2.imdecode(np.frombuffer(r.jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(decoded, r.image)


@pytest.mark.parametrize("kind", SCENES)
def test_all_four_markers_are_found_where_the_true_camera_puts_them(renders, kind):
    r, _ = renders[kind]
    found = detect_markers(r.image)
    assert sorted(found) == [0, 1, 2, 3]
    for mid, corners in found.items():
        expected = r.view.project(r.spec.layout.marker(mid).corners())
        assert np.abs(corners - expected).max() < 1.5


def _inside_point(p: Piece) -> tuple[np.ndarray, float]:
    """A table point and height well inside the plastic of a piece (for looking it up)."""
    if p.pose is Pose.UPRIGHT:
        return np.array(p.center), p.size.height * 0.3
    foot = np.array(p.footprint())
    return foot.mean(axis=0), p.size.flat_raised_height * 0.3


@pytest.mark.parametrize("kind", SCENES)
def test_pieces_are_drawn_where_the_truth_says_in_their_colour(renders, kind):
    r, empty = renders[kind]
    img = r.image.astype(float) + 1
    base = empty.image.astype(float) + 1
    checked = 0
    for p in r.truth.pieces:
        xy, h = _inside_point(p)
        u, v = np.round(r.view.project([xy], height=h)[0]).astype(int)
        patch = np.s_[v - 1:v + 2, u - 1:u + 2]
        diff = np.abs(img[patch] - base[patch]).mean()
        if p.color is Color.CLEAR:  # clear plastic barely changes the table behind it
            continue
        assert diff > 5, f"{p.id} ({p.color.value}) does not show at its true place"
        plastic = PLASTICS[p.color]
        if plastic.wall is None or diff < 12:  # opaque, or a colour much like the table's
            continue
        # the table seen through the piece is tinted like the plastic's transmission
        ratio = np.log(img[patch].reshape(-1, 3).mean(0) / base[patch].reshape(-1, 3).mean(0))[::-1]  # -> RGB
        want = np.log(np.array(plastic.wall))
        if np.ptp(want) > 1.0:
            assert np.corrcoef(ratio, want)[0, 1] > 0.5, f"{p.id} is not tinted {p.color.value}"
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize("kind", SCENES)
def test_table_far_from_pieces_is_untouched(renders, kind):
    r, empty = renders[kind]
    mask = np.zeros(r.image.shape[:2], np.uint8)
    for p in r.truth.pieces:
        px = r.view.project(np.array(p.footprint()))
        top = r.view.project(np.array(p.footprint()), height=p.size.height)
        hull = cv2.convexHull(np.vstack([px, top]).astype(np.float32)).astype(np.int32)
        cv2.fillConvexPoly(mask, hull, 255)
    # shadows and JPEG blocks reach a little further than the pieces themselves
    mask = cv2.dilate(mask, np.ones((181, 181), np.uint8))
    far = mask == 0
    assert far.mean() > 0.25
    diff = np.abs(r.image.astype(int) - empty.image.astype(int))[far]
    assert diff.mean() < 1.0


def test_same_spec_renders_the_same_bytes():
    spec = scene_from_pieces([Piece.upright("a", "red", "large", (380, 280), 10)], seed=9)
    assert render(spec).jpeg == render(spec).jpeg


def _radiance_at(spec, uv):
    world = build_world(spec)
    rgb, _ = trace(world, spec.view(), Pixels(np.array([uv[0]], float), np.array([uv[1]], float)),
                   np.random.default_rng(0))
    return rgb[0]


def test_a_hand_hides_the_piece_under_it():
    piece = Piece.upright("a", "yellow", "large", (380, 280), 10)
    hand = Hand((380 - 60, 280, 120), direction_deg=0)
    with_both = scene_from_pieces([piece], seed=5, occluders=(hand,))
    piece_only = dataclasses.replace(with_both, occluders=())
    hand_only = dataclasses.replace(with_both, pieces=())
    uv = with_both.view().project([piece.center], height=10)[0]
    seen = _radiance_at(with_both, uv)
    assert np.allclose(seen, _radiance_at(hand_only, uv), rtol=0.02, atol=1e-4)
    assert not np.allclose(seen, _radiance_at(piece_only, uv), rtol=0.2)


def test_a_hand_over_a_marker_hides_it():
    spec = random_scene(8, n_pieces=3)
    m = spec.layout.marker(0)
    spec = dataclasses.replace(spec, occluders=(Hand((m.center[0] - 40, m.center[1], 90), direction_deg=0),))
    found = detect_markers(render(spec).image)
    assert 0 not in found and {1, 2, 3} <= set(found)


def test_a_piece_casts_a_darker_shadow_than_the_open_table():
    piece = Piece.upright("a", "black", "large", (380, 280), 0)
    spec = scene_from_pieces([piece], seed=1)
    lamp = np.array(spec.lamps[0].position)
    # a table point just behind the piece, away from the main lamp
    away = np.array(piece.center) - (lamp[:2] - piece.center) / np.linalg.norm(lamp[:2] - piece.center) * 16
    lit = np.array(piece.center) + (lamp[:2] - piece.center) / np.linalg.norm(lamp[:2] - piece.center) * 30
    img = render_linear(spec)
    view = spec.view()
    (ua, va), (ul, vl) = np.round(view.project([away, lit])).astype(int)
    assert img[va, ua].sum() < 0.8 * img[vl, ul].sum()


def test_camera_processing_keeps_a_flat_colour_and_adds_camera_like_noise():
    from vision.render.scene import Sensor
    from vision.render.sensor import to_jpeg
    linear = np.zeros((96, 128, 3), np.float32)
    linear[..., 0], linear[..., 1], linear[..., 2] = 0.5, 0.2, 0.05   # RGB
    clean, _ = to_jpeg(linear, Sensor(shot_noise=0, read_noise=0, vignette=0, sharpen=0, jpeg_quality=95))
    # sRGB of (0.05, 0.2, 0.5) linear is (63, 124, 188), in BGR order
    assert np.abs(clean[40:56, 56:72].reshape(-1, 3).mean(0) - [63, 124, 188]).max() < 2
    noisy, _ = to_jpeg(linear, Sensor(shot_noise=0.02, read_noise=2, vignette=0, sharpen=0, jpeg_quality=95))
    g = noisy[..., 1].astype(float)
    assert 1.0 < g.std() < 6.0
    # demosaicking makes neighbouring pixels' noise correlated
    a, b = g[:, :-1] - g.mean(), g[:, 1:] - g.mean()
    assert (a * b).mean() / g.var() > 0.2


def test_a_checkerboard_is_drawn_where_its_corners_say():
    from vision.render import Board
    board = Board(corners=((180, 480), (580, 480), (580, 80), (180, 80)), files=8, ranks=8, style="checker",
                  canal_after_rank=None)
    spec = scene_from_pieces([], seed=3, board=board)
    view = spec.view()
    lum = lambda xy: _radiance_at(spec, view.project([xy])[0]).sum()
    a1, b1, a2, b2 = (205, 455), (255, 455), (205, 405), (255, 405)   # square centres, 50 mm squares
    assert lum(a1) < 0.5 * lum(b1) and lum(b2) < 0.5 * lum(a2)        # a1 dark, like b2
    assert abs(lum(a1) - lum(b2)) < 0.2 * lum(b1)


def test_render_cache_returns_the_same_picture(tmp_path):
    from vision.render import render_cached
    spec = scene_from_pieces([Piece.flat("a", "blue", "small", (380, 280), 30)], seed=2)
    first = render_cached(spec, tmp_path)
    again = render_cached(spec, tmp_path)
    assert len(list(tmp_path.glob("*.jpg"))) == 1
    assert again.jpeg == first.jpeg and np.array_equal(again.image, first.image)
    assert again.truth == first.truth


def test_translucent_shadows_are_tinted_by_the_plastic():
    from vision.render import Lamp
    low_lamp = (Lamp((80.0, 280.0, 300.0), radius=20.0, intensity=1.0, kelvin=5000.0),)
    in_shadow, lit = (405.0, 280.0), (405.0, 330.0)   # the shadow falls along +x, ~40 mm long
    ratios = {}
    for colour in ("red", "black"):
        spec = scene_from_pieces([Piece.upright("a", colour, "large", (380, 280), 0)], seed=1, lamps=low_lamp,
                                 ambient=0.05)
        view = spec.view()
        shade_rgb = _radiance_at(spec, view.project([in_shadow])[0])
        lit_rgb = _radiance_at(spec, view.project([lit])[0])
        ratios[colour] = shade_rgb / lit_rgb
    red = ratios["red"]
    assert red[0] > 3 * red[1] and red[0] > 3 * red[2]     # red light gets through red plastic
    assert red[0] > 0.25                                    # a translucent shadow is light
    assert ratios["black"].max() < 0.25                     # an opaque one is dark, and grey
    assert np.ptp(ratios["black"]) < 0.05


def test_inner_pieces_of_a_nest_show_through_and_only_the_outer_is_reported():
    nest = Piece.upright("n", "yellow", "large", (380, 280), 10, stack=("large", "medium"))
    single = Piece.upright("n", "yellow", "large", (380, 280), 10)
    spec_nest = scene_from_pieces([nest], seed=6)
    spec_single = dataclasses.replace(spec_nest, pieces=(single,))
    uv = spec_nest.view().project([(380, 280)], height=5)[0]
    a, b = _radiance_at(spec_nest, uv), _radiance_at(spec_single, uv)
    # the inner walls on the way (more absorption, more glow and reflection) change the look
    assert np.abs(a - b).sum() > 0.05 * b.sum()
    assert [p.stack for p in spec_nest.truth().pieces] == [(nest.size, nest.stack[1])]


def test_a_carried_piece_is_drawn_in_the_air_but_not_reported():
    from vision.render import Carried
    held = Carried(Piece.upright("h", "blue", "large", (380, 280), 0), height=80.0)
    spec = scene_from_pieces([], seed=6, carried=(held,))
    empty = dataclasses.replace(spec, carried=())
    uv = spec.view().project([(380, 280)], height=80 + 10)[0]
    with_piece, without = _radiance_at(spec, uv), _radiance_at(empty, uv)
    assert with_piece[2] / with_piece.sum() > without[2] / without.sum() + 0.1   # bluer
    assert spec.truth().pieces == ()
