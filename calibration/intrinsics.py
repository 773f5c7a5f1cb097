"""Measure a camera's lens (camera.json) from pictures of a flat calibration board.

A checkerboard (`cv2.findChessboardCornersSB`, sub-pixel by design) or a ChArUco board
(`cv2.aruco.CharucoDetector`, which also works when the board is partly out of view) is
found in each picture; `cv2.calibrateCamera` then fits fx, fy, cx, cy and the distortion
k1, k2, p1, p2 (k3 fixed at 0: a handful of pictures of a webcam cannot pin it down, and
a free k3 overfits).

>>> Board.from_args("checkerboard", 9, 6, 25.0).object_points().shape
(40, 3)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import Intrinsics
from calibration.markers import aruco_dictionary, known_dictionaries
from domain import InputError

# Pictures needed: each gives 2 constraints on the intrinsics (Zhang), and 4 intrinsics
# plus distortion want at least 3 views from different angles.
MIN_PICTURES = 3
# A ChArUco picture counts when it shows at least this many of the board's inner corners.
MIN_CHARUCO_CORNERS = 8
# ChArUco marker side as a fraction of the square when --marker is not given.
DEFAULT_MARKER_FRACTION = 0.75


class BoardError(InputError):
    """A calibration board description that cannot be used."""


class CalibrationError(InputError):
    """Pictures that cannot calibrate the camera."""


@dataclass(frozen=True)
class Board:
    kind: str  # "checkerboard" | "charuco"
    cols: int  # squares across
    rows: int  # squares down
    square: float  # mm
    marker: float = 0.0  # ChArUco marker side, mm
    dictionary: str = "DICT_4X4_50"

    @classmethod
    def from_args(cls, kind: str, cols: int, rows: int, square: float, marker: float | None = None,
                  dictionary: str = "DICT_4X4_50") -> "Board":
        if cols < 3 or rows < 3:
            raise BoardError(f"a board needs at least 3 × 3 squares, got {cols} × {rows}")
        if cols == rows and kind == "checkerboard":
            raise BoardError("a checkerboard needs different numbers of columns and rows "
                             "(a square one has no unambiguous orientation)")
        if not (math.isfinite(square) and square > 0):
            raise BoardError(f"--square must be a positive number of mm, got {square}")
        if kind != "charuco":
            return cls(kind, cols, rows, square)
        marker = square * DEFAULT_MARKER_FRACTION if marker is None else marker
        if not (0 < marker < square):
            raise BoardError(f"--marker ({marker:g} mm) must be smaller than --square ({square:g} mm)")
        try:
            n_ids = aruco_dictionary(dictionary).bytesList.shape[0]
        except KeyError:
            raise BoardError(f"unknown ArUco dictionary {dictionary!r} (known: {', '.join(known_dictionaries())})") \
                from None
        if n_ids < cols * rows // 2:
            raise BoardError(f"{dictionary} has {n_ids} markers; a {cols} × {rows} ChArUco board needs "
                             f"{cols * rows // 2}")
        return cls(kind, cols, rows, square, marker, dictionary)

    @property
    def inner(self) -> tuple[int, int]:
        return self.cols - 1, self.rows - 1

    def object_points(self) -> np.ndarray:
        """Inner corners on the board (mm, z = 0), row by row."""
        c, r = self.inner
        grid = np.mgrid[0:c, 0:r].T.reshape(-1, 2) * self.square
        return np.column_stack([grid, np.zeros(len(grid))]).astype(np.float32)

    def charuco(self) -> "cv2.aruco.CharucoBoard":
        return cv2.aruco.CharucoBoard((self.cols, self.rows), self.square, self.marker,
                                      aruco_dictionary(self.dictionary))

    def find(self, grey: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(object points N×3, image points N×2) of the board in a picture, or None."""
        if self.kind == "checkerboard":
            ok, corners = cv2.findChessboardCornersSB(grey, self.inner, flags=cv2.CALIB_CB_ACCURACY)
            return (self.object_points(), corners.reshape(-1, 2)) if ok else None
        board = self.charuco()
        corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(grey)
        if ids is None or len(ids) < MIN_CHARUCO_CORNERS:
            return None
        obj, img = board.matchImagePoints(corners, ids)
        return obj.reshape(-1, 3), img.reshape(-1, 2)


@dataclass(frozen=True)
class CalibrationResult:
    intrinsics: Intrinsics
    rms_px: float
    per_image_px: dict[str, float]  # name → RMS reprojection error of that picture
    unusable: list[str]  # pictures where the board was not found


def calibrate(pictures: dict[str, np.ndarray], board: Board) -> CalibrationResult:
    """Intrinsics from named BGR (or grey) pictures of the board, all the same size."""
    sizes = {p.shape[:2] for p in pictures.values()}
    if len(sizes) > 1:
        raise CalibrationError(f"the pictures differ in size ({', '.join(f'{w}×{h}' for h, w in sorted(sizes))}); "
                               "calibrate one camera mode at a time")
    found, unusable = {}, []
    for name, image in pictures.items():
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        hit = board.find(grey)
        if hit is None:
            unusable.append(name)
        else:
            found[name] = hit
    if len(found) < MIN_PICTURES:
        missing = f" (board not found in {', '.join(unusable)})" if unusable else ""
        raise CalibrationError(f"only {len(found)} usable picture(s) of the {board.cols}×{board.rows} "
                               f"{board.kind}{missing}; need at least {MIN_PICTURES} from different angles")
    (h, w), = sizes
    obj = [o.astype(np.float32) for o, _ in found.values()]
    img = [i.astype(np.float32) for _, i in found.values()]
    rms, K, dist, rvecs, tvecs = cv2.calibrateCamera(obj, img, (w, h), None, None, flags=cv2.CALIB_FIX_K3)
    per_image = {}
    for name, o, i, r, t in zip(found, obj, img, rvecs, tvecs):
        proj, _ = cv2.projectPoints(o, r, t, K, dist)
        per_image[name] = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - i) ** 2, axis=1))))
    intr = Intrinsics(w, h, float(K[0, 0]), float(K[1, 1]), float(K[0, 2]), float(K[1, 2]),
                      tuple(float(v) for v in np.ravel(dist)[:5]))
    return CalibrationResult(intr, float(rms), per_image, unusable)

