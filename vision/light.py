"""The main lamp, found from the shade beside the pieces read, and the shadows it casts.

A piece's shadow on the table is its solid projected along the lamp's light: every
vertex (x, y, h) lands at (x, y) − h·(l_x, l_y)/l_z, where l is the unit vector from the
table towards the lamp, and the shadow is the convex hull of those points. Shadows are
what most often misleads the reading of a picture: a tinted shadow is taken for plastic
(a flat piece's nose, a piece of its own), an upright and its shadow for a flat piece, a
piece a size bigger. Knowing where the pieces read first cast their shadows, the
detector takes those pixels out of the foreground and reads the picture again
(vision.pipeline). A piece read where the others' shadows fall, and looking like them
there once the picture's shadow tint is taken away, may be one of those shadows
(`shadow_like`): unless its edges say it is a pyramid, its pixels go with the shadow.

The lamp is taken as far away (one direction for the whole table): the strongest of a
room's lamps, 1-2 m up, turns its light by some ±15° across a 0.7 m table, and path
traced scenes read about as well with their lamp so simplified as with its true place
(under a bare bulb: 98.6 / 1.9 % found / false with it, 98.7 / 1.7 % with the true
lamp, 97.9 / 2.6 % without either). Its direction is searched (the azimuth about the
shade's mean direction, vision.shadows.shadow_direction; the elevation over the sky)
for the predicted shadows that best cover the shade seen beside the pieces (F1 of the
pixels, `Lamp.agreement`).

>>> towards = np.array([0.0, -np.sqrt(0.5), np.sqrt(0.5)])    # 45° up, on the -y side
>>> square = np.array([[0, 0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0], [5, 5, 10]], float)
>>> np.round(shadow_polygon(square, towards)).astype(int).tolist()   # the apex falls 10 mm on
[[10, 10], [5, 15], [0, 10], [0, 0], [10, 0]]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Sequence

import cv2
import numpy as np

from domain import Coin, Piece
from vision import light_kernels as kernels
from vision.geometry import piece_params, piece_vertices, silhouette
from vision.medians import median
from vision.rectify import TableGrid
from vision.segment import CHROMA_MIN
from vision.shadows import SHADE_LOG, shadow_direction

# The lamp's elevation over the table is searched in steps of ELEVATION_STEP_DEG from
# LOWEST_DEG to HIGHEST_DEG (a lamp lower than 20° lights the table at a graze, one above
# 80° casts hardly any shadow), then half a step either side of the best; its azimuth
# from the shade's mean direction, then AZIMUTH_STEPS_DEG either side of it, then the
# elevation half a step either side again.
LOWEST_DEG, HIGHEST_DEG, ELEVATION_STEP_DEG = 20.0, 80.0, 5.0
AZIMUTH_STEPS_DEG = (-20.0, -10.0, 10.0, 20.0)
# Shade counts for the search within this reach of a piece (mm): a large upright's
# shadow under a lamp 30° high ends ~80 mm out, but its darkest part, where the
# predicted and seen shade overlap most, lies within the reach.
SHADE_REACH_MM = 45.0
# A piece's own pixels: its silhouette as the camera sees it and this much (px) around,
# the blurred rim; they are never taken out.
BODY_RIM_PX = 1
# A pixel of a predicted shadow is taken out only if it is darker than the bare table
# with a plain hue change (under PLAIN_CHROMA, log: the segmentation's colour threshold;
# 0.08 took out less and read the bulb and sun scenes worse), or its hue change points
# the caster's way (cosine over SAME_HUE_COS): light through a translucent piece tints
# its shadow with the piece's hue, while a piece of another colour standing in the
# shadow keeps its own (crowded scenes: 41 mistakes without this test, 47 with every
# predicted pixel taken out), and clear plastic, hueless, shows as much by the lamps its
# faces mirror as by darkening.
PLAIN_CHROMA = CHROMA_MIN
SAME_HUE_COS = 0.5
# A piece read where other pieces' predicted shadows fall may be one of those shadows:
# shadows are lit by the rest of the room, whose light is not the lamp's colour, so they
# change the table's hue as well as darken it (a cool room under a warm lamp: a blue
# shadow read as a blue flat). That tint is the picture's, one for all its shadows: the
# median hue change per unit of darkening (`shadow_tint`) over the predicted shadows'
# pixels off every body, darker than SHADOW_TINT_DARKER (log) and not tinted the
# caster's way (its plastic's light), from SHADOW_TINT_MIN_PX of them. A piece whose
# silhouette lies, over SHADOW_LIKE_SHARE of it, in other pieces' predicted shadows,
# darker than the table there and plain once that tint is taken away
# (`shadow_like`), and whose pyramid edges are weak (the pipeline's test), is not
# kept from the take-out: its pixels go like the rest of the shadow's. Measured over A,
# held out, N, T, crowded and both path-traced wall models: 5 false pieces gone
# (path-traced 9218, 9257, refracting walls' 9226, our A 9223 and T 9005), nothing lost;
# share 0.6 and 0.7 keep 1 and 2 of them (0.4: as many, other pieces moved);
# SHADOW_TINT_DARKER -0.05 … -0.15 alike.
SHADOW_TINT_DARKER = -0.1
SHADOW_TINT_MIN_PX = 200
SHADOW_LIKE_SHARE = 0.5


@dataclass(frozen=True, eq=False)
class Lamp:
    """A far lamp: the unit vector from the table towards it, and how well the shadows
    it predicts cover the shade seen beside the pieces (F1 of their pixels, 0-1)."""

    towards: np.ndarray
    agreement: float

    @property
    def elevation_deg(self) -> float:
        return float(np.degrees(np.arcsin(self.towards[2])))

    @property
    def shadow_direction(self) -> np.ndarray:
        """The way its shadows fall on the table (unit vector, table axes)."""
        away = -self.towards[:2]
        return away / np.hypot(*away)


def towards(azimuth: float, elevation: float) -> np.ndarray:
    """Unit vector towards a lamp at this azimuth (from the table's x axis) and elevation
    (radians)."""
    return np.array([np.cos(elevation) * np.cos(azimuth), np.cos(elevation) * np.sin(azimuth), np.sin(elevation)])


def shadow_polygon(vertices: np.ndarray, lamp_towards: np.ndarray) -> np.ndarray:
    """The shadow (convex polygon, table mm) of a solid with these vertices (N × (x, y,
    height)) under a far lamp in direction `lamp_towards`."""
    shifted = vertices[:, :2] - vertices[:, 2:3] * (lamp_towards[:2] / lamp_towards[2])[None]
    return cv2.convexHull(shifted.astype(np.float32))[:, 0].astype(float)


def outlines(pieces: Sequence[Piece], grid: TableGrid, camera: np.ndarray) -> list[np.ndarray]:
    """Each piece's silhouette as the camera at `camera` sees it (grid pixels, convex)."""
    out = []
    for p in pieces:
        kind, params = piece_params(p)
        out.append(grid.to_px(silhouette(kind, p.size, params, camera)))
    return out


def bodies(pieces_px: Sequence[np.ndarray], coins: Sequence[Coin], grid: TableGrid) -> np.ndarray:
    """Where the pieces (their `outlines`) and coins read are (uint8 0/1 on the grid),
    BODY_RIM_PX around."""
    out = np.zeros((grid.height, grid.width), np.uint8)
    for outline in pieces_px:
        _fill(out, outline)
    for c in coins:
        centre = grid.to_px(np.array([c.center]))[0]
        cv2.circle(out, tuple(int(v) for v in np.round(centre * 16)), int(round(c.kind.diameter / 2 / grid.res * 16)),
                   1, -1, cv2.LINE_8, 4)
    return cv2.dilate(out, np.ones((2 * BODY_RIM_PX + 1,) * 2, np.uint8))


def find_lamp(pieces: Sequence[Piece], body: np.ndarray, lum: np.ndarray, usable: np.ndarray,
              grid: TableGrid) -> Lamp | None:
    """The far lamp whose shadows of `pieces` best cover the shade (darker than the bare
    table by vision.shadows.SHADE_LOG, off every body) within SHADE_REACH_MM of them;
    None without pieces or shade. `body`: bodies(), `usable`: the table's pixels (bool)."""
    if not pieces:
        return None
    shade = ((lum < SHADE_LOG) & usable & (body == 0)).astype(np.uint8)
    centres = grid.to_px(np.array([_centre(p) for p in pieces]))
    direction = shadow_direction(lum, body > 0, centres, grid.res)
    if direction is None:
        return None
    reach = int(round(SHADE_REACH_MM / grid.res))
    corners, solids, windows = [], [], []
    for p, (col, row) in zip(pieces, np.round(centres).astype(int)):
        x0, y0 = max(col - reach, 0), max(row - reach, 0)
        x1, y1 = min(col + reach + 1, grid.width), min(row + reach + 1, grid.height)
        if x1 <= x0 or y1 <= y0:
            continue
        seen = shade[y0:y1, x0:x1]
        corners.append(grid.corner_mm(np.array([x0, y0])))
        solids.append(piece_vertices(p))
        windows.append((seen, 1 - body[y0:y1, x0:x1], np.zeros(seen.shape, np.uint8)))
    if not windows:
        return None
    corners, solids = np.array(corners)[:, None], np.array(solids)
    total_seen = sum(cv2.countNonZero(seen) for seen, _, _ in windows)

    def agreement(azimuth: float, elevation: float) -> float:
        l = towards(azimuth, elevation)
        # every piece's vertices cast at once, in 1/16 pixels of its window
        cast = solids[..., :2] - solids[..., 2:3] * (l[:2] / l[2])
        fixed = np.round((cast - corners) / grid.res * 16 - 8).astype(np.int32)
        hit = drawn = 0
        for (seen, off_body, buf), points in zip(windows, fixed):
            buf[:] = 0
            cv2.fillConvexPoly(buf, cv2.convexHull(points), 1, cv2.LINE_8, 4)
            predicted = cv2.bitwise_and(buf, off_body)
            drawn += cv2.countNonZero(predicted)
            hit += cv2.countNonZero(cv2.bitwise_and(predicted, seen))
        return 2.0 * hit / max(drawn + total_seen, 1)

    def best(tries):
        return max((agreement(a, e), a, e) for a, e in tries if 0 < e < np.pi / 2)

    step = np.radians(ELEVATION_STEP_DEG)
    azimuth = float(np.arctan2(-direction[1], -direction[0]))   # the lamp is where shadows point from
    score, _, elevation = best((azimuth, e) for e in np.arange(np.radians(LOWEST_DEG), np.radians(HIGHEST_DEG) + 1e-9, step))
    score, _, elevation = max((score, azimuth, elevation), best((azimuth, elevation + d) for d in (-step / 2, step / 2)))
    score, azimuth, _ = max((score, azimuth, elevation),
                            best((azimuth + np.radians(d), elevation) for d in AZIMUTH_STEPS_DEG))
    score, _, elevation = max((score, azimuth, elevation), best((azimuth, elevation + d) for d in (-step / 2, step / 2)))
    return Lamp(towards(azimuth, elevation), float(score))


class Cast(NamedTuple):
    """One piece's predicted shadow: the piece's index, its window on the grid (slices,
    with the piece's silhouette), the shadow drawn there (uint8) and the caster's hue (its
    silhouette's median hue change)."""

    piece: int
    window: tuple[slice, slice]
    drawn: np.ndarray
    caster: np.ndarray


def predicted_shadows(pieces: Sequence[Piece], pieces_px: Sequence[np.ndarray], lamp: Lamp, hue: np.ndarray,
                      grid: TableGrid) -> list[Cast]:
    """The shadows `lamp` casts of `pieces` (`pieces_px`: their `outlines`); `hue`: the hue
    part of the picture's log ratio to the bare table."""
    out = []
    for k, (p, own) in enumerate(zip(pieces, pieces_px)):
        shadow = grid.to_px(shadow_polygon(piece_vertices(p), lamp.towards))
        window = _window(np.vstack([shadow, own]), grid)
        if window is None:
            continue
        origin = np.array([window[1].start, window[0].start])
        drawn = np.zeros((window[0].stop - window[0].start, window[1].stop - window[1].start), np.uint8)
        _fill(drawn, own - origin)
        inside = hue[window][drawn > 0]
        caster = np.array([median(inside[:, 0]), median(inside[:, 1])]) if len(inside) else np.zeros(2)
        drawn[:] = 0
        _fill(drawn, shadow - origin)
        out.append(Cast(k, window, drawn, caster))
    return out


def cast_shadows(casts: Sequence[Cast], body: np.ndarray, lum: np.ndarray, hue: np.ndarray,
                 usable: np.ndarray) -> np.ndarray:
    """The pixels (bool, grid) in the predicted shadows `casts`, off every body (`body`:
    bodies()), darker than the bare table and plain, or tinted with the caster's hue
    (PLAIN_CHROMA, SAME_HUE_COS; `lum`, `hue`: the grey and hue parts of the picture's log
    ratio to the bare table). Compiled per piece (vision.light_kernels)."""
    out = np.zeros(body.shape, bool)
    for _, window, drawn, caster in casts:
        kernels.take_out_window(drawn, body[window], usable[window], hue[window], lum[window], caster, PLAIN_CHROMA,
                                SAME_HUE_COS, out[window])
    return out


def shadow_like(casts: Sequence[Cast], pieces_px: Sequence[np.ndarray], candidates: Sequence[int],
                body: np.ndarray, lum: np.ndarray, hue: np.ndarray, usable: np.ndarray, grid: TableGrid) -> set[int]:
    """Of the pieces at `candidates` (indices into `pieces_px`, their `outlines`), those that
    look like the shadows other pieces cast where they lie (SHADOW_LIKE_SHARE, the
    picture's `shadow_tint`); the rest as `cast_shadows`'s."""
    tint = shadow_tint(casts, body, lum, hue, usable)
    if tint is None:
        return set()
    out = set()
    for k in candidates:
        box = _window(pieces_px[k], grid)
        if box is None:
            continue
        inside = np.zeros((box[0].stop - box[0].start, box[1].stop - box[1].start), np.uint8)
        _fill(inside, pieces_px[k] - (box[1].start, box[0].start))
        others = np.zeros_like(inside)   # where the other pieces' predicted shadows fall
        for cast in casts:
            if cast.piece != k:
                _paint(others, box, cast.drawn, cast.window)
        darkening = -lum[box]
        h = hue[box]
        plain = np.hypot(h[..., 0] - tint[0] * darkening, h[..., 1] - tint[1] * darkening) < PLAIN_CHROMA
        shade = (inside > 0) & (others > 0) & (darkening > 0) & plain & usable[box]
        if np.count_nonzero(shade) >= SHADOW_LIKE_SHARE * np.count_nonzero(inside):
            out.add(k)
    return out


def shadow_tint(casts: Sequence[Cast], body: np.ndarray, lum: np.ndarray, hue: np.ndarray,
                usable: np.ndarray) -> np.ndarray | None:
    """The picture's shadows' hue change per unit of darkening (the hue pair's medians)
    over the predicted shadows `casts`; None with too few pixels (SHADOW_TINT_MIN_PX)."""
    ratios = [kernels.shadow_samples(drawn, body[window], usable[window], hue[window], lum[window],
                                     SHADOW_TINT_DARKER, caster, SAME_HUE_COS)
              for _, window, drawn, caster in casts]
    ratios = np.concatenate(ratios) if ratios else np.zeros((0, 2), np.float32)
    if len(ratios) < SHADOW_TINT_MIN_PX:
        return None
    return np.array([median(ratios[:, 0]), median(ratios[:, 1])])


def _window(points_px: np.ndarray, grid: TableGrid) -> tuple[slice, slice] | None:
    """The grid's rows and columns (slices) holding `points_px` (N×2, grid pixels) and
    the 1/16-pixel fill around them, clipped to the grid; None if that leaves nothing."""
    x0, y0 = np.maximum(np.floor(points_px.min(axis=0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(points_px.max(axis=0)).astype(int) + 2, (grid.width, grid.height))
    return np.s_[y0:y1, x0:x1] if x1 > x0 and y1 > y0 else None


def _paint(dst: np.ndarray, dst_box: tuple[slice, slice], src: np.ndarray, src_box: tuple[slice, slice]) -> None:
    """OR `src` (placed on the grid at `src_box`) into `dst` (placed at `dst_box`) where they overlap."""
    (dy, dx), (sy, sx) = dst_box, src_box
    y0, y1 = max(dy.start, sy.start), min(dy.stop, sy.stop)
    x0, x1 = max(dx.start, sx.start), min(dx.stop, sx.stop)
    if y0 < y1 and x0 < x1:
        dst[y0 - dy.start:y1 - dy.start, x0 - dx.start:x1 - dx.start] |= \
            src[y0 - sy.start:y1 - sy.start, x0 - sx.start:x1 - sx.start]


def _centre(p: Piece) -> tuple[float, float]:
    """Where a piece stands: an upright's centre, a flat one's footprint's middle."""
    return p.center if p.center is not None else tuple(np.mean(p.footprint(), axis=0))


def _fill(mask: np.ndarray, poly_px: np.ndarray) -> None:
    """Draw a convex polygon (grid pixels, float) into `mask` (1), to 1/16 of a pixel."""
    cv2.fillConvexPoly(mask, np.round(poly_px * 16).astype(np.int32), 1, cv2.LINE_8, 4)
