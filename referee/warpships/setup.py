"""The WarpShips set-up: 12 nests of three (large, medium, small), three of each of the four
colours, mixed at random and spread 4-5 inches apart.

>>> st = setup_table(seed=1)
>>> len(st.pieces), sorted({p.color.value for p in st.pieces})
(12, ['blue', 'green', 'red', 'yellow'])
>>> min_gap(st) >= GAP_MIN_MM
True
"""

from __future__ import annotations

import itertools
import math
import random

from domain import Piece, Size, TableState
from referee import geometry as g
from referee.warpships.colony import GAME_COLOURS

INCH_MM = 25.4
# The rules: "about 4-5 inches apart", so the tin (4") fits between any two nests. We read
# that as the free gap between neighbouring bases, so the warp really does fit.
GAP_MIN_MM, GAP_MAX_MM = 4 * INCH_MM, 5 * INCH_MM
NESTS_PER_COLOUR = 3
GRID_COLS, GRID_ROWS = 4, 3
# Centre of the grid: the middle of the contract's default marker layout.
TABLE_CENTRE_MM = (380.0, 280.0)
FULL_NEST = (Size.LARGE, Size.MEDIUM, Size.SMALL)
JITTER_MM = 3.0  # so the layout does not look like a grid, without breaking the spacing


def setup_table(seed: int | None = None, warp_diameter: float = 101.6) -> TableState:
    """12 nests on a jittered 4x3 grid; every neighbouring gap stays within 4-5 inches."""
    rng = random.Random(seed)
    colours = [c for c in GAME_COLOURS for _ in range(NESTS_PER_COLOUR)]
    rng.shuffle(colours)
    # Each centre moves up to JITTER_MM along x and y; the pitch keeps the narrowest gap
    # (both squares turned 45 degrees, jittered towards each other) at 4 inches, and the
    # widest (squares square-on, jittered apart) under 5.
    pitch = GAP_MIN_MM + Size.LARGE.base * math.sqrt(2) + 2 * JITTER_MM
    assert pitch + 2 * JITTER_MM - Size.LARGE.base <= GAP_MAX_MM
    x0 = TABLE_CENTRE_MM[0] - pitch * (GRID_COLS - 1) / 2
    y0 = TABLE_CENTRE_MM[1] - pitch * (GRID_ROWS - 1) / 2
    pieces = []
    for i, (r, c) in enumerate(itertools.product(range(GRID_ROWS), range(GRID_COLS))):
        centre = (x0 + c * pitch + rng.uniform(-JITTER_MM, JITTER_MM),
                  y0 + r * pitch + rng.uniform(-JITTER_MM, JITTER_MM))
        pieces.append(Piece.upright(f"n{i + 1}", colours[i], Size.LARGE, centre,
                                    rotation=rng.uniform(0, 90), stack=FULL_NEST))
    return TableState(tuple(pieces), warp_diameter=warp_diameter)


def min_gap(state: TableState) -> float:
    """The smallest free gap between two pieces' footprints, mm."""
    polys = [p.footprint() for p in state.pieces]
    return min(g.separation(a, b) for a, b in itertools.combinations(polys, 2))
