"""The decision: which fitted hypothesis each blob is, by physical checks that overrule a
near tie of the outline fit (see docs/detection.md, "How it works", step 5).

Every hypothesis of a blob is fitted (vision.fit); `cost` ranks them; the checks here
then look at the picture itself inside and around the competing silhouettes: a tinted
shadow beside a piece, ridges between faces turned differently to the light. Dark
hueless candidates touching a piece are its shadow; only bright metal can be a coin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np
from shapely.geometry import Point, Polygon

from domain import Size
from vision import fit as fitting
from vision import mask_kernels
from vision.geometry import COIN, FLAT, UPRIGHT, apparent_vertices, following, model, preceding, silhouette
from vision.medians import median
from vision.rectify import TableGrid

if TYPE_CHECKING:
    from vision.blobs import Blob

# A blob is reported only if some model's silhouette covers it this well (IoU): a real
# piece scores above ~0.85; shadows, hands and table marks score far lower.
IOU_MIN = 0.6
# Hypotheses are ranked by cost = robust RMS outline distance (mm) + IOU_COST_MM·(1 − IoU):
# the outline pins the shape, the overlap the area (a blurred 14 mm square is nearly as
# round as a coin, but not as big).
IOU_COST_MM = 5.0
# Darkest channel (log relative to paper white) of a coin: copper and nickel reflect
# more than half of every colour; translucent plastic passes under a third of some. On
# the coin renders used in developing vision.coins (7900-7919) coins' darkest channels
# are -0.84 or more, plastic's -1.04 or less: the middle of that gap, so that where the
# paper is clipped its level's estimate (calibration.white_balance, a few % off) does
# not decide (at -0.9, a held-out penny of 7926 at -0.939 was lost to it).
METAL_LOG_MIN = -0.94
# A dark candidate closer than this (mm) to a coloured piece is taken for its shadow.
SHADOW_TOUCH_MM = 3.0
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
# ... and only if that area lies on the rival's shadow side, when the picture's shadow
# direction is known: the direction from the rival's centre to it within ~60° of it
# (cosine; wider than for a whole shadow, since part of one may already lie under the
# rival's silhouette). A shadow falls away from the lamp; tinted light beside the
# piece, across the light, is more of the piece.
BEYOND_SIDE_COS = 0.5
# ... and only if the rival lies within the winner's silhouette, reaching beyond it over
# less than RIVAL_OUTSIDE_MM2 of the blob (past the blurred rim): the piece inside its
# shadow-grown blob is inside the model that explains both; a rival reaching out into the
# blob elsewhere (a flat's nose into an upright's shadow) covers shadow itself.
RIVAL_OUTSIDE_MM2 = 10.0


_SIZES = list(Size)


def next_upright_size(hyps: list[fitting.Hypothesis],
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


def cost(f: fitting.Fit) -> float:
    return f.rms + IOU_COST_MM * (1.0 - f.iou)


# The ridges between a pyramid's faces that show from above (vertex pairs of
# vision.geometry.model): an upright's four apex edges; a flat piece's top face.
RIDGES = {UPRIGHT: ((4, 0), (4, 1), (4, 2), (4, 3)), FLAT: ((3, 2), (3, 4), (2, 4))}
# A ridge's brightness step (faces turned differently to the light) is measured
# RIDGE_SIDE_MM either side of it, along its middle half.
RIDGE_SIDE_MM = 1.5
RIDGE_SAMPLES = np.linspace(0.25, 0.75, 6)
# The edge steps (vision.edge_steps) rule out a rival whose best outline costs more than
# this (mm) over the winner's: the near tie within which a picture's steps may overrule
# the outline. Until 2026-11-27 the rival's costliest fit of its size and pose was
# compared, at 1.5 mm: a green medium flat on felt whose blob left its faint nose out
# (held out 9600) lost to an upright although its tail-first fit was within 0.8 mm and
# its edges 2.3 times the winner's. Compared by the cheapest fit, the tie was measured
# again over A, held out, N, T, crowded and both path-traced wall models (mistakes,
# 336 before): 1.0 mm 347, 1.25 337, 1.5 338, 1.75 335, 2.0 334, 2.5 336, 3.0 336: a
# flat optimum; from 1.75 the demo footage's green large flat (frame 28) reads medium.
# (It was also the reach of a check on ridges alone, a flat winner against an
# upright whose ridges stepped 0.15 log more: over our renders and 66 path-traced
# scenes with both wall models it mended 2 pieces and broke 2; without it, A 9201's
# blue flat and its path-traced twin are read right, and nothing else changes.)
RIDGE_SWAP_COST_MM = 1.5
# A pyramid's outline is a rigid shape its model lays close to; a shadow, or an upright
# and its shadow, make blobs as long as the lamp makes them, shaped like a piece only
# roughly. A candidate whose model fits its outline at a cost (mm) under TIGHT_FIT_COST_MM
# is that piece for the checks that would take it for a shadow, or for an upright and its
# shadow (vision.shadows: the dark candidates off a piece's shadow side, the tinted cast
# shadows, shadow_side_decide; vision.edge_steps, a flat along the shadows). Measured
# where each is said.
TIGHT_FIT_COST_MM = 1.5


def _ridge_contrast(fit: fitting.Fit, b: Blob, origin_mm: np.ndarray, res: float, camera: np.ndarray) -> float:
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


# A hypothesis's apparent outline is sampled at EDGE_POINTS points, the picture read
# EDGE_SIDE_MM either side of it: past the blurred rim, on the plastic and on the table.
EDGE_SIDE_MM = 1.5
EDGE_POINTS = 96


def _outline_normals(fit: fitting.Fit, camera: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """EDGE_POINTS points evenly spaced along a pyramid hypothesis's apparent outline
    (mm) and the outward unit normal at each."""
    pts = fitting.perimeter_points([outline_of(fit, camera)], EDGE_POINTS)[0]
    tangent = following(pts) - preceding(pts)
    normal = np.column_stack([tangent[:, 1], -tangent[:, 0]]) / np.maximum(np.hypot(*tangent.T), 1e-9)[:, None]
    normal *= np.sign(np.sum(normal * (pts - pts.mean(axis=0)), axis=1))[:, None]  # outwards: the outline is convex
    return pts, normal


def _sample(picture: np.ndarray, pts: np.ndarray, origin_mm: np.ndarray, res: float) -> np.ndarray:
    """A blob box's picture at table points (nearest pixel, clipped to the box)."""
    ij = np.clip(np.round((pts - origin_mm) / res - 0.5).astype(int), 0, np.array(picture.shape[1::-1]) - 1)
    return picture[ij[..., 1], ij[..., 0]]


# An upright winner loses to the next bigger upright at most FACE_SWAP_COST_MM costlier if,
# where the bigger one's outline lies beyond the winner's (by FACE_APART_MM), the picture
# steps there on average (log, measured EDGE_SIDE_MM either side): darker just inside by
# FACE_DARKER (~12 %) — a shaded face of translucent plastic can be barely darker than
# the table, too faint for the blob, but it ends at the base's edge with a step to the
# lit table — or darker just outside by SHADOW_STARTS (~20 %) — the piece's shadow starts
# at its base, so a strip of face between the winner and its shadow is more piece. A
# shadow runs on past where a bigger model would end, and bare table has no step.
FACE_SWAP_COST_MM = 1.5
FACE_APART_MM = 1.0
FACE_DARKER = 0.12
SHADOW_STARTS = 0.2


def _signed_distance(pts: np.ndarray, poly: np.ndarray) -> np.ndarray:
    """Signed distance (mm, positive outside) of points to a convex polygon."""
    edge = following(poly) - poly
    normal = np.column_stack([edge[:, 1], -edge[:, 0]]) / np.maximum(np.hypot(*edge.T), 1e-9)[:, None]
    normal *= np.sign(np.sum(normal * (poly - poly.mean(axis=0)), axis=1))[:, None]
    return np.max(pts @ normal.T - np.sum(poly * normal, axis=1), axis=1)


def faces_decide(best: fitting.Fit, options: list[fitting.Fit], b: Blob, grid: TableGrid,
                 camera: np.ndarray) -> fitting.Fit:
    """An upright piece, or a bigger one whose shaded faces the blob missed? `options`
    sorted by cost."""
    h = best.hypothesis
    if h.kind != UPRIGHT or b.dark or _SIZES.index(h.size) + 1 >= len(_SIZES):  # type: ignore[arg-type]
        return best
    bigger = _SIZES[_SIZES.index(h.size) + 1]  # type: ignore[arg-type]
    rival = next((f for f in options if (f.hypothesis.kind, f.hypothesis.size) == (UPRIGHT, bigger)), None)
    if rival is None or cost(rival) > cost(best) + FACE_SWAP_COST_MM or rival.iou < IOU_MIN:
        return best
    origin = grid.corner_mm(b.origin_px)
    step = _step_beyond(rival, outline_of(best, camera), b, origin, grid.res, camera)
    if step is None:
        return best
    return rival if step > FACE_DARKER or step < -SHADOW_STARTS else best


def _step_beyond(rival: fitting.Fit, winner: np.ndarray, b: Blob, origin_mm: np.ndarray, res: float,
                 camera: np.ndarray) -> float | None:
    """Mean brightness step (log, outside minus inside, EDGE_SIDE_MM either side) across
    a bigger rival's apparent outline where it lies beyond the winner's silhouette
    (`winner`, by FACE_APART_MM); None where it nowhere does."""
    pts, normal = _outline_normals(rival, camera)
    beyond = _signed_distance(pts, winner) > FACE_APART_MM
    if not beyond.any():
        return None
    inside, outside = (_sample(b.lum, pts[beyond] + side * EDGE_SIDE_MM * normal[beyond], origin_mm, res)
                       for side in (-1, 1))
    return float(np.mean(outside - inside))


# With the base-edge step as a second, independent test, the upright's ridges need to
# beat the flat's only by the ridges' sampling noise (log); the flat's one ridge often
# lies on one of the upright's, between a dark face and a lit one.
DARK_FACES_RIDGE_MARGIN = 0.05
# ... and the upright's outline may be costlier by less than a bigger upright's against an
# upright winner (FACE_SWAP_COST_MM): over our sets and both path-traced wall models the
# switches made at the last reading were right at 0.21-0.81 mm costlier (4) and wrong at
# 1.02 and 1.08 (thick-walled red flats' dark tails taken for shaded faces). At 1.2 the
# second (9225) reads right and nothing else changes; at 0.9 the first too, but a
# path-traced red upright (9217) is lost.
DARK_FACES_SWAP_COST_MM = 1.2


def dark_faces_decide(best: fitting.Fit, options: list[fitting.Fit], b: Blob, grid: TableGrid,
                      camera: np.ndarray) -> fitting.Fit:
    """A flat piece, or a bigger upright whose darkest faces the blob missed? Faces seen
    through the plastic at a steep angle can be nearly black and hueless (physically
    based renders): taken for shadow, they leave the lit faces, which look like a
    smaller flat piece. The cheapest bigger upright at most DARK_FACES_SWAP_COST_MM costlier
    wins if where its outline lies beyond the flat's the picture is darker just inside
    by FACE_DARKER (a face ends at the base's edge, on lit table) and its ridges show
    steps DARK_FACES_RIDGE_MARGIN stronger than the flat's: a flat's own shadow also
    ends in a step, but only faces meeting at the apex make the upright's ridges.
    `options` sorted by cost."""
    h = best.hypothesis
    if h.kind != FLAT or b.dark:
        return best
    size = _SIZES.index(h.size)  # type: ignore[arg-type]
    origin = grid.corner_mm(b.origin_px)
    mine = outline_of(best, camera)
    for f in options:
        fh = f.hypothesis
        if fh.kind != UPRIGHT or _SIZES.index(fh.size) <= size or f.iou < IOU_MIN \
                or cost(f) > cost(best) + DARK_FACES_SWAP_COST_MM:  # type: ignore[arg-type]
            continue
        step = _step_beyond(f, mine, b, origin, grid.res, camera)
        if step is not None and step > FACE_DARKER and \
                _ridge_contrast(f, b, origin, grid.res, camera) > _ridge_contrast(best, b, origin, grid.res, camera) + DARK_FACES_RIDGE_MARGIN:
            return f
    return best


def tinted_shadow(lum: np.ndarray, chroma: np.ndarray, inner: np.ndarray,
                  percentile: float | None = None) -> np.ndarray:
    """Pixels of a blob's box (its darkening `lum` and hue change `chroma` against the
    table) that look like light through the piece falling on the table: darker than the
    bare table and with less than TINT_SHARE of the piece's hue change (its median over
    `inner`, or that `percentile` of it). The plastic filters all the light seen through
    it; its shadow is lit by the other lamps and the room as well, so the same tint comes
    diluted."""
    if not inner.any():
        typical = 0.0
    else:
        typical = float(median(chroma[inner]) if percentile is None else np.percentile(chroma[inner], percentile))
    return (lum < SHADOW_DARKER) & (chroma < TINT_SHARE * typical)


def _model_mask(fit: fitting.Fit, shape: tuple[int, int], origin_mm: np.ndarray, res: float,
                camera: np.ndarray) -> np.ndarray:
    """A pyramid hypothesis's apparent silhouette drawn in a blob's box (bool, not to be
    written into): as the fit drew it, if it did in this box."""
    # (the corners compared coordinate by coordinate: np.array_equal costs ~3 µs a call;
    # the kept layer is 0/1, so a bool view of it, not a comparison's copy)
    if fit.drawn is not None and fit.drawn[1].shape == shape \
            and fit.drawn[0][0] == origin_mm[0] and fit.drawn[0][1] == origin_mm[1]:
        return fit.drawn[1].view(bool)
    return polygon_mask(outline_of(fit, camera), shape, origin_mm, res)


def outline_of(fit: fitting.Fit, camera: np.ndarray) -> np.ndarray:
    """A pyramid hypothesis's apparent outline (geometry.silhouette): the fit's, if kept."""
    if fit.outline is not None:
        return fit.outline
    h = fit.hypothesis
    return silhouette(h.kind, h.size, fit.params, camera)  # type: ignore[arg-type]


def polygon_mask(poly_mm: np.ndarray, shape: tuple[int, int], origin_mm: np.ndarray, res: float) -> np.ndarray:
    """A convex polygon (table mm) drawn in a blob's box (bool), to 1/16 of a pixel."""
    out = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(out, np.round(((poly_mm - origin_mm) / res - 0.5) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    return out > 0


def not_explaining_shadow(options: list[fitting.Fit], b: Blob, grid: TableGrid,
                           camera: np.ndarray, direction: np.ndarray | None) -> fitting.Fit:
    """The cheapest hypothesis, unless what it covers beyond a smaller rival (another
    pose or size, nearly as good) is mostly tinted shadow: then the rival, whose
    silhouette holds the piece's plastic, is the piece and the rest its shadow (on its
    shadow side, when the picture's shadow `direction` is known). Of several such rivals
    (every fitted start counts: a size's cheapest start may point the wrong way), the
    one whose silhouette leaves out the most tinted-shadow pixels. An upright piece and the coloured
    shadow beside it look like a flat piece pointing away from the lamp; a flat piece
    and its shadow like a bigger flat piece."""
    best = options[0]
    if best.hypothesis.kind == COIN or b.dark:
        return best
    mine = (best.hypothesis.kind, best.hypothesis.size)
    rivals = [f for f in options[1:] if f.hypothesis.kind != COIN and (f.hypothesis.kind, f.hypothesis.size) != mine
              and not (cost(f) > cost(best) + SHADOW_SWAP_COST_MM or f.iou < IOU_MIN)]
    if not rivals:   # (half the blobs: their masks are not drawn)
        return best
    origin = grid.corner_mm(b.origin_px)
    shape = b.part.mask.shape
    grow = np.ones((2 * SHADOW_EDGE_PX + 1,) * 2, np.uint8)
    # the blob's rim mixes piece and table: neither plastic nor shadow
    drawn = _model_mask(best, shape, origin, grid.res, camera)
    cover = drawn & (cv2.erode(b.part.mask, grow) > 0)
    past = (b.part.mask > 0) & ~(cv2.dilate(drawn.astype(np.uint8), grow) > 0)  # the blob beyond the winner
    chosen, most = best, -1
    for f in rivals:
        inner = _model_mask(f, shape, origin, grid.res, camera)
        if np.count_nonzero(inner) >= np.count_nonzero(drawn):
            continue  # only a smaller rival can leave a shadow out
        beyond = cover & ~(cv2.dilate(inner.astype(np.uint8), grow) > 0)
        if np.count_nonzero(inner & past) * grid.res ** 2 >= RIVAL_OUTSIDE_MM2:
            continue  # reaching out of the winner into the blob, the rival covers shadow itself
        if direction is not None and beyond.any():
            v = offset(inner, beyond)
            if float(v @ direction) <= BEYOND_SIDE_COS * np.hypot(*v):
                continue
        if np.count_nonzero(beyond) * grid.res ** 2 < SHADOW_MIN_MM2:
            continue
        left_out = int(np.count_nonzero(b.shadow[beyond]))
        if left_out > most and (left_out >= SHADOW_SHARE * np.count_nonzero(beyond)
                                or _paler_and_darker(b, beyond, inner & cover)):
            chosen, most = f, left_out
    return chosen


def offset(inner: np.ndarray, beyond: np.ndarray) -> np.ndarray:
    """From the centroid of one mask to that of another (pixels; grid axes = table axes)."""
    return _centroid(beyond) - _centroid(inner)


def _centroid(mask: np.ndarray) -> np.ndarray:
    """A boolean mask's centroid (x, y; NaN if empty): its pixels' mean column and row, as
    np.nonzero's means (the sums are exact integers, as OpenCV's binary moments were)."""
    count, sum_x, sum_y = mask_kernels.pixel_sums(np.ascontiguousarray(mask).view(np.uint8))
    return np.array([sum_x, sum_y], float) / float(count)


def _paler_and_darker(b: Blob, beyond: np.ndarray, core: np.ndarray) -> bool:
    """Is what lies beyond a rival's silhouette (`beyond`), taken as a whole, paler and
    darker than the plastic inside it (`core`)? Light through the piece falls on the
    table diluted by the other lamps and the room: a tinted shadow, not more plastic."""
    if not core.any():
        return False
    return bool(median(b.chroma[beyond]) < SHADOW_PALER * median(b.chroma[core])
                and median(b.lum[beyond]) < median(b.lum[core]) - SHADOW_DARKER_THAN_PIECE)


def metallic(observed: np.ndarray) -> bool:
    """Could this be a coin? Polished metal mirrors the lamps and the room: bright in
    every channel, where coloured plastic absorbs at least one channel strongly."""
    return bool(np.min(observed) > METAL_LOG_MIN)


def _outline(fit: fitting.Fit, camera: np.ndarray) -> Polygon:
    h = fit.hypothesis
    if h.kind == COIN:
        return Point(fit.params[:2]).buffer(h.coin.diameter / 2)  # type: ignore[union-attr]
    return Polygon(outline_of(fit, camera))
