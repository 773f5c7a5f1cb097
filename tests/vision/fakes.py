"""Small stand-ins for the renderer and registration: flat-shaded convex pyramids on a
plain table, drawn through a known camera. Independent of vision.render, so geometry and
fitting can be checked against a second, much simpler picture maker."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.camera import CameraView
from domain import Coin, Piece, TableState
from vision.geometry import model_points_3d

SUPERSAMPLE = 4
# Two-way transmission (b, g, r) of the fake plastics.
TINTS = {"red": (0.2, 0.22, 0.85), "yellow": (0.2, 0.8, 0.9), "green": (0.35, 0.65, 0.22),
         "blue": (0.75, 0.38, 0.2), "black": None, "white": None}


@dataclass
class FakeRegistration:
    view: CameraView
    paper_white_bgr: np.ndarray = field(default_factory=lambda: np.array([235.0, 235.0, 235.0]))
    markers_seen: list[int] = field(default_factory=lambda: [0, 1, 2, 3])
    reprojection_error_px: float = 0.0
    ink_black_bgr: np.ndarray | None = None   # not measured: the picture taken as plainly developed
    view_transform: str | None = None


def draw_scene(view: CameraView, pieces: list[Piece], coins: list[Coin] = (),
               table_bgr=(90, 120, 160), seed: int = 0) -> np.ndarray:
    """A 1280×960 BGR picture: plain table, pieces as flat-tinted convex silhouettes."""
    w, h = view.intrinsics.width, view.intrinsics.height
    big = np.empty((h * SUPERSAMPLE, w * SUPERSAMPLE, 3), np.float32)
    big[:] = table_bgr
    for p in pieces:
        pts, _ = model_points_3d(p)
        px = view.project(pts) * SUPERSAMPLE + (SUPERSAMPLE - 1) / 2
        hull = cv2.convexHull(px.astype(np.float32)).reshape(-1, 2)
        mask = np.zeros(big.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(hull).astype(np.int32), 1)
        tint = TINTS[p.color.value]
        if tint is None:
            big[mask > 0] = 25 if p.color.value == "black" else 225
        else:
            big[mask > 0] *= np.array(tint, np.float32)
    for c in coins:
        ring = np.array([(c.center[0] + c.kind.diameter / 2 * np.cos(a), c.center[1] + c.kind.diameter / 2 * np.sin(a))
                         for a in np.linspace(0, 2 * np.pi, 64, endpoint=False)])
        px = view.project(ring, 1.5) * SUPERSAMPLE + (SUPERSAMPLE - 1) / 2
        colour = (120, 160, 220) if c.kind.value == "penny" else (190, 192, 195)  # shiny metal
        cv2.fillPoly(big, [np.round(px).astype(np.int32)], colour)
    img = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    img += np.random.default_rng(seed).normal(0, 2.0, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def tilted_view(eye=(150.0, 120.0, 800.0), target=(380.0, 280.0, 0.0)) -> CameraView:
    from calibration.camera import Intrinsics
    return CameraView.from_look_at(Intrinsics(1280, 960, 1000.0, 1000.0, 639.5, 479.5), eye, target)


def truth(pieces, coins=()) -> TableState:
    return TableState(tuple(pieces), tuple(coins))


def paper_white(image: np.ndarray, view: CameraView, layout) -> np.ndarray:
    """Median BGR of the marker sheets' white border, sampled through a known camera."""
    samples = []
    for m in layout.markers:
        for r in (m.size / 2 + 6, m.size / 2 + 9):
            for a in np.linspace(0, 2 * np.pi, 32, endpoint=False):
                samples.append((m.center[0] + r * np.cos(a), m.center[1] + r * np.sin(a)))
    px = np.round(view.project(np.array(samples))).astype(int)
    h, w = image.shape[:2]
    ok = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    return np.median(image[px[ok, 1], px[ok, 0]].astype(float), axis=0)


def truth_registration(rendered) -> FakeRegistration:
    """A registration from a render's true camera (for developing before registration lands)."""
    return FakeRegistration(rendered.view, paper_white(rendered.image, rendered.view, rendered.spec.layout))
