"""calibrate-camera on synthetic boards seen by known cameras with lens distortion."""

import cv2
import numpy as np
import pytest

from calibration.camera import CameraView, Intrinsics
from calibration.intrinsics import Board, BoardError, CalibrationError, calibrate
from calibration.synthetic import checkerboard_texture, charuco_texture, render_plane
from cli.main import main

# a small picture keeps the test fast; the lens is off-centre, anamorphic and barrel-distorted
TRUE = Intrinsics(640, 480, 492.0, 494.5, 326.0, 236.5, (-0.14, 0.05, 0.001, -0.0008, 0.0))


def views(board: Board, n: int = 5) -> list[CameraView]:
    """Cameras around the board, each looking at it from a different angle."""
    c = np.array([(board.cols - 2) * board.square / 2, (board.rows - 2) * board.square / 2])
    out = []
    for k in range(n):
        a = 2 * np.pi * k / n
        eye = (c[0] + 170 * np.cos(a), c[1] + 130 * np.sin(a), 330 + 15 * k)
        out.append(CameraView.from_look_at(TRUE, eye, (c[0] + 15 * np.sin(a), c[1], 0),
                                           up_hint=(np.sin(a / 3), -np.cos(a / 3), 0)))
    return out


def pictures(board: Board, n: int = 5) -> dict[str, np.ndarray]:
    tex = checkerboard_texture(board.cols, board.rows, board.square, ppmm=4) if board.kind == "checkerboard" \
        else charuco_texture(board.charuco(), ppmm=4)
    return {f"view{k}.png": render_plane(tex, v, seed=k) for k, v in enumerate(views(board, n))}


def assert_close_to_truth(intr: Intrinsics, seen: np.ndarray | None = None) -> None:
    for name in ("fx", "fy"):
        assert getattr(intr, name) == pytest.approx(getattr(TRUE, name), rel=0.01)
    assert intr.cx == pytest.approx(TRUE.cx, abs=0.01 * TRUE.width)
    assert intr.cy == pytest.approx(TRUE.cy, abs=0.01 * TRUE.height)
    # the distortion does what the true one does where the boards were seen (by default out
    # to 70% of the half-diagonal; beyond, k1 and k2 extrapolate)
    corner = np.array([[[96.0, 72.0]], [[544.0, 408.0]], [[544.0, 72.0]]]) if seen is None else seen[:, None, :]
    ours = cv2.undistortPoints(corner, intr.K, intr.dist_array, P=TRUE.K)
    truth = cv2.undistortPoints(corner, TRUE.K, TRUE.dist_array, P=TRUE.K)
    assert np.abs(ours - truth).max() < 2.0


@pytest.fixture(scope="module")
def checker_pictures():
    return pictures(Board.from_args("checkerboard", 9, 6, 25.0))


def test_checkerboard_pictures_give_the_lens(checker_pictures):
    result = calibrate(checker_pictures, Board.from_args("checkerboard", 9, 6, 25.0))
    assert result.unusable == [] and set(result.per_image_px) == set(checker_pictures)
    assert result.rms_px < 0.3
    assert_close_to_truth(result.intrinsics)


def test_charuco_pictures_give_the_lens():
    board = Board.from_args("charuco", 7, 5, 30.0, 22.0, "DICT_4X4_50")
    shots = pictures(board, 4)
    result = calibrate(shots, board)
    assert result.rms_px < 0.3
    # these views see the board less far out than the checkerboard's: the distortion is
    # checked at the outermost corners seen
    seen = np.concatenate([board.find(cv2.cvtColor(p, cv2.COLOR_BGR2GRAY))[1] for p in shots.values()])
    far = seen[np.argsort(np.hypot(*(seen - [TRUE.cx, TRUE.cy]).T))[-3:]]
    assert_close_to_truth(result.intrinsics, far)


def test_the_cli_writes_camera_json_and_names_pictures_without_the_board(tmp_path, capsys, checker_pictures):
    paths = []
    for name, image in checker_pictures.items():
        cv2.imwrite(str(tmp_path / name), image)
        paths.append(str(tmp_path / name))
    cv2.imwrite(str(tmp_path / "blank.png"), np.full((480, 640, 3), 200, np.uint8))
    out = tmp_path / "camera.json"
    assert main(["calibrate-camera", *paths, str(tmp_path / "blank.png"), "--out", str(out),
                 "--cols", "9", "--rows", "6", "--square", "25"]) == 0
    captured = capsys.readouterr()
    assert "blank.png: board not found" in captured.err
    assert "RMS reprojection error" in captured.out and all(p in captured.out for p in paths)
    assert_close_to_truth(Intrinsics.load(str(out)))

    # too few usable pictures: exit 2, one line naming the ones without the board
    assert main(["calibrate-camera", paths[0], paths[1], str(tmp_path / "blank.png"), "--out", str(out),
                 "--cols", "9", "--rows", "6", "--square", "25"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "only 2 usable picture(s)" in err and "blank.png" in err


@pytest.mark.parametrize("args, message", [
    (("checkerboard", 2, 6, 25.0), "at least 3 × 3 squares"),
    (("checkerboard", 7, 7, 25.0), "different numbers of columns and rows"),
    (("checkerboard", 9, 6, -1.0), "positive number"),
    (("charuco", 7, 5, 30.0, 35.0), "must be smaller than --square"),
    (("charuco", 7, 5, 30.0, 20.0, "DICT_NOPE"), "unknown ArUco dictionary"),
    (("charuco", 12, 12, 30.0, 20.0, "DICT_4X4_50"), "has 50 markers"),
])
def test_bad_boards_are_refused(args, message):
    with pytest.raises(BoardError, match=message):
        Board.from_args(*args)


def test_pictures_of_different_sizes_are_refused():
    with pytest.raises(CalibrationError, match="differ in size"):
        calibrate({"a": np.zeros((480, 640), np.uint8), "b": np.zeros((960, 1280), np.uint8)},
                  Board.from_args("checkerboard", 9, 6, 25.0))
