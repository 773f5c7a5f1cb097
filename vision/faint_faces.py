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
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from domain import Size
from vision import fit as fitting
from vision.decide import _SIZES, _model_mask
from vision.geometry import UPRIGHT
from vision.rectify import TableGrid

if TYPE_CHECKING:
    from vision.pipeline import _Blob

FAINT_FACES_DARKER = 0.1   # log: the ring's median under the band outside it by this much
FAINT_FACES_TINT = 0.2     # ... and its median tint above this share of the winner's
_RIM = np.ones((3, 3), np.uint8)        # the blurred edge between the two outlines
_OUTSIDE = np.ones((7, 7), np.uint8)    # the band of table just outside the bigger one


def faint_faces_decide(best: fitting.Fit, b: _Blob, grid: TableGrid, camera: np.ndarray) -> fitting.Fit:
    """The winner, or the next bigger upright in its place when the ring it adds holds
    faint faces (see the module's docstring)."""
    h = best.hypothesis
    if h.kind != UPRIGHT or h.size is Size.LARGE or b.dark:
        return best
    bigger = fitting.Fit(fitting.Hypothesis(h.blob, UPRIGHT, _SIZES[_SIZES.index(h.size) + 1]),
                         best.params, best.rms, best.iou)
    origin = grid.to_mm(b.origin_px[None])[0] - 0.5 * grid.res
    shape = b.part.mask.shape
    mine = _model_mask(best, shape, origin, grid.res, camera)
    theirs = _model_mask(bigger, shape, origin, grid.res, camera).astype(np.uint8)
    ring = (theirs > 0) & (cv2.dilate(mine.astype(np.uint8), _RIM) == 0)
    outside = (cv2.dilate(theirs, _OUTSIDE) > 0) & (cv2.dilate(theirs, _RIM) == 0)
    inside = mine & (b.part.mask > 0)
    if not (ring.any() and outside.any() and inside.any()):
        return best
    darker = np.median(b.lum[ring]) - np.median(b.lum[outside]) < -FAINT_FACES_DARKER
    tinted = np.median(b.chroma[ring]) > FAINT_FACES_TINT * np.median(b.chroma[inside])
    return bigger if darker and tinted else best
