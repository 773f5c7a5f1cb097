"""Where a pyramid's edges are: the picture's steps along a hypothesis's edges decide its
size, and whether it stands or lies, when the outline fit cannot.

The outline fit (vision.fit) sees only the blob, and a blob may hold only some faces of
a piece: a face that mirrors the table beside it looks like the table, a shaded face like
a shadow, and the blob then looks a size smaller, or like a flat piece. A tinted shadow
grows a blob the other way. But a pyramid's edges are where its faces meet each other or
the table, and faces turned differently show different light: the picture steps across
every edge, in some colour channel, whatever each face shows. A shadow's soft outline and
bare table have no such steps where the model puts its ridges.

A hypothesis's edge score is the mean, over points along its apparent edges (an
upright's four base edges and four ridges, a flat piece's eight edges), of the strength
of the picture's log-colour gradient across the edge. Each hypothesis is first moved
(x, y, angle) to where its edges lie best (`refine`), from the outline fit's poses and
from the other sizes laid where those lie (a bigger upright also with the blob in its
corner or at its side: a blob of a piece's lit faces only is off its centre; an upright
at a flat fit's tail: an upright and its shadow make a flat-shaped blob). The
decision (`steps_decide`) then takes another size of the same pose when its edges are
EDGE_RATIO times stronger than the winner's, another pose only at OTHER_POSE_RATIO
(the ridges of an upright seen from above hold a flat piece's outline), within the
decisions' usual near tie of the outline cost (an upright beyond which the blob holds
only tinted shadow, whatever its outline cost); a size the outline fit did not try (its
apparent area too far from the blob's) at UNFITTED_RATIO, a smaller one of those only
where the rest of the blob is shadow. An upright whose faces beyond the blob are darker
than the table (shaded faces the blob left out as shadow) needs only EDGE_RATIO, tried
or not, and whatever the winner's pose.
The switched piece keeps the outline fit's IoU; its confidence in the choice comes from
the edges (EDGE_CONFIDENT).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from domain import Size
from vision import decide
from vision import fit as fitting
from vision.geometry import COIN, FLAT, UPRIGHT, model
from vision.rectify import TableGrid
from vision.segment import LOG_LUT

# Points along each edge, away from its ends (where edges meet, and a blurred corner
# belongs to both).
EDGE_SAMPLES = np.linspace(0.15, 0.85, 6)
# The picture is smoothed by this much (grid pixels, Gaussian sigma) before its gradient:
# sensor noise and JPEG blocks step too, over single pixels.
SMOOTH_PX = 0.8
# `refine`: coordinate ascent over (x, y, angle) from these steps (mm, degrees), halved
# after each round of MOVES_PER_ROUND moves: at most 3.5 mm and 10.5° from the start.
STEP_MM, STEP_DEG, ROUNDS, MOVES_PER_ROUND = 1.0, 3.0, 3, 2
# An upright's rotation from the outline fit is poor when faces are missing from the
# blob: its edges are also searched from these turns of it (degrees, mod 90).
UPRIGHT_TURNS = (22.5, 45.0, 67.5)
# Of the starts of one size and pose, only the one whose edges already lie best is
# searched from (with the winner's own): the others rarely end higher, and cost the time.
STARTS_REFINED = 1
# Another size of the winner's pose wins when its edges are this many times stronger
# (measured: the true model scores 1.2-2.8 times a wrong size on the pictures the
# outline fit gets wrong) ...
EDGE_RATIO = 1.2
# ... another pose only at this ratio: the ridges of an upright hold a flat piece's
# outline, and vice versa (measured over our renders and path-traced ones: of the
# pieces whose other pose's edges beat the winner's by 1.35 or more, 2 in 11 had the
# pose right; 1.5 left 9 of those 11 wrong, 1.3 broke pieces of A) ...
OTHER_POSE_RATIO = 1.35
# ... and a size the outline fit did not try (its apparent area too far from the blob's)
# at this one, unless it is a bigger upright adding dark faces to the blob (measured on
# 59 path-traced scenes: 8 uprights a size too small fixed at EDGE_RATIO, none broken;
# over bare table, a small upright beside others was taken for a large one).
UNFITTED_RATIO = 1.5
# A dark, hueless candidate touching a piece is the piece's shadow unless it is an upright
# whose edges step at least this strongly (measured: the dark uprights dropped as shadows
# that were real pieces scored 0.17-0.45, those that were not 0.11-0.17; shadows, soft
# and without ridges, are mostly fitted as flat pieces).
DARK_PIECE_EDGES = 0.2
# A coloured blob smaller than a piece's footprint, or a dark, hueless one fitted as a
# flat piece, is a piece only if its edges score at least this (measured on our renders
# and path-traced ones: felt's blotches tinted by chance scored 0.049-0.052, dark streaks
# of wood 0.040-0.049; such pieces 0.068 and up).
WEAK_BLOB_EDGES = 0.06
# A piece whose size or pose the edges changed is fully confident when its edges beat
# the ratio it needed by this share; just past it, not at all.
EDGE_CONFIDENT = 0.3


@dataclass
class EdgeMap:
    """The rectified picture's log-colour gradient as a structure tensor per grid pixel:
    (Jxx, Jxy, Jyy) summed over the colour channels, so that the squared step across a
    direction n is n·J·n."""

    tensor: np.ndarray   # H×W×3 float32
    grid: TableGrid


def edge_map(table_bgr: np.ndarray, grid: TableGrid, boxes: list[tuple[int, int, int, int]]) -> EdgeMap:
    """EdgeMap of a rectified BGR picture on `grid`, worked out only in `boxes` (x, y, w, h,
    grid pixels; zero elsewhere): around the pieces, not over the whole table."""
    height, width = table_bgr.shape[:2]
    tensor = np.zeros((height, width, 3), np.float32)
    margin = 4   # the smoothing's and the gradient's reach, so each box is worked out exactly
    for x, y, w, h in boxes:
        x0, y0 = max(x - margin, 0), max(y - margin, 0)
        x1, y1 = min(x + w + margin, width), min(y + h + margin, height)
        log = cv2.GaussianBlur(cv2.LUT(table_bgr[y0:y1, x0:x1], LOG_LUT), (0, 0), SMOOTH_PX)
        gx = cv2.Sobel(log, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8)
        gy = cv2.Sobel(log, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8)
        part = cv2.merge([cv2.transform(cv2.multiply(a, b), _CHANNEL_SUM) for a, b in ((gx, gx), (gx, gy), (gy, gy))])
        ix0, iy0 = max(x, 0), max(y, 0)
        ix1, iy1 = min(x + w, width), min(y + h, height)
        tensor[iy0:iy1, ix0:ix1] = part[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0]
    return EdgeMap(tensor, grid)


_CHANNEL_SUM = np.ones((1, 3), np.float32)


@lru_cache(maxsize=None)
def _geometry(kind: str, size: Size) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A model's vertex offsets, heights and edges (vertex index pairs, 8×2)."""
    m = model(kind, size)
    pairs = {tuple(sorted((int(f[i]), int(f[(i + 1) % 4])))) for f in m.faces for i in range(4)
             if f[i] != f[(i + 1) % 4]}
    return m.offsets, m.heights, np.array(sorted(pairs))


class _Rows:
    """Hypothesis rows (kind and size fixed) whose edge scores are asked at many poses."""

    def __init__(self, kinds, sizes, camera: np.ndarray, emap: EdgeMap):
        keys: dict[tuple[str, Size], int] = {}
        which = np.array([keys.setdefault(key, len(keys)) for key in zip(kinds, sizes)])
        geo = [_geometry(*key) for key in keys]
        offsets = np.array([g[0] for g in geo])[which]                                 # N×5×2
        scale = (camera[2] / (camera[2] - np.array([g[1] for g in geo])))[which]       # N×5
        pairs = np.array([g[2] for g in geo])[which]                                   # N×E×2
        rows = np.arange(len(which))[:, None]
        # each edge's ends: their offsets in the piece's frame and their lift's scale
        self.ends = [(offsets[rows, pairs[..., k]].astype(np.float32), scale[rows, pairs[..., k]].astype(np.float32))
                     for k in (0, 1)]
        self.camera, self.emap = camera.astype(np.float32), emap

    def take(self, idx: np.ndarray) -> "_Rows":
        """These rows only (their geometry is not built again)."""
        out = object.__new__(_Rows)
        out.ends = [(off[idx], scale[idx]) for off, scale in self.ends]
        out.camera, out.emap = self.camera, self.emap
        return out

    def scores(self, params: np.ndarray, repeat: int = 1) -> np.ndarray:
        """Edge scores at params (N·repeat × 3, each row's poses together)."""
        p = params.astype(np.float32)
        a = np.radians(p[:, 2])
        c, s = np.cos(a)[:, None], np.sin(a)[:, None]
        cx, cy = self.camera[0], self.camera[1]
        x, y = p[:, 0, None] - cx, p[:, 1, None] - cy
        ends = []
        for off, scale in self.ends:
            if repeat > 1:
                off, scale = np.repeat(off, repeat, axis=0), np.repeat(scale, repeat, axis=0)
            along, across = off[..., 0], off[..., 1]
            ends.append((cx + (x + along * c - across * s) * scale, cy + (y + along * s + across * c) * scale))
        (ax, ay), (bx, by) = ends                                                      # N×E each
        dx, dy = bx - ax, by - ay
        length = np.maximum(np.hypot(dx, dy), 1e-6)
        nx, ny = (-dy / length)[..., None], (dx / length)[..., None]
        g = self.emap.grid
        t = EDGE_SAMPLES.astype(np.float32)
        px = (ax[..., None] + t * dx[..., None] - np.float32(g.x0)) / np.float32(g.res) - 0.5   # N×E×S
        py = (ay[..., None] + t * dy[..., None] - np.float32(g.y0)) / np.float32(g.res) - 0.5
        j = _lookup(self.emap.tensor, px, py)
        step2 = nx * nx * j[..., 0] + 2 * nx * ny * j[..., 1] + ny * ny * j[..., 2]
        return np.sqrt(np.maximum(step2, 0)).mean(axis=(1, 2))


# cv2.remap's maps are at most 32767 wide: points are looked up in rows of this many.
_LOOKUP_WIDTH = 4096


def _lookup(image: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Bilinear values of a 3-channel image at float pixel positions (x, y, any shape):
    that shape × 3, zero outside."""
    n = x.size
    rows = -(-n // _LOOKUP_WIDTH)
    maps = np.zeros((2, rows * _LOOKUP_WIDTH), np.float32)
    maps[0, :n], maps[1, :n] = x.ravel(), y.ravel()
    out = cv2.remap(image, maps[0].reshape(rows, -1), maps[1].reshape(rows, -1), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_CONSTANT)
    return out.reshape(-1, 3)[:n].reshape(x.shape + (3,))


def scores(emap: EdgeMap, kinds, sizes, params: np.ndarray, camera: np.ndarray) -> np.ndarray:
    """Edge score of each hypothesis row at its pose."""
    return _Rows(kinds, sizes, camera, emap).scores(np.asarray(params, float))


def refine(emap: EdgeMap, kinds, sizes, params: np.ndarray, camera: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each hypothesis moved (x, y, angle) to where its edges lie on the strongest steps:
    coordinate ascent, steps halved each round. Returns (params N×3, scores N)."""
    rows = _Rows(kinds, sizes, camera, emap)
    params = np.array(params, float)
    return _ascend(rows, params, rows.scores(params))


def _ascend(rows: _Rows, params: np.ndarray, best: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`refine` of rows already scored (`best`) at `params`, which it moves in place."""
    n = len(params)
    step = np.array([STEP_MM, STEP_MM, STEP_DEG])
    for _ in range(ROUNDS):
        moves = np.concatenate([np.diag(step), -np.diag(step)])                        # 6×3
        for _ in range(MOVES_PER_ROUND):
            trial = (params[:, None, :] + moves[None]).reshape(-1, 3)
            s = rows.scores(trial, len(moves)).reshape(n, len(moves))
            pick = np.argmax(s, axis=1)
            top = s[np.arange(n), pick]
            gain = top > best
            params[gain] = trial.reshape(n, len(moves), 3)[np.flatnonzero(gain), pick[gain]]
            best = np.where(gain, top, best)
        step = step / 2
    return params, best


def _starts(best: fitting.Fit, options: list[fitting.Fit]) -> list[tuple[str, Size, tuple[float, float, float]]]:
    """Where to search each size and pose from: the cheapest fit of each, the other sizes
    laid where it lies (an upright about the same centre, a bigger one also with the fit
    in any corner or at any side of it; a flat piece by its tail, its nose or its middle;
    an upright with its back edge on a flat fit's tail), the winner itself first, and
    uprights turned (UPRIGHT_TURNS).
    Poses as plain (x, y, angle) tuples: a few dozen a blob, made faster without arrays."""
    top: dict[tuple[str, Size], tuple[float, fitting.Fit]] = {}
    for f in options:
        h = f.hypothesis
        if h.kind == COIN or f.iou < decide.IOU_MIN:
            continue
        c = decide.cost(f)
        if (h.kind, h.size) not in top or c < top[(h.kind, h.size)][0]:
            top[(h.kind, h.size)] = (c, f)
    out = [(best.hypothesis.kind, best.hypothesis.size, tuple(float(v) for v in best.params))]
    for (kind, size), (_, f) in top.items():
        x, y, angle = (float(v) for v in f.params)
        out.append((kind, size, (x, y, angle)))
        ux, uy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        for other in Size:
            if other is size:
                continue
            if kind == UPRIGHT:
                out.append((UPRIGHT, other, (x, y, angle)))
                out += _around(other, x, y, angle, (other.base - size.base) / 2)
                continue
            shift = size.slant - other.slant
            for keep in (0.0, 1.0, 0.5):   # tail, nose, middle where they are
                out.append((FLAT, other, (x + keep * shift * ux, y + keep * shift * uy, angle)))
        if kind == FLAT:   # an upright at the tail, its shadow taken for the rest of a flat piece
            for other in Size:
                half = other.base / 2
                out += [(UPRIGHT, other, (x + half * ux, y + half * uy, angle + turn)) for turn in (0.0,) + UPRIGHT_TURNS]
    turned = []
    for size in Size:
        first = next((p for k, z, p in out if k == UPRIGHT and z is size), None)
        if first is not None:
            turned += [(UPRIGHT, size, (first[0], first[1], first[2] + turn)) for turn in UPRIGHT_TURNS]
    return out + turned


# Unit steps to a square's corners and the middles of its sides, in its own frame.
_CORNERS_AND_SIDES = ((1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1))


def _around(size: Size, x: float, y: float, angle: float, grow: float) -> list[tuple[str, Size, tuple[float, float, float]]]:
    """A bigger upright (by `grow` mm each way) holding a smaller one's fit at (x, y,
    angle) in any corner or at any side, at that angle and turned: a blob of only the lit
    faces is the corner or side of the piece, whose centre is then off the blob's."""
    if grow <= 0:
        return []
    out = []
    for turn in (0.0,) + UPRIGHT_TURNS:
        a = math.radians(angle + turn)
        ux, uy = math.cos(a), math.sin(a)
        out += [(UPRIGHT, size, (x + grow * (i * ux - j * uy), y + grow * (i * uy + j * ux), angle + turn))
                for i, j in _CORNERS_AND_SIDES]
    return out


def _search(emap: EdgeMap, starts: list[tuple[str, Size, tuple[float, float, float]]], owner: np.ndarray,
            camera: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Refined params and edge scores of the starts (score -1: not searched from). Each
    owner's first start (its winner) is searched from, and of its other starts of each
    size and pose the STARTS_REFINED whose edges already lie best."""
    kinds, sizes = [s[0] for s in starts], [s[1] for s in starts]
    params = np.array([s[2] for s in starts], float)
    rows_all = _Rows(kinds, sizes, camera, emap)
    first = rows_all.scores(params)
    keep = np.zeros(len(starts), bool)
    keep[np.r_[0, np.flatnonzero(owner[1:] != owner[:-1]) + 1]] = True
    groups: dict[tuple, list[int]] = {}
    for r in range(len(starts)):
        groups.setdefault((owner[r], kinds[r], sizes[r]), []).append(r)
    for rows in groups.values():
        keep[sorted(rows, key=lambda r: -first[r])[:STARTS_REFINED]] = True
    idx = np.flatnonzero(keep)
    score = np.full(len(starts), -1.0)
    params[idx], score[idx] = _ascend(rows_all.take(idx), params[idx], first[idx])
    return params, score


def _rest_is_shadow(b, key: tuple[str, Size], params: np.ndarray, grid: TableGrid, camera: np.ndarray) -> bool:
    """Is what the blob holds beyond a smaller hypothesis (past the blurred rim), as a
    whole, tinted shadow: darker than the table, with under decide.TINT_SHARE of the hue
    change of the plastic inside the hypothesis?"""
    origin = grid.to_mm(b.origin_px[None])[0] - 0.5 * grid.res
    inside = decide._model_mask(fitting.Fit(fitting.Hypothesis(0, *key), params, 0.0, 0.0), b.part.mask.shape,
                                origin, grid.res, camera) & (b.part.mask > 0)
    grow = np.ones((2 * decide.SHADOW_EDGE_PX + 1,) * 2, np.uint8)
    beyond = (b.part.mask > 0) & (cv2.dilate(inside.astype(np.uint8), grow) == 0)
    if not beyond.any() or not inside.any():
        return False
    return bool(np.median(b.lum[beyond]) < decide.SHADOW_DARKER
                and np.median(b.chroma[beyond]) < decide.TINT_SHARE * np.median(b.chroma[inside]))


def _added_is_dark(b, key: tuple[str, Size], params: np.ndarray, grid: TableGrid, camera: np.ndarray) -> bool:
    """Is what a bigger hypothesis covers beyond the blob (past the blurred rim), as a
    whole, darker than the table: the piece's shaded faces, which the blob left out as
    shadow? (Bare table there says the blob is the whole piece.)"""
    origin = grid.to_mm(b.origin_px[None])[0] - 0.5 * grid.res
    model = decide._model_mask(fitting.Fit(fitting.Hypothesis(0, *key), params, 0.0, 0.0), b.part.mask.shape,
                               origin, grid.res, camera)
    grow = np.ones((2 * decide.SHADOW_EDGE_PX + 1,) * 2, np.uint8)
    added = model & (cv2.dilate(b.part.mask, grow) == 0)
    return bool(added.any() and np.median(b.lum[added]) < decide.SHADOW_DARKER)


def _better(b, best: fitting.Fit, options: list[fitting.Fit], keys: list[tuple[str, Size]],
            score: np.ndarray, params: np.ndarray, grid: TableGrid, camera: np.ndarray) -> tuple[int, float] | None:
    """Which of a blob's searched starts (their size and pose `keys`, edge `score` and
    refined `params`; the first is the winner's own) should replace the winner, if any,
    and by how much its edges beat the ratio it needed (0: just)."""
    mine = (best.hypothesis.kind, best.hypothesis.size)
    fitted = {(f.hypothesis.kind, f.hypothesis.size): decide.cost(f) for f in options
              if f.hypothesis.kind != COIN and f.iou >= decide.IOU_MIN}
    top: dict[tuple[str, Size], int] = {}
    for r in range(1, len(keys)):
        if keys[r] != mine and (keys[r] not in top or score[r] > score[top[keys[r]]]):
            top[keys[r]] = r
    for key, r in sorted(top.items(), key=lambda kv: -score[kv[1]]):
        if score[r] < EDGE_RATIO * score[0]:   # the least any rival needs
            continue
        # a rival whose outline fits far worse is out, unless it is an upright beside which
        # the blob holds only tinted shadow (the outline fit took it for a flat piece's nose)
        if key in fitted and fitted[key] > decide.cost(best) + decide.RIDGE_SWAP_COST_MM \
                and not (key[0] == UPRIGHT and mine[0] == FLAT and _rest_is_shadow(b, key, params[r], grid, camera)):
            continue
        # an upright whose faces beyond the blob are darker than the table (where a flat
        # piece or a smaller upright would leave table) is as likely as its edges say
        dark_upright = key[0] == UPRIGHT and _added_is_dark(b, key, params[r], grid, camera)
        ratio = EDGE_RATIO if key[0] == mine[0] or dark_upright else OTHER_POSE_RATIO
        if key not in fitted and not (dark_upright and mine[0] == UPRIGHT and key[1].base > mine[1].base):
            ratio = max(ratio, UNFITTED_RATIO)
        needed = ratio * score[0]
        if score[r] < needed:
            continue
        # A blob may lack faces: the piece may be a size the fit found too big to try. One
        # too small to try leaves much of the blob out, which must then be shadow (its
        # edges could lie on a bigger piece's: a small flat fits in a large one's nose).
        if key not in fitted and key[1].base <= best.hypothesis.size.base \
                and not _rest_is_shadow(b, key, params[r], grid, camera):
            continue
        return r, float(score[r] / max(needed, 1e-9) - 1)
    return None


def steps_decide(chosen: list, all_options: list[list[fitting.Fit]], emap: EdgeMap, camera: np.ndarray,
                 full_gap: float) -> list:
    """`chosen` (blob, fit, gap) with each pyramid's size and pose decided again by its
    edges (see the module's docstring); `all_options` are each entry's fitted options.
    A piece the edges decide gets a gap (the pipeline's measure of how clear its choice
    was; `full_gap` is full confidence) from how far its edges beat the ratio it needed:
    full at EDGE_CONFIDENT beyond it."""
    starts, owner = [], []
    for i, ((_, best, _), options) in enumerate(zip(chosen, all_options)):
        if best.hypothesis.kind != COIN:
            s = _starts(best, options)
            starts += s
            owner += [i] * len(s)
    if not starts:
        return chosen
    owner_arr = np.array(owner)
    params, score = _search(emap, starts, owner_arr, camera)
    out = list(chosen)
    for i in np.unique(owner_arr):
        rows = np.flatnonzero(owner_arr == i)
        b, best, gap = chosen[i]
        pick = _better(b, best, all_options[i], [(starts[r][0], starts[r][1]) for r in rows], score[rows],
                       params[rows], emap.grid, camera)
        if pick is not None:
            r, beyond = rows[pick[0]], pick[1]
            kind, size = starts[r][:2]
            out[i] = (b, fitting.Fit(fitting.Hypothesis(best.hypothesis.blob, kind, size), params[r], best.rms, best.iou),
                      full_gap * min(beyond / EDGE_CONFIDENT, 1.0))
    return out


def ridged_dark(chosen: list, emap: EdgeMap, camera: np.ndarray) -> set[int]:
    """Indices of the dark candidates in `chosen` (blob, fit, gap) fitted as uprights
    whose edges score at least DARK_PIECE_EDGES: pyramids, not shadows."""
    rows = [k for k, (b, best, _) in enumerate(chosen) if b.dark and best.hypothesis.kind == UPRIGHT]
    if not rows:
        return set()
    fits = [chosen[k][1] for k in rows]
    score = scores(emap, [f.hypothesis.kind for f in fits], [f.hypothesis.size for f in fits],
                   np.array([f.params for f in fits]), camera)
    return {k for k, v in zip(rows, score) if v >= DARK_PIECE_EDGES}


def edgeless(chosen: list, emap: EdgeMap, camera: np.ndarray, small_mm2: float) -> set[int]:
    """Indices of the weakest candidates in `chosen` (blob, fit, gap), coloured blobs under
    `small_mm2` and dark ones fitted as flat pieces, whose fitted pyramids' edges score
    under WEAK_BLOB_EDGES: table texture, not pieces."""
    rows = [k for k, (b, best, _) in enumerate(chosen) if best.hypothesis.kind != COIN
            and (best.hypothesis.kind == FLAT if b.dark else b.area_mm2 < small_mm2)]
    if not rows:
        return set()
    fits = [chosen[k][1] for k in rows]
    score = scores(emap, [f.hypothesis.kind for f in fits], [f.hypothesis.size for f in fits],
                   np.array([f.params for f in fits]), camera)
    return {k for k, v in zip(rows, score) if v < WEAK_BLOB_EDGES}
