"""A renderer's view transform told from the markers' edges, and undone."""

import cv2
import numpy as np
import pytest

from calibration.markers import MarkerLayout
from calibration.registration import register
from calibration.srgb import LINEAR, levels
from calibration.synthetic import defocused, picture_of_layout, random_view
from calibration.sharpness import edge_fits
from calibration.view_transforms import VIEW_EDGE_GAIN_PX, ViewUndo, views
from vision.scenes import rendered

LAYOUT = MarkerLayout.default()


def through_view(image: np.ndarray, name: str, stops_up: float = 0.5) -> np.ndarray:
    """A plainly developed picture's light developed again through the grey curve of the
    view `name`, exposed `stops_up` brighter: as a renderer's view transform would have."""
    light = np.log2(np.maximum(LINEAR[image], 1e-6)) + stops_up
    return np.round(np.interp(light, views()[name].stops, np.arange(256))).astype(np.uint8)


def sharpened(image: np.ndarray, amount: float) -> np.ndarray:
    """An unsharp mask on the picture's levels, as a camera's processing sharpens."""
    f = image.astype(np.float32)
    return np.clip(f + amount * (f - cv2.GaussianBlur(f, (0, 0), 1.0)), 0, 255).round().astype(np.uint8)


@pytest.fixture(scope="module", params=[1, 2])
def scene(request):
    view = random_view(np.random.default_rng(request.param), LAYOUT)
    return view, picture_of_layout(LAYOUT, view, seed=request.param)


def test_a_plain_picture_is_taken_as_plain(scene):
    view, picture = scene
    assert register(picture, LAYOUT, view.intrinsics).view_transform is None
    assert register(defocused(picture, 1.0), LAYOUT, view.intrinsics).view_transform is None


@pytest.mark.parametrize("name", ["AgX", "Filmic"])
def test_a_view_transform_is_told_from_the_markers_and_undone(scene, name):
    # AgX's and Filmic's curves are near enough to be taken for each other; either, undone,
    # gives the picture's light back far better than reading it as sRGB
    view, picture = scene
    for plain, stops_up in ((picture, 0.5), (defocused(picture, 0.6), -0.5)):
        developed = through_view(plain, name, stops_up)
        reg = register(developed, LAYOUT, view.intrinsics)
        assert reg.view_transform is not None
        undone, _ = views()[reg.view_transform].developed(developed, reg.paper_white_bgr)
        assert light_error(undone, plain) < 0.5 * light_error(developed, plain)


def light_error(picture: np.ndarray, plain: np.ndarray) -> float:
    """How far a picture's light stands from a plain one's, as ratios to the brightest
    level (median over the picture's mid-tones, log)."""
    a, b = (np.log(LINEAR[p].astype(float) + 1e-3) - np.log(LINEAR[np.max(p)] + 1e-3) for p in (picture, plain))
    mid = (plain > 40) & (plain < 220)
    return float(np.median(np.abs(a - b)[mid]))


@pytest.mark.parametrize("amount", [0.7, 1.5])
def test_a_picture_sharpened_after_development_is_not_taken_for_a_view(scene, amount):
    view, picture = scene
    assert register(sharpened(picture, amount), LAYOUT, view.intrinsics).view_transform is None


def test_a_camera_that_blurs_and_sharpens_its_levels_is_not_taken_for_a_view():
    # our renderer's camera (N 9700: sharpened 0.69 on its levels) moves the edges'
    # half-way light by -0.14 px as a view would; it was once taken for AgX
    r = rendered(9700)
    reg = register(r.image, r.spec.layout, r.intrinsics)
    assert reg.view_transform is None
    plain = edge_fits(r.image, reg.view, r.spec.layout, reg.markers_seen, {"sRGB": LINEAR})["sRGB"]
    assert plain.shift_px < -VIEW_EDGE_GAIN_PX


def test_clipped_paper_says_nothing():
    # an overexposed plain picture's edges lose their tops and shift as a view's would
    view = random_view(np.random.default_rng(3), LAYOUT)
    picture = picture_of_layout(LAYOUT, view, seed=3)
    bright = np.clip(np.round(levels(LINEAR[picture] * 2.0)), 0, 255).astype(np.uint8)
    reg = register(bright, LAYOUT, view.intrinsics)
    assert np.max(reg.paper_white_bgr) >= 250 and reg.view_transform is None


def test_undoing_a_curve_gives_back_the_light():
    # a view's grey curve undone: the light's ratios to the paper's come back
    undo = views()["Filmic"]
    plain = np.random.default_rng(0).integers(30, 230, (40, 40, 3)).astype(np.uint8)
    plain[0, 0] = 230   # the paper
    developed = through_view(plain, "Filmic")
    back, paper = undo.developed(developed, developed[0, 0].astype(float))
    assert paper == pytest.approx(developed[0, 0], abs=0.5)   # the paper keeps its level
    ratio = np.log(LINEAR[back] / LINEAR[back[0, 0]]) - np.log(LINEAR[plain] / LINEAR[plain[0, 0]])
    assert np.median(np.abs(ratio)) < 0.02 and np.percentile(np.abs(ratio), 95) < 0.06


def test_a_view_is_its_data():
    undo = ViewUndo(np.log2(LINEAR + 1e-9))   # sRGB's own curve: undoing it changes nothing
    picture = np.random.default_rng(2).integers(0, 256, (10, 10, 3)).astype(np.uint8)
    back, _ = undo.developed(picture, np.array([255.0, 255.0, 255.0]))
    assert np.abs(back.astype(int) - picture).max() <= 1
