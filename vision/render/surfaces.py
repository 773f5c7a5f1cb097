"""Procedural table tops and the printed marker sheets, evaluated at table points.

Every pattern is a function of table (x, y) mm, so it stays put from frame to frame and
can be sampled at any set of points (one per pixel, or several per pixel near edges).
Noise octaves are small random grids looked up with cv2.remap (bicubic, wrapping);
octaves finer than the pixel footprint are faded out (band-limited, so no moiré).
Albedos are linear RGB.
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from calibration.markers import MarkerLayout
from vision.render.scene import Board, SceneError, Surface

GRID = 256                 # noise grid side, cells (wraps)
NOISE_INTERPOLATION = cv2.INTER_LINEAR   # cubic looks smoother but costs twice as much
INK_ALBEDO = 0.035         # laser-printer black on paper, linear
PAPER_ALBEDO = 0.78        # office paper, linear


@functools.lru_cache(maxsize=64)
def _grid(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).random((GRID, GRID), dtype=np.float32)


REMAP_ROW = 1024            # cv2.remap wants maps under 32767 rows: fold point lists into rows


def lookup(img: np.ndarray, mx: np.ndarray, my: np.ndarray, interp: int, border: int) -> np.ndarray:
    """cv2.remap of a one-channel image at arbitrary points (flat coordinate arrays) -> flat values."""
    n = len(mx)
    if n == 0:
        return np.zeros(0, img.dtype)
    rows = -(-n // REMAP_ROW)
    maps = np.zeros((2, rows * REMAP_ROW), np.float32)
    maps[0, :n], maps[1, :n] = mx, my
    out = cv2.remap(img, maps[0].reshape(rows, REMAP_ROW), maps[1].reshape(rows, REMAP_ROW), interp,
                    borderMode=border, borderValue=0)
    return out.reshape(-1)[:n]


def noise(xy: np.ndarray, scale_mm: float, seed: int, footprint: np.ndarray | float = 0.0,
          stretch: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
    """Smooth value noise in [-0.5, 0.5] with features of `scale_mm`, faded where a pixel
    covers more than half a feature (band limit)."""
    mx = xy[:, 0] / (scale_mm * stretch[0])
    my = xy[:, 1] / (scale_mm * stretch[1])
    v = lookup(_grid(seed), mx, my, NOISE_INTERPOLATION, cv2.BORDER_WRAP) - 0.5
    fade = np.clip(1.5 - 2.0 * np.asarray(footprint) / (scale_mm * min(stretch)), 0.0, 1.0)
    return v * fade


def fbm(xy: np.ndarray, scale_mm: float, seed: int, octaves: int = 4, footprint=0.0,
        stretch=(1.0, 1.0)) -> np.ndarray:
    """Fractal noise: octaves at scale, scale/2.17, ... with halving amplitude (≈ [-0.5, 0.5])."""
    total, amp, s = 0.0, 1.0, scale_mm
    norm = 0.0
    for k in range(octaves):
        total = total + amp * noise(xy, s, seed * 31 + k, footprint, stretch)
        norm += amp
        amp *= 0.5
        s /= 2.17
    return total / norm * 1.6


def _rotate(xy: np.ndarray, deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.column_stack([c * xy[:, 0] + s * xy[:, 1], -s * xy[:, 0] + c * xy[:, 1]])


WOODS = {  # linear RGB of the light (early) wood; late-wood bands are darker and redder
    "oak": (0.42, 0.25, 0.11), "walnut": (0.16, 0.08, 0.035), "pine": (0.58, 0.38, 0.17),
    "cherry": (0.33, 0.13, 0.055), "birch": (0.62, 0.46, 0.28),
}


def _wood(s: Surface, xy: np.ndarray, fp) -> np.ndarray:
    """Planks with figure: growth rings cut at a slant give long wavy streaks (cathedrals),
    plus fine pores along the grain, a per-plank shade and dark seams between planks."""
    rng = np.random.default_rng(s.seed)
    base = np.array(list(WOODS.values())[s.seed % len(WOODS)]) * np.array(s.tint)
    plank_w = rng.uniform(90, 180) * s.scale
    uv = _rotate(xy, s.angle_deg)
    plank = np.floor(uv[:, 1] / plank_w)
    shade = 1.0 + 0.3 * noise(np.column_stack([plank * 7.3, plank * 3.1]), 1.0, s.seed + 5)
    along = uv[:, 0] + plank * 397.0
    across = uv[:, 1] - plank * plank_w
    a_xy = np.column_stack([along, across])
    # growth rings: the board surface cuts a tapering log at depth D below its pith, so a
    # ring of radius r shows where (across - pith)² + D² = r²: wide bands over the pith,
    # tight lines at the sides, arches ("cathedrals") where D shrinks along the board
    pith = (rng.uniform(-0.3, 0.3, 256)[plank.astype(int) % 256] * plank_w
            + 12 * s.scale * fbm(a_xy, 120 * s.scale, s.seed + 1, 2, fp, (6.0, 1.0)))
    taper = rng.uniform(-0.03, 0.03, 256)[plank.astype(int) % 256]
    depth_d = rng.uniform(15, 90, 256)[plank.astype(int) % 256] * s.scale + taper * (along % 1500 - 750)
    ring_mm = rng.uniform(2.5, 6.0) * s.scale
    radius = np.sqrt((across - pith) ** 2 + np.maximum(np.abs(depth_d), 4.0) ** 2)
    phase = radius / ring_mm + 0.5 * fbm(a_xy, 40 * s.scale, s.seed + 6, 2, fp, (8.0, 1.0))
    ring_fade = np.clip(1.5 - 2.0 * np.asarray(fp) / (0.5 * ring_mm), 0, 1)
    late = (0.5 + 0.5 * np.sin(2 * math.pi * phase)) ** 4 * ring_fade + 0.0625 * (1 - ring_fade)
    pores = noise(a_xy, 0.5 * s.scale, s.seed + 2, fp, (14.0, 1.0))
    mottle = fbm(xy, 160.0, s.seed + 3, 3, fp)
    lum = shade * (1.0 - 0.45 * late + 0.3 * pores + 0.3 * mottle)
    col = base[None, :] * lum[:, None]
    col = col * (1.0 - 0.3 * late[:, None] * np.array([0.0, 0.2, 0.4]))  # late wood redder
    # seams: a dark 0.6 mm gap, coverage spread over the pixel footprint (no jaggies)
    gap = np.abs(across - plank_w / 2) - (plank_w / 2 - 0.3)
    seam = np.clip(0.5 + gap / np.maximum(fp, 1e-3), 0, 1)
    return col * (1 - 0.7 * seam[:, None])


def _cloth(s: Surface, xy: np.ndarray, fp) -> np.ndarray:
    rng = np.random.default_rng(s.seed)
    grey = rng.uniform(0.10, 0.32)
    base = np.array([grey, grey * rng.uniform(0.97, 1.03), grey * rng.uniform(0.97, 1.1)]) * np.array(s.tint)
    uv = _rotate(xy, s.angle_deg)
    pitch = rng.uniform(0.8, 1.6) * s.scale
    weave_fade = np.clip(1.5 - 2.0 * np.asarray(fp) / pitch, 0, 1)
    weave = np.sin(uv[:, 0] * 2 * math.pi / pitch) * np.sin(uv[:, 1] * 2 * math.pi / pitch)
    threads = noise(uv, pitch * 0.9, s.seed + 2, fp, (8.0, 1.0)) + noise(uv, pitch * 0.9, s.seed + 4, fp, (1.0, 8.0))
    fuzz = fbm(xy, 4.0, s.seed + 1, 3, fp)
    mottle = fbm(xy, 180.0, s.seed + 3, 3, fp)
    lum = 1.0 + 0.12 * weave * weave_fade + 0.25 * threads + 0.25 * fuzz + 0.3 * mottle
    return base[None, :] * lum[:, None]


def _felt(s: Surface, xy: np.ndarray, fp) -> np.ndarray:
    rng = np.random.default_rng(s.seed)
    base = np.array([rng.uniform(0.01, 0.04), rng.uniform(0.12, 0.24), rng.uniform(0.04, 0.09)]) * np.array(s.tint)
    fuzz = fbm(xy, 1.5 * s.scale, s.seed + 1, 3, fp)
    mottle = fbm(xy, 90.0, s.seed + 3, 4, fp)
    lum = 1.0 + 0.35 * fuzz + 0.35 * mottle
    return base[None, :] * lum[:, None]


SPECK_MM = 2.2   # dust, lint and crumbs are about this big


def _wear(s: Surface, xy: np.ndarray, fp) -> tuple[np.ndarray, np.ndarray]:
    """A lived-in table: sparse light and dark specks (dust, lint, crumbs) and faint
    blotches (old stains). Returns (multiplier N, added grey N)."""
    speck = noise(xy, SPECK_MM, s.seed + 21)
    kind = noise(xy, 7.0, s.seed + 22, fp)
    threshold = np.random.default_rng(s.seed + 20).uniform(0.42, 0.47)   # how dusty
    fade = np.clip(1.5 - 2.0 * np.asarray(fp) / SPECK_MM, 0, 1)
    dots = np.clip((np.abs(speck) - threshold) * 12, 0, 1) * fade
    light = dots * (kind > 0)
    stain = np.clip((fbm(xy, 70.0, s.seed + 23, 2, fp) - 0.25) * 3, 0, 1)
    return 1.0 - 0.5 * dots * (kind <= 0) - 0.12 * stain, 0.25 * light


SURFACES = {"wood": _wood, "cloth": _cloth, "felt": _felt}
GLOSS = {"wood": 0.05, "cloth": 0.0, "felt": 0.0}   # varnish reflectance at normal incidence


def table_albedo(surface: Surface, xy: np.ndarray, footprint) -> np.ndarray:
    """Albedo (N×3) of the bare table at table points xy (N×2); footprint: pixel size, mm."""
    try:
        fn = SURFACES[surface.kind]
    except KeyError:
        raise SceneError(f"unknown surface {surface.kind!r} (one of: {', '.join(SURFACES)})") from None
    # single precision: a pattern needs no more, and it halves the memory traffic; one
    # footprint for all (it varies by a few tens of % over a picture: enough to band-limit)
    fp = float(np.median(footprint)) if np.size(footprint) else 1.0
    xy = xy.astype(np.float32)
    mult, add = _wear(surface, xy, fp)
    return np.clip(fn(surface, xy, fp) * mult[:, None] + add[:, None], 0.0, 1.0)


TEXELS_PER_MM = 6.0


@functools.lru_cache(maxsize=64)
def _marker_texture(dictionary: str, marker_id: int, size_mm: float) -> np.ndarray:
    """The printed black square of one marker: 1 = ink, 0 = paper, TEXELS_PER_MM texels a mm."""
    aruco = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    side = int(round(size_mm * TEXELS_PER_MM / 6)) * 6
    img = cv2.aruco.generateImageMarker(aruco, marker_id, side, borderBits=1)
    return (1.0 - img.astype(np.float32) / 255.0)


def paper(layout: MarkerLayout, paper_mm: float, xy: np.ndarray, footprint, seed: int = 0
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Marker sheets: (indices of the points on or next to a sheet, their paper coverage
    0..1, their albedo N×3 where covered)."""
    fp = np.broadcast_to(np.asarray(footprint, float), (len(xy),))
    half = paper_mm / 2
    picked, covers, inks = [], [], []
    for m in layout.markers:
        dx, dy = xy[:, 0] - m.center[0], xy[:, 1] - m.center[1]
        near = np.flatnonzero((np.abs(dx) < half + 2) & (np.abs(dy) < half + 2))
        if len(near) == 0:
            continue
        dx, dy = dx[near], dy[near]
        # paper edge: coverage ramps over one pixel (anti-aliased)
        edge = half - np.maximum(np.abs(dx), np.abs(dy))
        covers.append(np.clip(0.5 + edge / np.maximum(fp[near], 1e-3), 0, 1))
        tex = _marker_texture(layout.dictionary, m.id, m.size)
        # box-filter the print to the pixel footprint before the bilinear lookup
        sigma = max(float(np.median(fp[near])) * TEXELS_PER_MM * 0.45, 0.3)
        tex_f = cv2.GaussianBlur(tex, (0, 0), sigma)
        scale = tex.shape[0] / m.size
        inks.append(lookup(tex_f, (dx + m.size / 2) * scale - 0.5, (dy + m.size / 2) * scale - 0.5,
                           cv2.INTER_LINEAR, cv2.BORDER_CONSTANT))
        picked.append(near)
    if not picked:
        return np.zeros(0, int), np.zeros(0), np.zeros((0, 3))
    idx, cover, ink = np.concatenate(picked), np.concatenate(covers), np.concatenate(inks)
    grain = 1.0 + 0.03 * fbm(xy[idx], 3.0, seed + 11, 2, fp[idx])
    white = PAPER_ALBEDO * grain[:, None] * np.array([1.0, 0.99, 0.965])
    return idx, cover, white * (1 - ink[:, None]) + INK_ALBEDO * ink[:, None]


BOARD_LINE_MM = 1.0    # printed grid line width
CANAL_MM = 5.0         # the canal across a Martian Chess board


def board(b: Board, xy: np.ndarray, footprint) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A printed game board: (indices of the points on it, coverage 0..1, albedo N×3)."""
    c = np.asarray(b.corners, float)
    origin, ex, ey = c[0], c[1] - c[0], c[3] - c[0]
    inv = np.linalg.inv(np.column_stack([ex, ey]))
    side = (np.linalg.norm(ex) / b.files + np.linalg.norm(ey) / b.ranks) / 2     # mm a square
    uv = (xy - origin) @ inv.T * [b.files, b.ranks]                               # in squares
    m = b.margin_mm / side
    on = np.flatnonzero((uv[:, 0] > -m - 0.1) & (uv[:, 0] < b.files + m + 0.1)
                        & (uv[:, 1] > -m - 0.1) & (uv[:, 1] < b.ranks + m + 0.1))
    uv = uv[on]
    fp = np.broadcast_to(np.asarray(footprint, float), (len(xy),))[on] / side    # pixel, in squares
    # distance (squares) inside the card's edge, and to the nearest grid line
    edge = np.minimum(np.minimum(uv[:, 0] + m, b.files + m - uv[:, 0]), np.minimum(uv[:, 1] + m, b.ranks + m - uv[:, 1]))
    cover = np.clip(0.5 + edge / np.maximum(fp, 1e-4), 0, 1)
    inside = (uv[:, 0] >= 0) & (uv[:, 0] <= b.files) & (uv[:, 1] >= 0) & (uv[:, 1] <= b.ranks)
    line = np.minimum(np.abs(uv[:, 0] - np.round(uv[:, 0])), np.abs(uv[:, 1] - np.round(uv[:, 1])))
    ink = np.clip(0.5 + (BOARD_LINE_MM / 2 / side - line) / np.maximum(fp, 1e-4), 0, 1) * inside
    if b.style == "checker":
        parity = (np.floor(uv[:, 0]) + np.floor(uv[:, 1])) % 2 == 0
        ink = np.maximum(ink, parity & inside)
    if b.canal_after_rank is not None:
        canal = np.abs(uv[:, 1] - b.canal_after_rank) * side - CANAL_MM / 2
        ink = np.maximum(ink, np.clip(0.5 - canal / side / np.maximum(fp, 1e-4), 0, 1) * inside)
    light, dark = np.array(b.light), np.array(b.dark)
    return on, cover, light * (1 - ink[:, None]) + dark * ink[:, None]


def coin_relief(center: tuple[float, float], radius: float, xy: np.ndarray, seed: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """Struck-coin relief on a coin's face: (tilted unit normals N×3, tarnish factor N).

    A raised rim with sloped sides, a ring of lettering and a worn portrait in the field,
    as a height map whose slope tilts the normal.
    """
    q = xy - np.asarray(center)
    r = np.hypot(q[:, 0], q[:, 1]) / radius
    eps = 0.05

    def height(p: np.ndarray) -> np.ndarray:
        rr = np.hypot(p[:, 0], p[:, 1]) / radius
        rim = np.clip((rr - 0.86) / 0.06, 0, 1) * 0.12
        letters = ((rr > 0.7) & (rr < 0.84)) * 0.05 * (noise(p, 0.45, seed + 1) > 0.05)
        portrait = (rr < 0.66) * 0.12 * (0.5 + fbm(p, 4.0, seed + 2, 3))
        return rim + letters + portrait

    hx = (height(q + [eps, 0]) - height(q - [eps, 0])) / (2 * eps)
    hy = (height(q + [0, eps]) - height(q - [0, eps])) / (2 * eps)
    n = np.column_stack([-hx, -hy, np.ones(len(q))])
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    tarnish = 1.0 - 0.35 * np.clip(fbm(xy, 3.0, seed + 3, 3) + 0.2, 0, 1) - 0.2 * (r > 0.97)
    return n, tarnish
