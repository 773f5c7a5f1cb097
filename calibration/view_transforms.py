"""A renderer's view transform: told from the markers' edges, and undone.

The detector compares colours as a plain camera develops light (sRGB). A renderer may
develop its light through a view transform instead: Blender's default, AgX, and its
predecessor Filmic lift the darks and roll off the lights, and AgX mixes the channels in
a gamut of its own. Read as sRGB, such a picture's pieces change the table by other
hues: through Blender's own AgX, Cycles' scenes read 96.0 % of colours right against
98.1 % plainly developed (bench_cycles).

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
Filmic), through Filmic 106 of 108 for Filmic or AgX; of the plain ones none (Blender's
Standard view, Mitsuba, and our renderer's 125 pictures of the accuracy sets).

Undoing (`ViewUndo`). Each 8-bit level stands for the scene light the view's grey
curve gives it; AgX's mixing is undone by a 3×3 matrix on the display's light before
that and another on the scene's light after it (rows summing to one, so grey stays
grey), fitted to random colours developed by Blender (bench/cycles/view_curves.py): the
median error of a colour's log chromaticity falls from 0.25 with the curve alone to
0.04. The light is then scaled to keep the paper's level and developed as sRGB.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources

import cv2
import numpy as np

from calibration.camera import CameraView
from calibration.development import PAPER_CLIPPED
from calibration.markers import MarkerLayout
from calibration.sharpness import EdgeFit, edge_fits
from calibration.srgb import LINEAR, levels
from calibration.view_kernels import undo_mixing

VIEW_EDGE_NEAR_PX = 0.08
VIEW_EDGE_GAIN_PX = 0.12
VIEW_EDGE_RMS_RATIO = 1.25
# AgX's and Filmic's curves put a picture's edges 0.04-0.05 px apart, and either's
# pictures within 0.03 px of their markers: through AgX 97 % of Cycles' pictures are
# nearest AgX's curve, through Filmic 28 % are too. Undoing AgX's mixing on a Filmic
# picture costs more than it gains on an AgX one (colours: Filmic 98.3 → 97.4 %, AgX
# 97.0 → 97.7 %), so a mixing view's matrices are used only when its curve is nearer
# than any other by VIEW_MIX_MARGIN_PX (70 % of AgX's pictures, 7 % of Filmic's), its
# curve alone otherwise (CURVE_ONLY).
VIEW_MIX_MARGIN_PX = 0.025
CURVE_ONLY = " curve"
# The undoing's look-up tables: the display's light (0 … DISPLAY_TOP, after the display
# matrix) and the scene's scaled light (0 … SCENE_TOP) in TABLE_STEPS steps, fine enough
# that a level moves by under 0.3 where sRGB is steepest.
DISPLAY_TOP, SCENE_TOP, TABLE_STEPS = 1.5, 2.0, 1 << 15
_RGB_BGR = np.eye(3)[::-1]


@dataclass(frozen=True)
class ViewUndo:
    """A view transform undone: `stops`, the log2 scene light each 8-bit level (0-255)
    stands for by the view's grey curve; `display_matrix` and `scene_matrix` (RGB, or
    None for a view that treats channels alike), the view's mixing undone on the
    display's light before the curve and on the scene's light after it."""

    stops: np.ndarray
    display_matrix: np.ndarray | None = None
    scene_matrix: np.ndarray | None = None

    def light(self, rgb: np.ndarray) -> np.ndarray:
        """The relative scene light of RGB levels (…×3, 0-255, fractional allowed).

        >>> undo = ViewUndo(np.log2(LINEAR + 1e-9))      # sRGB itself: levels back to light
        >>> [round(float(v), 3) for v in undo.light(np.array([255.0, 128.0, 0.0]))]
        [1.0, 0.216, 0.0]
        """
        rgb = np.asarray(rgb, np.float64)
        if self.display_matrix is not None:
            shown = np.interp(rgb, np.arange(256), LINEAR) @ self.display_matrix.T
            rgb = np.clip(levels(np.maximum(shown, 0.0)), 0, 255)
        light = 2.0 ** np.interp(rgb, np.arange(256), self.stops)
        return light if self.scene_matrix is None else np.maximum(light @ self.scene_matrix.T, 0.0)

    def curve_only(self) -> "ViewUndo":
        """The view's grey curve undone alone, channel by channel."""
        return ViewUndo(self.stops)

    def developed(self, image_bgr: np.ndarray, paper_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The picture (BGR, uint8) and its paper (BGR) as plainly developed: their light
        undone, scaled so that the paper's brightest channel keeps its level, in sRGB.

        >>> undo = ViewUndo(np.log2(LINEAR + 1e-9) * 2)   # a view that squares the light
        >>> picture, paper = undo.developed(np.array([[[128, 200, 64]]], np.uint8), np.array([200.0, 200.0, 200.0]))
        >>> picture.tolist(), paper.round().tolist()      # 200 stays, the rest darkens
        ([[[80, 200, 14]]], [200.0, 200.0, 200.0])
        """
        paper_light = self.light(np.asarray(paper_bgr, np.float64)[::-1])
        scale = LINEAR[int(round(float(np.max(paper_bgr))))] / max(float(np.max(paper_light)), 1e-12)
        paper = levels(paper_light * scale)[::-1]
        if self.display_matrix is None:
            table = np.clip(np.round(levels(2.0 ** self.stops * scale)), 0, 255).astype(np.uint8)
            return cv2.LUT(image_bgr, np.repeat(table[None, :, None], 3, axis=2)), paper
        out = np.empty_like(image_bgr)
        undo_mixing(np.ascontiguousarray(image_bgr), self._linear, _bgr(self.display_matrix), self._scene_light,
                    np.float32((TABLE_STEPS - 1) / DISPLAY_TOP), _bgr(self.scene_matrix) * np.float32(scale),
                    self._srgb, np.float32((TABLE_STEPS - 1) / SCENE_TOP), out)
        return out, paper

    @cached_property
    def _linear(self) -> np.ndarray:
        return LINEAR.astype(np.float32)

    @cached_property
    def _scene_light(self) -> np.ndarray:
        """Scene light (float32) by the display's light in TABLE_STEPS steps to DISPLAY_TOP."""
        shown = np.linspace(0.0, DISPLAY_TOP, TABLE_STEPS)
        return (2.0 ** np.interp(np.clip(levels(shown), 0, 255), np.arange(256), self.stops)).astype(np.float32)

    @cached_property
    def _srgb(self) -> np.ndarray:
        """sRGB levels (uint8) by scaled scene light in TABLE_STEPS steps to SCENE_TOP."""
        return np.clip(np.round(levels(np.linspace(0.0, SCENE_TOP, TABLE_STEPS))), 0, 255).astype(np.uint8)


def _bgr(rgb_matrix: np.ndarray) -> np.ndarray:
    """An RGB colour matrix acting on BGR pixels (float32, for cv2.transform)."""
    return (_RGB_BGR @ rgb_matrix @ _RGB_BGR).astype(np.float32)


@lru_cache(maxsize=1)
def views() -> dict[str, ViewUndo]:
    """Blender's view transforms as measured in calibration/data/view_curves.json, and
    each that mixes its channels once more as its curve alone (its name + CURVE_ONLY)."""
    data = json.loads(resources.files("calibration").joinpath("data/view_curves.json").read_text(encoding="utf-8"))
    out = {}
    for name, v in data["views"].items():
        matrices = [_rows_to_one(np.array(v[k], np.float64)) if k in v else None
                    for k in ("display_matrix", "scene_matrix")]
        out[name] = ViewUndo(np.asarray(v["stops"], np.float64), *matrices)
        if out[name].display_matrix is not None:
            out[name + CURVE_ONLY] = out[name].curve_only()
    return out


def _rows_to_one(matrix: np.ndarray) -> np.ndarray:
    """`matrix` with its diagonal set so that each row sums to one (grey stays grey; the
    data file's entries are rounded)."""
    matrix[np.diag_indices(3)] += 1.0 - matrix.sum(axis=1)
    return matrix


def view_transform(image: np.ndarray, view: CameraView, layout: MarkerLayout, seen: list[int],
                   paper_bgr: np.ndarray, plain: EdgeFit | None) -> str | None:
    """The view transform of `views()` that developed the picture, told by its markers'
    edges (see the module's notes), given their fit in sRGB's light (`plain`,
    calibration.sharpness.edge_fits); None for a plain (sRGB) development, or when the
    edges cannot say (clipped paper, too few edges). Edges that sit on their markers in
    sRGB's light leave no view room to do better: the views are fitted only otherwise."""
    if plain is None or np.max(paper_bgr) >= PAPER_CLIPPED or abs(plain.shift_px) < VIEW_EDGE_GAIN_PX:
        return None
    grey = {name: 2.0 ** undo.stops for name, undo in views().items() if not name.endswith(CURVE_ONLY)}
    mixing = {name for name, undo in views().items() if undo.display_matrix is not None}
    return nearest_view(plain, edge_fits(image, view, layout, seen, grey), mixing)


def nearest_view(plain: EdgeFit, fits: dict[str, EdgeFit], mixing: set[str] = frozenset()) -> str | None:
    """The view whose light puts the markers' edges nearest them (`fits`, their fits in
    each view's light) when near enough, nearer than sRGB's light does (`plain`) by
    enough, and fitting the step nearly as well (VIEW_EDGE_NEAR_PX, VIEW_EDGE_GAIN_PX,
    VIEW_EDGE_RMS_RATIO); else None. A view of `mixing` (one that mixes its channels)
    not plainly the nearest (VIEW_MIX_MARGIN_PX) is its curve alone (CURVE_ONLY).

    >>> fit = lambda shift, rms=0.06: EdgeFit(shift, 0.6, 1.0, rms)
    >>> nearest_view(fit(-0.22), {"AgX": fit(0.01), "Filmic": fit(-0.05)}, {"AgX"})
    'AgX'
    >>> nearest_view(fit(-0.22), {"AgX": fit(0.01), "Filmic": fit(-0.02)}, {"AgX"})
    'AgX curve'
    >>> nearest_view(fit(-0.03), {"AgX": fit(0.35), "Filmic": fit(0.30)}) is None
    True
    >>> nearest_view(fit(-0.14), {"AgX": fit(-0.01, rms=0.5)}) is None   # a sharpened picture's halo
    True
    """
    if not fits:
        return None
    name, *others = sorted(fits, key=lambda n: abs(fits[n].shift_px))
    near = fits[name]
    if abs(near.shift_px) > VIEW_EDGE_NEAR_PX or abs(plain.shift_px) - abs(near.shift_px) < VIEW_EDGE_GAIN_PX \
            or near.rms > VIEW_EDGE_RMS_RATIO * plain.rms:
        return None
    runner_up = min((abs(fits[n].shift_px) for n in others), default=np.inf)
    return name + CURVE_ONLY if name in mixing and runner_up - abs(near.shift_px) < VIEW_MIX_MARGIN_PX else name
