"""The edge search behind vision.edge_steps: where to look for each blob's piece, and
where its edges lie best from there.

Each blob is searched from its winner's pose and from its other fitted sizes and poses,
laid where the blob lies in several ways (`starts`); from the best start of each size
and pose, an ascent (vision.edges) moves the hypothesis (x, y, angle) to where the
picture's steps along its edges are strongest (`search`). Ascents are kept on the edge
map, so a later reading of the picture that starts where an earlier one did takes the
earlier's end.
"""

from __future__ import annotations

import numpy as np

from domain import Size
from vision import decide
from vision import edge_kernels as kernels
from vision import fit as fitting
from vision.edges import CODE, KEYS, Ascents, EdgeMap, HypothesisRows, ascend, best_of_groups
from vision.geometry import COIN

# An upright's rotation from the outline fit is poor when faces are missing from the
# blob: its edges are also searched from these turns of it (degrees, mod 90).
UPRIGHT_TURNS = (22.5, 45.0, 67.5)
# Of the starts of one size and pose, only the one whose edges already lie best is
# searched from (with the winner's own): the others rarely end higher, and cost the time.
STARTS_REFINED = 1


def starts(chosen: list, all_options: list[list[fitting.Fit]], blobs: list[int]) -> tuple[np.ndarray, ...]:
    """Where to search each of the `blobs` (indices in `chosen`, with their fitted
    options) from: the cheapest fit of each size and pose, the other sizes laid where it
    lies (an upright about the same centre, a bigger one also with the fit in any corner
    or at any side of it, at its angle and turned: a blob of only the lit faces is the
    corner or side of the piece, whose centre is then off the blob's; a flat piece by its
    tail, its nose or its middle; an upright with its back edge on a flat fit's tail), the
    winner itself first, and uprights turned (UPRIGHT_TURNS). Returns each start's blob
    (index in `chosen`), (kind, size) code (edges.KEYS) and pose (x, y, angle), made by a
    compiled loop (vision.edge_kernels.starts)."""
    win_code, win_params, top_start, top_code, top_params = [], [], [0], [], []
    for i in blobs:
        best = chosen[i][1]
        top: dict[tuple[str, Size], tuple[float, fitting.Fit]] = {}
        for f in all_options[i]:
            h = f.hypothesis
            if h.kind == COIN or f.iou < decide.IOU_MIN:
                continue
            c = decide.cost(f)
            if (h.kind, h.size) not in top or c < top[(h.kind, h.size)][0]:
                top[(h.kind, h.size)] = (c, f)
        win_code.append(CODE[best.hypothesis.kind, best.hypothesis.size])
        win_params.append(best.params)
        top_code += [CODE[key] for key in top]
        top_params += [f.params for _, f in top.values()]
        top_start.append(len(top_code))
    owner, code, params = kernels.starts(np.array(win_code, np.int64), np.array(win_params, float),
                                         np.array(top_start, np.int64), np.array(top_code, np.int64),
                                         np.array(top_params, float).reshape(-1, 3), _TURNS, _CORNERS_AND_SIDES,
                                         _KEEPS, _BASES, _SLANTS)
    return np.array(blobs)[owner], code, params


# Unit steps to a square's corners and the middles of its sides, in its own frame.
_CORNERS_AND_SIDES = np.array(((1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1)), float)
# A flat piece of another size laid with its tail, nose or middle where the fit's is:
# its tail moved this share of the slants' difference along the heading.
_KEEPS = np.array((0.0, 1.0, 0.5))
_TURNS = np.array(UPRIGHT_TURNS)
_BASES, _SLANTS = np.array([s.base for s in Size]), np.array([s.slant for s in Size])


def search(emap: EdgeMap, code: np.ndarray, params: np.ndarray, owner: np.ndarray,
            camera: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Refined params and edge scores of the starts (score -1: not searched from). Each
    owner's first start (its winner) is searched from, and of its other starts of each
    size and pose the STARTS_REFINED whose edges already lie best. The ascents are kept
    on `emap` (EdgeMap.searched): `edges.refine` from a pose searched from takes them."""
    rows_all = HypothesisRows(code, camera, emap)
    first = rows_all.scores(params)
    keep = np.zeros(len(code), bool)
    keep[np.r_[0, np.flatnonzero(owner[1:] != owner[:-1]) + 1]] = True
    keep[best_of_groups(owner * len(KEYS) + code, first, STARTS_REFINED)] = True
    idx = np.flatnonzero(keep)
    score = np.full(len(code), -1.0)
    starts = params[idx]
    ends, ends_score = starts.copy(), first[idx].copy()
    # an ascent from a start an earlier search on this map began at ended where it did
    known = np.zeros(len(idx), bool)
    old = emap.searched
    if old is not None:
        rows, which = old.found(code[idx], starts, camera)
        ends[rows], ends_score[rows], known[rows] = old.ends[which], old.scores[which], True
    todo = np.flatnonzero(~known)
    if len(todo):
        ends[todo], ends_score[todo] = ascend(rows_all.take(idx[todo]), starts[todo].copy(), first[idx[todo]])
    fresh = Ascents(code[idx[todo]], camera, starts[todo], ends[todo], ends_score[todo])
    emap.searched = fresh if old is None else old.joined(fresh)
    params[idx], score[idx] = ends, ends_score
    return params, score
