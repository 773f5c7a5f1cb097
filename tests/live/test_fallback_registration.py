"""The stand-in registration on markers drawn through a known camera."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import CameraView, Intrinsics
from calibration.markers import MarkerLayout
from domain import InputError
from vision.live.fallback_registration import register

LAYOUT = MarkerLayout.default()
TRUE = CameraView.from_look_at(Intrinsics(1280, 960, 1100.0, 1100.0, 639.5, 479.5), (420, 330, 900), (380, 280, 0))


def picture(hide: tuple[int, ...] = ()) -> np.ndarray:
    """A grey table with the layout's markers (on white paper) as TRUE sees them."""
    img = np.full((960, 1280, 3), 120, np.uint8)
    H = TRUE.table_to_image_homography()
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for m in LAYOUT.markers:
        if m.id in hide:
            continue
        side = 120  # px of the drawn marker picture, 6 cells of 20 px
        marker = cv2.aruco.generateImageMarker(dictionary, m.id, side)
        sheet = np.full((side * 2, side * 2), 235, np.uint8)
        sheet[side // 2:side // 2 + side, side // 2:side // 2 + side] = marker
        mm = m.size / side  # the sheet picture's pixel in mm
        x0, y0 = m.center[0] - side * mm, m.center[1] - side * mm
        to_table = np.array([[mm, 0, x0], [0, mm, y0], [0, 0, 1]])
        warped = cv2.warpPerspective(cv2.cvtColor(sheet, cv2.COLOR_GRAY2BGR), H @ to_table, (1280, 960),
                                     flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
        mask = cv2.warpPerspective(np.full(sheet.shape, 255, np.uint8), H @ to_table, (1280, 960)) > 128
        img[mask] = warped[mask]
    return img


def test_it_recovers_the_camera_from_the_markers_alone():
    reg = register(picture(), LAYOUT)
    assert reg.markers_seen == [0, 1, 2, 3] and reg.reprojection_error_px < 1.0
    probe = [(100, 100), (380, 280), (700, 500)]
    assert np.abs(reg.view.image_to_table(TRUE.project(probe)) - probe).max() < 1.5
    assert reg.paper_white_bgr == pytest.approx([235, 235, 235], abs=3)


def test_with_known_intrinsics_and_a_hidden_marker():
    reg = register(picture(hide=(2,)), LAYOUT, TRUE.intrinsics)
    assert reg.markers_seen == [0, 1, 3]
    assert np.abs(reg.view.image_to_table(TRUE.project([(380, 280)])) - (380, 280)).max() < 1.0
    with pytest.raises(InputError, match="missing: 1, 2"):
        register(picture(hide=(1, 2)), LAYOUT)
