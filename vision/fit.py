"""Fit the exact 3-D models to the blobs' outlines, all hypotheses at once.

A blob's outline (points on the rectified table plane, mm) is explained by each
hypothesis — upright or flat, small, medium or large, or a coin — by moving it on the
table (x, y and rotation or heading) until the outline points lie on the model's
apparent silhouette (vision.geometry, height included). The sum of robust squared
signed distances is minimised by damped Gauss-Newton, every hypothesis of every blob
in one call of a compiled kernel (vision.gauss_newton). Hypotheses are then compared by how well their silhouette
covers the blob (intersection over union).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

import cv2
import numpy as np

from domain import CoinKind, Size
from vision import fit_kernels as kernels
from vision import gauss_newton as gn
from vision.geometry import COIN, FLAT, UPRIGHT, lift, model, silhouette_areas, silhouettes
from vision.mask_kernels import layer_counts

# Outline points per blob: enough to pin three parameters to a small fraction of a mm.
OUTLINE_POINTS = 48
# An outline point within this many pixels of undecided (shadow-like) pixels is "open":
# the model may reach past it at a fraction OPEN_WEIGHT of the usual cost.
UNDECIDED_REACH_PX = 2
OPEN_WEIGHT = 0.3
# Robust loss scale, mm: outline points further than this from the model (a shadow, a
# touching piece) count less and less (Cauchy weights).
ROBUST_MM = 1.5
ITERATIONS = 12
# Full re-evaluation of which face and edge is nearest each outline point, every so many steps.
REFRESH_EVERY = 3
# Hypotheses kept for fitting: those whose silhouette area is within this factor of the blob's.
AREA_FACTOR = 1.6
SIZES_TRIED = 2
# A blob reaching this much further one way along its long axis shows where a flat
# piece's nose is; otherwise both ways are tried.
NOSE_CLEAR = 0.15


@dataclass(frozen=True)
class Hypothesis:
    blob: int
    kind: str          # UPRIGHT, FLAT or COIN
    size: Size | None  # pyramids
    coin: CoinKind | None = None


@dataclass
class Fit:
    hypothesis: Hypothesis
    params: np.ndarray   # (x, y, rotation) upright, (tail x, tail y, heading) flat, (x, y, 0) coin
    rms: float           # robust RMS of outline distances, mm
    iou: float           # silhouette vs blob mask
    # kept from the fit for the decisions, which would work them out again (a pyramid's):
    # its apparent outline (geometry.silhouette's) and that drawn in its blob's box
    # (decide.polygon_mask's, 0/1), with the box's corner (mm)
    outline: np.ndarray | None = field(default=None, repr=False, compare=False)
    drawn: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)


def _footprint_centroid_offset(size: Size) -> float:
    """Distance from tail to the centroid of a flat piece's footprint, along the heading."""
    pts = model(FLAT, size).offsets
    x, y = pts[:, 0], pts[:, 1]
    cross = x * np.roll(y, -1) - np.roll(x, -1) * y
    return float(np.sum((x + np.roll(x, -1)) * cross) / (3 * np.sum(cross)))


_FLAT_OFFSET = {s: _footprint_centroid_offset(s) for s in Size}


def outline_points(outlines: list[np.ndarray], undecided: list[np.ndarray], origins_mm: np.ndarray, res: float,
                   n: int = OUTLINE_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """n points evenly spaced along each blob's outline (a closed polygon in the blob
    box's pixels) in table mm (B×n×2), and whether each borders undecided (shadow-like)
    pixels, where the piece may reach further (B×n)."""
    pts = perimeter_points(outlines, n)
    # any undecided pixel in the square around the point: a dilation, at these points only
    shapes = np.array([u.shape for u in undecided])
    near = np.arange(-UNDECIDED_REACH_PX, UNDECIDED_REACH_PX + 1)
    c = np.clip(np.round(pts[..., 0]).astype(int), 0, shapes[:, 1, None] - 1)
    r = np.clip(np.round(pts[..., 1]).astype(int), 0, shapes[:, 0, None] - 1)
    which = np.arange(len(undecided))[:, None, None, None]
    window = box_lookup(undecided, which, c[..., None, None] + near[:, None], r[..., None, None] + near)
    return origins_mm[:, None] + (pts + 0.5) * res, np.any(window > 0, axis=(2, 3))


def box_lookup(boxes: list[np.ndarray], which: np.ndarray, col: np.ndarray, row: np.ndarray) -> np.ndarray:
    """Pixels of per-blob images (`boxes`) at (col, row), clipped into the box; `which`
    says each lookup's box (all three broadcast together)."""
    shapes = np.array([b.shape for b in boxes])
    starts = np.concatenate([[0], np.cumsum(shapes[:, 0] * shapes[:, 1])[:-1]])
    h, w = shapes[which, 0], shapes[which, 1]
    return np.concatenate([b.ravel() for b in boxes])[starts[which] + np.clip(row, 0, h - 1) * w + np.clip(col, 0, w - 1)]


def initial_hypotheses(points: np.ndarray, areas_mm2: Sequence[float], camera: np.ndarray,
                       with_coins: Sequence[bool]) -> list[tuple[list[Hypothesis], list[np.ndarray]]]:
    """Plausible hypotheses for each blob (outline points B×K×2) and a starting pose for
    each: of each pose, the SIZES_TRIED sizes whose apparent area is nearest the blob's
    (within AREA_FACTOR), or the small ones for a blob smaller than them all. Every
    blob's starts and apparent areas are worked out together (elementwise, as one by one)."""
    centroids, headings, units, ways, rect_angles = _blob_axes(points)
    n, sizes = len(points), list(Size)
    small = sizes.index(Size.SMALL)
    # an upright piece's base sits towards the camera from the blob's centre; it is tried
    # at the blob's rectangle's angle and turned 45°
    heights = np.array([size.height for size in sizes])
    c = centroids[:, None]
    upright = np.empty((n, len(sizes), 2, 3))
    upright[..., :2] = (c - (lift(np.repeat(c, len(heights), axis=1), heights, camera) - c) / 4)[:, :, None]
    upright[..., 2] = np.array([(a % 90, (a + 45) % 90) for a in rect_angles])[:, None]
    # a flat piece's footprint centred on the blob's, along each heading tried (`ways`)
    flat = np.empty((n, len(sizes), 2, 3))
    flat[..., :2] = centroids[:, None, None] - np.array([_FLAT_OFFSET[s] for s in sizes])[:, None, None] * units[:, None]
    flat[..., 2] = headings[:, None]
    first_flat = flat[np.arange(n), :, [w[0] for w in ways]]
    areas = np.array(silhouette_areas([UPRIGHT] * (n * len(sizes)) + [FLAT] * (n * len(sizes)), sizes * (2 * n),
                                      np.concatenate([upright[:, :, 0], first_flat]).reshape(-1, 3), camera))
    areas = areas.reshape(2, n, len(sizes))   # (pose, blob, size)
    ratio = np.abs(np.log(np.array(areas_mm2, float)[:, None] / areas))
    fits = (ratio < np.log(AREA_FACTOR)).tolist()
    ratio = ratio.tolist()
    # a blob smaller than any piece is part of a small one: its lit faces, the shaded
    # ones taken for shadow (which the fit counts as neither piece nor table)
    smaller = (np.array(areas_mm2, float) < areas[0, :, small]).tolist()
    out = []
    for blob, pts in enumerate(points):
        hyps, starts = [], []
        too_small = smaller[blob] and not any(fits[0][blob] + fits[1][blob])
        for k, (kind, variants) in enumerate(((UPRIGHT, upright[blob]), (FLAT, flat[blob][:, ways[blob]]))):
            tried = [small] if too_small else sorted((z for z in range(len(sizes)) if fits[k][blob][z]),
                                                 key=ratio[k][blob].__getitem__)[:SIZES_TRIED]
            for z in tried:
                for v in variants[z]:
                    hyps.append(Hypothesis(blob, kind, sizes[z]))
                    starts.append(v)
        if with_coins[blob]:
            for coin in CoinKind:
                area = np.pi * coin.diameter ** 2 / 4
                if 1 / AREA_FACTOR < areas_mm2[blob] / area < AREA_FACTOR:
                    hyps.append(Hypothesis(blob, COIN, None, coin))
                    starts.append(np.array([*pts.mean(axis=0), 0.0]))
        out.append((hyps, starts))
    return out


def _blob_axes(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[list[int]], list[float]]:
    """Each blob's (outline points B×K×2) centroid (B×2), the headings along its long axis
    one way and the other (degrees, B×2) and their unit vectors (B×2×2), which of those
    ways a flat piece there may point (0: along the axis, 1: back; one way or both) and
    the angle of its minimum-area rectangle (degrees)."""
    centroid = points.mean(axis=1)
    # np.cov's arithmetic (its layouts kept, so its exact roundings), eigh of the whole stack
    x = (points - centroid[:, None]).transpose(0, 2, 1)
    x = x - x.mean(axis=2, keepdims=True)
    cov = np.array([np.dot(v, v.T.conj()) for v in x]) * (1 / (points.shape[1] - 1))
    evecs = np.linalg.eigh(cov)[1]
    axes = np.degrees(np.arctan2(evecs[:, 1, 1], evecs[:, 0, 1]))
    headings = np.column_stack([axes, axes + 180])
    rad = np.radians(headings)
    units = np.stack([np.cos(rad), np.sin(rad)], axis=2)
    # a flat piece's nose reaches further from the blob's centre than its tail edge
    along = np.array([(pts - c) @ u for pts, c, u in zip(points, centroid, units[:, 0])])
    reach = along.max(axis=1) / np.maximum(-along.min(axis=1), 1e-6)
    ways = [[0] if r > 1 + NOSE_CLEAR else [1] if r < 1 / (1 + NOSE_CLEAR) else [0, 1] for r in reach.tolist()]
    rect_angles = [cv2.minAreaRect(pts)[2] for pts in points.astype(np.float32)]
    return centroid, headings, units, ways, rect_angles


def _row_model(kind: str, size: Size | None, coin: CoinKind | None) -> tuple:
    """A row's model for vision.gauss_newton: (vertex offsets 5×2, heights 5, faces 5×4,
    radius: 0 for a pyramid, a coin's (then no vertices))."""
    if kind == COIN:
        return np.zeros((5, 2)), np.zeros(5), np.zeros((5, 4), np.int64), coin.diameter / 2  # type: ignore[union-attr]
    m = model(kind, size)  # type: ignore[arg-type]
    return m.offsets, m.heights.astype(float), m.faces.astype(np.int64), 0.0


@lru_cache(maxsize=None)
def _model_table() -> tuple[dict, tuple]:
    """Every row model, stacked as vision.gauss_newton takes them (fixed types and
    layouts: the kernel compiles once), and each (kind, size, coin)'s index in them."""
    keys = [(kind, size, None) for kind in (UPRIGHT, FLAT) for size in Size] + [(COIN, None, coin) for coin in CoinKind]
    rows = [_row_model(*key) for key in keys]
    arrays = tuple(np.array([row[i] for row in rows], dtype).reshape(shape) for i, (dtype, shape) in
                   enumerate([(float, (-1, 5, 2)), (float, (-1, 5)), (np.int64, (-1, 5, 4)), (float, (-1,))]))
    return {key: i for i, key in enumerate(keys)}, arrays


def point_weights(r: np.ndarray, open_side: np.ndarray) -> np.ndarray:
    """Cauchy weights of residuals, cut to OPEN_WEIGHT where the model reaches past an
    open outline point (r < 0: the point lies inside the model)."""
    return np.where(open_side & (r < 0), OPEN_WEIGHT, 1.0) / (1.0 + (r / ROBUST_MM) ** 2)


def gauss_newton(hyps: list[Hypothesis], params: np.ndarray, points: np.ndarray, open_side: np.ndarray,
                 camera: np.ndarray, edge_offset: np.ndarray, iterations: int = ITERATIONS) -> tuple[np.ndarray, np.ndarray]:
    """Damped, robust Gauss-Newton on every hypothesis (compiled: vision.gauss_newton);
    returns params and residuals. Each row minimises the robust cost of its outline
    points' signed distances to the model's silhouette (`point_weights`).

    edge_offset (N×1, mm): how far each row's true edge lies outside its outline points."""
    index_of, table = _model_table()
    rows = np.array([index_of[(h.kind, h.size, h.coin)] for h in hyps], np.int64)
    model_arrays = tuple(array[rows] for array in table)
    params = np.array(params, float)   # fitted in place
    r = gn.solve(params, model_arrays, np.ascontiguousarray(points, float), np.ascontiguousarray(open_side, bool),
                 np.ascontiguousarray(camera, float), np.ascontiguousarray(edge_offset, float).reshape(-1),
                 (float(ROBUST_MM), float(OPEN_WEIGHT)), int(iterations), REFRESH_EVERY)
    return params, r


def robust_rms(r: np.ndarray, open_side: np.ndarray) -> np.ndarray:
    """RMS of outline distances with Cauchy down-weighting, mm (one value per row);
    reaching past open points costs OPEN_WEIGHT as much."""
    rho = ROBUST_MM ** 2 * np.log1p((r / ROBUST_MM) ** 2) * np.where(open_side & (r < 0), OPEN_WEIGHT, 1.0)
    return np.sqrt(np.mean(rho, axis=-1))


def outline_polygons(hyps: list[Hypothesis], params: np.ndarray, camera: np.ndarray) -> list[np.ndarray]:
    """Each hypothesis's apparent outline on the table (convex, M×2 mm): a pyramid's
    silhouette, a coin's circle as an OUTLINE_POINTS-gon."""
    polys: list[np.ndarray] = [np.empty((0, 2))] * len(hyps)
    pyr = [k for k, h in enumerate(hyps) if h.kind != COIN]
    for k, poly in zip(pyr, silhouettes([hyps[k].kind for k in pyr], [hyps[k].size for k in pyr],  # type: ignore[misc]
                                        params[pyr], camera)):
        polys[k] = poly
    a = np.linspace(0, 2 * np.pi, OUTLINE_POINTS, endpoint=False)
    for k, h in enumerate(hyps):
        if h.kind == COIN:
            polys[k] = params[k, :2] + h.coin.diameter / 2 * np.column_stack([np.cos(a), np.sin(a)])  # type: ignore[union-attr]
    return polys


def perimeter_points(polys: list[np.ndarray], n: int = OUTLINE_POINTS) -> np.ndarray:
    """n points evenly spaced along each closed polygon (N×n×2), as np.interp would place
    them polygon by polygon (compiled: vision.fit_kernels)."""
    sizes = np.array([len(p) for p in polys], np.int64)
    return kernels.perimeter_points(np.ascontiguousarray(np.concatenate(polys), float), sizes, n)


def reverse_rms(rim: np.ndarray, blob_of: np.ndarray, outlines_mm: list[np.ndarray], edge_offsets_mm: np.ndarray,
                undecided: list[np.ndarray], origins_mm: np.ndarray, res: float) -> np.ndarray:
    """Robust RMS distance (mm) of points along each hypothesis's apparent outline (rim,
    N×K×2) to its blob's outline (convex, M×2 mm; blob_of: each row's blob): a bigger
    model can lay its sides on the blob's and reach past its ends (there it costs only
    overlap); this is the check the other way round. Past undecided pixels (a shaded
    face?) the reach costs OPEN_WEIGHT as much."""
    # signed distance to a convex polygon: the largest signed distance to its edges' lines,
    # every blob's lines padded to as many as the longest outline's with repeats of its first
    sizes = np.array([len(o) for o in outlines_mm])
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    owner = np.repeat(np.arange(len(sizes)), sizes)
    slot = np.arange(len(owner)) - first[owner]
    v = np.concatenate(outlines_mm)
    edge = v[np.where(slot + 1 < sizes[owner], np.arange(len(owner)) + 1, first[owner])] - v
    normal = np.column_stack([edge[:, 1], -edge[:, 0]]) / np.maximum(np.hypot(*edge.T), 1e-9)[:, None]
    centre = np.add.reduceat(v, first) / sizes[:, None]
    normal *= np.sign(np.sum(normal * (v - centre[owner]), axis=1))[:, None]   # outwards
    offset = np.sum(v * normal, axis=1)
    normals = np.repeat(normal[first, :, None], sizes.max(), axis=2)
    offsets = np.repeat(offset[first, None], sizes.max(), axis=1)
    normals[owner, :, slot], offsets[owner, slot] = normal, offset
    d = np.max(rim @ normals[blob_of] - offsets[blob_of, None, :], axis=2) - edge_offsets_mm[blob_of, None]
    ij = np.round((rim - origins_mm[blob_of, None]) / res - 0.5).astype(int)
    open_side = box_lookup(undecided, blob_of[:, None], ij[..., 0], ij[..., 1]) > 0
    rho = ROBUST_MM ** 2 * np.log1p((d / ROBUST_MM) ** 2) * np.where(open_side & (d > 0), OPEN_WEIGHT, 1.0)
    return np.sqrt(np.mean(rho, axis=1))


def silhouette_ious(hyps: list[Hypothesis], params: np.ndarray, polys: list[np.ndarray], blob_of: np.ndarray,
                    masks: list[np.ndarray], undecided: list[np.ndarray], origins_mm: np.ndarray,
                    res: float) -> tuple[np.ndarray, list[np.ndarray | None]]:
    """Intersection over union of each hypothesis's apparent silhouette (`polys`) and its
    blob's mask, not counting undecided pixels the silhouette covers, and each pyramid's
    silhouette as drawn in its blob's box (0/1; None for a coin). A blob's hypotheses
    are drawn into the layers of one stack, counted in one compiled pass."""
    shift = 4
    # every pyramid's silhouette in fixed-point pixels of its blob's box, converted together
    pyr = [k for k, h in enumerate(hyps) if h.kind != COIN]
    lengths = [len(polys[k]) for k in pyr]
    fixed: dict[int, np.ndarray] = {}
    # where each layer may draw (layer_counts reads only there, ~14 % of a box): a
    # polygon's pixels, rounded (fillConvexPoly rounds its fixed-point vertices: on
    # A's 2801 layers they reached one pixel past the greatest, none before the least)
    # and a pixel more each way; a coin's, the whole box
    reach = np.zeros((len(hyps), 4), np.int64)
    reach[:, 2:] = np.iinfo(np.int64).max
    if pyr:
        verts = np.concatenate([polys[k] for k in pyr]) - np.repeat(origins_mm[blob_of[pyr]], lengths, axis=0)
        every = np.round((verts / res - 0.5) * (1 << shift)).astype(np.int32)
        fixed = dict(zip(pyr, np.split(every, np.cumsum(lengths)[:-1])))
        first = np.r_[0, np.cumsum(lengths)[:-1]]
        reach[pyr, :2] = (np.minimum.reduceat(every, first) >> shift) - 1
        reach[pyr, 2:] = (np.maximum.reduceat(every, first) >> shift) + 3
    out = np.zeros(len(hyps))
    drawn: list[np.ndarray | None] = [None] * len(hyps)
    for b, (mask, und) in enumerate(zip(masks, undecided)):
        rows = np.flatnonzero(blob_of == b)
        if not len(rows):
            continue
        models = np.zeros((len(rows),) + mask.shape, np.uint8)
        for layer, k in zip(models, rows):
            h = hyps[k]
            if h.kind == COIN:
                centre = ((params[k, :2] - origins_mm[b]) / res - 0.5) * (1 << shift)
                cv2.circle(layer, tuple(int(round(v)) for v in centre),
                           int(round(h.coin.diameter / 2 / res * (1 << shift))), 1, -1, cv2.LINE_8, shift)  # type: ignore[union-attr]
            else:
                cv2.fillConvexPoly(layer, fixed[k], 1, cv2.LINE_8, shift)
                drawn[k] = layer
        # a silhouette pixel counts in the intersection on the blob, in the union off it
        # unless undecided; the blob's own pixels are all in the union
        inter, extra = layer_counts(models, mask, und, reach[rows]).T
        union = extra + np.count_nonzero(mask)
        out[rows] = np.where(union > 0, inter / np.maximum(union, 1), 0.0)
    return out, drawn
