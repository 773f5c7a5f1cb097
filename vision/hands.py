"""A hand or an arm over the table: a blob too big for pieces that comes in from outside
the camera's view (`is_hand`).

A hand's own shade parts its fingers, palm and arm into several blobs, each the size of
a piece. So the blobs that, with their neighbours a hair's breadth away (HAND_GAP_MM;
through shade and the marker sheets too, from a blob as big as a palm: HAND_PART_MM2),
make up something as big as a hand coming in from the edge of the view are the hand's
(`hand_labels`): the pieces read from them are reported only when clearly read
(vision.pipeline.HAND_KEEP_CONF), as a piece the hand touches shares a blob with it.
That holds for a hand in one blob too: until the twenty-eighth pass such a blob was left
out before it was fitted, which on the 15 hand renders reported 2 more false pieces and
no more right ones."""

from __future__ import annotations

import cv2
import numpy as np

from vision.segment import Foreground

# A blob bigger than this (mm²) that reaches the edge of the table's view is a hand or an
# arm (a palm alone is ~85 × 85 mm; an arm comes in from outside the view). One that does
# not is a cluster of pieces pressed together (a fleet round its home star), read as such.
HAND_MM2 = 4000.0
# Blobs this close (mm) belong to one thing when together they are as big as a hand: the
# fingers' own shade parts a hand's blobs by a pixel or two. On the 15 hand renders
# (`hands`) 1 mm finds 8 hands against 3 blob by blob (`is_hand`).
HAND_GAP_MM = 1.0
# Shade (dark, hueless pixels) joins blobs too, but only to a blob at least this big (mm²):
# a palm or a sleeve; a large flat pyramid with its shadow covers ~1,000 mm² (pieces
# pressed together more, but inside the view). From any blob, wood grain under a bare bulb
# and the sun's dappled shade joined clusters of pieces to the edge of the view (3
# path-traced tables each). With it 12 of the 15 hands are seen (2000-3000 alike), and no
# hand in ~600 pictures without one (our renders, and the path-traced ones under lamps,
# a bare bulb and the sun). The marker sheets join too (an arm reaching in over a corner
# crosses one, and the foreground leaves the sheets out): 15 of 15 hands seen, and still
# none elsewhere (pieces beside a sheet have only bare table beyond it).
HAND_PART_MM2 = 2000.0
# ... and solid as a palm: at least PALM_CORE_MM2 of it lies PALM_CORE_MM or more inside
# its outline. A striped cloth's dark lines, joined along their length to a piece, make a
# blob as big as a palm but no thicker than a stripe: path-traced thick-walled 9203 at
# 256 samples a pixel, 2717 mm² with 484 mm² of core, took a red and a
# green upright for a hand's. The hand renders' palms and sleeves have 746 mm² of core or
# more (every hand keeps at least one such blob; seen as before, 15 of 15).
PALM_CORE_MM = 5.0
PALM_CORE_MM2 = 600.0
# What a reading with a hand over the table tells its reader (`detect`'s "warnings", the
# annotated picture).
HAND_WARNING = "a hand or an arm is over the table: pieces it touches are left out unless clearly read"


def view_edge(outside_view: np.ndarray) -> np.ndarray:
    """The grid cells (bool) a blob must cover to reach the edge of the view (`is_hand`):
    the grid's border and the cells beside what the camera does not see (`outside_view`).
    Fixed for a camera pose."""
    near = cv2.dilate(outside_view.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    near[[0, -1], :] = near[:, [0, -1]] = True
    return near


def hand_labels(fg: Foreground, res: float, edge: np.ndarray, sheets: np.ndarray | None = None) -> frozenset[int]:
    """The labels of the components that make up a hand or an arm: more than HAND_MM2
    of blobs reaching the edge of the view, each within HAND_GAP_MM of the next, or, from
    a blob of HAND_PART_MM2 or more, joined through shade and the marker sheets (`sheets`,
    bool: an arm reaching in over a corner of the table crosses one, which the foreground
    leaves out) too (grid pixels of `res` mm; `edge`: view_edge())."""
    return frozenset(_blobs_together(fg, res, edge) | _joined_to_a_palm(fg, res, edge, sheets))


def _blobs_together(fg: Foreground, res: float, edge: np.ndarray) -> set[int]:
    """`hand_labels`' blobs within HAND_GAP_MM of one another. Only where the blobs' boxes
    (grown by the gap) touch, cover more than HAND_MM2 together and reach the edge is it
    looked at pixel by pixel, every component there taking part: on a table without a
    hand, ~0.1 ms a frame (the whole grid's components, hundreds of specks of table
    texture among them, cost ~1.4 ms)."""
    gap = max(1, int(round(HAND_GAP_MM / res)))
    boxes = np.array([box for _, box in fg.blobs + fg.dark_blobs], np.int64).reshape(-1, 4)
    out: set[int] = set()
    for x0, y0, x1, y1 in _box_groups(boxes, gap, HAND_MM2 / res ** 2, fg.labels.shape):
        if not edge[y0:y1, x0:x1].any():
            continue
        box = np.s_[y0:y1, x0:x1]
        blobs = (fg.labels[box] > 0).astype(np.uint8)
        n, regions = cv2.connectedComponents(cv2.dilate(blobs, np.ones((2 * gap + 1,) * 2, np.uint8)))
        for k in range(1, n):
            out |= _hand_in((regions == k) & (blobs > 0), fg.labels[box], (x0, y0), res, edge)
    return out


def _joined_to_a_palm(fg: Foreground, res: float, edge: np.ndarray, sheets: np.ndarray | None = None) -> set[int]:
    """`hand_labels`' blobs joined to one of HAND_PART_MM2 or more, as solid as a palm
    (PALM_CORE_MM2), through blobs, shade (dark, hueless pixels) and the marker sheets
    (`sheets`) within HAND_GAP_MM of one another: each such blob's region filled from it,
    ~0.3 ms where there is one."""
    seeds = []
    core = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * int(round(PALM_CORE_MM / res)) + 1,) * 2)
    for label, (x, y, w, h) in fg.blobs:
        if w * h * res ** 2 >= HAND_PART_MM2:
            part = fg.labels[y:y + h, x:x + w] == label
            if np.count_nonzero(part) * res ** 2 >= HAND_PART_MM2 and \
                    np.count_nonzero(cv2.erode(np.pad(part, 1).view(np.uint8), core)) * res ** 2 >= PALM_CORE_MM2:
                row, col = np.argwhere(part)[0]
                seeds.append((int(x + col), int(y + row)))
    if not seeds:
        return set()
    gap = max(1, int(round(HAND_GAP_MM / res)))
    occupied = (fg.labels > 0) | (fg.dark > 0)
    if sheets is not None:
        occupied |= sheets
    occupied = cv2.dilate(occupied.astype(np.uint8), np.ones((2 * gap + 1,) * 2, np.uint8))
    filled = np.zeros((occupied.shape[0] + 2, occupied.shape[1] + 2), np.uint8)   # (floodFill's border)
    out: set[int] = set()
    for k, seed in enumerate(seeds[:255], start=1):
        if filled[seed[1] + 1, seed[0] + 1]:
            continue   # in a region already looked at
        _, _, _, (x, y, w, h) = cv2.floodFill(occupied, filled, seed, 0, 0, 0,
                                              8 | cv2.FLOODFILL_MASK_ONLY | (k << 8))
        region = filled[y + 1:y + h + 1, x + 1:x + w + 1] == k
        out |= _hand_in(region & (fg.labels[y:y + h, x:x + w] > 0), fg.labels[y:y + h, x:x + w], (x, y), res, edge)
    return out


def _hand_in(held: np.ndarray, labels: np.ndarray, origin: tuple[int, int], res: float,
             edge: np.ndarray) -> set[int]:
    """The labels (of `labels`, a box at `origin` of the grid) of the blobs' pixels `held`
    (bool, the same box) if together they are a hand (`is_hand`); else none."""
    if not is_hand(held, (*origin, held.shape[1], held.shape[0]), res, edge):
        return set()
    return set(np.unique(labels[held]).tolist())


def _box_groups(boxes: np.ndarray, gap: int, min_px: float, shape: tuple[int, ...]) -> list[tuple[int, int, int, int]]:
    """The bounds (x0, y0, x1, y1, grown by `gap`, within a grid of `shape`) of each group
    of boxes (rows of x, y, w, h) that touch once grown by `gap`, whose areas add up to
    more than `min_px`."""
    area = boxes[:, 2] * boxes[:, 3]
    if area.sum() <= min_px:
        return []
    lo, hi = boxes[:, :2] - gap, boxes[:, :2] + boxes[:, 2:4] + gap
    touch = np.all((lo[:, None] < hi[None]) & (lo[None] < hi[:, None]), axis=2)
    group = np.arange(len(boxes))
    while True:   # each box takes the least group among the boxes it touches, until none changes
        least = np.where(touch, group[None], len(boxes)).min(axis=1)
        if np.array_equal(least, group):
            break
        group = least[least]
    out = []
    for g in np.unique(group):
        members = group == g
        if area[members].sum() > min_px:
            x0, y0 = np.maximum(lo[members].min(axis=0), 0)
            x1, y1 = np.minimum(hi[members].max(axis=0), (shape[1], shape[0]))
            out.append((int(x0), int(y0), int(x1), int(y1)))
    return out


def is_hand(mask: np.ndarray, box: tuple[int, int, int, int], res: float, edge: np.ndarray) -> bool:
    """Is a blob (its mask, bool, in `box`, grid pixels of `res` mm) a hand or an arm: more
    than HAND_MM2 that reaches the edge of the view (`edge`: view_edge())?"""
    x, y, w, h = box
    return np.count_nonzero(mask) * res ** 2 > HAND_MM2 and bool(np.any(mask & edge[y:y + h, x:x + w]))
