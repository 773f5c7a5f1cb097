"""Small stand-ins for the camera, detector and referee, for fast tests of the live loop.

Frames are painted from a table state: a grey table, each upright piece a coloured
square of its true base size seen by a straight-down camera (2.5 mm a pixel), and
optionally a skin-coloured hand with its arm reaching in from the bottom edge. The fake
detector reads the squares back by colour, independently of how they were painted.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Sequence

import cv2
import numpy as np

from calibration.camera import CameraView, Intrinsics
from domain import Piece, Size, TableState

VIEW = CameraView.looking_down((380.0, 280.0), 625.0, Intrinsics(320, 240, 250.0, 250.0, 159.5, 119.5))
TABLE_GREY = 110
PAINT = {"red": (40, 40, 220), "green": (40, 180, 40), "blue": (220, 80, 30), "yellow": (30, 210, 230)}
SKIN = (120, 160, 210)


@dataclass(frozen=True)
class HandSpec:
    palm: tuple[float, float]  # table mm
    arm: bool = True  # the forearm reaches the picture's bottom edge


def paint(pieces: Sequence[Piece], hand: HandSpec | None = None, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((240, 320, 3), TABLE_GREY, np.uint8)
    img = np.clip(img.astype(int) + rng.integers(-2, 3, img.shape), 0, 255).astype(np.uint8)  # sensor noise
    for p in pieces:
        px = VIEW.project(p.footprint()).astype(np.int32)
        cv2.fillConvexPoly(img, px, PAINT[p.color.value])
    if hand is not None:
        (u, v), = VIEW.project([hand.palm]).astype(int)
        cv2.ellipse(img, (int(u), int(v)), (22, 30), 0, 0, 360, SKIN, -1)  # ~110 × 150 mm palm
        if hand.arm:
            cv2.rectangle(img, (int(u) - 14, int(v)), (int(u) + 14, 240), SKIN, -1)
    return img


def sizes_by_area() -> dict[Size, float]:
    return {s: (s.base / 2.5) ** 2 for s in Size}


@dataclass
class FakeDetection:
    state: TableState
    registration: Any
    timings_ms: dict = field(default_factory=dict)


@dataclass
class FakeRegistration:
    view: CameraView = VIEW
    markers_seen: list = field(default_factory=lambda: [0, 1, 2, 3])
    reprojection_error_px: float = 0.3
    paper_white_bgr: tuple = (200.0, 200.0, 200.0)


class FakeDetector:
    """Reads painted squares back: colour by nearest paint, size by area, place by centroid."""

    def __init__(self) -> None:
        self.frames_read: list[np.ndarray] = []
        self.palettes: list[Any] = []   # the colours in play it was told, a frame each

    def detect(self, image: np.ndarray, registration: Any = None, palette: Any = None) -> FakeDetection:
        self.frames_read.append(image)
        self.palettes.append(palette)
        pieces = []
        for colour, bgr in PAINT.items():
            mask = (np.abs(image.astype(int) - bgr).sum(axis=2) < 40).astype(np.uint8)
            n, _, stats, cents = cv2.connectedComponentsWithStats(mask)
            for i in range(1, n):
                area = stats[i, cv2.CC_STAT_AREA]
                if area < 10:
                    continue
                size = min(Size, key=lambda s: abs(sizes_by_area()[s] - area))
                (x, y), = VIEW.image_to_table([cents[i]])
                pieces.append(Piece.upright(f"d{len(pieces) + 1}", colour, size, (x, y)))
        return FakeDetection(TableState(tuple(pieces)), registration or FakeRegistration())


@dataclass
class FakeReferee:
    """Records the changes it is asked about; rules every change 'seen'."""

    changes: list[tuple[TableState, TableState]] = field(default_factory=list)

    def on_change(self, before: TableState, after: TableState) -> list[dict]:
        self.changes.append((before, after))
        return [{"id": f"r{len(self.changes)}", "kind": "move", "summary": "a change", "ruling": {},
                 "margin": 3.0, "too_close_to_call": False, "advisory": False, "status": "open"}]


class ListSource:
    """A finite source over prepared frames."""

    def __init__(self, frames: Sequence[np.ndarray], fps: float = 25.0):
        self.frames, self.fps, self.live, self.name = list(frames), fps, False, "test frames"
        self._i = 0

    def read(self) -> np.ndarray | None:
        if self._i >= len(self.frames):
            return None
        self._i += 1
        return self.frames[self._i - 1]

    def close(self) -> None:
        pass


def turn_clip(before: Sequence[Piece], after: Sequence[Piece], *, still: int = 8, hand_frames: int = 6,
              hold_hand: int = 0) -> tuple[list[np.ndarray], list[bool]]:
    """Frames of one turn: still table, a hand comes in, moves a piece, (holds still), leaves,
    still table. Returns the frames and, per frame, whether a hand is in it."""
    frames, hand = [], []
    for i in range(still):
        frames.append(paint(before, seed=i)); hand.append(False)
    for i in range(hand_frames):  # hand slides in from the bottom
        frames.append(paint(before, HandSpec((300 + 5 * i, 560 - 30 * i)), seed=100 + i)); hand.append(True)
    for i in range(hold_hand):  # hand held still over the table
        frames.append(paint(after, HandSpec((330, 380)), seed=200 + i)); hand.append(True)
    for i in range(hand_frames):  # and leaves
        frames.append(paint(after, HandSpec((330 - 5 * i, 380 + 35 * i)), seed=300 + i)); hand.append(True)
    for i in range(still):
        frames.append(paint(after, seed=400 + i)); hand.append(False)
    return frames, hand


class DiesOnRed:
    """A detector that kills its process on an all-red frame (a crash, out of memory)."""

    layout = None

    def detect(self, image, registration=None, palette=None):
        if image[..., 2].min() == 255 and image[..., :2].max() == 0:
            os._exit(1)
        return float(image.mean())
