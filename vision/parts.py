"""A blob into its pieces: where each piece's edge lies in the blurred picture, the
faint or shadow-like pixels beside it, and its outline at sub-pixel precision
(`refine`, used by vision.pipeline on every blob of vision.segment.foreground).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.decide import SHADOW_DARKER, TINT_SHARE
from vision.mask_kernels import coarse_points, components, cut_at, touching_components
from vision.medians import median, percentile
from vision.segment import CHROMA_MIN, MIN_SEED_MM2, WEAK, Foreground
from vision.touching import (MIN_BLOB_MM2, Within, angle_apart, convex_fill, in_box, row_ends, split, split_by_hue,
                             split_by_valley)

# A blob's edge: where its evidence falls to half its typical (median of its
# full-evidence pixels), i.e. half way between piece and table. Fainter parts of the
# blob (a face seeing the lamp's reflection) are left undecided.
EDGE_LEVEL = 0.5
# A blob whose evidence is this many times the thresholds (median of its full-evidence
# pixels) but that leaves no piece-sized part when cut half way is a piece seen only by
# the faces that mirror or pipe the lamp (green on green felt: bright lit faces around a
# core as dark as the felt): it is cut at the weak level instead. Table texture that
# crosses the thresholds stays below ~1.5 of them; such faces reach 2.3-2.5.
FALLBACK_EVIDENCE = 2.0
# Pixels of a blob darker (log) than its typical full-evidence pixel by more than this
# are its coloured shadow (light through the plastic), not the piece: left undecided;
# but only where they are no more tinted than that typical pixel. The other lamps and
# the room dilute a shadow's tint; a darker piece touching a brighter one of its colour
# is more tinted (clear plastic with no haze, as path tracers draw it: a flat piece over
# the table, seen through two walls, beside a small upright). Without that exception:
# path-traced 83 found 97.8 %, false 1.7 %; with it 98.3 %, 1.3 %.
TINTED_SHADOW_DARKER = 0.5
# A blob cut into a part bigger than a piece shows with its blurred rim (a large
# upright's apparent area is LARGEST_PIECE_MM2; a part past 1100 mm², AREA_FACTOR times
# it, gets no model at all) is cut again with its tinted shadow measured from its
# brightest LARGEST_PIECE_MM2.
LARGEST_PIECE_MM2 = 700.0
PIECE_MAX_MM2 = 850.0
# The second cut stands if its biggest part is smaller than the first's, but no smaller
# than this share of it: a piece keeps 0.4-0.6 of a blob it shares with its shadow
# (measured); a second cut that leaves 0.14-0.22 has cut into the piece itself.
RETRY_KEEPS = 0.35
# What a blob holds beyond its parts (past their blurred rim, _LEFT_OUT_RIM) is another
# piece when it is from LEFT_OUT_MIN_MM2 (most of a small upright's base) to
# PIECE_MAX_MM2 (one piece, not a shadow and faces between several), has
# MIN_SEED_MM2 of full evidence, and its hue change points at least LEFT_OUT_HUE_APART
# away from the parts' (another colour: the Rainbow colours' hue directions lie 48-150°
# apart; a piece's own faint faces share its hue).
LEFT_OUT_MIN_MM2 = 150.0
LEFT_OUT_HUE_APART = 40.0
# ... and if its median pixel is tinted at least at the weak level (WEAK · CHROMA_MIN;
# untinted brightening is a reflection) but less than the parts (the fainter piece, which
# is why the cut left it). If none of it (this top percentile) is lighter than the bare
# table, it may as well be a shadow, however tinted (green on green felt darkens the felt
# all over like one): such a part is marked `dark`, and the shadow rules decide
# (vision.shadows, vision.decide) as for any dark candidate.
LEFT_OUT_LIT_PERCENTILE = 90
# Such a part must also be plainly more than table: its typical (median) pixel this many
# times past the foreground's thresholds. Measured: the two pieces found this way 1.9
# and 2.5 (a green upright on green felt, path-traced; a green one on wood); shade and
# faces between pieces in a crowded cluster 0.76 and 1.14, and a piece read as a flat
# one 0.97.
LEFT_OUT_DARK_EVIDENCE = 1.5
_LEFT_OUT_RIM = np.ones((5, 5), np.uint8)
# Outlines are traced on the evidence interpolated this many times finer than the grid.
SUBPIXEL = 4
# refine works on the weak mask's bounding rectangle and this many pixels around it:
# a 3×3 opening needs one pixel of table at its border, the outline's crop (a part
# dilated by one, and one more) two.
AROUND_PX = 2

@dataclass
class Part:
    """One piece's share of a blob, in the blob's box."""

    mask: np.ndarray        # uint8 0/255, its filled convex hull
    undecided: np.ndarray   # uint8 0/255, faint or shadow-like pixels touching it
    outline: np.ndarray     # M×2 box pixel coordinates, convex, counter-clockwise
    edge_offset: float      # how far (px) the true edge lies outside `outline`
    contour: np.ndarray     # L×2 box pixel coordinates: the cut itself, not its hull
    dark: bool = False      # left out, another hue, darker than the table all over: piece or shadow


def refine(fg: Foreground, weak: np.ndarray, box: tuple[int, int, int, int],
           chroma: np.ndarray | None = None) -> list[Part]:
    """Each piece in a blob: its mask cut at half the blob's typical evidence (the true
    edge of a blurred picture, whatever the piece's contrast) as a filled convex hull with
    a sub-pixel outline, and the faint or shadow-like pixels next to it (a shadow, a
    shaded or mirroring face: undecided). `weak` is the blob's hysteresis mask in the
    box (x, y, w, h), `chroma` its hue change's length there if the caller has it. A blob
    far from convex is pieces touching: it is split first."""
    bx, by, bw, bh = box
    if not weak.any():
        return []
    # the work is done around the blob only (the box's margin is ~7 times its pixels):
    # every step gives there what it gives on the whole box (see _around)
    sx, sy, sw, sh = _around(weak)
    x, y, w, h = bx + sx, by + sy, sw, sh
    whole_weak, weak = weak, weak[sy:sy + sh, sx:sx + sw]
    if chroma is not None:
        chroma = chroma[sy:sy + sh, sx:sx + sw]
    score = fg.score[y:y + h, x:x + w]
    strong = (weak > 0) & (score > 1.0)
    inside = score[strong]
    typical = median(inside) if inside.size else 1.0
    lum = fg.lum[y:y + h, x:x + w]
    hue = fg.hue[y:y + h, x:x + w]
    if chroma is None:
        chroma = np.hypot(hue[..., 0], hue[..., 1])
    # light through coloured plastic tints the shadow: same hue, but darker than the
    # piece, and diluted
    shade = lum < median(lum[strong]) - TINTED_SHADOW_DARKER
    if strong.any():
        shade &= chroma <= median(chroma[strong])
    within = ((sx, sy), (bw, bh))
    parts, hulls, cut, level = _cut(fg, weak, score, hue, typical, shade, within)
    first = _biggest(parts)
    if strong.any() and first * fg.res ** 2 > PIECE_MAX_MM2:
        # bigger than a piece shows: a piece and a tinted shadow as big or bigger (a
        # lamp with little other light), between whose darkenings the median fell; the
        # piece is at most its brightest piece-sized part ...
        n = int(LARGEST_PIECE_MM2 / fg.res ** 2)
        # ... or whose tint is diluted (under TINT_SHARE of its most tinted piece-sized
        # part's): a lamp low enough makes the shadow as dark as the lit plastic
        diluted = (lum < SHADOW_DARKER) & (chroma < TINT_SHARE * median(np.sort(chroma[strong])[-n:]))
        retry = _cut(fg, weak, score, hue, typical,
                     (lum < median(np.sort(lum[strong])[-n:]) - TINTED_SHADOW_DARKER) | diluted, within)
        if RETRY_KEEPS * first <= _biggest(retry[0]) < first:   # less shadow, but the piece kept
            parts, hulls, cut, level = retry
    cuts = [(cut, level, False)] * len(parts)
    for extra, extra_hull, extra_cut, extra_level, extra_dark in _left_out(fg, weak, (x, y, w, h), within, hulls,
                                                                          score, hue):
        parts.append(extra)
        hulls.append(extra_hull)
        cuts.append((extra_cut, extra_level, extra_dark))
    out = []
    near = fg.dark[by:by + bh, bx:bx + bw] | whole_weak
    for part, hull, (cut, level, dark) in zip(parts, hulls, cuts):
        others = np.zeros_like(hull)
        for q in parts:
            if q is not part:
                others |= q
        # the faint or shadow-like pixels next to it: those components touching its hull
        # (the table's dark pixels reach past the blob: on the whole box)
        whole_hull = in_box(hull, within)
        undecided = touching_components(near, hull, others, sx, sy)
        # the outline at sub-pixel precision: the cut, interpolated SUBPIXEL times finer
        # (only around the part: outside it the cut is constant, so a crop with a pixel
        # of it to spare interpolates exactly alike, at a fraction of the cost)
        region = cv2.dilate(part, np.ones((3, 3), np.uint8))
        rx, ry, rw, rh = cv2.boundingRect(region)
        x0, y0, x1, y1 = max(rx - 1, 0), max(ry - 1, 0), min(rx + rw + 1, w), min(ry + rh + 1, h)
        fine = cv2.resize(np.where(region[y0:y1, x0:x1] > 0, cut[y0:y1, x0:x1], -level), None,
                          fx=SUBPIXEL, fy=SUBPIXEL, interpolation=cv2.INTER_LINEAR)
        inside = cv2.compare(fine, 0, cv2.CMP_GT)   # (0/255: binary to both)
        origin = (sx + x0, sy + y0)
        out.append(Part(whole_hull, undecided, _hull_points(inside, SUBPIXEL, origin), 0.5 / SUBPIXEL,
                        _contour_points(inside, SUBPIXEL, origin), dark))
    return out


def _around(weak: np.ndarray) -> tuple[int, int, int, int]:
    """The part of a blob's box (x, y, w, h) that refine works on: the weak mask's
    bounding rectangle and AROUND_PX more (the morphology's borders and the outline's
    crop then see what they see in the whole box), its corner on even pixels of the box
    (connected components are labelled by 2×2 blocks: the same blocks, the same labels'
    order)."""
    rx, ry, rw, rh = cv2.boundingRect(weak)
    height, width = weak.shape
    x0, y0 = max(rx - AROUND_PX, 0) // 2 * 2, max(ry - AROUND_PX, 0) // 2 * 2
    x1, y1 = min(rx + rw + AROUND_PX, width), min(ry + rh + AROUND_PX, height)
    return x0, y0, x1 - x0, y1 - y0


def _left_out(fg: Foreground, weak: np.ndarray, box: tuple[int, int, int, int], within: Within,
              hulls: list[np.ndarray], score: np.ndarray,
              hue: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, float, bool]]:
    """Pieces a blob's cut left out: a faint piece touching a vivid one of another colour
    (green on green felt beside a yellow piece) falls below the cut at half the blob's
    typical evidence, which the vivid piece sets. What of the blob lies beyond its parts
    (past their blurred rim), piece-sized and tinted another way, is cut at its own level:
    (mask, its convex_fill, cut, level, whether it is darker than the table all over).
    `box`: where `weak` lies on the grid, `within`: in the blob's box; `hulls`: the
    parts' filled convex hulls."""
    if not hulls:
        return []
    taken = np.zeros_like(weak)
    for hull in hulls:
        taken |= hull
    rest = (weak > 0) & (cv2.dilate(taken, _LEFT_OUT_RIM) == 0)
    if np.count_nonzero(rest) * fg.res ** 2 < LEFT_OUT_MIN_MM2:
        return []   # (opening only takes pixels away: no part of it could be big enough)
    rest = cv2.morphologyEx(rest.astype(np.uint8) * 255, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats = components(rest)
    found = [i for i in range(1, n) if LEFT_OUT_MIN_MM2 <= stats[i, cv2.CC_STAT_AREA] * fg.res ** 2 <= PIECE_MAX_MM2]
    if not found:
        return []
    taken_hue = hue[taken > 0]
    taken_tint = median(np.hypot(taken_hue[:, 0], taken_hue[:, 1]))
    lum_box = fg.lum[box[1]:box[1] + box[3], box[0]:box[0] + box[2]]
    out = []
    for i in found:
        piece = labels == i
        strong = piece & (score > 1.0)
        piece_hue = hue[piece]
        tint = median(np.hypot(piece_hue[:, 0], piece_hue[:, 1]))
        if np.count_nonzero(strong) * fg.res ** 2 < MIN_SEED_MM2 \
                or not WEAK * CHROMA_MIN <= tint < taken_tint \
                or angle_apart(_hue_angle(piece_hue), _hue_angle(taken_hue)) < LEFT_OUT_HUE_APART:
            continue
        dark = percentile(lum_box[piece], LEFT_OUT_LIT_PERCENTILE) < 0.0
        if dark and median(score[piece]) < LEFT_OUT_DARK_EVIDENCE:
            continue
        own = (piece * 255).astype(np.uint8)
        sub, sub_hulls, cut, level = _cut(fg, own, score, hue, median(score[strong]), np.zeros_like(piece), within)
        out += [(p, hull, cut, level, dark) for p, hull in zip(sub, sub_hulls)]
    return out


def _hue_angle(hue: np.ndarray) -> float:
    """Direction (degrees) of the mean hue change of N×2 hue vectors."""
    mean = hue.mean(axis=0)
    return float(np.degrees(np.arctan2(mean[1], mean[0])))


def _biggest(parts: list[np.ndarray]) -> int:
    """Pixels of the biggest of a blob's part masks (0 for none)."""
    return max((np.count_nonzero(p) for p in parts), default=0)


def _cut(fg: Foreground, weak: np.ndarray, score: np.ndarray, hue: np.ndarray, typical: float,
         tinted_shadow: np.ndarray,
         within: Within) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray, float]:
    """A blob's pieces (uint8 masks, the shape of `weak`) cut at half its typical
    evidence without its tinted shadow, split where they touch; their convex_fills, the
    cut (evidence minus the level) and the level. `within`: where `weak` lies in the
    blob's box."""
    # barely above the thresholds (green on green felt), the weak mask is the edge
    level = max(WEAK, EDGE_LEVEL * typical)
    for _ in range(2):   # the second time: the blob's lit faces, cut at the weak level
        cut, mask = np.empty(weak.shape, np.float32), np.empty(weak.shape, np.uint8)
        cut_at(weak, tinted_shadow, score, np.float32(level), cut, mask)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, labels, stats = components(mask)
        big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] * fg.res ** 2 >= MIN_BLOB_MM2]
        if big or level == WEAK or typical < FALLBACK_EVIDENCE:
            break
        level, tinted_shadow = WEAK, np.zeros_like(tinted_shadow)
    parts, hulls = [], []
    for i in big:
        for q in split_by_hue(cv2.compare(labels, i, cv2.CMP_EQ), hue, fg.res):   # (0/255)
            hull = convex_fill(q)   # split's measure of convexity, and the part's hull if it stays whole
            for r in split(q, within, hull):
                for p in split_by_valley(r, score, fg.res, within):
                    parts.append(p)
                    hulls.append(hull if p is q else convex_fill(p))
    return parts, hulls, cut, level


def _hull_points(mask: np.ndarray, scale: int, origin: tuple[int, int] = (0, 0)) -> np.ndarray:
    """Convex hull of a mask drawn `scale` times finer, in coarse pixel coordinates
    (the mask's first pixel being coarse pixel `origin`)."""
    return coarse_points(cv2.convexHull(row_ends(mask)), scale, *origin)


def _contour_points(mask: np.ndarray, scale: int, origin: tuple[int, int] = (0, 0)) -> np.ndarray:
    """The outer contour of a mask's largest component drawn `scale` times finer, in coarse
    pixel coordinates (as `_hull_points`)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return coarse_points(contours[0] if len(contours) == 1 else max(contours, key=cv2.contourArea), scale, *origin)
