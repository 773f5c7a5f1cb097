"""An upright read a size small: its outer faces, steep and mirroring the table beside
them, are barely darker than the table and were left out of the blob (path-traced and
green-on-felt uprights most of all). The ring a one-size-bigger upright adds around the
winner then holds those faint faces: darker than the table just outside it and tinted
like the plastic. Bare table there is neither; a tinted shadow on one side is diluted and
too little of the ring to move its median.

Measured on the upright winners of A, held out (9600-9629), PBR 83 and N (904 pieces, 35
of them read a size small): the ring's median darkening against the band just outside
the bigger outline was -0.21…-0.04 (10th-90th percentile) for those read small and
-0.04…+0.02 for the rest; its median tint, as a share of the winner's, 0.13-0.67 against
0.04-0.16. Past FAINT_FACES_DARKER and FAINT_FACES_TINT together: 14 of the 35, and 3
of the 869 read right.

Some faint faces mirror the table's own hue and are hardly tinted (green on green felt,
path-traced plastic over wood); others are tinted but barely darker. Their edges still
show: searched from the winner's pose (vision.edges), the bigger upright's edges step
nearly as strongly as the winner's. Measured on the upright winners of A, held out, the
100 path-traced scenes and N (831 read a size small or right): the bigger one's edge
score over the winner's was 0.79-1.44 (10th-90th percentile) for the 33 read small,
0.49-0.72 for the 798 read right. So the bigger upright wins on any two of: the ring
darker (FAINT_FACES_DARKER), tinted (FAINT_FACES_TINT), edged (FAINT_FACES_EDGES): 24 of
the 33, and 3 of the 798 (darker and tinted alone: 14, and 2).

A flat piece read a size small is the same in another shape: one of its two upper faces,
turned to the light, is paler than the other and left out (or its open base is), and the
outline fit is left with a smaller flat in the darker face, nearly as good as the true
one (`pale_flat_decide`). The pale face still passes less light than bare table, so the
picture steps up where the bigger flat's outline ends; beyond a smaller piece lies table
on both sides of that outline, or a shadow that runs on past it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from domain import Size
from vision import edges
from vision import fit as fitting
from vision.decide import _SIZES, _model_mask, _step_beyond, cost, outline_of
from vision.geometry import FLAT, UPRIGHT
from vision.medians import median
from vision.rectify import TableGrid

if TYPE_CHECKING:
    from vision.blobs import Blob

# Any two of these say the ring holds faces:
FAINT_FACES_DARKER = 0.1   # darker: its median under the band outside it by this much (log)
FAINT_FACES_TINT = 0.2     # tinted: its median tint above this share of the winner's
FAINT_FACES_EDGES = 0.9    # edged: the bigger upright's edge score this share of the winner's
# A flat winner gives way to the next bigger flat fitted at most PALE_FLAT_COST_MM costlier
# (not cheaper: a rule that overruled a cheaper bigger one stands) when the picture steps
# up by more than PALE_FLAT_STEP (log, mean across its outline where it lies beyond the
# winner's; decide._step_beyond). Measured on the flat winners of A, held out, N,
# crowded and both path-traced wall models that have such a rival (27): the 3 read a
# size small stepped 0.33-0.45, the 22 read right -0.12…0.17, 2 false pieces 0.00 and 0.09.
# A wider cost window (0.6) also takes a smaller piece's bigger neighbour in a cluster.
PALE_FLAT_COST_MM = 0.3
PALE_FLAT_STEP = 0.25
_RIM = np.ones((3, 3), np.uint8)        # the blurred edge between the two outlines
_OUTSIDE = np.ones((7, 7), np.uint8)    # the band of table just outside the bigger one


def ring_reading(b: Blob, theirs: np.ndarray, explained: np.ndarray, inside: np.ndarray) -> tuple[bool, bool] | None:
    """Is the ring a hypothesis (`theirs`, its silhouette in the blob's box) adds around
    what is explained already (`explained`) darker than the band of table just outside
    it (FAINT_FACES_DARKER), and tinted (FAINT_FACES_TINT of the tint of `inside`, the
    blob's plastic)? None: no ring, band or inside to read."""
    ring = (theirs > 0) & (cv2.dilate(explained.astype(np.uint8), _RIM) == 0)
    theirs = theirs.astype(np.uint8)
    outside = (cv2.dilate(theirs, _OUTSIDE) > 0) & (cv2.dilate(theirs, _RIM) == 0)
    if not (ring.any() and outside.any() and inside.any()):
        return None
    return (bool(median(b.lum[ring]) - median(b.lum[outside]) < -FAINT_FACES_DARKER),
            bool(median(b.chroma[ring]) > FAINT_FACES_TINT * median(b.chroma[inside])))


def faint_faces_decide(best: fitting.Fit, b: Blob, grid: TableGrid, camera: np.ndarray,
                       emap: edges.EdgeMap) -> fitting.Fit:
    """The winner, or the next bigger upright in its place when the ring it adds holds
    faint faces (see the module's docstring), and so on from that one: a small upright's
    blob may be a large one's lit faces. `emap`: the picture's edges."""
    h = best.hypothesis
    if h.kind != UPRIGHT or h.size is Size.LARGE or b.dark:
        return best
    bigger = fitting.Fit(fitting.Hypothesis(h.blob, UPRIGHT, _SIZES[_SIZES.index(h.size) + 1]),
                         best.params, best.rms, best.iou)
    origin = grid.corner_mm(b.origin_px)
    shape = b.part.mask.shape
    mine = _model_mask(best, shape, origin, grid.res, camera)
    theirs = _model_mask(bigger, shape, origin, grid.res, camera)
    read = ring_reading(b, theirs, mine, mine & (b.part.mask > 0))
    if read is None:
        return best
    darker, tinted = read
    if darker == tinted:   # both, or neither: the edges cannot change that
        return faint_faces_decide(bigger, b, grid, camera, emap) if darker else best
    both = np.array([best.params, best.params], float)
    _, score = edges.refine(emap, [UPRIGHT, UPRIGHT], [h.size, bigger.hypothesis.size], both, camera)
    edged = score[1] >= FAINT_FACES_EDGES * score[0]
    return faint_faces_decide(bigger, b, grid, camera, emap) if edged else best


def pale_flat_decide(best: fitting.Fit, options: list[fitting.Fit], b: Blob, grid: TableGrid,
                     camera: np.ndarray) -> fitting.Fit:
    """The winner, or the next bigger flat piece when its outline fits nearly as well and
    the picture steps up across it beyond the winner (see the module's docstring).
    `options`: the blob's fits, sorted by cost."""
    h = best.hypothesis
    if h.kind != FLAT or h.size is Size.LARGE or b.dark:
        return best
    bigger = _SIZES[_SIZES.index(h.size) + 1]
    rival = next((f for f in options if (f.hypothesis.kind, f.hypothesis.size) == (FLAT, bigger)), None)
    if rival is None or not 0 < cost(rival) - cost(best) <= PALE_FLAT_COST_MM:
        return best
    step = _step_beyond(rival, outline_of(best, camera), b, grid.corner_mm(b.origin_px), grid.res, camera)
    return rival if step is not None and step > PALE_FLAT_STEP else best
