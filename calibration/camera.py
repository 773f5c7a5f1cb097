"""The pinhole camera that ties table millimetres to pixels.

`CameraView` is the one object the rest of the project uses to go between the table
frame (x right, y down, z up *out of* the table, mm) and the picture (pixels). The
renderer builds one from its ground truth; registration builds one from the markers.

Because the table frame is y-down, "up from the table" is −z in a right-handed frame;
we keep a right-handed frame internally and expose heights as positive numbers:
`project(points, height=h)` lifts points h mm above the table.

>>> view = CameraView.looking_down(table_center=(380, 280), distance_mm=900)
>>> px = view.project([(380, 280)])
>>> [round(float(v), 1) for v in px[0]]
[639.5, 479.5]
>>> [round(float(v), 3) for v in view.image_to_table(px)[0]]
[380.0, 280.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import cv2
import numpy as np

from domain import InputError, read_json_file


class CameraFileError(InputError):
    """A camera.json that cannot be used."""


@dataclass(frozen=True)
class Intrinsics:
    """OpenCV pinhole intrinsics and distortion (k1, k2, p1, p2, k3)."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1]], dtype=np.float64)

    @property
    def dist_array(self) -> np.ndarray:
        return np.array(self.dist, dtype=np.float64)

    def to_dict(self) -> dict[str, Any]:
        return {"width": self.width, "height": self.height, "fx": self.fx, "fy": self.fy,
                "cx": self.cx, "cy": self.cy, "dist": list(self.dist)}

    @classmethod
    def from_dict(cls, d: Any, source: str = "camera file") -> "Intrinsics":
        if not isinstance(d, dict):
            raise CameraFileError(f"{source}: must be a JSON object")
        missing = [k for k in ("width", "height", "fx", "fy", "cx", "cy") if k not in d]
        if missing:
            raise CameraFileError(f"{source}: missing {', '.join(missing)}")
        vals = {}
        for k in ("width", "height", "fx", "fy", "cx", "cy"):
            v = d[k]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
                raise CameraFileError(f"{source}: {k} must be a positive number, got {v!r}")
            vals[k] = v
        dist = d.get("dist", [0, 0, 0, 0, 0])
        if (not isinstance(dist, list) or len(dist) not in (4, 5, 8, 12, 14)
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                           for x in dist)):
            raise CameraFileError(f"{source}: dist must be a list of 4, 5, 8, 12 or 14 numbers")
        return cls(int(vals["width"]), int(vals["height"]), float(vals["fx"]), float(vals["fy"]),
                   float(vals["cx"]), float(vals["cy"]), tuple(float(x) for x in dist))

    @classmethod
    def load(cls, path: str) -> "Intrinsics":
        data = read_json_file(path, "camera file", CameraFileError)
        return cls.from_dict(data, source=path)

    @classmethod
    def guess(cls, width: int, height: int, fov_deg: float = 60.0) -> "Intrinsics":
        """A plausible camera of the given size: square pixels, centred principal point."""
        f = (width / 2) / math.tan(math.radians(fov_deg) / 2)
        return cls(width, height, f, f, (width - 1) / 2, (height - 1) / 2)

    def scaled_to(self, width: int, height: int) -> "Intrinsics":
        """The same lens on a picture resized to width × height."""
        sx, sy = width / self.width, height / self.height
        return Intrinsics(width, height, self.fx * sx, self.fy * sy, (self.cx + 0.5) * sx - 0.5,
                          (self.cy + 0.5) * sy - 0.5, self.dist)


def _table_points(points: Sequence[Sequence[float]] | np.ndarray, height: float | np.ndarray = 0.0) -> np.ndarray:
    """Table (x, y[, h]) → 3-D points in the camera-facing right-handed frame (x, y, −h)."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, np.shape(points)[-1] if np.ndim(points) > 1 else 2)
    if p.shape[1] == 3:
        return np.column_stack([p[:, 0], p[:, 1], -p[:, 2]])
    h = np.broadcast_to(np.asarray(height, dtype=np.float64), (p.shape[0],))
    return np.column_stack([p[:, 0], p[:, 1], -h])


@dataclass(frozen=True)
class CameraView:
    """A camera's intrinsics and its pose relative to the table frame.

    rvec, tvec map table points (x, y, −height) into camera coordinates (OpenCV convention).
    `reprojection_error_px` is the RMS error of the fit that produced the pose (0 for ground truth).
    """

    intrinsics: Intrinsics
    rvec: np.ndarray
    tvec: np.ndarray
    reprojection_error_px: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_look_at(cls, intrinsics: Intrinsics, eye_mm: Sequence[float], target_mm: Sequence[float],
                     up_hint: Sequence[float] = (0.0, -1.0, 0.0)) -> "CameraView":
        """A camera at `eye` (table x, y, height) looking at `target` (table x, y, height).

        `up_hint` is the table direction that should appear towards the top of the picture
        (default −y, so the picture shows the table the right way up).
        """
        eye = _table_points([eye_mm])[0]
        target = _table_points([target_mm])[0]
        forward = target - eye
        forward /= np.linalg.norm(forward)
        up = np.asarray(up_hint, dtype=np.float64)
        # camera y points down the picture, so it is the opposite of the up hint
        down = -(up - forward * np.dot(up, forward))
        if np.linalg.norm(down) < 1e-9:
            raise ValueError("up_hint is parallel to the viewing direction")
        down /= np.linalg.norm(down)
        right = np.cross(down, forward)
        R = np.vstack([right, down, forward])
        rvec, _ = cv2.Rodrigues(R)
        tvec = -R @ eye
        return cls(intrinsics, rvec.reshape(3), tvec.reshape(3))

    @classmethod
    def looking_down(cls, table_center: Sequence[float] = (380.0, 280.0), distance_mm: float = 950.0,
                     intrinsics: Intrinsics | None = None) -> "CameraView":
        intr = intrinsics or Intrinsics(1280, 960, 1000.0, 1000.0, 639.5, 479.5)
        cx, cy = table_center
        return cls.from_look_at(intr, (cx, cy, distance_mm), (cx, cy, 0.0))

    # -- geometry ---------------------------------------------------------------------
    @property
    def rotation(self) -> np.ndarray:
        return cv2.Rodrigues(np.asarray(self.rvec, dtype=np.float64))[0]

    @property
    def position(self) -> np.ndarray:
        """Camera centre as table (x, y, height), mm."""
        c = -self.rotation.T @ np.asarray(self.tvec, dtype=np.float64).reshape(3)
        return np.array([c[0], c[1], -c[2]])

    def project(self, points: Sequence[Sequence[float]] | np.ndarray,
                height: float | np.ndarray = 0.0) -> np.ndarray:
        """Table points (x, y) at `height` mm, or (x, y, height) rows → pixels (N×2), with distortion."""
        obj = _table_points(points, height)
        px, _ = cv2.projectPoints(obj, np.asarray(self.rvec, float), np.asarray(self.tvec, float),
                                  self.intrinsics.K, self.intrinsics.dist_array)
        return px.reshape(-1, 2)

    def undistort_pixels(self, pixels: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
        """Pixels → normalised camera rays (x/z, y/z)."""
        px = np.asarray(pixels, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.undistortPoints(px, self.intrinsics.K, self.intrinsics.dist_array).reshape(-1, 2)

    def image_to_table(self, pixels: Sequence[Sequence[float]] | np.ndarray,
                       height: float | np.ndarray = 0.0) -> np.ndarray:
        """Pixels → table (x, y) where each pixel's ray meets the plane `height` mm above the table."""
        rays = self.undistort_pixels(pixels)
        R = self.rotation
        t = np.asarray(self.tvec, dtype=np.float64).reshape(3)
        centre = -R.T @ t
        dirs = (R.T @ np.column_stack([rays, np.ones(len(rays))]).T).T
        plane_z = -np.broadcast_to(np.asarray(height, dtype=np.float64), (len(rays),))
        s = (plane_z - centre[2]) / dirs[:, 2]
        pts = centre + dirs * s[:, None]
        return pts[:, :2]

    def table_to_image_homography(self, height: float = 0.0) -> np.ndarray:
        """3×3 homography from table (x, y) at `height` to undistorted pixels."""
        R = self.rotation
        t = np.asarray(self.tvec, dtype=np.float64).reshape(3)
        H = self.intrinsics.K @ np.column_stack([R[:, 0], R[:, 1], R[:, 2] * -height + t])
        return H / H[2, 2]

    def mm_per_pixel(self, table_xy: Sequence[float]) -> float:
        """Approximate size of one pixel on the table near `table_xy`, mm."""
        p = np.array([table_xy, (table_xy[0] + 1.0, table_xy[1]), (table_xy[0], table_xy[1] + 1.0)])
        px = self.project(p)
        (ax, ay), (bx, by) = px[1] - px[0], px[2] - px[0]
        return 1.0 / math.sqrt(abs(ax * by - ay * bx))

    def to_dict(self) -> dict[str, Any]:
        return {"intrinsics": self.intrinsics.to_dict(), "rvec": [float(v) for v in np.ravel(self.rvec)],
                "tvec": [float(v) for v in np.ravel(self.tvec)],
                "reprojection_error_px": self.reprojection_error_px}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "CameraView":
        return cls(Intrinsics.from_dict(d["intrinsics"]), np.array(d["rvec"], float), np.array(d["tvec"], float),
                   float(d.get("reprojection_error_px", 0.0)))
