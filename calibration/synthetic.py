"""Synthetic pictures of flat things on the table seen by a known camera, for tests and benchmarks.

A flat *texture* (markers on a mottled table, a checkerboard, a ChArUco board) is drawn in
table millimetres, then looked at through a `CameraView`, lens distortion included, with
2× supersampling, a lamp's uneven light, a colour cast, sensor noise and a JPEG round trip.
This is independent of the registration code it tests: it only uses `CameraView.project`'s
model through OpenCV.

>>> view = CameraView.looking_down(distance_mm=900)
>>> img = picture_of_layout(MarkerLayout.default(), view, seed=1)
>>> img.shape, img.dtype
((960, 1280, 3), dtype('uint8'))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from calibration.camera import CameraView, Intrinsics
from calibration.markers import MarkerLayout
from calibration.srgb import LINEAR, encode

SUPERSAMPLE = 2


@dataclass(frozen=True)
class Texture:
    """A BGR picture of the plane, `ppmm` pixels per mm: pixel (i, j) covers table x from
    x0 + i/ppmm to x0 + (i+1)/ppmm (and likewise y), so pixel edges fall on whole-pixel lines."""

    image: np.ndarray
    x0: float
    y0: float
    ppmm: float
    outside_bgr: tuple[int, int, int] = (60, 70, 80)


def _mottled(h: int, w: int, rng: np.random.Generator, base_bgr, amplitude: float) -> np.ndarray:
    """A smooth random table surface: a few octaves of blurred noise around a base colour."""
    field = np.zeros((h, w), np.float32)
    for cells, weight in ((6, 1.0), (40, 0.5), (200, 0.25)):
        small = rng.standard_normal((max(2, h * cells // max(h, w)), cells)).astype(np.float32)
        field += weight * cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    out = np.asarray(base_bgr, np.float32)[None, None, :] + amplitude * field[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def marker_image(layout: MarkerLayout, marker_id: int, side_px: int) -> np.ndarray:
    """The black square of one marker (border included), side_px × side_px, grey uint8."""
    return cv2.aruco.generateImageMarker(layout.aruco, marker_id, side_px, borderBits=1)


@lru_cache(maxsize=4)  # a texture takes ~1 s to make; callers must not modify its image
def layout_texture(layout: MarkerLayout, seed: int = 0, ppmm: float = 3.0, margin_mm: float = 450.0,
                   paper_bgr=(235, 238, 240), table_bgr=(95, 120, 150)) -> Texture:
    """Markers printed on paper (with their quiet zone) lying on a mottled table."""
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = layout.bounds()
    x0, y0, x1, y1 = x0 - margin_mm, y0 - margin_mm, x1 + margin_mm, y1 + margin_mm
    w, h = int(math.ceil((x1 - x0) * ppmm)), int(math.ceil((y1 - y0) * ppmm))
    img = _mottled(h, w, rng, table_bgr, 25.0)
    for m in layout.markers:
        q = layout.quiet_zone(m)
        half = m.size / 2
        paper = [(m.center[0] - half - q, m.center[1] - half - q), (m.center[0] + half + q, m.center[1] + half + q)]
        (a, b), (c, d) = [((px - x0) * ppmm, (py - y0) * ppmm) for px, py in paper]
        img[int(round(b)):int(round(d)), int(round(a)):int(round(c))] = paper_bgr
        side = int(round(m.size * ppmm))
        left, top = int(round((m.center[0] - half - x0) * ppmm)), int(round((m.center[1] - half - y0) * ppmm))
        mk = marker_image(layout, m.id, side)
        patch = img[top:top + side, left:left + side]
        patch[mk == 0] = (25, 25, 25)
    return Texture(img, x0, y0, ppmm)


def checkerboard_texture(cols: int, rows: int, square_mm: float, ppmm: float = 6.0) -> Texture:
    """A board of cols × rows squares (so (cols−1) × (rows−1) inner corners) on white paper;
    the first inner corner is at table (0, 0)."""
    margin = square_mm
    w, h = int(round((cols * square_mm + 2 * margin) * ppmm)), int(round((rows * square_mm + 2 * margin) * ppmm))
    img = np.full((h, w, 3), 240, np.uint8)
    s = square_mm * ppmm
    for r in range(rows):
        for c in range(cols):
            if (r + c) % 2 == 0:
                img[int(round(margin * ppmm + r * s)):int(round(margin * ppmm + (r + 1) * s)),
                    int(round(margin * ppmm + c * s)):int(round(margin * ppmm + (c + 1) * s))] = 20
    return Texture(img, -margin - square_mm, -margin - square_mm, ppmm)


def charuco_texture(board: "cv2.aruco.CharucoBoard", ppmm: float = 6.0) -> Texture:
    """A ChArUco board's own picture; its first inner corner is at table (0, 0)."""
    cols, rows = board.getChessboardSize()
    square = board.getSquareLength()
    margin = square
    size = (int(round((cols * square + 2 * margin) * ppmm)), int(round((rows * square + 2 * margin) * ppmm)))
    grey = board.generateImage(size, marginSize=int(round(margin * ppmm)), borderBits=1)
    return Texture(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), -margin - square, -margin - square, ppmm)


def _table_coords(view: CameraView, width: int, height: int, scale: int) -> tuple[np.ndarray, np.ndarray]:
    """Table (x, y) seen by every (sub)pixel centre of a width × height picture."""
    u = (np.arange(width * scale, dtype=np.float64) + 0.5) / scale - 0.5
    v = (np.arange(height * scale, dtype=np.float64) + 0.5) / scale - 0.5
    uu, vv = np.meshgrid(u, v)
    pix = np.column_stack([uu.ravel(), vv.ravel()])
    if any(view.intrinsics.dist):
        xy = view.image_to_table(pix)
    else:
        hinv = np.linalg.inv(view.table_to_image_homography())
        p = hinv @ np.vstack([pix.T, np.ones(len(pix))])
        xy = (p[:2] / p[2]).T
    return xy[:, 0].reshape(uu.shape), xy[:, 1].reshape(uu.shape)


def render_plane(texture: Texture, view: CameraView, seed: int = 0, noise_sigma: float = 2.0,
                 jpeg_quality: int | None = 88, cast_bgr=(1.0, 1.0, 1.0), lamp: float = 0.25) -> np.ndarray:
    """What `view` sees of the plane: BGR uint8 picture of the intrinsics' size."""
    intr = view.intrinsics
    x, y = _table_coords(view, intr.width, intr.height, SUPERSAMPLE)
    # remap samples at pixel centres; texture pixel i is centred on x0 + (i + 0.5)/ppmm
    mx = ((x - texture.x0) * texture.ppmm - 0.5).astype(np.float32)
    my = ((y - texture.y0) * texture.ppmm - 0.5).astype(np.float32)
    # a pixel gathers light: the texture is supersampled and averaged in linear light, and
    # the camera encodes the result
    light = LINEAR.astype(np.float32)[texture.image]
    outside = tuple(float(LINEAR[v]) for v in texture.outside_bgr)
    big = cv2.remap(light, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=outside)
    img = encode(cv2.resize(big, (intr.width, intr.height), interpolation=cv2.INTER_AREA)).astype(np.float32)
    rng = np.random.default_rng(seed)
    # a lamp off to one side: light falls off smoothly across the picture
    lx, ly = rng.uniform(0, intr.width), rng.uniform(0, intr.height)
    yy, xx = np.mgrid[0:intr.height, 0:intr.width]
    r2 = ((xx - lx) ** 2 + (yy - ly) ** 2) / float(intr.width ** 2)
    gain = (1.0 - lamp * np.clip(r2, 0, 1)).astype(np.float32)
    img *= gain[..., None] * np.asarray(cast_bgr, np.float32)[None, None, :]
    img += rng.normal(0.0, noise_sigma, img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def defocused(image: np.ndarray, sigma_px: float) -> np.ndarray:
    """`image` as a lens out of focus by a Gaussian of `sigma_px` pixels would have taken
    it: blurred in light, not in its encoded levels."""
    return encode(cv2.GaussianBlur(LINEAR[image].astype(np.float32), (0, 0), sigma_px))


def picture_of_layout(layout: MarkerLayout, view: CameraView, seed: int = 0, table_seed: int = 0,
                      **options) -> np.ndarray:
    """The markers of `layout` on a table (mottled by `table_seed`), seen by `view`; `seed`
    draws the lamp and the noise (see `render_plane` for options)."""
    return render_plane(layout_texture(layout, table_seed), view, seed=seed, **options)


def random_view(rng: np.random.Generator, layout: MarkerLayout, width: int = 1280, height: int = 960,
                max_tilt_deg: float = 30.0, hfov_deg=(50.0, 80.0), dist: tuple[float, ...] | None = None,
                coverage: float = 0.85) -> CameraView:
    """A plausible overhead camera: random field of view, tilt and heading of up to ±10°,
    placed so that the layout fills about `coverage` of the picture's width or height."""
    hfov = math.radians(rng.uniform(*hfov_deg))
    f = (width / 2) / math.tan(hfov / 2)
    intr = Intrinsics(width, height, f, f * rng.uniform(0.998, 1.002), (width - 1) / 2 + rng.normal(0, 8),
                      (height - 1) / 2 + rng.normal(0, 8), dist or (0.0, 0.0, 0.0, 0.0, 0.0))
    x0, y0, x1, y1 = layout.bounds()
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2]) + rng.normal(0, 15, 2)
    # distance at which the layout spans `coverage` of the picture when seen straight down
    span = max((x1 - x0 + 60) * f / (coverage * width), (y1 - y0 + 60) * f / (coverage * height))
    tilt = math.radians(rng.uniform(0, max_tilt_deg))
    azimuth = rng.uniform(0, 2 * math.pi)
    eye = (centre[0] + span * math.sin(tilt) * math.cos(azimuth), centre[1] + span * math.sin(tilt) * math.sin(azimuth),
           span * math.cos(tilt))
    spin = math.radians(rng.uniform(-10, 10))
    up = (math.sin(spin), -math.cos(spin), 0.0)
    return CameraView.from_look_at(intr, eye, (centre[0], centre[1], 0.0), up_hint=up)
