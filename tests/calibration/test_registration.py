"""Registration against synthetic pictures of the markers seen by cameras we know."""

import dataclasses

import cv2
import numpy as np
import pytest

from calibration.camera import CameraView, Intrinsics
from calibration.markers import Marker, MarkerLayout
from calibration.registration import CAMERA_MOVED_PX, MarkersNotFoundError, PictureError, find_markers, register
from calibration.srgb import LINEAR, encode
from calibration.synthetic import picture_of_layout, random_view

LAYOUT = MarkerLayout.default()
# table points where pieces stand: the layout's corners and centre
PROBES = np.array([(65, 65), (695, 65), (695, 495), (65, 495), (380, 280), (200, 400)], float)
LARGE_APEX_MM = 44.45


def whole_views(n, seed, **options):
    """n random cameras that see every marker whole."""
    rng, views = np.random.default_rng(seed), []
    while len(views) < n:
        v = random_view(rng, LAYOUT, **options)
        px = np.concatenate([v.project(m.corners()) for m in LAYOUT.markers])
        if ((px > 20) & (px < [v.intrinsics.width - 20, v.intrinsics.height - 20])).all():
            views.append(v)
    return views


def table_error(estimated: CameraView, truth: CameraView, height: float) -> float:
    """Worst error (mm) locating PROBES at `height` from where the true camera sees them."""
    seen = truth.project(PROBES, height=height)
    return float(np.abs(estimated.image_to_table(seen, height=height) - PROBES).max())


def hide(image, view, marker_ids, layout=LAYOUT):
    """Cover markers (and their paper) with a hand-coloured blob."""
    out = image.copy()
    for i in marker_ids:
        m = layout.marker(i)
        r = m.size * 0.75
        quad = [(m.center[0] + dx * r, m.center[1] + dy * r) for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        cv2.fillPoly(out, [np.round(view.project(quad)).astype(np.int32)], (90, 120, 170))
    return out


@pytest.fixture(scope="module")
def scenes():
    return [(v, picture_of_layout(LAYOUT, v, seed=k)) for k, v in enumerate(whole_views(4, seed=11))]


def test_with_the_camera_file_table_points_are_exact_on_and_above_the_table(scenes):
    for view, image in scenes:
        reg = register(image, LAYOUT, view.intrinsics)
        assert reg.markers_seen == [0, 1, 2, 3]
        assert reg.reprojection_error_px < 0.5
        assert table_error(reg.view, view, 0.0) < 0.3
        assert table_error(reg.view, view, LARGE_APEX_MM) < 0.4
        assert np.linalg.norm(reg.view.position - view.position) < 5.0


def test_without_the_camera_file_the_lens_is_estimated(scenes):
    for view, image in scenes:
        reg = register(image, LAYOUT)
        assert reg.view.meta["focal_estimated"]
        intr = reg.view.intrinsics
        assert (intr.width, intr.height) == (1280, 960) and intr.fx == intr.fy
        assert table_error(reg.view, view, 0.0) < 2.5   # worst probe; 0.2-0.5 mm when sharp
        # a large pyramid's apex leans up to ~20 mm at the edge of the view; one plane seen
        # nearly straight down pins the focal length only loosely, yet most of the lean is removed
        apex_px = view.project(PROBES, height=LARGE_APEX_MM)
        lean = np.abs(reg.view.image_to_table(apex_px) - PROBES).max()
        assert table_error(reg.view, view, LARGE_APEX_MM) < lean / 3


def test_without_the_camera_file_three_markers_are_enough(scenes):
    # a hand or a piece over one corner's marker: the other three still fix the table's
    # frame and the focal length (as closely as four do, near enough)
    for k, (view, image) in enumerate(scenes):
        reg = register(hide(image, view, [k]), LAYOUT)
        assert reg.markers_seen == [i for i in range(4) if i != k]
        assert table_error(reg.view, view, 0.0) < 2.5
        apex_px = view.project(PROBES, height=LARGE_APEX_MM)
        lean = np.abs(reg.view.image_to_table(apex_px) - PROBES).max()
        assert table_error(reg.view, view, LARGE_APEX_MM) < lean / 3


@pytest.mark.parametrize("seed, hidden", [(58, 3), (198, 2)])
def test_three_markers_of_a_far_camera_give_the_focal_length(seed, hidden):
    # the layout over 60 % of a nearly straight-down picture, one marker hidden: fitted from
    # the homography's focal length alone, these settled on 3.2 and 4.0 times the true one
    # (corners 1.2 px off); the typical focal length as a second start finds the right one
    view = random_view(np.random.default_rng(seed), LAYOUT, max_tilt_deg=10.0, coverage=0.6)
    reg = register(hide(picture_of_layout(LAYOUT, view, seed=seed), view, [hidden]), LAYOUT)
    assert abs(reg.view.intrinsics.fx / view.intrinsics.fx - 1) < 0.2
    assert reg.reprojection_error_px < 0.5
    assert table_error(reg.view, view, 0.0) < 2.5


def test_a_tilted_view_gives_the_focal_length_closely():
    view = CameraView.from_look_at(Intrinsics(1280, 960, 900.0, 900.0, 639.5, 479.5),
                                   (380 - 300, 280 + 250, 800), (380, 280, 0))
    reg = register(picture_of_layout(LAYOUT, view, seed=3), LAYOUT)
    assert reg.view.intrinsics.fx == pytest.approx(900.0, rel=0.02)
    assert np.linalg.norm(reg.view.position - view.position) < 15.0


def test_lens_distortion_in_the_camera_file_is_used():
    intr = Intrinsics(1280, 960, 950.0, 950.0, 645.0, 470.0, (-0.12, 0.05, 0.0, 0.0, 0.0))
    view = CameraView.from_look_at(intr, (420, 300, 850), (380, 280, 0))
    image = picture_of_layout(LAYOUT, view, seed=2)
    reg = register(image, LAYOUT, intr)
    assert reg.reprojection_error_px < 0.5
    assert table_error(reg.view, view, LARGE_APEX_MM) < 0.5


def test_markers_not_in_the_layout_are_ignored():
    five = MarkerLayout("DICT_4X4_50", LAYOUT.markers + (Marker(7, (380.0, 280.0), 50.0),))
    view = whole_views(1, seed=3)[0]
    image = picture_of_layout(five, view, seed=1)
    assert sorted(find_markers(image, five)) == [0, 1, 2, 3, 7]
    assert register(image, LAYOUT, view.intrinsics).markers_seen == [0, 1, 2, 3]


def test_too_few_markers_names_the_missing_ones(scenes):
    view, image = scenes[0]
    with pytest.raises(MarkersNotFoundError) as e:
        register(hide(image, view, [1, 2]), LAYOUT)
    assert str(e.value) == "only markers 0, 3 found; missing 1, 2 — need at least 3 without camera.json"
    with pytest.raises(MarkersNotFoundError, match="^no markers found; missing 0, 1, 2, 3 — need at least 2 with"):
        register(np.full((960, 1280, 3), 128, np.uint8), LAYOUT, view.intrinsics)


def test_with_the_camera_file_two_markers_are_enough(scenes):
    view, image = scenes[1]
    reg = register(hide(image, view, [0, 3]), LAYOUT, view.intrinsics)
    assert reg.markers_seen == [1, 2]
    # both on the right-hand edge: the pose is extrapolated 630 mm across the table
    assert table_error(reg.view, view, LARGE_APEX_MM) < 2.0


def test_a_hand_over_a_marker_keeps_the_previous_pose(scenes):
    view, image = scenes[2]
    first = register(image, LAYOUT)
    later = register(hide(image, view, [2]), LAYOUT, previous=first)
    assert later.reused_previous and later.view is first.view and not later.camera_moved
    assert later.markers_seen == [0, 1, 3]
    assert later.reprojection_error_px < CAMERA_MOVED_PX


def test_a_moved_camera_is_noticed(scenes):
    view, image = scenes[3]
    first = register(image, LAYOUT, view.intrinsics)
    bumped = dataclasses.replace(view, tvec=np.asarray(view.tvec) + [8.0, -5.0, 0.0])
    moved_image = picture_of_layout(LAYOUT, bumped, seed=9)
    again = register(moved_image, LAYOUT, view.intrinsics, previous=first)
    assert again.camera_moved and not again.reused_previous
    assert table_error(again.view, bumped, 0.0) < 0.3
    with pytest.raises(MarkersNotFoundError, match="camera seems to have moved"):
        register(hide(moved_image, bumped, [0, 1, 2]), LAYOUT, view.intrinsics, previous=first)


def test_paper_white_is_the_paper_colour():
    view = whole_views(1, seed=8)[0]
    image = picture_of_layout(LAYOUT, view, seed=4, lamp=0.0, cast_bgr=(0.8, 0.9, 1.0))
    reg = register(image, LAYOUT, view.intrinsics)
    assert reg.paper_white_bgr == pytest.approx([235 * 0.8, 238 * 0.9, 240], abs=3)


def test_a_slid_marker_is_left_out():
    slid = MarkerLayout(LAYOUT.dictionary, tuple(
        dataclasses.replace(m, center=(m.center[0] - 15.0, m.center[1] + 10.0)) if m.id == 2 else m
        for m in LAYOUT.markers))
    view = whole_views(1, seed=21)[0]
    reg = register(picture_of_layout(slid, view, seed=5), LAYOUT, view.intrinsics)
    assert reg.rejected == [2] and reg.markers_seen == [0, 1, 3]
    assert table_error(reg.view, view, 0.0) < 0.5


def test_the_same_picture_again_keeps_the_same_view(scenes):
    view, image = scenes[0]
    first = register(image, LAYOUT)
    again = register(image, LAYOUT, previous=first)
    assert again.reused_previous and again.view is first.view and again.markers_seen == [0, 1, 2, 3]


def test_the_focal_length_uncertainty_is_reported(scenes):
    straight_down = CameraView.looking_down(distance_mm=900)
    square_on = register(picture_of_layout(LAYOUT, straight_down, seed=1), LAYOUT).view.meta
    tilted_view = CameraView.from_look_at(straight_down.intrinsics, (100, 500, 800), (380, 280, 0))
    tilted = register(picture_of_layout(LAYOUT, tilted_view, seed=1), LAYOUT).view.meta
    assert tilted["focal_rel_uncertainty"] < 0.05 < square_on["focal_rel_uncertainty"]


def test_corners_are_found_to_a_tenth_of_a_pixel_even_when_blurred(scenes):
    for view, image in scenes[:2]:
        # an out-of-focus lens rounds the corners; it blurs light, which the camera then encodes
        soft = encode(cv2.GaussianBlur(LINEAR.astype(np.float32)[image], (0, 0), 1.3))
        found = find_markers(soft, LAYOUT)
        errors = [np.abs(c - view.project(LAYOUT.marker(i).corners())).max() for i, c in found.items()]
        assert sorted(found) == [0, 1, 2, 3] and max(errors) < 0.15


def test_a_soft_picture_still_registers_without_the_camera_file(scenes):
    # a webcam hunting for focus: blur of 2.5 px (in light) on markers ~50 px wide, which
    # OpenCV's own bit reading rejects
    for view, image in scenes[:2]:
        soft = encode(cv2.GaussianBlur(LINEAR.astype(np.float32)[image], (0, 0), 2.5))
        reg = register(soft, LAYOUT)
        assert reg.markers_seen == [0, 1, 2, 3]
        assert table_error(reg.view, view, 0.0) < 2.5   # worst probe; 0.2-0.5 mm when sharp


@pytest.mark.parametrize("bad", [None, np.zeros((10, 10, 3), np.uint8), np.zeros((480, 640, 3), np.float32)])
def test_something_that_is_not_a_picture_is_refused(bad):
    with pytest.raises(PictureError, match="expected a picture"):
        register(bad, LAYOUT)
