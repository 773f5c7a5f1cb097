"""One piece a place: of two readings whose footprints overlap, the one to keep.

Real pieces cannot overlap and a nest is one piece, so two readings sharing much of a
footprint are one piece seen as two blobs (the edges moved one onto the other, or a
piece's shaded faces read apart from its lit ones).
"""

from __future__ import annotations

import numpy as np
import shapely

from domain import Color, Piece

# Two pieces whose footprints share more than this part of the smaller one are one piece
# seen as two blobs: neighbours pressed together, placed ~2 mm out each, share under 0.15.
# Of two such readings of one piece with the same footprint, a colour goes before black:
# a coloured piece's shaded faces may read black, a black piece shows no colour. Over
# every set (both path-traced wall models, ten colours, our Rainbow with black), the
# 8 places read both black and a colour held the colour 7 times, black never.
SAME_PLACE_SHARE = 0.3


def one_per_place(pieces: list[Piece]) -> dict[int, list[int]]:
    """The pieces to keep, by index, each with the other readings of its place that it
    takes in. Of two whose footprints overlap by more than SAME_PLACE_SHARE of the
    smaller, only one is kept (two blobs of one piece that the edges have moved onto it;
    real pieces cannot overlap, and a nest is one piece): the bigger, which takes in both
    blobs (a smaller one is a fragment of it), else a coloured one before black, else the
    more confident. A reading overlapping several kept ones goes to the one it overlaps
    most.

    >>> from domain import Size
    >>> a = Piece.upright("", "red", Size.LARGE, (100.0, 100.0), 0.0, 0.3)
    >>> b = Piece.upright("", "red", Size.SMALL, (104.0, 100.0), 10.0, 0.6)
    >>> c = Piece.upright("", "red", Size.SMALL, (125.0, 100.0), 0.0, 0.9)
    >>> one_per_place([a, b, c])
    {0: [1], 2: []}
    >>> shaded = Piece.upright("", "black", Size.LARGE, (200.0, 100.0), 0.0, 0.9)
    >>> lit = Piece.upright("", "blue", Size.LARGE, (201.0, 101.0), 2.0, 0.5)
    >>> one_per_place([shaded, lit])
    {1: [0]}
    """
    if not pieces:
        return {}
    footprints = [p.footprint() for p in pieces]
    # shapely's vectorised calls: the same geometries and areas as Polygon(...) one by one
    polygons = shapely.polygons(shapely.linearrings(np.concatenate(footprints),
                                                    indices=np.repeat(np.arange(len(pieces)), [len(f) for f in footprints])))
    areas = shapely.area(polygons)
    order = sorted(range(len(pieces)),
                   key=lambda i: (-round(areas[i]), pieces[i].color is Color.BLACK, -pieces[i].confidence))
    # footprints whose boxes are apart share nothing: only the others are intersected
    x0, y0, x1, y1 = shapely.bounds(polygons).T
    near = (x0[:, None] <= x1[None]) & (x0[None] <= x1[:, None]) & (y0[:, None] <= y1[None]) & (y0[None] <= y1[:, None])
    i, k = np.nonzero(near & ~np.eye(len(pieces), dtype=bool))   # (each way round, as the loop asks)
    shared = np.zeros((len(pieces), len(pieces)))
    shared[i, k] = shapely.area(shapely.intersection(polygons[i], polygons[k]))
    kept: dict[int, list[int]] = {}
    for i in order:
        over = [k for k in kept if shared[i, k] > SAME_PLACE_SHARE * min(areas[i], areas[k])]
        if over:
            kept[max(over, key=lambda k: shared[i, k])].append(i)
        else:
            kept[i] = []
    return kept


def place_colour(readings: list[np.ndarray], margins: list[float], hued: np.ndarray) -> int | None:
    """The index of the reading of one place that gives the piece its colour, when it is
    not the kept one (the first; None: the kept one's colour stands). Each reading is a
    row of distances to the colour models, with its margin (how much nearer its nearest
    model is than the runner-up: ColourModels.nearest); `hued` marks the models of
    coloured plastic. A piece's lit and shaded faces, read apart, can name two colours: a
    pale lit face of thin green plastic reads blue while its shaded faces read green
    (path-traced 9202 at 256 samples a pixel). The kept reading's colour gives way only
    to a hued one that the surest hued reading (the widest margin) and the hued readings
    together (their distances summed) both name. Each test alone also took a neighbour's
    colour; both together changed no colour wrongly in any set.

    >>> hued = np.array([True, True, True, False])   # e.g. blue, green, red, black
    >>> lit, shaded = np.array([0.24, 0.41, 1.0, 1.5]), np.array([1.3, 0.78, 2.0, 1.4])
    >>> place_colour([lit, shaded], [0.17, 0.52], hued)
    1
    >>> place_colour([lit, np.array([0.7, 0.6, 2.0, 1.4])], [0.17, 0.1], hued) is None   # not surer
    True
    >>> place_colour([np.array([1.5, 1.6, 1.7, 0.2]), shaded], [1.3, 0.52], hued) is None   # black kept
    True
    """
    own = int(np.argmin(readings[0]))
    if not hued[own]:
        return None
    coloured = [j for j, d in enumerate(readings) if hued[int(np.argmin(d))]]
    surest = max(coloured, key=lambda j: margins[j])   # (ties: the kept one)
    colour = int(np.argmin(readings[surest]))
    together = int(np.argmin(np.sum([readings[j] for j in coloured], axis=0)))
    return surest if colour != own and together == colour else None
