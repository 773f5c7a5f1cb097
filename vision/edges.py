"""Where a pyramid's edges are: the picture's steps along a hypothesis's apparent edges.

A pyramid's edges are where its faces meet each other or the table, and faces turned
differently show different light: the picture steps across every edge, in some colour
channel, whatever each face shows (a face mirroring the table, a shaded face). A
shadow's soft outline and bare table have no such steps where a model puts its ridges.

A hypothesis's edge score is the mean, over points along its apparent edges (an
upright's four base edges and four ridges, a flat piece's eight edges), of the strength
of the picture's log-colour gradient across the edge (`scores`); `refine` moves
hypotheses (x, y, angle) to where their edges lie best. vision.edge_steps decides sizes
and poses by them; here they also say which weak candidates are pieces at all
(`edgeless`), which dark ones beside a piece are pyramids, not its shadow
(`ridged_dark`), whether a flat piece's nose is plastic or a penumbra
(`nose_softness`), and each piece's pose, with its outline's (`with_edges`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from domain import Size
from vision import edge_kernels as kernels
from vision import fit as fitting
from vision.decide import RIDGES
from vision.geometry import COIN, FLAT, UPRIGHT, model
from vision.rectify import TableGrid
from vision.segment import LOG_LUT

# A pyramid's pose is read twice: from its blob's outline (vision.fit; a flat piece's
# contour refit, vision.heading) and from where its edges lie best, searched from there
# (`refine`). Their errors are apart (a faint or shaded side bends the outline, a
# ridge or a neighbour's edge draws the search), so the pose is moved this share of the
# way to the edges'. Position p95 (median), mm, outline alone -> with the edges: A 1.98
# (0.63) -> 1.46 (0.50), held out 2.22 -> 1.52, N 1.98 -> 1.35, T 1.90 -> 1.27, crowded
# 2.45 -> 1.65, path-traced 2.11 (0.60) -> 1.46 (0.50), thick walls 2.33 -> 1.66. Flat
# heading p95 (median), degrees: A 3.92 (0.63) -> 2.98 (0.64), held out 2.43 -> 2.24,
# N 2.83 (0.68) -> 2.57 (0.81), T 2.79 -> 2.60, crowded 3.99 (1.19) -> 3.12 (0.93),
# path-traced 2.68 (0.52) -> 2.42 (0.50), thick walls 3.58 (0.73) -> 2.77 (0.65). A third
# or two thirds of the way does better on some sets, worse on others.
POSE_BY_EDGES = 0.5

# Points along each edge, away from its ends (where edges meet, and a blurred corner
# belongs to both).
EDGE_SAMPLES = np.linspace(0.15, 0.85, 6)
# The picture is smoothed by this much (grid pixels, Gaussian sigma) before its gradient:
# sensor noise and JPEG blocks step too, over single pixels.
SMOOTH_PX = 0.8
# `refine`: coordinate ascent over (x, y, angle) from these steps (mm, degrees), halved
# after each round of MOVES_PER_ROUND moves: at most 3.5 mm and 10.5° from the start.
STEP_MM, STEP_DEG, ROUNDS, MOVES_PER_ROUND = 1.0, 3.0, 3, 2
# A dark, hueless candidate touching a piece is the piece's shadow unless it is an upright
# whose edges step at least this strongly (measured: the dark uprights dropped as shadows
# that were real pieces scored 0.17-0.45, those that were not 0.11-0.17; shadows, soft
# and without ridges, are mostly fitted as flat pieces). Later, on A, held out, the 100
# path-traced scenes and N: of the dark uprights touching a piece that scored 0.16-0.2,
# 5 were pieces (3 of them found by no other blob) and 2 were not; under 0.16, 4 pieces
# (2 found otherwise) and 6 shadows. From 0.2 to 0.16: path-traced found +2, N
# found +1 and false +1, filmic-bright B found +1; nothing else moved.
DARK_PIECE_EDGES = 0.16
# A candidate as tinted as its neighbour's shadow and on that neighbour's shadow side
# (vision.shadows.without_cast_shadows) is a piece, not that shadow, when its edges score
# at least CAST_SHADOW_EDGES and its ridges step at least RIDGE_SHARE as much as its
# outline (`ridged`): a hard shadow's outline steps like a piece's, but it has no ridges.
# Of the candidates that check dropped over A, held out, N, T, crowded, ours under one
# bare bulb and 66 path-traced scenes with both wall models, the shadows scored
# 0.09-0.19, the pieces no other candidate found 0.11-0.33; of those over 0.2, the pieces'
# ridges stepped 0.99-1.13 times their outline, two hard shadows' under a bare bulb
# (ours, 9608) 0.68-0.70. Kept: A 9209's green flat, path-traced 9224's large flat, a
# crowded blue flat: those sets' mistakes 250 -> 243 (0.17 or 0.25: 245, 247), the
# others' unchanged.
CAST_SHADOW_EDGES = 0.2
RIDGE_SHARE = 0.85
# A coloured blob smaller than a piece's footprint, or any blob fitted as a flat piece,
# is a piece only if its edges score at least this (measured on our renders and
# path-traced ones: felt's blotches tinted by chance scored 0.049-0.052, dark streaks of
# wood 0.040-0.049, a shadow read as a flat piece 0.058; such pieces 0.068 and up, flat
# pieces seen by their colour 0.083 and up). So is a dark candidate fitted as an upright
# (thirty-seventh pass; the last reading's, over Cycles 9200-9295 and 9800-9815, our A,
# held out, N, crowded and Rainbow with black, both Mitsuba wall models: of 939 at a
# piece, 936 scored 0.100 and up, and 3 about 0.04, one yellow flat's shade fitted as a
# large upright, 9212, whose piece another blob reads; of the 32 at none, 20 scored
# 0.016-0.059, among them the dark streaks of Cycles' wood read yellow and green, 9260
# and 9279: Cycles' false 1.1 -> 1.0 %, every other set the same piece for piece).
WEAK_BLOB_EDGES = 0.06


@dataclass
class EdgeMap:
    """The rectified picture's log-colour gradient as a structure tensor per grid pixel:
    (Jxx, Jxy, Jyy) summed over the colour channels, so that the squared step across a
    direction n is n·J·n."""

    tensor: np.ndarray   # H×W×3 float32
    grid: TableGrid
    # the edge search's ascents on this map (vision.edge_steps), which `refine` and later
    # searches take again for rows started where one was (the same code, pose and camera,
    # bit for bit)
    searched: Ascents | None = None
    # the boxes (x, y, w, h) worked out so far (`edge_map` works out only new ones)
    done: set = field(default_factory=set)


@dataclass
class Ascents:
    """`ascend`'s results on an EdgeMap: rows of (kind, size) `code` (KEYS' indices)
    started at `starts` (N×3) and seen from `camera` ended at `ends` (N×3), scoring
    `scores` (float32)."""

    code: np.ndarray
    camera: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    scores: np.ndarray

    def joined(self, more: "Ascents") -> "Ascents":
        """These ascents and `more` (seen from the same camera, else `more` alone)."""
        if not np.array_equal(np.asarray(more.camera, float), np.asarray(self.camera, float)):
            return more
        return Ascents(np.concatenate([self.code, more.code]), self.camera, np.concatenate([self.starts, more.starts]),
                       np.concatenate([self.ends, more.ends]), np.concatenate([self.scores, more.scores]))

    def found(self, code: np.ndarray, starts: np.ndarray, camera: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows (code, start: N, N×3) an ascent started at, and that ascent's index.
        Poses are compared bit for bit (a −0.0 is not a 0.0 to the ascent's sines)."""
        if len(self.code) == 0 or not np.array_equal(np.asarray(camera, float).view(np.int64),
                                                       np.asarray(self.camera, float).view(np.int64)):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        same = (code[:, None] == self.code[None]) & \
            (starts.view(np.int64)[:, None] == self.starts.view(np.int64)[None]).all(axis=2)
        rows = np.flatnonzero(same.any(axis=1))
        return rows, same[rows].argmax(axis=1)


def edge_map(table_bgr: np.ndarray, grid: TableGrid, boxes: list[tuple[int, int, int, int]],
             onto: EdgeMap | None = None) -> EdgeMap:
    """EdgeMap of a rectified BGR picture on `grid`, worked out only in `boxes` (x, y, w, h,
    grid pixels; zero elsewhere): around the pieces, not over the whole table. `onto`: a
    map of the same picture to add the boxes it lacks to (returned), as a picture read
    again asks for its re-cut blobs' boxes."""
    height, width = table_bgr.shape[:2]
    emap = onto if onto is not None else EdgeMap(np.zeros((height, width, 3), np.float32), grid)
    tensor = emap.tensor
    margin = 4   # the smoothing's and the gradient's reach, so each box is worked out exactly
    for x, y, w, h in boxes:
        if (x, y, w, h) in emap.done:
            continue
        emap.done.add((x, y, w, h))
        x0, y0 = max(x - margin, 0), max(y - margin, 0)
        x1, y1 = min(x + w + margin, width), min(y + h + margin, height)
        log = cv2.GaussianBlur(cv2.LUT(table_bgr[y0:y1, x0:x1], LOG_LUT), (0, 0), SMOOTH_PX)
        gx = cv2.Sobel(log, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8)
        gy = cv2.Sobel(log, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8)
        kernels.structure_tensor(gx, gy, tensor, y0, x0, max(y, 0), min(y + h, height), max(x, 0), min(x + w, width))
    return emap


@lru_cache(maxsize=None)
def _geometry(kind: str, size: Size) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A model's vertex offsets, heights and edges (vertex index pairs, 8×2)."""
    m = model(kind, size)
    pairs = {tuple(sorted((int(f[i]), int(f[(i + 1) % 4])))) for f in m.faces for i in range(4)
             if f[i] != f[(i + 1) % 4]}
    return m.offsets, m.heights, np.array(sorted(pairs))


# A hypothesis row's (kind, size), numbered: its index here (the edge search's codes,
# vision.edge_kernels.starts: kind · 3 + size).
KEYS = tuple((kind, size) for kind in (UPRIGHT, FLAT) for size in Size)
CODE = {key: k for k, key in enumerate(KEYS)}


@lru_cache(maxsize=16)   # one a camera pose; a re-registered pose is a new height
def _ends(camera_height: float) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Every model's (KEYS) edges' two ends, each as offsets in its frame (K×E×2) and lift
    scales Hc/(Hc − h) (K×E), float32, seen from a camera `camera_height` mm up."""
    out = []
    for k in (0, 1):
        offsets, scales = [], []
        for key in KEYS:
            off, heights, pairs = _geometry(*key)
            offsets.append(off[pairs[:, k]].astype(np.float32))
            scales.append((camera_height / (camera_height - heights))[pairs[:, k]].astype(np.float32))
        out.append((np.stack(offsets), np.stack(scales)))
    return tuple(out)


def best_of_groups(group: np.ndarray, score: np.ndarray, count: int) -> np.ndarray:
    """Indices of the `count` highest scores of each group (ties: the earlier), in
    group order: as sorting each group's indices by falling score, stably.

    >>> best_of_groups(np.array([0, 1, 0, 0, 1]), np.array([0.2, 0.5, 0.7, 0.7, 0.1]), 1).tolist()
    [2, 1]
    """
    order = np.lexsort((np.arange(len(group)), -score, group))
    grouped = group[order]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    return order[rank < count]


class HypothesisRows:
    """Hypothesis rows (kind and size fixed) whose edge scores are asked at many poses."""

    def __init__(self, code: np.ndarray, camera: np.ndarray, emap: EdgeMap):
        """Rows of (kind, size) `code` (KEYS' indices, int64)."""
        # each edge's ends: their offsets in the piece's frame and their lift's scale
        self.ends = tuple(a[code] for pair in _ends(float(camera[2])) for a in pair)
        self.geometry = np.arange(len(code))   # each row's row of `ends`
        self.camera, self.emap = np.ascontiguousarray(camera, np.float32), emap
        g = emap.grid
        self.grid = np.array([g.x0, g.y0, g.res], np.float32)

    @classmethod
    def of(cls, kinds, sizes, camera: np.ndarray, emap: EdgeMap) -> "HypothesisRows":
        """Rows of these kinds and sizes."""
        return cls(np.array([CODE[key] for key in zip(kinds, sizes)], np.int64), camera, emap)

    def take(self, idx: np.ndarray) -> "HypothesisRows":
        """These rows only (their geometry is not built again)."""
        out = object.__new__(HypothesisRows)
        out.ends, out.geometry = self.ends, self.geometry[idx]
        out.camera, out.emap, out.grid = self.camera, self.emap, self.grid
        return out

    def scores(self, params: np.ndarray, repeat: int = 1) -> np.ndarray:
        """Edge scores at params (N·repeat × 3, each row's poses together): each row's
        mean step, float32."""
        return self._run(params, repeat, False)[1]

    def steps(self, params: np.ndarray, repeat: int = 1) -> np.ndarray:
        """The step across each edge at each of its EDGE_SAMPLES (N·repeat × E × S)."""
        return self._run(params, repeat, True)[0]

    def _run(self, params: np.ndarray, repeat: int, keep: bool) -> tuple[np.ndarray, np.ndarray]:
        """The steps (or an empty array, unless `keep`) and each row's mean step: compiled
        (vision.edge_kernels), the angles' sines and cosines numpy's."""
        p = np.ascontiguousarray(params, np.float32)
        a = np.radians(p[:, 2])
        out = np.empty((len(p) if keep else 0, self.ends[1].shape[1], len(EDGE_SAMPLES)), np.float32)
        means = np.empty(len(p), np.float32)
        kernels.steps(p, np.cos(a), np.sin(a), self.ends, self.geometry, int(repeat), self.camera,
                      _SAMPLES, self.grid, self.emap.tensor, out, means)
        return out, means

    def ascent_round(self, params: np.ndarray, best: np.ndarray, moves: np.ndarray) -> None:
        """One round of `ascend`'s moves, in place: compiled (vision.edge_kernels), the
        sines and cosines of every angle the round can reach numpy's."""
        angles = kernels.reachable_angles(params, moves[2, 2], MOVES_PER_ROUND)
        kernels.ascent_round(params, best, moves, np.cos(angles), np.sin(angles), MOVES_PER_ROUND, self.ends,
                             self.geometry, self.camera, _SAMPLES, self.grid, self.emap.tensor)


_SAMPLES = EDGE_SAMPLES.astype(np.float32)
assert 8 * len(_SAMPLES) <= kernels.MEAN_BLOCK   # (a pyramid has 8 edges)


def scores(emap: EdgeMap, kinds, sizes, params: np.ndarray, camera: np.ndarray) -> np.ndarray:
    """Edge score of each hypothesis row at its pose."""
    return HypothesisRows.of(kinds, sizes, camera, emap).scores(np.asarray(params, float))


def refine(emap: EdgeMap, kinds, sizes, params: np.ndarray, camera: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each hypothesis moved (x, y, angle) to where its edges lie on the strongest steps:
    coordinate ascent, steps halved each round (the edge search's, for a row it
    started at the same pose: EdgeMap.searched). Returns (params N×3, scores N)."""
    code = np.array([CODE[key] for key in zip(kinds, sizes)], np.int64)
    params = np.array(params, float)
    score = np.empty(len(params), np.float32)
    todo = np.ones(len(params), bool)
    if emap.searched is not None:
        rows, which = emap.searched.found(code, params, camera)
        params[rows], score[rows], todo[rows] = emap.searched.ends[which], emap.searched.scores[which], False
    if todo.any():
        rows_left = HypothesisRows(code[todo], camera, emap)
        start = params[todo]
        params[todo], score[todo] = ascend(rows_left, start, rows_left.scores(start))
    return params, score


def _round_moves() -> tuple[np.ndarray, ...]:
    """Each round's moves (6×3: +x, +y, +angle, −x, −y, −angle), steps halved each round."""
    step, out = np.array([STEP_MM, STEP_MM, STEP_DEG]), []
    for _ in range(ROUNDS):
        out.append(np.concatenate([np.diag(step), -np.diag(step)]))
        step = step / 2
    return tuple(out)


_ROUND_MOVES = _round_moves()


def ascend(rows: HypothesisRows, params: np.ndarray, best: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`refine` of rows already scored (`best`) at `params` (float64, C order), which it
    moves in place."""
    best = best.copy()
    for moves in _ROUND_MOVES:
        rows.ascent_round(params, best, moves)
    return params, best


# A flat model's edges (vertex pairs, geometry.model: 0, 1 tail corners, 3 nose, 2 and 4
# raised corners): the two along the table to its nose, and the four about its tail.
_NOSE_EDGES, _TAIL_EDGES = ((0, 3), (1, 3)), ((0, 1), (0, 4), (1, 2), (2, 4))


def nose_softness(fits: list, emap: EdgeMap, camera: np.ndarray) -> np.ndarray:
    """For flat fits, how strongly the picture steps across the nose half of their outline
    on the table, as a share of the steps across their tail's edges: plastic's edge is as
    sharp at the nose as at the tail; a shadow's penumbra, fitted as a nose, is soft."""
    pairs = [tuple(p) for p in _geometry(FLAT, Size.SMALL)[2]]
    nose, tail = [pairs.index(e) for e in _NOSE_EDGES], [pairs.index(e) for e in _TAIL_EDGES]
    steps = HypothesisRows.of([FLAT] * len(fits), [f.hypothesis.size for f in fits], camera, emap).steps(
        np.array([f.params for f in fits]))
    half = EDGE_SAMPLES > 0.5   # (pairs run tail corner → nose)
    return steps[:, nose][:, :, half].mean(axis=(1, 2)) / np.maximum(steps[:, tail].mean(axis=(1, 2)), 1e-9)


def _chosen_scores(chosen: list, rows: list[int], emap: EdgeMap, camera: np.ndarray) -> np.ndarray:
    """Edge scores of the fitted pyramids of `chosen` (blob, fit, gap) at `rows`."""
    fits = [chosen[k][1] for k in rows]
    return scores(emap, [f.hypothesis.kind for f in fits], [f.hypothesis.size for f in fits],
                  np.array([f.params for f in fits]), camera)


def ridged_dark(chosen: list, emap: EdgeMap, camera: np.ndarray) -> set[int]:
    """Indices of the dark candidates in `chosen` (blob, fit, gap) fitted as uprights
    whose edges score at least DARK_PIECE_EDGES: pyramids, not shadows."""
    rows = [k for k, (b, best, _) in enumerate(chosen) if b.dark and best.hypothesis.kind == UPRIGHT]
    if not rows:
        return set()
    return {k for k, v in zip(rows, _chosen_scores(chosen, rows, emap, camera)) if v >= DARK_PIECE_EDGES}


def ridged(chosen: list, rows: set[int], emap: EdgeMap, camera: np.ndarray, least: float) -> set[int]:
    """Of the candidates `rows` of `chosen` (blob, fit, gap), the pyramids whose edges
    score at least `least` and whose ridges step at least RIDGE_SHARE as much as their
    outline: a hard shadow's outline steps too, but it has no ridges."""
    rows = [k for k in sorted(rows) if chosen[k][1].hypothesis.kind != COIN]
    if not rows:
        return set()
    fits = [chosen[k][1] for k in rows]
    steps = HypothesisRows.of([f.hypothesis.kind for f in fits], [f.hypothesis.size for f in fits], camera,
                              emap).steps(np.array([f.params for f in fits])).mean(axis=2)
    out = set()
    for k, f, row in zip(rows, fits, steps):
        ridge = _ridge_edges(f.hypothesis.kind, f.hypothesis.size)
        if row.mean() >= least and row[ridge].mean() >= RIDGE_SHARE * row[~ridge].mean():
            out.add(k)
    return out


@lru_cache(maxsize=None)
def _ridge_edges(kind: str, size: Size) -> np.ndarray:
    """Which of a model's edges (`_geometry`'s order) are ridges (decide.RIDGES), bool."""
    pairs = [tuple(p) for p in _geometry(kind, size)[2].tolist()]
    ridge = np.zeros(len(pairs), bool)
    ridge[[pairs.index(tuple(sorted(e))) for e in RIDGES[kind]]] = True
    return ridge


def edgeless(chosen: list, emap: EdgeMap, camera: np.ndarray, small_mm2: float) -> set[int]:
    """Indices of the weakest candidates in `chosen` (blob, fit, gap), coloured blobs under
    `small_mm2`, dark candidates and any fitted as flat pieces, whose fitted pyramids'
    edges score under WEAK_BLOB_EDGES: table texture or shadow, not pieces."""
    rows = [k for k, (b, best, _) in enumerate(chosen) if best.hypothesis.kind != COIN
            and (best.hypothesis.kind == FLAT or b.dark or b.area_mm2 < small_mm2)]
    if not rows:
        return set()
    return {k for k, v in zip(rows, _chosen_scores(chosen, rows, emap, camera)) if v < WEAK_BLOB_EDGES}


def with_edges(chosen: list, emap: EdgeMap, camera: np.ndarray) -> list:
    """`chosen` (blob, fit, gap) with each pyramid's pose moved POSE_BY_EDGES of the way to
    where its edges lie best, searched from it: the outline's reading and the edges' averaged."""
    pyramids = [k for k, (_, best, _) in enumerate(chosen) if best.hypothesis.kind != COIN]
    if not pyramids:
        return chosen
    fits = [chosen[k][1] for k in pyramids]
    kinds = [f.hypothesis.kind for f in fits]
    params = np.array([f.params for f in fits], float)
    by_edges, _ = refine(emap, kinds, [f.hypothesis.size for f in fits], params, camera)
    period = np.where(np.array(kinds) == FLAT, 360.0, 90.0)   # an upright's rotation is mod 90
    turn = (by_edges[:, 2] - params[:, 2] + period / 2) % period - period / 2
    params += POSE_BY_EDGES * np.column_stack([by_edges[:, :2] - params[:, :2], turn])
    out = list(chosen)
    for k, f, p in zip(pyramids, fits, params):
        out[k] = (chosen[k][0], fitting.Fit(f.hypothesis, p, f.rms, f.iou), chosen[k][2])
    return out
