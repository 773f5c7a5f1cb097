"""The models fitted to each blob, and flat pieces' poses refit once chosen.

`fit_blobs` fits every plausible hypothesis of every blob at once (vision.fit) and scores
it; `refine_flats` refits the flat pieces chosen with what the outline fit leaves out:
the side where the camera sees a lateral face, and the shade in their shadow's way
(vision.heading).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from vision import decide, heading, shadows
from vision import fit as fitting
from vision.geometry import COIN, FLAT
from vision.rectify import TableGrid

if TYPE_CHECKING:
    from vision.blobs import Blob


def fit_blobs(found: list[Blob], grid: TableGrid, camera: np.ndarray) -> list[list[fitting.Fit]]:
    """Every plausible model of each blob (upright or flat of the sizes its area allows, a
    coin if metallic) fitted to its outline from the camera at `camera` (table x, y,
    height, mm), scored by the outline both ways and the silhouette's IoU with the blob."""
    res = grid.res
    per_blob: list[list[fitting.Fit]] = [[] for _ in found]
    if not found:
        return per_blob
    origins = np.array([grid.corner_mm(b.origin_px) for b in found])
    outline_pts, outline_open = fitting.outline_points([b.part.outline for b in found],
                                                       [b.part.undecided for b in found], origins, res)
    tried = fitting.initial_hypotheses(outline_pts, [b.area_mm2 for b in found], camera,
                                       [decide.metallic(b.observed) for b in found])
    hyps: list[fitting.Hypothesis] = []
    starts: list[np.ndarray] = []
    points, open_sides, offsets = [], [], []
    for i, b in enumerate(found):
        h, s = decide.next_upright_size(*tried[i])
        hyps += h
        starts += s
        points += [outline_pts[i]] * len(h)
        offsets += [b.part.edge_offset * res] * len(h)
        open_sides += [outline_open[i]] * len(h)
    if not hyps:
        return per_blob
    open_sides = np.array(open_sides)
    params, r = fitting.gauss_newton(hyps, np.array(starts), np.array(points), open_sides, camera,
                                     np.array(offsets)[:, None])
    rms = fitting.robust_rms(r, open_sides)
    polys = fitting.outline_polygons(hyps, params, camera)
    rim = fitting.perimeter_points(polys)
    blob_of = np.array([h.blob for h in hyps])
    # the silhouette must lie on the outline as well as the outline on it
    outlines = [o + (b.part.outline + 0.5) * res for o, b in zip(origins, found)]
    both = 0.5 * (rms + fitting.reverse_rms(rim, blob_of, outlines, np.array([b.part.edge_offset * res for b in found]),
                                            [b.part.undecided for b in found], origins, res))
    ious, drawn = fitting.silhouette_ious(hyps, params, polys, blob_of, [b.part.mask for b in found],
                                          [b.part.undecided for b in found], origins, res)
    for k, h in enumerate(hyps):
        kept = (polys[k], (origins[h.blob], drawn[k])) if h.kind != COIN else (None, None)
        per_blob[h.blob].append(fitting.Fit(h, params[k], float(both[k]), float(ious[k]), *kept))
    return per_blob


def refine_flats(chosen: list, grid: TableGrid, camera: np.ndarray, direction: np.ndarray | None) -> list:
    """Flat pieces' poses refit to their blobs' contours with the side where the camera sees
    a lateral face open and shade in their shadow's way discounted (vision.heading)."""
    flat = [k for k, (_, best, _) in enumerate(chosen) if best.hypothesis.kind == FLAT]
    if not flat:
        return chosen
    res = grid.res
    blobs = [chosen[k][0] for k in flat]
    fits = [chosen[k][1] for k in flat]
    origins = np.array([grid.corner_mm(b.origin_px) for b in blobs])
    pts, open_side = fitting.outline_points([b.part.contour for b in blobs], [b.part.undecided for b in blobs],
                                            origins, res, heading.POINTS)
    # which outline points are darker than the bare table (shadow?)
    ij = np.round((pts - origins[:, None]) / res - 0.5).astype(int)
    dark = fitting.box_lookup([b.lum for b in blobs], np.arange(len(blobs))[:, None], ij[..., 0], ij[..., 1]) \
        < shadows.SHADE_LOG
    params = heading.refine([f.hypothesis.size for f in fits], np.array([f.params for f in fits]), camera,
                            pts, open_side, np.array([b.part.edge_offset * res for b in blobs]), direction, dark)
    out = list(chosen)
    for k, f, p in zip(flat, fits, params):
        out[k] = (chosen[k][0], fitting.Fit(f.hypothesis, p, f.rms, f.iou), chosen[k][2])
    return out
