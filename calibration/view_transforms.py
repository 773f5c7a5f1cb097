"""A renderer's view transform: told from the markers' edges, and undone.

The detector compares colours as a plain camera develops light (sRGB). A renderer may
develop its light through a view transform instead: Blender's default, AgX, and its
predecessor Filmic lift the darks and roll off the lights, and AgX mixes the channels in
a gamut of its own. Read as sRGB, such a picture's pieces change the table by other
hues: through Blender's own AgX, Cycles' scenes read 96.0 % of colours right against
98.1 % plainly developed (bench_cycles), 97.0 % once it is undone.

Telling. A lens, a pixel filter and a blur spread light symmetrically, so in the light
the picture stands for, an edge's half-way level lies on the edge itself
(calibration.sharpness fits the markers' edges as a blurred step and its shift from
where the registration puts them). A view that lifts the darks more than sRGB moves the
half-way level, read as sRGB, into the black: Cycles' pictures through Blender's AgX
shift -0.16 … -0.28 px (5th-95th percentile of 108 scenes), the same light plainly
developed -0.15 … +0.01 (clipped paper, read darker, moves it too). Read through the
view's own curve, the shift is 0.00-0.04 px. A picture is taken as developed through one
of the views of calibration/data/view_curves.json when that view's light puts its edges
within VIEW_EDGE_NEAR_PX of the markers, nearer than sRGB's by VIEW_EDGE_GAIN_PX, and
fits the step nearly as well (VIEW_EDGE_RMS_RATIO: a picture sharpened or blurred after
development, as a camera does, shifts its edges too, but no view's curve makes its
profiles a blurred step again: its residual grows 5-7 times where the shift would have
misled). Through Blender's AgX 103 of 108 pictures are taken for AgX (2 more for
Filmic), through Filmic 106 of 108 for Filmic or AgX (the two curves are near: undoing
either helps the other's pictures); of the plain ones none (Blender's Standard view,
Mitsuba, and our renderer's 125 pictures of the accuracy sets).

Undoing (`ViewUndo`). Each 8-bit level stands for the scene light the view's grey
curve gives it (measured by Blender itself: bench/cycles/view_curves.py); the light is
scaled to keep the paper's level and developed as sRGB, channel by channel. AgX also
mixes the channels in a gamut of its own, which this leaves (a colour's chromaticity
stays 0.14 log off, median over random colours; Filmic's 0.009): two 3×3 matrices
around the curve took that to 0.03 and Cycles' AgX colours from 97.0 to 97.5 %, but
oversaturated pictures made by an AgX curve without Blender's gamut (felt turned so
green that its texture read as 34 pieces), so they were left out (docs/detection.md,
thirty-ninth pass).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import cv2
import numpy as np

from calibration.camera import CameraView
from calibration.development import PAPER_CLIPPED
from calibration.markers import MarkerLayout
from calibration.sharpness import EdgeFit, edge_fits
from calibration.srgb import LINEAR, levels

VIEW_EDGE_NEAR_PX = 0.08
VIEW_EDGE_GAIN_PX = 0.12
VIEW_EDGE_RMS_RATIO = 1.25


@dataclass(frozen=True)
class ViewUndo:
    """A view transform undone: `stops`, the log2 scene light each 8-bit level (0-255)
    stands for by the view's grey curve."""

    stops: np.ndarray

    def light(self, levels_: np.ndarray) -> np.ndarray:
        """The relative scene light of levels (any shape, 0-255, fractional allowed).

        >>> undo = ViewUndo(np.log2(LINEAR + 1e-9))      # sRGB itself: levels back to light
        >>> [round(float(v), 3) for v in undo.light(np.array([255.0, 128.0, 0.0]))]
        [1.0, 0.216, 0.0]
        """
        return 2.0 ** np.interp(np.asarray(levels_, np.float64), np.arange(256), self.stops)

    def developed(self, image_bgr: np.ndarray, paper_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The picture (uint8) and its paper (BGR) as plainly developed: their light
        undone, scaled so that the paper's brightest channel keeps its level, in sRGB.

        >>> undo = ViewUndo(np.log2(LINEAR + 1e-9) * 2)   # a view that squares the light
        >>> picture, paper = undo.developed(np.array([[[128, 200, 64]]], np.uint8), np.array([200.0, 200.0, 200.0]))
        >>> picture.tolist(), paper.round().tolist()      # 200 stays, the rest darkens
        ([[[80, 200, 14]]], [200.0, 200.0, 200.0])
        """
        top = float(np.max(paper_bgr))
        scale = LINEAR[int(round(top))] / float(self.light(top))
        table = np.clip(np.round(levels(2.0 ** self.stops * scale)), 0, 255).astype(np.uint8)
        return cv2.LUT(image_bgr, table), levels(self.light(paper_bgr) * scale)


@lru_cache(maxsize=1)
def views() -> dict[str, ViewUndo]:
    """Blender's view transforms as measured in calibration/data/view_curves.json."""
    data = json.loads(resources.files("calibration").joinpath("data/view_curves.json").read_text(encoding="utf-8"))
    return {name: ViewUndo(np.asarray(v["stops"], np.float64)) for name, v in data["views"].items()}


def view_transform(image: np.ndarray, view: CameraView, layout: MarkerLayout, seen: list[int],
                   paper_bgr: np.ndarray, plain: EdgeFit | None) -> str | None:
    """The view transform of `views()` that developed the picture, told by its markers'
    edges (see the module's notes), given their fit in sRGB's light (`plain`,
    calibration.sharpness.edge_fits); None for a plain (sRGB) development, or when the
    edges cannot say (clipped paper, too few edges). Edges that sit on their markers in
    sRGB's light leave no view room to do better: the views are fitted only otherwise."""
    if plain is None or np.max(paper_bgr) >= PAPER_CLIPPED or abs(plain.shift_px) < VIEW_EDGE_GAIN_PX:
        return None
    grey = {name: 2.0 ** undo.stops for name, undo in views().items()}
    return nearest_view(plain, edge_fits(image, view, layout, seen, grey))


def nearest_view(plain: EdgeFit, fits: dict[str, EdgeFit]) -> str | None:
    """The view whose light puts the markers' edges nearest them (`fits`, their fits in
    each view's light) when near enough, nearer than sRGB's light does (`plain`) by
    enough, and fitting the step nearly as well (VIEW_EDGE_NEAR_PX, VIEW_EDGE_GAIN_PX,
    VIEW_EDGE_RMS_RATIO); else None.

    >>> fit = lambda shift, rms=0.06: EdgeFit(shift, 0.6, 1.0, rms)
    >>> nearest_view(fit(-0.22), {"AgX": fit(0.01), "Filmic": fit(-0.05)})
    'AgX'
    >>> nearest_view(fit(-0.03), {"AgX": fit(0.35), "Filmic": fit(0.30)}) is None
    True
    >>> nearest_view(fit(-0.14), {"AgX": fit(-0.01, rms=0.5)}) is None   # a sharpened picture's halo
    True
    """
    if not fits:
        return None
    name = min(fits, key=lambda n: abs(fits[n].shift_px))
    near = fits[name]
    if abs(near.shift_px) > VIEW_EDGE_NEAR_PX or abs(plain.shift_px) - abs(near.shift_px) < VIEW_EDGE_GAIN_PX:
        return None
    return name if near.rms <= VIEW_EDGE_RMS_RATIO * plain.rms else None
