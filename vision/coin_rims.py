"""A coin's rim in the picture's edges: a circle the size of a coin, which no pyramid draws.

A coin whose blob takes in its soft shadow can fit an upright's outline better than
a disc (the shadow squares it off), yet the picture's steps still trace its rim: a circle
of the coin's radius, stepping across (radially) all the way round. A pyramid seen from
above steps along straight base edges and ridges: around any centre its steps lie at
radii that vary by the square's corners (a medium upright's base, 19.8 mm across, is
9.9 mm from its centre mid-side and 14.0 mm at a corner) and turn along its ridges.

`find_rim` measures that circle on the picture's edge map (vision.edges.EdgeMap): along
RIM_ANGLES rays from a starting centre, the radius where the step across the ray is
strongest; a circle fitted to those points (least squares), and again from its centre.
`rim_starts` proposes centres over a whole table: each pixel stepping at least
VOTE_STEP votes for the two points a coin's radius away across its step (a Hough
transform for circles of one radius), and the places most voted for are tried.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.compiled import jit
from vision.rectify import TableGrid

# Rays around a candidate centre, and the radii searched along each, mm: wider than both
# coins (9.5 and 10.6 mm) by a few mm either way, so a start a few mm off still sees the rim.
RIM_ANGLES = 72
RIM_RADII_MM = np.arange(6.0, 15.01, 0.5)

# `rim_starts`: the radius voted at (between a penny's 9.5 and a nickel's 10.6 mm: the
# votes are blurred by a pixel), the least step that votes (the trace of the edge map's
# structure tensor; bare cloth and felt step less than this at half their pixels), the
# least votes (blurred) a start needs (a clean rim of 60-66 pixels gets 10-17, a faint
# one 4-8) and how far apart starts are (mm).
VOTE_RADIUS_MM = 10.1
VOTE_STEP = 0.004
VOTES_MIN = 4.0
STARTS_APART_MM = 9.0

_ANGLES = np.linspace(0.0, 2.0 * np.pi, RIM_ANGLES, endpoint=False)
_COS, _SIN = np.cos(_ANGLES), np.sin(_ANGLES)


@dataclass(frozen=True)
class Rim:
    """The circle the picture's steps trace around a point (table mm)."""

    centre: np.ndarray   # (x, y) mm
    radius: float        # mm
    spread: float        # median distance of the rays' strongest steps from the circle, mm
    radial: float        # median share of the step's strength across the rim (radial) there


@jit()
def _rim_pass(tensor, cx, cy, radii, cos, sin):
    """From a centre (cx, cy, grid px): along each ray (cos, sin) the radius where the
    step across it (radial: n·J·n of the structure tensor at the nearest pixel) is
    strongest, to a fraction of a step by a parabola through its neighbours; the circle
    through those points (least squares, Kasa's algebraic fit, about their mean); and
    the median distance of the points from it and median radial share of the steps
    there. Returns (cx, cy, radius, spread, share), grid px."""
    height, width = tensor.shape[0], tensor.shape[1]
    rays, steps = cos.shape[0], radii.shape[0]
    xs, ys, share = np.empty(rays), np.empty(rays), np.empty(rays)
    radial, tangential = np.empty(steps), np.empty(steps)
    for a in range(rays):
        c, s = cos[a], sin[a]
        best, k = -1.0, 0
        for i in range(steps):
            col = min(max(int(np.rint(cx + radii[i] * c)), 0), width - 1)
            row = min(max(int(np.rint(cy + radii[i] * s)), 0), height - 1)
            jxx, jxy, jyy = float(tensor[row, col, 0]), float(tensor[row, col, 1]), float(tensor[row, col, 2])
            radial[i] = c * c * jxx + 2.0 * c * s * jxy + s * s * jyy
            tangential[i] = s * s * jxx - 2.0 * c * s * jxy + c * c * jyy
            if radial[i] > best:
                best, k = radial[i], i
        shift = 0.0
        if 0 < k < steps - 1:
            curve = radial[k - 1] - 2.0 * radial[k] + radial[k + 1]
            if curve < 0.0:
                shift = 0.5 * (radial[k - 1] - radial[k + 1]) / curve
        r = radii[k] + shift * (radii[1] - radii[0])
        xs[a], ys[a] = cx + r * c, cy + r * s
        share[a] = radial[k] / max(radial[k] + tangential[k], 1e-12)
    mx, my = xs.mean(), ys.mean()
    u, v = xs - mx, ys - my
    w = u * u + v * v
    normal = np.array([[4.0 * (u * u).sum(), 4.0 * (u * v).sum(), 2.0 * u.sum()],
                       [4.0 * (u * v).sum(), 4.0 * (v * v).sum(), 2.0 * v.sum()],
                       [2.0 * u.sum(), 2.0 * v.sum(), float(rays)]])
    rhs = np.array([2.0 * (u * w).sum(), 2.0 * (v * w).sum(), w.sum()])
    sol = np.linalg.solve(normal, rhs)
    fx, fy = sol[0] + mx, sol[1] + my
    radius = np.sqrt(max(sol[2] + sol[0] * sol[0] + sol[1] * sol[1], 0.0))
    spread = np.median(np.abs(np.sqrt((xs - fx) ** 2 + (ys - fy) ** 2) - radius))
    return fx, fy, radius, spread, np.median(share)


def find_rim(tensor: np.ndarray, grid: TableGrid, centre_mm: np.ndarray) -> Rim:
    """The circle the steps of `tensor` (an EdgeMap's, on `grid`) trace around
    `centre_mm`: fitted from there, then again from the fitted centre.

    >>> from vision.rectify import TableGrid
    >>> grid = TableGrid(0.0, 0.0, 1.0, 80, 80)
    >>> yy, xx = np.mgrid[0:80, 0:80] + 0.5
    >>> r = np.hypot(xx - 41.0, yy - 38.0)
    >>> step = np.exp(-0.5 * (r - 10.6) ** 2)            # a ring-shaped step, radial
    >>> ux, uy = (xx - 41.0) / r, (yy - 38.0) / r
    >>> tensor = np.stack([step * ux * ux, step * ux * uy, step * uy * uy], axis=-1)
    >>> rim = find_rim(tensor, grid, np.array([39.0, 40.0]))
    >>> np.round(rim.centre, 1).tolist(), abs(rim.radius - 10.6) < 0.2, rim.spread < 0.5, rim.radial > 0.95
    ([41.0, 38.0], True, True, True)
    """
    tensor = tensor if tensor.dtype == np.float32 else tensor.astype(np.float32)
    radii = RIM_RADII_MM / grid.res
    cx, cy = grid.to_px(np.asarray(centre_mm, float))
    cx, cy = _rim_pass(tensor, cx, cy, radii, _COS, _SIN)[:2]
    cx, cy, radius, spread, share = _rim_pass(tensor, cx, cy, radii, _COS, _SIN)
    return Rim(grid.to_mm(np.array([cx, cy])), radius * grid.res, spread * grid.res, share)


@jit()
def _votes(tensor, usable, radius, least, votes):
    """Each usable pixel whose step (trace of the structure tensor) is at least `least`
    adds a vote at the two points `radius` (px) away along its step's direction."""
    height, width = usable.shape
    for y in range(height):
        for x in range(width):
            jxx, jxy, jyy = float(tensor[y, x, 0]), float(tensor[y, x, 1]), float(tensor[y, x, 2])
            if not usable[y, x] or jxx + jyy < least:
                continue
            # the step's direction: the tensor's main axis, at half the angle of
            # (jxx - jyy, 2 jxy), by the half-angle formulas
            c2, s2 = jxx - jyy, 2.0 * jxy
            norm = np.sqrt(c2 * c2 + s2 * s2)
            if norm == 0.0:
                continue
            dx = radius * np.sqrt(max(0.5 * (1.0 + c2 / norm), 0.0))
            dy = radius * np.sqrt(max(0.5 * (1.0 - c2 / norm), 0.0)) * (1.0 if s2 >= 0.0 else -1.0)
            for sign in (-1.0, 1.0):
                col, row = int(np.rint(x + sign * dx)), int(np.rint(y + sign * dy))
                if 0 <= col < width and 0 <= row < height:
                    votes[row, col] += 1.0


def rim_starts(tensor: np.ndarray, usable: np.ndarray, grid: TableGrid) -> np.ndarray:
    """Centres (N×2, table mm) where circles of about a coin's radius may lie: the local
    maxima of the blurred votes (`_votes`) of at least VOTES_MIN, STARTS_APART_MM apart."""
    votes = np.zeros(usable.shape, np.float32)
    _votes(tensor if tensor.dtype == np.float32 else tensor.astype(np.float32), usable.view(np.uint8),
           VOTE_RADIUS_MM / grid.res, VOTE_STEP, votes)
    votes = cv2.GaussianBlur(votes, (0, 0), 1.0)
    peaks = _peaks(votes, VOTES_MIN, int(round(STARTS_APART_MM / grid.res / 2)))
    return grid.to_mm(peaks.astype(float))


@jit()
def _peaks(votes, least, half):
    """(col, row) of the pixels of at least `least` votes that no pixel within `half`
    (a square window) outvotes."""
    height, width = votes.shape
    out = []
    for y in range(height):
        for x in range(width):
            v = votes[y, x]
            if v < least:
                continue
            top = True
            for yy in range(max(y - half, 0), min(y + half + 1, height)):
                for xx in range(max(x - half, 0), min(x + half + 1, width)):
                    if votes[yy, xx] > v:
                        top = False
                        break
                if not top:
                    break
            if top:
                out.append((x, y))
    peaks = np.empty((len(out), 2), np.int64)
    for k in range(len(out)):
        peaks[k, 0], peaks[k, 1] = out[k]
    return peaks
