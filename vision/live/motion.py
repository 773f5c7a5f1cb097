"""Never read the table while it moves: a cheap motion gate and an occluder check.

Both work on a small blurred copy of the frame (`GATE_WIDTH` pixels wide), so
they cost well under a millisecond at 1280×960 and run on every frame; the heavy
detector runs only once the gate has seen `QUIET_FRAMES` still frames in a row.

Stillness alone is not enough: a hand resting on the table is still too. So a quiet
frame is also compared with the last *settled* table (the background): a changed
region that touches the picture's border (an arm reaching in) or is bigger than
anything a few moved pyramids can explain is an occluder, and the frame is not read.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# Width of the copy the gate compares, px (1280×960 → 160×120: 8× fewer pixels per side).
GATE_WIDTH = 160
# A pixel "changed" when a blurred colour channel moved by more than this: above sensor
# noise and JPEG ringing (a few levels), below a pyramid or a hand sliding in (tens).
DIFF_LEVEL = 18
# The frame moves when more than this fraction of the gate's pixels changed since the
# previous frame; 0.1 % is about one small pyramid's footprint at the gate's scale.
MOTION_FRACTION = 0.001
# Still frames in a row before the table may be read (2 frames = 80 ms at 25 fps). The
# occluder check, not this count, is what keeps a hand held still out of the readings;
# this count only skips the frames of a hand's last, slowest motion.
QUIET_FRAMES = 2
# A changed blob (vs. the settled table) larger than this is no pyramid move: a large flat
# pyramid covers ~1,000 mm², with its shadow and its old and new places ~3,000 mm²; a
# hand's palm alone is ~8,000 mm².
OCCLUDER_MIN_AREA_MM2 = 5000.0
# A changed blob touching the picture's edge and larger than this is an arm reaching in
# (pieces stand inside the markers, well away from the edge).
BORDER_BLOB_MIN_AREA_MM2 = 300.0
# Gate pixel size on the table when no registration is known yet, mm: a 1280-px picture
# of a ~1 m wide view, seen through the 8× smaller gate image.
DEFAULT_GATE_PIXEL_MM = 6.5


def gate_image(frame: np.ndarray) -> np.ndarray:
    """The small blurred copy the gate compares (int16, ready for differences).

    It keeps colour: a red pyramid on a mid-grey or wooden table can have the table's
    brightness, so a grey copy would not see it move.
    """
    h, w = frame.shape[:2]
    small = cv2.resize(frame, (GATE_WIDTH, max(1, round(h * GATE_WIDTH / w))), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (3, 3), 0).astype(np.int16)


def changed_mask(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Gate pixels whose colour moved by more than DIFF_LEVEL in any channel."""
    if a.shape != b.shape:  # the source changed resolution: everything changed
        return np.ones(b.shape[:2], dtype=bool)
    diff = np.abs(a - b)
    return (diff.max(axis=2) if diff.ndim == 3 else diff) > DIFF_LEVEL


@dataclass(frozen=True)
class GateReading:
    moving: bool
    quiet_frames: int  # still frames in a row, this one included
    changed_fraction: float

    @property
    def settled(self) -> bool:
        return self.quiet_frames >= QUIET_FRAMES


class MotionGate:
    """Counts still frames in a row by differencing each frame with the one before."""

    def __init__(self, quiet_frames: int = QUIET_FRAMES):
        self.needed = quiet_frames
        self._previous: np.ndarray | None = None
        self._quiet = 0
        self.current: np.ndarray | None = None

    def update(self, frame: np.ndarray) -> GateReading:
        small = gate_image(frame)
        if self._previous is None:
            fraction = 1.0
        else:
            fraction = float(changed_mask(self._previous, small).mean())
        self._previous = self.current = small
        moving = fraction > MOTION_FRACTION
        self._quiet = 0 if moving else self._quiet + 1
        return GateReading(moving, self._quiet, fraction)

    @property
    def settled(self) -> bool:
        return self._quiet >= self.needed


def find_occluder(background: np.ndarray | None, current: np.ndarray,
                  gate_pixel_mm: float = DEFAULT_GATE_PIXEL_MM) -> str | None:
    """Why `current` shows something over the table compared with `background`, or None.

    Both are gate images. Without a background (nothing settled yet) nothing can be said.
    """
    if background is None or background.shape != current.shape:
        return None
    mask = changed_mask(background, current).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    px_area = gate_pixel_mm ** 2
    h, w = mask.shape
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        area_mm2 = area * px_area
        if area_mm2 >= OCCLUDER_MIN_AREA_MM2:
            return f"something of {area_mm2 / 100:.0f} cm² is over the table"
        touches = x == 0 or y == 0 or x + bw == w or y + bh == h
        if touches and area_mm2 >= BORDER_BLOB_MIN_AREA_MM2:
            return "something reaches in from the edge of the picture"
    return None
