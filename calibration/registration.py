"""Registration: where the camera is, from the ArUco markers lying on the table.

`register(image, layout, intrinsics=None, previous=None)` finds the layout's markers,
refines their corners to a fraction of a pixel and fits the camera pose (and, without a
camera.json, the focal length) that best reprojects every corner:

1. markers are found on a half-size copy of the picture (four times fewer pixels for the
   detector) and their corners refined on the full picture: `cv2.cornerSubPix`, then lines
   fitted to the black square's edges (`calibration.corners`: unbiased by blur, which pulls
   corner detectors inwards); only if the small copy shows too few markers is the full
   picture searched;
2. with intrinsics: IPPE on the undistorted corners, then Levenberg–Marquardt over all
   corners with the lens's distortion;
3. without: square pixels, the principal point at the picture's centre; the focal length
   from the table-to-picture homography (Zhang's two orthogonality constraints), then focal
   length, radial distortion k1 and pose refined together (`scipy.optimize.least_squares`)
   with weak pulls towards a typical lens and k1 = 0 (for the nearly straight-down views
   where one plane cannot tell a long lens far away from a short lens close by).

With `previous` (the last frame's registration) a frame whose visible markers still agree
with the previous pose keeps it (the same `CameraView` object, so per-camera caches
downstream stay valid); visible markers that disagree set `camera_moved`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np
from scipy.optimize import least_squares

from calibration.bits import read_candidates
from calibration.camera import CameraView, Intrinsics
from calibration.corners import refine_corners
from calibration import white_balance
from calibration.development import PAPER_CLIPPED, ink_black, squares_px
from calibration.markers import MIN_MARKERS, MarkerLayout, aruco_dictionary
from calibration.sharpness import Blur, blur_of, plain_edge_fit
from calibration.view_transforms import view_transform
from domain import InputError

# With a camera.json the pose has 6 unknowns: two markers (8 corners, not all on a line) fix
# it well; without one the focal length is fitted too and needs the markers' spread: three
# of the layout's four corners do (a hand or a piece over the fourth). Without camera.json,
# one of the four markers hidden (painted over), on the 30 held-out renders A and the 60
# path-traced scenes: position median / p95 0.51 / 1.29 → 0.54-0.55 / 1.35 mm and
# 0.53 / 1.49 → 0.57-0.59 / 1.56-1.80 mm; found and false within a piece or two.
MIN_MARKERS_WITH_CAMERA = 2
MIN_MARKERS_WITHOUT_CAMERA = 3
# Markers are searched on a copy this many times smaller (the detector's cost goes with the
# pixel count); pictures whose longer side is below DOWNSCALE_MIN_SIDE are searched as they are.
# The full picture is searched too only when the small copy shows fewer than MIN_MARKERS of
# the layout and the ones it shows are small (side under FULL_SEARCH_SIDE_PX full-size
# pixels: 5 px modules in the copy, near the detector's limit), so others may be too small
# for it; a hand over one large marker costs no second search.
FULL_SEARCH_SIDE_PX = 60.0
DETECT_DOWNSCALE = 2
DOWNSCALE_MIN_SIDE = 1000
# Half-width of the cornerSubPix search window at full resolution, pixels: covers the
# half-size detector's corner error (≤ 1 full-size pixel) with room to spare, yet stays
# inside one bit cell of a marker seen 60 px wide.
SUBPIX_HALF_WINDOW = 4
# Smallest picture worth searching, px a side.
MIN_PICTURE_SIDE = 32
# Candidate squares closer than this (fraction of their perimeter) are merged. OpenCV's 0.125
# merges a black square with the outline of its own paper (1.5 modules of quiet zone put
# them 0.0625 perimeters apart), and the undecodable paper outline sometimes wins.
MIN_CANDIDATE_DISTANCE_RATE = 0.05
# Reading a candidate's bits: OpenCV samples each cell on a 4×4-pixel warp, keeping all but
# 13 % of its margin, so a defocused picture (blur σ ≥ 2 px, a webcam hunting for focus)
# mixes neighbouring cells and fails the border check on squares it found. Sampled on 10×10
# pixels and only the middle 40 % of each cell, the bits survive blur σ = 3 px.
BIT_CELL_PX = 10
BIT_CELL_MARGIN = 0.3
# The largest adaptive-threshold window, px: OpenCV's 23 cannot span a blurred edge of a
# marker seen 40-60 px wide; 53 can (the windows 3, 13, ... 53 are all tried). Windows up
# to 23 find every marker of a sharp picture in half the time, so they are tried first
# and the wider ones only when a marker is still missing.
THRESHOLD_WINDOW_MAX_PX = 53
THRESHOLD_WINDOW_QUICK_PX = 23
# Without a camera.json: the lens assumed when one view cannot tell (a 62° horizontal field
# of view, typical of webcams), and how weakly it pulls (σ of log focal length: ±25%).
TYPICAL_HFOV_DEG = 62.0
FOCAL_PRIOR_LOG_SIGMA = 0.25
# Typical noise of one refined corner coordinate, px, for the focal-length uncertainty: a
# real camera's (0.03 px is measured on clean synthetic pictures, ~0.5 px on the renderer's).
CORNER_NOISE_PX = 0.2
# Radial distortion k1 estimated with the focal length, pulled towards 0 with this 1σ
# (webcams: |k1| mostly under 0.1; 0.05 did best on the renderer's scenes); unmodelled,
# a k1 of −0.07 put table points 1.7 mm off.
K1_PRIOR_SIGMA = 0.05
# RMS reprojection error (px) of the visible markers under the previous pose above which the
# camera (or the marker sheet) has moved: corner noise is ~0.1-0.3 px, a nudged camera or a
# slid sheet moves corners by several pixels.
CAMERA_MOVED_PX = 2.0
# Below this RMS (px) the previous pose is kept even with every marker in view: it is as good
# as a new fit (corner noise), and keeping the same object keeps downstream caches.
SAME_POSE_PX = 0.6
# A marker whose own corners the fitted camera misses by more than this RMS (px) disagrees
# with the others (slid on the table, or an id misread in clutter) and is fitted without.
MARKER_OUTLIER_PX = 3.0
# The white-balance ring: paper from RING_INNER to RING_OUTER modules out from the black
# square: clear of the blur at its edge, and inside the one module of white that any
# detectable print keeps (the sheet gives QUIET_ZONE_MODULES; a user may cut tighter).
RING_INNER_MODULES = 0.3
RING_OUTER_MODULES = 0.9
# Samples across a ring's outer square: ~300 paper points a marker, plenty for a median.
RING_STEPS = 60


class MarkersNotFoundError(InputError):
    """Too few of the layout's markers were found to register the camera."""


class PictureError(InputError):
    """Something that is not a picture was given to register."""


@dataclass
class Registration:
    """The camera pose from one picture's markers."""

    view: CameraView
    markers_seen: list[int]
    reprojection_error_px: float
    paper_white_bgr: np.ndarray
    camera_moved: bool = False  # visible markers disagree with the previous registration
    reused_previous: bool = False  # the previous pose still fits and was kept
    corners_px: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    rejected: list[int] = field(default_factory=list)  # found but disagreeing with the others: not used
    ink_black_bgr: np.ndarray | None = None  # the markers' printed black (calibration.development)
    blur: Blur | None = None  # how sharp the picture is at the markers (calibration.sharpness)
    view_transform: str | None = None  # a renderer's view the picture was developed through (calibration.view_transforms)


def detector_for(dictionary: str, window_max: int = THRESHOLD_WINDOW_MAX_PX) -> cv2.aruco.ArucoDetector:
    key = (dictionary, window_max)
    if key not in _DETECTORS:
        _DETECTORS[key] = _make_detector(dictionary, window_max)
    return _DETECTORS[key]


_DETECTORS: dict[tuple[str, int], cv2.aruco.ArucoDetector] = {}


def _make_detector(dictionary: str, window_max: int) -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE  # refined at full size below
    params.minMarkerDistanceRate = MIN_CANDIDATE_DISTANCE_RATE
    params.perspectiveRemovePixelPerCell = BIT_CELL_PX
    params.perspectiveRemoveIgnoredMarginPerCell = BIT_CELL_MARGIN
    params.adaptiveThreshWinSizeMax = window_max
    return cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), params)


def find_markers(image_bgr: np.ndarray, layout: MarkerLayout) -> dict[int, np.ndarray]:
    """The layout's markers in the picture: id → 4×2 corner pixels (OpenCV order), sub-pixel.
    Ids not in the layout (and second sightings of an id) are ignored."""
    grey = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    detector = detector_for(layout.dictionary)
    wanted = set(layout.ids)
    found: dict[int, np.ndarray] = {}
    unread: list[np.ndarray] = []
    if max(grey.shape) >= DOWNSCALE_MIN_SIDE:
        small = cv2.resize(grey, None, fx=1 / DETECT_DOWNSCALE, fy=1 / DETECT_DOWNSCALE,
                           interpolation=cv2.INTER_AREA)
        found, unread = _decode(detector_for(layout.dictionary, THRESHOLD_WINDOW_QUICK_PX), small, wanted,
                                scale=DETECT_DOWNSCALE)
        if wanted - found.keys():
            found, unread = _decode(detector, small, wanted, scale=DETECT_DOWNSCALE)
    if len(found) < min(len(wanted), MIN_MARKERS) and _smallest_side(found) < FULL_SEARCH_SIDE_PX:
        more, unread = _decode(detector, grey, wanted, 1)
        found.update({i: c for i, c in more.items() if i not in found})
    if wanted - found.keys() and unread:
        # squares found but not read (a soft picture): read their bits more patiently
        found.update(read_candidates(grey, unread, detector.getDictionary(), wanted - found.keys(), layout.modules))
    if found:
        ids = sorted(found)
        pts = np.concatenate([found[i] for i in ids]).astype(np.float32).reshape(-1, 1, 2)
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)
        cv2.cornerSubPix(grey, pts, (SUBPIX_HALF_WINDOW,) * 2, (-1, -1), criteria)
        refined = refine_corners(grey, pts.reshape(-1, 4, 2), layout.modules)
        found = {i: refined[k] for k, i in enumerate(ids)}
    return found


def _smallest_side(found: dict[int, np.ndarray]) -> float:
    """Shortest side (px) of any marker found; 0 when none is (then search everything)."""
    sides = [np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1).min() for c in found.values()]
    return float(min(sides)) if sides else 0.0


def _decode(detector, grey: np.ndarray, wanted: set[int],
            scale: float) -> tuple[dict[int, np.ndarray], list[np.ndarray]]:
    """The wanted markers read (id → 4×2 full-size corners), and the squares found but not
    read (4×2 full-size corners each)."""
    corners, ids, rejected = detector.detectMarkers(grey)
    out: dict[int, np.ndarray] = {}
    for c, i in zip(corners, np.ravel(ids) if ids is not None else []):
        if int(i) in wanted and int(i) not in out:
            out[int(i)] = _full_size(c, scale)
    return out, [_full_size(c, scale) for c in rejected]


def _full_size(corners: np.ndarray, scale: float) -> np.ndarray:
    """Corners found on a copy `scale` times smaller, in full-size pixels (pixel centres:
    (u + 0.5) · scale − 0.5)."""
    return (corners.reshape(4, 2).astype(np.float64) + 0.5) * scale - 0.5


def register(image_bgr: np.ndarray, layout: MarkerLayout, intrinsics: Intrinsics | None = None,
             previous: Registration | None = None) -> Registration:
    """The camera that took `image_bgr`, from the layout's markers (see the module's notes).

    Raises MarkersNotFoundError (one line, naming the missing ids) when too few are seen."""
    if not isinstance(image_bgr, np.ndarray) or image_bgr.dtype != np.uint8 or image_bgr.ndim not in (2, 3) \
            or min(image_bgr.shape[:2]) < MIN_PICTURE_SIDE:
        raise PictureError("expected a picture: an 8-bit BGR or grey array at least "
                           f"{MIN_PICTURE_SIDE} px a side")
    found = find_markers(image_bgr, layout)
    moved = False
    if previous is not None and found:
        err = _rms(previous.view.project(_table_corners(layout, found)) - _pixel_corners(found))
        moved = err > CAMERA_MOVED_PX
        if not moved and (len(found) < len(previous.markers_seen) or err <= SAME_POSE_PX):
            paper, ink = _paper_and_ink(image_bgr, previous.view, layout, sorted(found))
            blur, developed = _edges(image_bgr, previous.view, layout, sorted(found), paper)
            return Registration(previous.view, sorted(found), err, paper,
                                reused_previous=True, corners_px=found, ink_black_bgr=ink,
                                blur=blur, view_transform=developed)
    need = MIN_MARKERS_WITH_CAMERA if intrinsics is not None else MIN_MARKERS_WITHOUT_CAMERA
    if len(found) < need:
        raise MarkersNotFoundError(_missing_message(layout, sorted(found), need, intrinsics is not None, moved))
    h, w = image_bgr.shape[:2]
    used = dict(found)
    view = _fit(layout, used, intrinsics, w, h)
    while _worst_marker_error(layout, used, view) > MARKER_OUTLIER_PX and len(used) > need:
        # a slid marker or a misread id: leave out the marker whose absence fits the rest best
        fits = {i: _fit(layout, {j: c for j, c in used.items() if j != i}, intrinsics, w, h) for i in used}
        drop = min(fits, key=lambda i: fits[i].reprojection_error_px)
        del used[drop]
        view = fits[drop]
    seen = sorted(used)
    paper, ink = _paper_and_ink(image_bgr, view, layout, seen)
    blur, developed = _edges(image_bgr, view, layout, seen, paper)
    return Registration(view, seen, view.reprojection_error_px, paper,
                        camera_moved=moved, corners_px=found, rejected=sorted(set(found) - set(used)),
                        ink_black_bgr=ink, blur=blur, view_transform=developed)


def _edges(image: np.ndarray, view: CameraView, layout: MarkerLayout, seen: list[int],
           paper: np.ndarray) -> tuple[Blur | None, str | None]:
    """The picture's blur (calibration.sharpness) and the view transform it was developed
    through (calibration.view_transforms), both read from the markers' edges."""
    plain = plain_edge_fit(image, view, layout, seen)
    return blur_of(plain), view_transform(image, view, layout, seen, paper, plain)


def _table_corners(layout: MarkerLayout, found: dict[int, np.ndarray]) -> np.ndarray:
    return np.array([c for i in sorted(found) for c in layout.marker(i).corners()], np.float64).reshape(-1, 2)


def _pixel_corners(found: dict[int, np.ndarray]) -> np.ndarray:
    return np.concatenate([found[i] for i in sorted(found)])


def _fit(layout: MarkerLayout, found: dict[int, np.ndarray], intrinsics: Intrinsics | None,
         w: int, h: int) -> CameraView:
    obj, img = _table_corners(layout, found), _pixel_corners(found)
    if intrinsics is None:
        intr, rvec, tvec, meta = _fit_with_focal(obj, img, w, h)
    else:
        intr, meta = intrinsics, {"focal_estimated": False}
        rvec, tvec = _fit_pose(obj, img, intr)
    return CameraView(intr, rvec, tvec, _rms(_project(obj, rvec, tvec, intr) - img), meta=meta)


def _worst_marker_error(layout: MarkerLayout, found: dict[int, np.ndarray], view: CameraView) -> float:
    """RMS error (px) of the marker whose corners the fitted camera reprojects worst."""
    return max(_rms(view.project(layout.marker(i).corners()) - c) for i, c in found.items())


def _missing_message(layout: MarkerLayout, seen: list[int], need: int, with_camera: bool, moved: bool) -> str:
    missing = [i for i in layout.ids if i not in seen]
    found = f"only markers {', '.join(map(str, seen))} found" if seen else "no markers found"
    why = "with camera.json" if with_camera else "without camera.json"
    moved_note = " (and the camera seems to have moved)" if moved else ""
    return f"{found}; missing {', '.join(map(str, missing))} — need at least {need} {why}{moved_note}"


def _rms(d: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.sum(np.asarray(d) ** 2, axis=1)))) if len(d) else 0.0


def _obj3(obj: np.ndarray) -> np.ndarray:
    return np.column_stack([obj, np.zeros(len(obj))])


def _project(obj: np.ndarray, rvec: np.ndarray, tvec: np.ndarray, intr: Intrinsics) -> np.ndarray:
    px, _ = cv2.projectPoints(_obj3(obj), rvec, tvec, intr.K, intr.dist_array)
    return px.reshape(-1, 2)


def _fit_pose(obj: np.ndarray, img: np.ndarray, intr: Intrinsics) -> tuple[np.ndarray, np.ndarray]:
    """Pose for known intrinsics: IPPE on undistorted corners, then LM with distortion."""
    undist = cv2.undistortPoints(img.reshape(-1, 1, 2), intr.K, intr.dist_array, P=intr.K).reshape(-1, 2)
    ok, rvec, tvec = cv2.solvePnP(_obj3(obj), undist, intr.K, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise MarkersNotFoundError("the markers found do not give a camera pose (are they all in a line?)")
    rvec, tvec = cv2.solvePnPRefineLM(_obj3(obj), img, intr.K, intr.dist_array, rvec, tvec)
    return rvec.reshape(3), tvec.reshape(3)


def typical_focal(width: int) -> float:
    return (width / 2) / math.tan(math.radians(TYPICAL_HFOV_DEG) / 2)


def focal_from_homography(H: np.ndarray, cx: float, cy: float) -> float | None:
    """Focal length (square pixels, principal point (cx, cy)) from a plane's homography, by
    Zhang's constraints h1ᵀωh2 = 0 and h1ᵀωh1 = h2ᵀωh2 (least squares in 1/f²); None when
    the view is too square-on for them to say."""
    Hc = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], float) @ H
    h1, h2 = Hc[:, 0], Hc[:, 1]
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    denom = float(a @ a)
    inv_f2 = -float(a @ b) / denom if denom > 0 else 0.0
    return 1.0 / math.sqrt(inv_f2) if inv_f2 > 0 else None


def _fit_with_focal(obj: np.ndarray, img: np.ndarray, w: int, h: int
                    ) -> tuple[Intrinsics, np.ndarray, np.ndarray, dict]:
    """Focal length and pose together: joint least squares from the homography's focal
    length and from the typical one, the better fit kept (from one start alone, three
    markers of a far camera can settle on a focal length 3× the true one: path-traced
    9246, its corners 1.3 px off against 0.25)."""
    cx, cy = (w - 1) / 2, (h - 1) / 2
    f_prior = typical_focal(w)
    H, _ = cv2.findHomography(obj, img, 0)
    f_h = focal_from_homography(H, cx, cy) if H is not None else None
    starts = [f_prior] if f_h is None or not (f_prior / 5 < f_h < f_prior * 5) else [f_h, f_prior]
    obj3 = _obj3(obj)

    def residuals(p: np.ndarray) -> np.ndarray:
        f = math.exp(p[0])
        K = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]])
        px, _ = cv2.projectPoints(obj3, p[1:4], p[4:7], K, np.array([p[7], 0, 0, 0, 0]))
        priors = [(p[0] - math.log(f_prior)) / FOCAL_PRIOR_LOG_SIGMA, p[7] / K1_PRIOR_SIGMA]
        return np.concatenate([(px.reshape(-1, 2) - img).ravel(), priors])

    fits = []
    for f0 in starts:
        rvec, tvec = _fit_pose(obj, img, Intrinsics(w, h, f0, f0, cx, cy))
        fits.append(least_squares(residuals, np.concatenate([[math.log(f0)], rvec, tvec, [0.0]]), method="lm",
                                  x_scale="jac"))
    fit = min(fits, key=lambda ft: ft.cost)
    f = math.exp(fit.x[0])
    return Intrinsics(w, h, f, f, cx, cy, (float(fit.x[7]), 0.0, 0.0, 0.0, 0.0)), fit.x[1:4].copy(), \
        fit.x[4:7].copy(), {"focal_estimated": True, "focal_rel_uncertainty": _focal_uncertainty(fit.jac[:-2])}


def _focal_uncertainty(jac: np.ndarray) -> float:
    """1σ relative uncertainty of the focal length that the corners alone allow (prior left
    out) for CORNER_NOISE_PX of noise: the part of d(residuals)/d(log f) that no pose change
    can mimic measures what the picture says about f; infinite when the view is square-on."""
    jf, jp = jac[:, 0], jac[:, 1:]
    unexplained = jf - jp @ np.linalg.lstsq(jp, jf, rcond=None)[0]
    info = float(unexplained @ unexplained)
    return CORNER_NOISE_PX / math.sqrt(info) if info > 1e-12 else math.inf


def _paper_and_ink(image: np.ndarray, view: CameraView, layout: MarkerLayout,
                   seen: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The markers' paper white and printed black (calibration.development.ink_black), BGR.
    The paper: the median of the ring (quiet zone) around the seen markers' black squares;
    a clipped channel measured on the markers' mid-tones instead, or from the ink when
    every channel is clipped (calibration.white_balance)."""
    ink = ink_black(image, view, layout, seen)
    px = np.round(view.project(_ring_points(layout, tuple(seen)))).astype(int)
    h, w = image.shape[:2]
    inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    if not inside.any():
        return np.full(3, 255.0), ink
    paper = np.median(image[px[inside, 1], px[inside, 0]], axis=0).astype(np.float64)
    clipped = np.count_nonzero(paper >= PAPER_CLIPPED)
    if image.ndim != 3 or clipped == 0:
        return paper, ink
    if clipped == 3:
        return white_balance.paper_from_ink(paper, ink), ink
    squares = squares_px(view, layout, seen)
    return white_balance.unclipped_paper(paper, *white_balance.marker_samples(image, squares)), ink


@lru_cache(maxsize=16)
def _ring_points(layout: MarkerLayout, ids: tuple[int, ...]) -> np.ndarray:
    """A grid of table points (RING_STEPS a side) over the paper rings around markers `ids`."""
    out = []
    for m in map(layout.marker, ids):
        module = m.size / layout.modules
        inner, outer = m.size / 2 + RING_INNER_MODULES * module, m.size / 2 + RING_OUTER_MODULES * module
        g = np.linspace(-outer, outer, RING_STEPS)
        xx, yy = np.meshgrid(g, g)
        keep = np.maximum(np.abs(xx), np.abs(yy)) >= inner
        out.append(np.column_stack([xx[keep] + m.center[0], yy[keep] + m.center[1]]))
    return np.concatenate(out)
