"""A minimal marker registration, used by the live pipeline only when the project's own
(`calibration.registration`) cannot be imported, so the dashboard and its demo still run.

ArUco markers → their corners in the table frame → the camera pose (solvePnP with the
given intrinsics, or a single-view calibration of the focal length with the principal
point at the picture's centre and no distortion). The paper white is the median colour
of the paper just outside each marker's black square.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraView, Intrinsics
from calibration.markers import MarkerLayout
from domain import InputError

# Markers needed for a pose: three give 12 corner points, plenty for 6 pose parameters + focal.
MIN_MARKERS = 3
# Where the paper is sampled, as a fraction of the marker's side beyond its edge.
PAPER_OFFSET = 0.3
# First guess of the focal length as a fraction of the picture's width (a ~60° lens).
FOCAL_GUESS = 0.87


class FallbackMarkersNotFound(InputError):
    """Too few markers seen to register the camera."""


@dataclass
class FallbackRegistration:
    view: CameraView
    markers_seen: list[int]
    reprojection_error_px: float
    paper_white_bgr: np.ndarray


def register(image_bgr: np.ndarray, layout: MarkerLayout, intrinsics: Intrinsics | None = None
             ) -> FallbackRegistration:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX  # corners to a tenth of a pixel
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.dictionary)),
                                       params)
    corners, ids, _ = detector.detectMarkers(image_bgr)
    known = {m.id: m for m in layout.markers}
    found = [(int(i), c.reshape(4, 2)) for c, i in zip(corners, np.ravel(ids) if ids is not None else [])
             if int(i) in known]
    if len(found) < MIN_MARKERS:
        missing = sorted(set(known) - {i for i, _ in found})
        raise FallbackMarkersNotFound(f"only {len(found)} of the markers found (missing: "
                                      f"{', '.join(map(str, missing))}); need {MIN_MARKERS}")
    obj = np.array([(x, y, 0.0) for i, _ in found for x, y in known[i].corners()], np.float32)
    img = np.array([p for _, c in found for p in c], np.float32)
    h, w = image_bgr.shape[:2]
    if intrinsics is None:
        f = FOCAL_GUESS * w
        K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], float)
        flags = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT | cv2.CALIB_FIX_ASPECT_RATIO
                 | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K1 | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3)
        err, K, _, rvecs, tvecs = cv2.calibrateCamera([obj], [img], (w, h), K, np.zeros(5), flags=flags)
        intrinsics = Intrinsics(w, h, float(K[0, 0]), float(K[1, 1]), float(K[0, 2]), float(K[1, 2]))
        rvec, tvec = rvecs[0], tvecs[0]
    else:
        _, rvec, tvec = cv2.solvePnP(obj, img, intrinsics.K, intrinsics.dist_array, flags=cv2.SOLVEPNP_IPPE)
        proj, _ = cv2.projectPoints(obj, rvec, tvec, intrinsics.K, intrinsics.dist_array)
        err = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - img) ** 2, axis=1))))
    view = CameraView(intrinsics, np.ravel(rvec), np.ravel(tvec), float(err))
    return FallbackRegistration(view, sorted(i for i, _ in found), float(err), _paper_white(image_bgr, view, layout))


def _paper_white(image: np.ndarray, view: CameraView, layout: MarkerLayout) -> np.ndarray:
    pts = []
    for m in layout.markers:
        d = m.size * (0.5 + PAPER_OFFSET)
        pts += [(m.center[0] + dx, m.center[1] + dy) for dx, dy in ((d, 0), (-d, 0), (0, d), (0, -d))]
    px = np.round(view.project(pts)).astype(int)
    h, w = image.shape[:2]
    inside = [(x, y) for x, y in px if 0 <= x < w and 0 <= y < h]
    return np.median(np.array([image[y, x] for x, y in inside], float), axis=0) if inside else np.full(3, 255.0)
