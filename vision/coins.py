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
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from domain import CoinKind
from vision import fit as fitting
from vision.decide import IOU_MIN, cost
from vision.geometry import COIN, UPRIGHT
from vision.rectify import TableGrid
from vision.shadows import COIN_SHADE_STEP, shade_step

if TYPE_CHECKING:
    from vision.pipeline import _Blob

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


def _likeliest(coins: list[fitting.Fit], b: "_Blob") -> fitting.Fit:
    """The coin fit whose outline and colour agree best with the blob."""
    return min(coins, key=lambda f: tint_cost(f, b.observed))


def kind_decide(best: fitting.Fit, options: list[fitting.Fit], b: "_Blob") -> fitting.Fit:
    """A coin winner as the coin whose outline and colour agree best with the blob."""
    if best.hypothesis.kind != COIN:
        return best
    return _likeliest([f for f in options if f.hypothesis.kind == COIN], b)


def metal_margin(best: fitting.Fit, options: list[fitting.Fit], b: "_Blob") -> float:
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


def lies_flat_decide(best: fitting.Fit, options: list[fitting.Fit], b: "_Blob", grid: TableGrid,
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
