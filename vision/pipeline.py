"""Frames to table states: `Detector(layout).detect(image_bgr) -> Detection`.

Steps (each timed in `Detection.timings_ms`):
1. register — the markers give the camera pose (calibration.registration); a previous
   registration can be passed in to skip this on video.
2. segment — the frame is warped onto a 1 mm grid of the table plane (vision.rectify);
   its log ratio against the bare table gives blobs by hue change, darkness beyond
   shadows and brightness; touching pieces are split (vision.segment).
3. fit — every plausible 3-D model (upright/flat × small/medium/large, coins) is fitted
   to each blob's outline with the camera's perspective and the piece's height
   (vision.fit).
4. decide — the best model of each blob, its colour against the colour models
   (calibration.colour), shadows of pieces dropped, ids given in reading order.
See docs/detection.md.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from shapely.geometry import Point, Polygon

from calibration.camera import Intrinsics
from calibration.colour import ColourModels
from calibration.markers import MarkerLayout
from domain import Coin, InputError, Size, TableState
from vision import fit as fitting
from vision.geometry import COIN, FLAT, UPRIGHT, apparent_vertices, model, silhouette, to_piece
from vision.rectify import Rectifier, TableGrid
from vision.segment import MIN_BLOB_MM2, BackgroundFiller, Foreground, Part, blob_masks, foreground, refine, table_mask

# A blob is reported only if some model's silhouette covers it this well (IoU): a real
# piece scores above ~0.85; shadows, hands and table marks score far lower.
IOU_MIN = 0.6
# Hypotheses are ranked by cost = robust RMS outline distance (mm) + IOU_COST_MM·(1 − IoU):
# the outline pins the shape, the overlap the area (a blurred 14 mm square is nearly as
# round as a coin, but not as big).
IOU_COST_MM = 5.0
# How much costlier the runner-up (another pose or size) must be for full confidence.
COST_GAP_CONFIDENT = 0.5
# Colour margin (in model spreads) that earns full colour confidence.
COLOUR_MARGIN_CONFIDENT = 1.5
# Darkest channel (log relative to paper white) of a coin: copper and nickel reflect
# more than half of every colour; translucent plastic passes under a third of some.
METAL_LOG_MIN = -0.9
# A blob bigger than this (mm²) is a hand or an arm (a palm alone is ~85 × 85 mm); even
# four pieces pressed together cover under half of it.
HAND_MM2 = 4000.0
# A dark candidate closer than this (mm) to a coloured piece is taken for its shadow.
SHADOW_TOUCH_MM = 3.0
# A blob's colour is measured on its pixels more saturated than this percentile.
SATURATED_PERCENTILE = 75
# Crop margin around a blob, mm: room for the refined mask and any hypothesis's silhouette.
CROP_MARGIN_MM = 25.0
# Tinted shadow: darker than the table with under this share of the piece's hue change
# (its median chroma); a lamp through the plastic diluted by the other lights.
TINT_SHARE = 0.6
# ... and darker than the table by more than its texture and noise (log, ~14 %).
SHADOW_DARKER = -0.15
# A hypothesis whose silhouette covers at least SHADOW_MIN_MM2 of the blob beyond a
# rival's (grown by SHADOW_EDGE_PX for the blurred edge), SHADOW_SHARE of it tinted
# shadow, loses to that rival if the rival costs at most SHADOW_SWAP_COST_MM more.
SHADOW_MIN_MM2 = 20.0
SHADOW_EDGE_PX = 1
SHADOW_SHARE = 0.5
SHADOW_SWAP_COST_MM = 1.5
# ... or if that area as a whole is paler than the plastic inside the rival (median hue
# change under SHADOW_PALER of the plastic's) and darker than it by SHADOW_DARKER_THAN_PIECE
# (log, ~10 %): a shadow tinted as strongly as a faint piece's own hue change (a flat
# piece's tail band), which the per-pixel test above misses.
SHADOW_PALER = 0.85
SHADOW_DARKER_THAN_PIECE = 0.1
# Pixels eroded off a blob before measuring its colour: its rim mixes with the table.
COLOUR_ERODE_PX = 2


class BadImageError(InputError):
    """An image that is not a usable colour picture."""


@dataclass
class PieceFit:
    """What the detector decided about one blob (for drawing and diagnostics)."""

    id: str
    colour: str
    fit: fitting.Fit
    colour_margin: float
    confidence: float


@dataclass
class Detection:
    state: TableState
    registration: Any
    timings_ms: dict[str, float]
    fits: list[PieceFit] = field(default_factory=list)
    grid: TableGrid | None = None
    layout: MarkerLayout | None = None


@dataclass
class _Blob:
    part: Part             # mask, undecided pixels and outline in its box
    origin_px: np.ndarray  # crop's top-left grid pixel (col, row)
    area_mm2: float
    observed: np.ndarray   # median log colour relative to paper white (b, g, r)
    table: np.ndarray      # the bare table's, under the piece
    shadow: np.ndarray     # bool, in the box: darker than the table and paler than the piece
    lum: np.ndarray        # darkening against the table (log), in the box
    chroma: np.ndarray     # hue change against the table (log), in the box
    dark: bool = False     # a dark, hueless candidate: black plastic or a shadow


def check_image(image: Any) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise BadImageError("expected a BGR colour picture (H×W×3 uint8)")
    if min(image.shape[:2]) < 64:
        raise BadImageError(f"picture too small ({image.shape[1]}×{image.shape[0]})")
    return image


class Detector:
    """Finds every pyramid and coin in pictures of one table; reusable across frames."""

    def __init__(self, layout: MarkerLayout, intrinsics: Intrinsics | None = None,
                 colours_path: str | None = None, models: ColourModels | None = None):
        self.layout, self.intrinsics = layout, intrinsics
        self.models = models or ColourModels.load(colours_path)
        self.grid = TableGrid.around(layout)
        self._rectifier: Rectifier | None = None
        self._usable: np.ndarray | None = None

    # -- steps -----------------------------------------------------------------------
    def register(self, image: np.ndarray):
        """The camera pose from the markers in this picture."""
        from calibration.registration import register
        return register(image, self.layout, self._intrinsics_for(image))

    def _intrinsics_for(self, image: np.ndarray) -> Intrinsics | None:
        """The given lens, rescaled if the picture was resized with the same aspect ratio."""
        intr = self.intrinsics
        h, w = image.shape[:2]
        if intr is None or (intr.width, intr.height) == (w, h):
            return intr
        if abs(intr.width * h - intr.height * w) > max(w, h):
            raise BadImageError(f"the camera file describes {intr.width}×{intr.height} pictures; "
                                f"this one is {w}×{h}")
        return intr.scaled_to(w, h)

    def _rectifier_for(self, view) -> Rectifier:
        if self._rectifier is None or self._rectifier.view is not view:
            self._rectifier = Rectifier(view, self.grid)
            self._usable = table_mask(self.grid, self.layout, self._rectifier.visible())
            self._filler = BackgroundFiller(self._usable, self.grid)
        return self._rectifier

    def segment(self, image: np.ndarray, registration) -> Foreground:
        rect = self._rectifier_for(registration.view)
        return foreground(rect.warp(image), self._usable, self._filler, registration.paper_white_bgr)

    def _blobs(self, fg: Foreground) -> list[_Blob]:
        res, margin = self.grid.res, int(round(CROP_MARGIN_MM / self.grid.res))
        out = []
        kernel = np.ones((2 * COLOUR_ERODE_PX + 1,) * 2, np.uint8)
        candidates = [(m, b, False) for m, b in blob_masks(fg, margin)] + \
            [(m, b, True) for m, b in blob_masks(fg, margin, dark=True)]
        for weak, box, dark in candidates:
            if np.count_nonzero(weak) * res * res > HAND_MM2:
                continue  # a hand or an arm over the table, not pieces
            for part in refine(fg, weak, box):
                area = np.count_nonzero(part.mask) * res * res
                if area < MIN_BLOB_MM2:
                    continue
                inner = cv2.erode(part.mask, kernel)
                sel = inner > 0 if np.count_nonzero(inner) >= 10 else part.mask > 0
                observed, table = _colour_of(fg.log_reflectance(*box)[sel], fg.table_log_reflectance(*box)[sel])
                crop = np.s_[box[1]:box[1] + box[3], box[0]:box[0] + box[2]]
                out.append(_Blob(part, np.array(box[:2]), area, observed, table, _tinted_shadow(fg, box, sel),
                                 fg.lum[crop], np.hypot(fg.hue[crop][..., 0], fg.hue[crop][..., 1]), dark))
        return out

    def measure_colours(self, image: np.ndarray, registration=None) -> list[tuple[np.ndarray, np.ndarray]]:
        """(observed, table) log colours of each piece-sized blob: for colour calibration."""
        check_image(image)
        reg = registration or self.register(image)
        found = self._blobs(self.segment(image, reg))
        return [(b.observed, b.table) for b in found]

    # -- the whole thing -------------------------------------------------------------
    def detect(self, image_bgr: np.ndarray, registration=None) -> Detection:
        """Everything on the table in one frame. Pass the previous frame's registration to
        reuse its camera pose (a fixed camera on video)."""
        image = check_image(image_bgr)
        t = [time.perf_counter()]
        reg = registration or self.register(image)
        t.append(time.perf_counter())
        fg = self.segment(image, reg)
        t.append(time.perf_counter())
        found = self._blobs(fg)
        camera = np.asarray(reg.view.position, float)
        fits = self._fit(found, camera)
        t.append(time.perf_counter())
        state, piece_fits = self._state(found, fits, camera)
        t.append(time.perf_counter())
        names = ("register", "segment", "fit", "decide")
        timings = {n: (b - a) * 1000 for n, a, b in zip(names, t, t[1:])}
        timings["total"] = (t[-1] - t[0]) * 1000
        return Detection(state, reg, timings, piece_fits, self.grid, self.layout)

    def _fit(self, found: list[_Blob], camera: np.ndarray) -> list[list[fitting.Fit]]:
        res = self.grid.res
        hyps: list[fitting.Hypothesis] = []
        starts: list[np.ndarray] = []
        points, open_sides, offsets = [], [], []
        for i, b in enumerate(found):
            origin = self.grid.to_mm(b.origin_px[None])[0] - 0.5 * res
            pts, open_side = fitting.outline_points(b.part.outline, b.part.undecided, origin, res)
            h, s = _next_upright_size(*fitting.initial_hypotheses(pts, b.area_mm2, camera, i,
                                                                 with_coins=_metallic(b.observed)))
            hyps += h
            starts += s
            points += [pts] * len(h)
            offsets += [b.part.edge_offset * res] * len(h)
            open_sides += [open_side] * len(h)
        per_blob: list[list[fitting.Fit]] = [[] for _ in found]
        if not hyps:
            return per_blob
        open_sides = np.array(open_sides)
        params, r = fitting.gauss_newton(hyps, np.array(starts), np.array(points), open_sides, camera,
                                         np.array(offsets)[:, None])
        rms = fitting.robust_rms(r, open_sides)
        polys = fitting.outline_polygons(hyps, params, camera)
        rim = fitting.perimeter_points(polys)
        blob_of = np.array([h.blob for h in hyps])
        for i, b in enumerate(found):
            rows = np.flatnonzero(blob_of == i)
            if not len(rows):
                continue
            origin = self.grid.to_mm(b.origin_px[None])[0] - 0.5 * res
            # the silhouette must lie on the outline as well as the outline on it
            both = 0.5 * (rms[rows] + fitting.reverse_rms(rim[rows], origin + (b.part.outline + 0.5) * res,
                                                          b.part.edge_offset * res, b.part.undecided, origin, res))
            ious = fitting.silhouette_ious([hyps[k] for k in rows], params[rows], [polys[k] for k in rows],
                                           b.part.mask, b.part.undecided, origin, res)
            for k, e, iou in zip(rows, both, ious):
                per_blob[i].append(fitting.Fit(hyps[k], params[k], float(e), float(iou)))
        return per_blob

    def _state(self, found: list[_Blob], fits: list[list[fitting.Fit]],
               camera: np.ndarray) -> tuple[TableState, list[PieceFit]]:
        pieces, coins, decided = [], [], []
        chosen = []
        for b, options in zip(found, fits):
            if not options:
                continue
            options.sort(key=_cost)
            best = _not_explaining_shadow(options, b, self.grid, camera)
            best = _ridges_decide(best, options, b, self.grid, camera)
            if best.iou < IOU_MIN:
                continue
            rival = next((_cost(f) for f in options[1:] if (f.hypothesis.kind, f.hypothesis.size)
                          != (best.hypothesis.kind, best.hypothesis.size)), _cost(best) + COST_GAP_CONFIDENT)
            chosen.append((b, best, rival - _cost(best)))
        chosen = _without_shadows(chosen, camera)
        # reading order (top to bottom, then left to right) gives stable ids
        chosen.sort(key=lambda c: (round(float(c[1].params[1]) / 20), float(c[1].params[0])))
        if chosen:
            names, margins = self.models.classify(np.array([c[0].observed for c in chosen]),
                                                  np.array([c[0].table for c in chosen]))
        for (b, best, gap), name, margin in zip(chosen, names if chosen else [], margins if chosen else []):
            h = best.hypothesis
            fit_conf = float(np.clip((best.iou - IOU_MIN) / (0.9 - IOU_MIN), 0, 1))
            pose_conf = float(np.clip(gap / COST_GAP_CONFIDENT, 0, 1))
            if h.kind == COIN:
                cid = f"c{len(coins) + 1}"
                conf = min(fit_conf, pose_conf)
                coins.append(Coin(cid, h.coin, (float(best.params[0]), float(best.params[1])), conf))  # type: ignore[arg-type]
                decided.append(PieceFit(cid, h.coin.value, best, 0.0, conf))  # type: ignore[union-attr]
                continue
            colour_conf = float(np.clip(margin / COLOUR_MARGIN_CONFIDENT, 0, 1))
            conf = round(min(fit_conf, pose_conf, colour_conf), 3)
            pid = f"p{len(pieces) + 1}"
            pieces.append(to_piece(pid, name, h.kind, h.size, best.params, conf))  # type: ignore[arg-type]
            decided.append(PieceFit(pid, name, best, float(margin), conf))
        return TableState(tuple(pieces), tuple(coins)), decided


_SIZES = list(Size)


def _next_upright_size(hyps: list[fitting.Hypothesis],
                       starts: list[np.ndarray]) -> tuple[list[fitting.Hypothesis], list[np.ndarray]]:
    """Add the upright one size bigger than the biggest tried: an upright's shaded faces
    can be barely darker than the table (neither piece nor shadow), so its blob is only
    the lit faces and looks a size smaller; the outline fit, which may reach over
    undecided pixels, then decides. Started where the biggest tried upright was."""
    up = [k for k, h in enumerate(hyps) if h.kind == UPRIGHT]
    if not up:
        return hyps, starts
    top = max(_SIZES.index(hyps[k].size) for k in up)  # type: ignore[arg-type]
    if top + 1 >= len(_SIZES):
        return hyps, starts
    bigger = _SIZES[top + 1]
    seeds = [k for k in up if _SIZES.index(hyps[k].size) == top]  # type: ignore[arg-type]
    return (hyps + [fitting.Hypothesis(hyps[k].blob, UPRIGHT, bigger) for k in seeds],
            starts + [starts[k].copy() for k in seeds])


def _cost(f: fitting.Fit) -> float:
    return f.rms + IOU_COST_MM * (1.0 - f.iou)


# The ridges between a pyramid's faces that show from above (vertex pairs of
# vision.geometry.model): an upright's four apex edges; a flat piece's top face.
RIDGES = {UPRIGHT: ((4, 0), (4, 1), (4, 2), (4, 3)), FLAT: ((3, 2), (3, 4), (2, 4))}
RIDGE_SIDE_MM = 1.5
RIDGE_SAMPLES = np.linspace(0.25, 0.75, 6)
# A flat hypothesis loses to an upright one at most RIDGE_SWAP_COST_MM costlier whose
# ridges show brightness steps (faces turned differently to the light) at least
# RIDGE_MARGIN (log) stronger, measured RIDGE_SIDE_MM either side of each ridge.
RIDGE_SWAP_COST_MM = 1.5
RIDGE_MARGIN = 0.15


def _ridge_contrast(fit: fitting.Fit, b: _Blob, origin_mm: np.ndarray, res: float, camera: np.ndarray) -> float:
    """Mean brightness step (log) across a hypothesis's visible ridges."""
    h = fit.hypothesis
    m = model(h.kind, h.size)  # type: ignore[arg-type]
    v = apparent_vertices(fit.params[None], m.offsets[None], m.heights[None], camera)[0]
    ridges = np.array(RIDGES[h.kind])
    a, c = v[ridges[:, 0]], v[ridges[:, 1]]
    d = c - a
    normal = np.column_stack([-d[:, 1], d[:, 0]]) / np.maximum(np.hypot(*d.T), 1e-9)[:, None] * RIDGE_SIDE_MM
    pts = a[:, None] + RIDGE_SAMPLES[None, :, None] * d[:, None]
    lum = b.lum
    steps = []
    for side in (1, -1):
        ij = np.round((pts + side * normal[:, None] - origin_mm) / res - 0.5).astype(int)
        ij = np.clip(ij, 0, np.array(lum.shape[::-1]) - 1)
        steps.append(lum[ij[..., 1], ij[..., 0]])
    return float(np.mean(np.median(np.abs(steps[0] - steps[1]), axis=1)))


def _ridges_decide(best: fitting.Fit, options: list[fitting.Fit], b: _Blob, grid: TableGrid,
                   camera: np.ndarray) -> fitting.Fit:
    """A flat piece, or an upright one with its shadow beside it? When the outlines
    nearly tie, the upright wins if its ridges show clearly better: a shadow has the
    outline of part of a flat piece but no faces turned differently to the light."""
    if best.hypothesis.kind != FLAT or b.dark:
        return best
    rival = next((f for f in options if f.hypothesis.kind == UPRIGHT), None)
    if rival is None or _cost(rival) > _cost(best) + RIDGE_SWAP_COST_MM or rival.iou < IOU_MIN:
        return best
    origin = grid.to_mm(b.origin_px[None])[0] - 0.5 * grid.res
    mine = _ridge_contrast(best, b, origin, grid.res, camera)
    theirs = _ridge_contrast(rival, b, origin, grid.res, camera)
    return rival if theirs > mine + RIDGE_MARGIN else best


def _tinted_shadow(fg: Foreground, box: tuple[int, int, int, int], inner: np.ndarray) -> np.ndarray:
    """Pixels of a blob's box that look like light through the piece falling on the
    table: darker than the bare table and with less than TINT_SHARE of the piece's hue
    change. The plastic filters all the light seen through it; its shadow is lit by the
    other lamps and the room as well, so the same tint comes diluted."""
    x, y, w, h = box
    hue = fg.hue[y:y + h, x:x + w]
    chroma = np.hypot(hue[..., 0], hue[..., 1])
    typical = float(np.median(chroma[inner])) if inner.any() else 0.0
    return (fg.lum[y:y + h, x:x + w] < SHADOW_DARKER) & (chroma < TINT_SHARE * typical)


def _model_mask(fit: fitting.Fit, shape: tuple[int, int], origin_mm: np.ndarray, res: float,
                camera: np.ndarray) -> np.ndarray:
    """A pyramid hypothesis's apparent silhouette drawn in a blob's box (bool)."""
    h = fit.hypothesis
    out = np.zeros(shape, np.uint8)
    poly = (silhouette(h.kind, h.size, fit.params, camera) - origin_mm) / res - 0.5  # type: ignore[arg-type]
    cv2.fillConvexPoly(out, np.round(poly * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    return out > 0


def _not_explaining_shadow(options: list[fitting.Fit], b: _Blob, grid: TableGrid,
                           camera: np.ndarray) -> fitting.Fit:
    """The cheapest hypothesis, unless what it covers beyond a smaller rival (another
    pose or size, nearly as good) is mostly tinted shadow: then the rival, whose
    silhouette holds the piece's plastic, is the piece and the rest its shadow. An upright
    piece and the coloured shadow beside it look like a flat piece pointing away from
    the lamp; a flat piece and its shadow like a bigger flat piece."""
    best = options[0]
    if best.hypothesis.kind == COIN or b.dark:
        return best
    origin = grid.to_mm(b.origin_px[None])[0] - 0.5 * grid.res
    shape = b.part.mask.shape
    grow = np.ones((2 * SHADOW_EDGE_PX + 1,) * 2, np.uint8)
    # the blob's rim mixes piece and table: neither plastic nor shadow
    drawn = _model_mask(best, shape, origin, grid.res, camera)
    cover = drawn & (cv2.erode(b.part.mask, grow) > 0)
    seen = set()
    for f in options[1:]:
        h = f.hypothesis
        key = (h.kind, h.size)
        if h.kind == COIN or key == (best.hypothesis.kind, best.hypothesis.size) or key in seen:
            continue
        seen.add(key)
        if _cost(f) > _cost(best) + SHADOW_SWAP_COST_MM or f.iou < IOU_MIN:
            continue
        inner = _model_mask(f, shape, origin, grid.res, camera)
        if np.count_nonzero(inner) >= np.count_nonzero(drawn):
            continue  # only a smaller rival can leave a shadow out
        beyond = cover & ~(cv2.dilate(inner.astype(np.uint8), grow) > 0)
        if np.count_nonzero(beyond) * grid.res ** 2 >= SHADOW_MIN_MM2 and \
                (np.mean(b.shadow[beyond]) >= SHADOW_SHARE or _paler_and_darker(b, beyond, inner & cover)):
            return f
    return best


def _paler_and_darker(b: _Blob, beyond: np.ndarray, core: np.ndarray) -> bool:
    """Is what lies beyond a rival's silhouette (`beyond`), taken as a whole, paler and
    darker than the plastic inside it (`core`)? Light through the piece falls on the
    table diluted by the other lamps and the room: a tinted shadow, not more plastic."""
    if not core.any():
        return False
    return bool(np.median(b.chroma[beyond]) < SHADOW_PALER * np.median(b.chroma[core])
                and np.median(b.lum[beyond]) < np.median(b.lum[core]) - SHADOW_DARKER_THAN_PIECE)


def _metallic(observed: np.ndarray) -> bool:
    """Could this be a coin? Polished metal mirrors the lamps and the room: bright in
    every channel, where coloured plastic absorbs at least one channel strongly."""
    return bool(np.min(observed) > METAL_LOG_MIN)


def _colour_of(pixels: np.ndarray, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A blob's colour (and the table's under it): the median of the pixels whose hue
    differs most from the bare table's. Faces mirroring a lamp or a window are paler
    than the plastic, and the blurred rim mixes in the table (which may itself be more
    saturated than the piece: blue plastic over orange wood looks greyish); the pixels
    where the plastic filters the table's light most carry its hue."""
    change = pixels - table
    sat = np.linalg.norm(change - change.mean(axis=1, keepdims=True), axis=1)
    keep = sat >= np.percentile(sat, SATURATED_PERCENTILE)
    return np.median(pixels[keep], axis=0), np.median(table[keep], axis=0)


def _outline(fit: fitting.Fit, camera: np.ndarray) -> Polygon:
    h = fit.hypothesis
    if h.kind == COIN:
        return Point(fit.params[:2]).buffer(h.coin.diameter / 2)  # type: ignore[union-attr]
    return Polygon(silhouette(h.kind, h.size, fit.params, camera))  # type: ignore[arg-type]


def _without_shadows(chosen: list, camera: np.ndarray) -> list:
    """Drop dark candidates touching a coloured piece: every shadow on the table touches
    the piece that casts it; black plastic touching a piece is lost with them."""
    lit = [_outline(best, camera) for b, best, _ in chosen if not b.dark]
    return [c for c in chosen if not c[0].dark
            or all(_outline(c[1], camera).distance(o) > SHADOW_TOUCH_MM for o in lit)]
