"""Edge steps: the picture's steps along a hypothesis's edges (vision.edges) decide a
piece's size, and whether it stands or lies, when the outline fit cannot.

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
(x, y, angle) to where its edges lie best (vision.edge_search), from the outline fit's
poses and from the other sizes laid where those lie (a bigger upright also with the blob
in its corner or at its side: a blob of a piece's lit faces only is off its centre; an
upright at a flat fit's tail: an upright and its shadow make a flat-shaped blob). The
decision (`steps_decide`) then takes another size of the same pose when its edges are
EDGE_RATIO times stronger than the winner's (at the best start of its own size and
pose that covers the blob as well as its own: _winner_at_its_best), another pose only at OTHER_POSE_RATIO
(the ridges of an upright seen from above hold a flat piece's outline; CLOSE_POSE_RATIO
where the outline fits it nearly as well), within the
decisions' usual near tie of the outline cost (an upright beyond which the blob holds
only tinted shadow, whatever its outline cost); a size the outline fit did not try (its
apparent area too far from the blob's) at UNFITTED_RATIO, a smaller one of those only
where the rest of the blob is shadow. An upright whose faces beyond the blob are darker
than the table (shaded faces the blob left out as shadow) needs only EDGE_RATIO, tried
or not, and whatever the winner's pose; a bigger one than an upright winner, adding
shaded faces of SHADED_FACES_SHARE or more, is not ruled out by its outline cost either
(the outline is the lit faces'). A flat winner whose nose points along the
shadows and steps softly there (a penumbra: an upright's shadow taken for a nose) loses
to an upright whose edges are as strong as its own (SOFT_NOSE), and so does one whose
nose is tinted like a shadow, diluted, or whose top face is hardly tinted at all
(FADED_TOP_CHROMA); one that points straight along the shadows with a loose outline
loses to an upright with 0.9 of its edges (decide.TIGHT_FIT_COST_MM).
A small flat's edges lie on the nose of a bigger flat piece, often stronger than that
piece's whole outline (its open base is as pale as the table): a flat winner's smaller
flat rival gives way to a flat of the size between them whose edges beat the winner's too
(on A, held out, the 100 path-traced scenes and N: of the large flat winners the edges
moved to a small flat with a medium passing as well, 5 of 5 were medium pieces).
A flat winner that is an upright's shaded faces, ringed by its faint lit ones (darker
than the table and tinted), gives way to that upright at FAINT_RING_RATIO.
The switched piece keeps the outline fit's IoU; its confidence in the choice comes from
the edges (EDGE_CONFIDENT).
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from domain import Size
from vision import decide
from vision import fit as fitting
from vision.edge_search import search, starts
from vision.edges import CODE, KEYS, EdgeMap, nose_softness
from vision.faint_faces import ring_reading
from vision.geometry import COIN, FLAT, UPRIGHT, hypothesis_faces
from vision.medians import median
from vision.rectify import TableGrid
from vision.shadows import SHADOW_SIDE_COS
from vision.touching import angle_apart

# Another size of the winner's pose wins when its edges are this many times stronger
# (measured: the true model scores 1.2-2.8 times a wrong size on the pictures the
# outline fit gets wrong) ...
EDGE_RATIO = 1.2
# ... another pose only at this ratio: the ridges of an upright hold a flat piece's
# outline, and vice versa (measured over our renders and path-traced ones: of the
# pieces whose other pose's edges beat the winner's by 1.35 or more, 2 in 11 had the
# pose right; 1.5 left 9 of those 11 wrong, 1.3 broke pieces of A) ...
OTHER_POSE_RATIO = 1.35
# ... or at CLOSE_POSE_RATIO when the outline fits the other pose nearly as well: at most
# CLOSE_POSE_COST_MM costlier (not cheaper: a rule that overruled it stands). Measured on
# the final readings of our sets and both path-traced wall models, such rivals with edges
# 1.2-1.35 times the winner's were right 3 of 3 times (a faint-nosed flat read as the
# upright its tail looks like), 1.0-1.2 times 2 of 11 (the winner 4).
CLOSE_POSE_COST_MM = 0.5
CLOSE_POSE_RATIO = 1.2
# ... and a size the outline fit did not try (its apparent area too far from the blob's)
# at this one, unless it is a bigger upright adding dark faces to the blob (measured on
# 59 path-traced scenes: 8 uprights a size too small fixed at EDGE_RATIO, none broken;
# over bare table, a small upright beside others was taken for a large one).
UNFITTED_RATIO = 1.5
# An upright winner that covers, beyond its blob, dark faces of at least this share of
# the blob's area (a face or more of its four: the blob left its shaded faces out as
# shadow) keeps its pose against a flat rival, whose edges lie on its ridges. Measured on
# the uprights that switched to a flat at OTHER_POSE_RATIO (A, held out, N, crowded,
# 36 path-traced scenes): the two path-traced large uprights (9205 blue, 9226 yellow)
# covered 0.65 and 0.77 of their blob in dark faces; the flat pieces 0.01-0.06, as did
# two uprights (0.07, 0.08) that are left as they were. A bigger upright rival adding
# that share of dark faces to an upright winner is not ruled out by its outline cost
# (path-traced 9202 and 9214, large uprights read medium, 0.66 and 1.27 of the blob: the
# medium outlines the lit faces; 66 path-traced scenes +2 sizes, our renders unchanged).
SHADED_FACES_SHARE = 0.25
# A flat winner's better start counts only when it points the same way, within this
# (degrees): one turned round is another reading of the blob, not the winner at its best.
SAME_WAY_DEG = 45.0
# A piece whose size or pose the edges changed is fully confident when its edges beat
# the ratio it needed by this share; just past it, not at all.
EDGE_CONFIDENT = 0.3
# A flat winner whose nose points along the picture's shadow direction (within ~45°,
# shadows.SHADOW_SIDE_COS) and whose outline steps there under this share of its tail's
# edges (edges.nose_softness) is an upright's shadow taken for a nose: an upright whose
# edges are as strong as the flat's (SOFT_NOSE_RATIO) wins. Measured over our renders and
# 113 path-traced scenes: of the flat winners this soft and along the shadow, 11 were
# uprights, 2 flat pieces and 3 no piece (below 0.6: 14 uprights and 5 flat pieces).
# So is one whose nose half is tinted under decide.TINT_SHARE of its tail half (a
# shadow's diluted tint): path tracing focuses light through an upright into a shadow
# that steps as sharply as a nose (softness 0.6-2.0). Of the flat winners along the
# shadow on A, held out and PBR 83, the nose/tail tint ratio was 0.49-0.94 (10th-90th
# percentile) for the 18 that were uprights and 0.81-1.12 for the 167 flat pieces.
SOFT_NOSE = 0.5
# So does one pointing straight along the shadows (cosine STRAIGHT_ALONG, ~11°) whose
# outline fits loosely (cost at least decide.TIGHT_FIT_COST_MM). Of the flat
# winners that straight along the shadows on A, held out, N, crowded, hazy, light cloth
# and the 66 path-traced scenes, the 66 over flat pieces had outline costs 0.24-2.6 mm
# (12 of them 1.5 or more, two of those with an upright's edges as strong: A 9215, a
# false piece either way, and held out 9612, whose edges pick a flat still); the 21 over
# uprights 0.9-3.0 (17 of them 1.5 or more). Such a flat loses to an upright with
# STRAIGHT_LOOSE_RATIO of its edges: of those 12 loose flat pieces, the upright rivals of
# all but the two had 0.56-0.87 of their edges (a false flat made of an upright's shadow
# 0.93); of the 17 loose uprights, 5 had 0.93-0.98. Measured: N 6 mistakes fewer (3
# uprights and their shadows read as a flat, and a false piece each), path-traced pose
# 98.3 -> 98.5 % (two green small uprights on felt and cloth), a wrong piece in ten
# colours (9102, black read red) also a size wrong; the rest unchanged. (The 0.9 for
# every soft-nosed flat lost pieces on A, held out and filmic: docs/detection.md.)
STRAIGHT_ALONG = 0.98
STRAIGHT_LOOSE_RATIO = 0.9
SOFT_NOSE_RATIO = 1.0
# So does a flat winner whose top face (from its raised corners to its nose, the face the
# camera sees) is barely tinted, its median hue change (log) under FADED_TOP_CHROMA: a
# flat piece's top face is its plastic, tinted as its colour goes, where an upright's
# shadow taken for it is lit by the room as well, diluted. Measured over the flat winners
# the edges kept on A, held out, the 100 path-traced scenes and N: 0.13-0.45 (10th-90th
# percentile) for the 44 that were uprights, 0.52-1.39 for the 857 flat pieces, whose
# faint end is green on green felt (0.21 for green's 10th percentile). At 0.35, with the
# upright's edges as strong as the flat's, every set above loses mistakes (held out 37 ->
# 28, N 55 -> 51); A trades one green large flat on green felt for an upright.
FADED_TOP_CHROMA = 0.35
# A flat winner inside an upright's faint faces: path-traced uprights (nests most of all)
# often show only two shaded faces as a blob, a half-square triangle that fits a flat
# piece, the lit faces mirroring the table. An upright rival covering FAINT_RING_COVER of
# the blob, whose ring beyond it is both darker than the table just outside and tinted
# like the plastic (vision.faint_faces.ring_reading), wins with FAINT_RING_RATIO of the
# flat's edges. Measured over the flat winners the edges kept on A, held out, N, T,
# crowded, five colours, light cloth, hazy, filmic, hands and the 66 path-traced scenes
# with thin and thick walls: 15 uprights of that size (two flat winners in one of them)
# against 5 flat pieces with their shadow (N 9719, crowded 9539, light cloth 9604 and
# 9608, hands 9906), 1 upright of another size and 2 false pieces (edge ratios: such
# uprights 0.89-1.45, flat pieces' best upright rivals 0.49-0.88, 10th-90th percentiles;
# neither the fit's cost, the ring's darkening or tint, nor which side of the blob it
# lies on told the 5 apart). Path-traced thin walls: size 97.5 -> 98.1 %, pose 98.0 ->
# 98.5 %, false 0.9 -> 0.7 %; thick: 2 more right, 1 false fewer; T 1 more right.
FAINT_RING_RATIO = 0.85
FAINT_RING_COVER = 0.9
_FLAT_TOP = 4   # the top face's index in geometry.model's flat faces


# The blurred rim around a blob or a model, which belongs to neither side.
_RIM = np.ones((2 * decide.SHADOW_EDGE_PX + 1,) * 2, np.uint8)


def _model_in_box(b, key: tuple[str, Size], params: np.ndarray, grid: TableGrid, camera: np.ndarray,
                  fit: fitting.Fit | None = None) -> np.ndarray:
    """A hypothesis's apparent silhouette drawn in the blob's box (bool); `fit`: the
    blob's fit of that hypothesis and pose, if there is one (it may have it drawn)."""
    return decide._model_mask(fit or fitting.Fit(fitting.Hypothesis(0, *key), params, 0.0, 0.0), b.part.mask.shape,
                              grid.corner_mm(b.origin_px), grid.res, camera)


def _rest_is_shadow(b, key: tuple[str, Size], params: np.ndarray, grid: TableGrid, camera: np.ndarray) -> bool:
    """Is what the blob holds beyond a smaller hypothesis (past the blurred rim), as a
    whole, tinted shadow: darker than the table, with under decide.TINT_SHARE of the hue
    change of the plastic inside the hypothesis?"""
    inside = _model_in_box(b, key, params, grid, camera) & (b.part.mask > 0)
    beyond = (b.part.mask > 0) & (cv2.dilate(inside.astype(np.uint8), _RIM) == 0)
    if not beyond.any() or not inside.any():
        return False
    return bool(median(b.lum[beyond]) < decide.SHADOW_DARKER
                and median(b.chroma[beyond]) < decide.TINT_SHARE * median(b.chroma[inside]))


def _dark_added_share(b, key: tuple[str, Size], params: np.ndarray, grid: TableGrid, camera: np.ndarray) -> float:
    """What a bigger hypothesis covers beyond the blob (past the blurred rim), as a share
    of the blob's area, if that is as a whole darker than the table (the piece's shaded
    faces, which the blob left out as shadow?), else 0 (bare table there says the blob
    is the whole piece). Another piece's plastic beside the blob is not its faces: a
    small upright beside a green flat was taken for a large one holding the flat."""
    added = _model_in_box(b, key, params, grid, camera) & (cv2.dilate(b.part.mask, _RIM) == 0)
    if b.neighbours is not None:
        added &= ~b.neighbours
    if not added.any() or median(b.lum[added]) >= decide.SHADOW_DARKER:
        return 0.0
    return float(np.count_nonzero(added) / max(np.count_nonzero(b.part.mask), 1))


def _in_faint_faces(b, key: tuple[str, Size], params: np.ndarray, grid: TableGrid, camera: np.ndarray) -> bool:
    """Is a (flat winner's) blob the rest of an upright hypothesis, covered by it
    (FAINT_RING_COVER) and ringed by faint faces: darker than the table and tinted?
    (Not a dark candidate's: its ring would be the shadow's own.)"""
    if b.dark:
        return False
    theirs = _model_in_box(b, key, params, grid, camera)
    blob = b.part.mask > 0
    if np.count_nonzero(theirs & blob) < FAINT_RING_COVER * np.count_nonzero(blob):
        return False
    return ring_reading(b, theirs, blob, blob) == (True, True)


def _shadow_noses(chosen: list, emap: EdgeMap, camera: np.ndarray,
                  direction: np.ndarray | None) -> dict[int, float]:
    """The flat winners in `chosen` (blob, fit, gap) that may be an upright and its
    shadow, by index, each with the share of the flat's edges an upright needs: a soft or
    diluted nose along the picture's shadow `direction` (SOFT_NOSE) or a faded top face
    (FADED_TOP_CHROMA), SOFT_NOSE_RATIO; a loose outline straight along it,
    STRAIGHT_LOOSE_RATIO."""
    flats = [k for k, (_, f, _) in enumerate(chosen) if f.hypothesis.kind == FLAT]
    # every flat's top face at once
    tops = hypothesis_faces(np.array([chosen[k][1].params for k in flats], float), [FLAT] * len(flats),
                            [chosen[k][1].hypothesis.size for k in flats], camera)[:, _FLAT_TOP] if flats else []
    out = {k: SOFT_NOSE_RATIO for k, top in zip(flats, tops)
           if _top_faded(chosen[k][0], chosen[k][1], emap.grid, camera, top)}
    if direction is None or not flats:
        return out
    fits = [chosen[k][1] for k in flats]
    heading = np.radians([float(f.params[2]) for f in fits])
    along = np.cos(heading) * direction[0] + np.sin(heading) * direction[1]
    soft = nose_softness(fits, emap, camera)
    for k, f, a, v in zip(flats, fits, along, soft):
        if a < SHADOW_SIDE_COS:
            continue
        if a >= STRAIGHT_ALONG and decide.cost(f) >= decide.TIGHT_FIT_COST_MM:
            out[k] = STRAIGHT_LOOSE_RATIO
        elif v < SOFT_NOSE or _nose_diluted(chosen[k][0], f, emap.grid, camera):
            out.setdefault(k, SOFT_NOSE_RATIO)
    return out


def _top_faded(b, fit: fitting.Fit, grid: TableGrid, camera: np.ndarray, top: np.ndarray | None = None) -> bool:
    """Is a flat hypothesis's top face (within its blurred rim) tinted under
    FADED_TOP_CHROMA? `top`: its apparent corners (mm), if worked out already."""
    origin = grid.corner_mm(b.origin_px)
    if top is None:
        top = hypothesis_faces(np.array([fit.params], float), [FLAT], [fit.hypothesis.size], camera)[0][_FLAT_TOP]
    face = cv2.erode(decide.polygon_mask(top, b.chroma.shape, origin, grid.res).astype(np.uint8), _RIM) > 0
    return bool(face.any() and median(b.chroma[face]) < FADED_TOP_CHROMA)


def _nose_diluted(b, fit: fitting.Fit, grid: TableGrid, camera: np.ndarray) -> bool:
    """Is a flat hypothesis's nose half (of the blob within it) tinted under
    decide.TINT_SHARE of its tail half: a shadow's diluted tint, not plastic?"""
    h = fit.hypothesis
    ys, xs = np.nonzero(_model_in_box(b, (h.kind, h.size), fit.params, grid, camera, fit) & (b.part.mask > 0))
    if len(xs) < 2:
        return False
    origin = grid.corner_mm(b.origin_px)
    heading = math.radians(float(fit.params[2]))
    along = (origin + (np.column_stack([xs, ys]) + 0.5) * grid.res - fit.params[:2]) \
        @ np.array([math.cos(heading), math.sin(heading)])
    nose = along > median(along)
    chroma = b.chroma[ys, xs]
    return bool(nose.any() and (~nose).any()
                and median(chroma[nose]) < decide.TINT_SHARE * median(chroma[~nose]))


def _winner_at_its_best(b, best: fitting.Fit, codes: list[int], score: np.ndarray, params: np.ndarray,
                        grid: TableGrid, camera: np.ndarray) -> np.ndarray:
    """The blob's start scores with the winner's own (the first) raised to its size and
    pose's best start whose silhouette covers the blob at least as well as its own. The
    edge search climbs from each start to the nearest strong edges: from the outline
    fit's pose, a blob missing part of the piece (an upright's faces that look like the
    table, a flat's pale open base) can leave the winner turned or shifted onto weaker
    ones, while the same piece started elsewhere finds its true edges and a rival's
    best start is weighed against the winner's worst (path-traced 9211: a yellow large
    upright fitted 15° off scored 0.21 there and 0.31 at another start, where a medium
    flat's 0.29 beat the first by the other pose's ratio). A start that covers the blob
    less may be on a neighbour's edges: it does not count."""
    mine_code = CODE[(best.hypothesis.kind, best.hypothesis.size)]
    higher = [r for r in range(1, len(codes)) if codes[r] == mine_code and score[r] > score[0]
              and (best.hypothesis.kind != FLAT or angle_apart(params[r][2], params[0][2]) <= SAME_WAY_DEG)]
    if not higher:
        return score
    top = max(higher, key=lambda r: score[r])
    inside = b.part.mask > 0

    def cover(r: int) -> float:
        """The blob's IoU with the winner's silhouette at start r."""
        drawn = _model_in_box(b, (best.hypothesis.kind, best.hypothesis.size), params[r], grid, camera)
        return np.count_nonzero(drawn & inside) / max(np.count_nonzero(drawn | inside), 1)

    if cover(top) < cover(0):
        return score
    raised = score.copy()
    raised[0] = score[top]
    return raised


def _better(b, best: fitting.Fit, options: list[fitting.Fit], codes: list[int],
            score: np.ndarray, params: np.ndarray, grid: TableGrid, camera: np.ndarray,
            shadow_nose: float | None = None) -> tuple[int, float] | None:
    """Which of a blob's searched starts (their size and pose `codes`, edges.KEYS'
    indices, edge `score` and refined `params`; the first is the winner's own) should replace the winner, if any,
    and by how much its edges beat the ratio it needed (0: just), the winner's score being
    its best start's that covers the blob as well (_winner_at_its_best). `shadow_nose`: the
    winner is a flat piece that may be an upright and its shadow, and this share of its
    edges is what an upright needs (_shadow_noses)."""
    pick = _better_at(b, best, options, codes, score, params, grid, camera, shadow_nose)
    if pick is None:   # (a higher score for the winner only raises what a rival needs)
        return None
    raised = _winner_at_its_best(b, best, codes, score, params, grid, camera)
    return pick if raised is score else _better_at(b, best, options, codes, raised, params, grid, camera, shadow_nose)


def _better_at(b, best: fitting.Fit, options: list[fitting.Fit], codes: list[int],
               score: np.ndarray, params: np.ndarray, grid: TableGrid, camera: np.ndarray,
               shadow_nose: float | None = None) -> tuple[int, float] | None:
    """_better with the winner scoring score[0]."""
    mine = (best.hypothesis.kind, best.hypothesis.size)
    fitted: dict[tuple[str, Size], float] = {}   # each size and pose's cheapest outline cost
    for f in options:   # (sorted by cost: the first of each is its cheapest)
        key = (f.hypothesis.kind, f.hypothesis.size)
        if f.hypothesis.kind != COIN and f.iou >= decide.IOU_MIN and key not in fitted:
            fitted[key] = decide.cost(f)
    # each other size and pose's best start (ties: the first), by code and Python floats:
    # ~90 starts a blob, where hashing a (kind, Size) key is a Python call
    mine_code, scores, top_by_code = CODE[mine], score.tolist(), {}
    for r in range(1, len(codes)):
        c = codes[r]
        if c != mine_code and (c not in top_by_code or scores[r] > scores[top_by_code[c]]):
            top_by_code[c] = r
    top = {KEYS[c]: r for c, r in top_by_code.items()}

    @functools.cache
    def holds_shaded_faces() -> bool:
        """Is the winner an upright holding the shaded faces its blob left out?"""
        return mine[0] == UPRIGHT and _dark_added_share(b, mine, best.params, grid, camera) >= SHADED_FACES_SHARE

    def beyond(key: tuple[str, Size], r: int) -> float | None:
        """How far rival r's edges beat the ratio it needs (None: they do not)."""
        if shadow_nose is not None and key[0] == UPRIGHT and score[r] >= shadow_nose * score[0]:
            return float(score[r] / max(shadow_nose * score[0], 1e-9) - 1)
        if mine[0] == FLAT and key[0] == UPRIGHT and score[r] >= FAINT_RING_RATIO * score[0] \
                and _in_faint_faces(b, key, params[r], grid, camera):
            return float(score[r] / max(FAINT_RING_RATIO * score[0], 1e-9) - 1)
        if score[r] < EDGE_RATIO * score[0]:   # the least any rival needs
            return None
        # a rival whose outline fits far worse is out, unless it is an upright beside which
        # the blob holds only tinted shadow (the outline fit took it for a flat piece's nose),
        # or a bigger upright than the winner holding the shaded faces the blob left out
        if key in fitted and fitted[key] > decide.cost(best) + decide.RIDGE_SWAP_COST_MM \
                and not (key[0] == UPRIGHT and mine[0] == FLAT
                         and _rest_is_shadow(b, key, params[r], grid, camera)) \
                and not (key[0] == UPRIGHT and mine[0] == UPRIGHT and key[1].base > mine[1].base
                         and _dark_added_share(b, key, params[r], grid, camera) >= SHADED_FACES_SHARE):
            return None
        # an upright whose faces beyond the blob are darker than the table (where a flat
        # piece or a smaller upright would leave table) is as likely as its edges say
        dark_upright = key[0] == UPRIGHT and _dark_added_share(b, key, params[r], grid, camera) > 0
        if key[0] == FLAT and holds_shaded_faces():
            return None   # an upright holding the faces the blob left out, not a flat in its ridges
        ratio = EDGE_RATIO if key[0] == mine[0] or dark_upright else OTHER_POSE_RATIO
        if key in fitted and 0 <= fitted[key] - decide.cost(best) <= CLOSE_POSE_COST_MM:
            ratio = min(ratio, CLOSE_POSE_RATIO)
        if key not in fitted and not (dark_upright and mine[0] == UPRIGHT and key[1].base > mine[1].base):
            ratio = max(ratio, UNFITTED_RATIO)
        needed = ratio * score[0]
        if score[r] < needed:
            return None
        # A blob may lack faces: the piece may be a size the fit found too big to try. One
        # too small to try leaves much of the blob out, which must then be shadow (its
        # edges could lie on a bigger piece's: a small flat fits in a large one's nose),
        # and the winner's outline must not fit tightly (decide.TIGHT_FIT_COST_MM): a
        # shadow is not shaped like the rest of a piece (path-traced 9233: a red large
        # upright fitted at 1.08 mm, its paler lit faces taken for the shadow of a small
        # flat in its darker ones; our sets and both path-traced wall models: nothing else
        # changes).
        if key not in fitted and key[1].base <= best.hypothesis.size.base \
                and (not _rest_is_shadow(b, key, params[r], grid, camera)
                     or decide.cost(best) < decide.TIGHT_FIT_COST_MM):
            return None
        return float(score[r] / max(needed, 1e-9) - 1)

    for key, r in sorted(top.items(), key=lambda kv: -score[kv[1]]):
        by = beyond(key, r)
        if by is None:
            continue
        # a small flat's edges lie on a bigger one's nose: when a flat between it and the
        # winner beats the winner too, the piece is that one (see the module's docstring)
        if mine[0] == FLAT and key[0] == FLAT:
            between = [(k, q) for k, q in top.items() if k[0] == FLAT and key[1].base < k[1].base < mine[1].base]
            for k, q in between:
                by_between = beyond(k, q)
                if by_between is not None:
                    return q, by_between
        return r, by
    return None


def steps_decide(chosen: list, all_options: list[list[fitting.Fit]], emap: EdgeMap, camera: np.ndarray,
                 full_gap: float, direction: np.ndarray | None = None) -> list:
    """`chosen` (blob, fit, gap) with each pyramid's size and pose decided again by its
    edges (see the module's docstring); `all_options` are each entry's fitted options,
    `direction` the picture's shadow direction (None: not known).
    A piece the edges decide gets a gap (the pipeline's measure of how clear its choice
    was; `full_gap` is full confidence) from how far its edges beat the ratio it needed:
    full at EDGE_CONFIDENT beyond it."""
    blobs = [i for i, (_, best, _) in enumerate(chosen) if best.hypothesis.kind != COIN]
    if not blobs:
        return chosen
    owner, code, params = starts(chosen, all_options, blobs)
    params, score = search(emap, code, params, owner, camera)
    shadow_noses = _shadow_noses(chosen, emap, camera, direction)
    out = list(chosen)
    ends = np.searchsorted(owner, blobs, side="right")
    for i, lo, hi in zip(blobs, [0, *ends[:-1]], ends):
        b, best, gap = chosen[i]
        pick = _better(b, best, all_options[i], code[lo:hi].tolist(), score[lo:hi],
                       params[lo:hi], emap.grid, camera, shadow_noses.get(i))
        if pick is not None:
            r, beyond = lo + pick[0], pick[1]
            kind, size = KEYS[code[r]]
            out[i] = (b, fitting.Fit(fitting.Hypothesis(best.hypothesis.blob, kind, size), params[r], best.rms, best.iou),
                      full_gap * min(beyond / EDGE_CONFIDENT, 1.0))
    return out
