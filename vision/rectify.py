"""A top-down picture of the table plane: the z = 0 homography onto a millimetre grid.

Everything touching the table is where it really is in this picture (lens distortion
included), so detection measures in millimetres directly; what stands above the table
leans away from the camera, which vision.geometry models.

>>> from calibration.camera import CameraView
>>> from calibration.markers import MarkerLayout
>>> grid = TableGrid.around(MarkerLayout.default())
>>> grid.width, grid.height, grid.to_mm(np.array([[0.0, 0.0]])).tolist()
(760, 560, [[0.5, 0.5]])
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraView
from calibration.markers import MarkerLayout

# How far past the markers' centres the table is searched, mm: the contract's layout puts
# the markers 65 mm in from the table edges.
TABLE_MARGIN_MM = 65.0
# Grid resolution, mm per pixel: 1 mm keeps the smallest piece (14.3 mm base) 14 px wide,
# enough for sub-millimetre model fits, at about 0.4 Mpx for a 760 × 560 mm table.
GRID_MM_PER_PX = 1.0


@dataclass(frozen=True)
class TableGrid:
    """Pixel (col, row) of the grid ↔ table mm: x = x0 + (col + 0.5)·res, likewise y."""

    x0: float
    y0: float
    res: float
    width: int
    height: int

    @classmethod
    def around(cls, layout: MarkerLayout, margin: float = TABLE_MARGIN_MM,
               res: float = GRID_MM_PER_PX) -> "TableGrid":
        xs = [m.center[0] for m in layout.markers]
        ys = [m.center[1] for m in layout.markers]
        x0, y0 = min(xs) - margin, min(ys) - margin
        return cls(x0, y0, res, int(round((max(xs) + margin - x0) / res)),
                   int(round((max(ys) + margin - y0) / res)))

    def to_mm(self, px: np.ndarray) -> np.ndarray:
        return (np.asarray(px, float) + 0.5) * self.res + (self.x0, self.y0)

    def corner_mm(self, px: np.ndarray) -> np.ndarray:
        """Table mm of grid pixel `px`'s (col, row) top-left corner: where a box of the
        grid starting at that pixel begins.

        >>> TableGrid(-10.0, 5.0, 1.0, 100, 100).corner_mm(np.array([3, 4])).tolist()
        [-7.0, 9.0]
        """
        # to_mm's arithmetic, in its order, on two Python floats: the rules ask ~60 times
        # a frame, and numpy's calls on a 2-vector cost ~5 µs
        col, row = (float(v) for v in px)
        return np.array([(col + 0.5) * self.res + self.x0 - 0.5 * self.res,
                         (row + 0.5) * self.res + self.y0 - 0.5 * self.res])

    def to_px(self, mm: np.ndarray) -> np.ndarray:
        return (np.asarray(mm, float) - (self.x0, self.y0)) / self.res - 0.5

    def mm_to_grid_matrix(self) -> np.ndarray:
        """3×3 map from grid pixels to table mm (homogeneous)."""
        r = self.res
        return np.array([[r, 0, self.x0 + 0.5 * r], [0, r, self.y0 + 0.5 * r], [0, 0, 1.0]])


class Rectifier:
    """Warps camera frames onto a TableGrid for one camera pose (reusable across frames)."""

    def __init__(self, view: CameraView, grid: TableGrid):
        self.view, self.grid = view, grid
        self._maps: tuple[np.ndarray, np.ndarray] | None = None
        self._H = view.table_to_image_homography(0.0) @ grid.mm_to_grid_matrix()
        if np.any(np.asarray(view.intrinsics.dist) != 0):
            x = grid.to_mm(np.column_stack([np.arange(grid.width), np.zeros(grid.width)]))[:, 0]
            y = grid.to_mm(np.column_stack([np.zeros(grid.height), np.arange(grid.height)]))[:, 1]
            u, v = project_table(view, x[None, :], y[:, None])
            self._maps = cv2.convertMaps(u.astype(np.float32), v.astype(np.float32), cv2.CV_16SC2)

    def warp(self, image: np.ndarray) -> np.ndarray:
        """The frame seen from straight above; what the camera does not see is black."""
        if self._maps is not None:
            return cv2.remap(image, self._maps[0], self._maps[1], cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_CONSTANT)
        return cv2.warpPerspective(image, self._H, (self.grid.width, self.grid.height),
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_CONSTANT)

    def visible(self) -> np.ndarray:
        """Mask of the grid cells the camera sees (uint8 0/255)."""
        ones = np.full((self.view.intrinsics.height, self.view.intrinsics.width), 255, np.uint8)
        return cv2.erode(self.warp(ones), np.ones((3, 3), np.uint8))


def project_table(view: CameraView, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`view.project` of table points (x, y, z = 0), given as broadcastable arrays (a grid's
    columns and rows), as pixel column and row arrays: OpenCV's 5-coefficient lens model
    written out. cv2.projectPoints also fills its Jacobian, 15 doubles a coordinate,
    which for a whole grid costs ~0.3 s and ~100 MB on every new camera pose."""
    x, y = np.broadcast_arrays(x, y)
    intr = view.intrinsics
    dist = np.asarray(intr.dist, float).ravel()
    if len(dist) > 5:
        px = view.project(np.column_stack([x.ravel(), y.ravel()]))
        return px[:, 0].reshape(x.shape), px[:, 1].reshape(x.shape)
    k1, k2, p1, p2, k3 = np.pad(dist, (0, 5 - len(dist)))
    R = view.rotation
    t = np.asarray(view.tvec, float).reshape(3)
    z = x * R[2, 0] + y * R[2, 1] + t[2]
    x, y = (x * R[0, 0] + y * R[0, 1] + t[0]) / z, (x * R[1, 0] + y * R[1, 1] + t[1]) / z
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return intr.fx * xd + intr.cx, intr.fy * yd + intr.cy
