"""Shadows read as pieces: the picture's shadow direction from the pieces found, the
coloured candidates that are only the shadow of the piece they touch, and the dark ones
(see docs/detection.md, "How it works", step 5; the lamp itself and
the shadows it casts: vision.light, step 6).

A shadow lies on the side of its caster away from the lamp and starts at its base; in
one picture every shadow of one lamp points the same way. Light through translucent
plastic tints the shadow with the piece's hue, so a shadow beyond an upright can be cut
from the table as a blob of its own, fitted and coloured like a small piece. It differs
from a real neighbour in three ways at once: it lies where the caster's shadow falls,
it carries the caster's hue, and it is darker than the table and either paler than
the caster's plastic (the tint comes diluted by the other lights) or much darker than
it (the caster's lit faces mirror the lamps, its shadow gets none of them).
The same direction tells an upright with its shadow beside it from a flat piece.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import cv2
import numpy as np
from shapely.geometry import Polygon

from vision import fit as fitting
from vision.decide import (EDGE_SIDE_MM, IOU_MIN, SHADOW_EDGE_PX, SHADOW_SWAP_COST_MM, SHADOW_TOUCH_MM,
                           TIGHT_FIT_COST_MM, _model_mask, _outline, _outline_normals, _sample, cost, offset)
from vision.geometry import COIN, FLAT, UPRIGHT
from vision.mask_kernels import window_sums
from vision.medians import median
from vision.rectify import TableGrid

if TYPE_CHECKING:
    from vision.blobs import Blob

# Shade: darker than the table (log) by more than its texture and noise (~14 %).
SHADE_LOG = -0.15
# A dark candidate touching a coloured piece is its shadow, unless its model holds this
# share of the coloured piece's silhouette and fits tighter than the piece's own (see
# without_shadows). Without the second test, a shadow's upright a size up, fitted to the
# piece and its shadow together, held the piece and took its place: on Blender's Cycles
# 9200-9295, 5 medium uprights read large (their own models' cost 0.42-1.94 mm, the
# shadows' 1.58-2.53) and a small flat a medium upright, and on every set the piece's
# place moved to the worse fit (~40 times). With it: Cycles size 98.4 -> 98.8 %,
# position p95 1.63 -> 1.47 mm; the accuracy sets 216 -> 214 mistakes (a refracting-wall
# small flat no longer read a large upright, 9246); a refracting-wall green large
# upright whose lit faces read medium (9802) is still mended by it. Dropping the
# replacement instead reads the same but loses that one (and mends a held-out medium
# upright read large, 9622, whose own model fits worse, 1.91 against the shadow's 1.40).
ENCLOSED_SHARE = 0.9
# The dark candidate's upright is fitted to the faces it holds, so it sits off the piece
# away from the coloured face it left out: the coloured blob counts as held when it lies
# within this reach of the model (path-traced 9230: a green large upright, its model 3 mm
# off, holds 0.54 of the lit face's blob, 0.97 within 4 mm; the shadows beside pieces
# that touch a dark upright in A, held out, N, crowded and 36 path-traced scenes: 0.67
# at most).
ENCLOSED_REACH_MM = 4.0
# A dark candidate that covered no coloured blob (not `beside`, vision.segment) and
# touches the coloured pieces near it only off their shadow side is no shadow of theirs
# (a shadow starts at its caster's base, on the side away from the lamp) when its model
# lies on them over less than OFF_SHADOW_SIDE_OVERLAP of its area and fits its outline
# as a whole piece does (under decide.TIGHT_FIT_COST_MM): a dark piece beside them
# (green on green felt, black). Measured over A, held out, N, 9000-9009, crowded and the
# 66 path-traced scenes with both wall models: of the 259 dark candidates dropped as a
# touching piece's shadow, 9 were neither beside nor on a shadow side: 7 whole pieces
# missed because of it (models on the pieces 0.00; costs 0.96-1.21 but two, 1.84 and
# 2.17), 2 shadows of a second lamp overlapping their caster's model by 0.24 and 0.48.
# Over 15 tables with a hand held above them, the hand's shadow beside pieces makes such
# candidates too, fitting loosely (1.61-2.12 but one, 1.40).
OFF_SHADOW_SIDE_OVERLAP = 0.1
# The shade around a piece that is its own shadow: within this many mm of its centre
# (a large upright's shadow under a lamp 45° high reaches ~40 mm) ...
SHADE_REACH_MM = 40.0
# ... and at least this many pixels of it (mm²), or the piece says nothing of the lamp.
SHADE_MIN_MM2 = 20.0
# A candidate lies on its neighbour's shadow side when the direction from the neighbour
# to it is within ~45° of the picture's shadow direction (cosine).
SHADOW_SIDE_COS = 0.7
# A tinted shadow's hue change points the same way as its caster's (cosine) ...
SAME_TINT_COS = 0.8
# ... and is under CAST_PALER of it: its light passed through the plastic once, the
# plastic is seen through twice (down to the table and back up), so a shadow has at
# most about half the hue change, less where other lights dilute it; the margin is for
# plastic made paler by what its faces mirror. A neighbour of the same colour is
# rarely that much paler.
CAST_PALER = 0.7
# ... and it is darker (log, ~26 %) than the caster's plastic when not paler.
DARKER_THAN_CASTER = 0.3
# An upright beats a flat winner when what the flat covers beyond it (at least
# BEYOND_MIN_MM2, past the blurred rim) lies on its shadow side, darker than the table,
# and is darker than the plastic inside it by BEYOND_DARKER (log, ~10 %), or darker at
# all and paler than CAST_PALER of its hue change, or the hue change does not fade
# outwards: a flat piece's tail is the same plastic as its nose, an upright's shadow is
# darker than the upright, and tinted by light that crossed the plastic once where the
# plastic is seen through twice. Fading: a flat piece's hue change falls from its
# raised tail (the most plastic in the way) towards its thin nose, so across an upright
# rival's outline inside the flat it falls outwards; an upright's steep faces mirror the
# table and dilute its hue, and its shadow starts at its base with the lamp's full tint,
# so there it does not (an upright's shadow can be as tinted as its faces, and brighter).
BEYOND_MIN_MM2 = 8.0
BEYOND_DARKER = 0.1
# Pixels eroded off a blob before its typical darkening and hue: the rim mixes in the table.
ERODE_PX = 2
# A coin lies flat (~1.5 mm thick) and casts no shadow beyond its rim; an upright piece
# stands 20-45 mm tall and its shadow starts at its base. A coin winner loses to an
# upright at most COIN_SWAP_COST_MM costlier if the table COIN_BAND_MM beyond its rim,
# in a fan of ±COIN_FAN_DEG about the shadow direction, is darker (median log) than the
# same fan on the lamp side by COIN_SHADE_STEP (~8 %, beyond the table's texture in a
# median of many points): a penny's copper and a small red upright mirroring the lamps
# can have the same colour and outline, but only one of them stands up.
COIN_SWAP_COST_MM = 1.5
COIN_BAND_MM = np.linspace(2.0, 8.0, 7)
COIN_FAN_DEG = np.linspace(-40.0, 40.0, 9)
COIN_SHADE_STEP = 0.08


def shadow_direction(lum: np.ndarray, pieces: np.ndarray, centres_px: np.ndarray, res: float) -> np.ndarray | None:
    """The picture's dominant shadow direction (unit vector, grid axes = table axes), or
    None: the mean over pieces of the direction from each piece's centre to the shade
    (pixels darker than the table, not on a piece) around it. `pieces` marks the
    coloured pieces' pixels, `centres_px` their centres (grid pixels).

    >>> lum = np.zeros((60, 60), np.float32); lum[25:36, 35:50] = -0.5   # shade to the right
    >>> pieces = np.zeros((60, 60), bool); pieces[25:36, 25:35] = True
    >>> shadow_direction(lum, pieces, np.array([[30, 30]]), 1.0).round(2)
    array([1., 0.])
    """
    reach = int(round(SHADE_REACH_MM / res))
    units = []
    centres = np.round(centres_px).astype(np.int64)
    # each window's shade: its count and its pixels' column and row sums (compiled)
    sums = np.empty((len(centres), 3), np.int64)
    window_sums(lum, lum.dtype.type(SHADE_LOG), pieces, centres, reach, sums)
    for (col, row), (count, sum_x, sum_y) in zip(centres, sums):
        y0, x0 = max(row - reach, 0), max(col - reach, 0)
        if count * res * res < SHADE_MIN_MM2:
            continue
        v = np.array([sum_x / count + x0 - col, sum_y / count + y0 - row])
        norm = np.hypot(*v)
        if norm > 0:
            units.append(v / norm)
    if not units:
        return None
    mean = np.sum(units, axis=0)
    norm = np.hypot(*mean)
    return mean / norm if norm > 0 else None


def _touches_on_shadow_side(b: Blob, lit: list[Blob], direction: np.ndarray | None, grid: TableGrid) -> bool:
    """Does blob `b` touch one of the `lit` blobs (within SHADOW_TOUCH_MM) on its shadow
    side (`direction`; always, when it is unknown)?"""
    if direction is None:
        return True
    v = b.centre_px - np.array([o.centre_px for o in lit]).reshape(-1, 2)
    side = v @ direction > SHADOW_SIDE_COS * np.hypot(v[:, 0], v[:, 1])
    mine = _blob_polygon(b, grid)
    return any(s and mine.distance(_blob_polygon(o, grid)) <= SHADOW_TOUCH_MM for s, o in zip(side, lit))


def _pieces(chosen: list) -> list[int]:
    """Indices of the coloured pyramids among the decided candidates."""
    return [k for k, (b, best, _) in enumerate(chosen) if not b.dark and best.hypothesis.kind != COIN]


def picture_direction(found: list[Blob], lum: np.ndarray, res: float) -> np.ndarray | None:
    """shadow_direction from the coloured blobs and the picture's darkening against the
    table on the grid."""
    pieces = np.zeros(lum.shape, bool)
    centres = []
    for b in found:
        if b.dark or b.part.dark:
            continue
        (x, y), (h, w) = b.origin_px, b.part.mask.shape
        pieces[y:y + h, x:x + w] |= b.part.mask > 0
        centres.append(b.centre_px)
    return shadow_direction(lum, pieces, np.array(centres), res) if centres else None


def _tint(b: Blob) -> tuple[float, float, np.ndarray]:
    """A blob's typical hue change (median chroma), darkening (median log) and mean hue
    vector, on its pixels away from the rim."""
    inner = cv2.erode(b.part.mask, np.ones((2 * ERODE_PX + 1,) * 2, np.uint8)) > 0
    if np.count_nonzero(inner) < 10:
        inner = b.part.mask > 0
    return float(median(b.chroma[inner])), float(median(b.lum[inner])), b.hue[inner].mean(axis=0)


def is_cast_shadow(shadow: tuple, caster: tuple, towards: np.ndarray, direction: np.ndarray) -> bool:
    """Is a candidate (its _tint) the shadow of the piece it touches (its _tint), lying
    `towards` (unit vector from the caster's centre to its own) in a picture whose
    shadows point along `direction`?"""
    (chroma, lum, hue), (c_chroma, c_lum, c_hue) = shadow, caster
    same_tint = float(hue @ c_hue) > SAME_TINT_COS * np.hypot(*hue) * np.hypot(*c_hue)
    return bool(float(towards @ direction) > SHADOW_SIDE_COS and same_tint and lum < 0
                and (chroma < CAST_PALER * c_chroma or lum < c_lum - DARKER_THAN_CASTER))


def without_cast_shadows(chosen: list, grid: TableGrid, camera: np.ndarray, direction: np.ndarray | None,
                         ridged: Callable[[set[int]], set[int]] = lambda rows: set()) -> list:
    """Drop coloured candidates that are the tinted shadow of a piece they touch, unless
    their model fits them as tightly as a whole piece (under TIGHT_FIT_COST_MM) or their
    edges and ridges step like a piece's (`ridged`: of the indices about to be dropped,
    those, as vision.edges.ridged; asked only when some are): a piece standing in its
    neighbour's shadow is as dark and pale as one. Of the candidates
    this check dropped over our renders (A, held out, N, 9000-9009, crowded, ten colours,
    Rainbow, light cloth, glassy, filmic, hands) and 66 path-traced scenes with both wall
    models, the 11 that were whole pieces fitted at 0.39-3.04 mm (5 under 1.5), the 8
    shadows at 1.54-2.74."""
    if direction is None:
        return chosen
    lit = _pieces(chosen)
    if len(lit) < 2:
        return chosen
    outlines = [_outline_mm(chosen[k][0], grid) for k in lit]
    centres = grid.to_mm(np.array([chosen[k][0].centre_px for k in lit]))
    reach = np.array([np.max(np.hypot(*(o - c).T)) for o, c in zip(outlines, centres)])
    # pairs (shadow, caster) whose blobs can touch, the shadow on the caster's shadow side
    v = centres[:, None] - centres[None]
    norm = np.hypot(v[..., 0], v[..., 1])
    near = (v @ direction > SHADOW_SIDE_COS * norm) & (norm > 0) & \
        (norm <= reach[:, None] + 2 * reach[None] + SHADOW_TOUCH_MM)
    tints: dict = {}
    drop = set()
    for a, c in zip(*np.nonzero(near)):
        if a in drop or cost(chosen[lit[a]][1]) < TIGHT_FIT_COST_MM:
            continue
        for i in (a, c):
            if i not in tints:
                tints[i] = _tint(chosen[lit[i]][0])
        if not is_cast_shadow(tints[a], tints[c], v[a, c] / norm[a, c], direction):
            continue
        # a shadow starts at its caster's base: the shadow's blob (as cut from the table)
        # touches the caster's blob or fitted silhouette
        blob = Polygon(outlines[a])
        if min(blob.distance(Polygon(outlines[c])), blob.distance(_outline(chosen[lit[c]][1], camera))) <= SHADOW_TOUCH_MM:
            drop.add(a)
    drop = {lit[a] for a in drop}
    if drop:
        drop -= ridged(drop)
    return [c for k, c in enumerate(chosen) if k not in drop]


def shadow_side_decide(best: fitting.Fit, options: list[fitting.Fit], b: Blob, grid: TableGrid,
                       camera: np.ndarray, direction: np.ndarray | None) -> fitting.Fit:
    """A flat piece, or an upright one with its shadow beside it, tinted as strongly as
    the plastic (which the tinted-shadow test of vision.decide misses)? The upright, if
    nearly as good, when what the flat covers beyond it lies on its shadow side and is
    darker than the table, and either darker than the upright's plastic (clearly, or at
    all if paler) or the hue change does not fade outwards across the upright's outline;
    but not against a flat that fits its outline tightly (under TIGHT_FIT_COST_MM), a
    flat piece's rigid shape: of the flat winners this check turned into uprights over
    our renders (A, held out, N, 9000-9009, crowded) and 66 path-traced scenes with both
    wall models, the 15 that were flat pieces fitted at 0.35-1.93 mm (10 under 1.5), the
    17 that were uprights at 1.28-2.73 (2 under 1.5). `options` sorted by cost."""
    if best.hypothesis.kind != FLAT or b.dark or direction is None or cost(best) < TIGHT_FIT_COST_MM:
        return best
    origin = grid.corner_mm(b.origin_px)
    shape = b.part.mask.shape
    grow = np.ones((2 * SHADOW_EDGE_PX + 1,) * 2, np.uint8)
    cover = None
    for f in options:
        if f.hypothesis.kind != UPRIGHT or f.iou < IOU_MIN:
            continue
        if cost(f) > cost(best) + SHADOW_SWAP_COST_MM:
            break
        if cover is None:
            cover = _model_mask(best, shape, origin, grid.res, camera) & (cv2.erode(b.part.mask, grow) > 0)
        inner = _model_mask(f, shape, origin, grid.res, camera)
        beyond = cover & ~(cv2.dilate(inner.astype(np.uint8), grow) > 0)
        core = inner & cover
        if np.count_nonzero(beyond) * grid.res ** 2 < BEYOND_MIN_MM2 or not core.any():
            continue
        v = offset(inner, beyond)
        dark, plastic = float(median(b.lum[beyond])), float(median(b.lum[core]))
        paler = float(median(b.chroma[beyond])) < CAST_PALER * float(median(b.chroma[core]))
        if float(v @ direction) > SHADOW_SIDE_COS * np.hypot(*v) and dark < 0 \
                and (dark < plastic - BEYOND_DARKER
                     or (paler and dark < plastic) or not fades_outwards(f, b, cover, origin, grid.res, camera)):
            return f
    return best


def fades_outwards(f: fitting.Fit, b: Blob, cover: np.ndarray, origin: np.ndarray, res: float,
                   camera: np.ndarray) -> bool:
    """Does the hue change fall outwards across an upright hypothesis's outline where
    that outline lies inside a flat winner (`cover`)?"""
    pts, normal = _outline_normals(f, camera)
    inside, outside = pts - EDGE_SIDE_MM * normal, pts + EDGE_SIDE_MM * normal
    within = (_sample(cover, inside, origin, res) & _sample(cover, outside, origin, res)).astype(bool)
    if not within.any():
        return True
    return float(np.mean(_sample(b.chroma, outside[within], origin, res) - _sample(b.chroma, inside[within], origin, res))) < 0


def shade_step(centre: np.ndarray, radius: float, b: Blob, grid: TableGrid, direction: np.ndarray) -> float:
    """How much darker (median log) the table is just beyond a disc (`centre`, `radius`,
    mm) on the picture's shadow side than on its lamp side."""
    origin = grid.corner_mm(b.origin_px)
    fan = np.arctan2(direction[1], direction[0]) + np.radians(COIN_FAN_DEG)
    sides = []
    for turn in (0.0, np.pi):
        unit = np.column_stack([np.cos(fan + turn), np.sin(fan + turn)])
        pts = centre + (radius + COIN_BAND_MM)[:, None, None] * unit[None]
        sides.append(float(median(_sample(b.lum, pts.reshape(-1, 2), origin, grid.res))))
    return sides[1] - sides[0]


def stands_decide(best: fitting.Fit, options: list[fitting.Fit], b: Blob, grid: TableGrid,
                  direction: np.ndarray | None) -> fitting.Fit:
    """A coin, or an upright piece that looks like one? The upright, if nearly as good,
    when the table beyond the disc is darker on the shadow side than on the lamp side.
    `options` sorted by cost."""
    if best.hypothesis.kind != COIN or b.dark or direction is None:
        return best
    rival = next((f for f in options if f.hypothesis.kind == UPRIGHT and f.iou >= IOU_MIN), None)
    if rival is None or cost(rival) > cost(best) + COIN_SWAP_COST_MM:
        return best
    radius = best.hypothesis.coin.diameter / 2  # type: ignore[union-attr]
    return rival if shade_step(best.params[:2], radius, b, grid, direction) > COIN_SHADE_STEP else best


def _outline_mm(b: Blob, grid: TableGrid) -> np.ndarray:
    """A blob's outline (its part's, M×2) in table mm."""
    return grid.corner_mm(b.origin_px) + (b.part.outline + 0.5) * grid.res


def _blob_polygon(b: Blob, grid: TableGrid) -> Polygon:
    """A blob's outline in table mm, as a polygon."""
    return Polygon(_outline_mm(b, grid)).buffer(0)


def without_shadows(chosen: list, camera: np.ndarray, ridged: set[int] = frozenset(),
                    grid: TableGrid | None = None, direction: np.ndarray | None = None) -> list:
    """Drop dark candidates touching a coloured piece: every shadow on the table touches
    the piece that casts it; black plastic touching a piece is lost with them, unless its
    index is in `ridged` (an upright whose edges step as a pyramid's do, which a shadow's
    soft outline does not) and it is not a candidate that also covered a coloured blob
    (`beside`, vision.segment) lying on that blob's shadow side (`direction`: the
    picture's shadow direction; a shadow touching its piece has that piece's edges
    along their border), and unless it lies off their shadow side, covering no coloured
    blob and fitting a pyramid tightly (_off_shadow_side: a dark piece beside them; a
    shadow starts at its caster's base, away from the lamp). But a shadow lies beside
    its piece, never around it: a dark candidate best explained by an upright piece
    whose silhouette holds one coloured piece's (ENCLOSED_SHARE of its model, or with
    `grid` given, of its blob within ENCLOSED_REACH_MM), and fits tighter than that
    piece's own model (`decide.cost`), is that piece, seen by faces that pass its light
    with little hue left (the hue only where the lamp comes through them): its model,
    the coloured blob's colour. A piece that its own model fits tighter is whole, and
    the dark candidate its shadow, which an upright a size up, fitted to piece and
    shadow together, also holds. (A dark blob explained by a flat piece may be only
    some faces of an upright: no such help.)"""
    if not any(b.dark for b, _, _ in chosen):
        return list(chosen)   # nothing to drop: the pieces' outlines are not drawn
    lit = [(k, _outline(best, camera)) for k, (b, best, _) in enumerate(chosen) if not b.dark]
    lit_blobs = [chosen[k][0] for k, _ in lit]
    out = list(chosen)
    dropped = set()

    def holds(mine: Polygon, k: int, model: Polygon) -> bool:
        if mine.area <= model.area:
            return False
        if mine.intersection(model).area >= ENCLOSED_SHARE * model.area:
            return True
        if grid is None:
            return False
        blob = _blob_polygon(chosen[k][0], grid)
        return blob.area > 0 and mine.buffer(ENCLOSED_REACH_MM).intersection(blob).area >= ENCLOSED_SHARE * blob.area

    for j, c in enumerate(chosen):
        if not c[0].dark or (j in ridged and not (c[0].beside and grid is not None
                                                  and _touches_on_shadow_side(c[0], [chosen[k][0] for k, _ in lit], direction, grid))):
            continue
        mine = _outline(c[1], camera)
        near = [(k, o) for k, o in lit if mine.distance(o) <= SHADOW_TOUCH_MM]
        if not near or _off_shadow_side(c, mine, [o for _, o in near], lit_blobs, grid, direction):
            continue
        dropped.add(j)
        held = [k for k, o in near if holds(mine, k, o) and cost(c[1]) < cost(chosen[k][1])]
        if len(held) == 1 and c[1].hypothesis.kind == UPRIGHT:
            k = held[0]
            out[k] = (chosen[k][0], c[1], c[2])
    return [c for j, c in enumerate(out) if j not in dropped]


def _off_shadow_side(candidate: tuple, mine: Polygon, near: list[Polygon], lit: list[Blob], grid: TableGrid | None,
                     direction: np.ndarray | None) -> bool:
    """Is a dark candidate (blob, fit, gap; its model's outline `mine`, touching the
    coloured pieces' outlines `near`) no shadow of theirs: it covered no coloured blob,
    fits its outline as a whole piece does, touches none of the `lit` blobs on their
    shadow side, and its model lies on theirs over less than OFF_SHADOW_SIDE_OVERLAP of
    its area? (Never when the shadow direction is unknown.)"""
    b, fit, _ = candidate
    if b.beside or grid is None or direction is None or cost(fit) >= TIGHT_FIT_COST_MM \
            or _touches_on_shadow_side(b, lit, direction, grid):
        return False
    return sum(mine.intersection(o).area for o in near) < OFF_SHADOW_SIDE_OVERLAP * mine.area
