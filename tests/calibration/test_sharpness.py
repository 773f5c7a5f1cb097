"""The picture's sharpness measured at the markers, and what is said when it is soft."""

import numpy as np
import pytest

from calibration.camera import CameraView
from calibration.markers import MarkerLayout
from calibration.registration import register
from calibration.sharpness import SOFT_PICTURE_MM, Blur, marker_blur
from calibration.synthetic import defocused, picture_of_layout, random_view
from vision.live.camera_watch import CameraWatch

LAYOUT = MarkerLayout.default()
ALL = [m.id for m in LAYOUT.markers]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_blur_added_in_light_is_measured(seed):
    # blurs add as the root of the sum of their squares; the camera varies per seed
    view = random_view(np.random.default_rng(seed), LAYOUT)
    sharp = picture_of_layout(LAYOUT, view, seed=seed)
    base = marker_blur(sharp, view, LAYOUT, ALL).sigma_px
    assert 0.3 < base < 0.8
    for sigma in (1.0, 1.5, 2.0):
        measured = marker_blur(defocused(sharp, sigma), view, LAYOUT, ALL).sigma_px
        assert measured == pytest.approx(np.hypot(base, sigma), abs=0.15), sigma


def test_blur_on_the_table_follows_the_camera_distance():
    # the same blur in pixels is more of the table from farther away
    near, far = (CameraView.looking_down(distance_mm=d) for d in (800, 1100))
    a, b = (marker_blur(defocused(picture_of_layout(LAYOUT, v, seed=4), 1.5), v, LAYOUT, ALL) for v in (near, far))
    assert a.sigma_px == pytest.approx(b.sigma_px, abs=0.15)
    assert b.sigma_mm / a.sigma_mm == pytest.approx(1100 / 800, rel=0.1)


def test_no_edges_to_read_no_measure():
    view = CameraView.looking_down(distance_mm=900)
    grey = np.full((960, 1280, 3), 128, np.uint8)   # markers covered: no black meets white
    assert marker_blur(grey, view, LAYOUT, ALL) is None
    assert marker_blur(picture_of_layout(LAYOUT, view, seed=1), view, LAYOUT, []) is None


def test_a_registration_says_how_sharp_its_picture_is():
    view = CameraView.looking_down(distance_mm=900)
    sharp = picture_of_layout(LAYOUT, view, seed=5)
    reg_sharp, reg_soft = (register(p, LAYOUT, view.intrinsics) for p in (sharp, defocused(sharp, 2.0)))
    assert not reg_sharp.blur.soft and reg_soft.blur.soft
    assert reg_soft.blur.sigma_mm > SOFT_PICTURE_MM > reg_sharp.blur.sigma_mm


def test_the_drawing_says_a_picture_is_soft():
    from dataclasses import replace as with_field
    from vision.annotate import annotate
    from vision.pipeline import Detector
    from vision.scenes import rendered
    r = rendered(9201)
    d = Detector(r.spec.layout, r.intrinsics).detect(r.image)
    assert not d.registration.blur.soft
    soft = with_field(d, registration=with_field(d.registration, blur=Blur(1.4, 1.4)))
    drawn, plain = annotate(r.image, soft), annotate(r.image, d)
    changed = np.argwhere((drawn != plain).any(axis=2))
    origin = d.registration.view.project(np.array([(0.0, 0.0)]))[0]
    # the words on their box, the third line under the axes' origin, and nothing else
    rows = changed[:, 0] - origin[1]
    assert len(changed) > 100 and rows.min() > 30 and rows.max() < 56


class _Reg:
    def __init__(self, blur):
        self.view = CameraView.looking_down(distance_mm=900)
        self.reprojection_error_px, self.markers_seen, self.blur = 0.2, ALL, blur


def test_the_players_are_told_once_when_the_picture_turns_soft_and_when_it_is_sharp_again():
    watch = CameraWatch((380.0, 280.0))
    sharp, soft = Blur(0.6, 0.6), Blur(1.4, 1.4)
    said = [watch.update(_Reg(b)) for b in (sharp, sharp, soft, soft, None, soft, sharp, sharp)]
    assert said[:2] == [None, None] and said[3:6] == [None, None, None] and said[7] is None
    assert said[2].startswith("the picture is soft") and "focus the camera" in said[2]
    assert said[6].startswith("the picture is sharp again")
