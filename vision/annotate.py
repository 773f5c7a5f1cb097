"""Draw what the detector understood on top of the camera picture.

Each piece's fitted 3-D model is projected back into the picture (so a wrong size, pose
or rotation shows as an outline that does not sit on the plastic), labelled with its id,
colour, size, pose and confidence ("check?" when it is read right less than three times
in four: vision.confidence.UNSURE_BELOW); coins get their circle; the markers and the
table frame's axes show the registration. Where the detector found the main lamp
(vision.light), each piece's shadow as that lamp casts it is outlined in grey: the shade
the detector took out of the picture before reading it again. A hand over the table
(vision.hands) and a soft picture (calibration.sharpness) are said in red by the axes.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.sharpness import soft_warning
from domain import Pose
from vision.confidence import UNSURE_BELOW
from vision.geometry import model_points_3d
from vision.hands import HAND_WARNING
from vision.light import shadow_polygon

# Outline colours (BGR) for the plastics; light ones get a dark halo when drawn.
DRAW_BGR = {"red": (40, 40, 230), "yellow": (0, 220, 240), "green": (60, 200, 60), "blue": (230, 120, 30),
            "black": (40, 40, 40), "purple": (200, 60, 160), "clear": (230, 230, 230), "orange": (0, 140, 255),
            "cyan": (230, 220, 0), "white": (250, 250, 250), "penny": (40, 100, 190), "nickel": (190, 190, 190)}
SIZE_LETTER = {"small": "S", "medium": "M", "large": "L"}
AXIS_MM = 100.0
SHADOW_BGR = (170, 170, 170)


def _pt(p) -> tuple[int, int]:
    return int(round(float(p[0]))), int(round(float(p[1])))


def _label(img: np.ndarray, text: str, at, colour) -> None:
    """Text on a dark box, just above and right of `at`."""
    font, scale = cv2.FONT_HERSHEY_SIMPLEX, 0.42
    (w, h), base = cv2.getTextSize(text, font, scale, 1)
    x, y = _pt(at)[0] + 6, _pt(at)[1] - 6
    cv2.rectangle(img, (x - 2, y - h - 3), (x + w + 2, y + base), (20, 20, 20), -1)
    cv2.putText(img, text, (x, y), font, scale, colour, 1, cv2.LINE_AA)


def annotate(image_bgr: np.ndarray, detection) -> np.ndarray:
    """A copy of the picture with every detection outlined and labelled."""
    out = image_bgr.copy()
    view = detection.registration.view
    _draw_frame(out, view, detection)
    lamp = getattr(detection, "lamp", None)
    for p in detection.state.pieces:
        colour = DRAW_BGR.get(p.color.value, (255, 255, 255))
        pts3, edges = model_points_3d(p)
        if lamp is not None:   # its shadow, under everything else drawn
            shadow = [np.round(view.project(shadow_polygon(pts3, lamp.towards))).astype(np.int32)]
            cv2.polylines(out, shadow, True, (40, 40, 40), 2, cv2.LINE_AA)
            cv2.polylines(out, shadow, True, SHADOW_BGR, 1, cv2.LINE_AA)
        px = view.project(pts3)
        for i, j in edges:
            cv2.line(out, _pt(px[i]), _pt(px[j]), (0, 0, 0), 3, cv2.LINE_AA)
            cv2.line(out, _pt(px[i]), _pt(px[j]), colour, 1, cv2.LINE_AA)
        foot = view.project(np.array(p.footprint()))
        cv2.polylines(out, [np.round(foot).astype(np.int32)], True, colour, 2, cv2.LINE_AA)
        if p.pose is Pose.FLAT:
            ends = view.project(np.array([p.tail, p.nose]))
            cv2.arrowedLine(out, _pt(ends[0]), _pt(ends[1]), colour, 1, cv2.LINE_AA, tipLength=0.25)
            anchor, pose = ends[1], f"flat {p.heading:.0f}deg"
        else:
            anchor, pose = view.project(np.array([p.center]))[0], f"up {p.rotation:.0f}deg"
        unsure = " check?" if p.confidence < UNSURE_BELOW else ""
        _label(out, f"{p.id} {p.color.value} {SIZE_LETTER[p.size.value]} {pose} {p.confidence:.2f}{unsure}",
               anchor, colour)
    for c in detection.state.coins:
        ring = np.array([(c.center[0] + c.kind.diameter / 2 * np.cos(a), c.center[1] + c.kind.diameter / 2 * np.sin(a))
                         for a in np.linspace(0, 2 * np.pi, 48, endpoint=False)])
        colour = DRAW_BGR[c.kind.value]
        cv2.polylines(out, [np.round(view.project(ring)).astype(np.int32)], True, colour, 2, cv2.LINE_AA)
        _label(out, f"{c.id} {c.kind.value}", view.project(np.array([c.center]))[0], colour)
    return out


def _draw_frame(out: np.ndarray, view, detection) -> None:
    """The markers the registration used and the table frame's x (red) and y (green) axes."""
    layout = getattr(detection, "layout", None)
    seen = set(getattr(detection.registration, "markers_seen", []))
    for m in (layout.markers if layout is not None else ()):
        sq = view.project(np.array(m.corners()))
        colour = (0, 200, 0) if m.id in seen else (0, 0, 255)
        cv2.polylines(out, [np.round(sq).astype(np.int32)], True, colour, 2, cv2.LINE_AA)
        _label(out, f"marker {m.id}", sq[0], colour)
    o, x, y = view.project(np.array([(0.0, 0.0), (AXIS_MM, 0.0), (0.0, AXIS_MM)]))
    cv2.arrowedLine(out, _pt(o), _pt(x), (0, 0, 255), 2, cv2.LINE_AA, tipLength=0.1)
    cv2.arrowedLine(out, _pt(o), _pt(y), (0, 255, 0), 2, cv2.LINE_AA, tipLength=0.1)
    _label(out, "x", x, (0, 0, 255))
    _label(out, "y", y, (0, 255, 0))
    lamp = getattr(detection, "lamp", None)
    if lamp is not None:
        _label(out, f"lamp {lamp.elevation_deg:.0f}deg up: shadows grey", o + (0, 18), SHADOW_BGR)
    if getattr(detection, "hand", False):
        _label(out, HAND_WARNING, o + (0, 36), (0, 0, 255))
    soft = soft_warning(getattr(detection.registration, "blur", None))
    if soft:
        _label(out, soft, o + (0, 54), (0, 0, 255))
