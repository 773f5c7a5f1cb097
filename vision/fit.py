"""Fit the exact 3-D models to the blobs' outlines, all hypotheses at once.

A blob's outline (points on the rectified table plane, mm) is explained by each
hypothesis — upright or flat, small, medium or large, or a coin — by moving it on the
table (x, y and rotation or heading) until the outline points lie on the model's
apparent silhouette (vision.geometry, height included). The sum of robust squared
signed distances is minimised by damped Gauss-Newton, every hypothesis of every blob in
one batch of numpy arrays. Hypotheses are then compared by how well their silhouette
covers the blob (intersection over union).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from domain import CoinKind, Size
from vision.geometry import COIN, FLAT, UPRIGHT, active_sdf_jacobian, apparent_vertices, coin_sdf, lift, model, \
    model_sdf, silhouettes, vertices_and_motion

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
    (within AREA_FACTOR), or the small ones for a blob smaller than them all. All
    candidates' apparent areas are computed together."""
    candidates = []  # (blob, kind, size, starting variants)
    heights = np.array([size.height for size in Size])
    for blob, (centroid, headings, rect_angle) in enumerate(_blob_axes(points)):
        # an upright piece's base sits towards the camera from the blob's centre
        bases = centroid - (lift(np.repeat(centroid[None], len(heights), axis=0), heights, camera) - centroid) / 4
        for size, base in zip(Size, bases):
            candidates.append((blob, UPRIGHT, size, [(*base, rect_angle % 90), (*base, (rect_angle + 45) % 90)]))
        for size in Size:
            candidates.append((blob, FLAT, size, [(*(centroid - _FLAT_OFFSET[size] * _unit(a)), a) for a in headings]))
    sil = silhouettes([c[1] for c in candidates], [c[2] for c in candidates],
                      np.array([c[3][0] for c in candidates], float), camera)
    options: dict[tuple[int, str], list] = {}
    areas = [float(cv2.contourArea(poly.astype(np.float32))) for poly in sil]
    for (blob, kind, size, variants), area in zip(candidates, areas):
        ratio = abs(np.log(areas_mm2[blob] / area))
        if ratio < np.log(AREA_FACTOR):
            options.setdefault((blob, kind), []).append((ratio, size, variants))
    # a blob smaller than any piece is part of a small one: its lit faces, the shaded
    # ones taken for shadow (which the fit counts as neither piece nor table)
    too_small = {blob for (blob, kind, size, _), area in zip(candidates, areas)
                 if size is Size.SMALL and kind == UPRIGHT and areas_mm2[blob] < area} - {b for b, _ in options}
    for blob, kind, size, variants in candidates:
        if blob in too_small and size is Size.SMALL:
            options[(blob, kind)] = [(0.0, size, variants)]
    out = []
    for blob, pts in enumerate(points):
        hyps, starts = [], []
        for kind in (UPRIGHT, FLAT):
            for _, size, variants in sorted(options.get((blob, kind), []), key=lambda o: o[0])[:SIZES_TRIED]:
                for v in variants:
                    hyps.append(Hypothesis(blob, kind, size))
                    starts.append(np.array(v, float))
        if with_coins[blob]:
            for coin in CoinKind:
                area = np.pi * coin.diameter ** 2 / 4
                if 1 / AREA_FACTOR < areas_mm2[blob] / area < AREA_FACTOR:
                    hyps.append(Hypothesis(blob, COIN, None, coin))
                    starts.append(np.array([*pts.mean(axis=0), 0.0]))
        out.append((hyps, starts))
    return out


def _blob_axes(points: np.ndarray) -> list[tuple[np.ndarray, list[float], float]]:
    """Each blob's (outline points B×K×2) centroid, the headings a flat piece there may
    have (along the long axis, one way or both) and the angle of its minimum-area
    rectangle (degrees)."""
    centroid = points.mean(axis=1)
    # np.cov's arithmetic (its layouts kept, so its exact roundings), eigh of the whole stack
    x = (points - centroid[:, None]).transpose(0, 2, 1)
    x = x - x.mean(axis=2, keepdims=True)
    cov = np.array([np.dot(v, v.T.conj()) for v in x]) * (1 / (points.shape[1] - 1))
    evecs = np.linalg.eigh(cov)[1]
    axes = np.degrees(np.arctan2(evecs[:, 1, 1], evecs[:, 0, 1]))
    out = []
    for pts, c, axis in zip(points, centroid, axes):
        # a flat piece's nose reaches further from the blob's centre than its tail edge
        along = (pts - c) @ _unit(axis)
        reach = along.max() / max(-along.min(), 1e-6)
        headings = [axis] if reach > 1 + NOSE_CLEAR else [axis + 180] if reach < 1 / (1 + NOSE_CLEAR) else [axis, axis + 180]
        (_, _), (_, _), rect_angle = cv2.minAreaRect(pts.astype(np.float32))
        out.append((c, headings, rect_angle))
    return out


def _unit(deg: float) -> np.ndarray:
    return np.array([np.cos(np.radians(deg)), np.sin(np.radians(deg))])


class _Batch:
    """The hypotheses being fitted together, with what stays fixed between iterations."""

    def __init__(self, hyps: list[Hypothesis], points: np.ndarray, camera: np.ndarray, edge_offset: np.ndarray):
        self.points, self.camera, self.edge_offset = points, camera, edge_offset
        coin = np.array([h.kind == COIN for h in hyps])
        self.pyr, self.coin = np.flatnonzero(~coin), np.flatnonzero(coin)
        models = [model(hyps[i].kind, hyps[i].size) for i in self.pyr]  # type: ignore[arg-type]
        self.offsets = np.array([m.offsets for m in models]).reshape(-1, 5, 2)
        self.heights = np.array([m.heights for m in models]).reshape(-1, 5)
        self.faces = np.array([m.faces for m in models]).reshape(-1, 5, 4)
        # each face corner's row in the rows' vertices laid end to end (N·5)
        self.face_vertex = self.faces + 5 * np.arange(len(self.faces))[:, None, None]
        self.pyr_points = points[self.pyr]
        self.radius = np.array([hyps[i].coin.diameter / 2 for i in self.coin])  # type: ignore[union-attr]
        self.free = np.array([[1, 1, 0] if h.kind == COIN else [1, 1, 1] for h in hyps], float)

    def residuals(self, params: np.ndarray):
        """Signed distance of each row's outline points to its silhouette (N×K, mm), and
        which face and edge decide each pyramid point's distance."""
        out = np.empty(self.points.shape[:2])
        active = None
        if len(self.pyr):
            verts = apparent_vertices(params[self.pyr], self.offsets, self.heights, self.camera)
            sdf, active = model_sdf(verts.reshape(-1, 2).take(self.face_vertex, axis=0), self.pyr_points, active=True)
            if not len(self.coin):
                return sdf + self.edge_offset, active
            out[self.pyr] = sdf
        if len(self.coin):
            out[self.coin] = coin_sdf(params[self.coin], self.radius, self.points[self.coin])
        return out + self.edge_offset, active

    def local(self, params: np.ndarray, active) -> tuple[np.ndarray, np.ndarray]:
        """`residuals` with each point's deciding face and edge held (the cheap local
        form), and their derivatives by (x, y, angle): N×K and N×K×3, zero for the
        parameters a row does not have (a coin's angle)."""
        if len(self.pyr):
            p = params[self.pyr]
            verts, motion = vertices_and_motion(p, self.offsets, self.heights, self.camera)
            r_pyr, J_pyr = active_sdf_jacobian(verts, motion, self.faces, self.pyr_points, active)
            if not len(self.coin):
                return r_pyr + self.edge_offset, J_pyr
        r = np.empty(self.points.shape[:2])
        J = np.zeros(r.shape + (3,))
        if len(self.pyr):
            r[self.pyr], J[self.pyr] = r_pyr, J_pyr
        d = self.points[self.coin] - params[self.coin, None, :2]
        dist = np.hypot(d[..., 0], d[..., 1])
        r[self.coin] = dist - self.radius[:, None]
        J[self.coin, :, :2] = -d / np.where(dist > 1e-9, dist, np.inf)[..., None]
        return r + self.edge_offset, J


def _merge_active(keep: np.ndarray, new, old):
    """Per pyramid row, the deciding faces/edges of `new` where `keep`, else of `old`."""
    if new is None:
        return old
    return tuple(np.where(keep.reshape((-1,) + (1,) * (n.ndim - 1)), n, o) for n, o in zip(new, old))


def point_weights(r: np.ndarray, open_side: np.ndarray) -> np.ndarray:
    """Cauchy weights of residuals, cut to OPEN_WEIGHT where the model reaches past an
    open outline point (r < 0: the point lies inside the model)."""
    return np.where(open_side & (r < 0), OPEN_WEIGHT, 1.0) / (1.0 + (r / ROBUST_MM) ** 2)


def gauss_newton(hyps: list[Hypothesis], params: np.ndarray, points: np.ndarray, open_side: np.ndarray,
                 camera: np.ndarray, edge_offset: np.ndarray, iterations: int = ITERATIONS) -> tuple[np.ndarray, np.ndarray]:
    """Damped, robust Gauss-Newton on every hypothesis at once; returns params and residuals.

    edge_offset (N×1, mm): how far each row's true edge lies outside its outline points."""
    n = len(hyps)
    batch = _Batch(hyps, points, camera, edge_offset)
    params = params.copy()
    lam = np.full(n, 1e-2)
    r, active = batch.residuals(params)
    J = batch.local(params, active)[1]
    fresh = np.ones(n, bool)  # rows whose r is the full `residuals`, not the local form
    for it in range(iterations):
        w = point_weights(r, open_side)
        np.copyto(J, 0.0, where=~np.isfinite(J))   # np.nan_to_num(J, posinf=0, neginf=0), in place
        JtW = J.transpose(0, 2, 1) * w[:, None, :]
        A = JtW @ J
        g = (JtW @ _finite(r)[..., None])[..., 0]
        A += (lam[:, None, None] * (np.einsum("nii->ni", A) + 1e-6)[:, :, None]) * np.eye(3)
        step = -np.linalg.solve(A, g[..., None])[..., 0] * batch.free
        trial = params + step
        # which face and edge decide each point is re-examined every few steps only
        refresh = it % REFRESH_EVERY == REFRESH_EVERY - 1 or it == iterations - 1
        if refresh:
            r_new, active_new = batch.residuals(trial)
            # (after the last step the Jacobian is not needed)
            J_new = batch.local(trial, active_new)[1] if it < iterations - 1 else J
        else:
            (r_new, J_new), active_new = batch.local(trial, active), None
        old = np.sum(w * _finite(r, nan=1e3) ** 2, axis=1)
        new = np.sum(w * _finite(r_new, nan=1e3) ** 2, axis=1)
        better = new <= old
        params[better] = trial[better]
        r[better] = r_new[better]
        J[better] = J_new[better]
        active = _merge_active(better[batch.pyr], active_new, active)
        lam = np.where(better, lam * 0.3, lam * 10)
        fresh[better] = refresh
        if refresh and np.all(np.abs(step[better]) < 1e-3):
            break
    # the last step was a refresh: only rows it did not move need their residuals again
    stale = np.flatnonzero(~fresh)
    if len(stale):
        r[stale] = _Batch([hyps[k] for k in stale], points[stale], camera, edge_offset[stale]).residuals(params[stale])[0]
    return params, r


def _finite(x: np.ndarray, nan: float = 0.0) -> np.ndarray:
    """np.nan_to_num(x, nan=nan), without its copies and passes when (as nearly always) all is finite."""
    return x if np.isfinite(x).all() else np.nan_to_num(x, nan=nan)


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
    them polygon by polygon: the polygons are padded with repeats of their first vertex
    (edges of length 0 past the end, never reached)."""
    sizes = np.array([len(p) for p in polys])
    m = sizes.max()
    # every polygon's vertices laid into one padded array, its first vertex repeated after them
    owner = np.repeat(np.arange(len(polys)), sizes)
    slot = np.arange(len(owner)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    v = np.concatenate(polys)
    closed = np.repeat(v[np.cumsum(sizes) - sizes, None], m + 1, axis=1)
    closed[owner, slot] = v
    step = np.diff(closed, axis=1)
    s = np.concatenate([np.zeros((len(polys), 1)), np.cumsum(np.hypot(step[..., 0], step[..., 1]), axis=1)], axis=1)
    t = np.linspace(0, s[:, -1], n, endpoint=False, axis=1)                     # N×n
    j = np.sum(s[:, None, :] <= t[..., None], axis=2) - 1                        # s[j] <= t < s[j + 1]
    j += np.arange(len(polys))[:, None] * (m + 1)                                # flat, into N×(m + 1)
    s0, s1 = s.take(j), s.take(j + 1)
    out = np.empty(t.shape + (2,))
    for c in range(2):
        y = closed[..., c].ravel()
        y0, y1 = y.take(j), y.take(j + 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[..., c] = np.where(s0 == t, y0, (y1 - y0) / (s1 - s0) * (t - s0) + y0)
    return out


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
                    res: float) -> np.ndarray:
    """Intersection over union of each hypothesis's apparent silhouette (`polys`) and its
    blob's mask, not counting undecided pixels the silhouette covers. A blob's hypotheses
    are drawn into the layers of one stack; the counts are one product with its pixels."""
    shift = 4
    # every pyramid's silhouette in fixed-point pixels of its blob's box, converted together
    pyr = [k for k, h in enumerate(hyps) if h.kind != COIN]
    lengths = [len(polys[k]) for k in pyr]
    fixed: dict[int, np.ndarray] = {}
    if pyr:
        verts = np.concatenate([polys[k] for k in pyr]) - np.repeat(origins_mm[blob_of[pyr]], lengths, axis=0)
        fixed = dict(zip(pyr, np.split(np.round((verts / res - 0.5) * (1 << shift)).astype(np.int32),
                                       np.cumsum(lengths)[:-1])))
    out = np.zeros(len(hyps))
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
        inside = mask > 0
        # a silhouette pixel counts in the intersection on the blob, in the union off it
        # unless undecided; the blob's own pixels are all in the union
        weights = np.column_stack([inside.ravel(), (~inside & (und == 0)).ravel()]).astype(np.float32)
        inter, extra = (models.reshape(len(rows), -1).astype(np.float32) @ weights).astype(np.int64).T
        union = extra + np.count_nonzero(inside)
        out[rows] = np.where(union > 0, inter / np.maximum(union, 1), 0.0)
    return out
