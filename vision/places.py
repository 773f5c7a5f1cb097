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


def one_per_place(pieces: list[Piece]) -> list[int]:
    """Indices of the pieces to keep, in order: of two whose footprints overlap by more
    than SAME_PLACE_SHARE of the smaller, only one (two blobs of one piece that the edges
    have moved onto it; real pieces cannot overlap, and a nest is one piece): the bigger,
    which takes in both blobs (a smaller one is a fragment of it), else a coloured one
    before black, else the more confident.

    >>> from domain import Size
    >>> a = Piece.upright("", "red", Size.LARGE, (100.0, 100.0), 0.0, 0.3)
    >>> b = Piece.upright("", "red", Size.SMALL, (104.0, 100.0), 10.0, 0.6)
    >>> c = Piece.upright("", "red", Size.SMALL, (125.0, 100.0), 0.0, 0.9)
    >>> one_per_place([a, b, c])
    [0, 2]
    >>> shaded = Piece.upright("", "black", Size.LARGE, (200.0, 100.0), 0.0, 0.9)
    >>> lit = Piece.upright("", "blue", Size.LARGE, (201.0, 101.0), 2.0, 0.5)
    >>> one_per_place([shaded, lit])
    [1]
    """
    if not pieces:
        return []
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
    kept: list[int] = []
    for i in order:
        if all(shared[i, k] <= SAME_PLACE_SHARE * min(areas[i], areas[k]) for k in kept):
            kept.append(i)
    return sorted(kept)


