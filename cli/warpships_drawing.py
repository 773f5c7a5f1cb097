"""Render a WarpShips ruling Figure (referee.warpships.figure) as a top-down PNG with OpenCV.

>>> from referee.warpships.figure import Figure
>>> img = render_figure(Figure([{"kind": "circle", "role": "warp", "center": [0, 0], "radius": 50.8}],
...                            ["a caption"]))
>>> img.shape[2], img.dtype.name
(3, 'uint8')
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from domain import InputError
from referee.warpships.figure import Figure

PX_PER_MM = 4.0  # 0.25 mm a pixel: a large base is 100 px, clearances of 1 mm stay visible
MARGIN_MM = 25.0
MAX_SIDE_PX = 2400  # big tables are scaled down to keep the file reasonable
CAPTION_LINE_PX = 26

PIECE_BGR = {"red": (40, 40, 220), "yellow": (40, 210, 235), "green": (60, 170, 40),
             "blue": (210, 110, 30), "black": (30, 30, 30), "purple": (160, 50, 130),
             "clear": (200, 200, 200), "orange": (20, 130, 245), "cyan": (210, 200, 40),
             "white": (245, 245, 245)}
INK = (40, 40, 40)
WARP_OK, WARP_BAD = (60, 160, 60), (40, 40, 200)


def _extent(fig: Figure) -> tuple[float, float, float, float]:
    xs, ys = [], []
    for s in fig.shapes:
        pts = s.get("points") or [s[k] for k in ("a", "b", "p", "center") if k in s]
        r = s.get("radius", 0.0)
        xs += [p[0] - r for p in pts] + [p[0] + r for p in pts]
        ys += [p[1] - r for p in pts] + [p[1] + r for p in pts]
    if not xs:
        return 0.0, 0.0, 100.0, 100.0
    return min(xs) - MARGIN_MM, min(ys) - MARGIN_MM, max(xs) + MARGIN_MM, max(ys) + MARGIN_MM


def render_figure(fig: Figure) -> np.ndarray:
    x0, y0, x1, y1 = _extent(fig)
    scale = min(PX_PER_MM, MAX_SIDE_PX / max(x1 - x0, y1 - y0))
    top = CAPTION_LINE_PX * len(fig.caption) + 10
    w, h = int((x1 - x0) * scale) + 1, int((y1 - y0) * scale) + 1 + top
    img = np.full((h, w, 3), 255, np.uint8)

    def px(p) -> tuple[int, int]:
        return int(round((p[0] - x0) * scale)), int(round((p[1] - y0) * scale)) + top

    for role in ("band", "warp", "ghost", "piece", "blocker", "turn", "beam", "gap", "contact"):
        for s in fig.shapes:
            if s["role"] == role:
                _draw(img, s, px, scale)
    for i, line in enumerate(fig.caption):
        cv2.putText(img, line, (8, CAPTION_LINE_PX * (i + 1)), cv2.FONT_HERSHEY_SIMPLEX, 0.55, INK, 1,
                    cv2.LINE_AA)
    _scale_bar(img, scale)
    return img


def _draw(img: np.ndarray, s: dict, px, scale: float) -> None:
    role = s["role"]
    if s["kind"] == "polygon":
        pts = np.array([px(p) for p in s["points"]], np.int32)
        if role == "band":
            overlay = img.copy()
            cv2.fillPoly(overlay, [pts], (200, 230, 255))
            cv2.addWeighted(overlay, 0.6, img, 0.4, 0, img)
            return
        colour = PIECE_BGR.get(s.get("color", ""), INK)
        if role == "ghost":
            cv2.polylines(img, [pts], True, colour, 1, cv2.LINE_AA)
        else:
            cv2.fillPoly(img, [pts], colour)
            cv2.polylines(img, [pts], True, (0, 0, 255) if role == "blocker" else INK,
                          3 if role == "blocker" else 1, cv2.LINE_AA)
        cx = int(pts[:, 0].mean())
        cy = int(pts[:, 1].mean())
        cv2.putText(img, s.get("label", ""), (cx + 6, cy - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.45, INK, 1,
                    cv2.LINE_AA)
    elif s["kind"] == "circle":
        colour = WARP_OK if s.get("legal", True) else WARP_BAD
        cv2.circle(img, px(s["center"]), int(round(s["radius"] * scale)), colour, 2, cv2.LINE_AA)
        cv2.drawMarker(img, px(s["center"]), colour, cv2.MARKER_CROSS, 12, 1)
    elif s["kind"] == "line":
        colour = {"gap": WARP_BAD, "turn": (60, 130, 220)}.get(role, (0, 140, 255))
        cv2.line(img, px(s["a"]), px(s["b"]), colour, 1 if role == "turn" else 2, cv2.LINE_AA)
    elif s["kind"] == "point":
        cv2.drawMarker(img, px(s["p"]), (0, 0, 0), cv2.MARKER_TILTED_CROSS, 16, 2)


def _scale_bar(img: np.ndarray, scale: float) -> None:
    """A bar of a round number of mm in the bottom-left corner."""
    span = max(1.0, img.shape[1] / scale / 4)  # about a quarter of the picture
    k = 10 ** math.floor(math.log10(span))
    mm = max(m * k for m in (1, 2, 5) if m * k <= span)
    x, y = 10, img.shape[0] - 12
    cv2.line(img, (x, y), (x + int(mm * scale), y), INK, 3)
    cv2.putText(img, f"{mm:g} mm", (x, y - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.5, INK, 1, cv2.LINE_AA)


def save_figure(fig: Figure, path: str) -> None:
    try:
        ok = cv2.imwrite(path, render_figure(fig))
    except cv2.error as e:
        raise InputError(f"cannot write {path}: {e.msg}") from None
    if not ok:
        raise InputError(f"cannot write {path} (unknown image extension or unwritable folder)")
