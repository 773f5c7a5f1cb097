"""Watch the markers' registration from frame to frame: keep the last good one, notice a bumped camera.

The markers are registered on every frame that is read, but the detector is handed the
registration *in use*: it changes only when the camera moved (the table centre jumps in
the picture, or the reprojection error jumps: the players are told "camera moved") or a
registration seeing more markers comes along. So a hand hiding some markers cannot
disturb the geometry, and the detector keeps its per-camera caches across frames.

The markers also say how sharp the picture is (calibration.sharpness): when it turns soft
(a webcam hunting for focus, a knocked lens) the players are told once, and again when
it is sharp again.
"""

from __future__ import annotations

import statistics
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# The table centre moving by more than this many pixels between two registrations means the
# camera (or the marker sheet) moved: registration noise is a fraction of a pixel.
CAMERA_SHIFT_PX = 6.0
# A reprojection error this many times the recent median (and above the floor) is a jump.
REPROJECTION_JUMP_FACTOR = 3.0
REPROJECTION_FLOOR_PX = 1.5
# Recent registrations the median is taken over.
HISTORY = 15


@dataclass
class CameraWatch:
    table_centre: tuple[float, float]
    last_good: Any = None  # the registration in use (calibration.registration.Registration)
    _errors: deque = field(default_factory=lambda: deque(maxlen=HISTORY))
    _centre_px: np.ndarray | None = None
    _soft: bool = False

    def update(self, registration: Any) -> str | None:
        """Take a new registration; returns why the camera seems to have moved, or that the
        picture turned soft or sharp again, or None."""
        error = float(registration.reprojection_error_px)
        centre = registration.view.project([self.table_centre])[0]
        moved = None
        if self._centre_px is not None:
            shift = float(np.hypot(*(centre - self._centre_px)))
            if shift > CAMERA_SHIFT_PX:
                moved = f"camera moved: the table shifted {shift:.0f} px in the picture"
        if moved is None and len(self._errors) >= 3:
            typical = statistics.median(self._errors)
            if error > max(REPROJECTION_FLOOR_PX, REPROJECTION_JUMP_FACTOR * typical):
                moved = (f"camera moved or a marker was disturbed: reprojection error "
                         f"{error:.1f} px (usually {typical:.1f} px)")
        if moved:
            self._errors.clear()  # a new camera position starts a new baseline
        self._errors.append(error)
        seen_more = self.last_good is not None and \
            len(registration.markers_seen) > len(self.last_good.markers_seen)
        if self.last_good is None or moved or seen_more:
            self.last_good, self._centre_px = registration, centre
        said = [m for m in (moved, self._focus(getattr(registration, "blur", None))) if m]
        return "; ".join(said) or None

    def _focus(self, blur: Any) -> str | None:
        """What to say when the picture turns soft (calibration.sharpness.Blur) or sharp again."""
        if blur is None or blur.soft == self._soft:
            return None
        self._soft = blur.soft
        return blur.warning() if blur.soft else f"the picture is sharp again (blur {blur.sigma_px:.1f} px)"
