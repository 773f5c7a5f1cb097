"""Coins (Spike's pennies and nickels): which metal, and a coin taken for a small upright.

Both are decided after the outline fit (vision.fit) has ranked every model of a blob:
- `kind_decide`: a penny (19.05 mm) and a nickel (21.21 mm) differ by 2 mm across, about
  the error of an outline blurred by a mirroring rim, but copper mirrors red far more than
  blue (reflectance ~0.70 against ~0.28) and nickel all colours alike (~0.60 against
  ~0.55): the blob's colour, relative to the markers' white paper, tells the metals apart.
- `lies_flat_decide`: a penny's rim mirrors the room dark, so its blob can be a few mm
  smaller than the disc, and a small upright then fits its outline better. A coin is
  1.5 mm thick and casts no shadow beyond its rim; an upright 25 mm tall does (the
  converse of vision.shadows.stands_decide).
- `rim_decide`, once the picture's edges are worked out: a coin whose blob takes in its
  shadow fits an upright's outline better than a disc, but the picture's steps around it
  still trace a coin's rim (vision.coin_rims), which no pyramid does.
- `more_coins`, once a coin is found (Spike is played): coins the segmentation did not
  cut from the table (a nickel mirroring a dark room on grey cloth) by their rims alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from shapely.geometry import Point, Polygon

from domain import CoinKind, Size, TableState
from vision import colour_reading, edges
from vision import fit as fitting
from vision.coin_rims import Rim, find_rim, rim_starts
from vision.decide import IOU_MIN, cost
from vision.geometry import COIN, UPRIGHT
from vision.rectify import TableGrid
from vision.shadows import COIN_SHADE_STEP, shade_step

if TYPE_CHECKING:
    from vision.edges import EdgeMap
    from vision.blobs import Blob

# A coin's tint: log red minus log blue of its blob (observed, relative to paper white).
# On renders a penny reads 0.1-0.55 (its copper diluted by the room it mirrors), a nickel
# -0.3-0.15; the split lies between.
COPPER_TINT = 0.2
# Outline cost (mm, as vision.decide.cost) charged per log unit of tint on the other
# metal's side of COPPER_TINT: a penny read 0.4 costs a nickel model 2 mm, more than the
# outline's worst preference for the wrong size on renders (1 mm).
TINT_COST_MM = 10.0
# An upright winner loses to a coin at most FLAT_SWAP_COST_MM costlier when the table
# beyond the disc is no darker on the shadow side than on the lamp side by a quarter of
# vision.shadows.COIN_SHADE_STEP: no shadow starts at its rim. On renders the coins so
# recovered step -0.06 to 0.013; a patch of wood grain that no piece casts on, 0.03
# (the median over the fan hides a plank's texture only to about that).
FLAT_SWAP_COST_MM = 0.6
NO_SHADE_STEP = 0.25 * COIN_SHADE_STEP


def on_table(seen_mm: np.ndarray, coin: CoinKind, camera: np.ndarray) -> tuple[float, float]:
    """Where a coin whose outline is centred at `seen_mm` lies. Its outline and rim are
    its top face's, `coin.thickness` up, which a camera at `camera` (x, y, height, mm)
    sees pushed away from below it (vision.geometry.lift). On our renders with coins
    (7900-7959, 168 coins found) the centres were 0.50 mm (median) too far from below
    the camera, 1.2 times that lift; taken back by it, the error is 0.53 → 0.2 mm.

    >>> on_table(np.array([500.0, 0.0]), CoinKind.NICKEL, np.array([0.0, 0.0, 1000.0]))
    (499.025, 0.0)
    """
    scale = (camera[2] - coin.thickness) / camera[2]
    x, y = camera[:2] + (np.asarray(seen_mm, float)[:2] - camera[:2]) * scale
    return float(x), float(y)


def tint(observed: np.ndarray) -> float:
    """Log red minus log blue of a (b, g, r) log colour.

    >>> round(tint(np.array([-0.6, -0.45, -0.2])), 2)   # a penny
    0.4
    """
    return float(observed[2] - observed[0])


def tint_cost(f: fitting.Fit, observed: np.ndarray) -> float:
    """`cost` of a fit plus, for a coin, the price of its metal's colour disagreeing with
    the blob's (see TINT_COST_MM)."""
    if f.hypothesis.kind != COIN:
        return cost(f)
    off = tint(observed) - COPPER_TINT
    wrong = -off if f.hypothesis.coin is CoinKind.PENNY else off
    return cost(f) + TINT_COST_MM * max(wrong, 0.0)


def _likeliest(coins: list[fitting.Fit], b: "Blob") -> fitting.Fit:
    """The coin fit whose outline and colour agree best with the blob."""
    return min(coins, key=lambda f: tint_cost(f, b.observed))


def kind_decide(best: fitting.Fit, options: list[fitting.Fit], b: "Blob") -> fitting.Fit:
    """A coin winner as the coin whose outline and colour agree best with the blob."""
    if best.hypothesis.kind != COIN:
        return best
    return _likeliest([f for f in options if f.hypothesis.kind == COIN], b)


def metal_margin(best: fitting.Fit, options: list[fitting.Fit], b: "Blob") -> float:
    """How much worse (`tint_cost`, mm) the best model of the other metal explains the
    blob than the coin chosen; infinite where it was not tried.

    >>> from types import SimpleNamespace
    >>> def coin(kind, rms): return fitting.Fit(fitting.Hypothesis(0, COIN, None, kind), np.zeros(3), rms, 0.9)
    >>> penny, nickel = coin(CoinKind.PENNY, 0.5), coin(CoinKind.NICKEL, 0.3)
    >>> copper = SimpleNamespace(observed=np.array([-0.6, -0.45, -0.2]))    # red − blue: 0.4
    >>> kind_decide(nickel, [nickel, penny], copper).hypothesis.coin.value  # the outline preferred a nickel
    'penny'
    >>> round(metal_margin(penny, [nickel, penny], copper), 2)              # 10 mm × 0.2 over the split
    1.8
    """
    others = [tint_cost(f, b.observed) for f in options
              if f.hypothesis.kind == COIN and f.hypothesis.coin is not best.hypothesis.coin]
    return min(others, default=np.inf) - tint_cost(best, b.observed)


def lies_flat_decide(best: fitting.Fit, options: list[fitting.Fit], b: "Blob", grid: TableGrid,
                     direction: np.ndarray | None) -> fitting.Fit:
    """An upright piece, or a coin casting no shadow? `options` sorted by cost."""
    if best.hypothesis.kind != UPRIGHT or b.dark or direction is None:
        return best
    coins = [f for f in options if f.hypothesis.kind == COIN and f.iou >= IOU_MIN]
    if not coins:
        return best
    coin = _likeliest(coins, b)
    if tint_cost(coin, b.observed) > cost(best) + FLAT_SWAP_COST_MM:
        return best
    radius = coin.hypothesis.coin.diameter / 2  # type: ignore[union-attr]
    return coin if shade_step(coin.params[:2], radius, b, grid, direction) < NO_SHADE_STEP else best


# A coin's rim (vision.coin_rims.find_rim): a circle of about a coin's radius
# (RIM_RADIUS_MM), as round as RIM_SPREAD_MM (the median distance of the picture's
# steps from it) and stepping across it (RIM_RADIAL, the median share of the steps'
# strength). Measured on our renders with coins (7900-7959) and without (A, held out, N,
# T, crowded, 66 path-traced scenes with both wall models): the coins read as uprights
# trace circles 0.10-0.26 mm round, 0.989-0.998 radial; of the pyramids around which a
# circle in that radius range is found, none is rounder than 0.56 mm or more radial
# than 0.956 (their base edges and ridges are straight).
RIM_RADIUS_MM = (8.5, 11.8)
RIM_SPREAD_MM = 0.4
RIM_RADIAL = 0.97
# Such a rim also tells the metals apart by size, where a blob's outline may take in the
# coin's shadow: it reads RIM_WIDER_MM wider than the coin (the median over both metals
# of 136 clean rims, pennies 9.0-10.2 mm, nickels 10.0-11.1), each mm off the metal's
# charged RIM_RADIUS_COST (mm of outline cost, with the tint's TINT_COST_MM). Tint and
# rim together read the metal of 135 of those 136 coins, and of all 64 clean rims of
# 7960-7999 (the tint alone, 131 and 64; the rim alone, 130 and 62).
RIM_WIDER_MM = 0.27
RIM_RADIUS_COST = 2.5


def _clean(rim: Rim) -> bool:
    return RIM_RADIUS_MM[0] <= rim.radius <= RIM_RADIUS_MM[1] and rim.spread <= RIM_SPREAD_MM \
        and rim.radial >= RIM_RADIAL


def rim_decide(chosen: tuple["Blob", fitting.Fit, float], emap: "EdgeMap",
               grid: TableGrid) -> tuple["Blob", fitting.Fit, float]:
    """A blob's decision (blob, winning fit, gap), or a coin where its winner, a small or
    medium upright (a coin and its shadow: a large one's base is 25 mm across) or a
    coin, stands on a coin's rim in the picture's edges (RIM_*): centred on the rim,
    its metal by the blob's tint and the rim's size, its gap how much more the other
    metal would cost (mm, as `metal_margin`). A coin whose blob took in its shadow can fit
    an upright's outline, or the other metal's disc, better than its own."""
    b, best, gap = chosen
    if best.hypothesis.kind not in (UPRIGHT, COIN) or best.hypothesis.size is Size.LARGE:
        return chosen
    rim = find_rim(emap.tensor, grid, best.params[:2])
    if not _clean(rim):
        return chosen
    metal, margin = _metal(b.observed, rim)
    coin = fitting.Fit(fitting.Hypothesis(best.hypothesis.blob, COIN, None, metal), np.array([*rim.centre, 0.0]),
                       rim.spread, _disc_iou(b, rim.centre, metal.diameter / 2, grid))
    return b, coin, margin


def _metal(observed: np.ndarray, rim: Rim) -> tuple[CoinKind, float]:
    """The metal a coin's tint (`observed`) and its rim's size fit best, and how much
    worse (mm) the other fits."""
    costs = {metal: _metal_cost(metal, observed, rim) for metal in CoinKind}
    metal = min(costs, key=costs.__getitem__)
    return metal, max(costs.values()) - costs[metal]


def _metal_cost(metal: CoinKind, observed: np.ndarray, rim: Rim) -> float:
    """How badly (mm) a blob's tint and its rim's size fit a metal."""
    off = tint(observed) - COPPER_TINT
    wrong = -off if metal is CoinKind.PENNY else off
    return TINT_COST_MM * max(wrong, 0.0) + RIM_RADIUS_COST * abs(rim.radius - metal.diameter / 2 - RIM_WIDER_MM)


def _disc_iou(b: "Blob", centre_mm: np.ndarray, radius_mm: float, grid: TableGrid) -> float:
    """Intersection over union of a disc and the blob's pixels (its part's mask)."""
    mask = b.part.mask > 0
    centre = grid.to_px(centre_mm) - b.origin_px
    rows, cols = np.ogrid[:mask.shape[0], :mask.shape[1]]
    disc = (cols - centre[0]) ** 2 + (rows - centre[1]) ** 2 <= (radius_mm / grid.res) ** 2
    union = np.count_nonzero(disc | mask)
    return np.count_nonzero(disc & mask) / union if union else 0.0


# `more_coins`: a rim found over bare table is a coin's unless its disc comes within
# PIECE_CLEARANCE_MM of a piece's footprint (a piece's own edges and shadow) or within
# COINS_APART_MM of a coin's centre (two coins' centres are a diameter apart at least).
# Its colour is read on its disc less RIM_INSET_MM (the rim's blur). Over the path-traced
# coin tables (7900-7939), our coin renders (7900-7959) and the pyramid tables of A and
# the 60 path-traced scenes, no such rim was found where no coin lies.
PIECE_CLEARANCE_MM = 3.0
COINS_APART_MM = 15.0
RIM_INSET_MM = 2.0


def more_coins(state: TableState, table_bgr: np.ndarray, background_bgr: np.ndarray, paper_log: np.ndarray,
               usable: np.ndarray, emap: "EdgeMap", grid: TableGrid) -> list[tuple[fitting.Fit, float]]:
    """Coins by their rims alone (vision.coin_rims.rim_starts, `_clean`) on the usable
    table (bool, on `grid`) away from the pieces and coins of `state`: each as a coin fit
    (its rim's centre as seen) and its gap (the other metal's extra cost, mm). `emap` is
    worked out over the whole table here."""
    height, width = usable.shape
    emap = edges.edge_map(table_bgr, grid, [(0, 0, width, height)], emap)
    pieces = None   # their footprints, grown: worked out for the first clean rim
    taken = [np.asarray(c.center, float) for c in state.coins]
    out: list[tuple[fitting.Fit, float]] = []
    for start in rim_starts(emap.tensor, usable, grid):
        if any(np.hypot(*(start - c)) < COINS_APART_MM / 2 for c in taken):
            continue   # a found coin's own rim
        rim = find_rim(emap.tensor, grid, start)
        if not _clean(rim) or any(np.hypot(*(rim.centre - c)) < COINS_APART_MM for c in taken):
            continue
        if pieces is None:
            pieces = [Polygon(p.footprint()).buffer(PIECE_CLEARANCE_MM) for p in state.pieces]
        disc = Point(*rim.centre).buffer(rim.radius)
        if any(p.intersects(disc) for p in pieces):
            continue
        observed = _disc_colour(table_bgr, background_bgr, paper_log, rim, grid)
        if observed is None:
            continue
        metal, margin = _metal(observed, rim)
        coin = fitting.Fit(fitting.Hypothesis(-1, COIN, None, metal), np.array([*rim.centre, 0.0]), rim.spread, 1.0)
        out.append((coin, margin))
        taken.append(rim.centre)
    return out


def _disc_colour(table_bgr: np.ndarray, background_bgr: np.ndarray, paper_log: np.ndarray, rim: Rim,
                 grid: TableGrid) -> np.ndarray | None:
    """The median log colour (against the paper) of a rim's disc less RIM_INSET_MM, or
    None where the disc is not wholly on the picture."""
    centre = grid.to_px(rim.centre)
    r = (rim.radius - RIM_INSET_MM) / grid.res
    x0, y0 = int(np.floor(centre[0] - r)), int(np.floor(centre[1] - r))
    x1, y1 = int(np.ceil(centre[0] + r)) + 1, int(np.ceil(centre[1] + r)) + 1
    if x0 < 0 or y0 < 0 or x1 > table_bgr.shape[1] or y1 > table_bgr.shape[0]:
        return None
    rows, cols = np.ogrid[y0:y1, x0:x1]
    inside = (cols - centre[0]) ** 2 + (rows - centre[1]) ** 2 <= r * r
    crop = np.s_[y0:y1, x0:x1]
    return colour_reading.readings(table_bgr[crop], background_bgr[crop], inside, paper_log)[1][0]
