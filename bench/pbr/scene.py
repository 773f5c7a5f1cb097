"""A vision.render SceneSpec as plain geometry, light and texture arrays (numpy only).

Everything a physically based renderer needs, in the table frame (x right, y down on
the table, z = height, mm): hollow pyramid shells as closed triangle meshes with their
wall's absorption, the lamps as glowing discs facing down, the room as a uniform sky, the table
top and the marker sheets as albedo bitmaps, and a pinhole camera with a film a little
larger than the picture (the lens distortion and principal point offset are applied
afterwards by resampling, see `film_map`). `bench.pbr.render` hands this to Mitsuba.

>>> from vision.render import random_scene
>>> spec = random_scene(9200)
>>> meshes = piece_meshes(spec)
>>> all(signed_volume(m.vertices, m.faces) > 0 for m in meshes)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from domain import CoinKind
from vision.render import surfaces
from vision.render.materials import kelvin_rgb
from vision.render.scene import IMAGE_SIZE, SceneSpec
from vision.render.shapes import WALL_MM
from vision.render.world import build_world

LIFT_MM = 0.02          # pieces float this far above the table (no coplanar faces for the tracer)
SHEET_LIFT_MM = 0.01    # a marker sheet's thickness, near enough
NEST_CLEARANCE_MM = 0.05  # a nested piece never touches the cavity around it
TEXELS_PER_MM = 2.0     # table bitmap resolution (a pixel covers ~0.7-1 mm of table)
SHEET_TEXELS_PER_MM = 6.0
FILM_SLACK_PX = 4       # film margin beyond what the distortion needs
TABLE_BEYOND_MM = 2000.0   # the table top reaches this far past what the camera sees (reflections)


@dataclass(frozen=True)
class Mesh:
    vertices: np.ndarray     # V×3, table mm
    faces: np.ndarray        # F×3 vertex indices, counter-clockwise seen from outside
    sigma: np.ndarray | None  # absorption per mm (rgb) of a translucent plastic, None: opaque
    haze: np.ndarray         # share of light one wall scatters back (rgb)
    albedo: np.ndarray       # diffuse albedo of an opaque plastic


def _shell_faces(k: int = 0) -> np.ndarray:
    """Faces of a hollow pyramid: vertices 0-3 outer base (counter-clockwise from above),
    4 outer apex, 5-8 cavity base, 9 cavity apex. Outer sides face out, cavity sides face
    into the cavity, the base ring (the wall's cut edge) faces down."""
    f = []
    for i in range(4):
        j = (i + 1) % 4
        f.append((i, j, 4))                 # outer side
        f.append((5 + j, 5 + i, 9))         # cavity side, reversed
        f.append((i, 5 + i, 5 + j))         # base ring
        f.append((i, 5 + j, j))
    return np.array(f, np.int64) + k


SOLID_FACES = np.array([(0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4), (0, 3, 2), (0, 2, 1)], np.int64)


def cavity_vertices(outer: np.ndarray, wall: float = WALL_MM) -> np.ndarray:
    """The cavity's 5 corners from the outer solid's (4 base corners, apex): every side
    face moved inwards by `wall`, the base plane kept (shapes._pyramid with an inset)."""
    c = outer[:4].mean(axis=0)
    a = np.linalg.norm(outer[0] - c) / math.sqrt(2)
    h = np.linalg.norm(outer[4] - c)
    slant = math.hypot(a, h)
    a_in, h_in = a - wall * slant / h, h - wall * slant / a
    return np.vstack([c + (outer[:4] - c) * (a_in / a), c + (outer[4] - c) * (h_in / h)])


def _inside(points: np.ndarray, convex_vertices: np.ndarray, clearance: float) -> bool:
    """Whether every point lies inside the pyramid (base corners, apex) by `clearance`."""
    faces = SOLID_FACES
    centre = convex_vertices.mean(axis=0)
    for f in faces:
        a, b, c = convex_vertices[f]
        n = np.cross(b - a, c - a)
        n /= np.linalg.norm(n)
        if np.dot(n, centre - a) > 0:
            n = -n
        if f[0] == 0 and f[1] == 3:       # the open base: only the sides bound the cavity
            continue
        if np.any((points - a) @ n > -clearance):
            return False
    return True


def _settle_nest(inner: np.ndarray, cavity: np.ndarray) -> np.ndarray:
    """A nested piece pulled towards the cavity's axis (and turned back) until it no longer
    cuts through the wall around it: a real nest has play, not interpenetration."""
    c_in = inner[:4].mean(axis=0)
    c_cav = cavity[:4].mean(axis=0)
    for k in range(12):
        if _inside(inner, cavity, NEST_CLEARANCE_MM):
            return inner
        # halve the offset and the turn about the vertical axis through the cavity centre
        u = (inner[0] - c_in)[:2]
        v = (cavity[0] - c_cav)[:2]
        turn = math.atan2(u[0] * v[1] - u[1] * v[0], u @ v)
        turn = (turn + math.pi / 4) % (math.pi / 2) - math.pi / 4      # nearest corner
        cs, sn = math.cos(turn / 2), math.sin(turn / 2)
        rot = np.array([[cs, -sn, 0], [sn, cs, 0], [0, 0, 1.0]])
        shift = np.array([*((c_cav - c_in)[:2] / 2), 0.0])
        inner = (inner - c_in) @ rot.T + c_in + shift
        c_in = inner[:4].mean(axis=0)
    return inner


def piece_meshes(spec: SceneSpec) -> list[Mesh]:
    """Every pyramid on the table (nests included, as vision.render places them): hollow
    shells of wall WALL_MM for translucent plastics, closed solids for opaque ones."""
    world = build_world(spec)
    out: list[Mesh] = []
    lift = np.array([0.0, 0.0, LIFT_MM])
    cavities: list[np.ndarray] = []
    for s in world.shells:
        outer = s.outer.vertices.copy()
        # a nested piece sits in the last shell's cavity when its base centre is inside it
        if cavities and np.linalg.norm(outer[:4].mean(axis=0)[:2] - cavities[-1][:4].mean(axis=0)[:2]) < 2.0 \
                and outer[4, 2] < cavities[-1][4, 2]:
            outer = _settle_nest(outer, cavities[-1])
        cav = cavity_vertices(outer)
        cavities.append(cav)
        out.append(Mesh(np.vstack([outer, cav]) + lift, _shell_faces(), np.asarray(s.plastic.sigma),
                        np.asarray(s.plastic.haze), np.zeros(3)))
    for s in world.solids:
        if s.kind == "plastic":
            out.append(Mesh(s.shape.vertices + lift, SOLID_FACES.copy(), None, np.zeros(3), np.asarray(s.albedo)))
    return out


# Segments of a coin's round edge: its outline within 0.03 mm of the circle.
COIN_SEGMENTS = 96


@dataclass(frozen=True)
class CoinMesh:
    vertices: np.ndarray     # V×3, table mm
    faces: np.ndarray        # F×3, counter-clockwise seen from outside
    kind: CoinKind


def coin_meshes(spec: SceneSpec) -> list[CoinMesh]:
    """Spike's coins as closed discs of their true diameter and thickness (the US Mint's;
    domain.CoinKind), their faces plain (no relief).

    >>> from vision.render import random_scene
    >>> coins = coin_meshes(random_scene(7900, coins=(2, 4)))
    >>> len(coins) >= 2 and all(signed_volume(c.vertices, c.faces) > 0 for c in coins)
    True
    """
    n = COIN_SEGMENTS
    a = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    k = np.arange(n)
    ring = np.column_stack([np.cos(a), np.sin(a)])
    top_centre, bottom_centre = 2 * n, 2 * n + 1
    faces = np.concatenate([
        np.column_stack([k, (k + 1) % n, n + k]),                   # the edge: bottom ring 0..n-1,
        np.column_stack([(k + 1) % n, n + (k + 1) % n, n + k]),     # top ring n..2n-1
        np.column_stack([np.full(n, top_centre), n + k, n + (k + 1) % n]),
        np.column_stack([np.full(n, bottom_centre), (k + 1) % n, k])])
    out = []
    for coin in spec.coins:
        r, t = coin.kind.diameter / 2, coin.kind.thickness
        xy = np.asarray(coin.center, float) + r * ring
        vertices = np.vstack([np.column_stack([xy, np.full(n, LIFT_MM)]), np.column_stack([xy, np.full(n, LIFT_MM + t)]),
                              [*coin.center, LIFT_MM + t], [*coin.center, LIFT_MM]])
        out.append(CoinMesh(vertices, faces.copy(), coin.kind))
    return out


def signed_volume(vertices: np.ndarray, faces: np.ndarray) -> float:
    """Volume enclosed by a closed mesh, positive when its faces turn outwards."""
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6)


@dataclass(frozen=True)
class Disc:
    centre: tuple[float, float, float]
    radius: float
    radiance: np.ndarray     # rgb, emitted downwards


def lamps(spec: SceneSpec) -> list[Disc]:
    """Each lamp as the spec describes it, a round disc facing the table: a disc of
    radiance L lights the table below it at distance d with E = π L r² / (d² + r²) ≈
    π L r² / d², and a Lamp's intensity is E at 1 m (in the renderer's units, 1000 mm)."""
    return [Disc(tuple(map(float, l.position)), float(l.radius),
                   l.intensity * kelvin_rgb(l.kelvin) * 1e6 / (math.pi * l.radius ** 2)) for l in spec.lamps]


def sky_radiance(spec: SceneSpec) -> np.ndarray:
    """The room as a uniform sky: radiance π⁻¹ × the spec's ambient irradiance."""
    return spec.ambient * kelvin_rgb(spec.ambient_kelvin) / math.pi


@dataclass(frozen=True)
class Film:
    """The pinhole camera Mitsuba renders with: look-at pose, horizontal field of view
    over a width × height film centred on the optical axis (focal length fx of the spec)."""

    eye: tuple[float, float, float]
    target: tuple[float, float, float]
    up: tuple[float, float, float]
    width: int
    height: int
    f: float

    @property
    def fov_deg(self) -> float:
        return math.degrees(2 * math.atan(self.width / 2 / self.f))

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.f, 0, (self.width - 1) / 2], [0, self.f, (self.height - 1) / 2], [0, 0, 1.0]])


def _ideal_pixels(spec: SceneSpec, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Normalised pinhole coordinates (x/z, y/z) of picture pixels (distortion removed)."""
    intr = spec.camera.intrinsics()
    px = np.column_stack([u, v]).astype(np.float64).reshape(-1, 1, 2)
    return cv2.undistortPoints(px, intr.K, intr.dist_array).reshape(-1, 2)


def film(spec: SceneSpec) -> Film:
    """A centred pinhole film just large enough that every picture pixel (after the
    spec's principal point offset and radial distortion) samples inside it."""
    w, h = IMAGE_SIZE
    intr = spec.camera.intrinsics()
    f = intr.fx
    edge = np.concatenate([np.column_stack([np.arange(w), np.zeros(w)]), np.column_stack([np.arange(w), np.full(w, h - 1)]),
                           np.column_stack([np.zeros(h), np.arange(h)]), np.column_stack([np.full(h, w - 1), np.arange(h)])])
    xy = np.abs(_ideal_pixels(spec, edge[:, 0], edge[:, 1])) * f
    half_w = max(xy[:, 0].max() + 0.5 + FILM_SLACK_PX, w / 2)
    half_h = max(xy[:, 1].max() + 0.5 + FILM_SLACK_PX, h / 2)
    cam = spec.camera
    r = math.radians(cam.roll_deg)
    return Film(tuple(map(float, cam.eye)), tuple(map(float, cam.target)), (math.sin(r), -math.cos(r), 0.0),
                2 * int(math.ceil(half_w)), 2 * int(math.ceil(half_h)), float(f))


def film_map(spec: SceneSpec, fl: Film) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap maps (x, y) from each picture pixel to where its ray lands on the film."""
    w, h = IMAGE_SIZE
    v, u = np.mgrid[0:h, 0:w]
    xy = _ideal_pixels(spec, u.ravel(), v.ravel())
    K = fl.K
    mx = (xy[:, 0] * K[0, 0] + K[0, 2]).reshape(h, w).astype(np.float32)
    my = (xy[:, 1] * K[1, 1] + K[1, 2]).reshape(h, w).astype(np.float32)
    return mx, my


def table_bounds(spec: SceneSpec, fl: Film, margin_mm: float = 20.0) -> tuple[float, float, float, float]:
    """Table rectangle (x0, y0, x1, y1) mm the film sees, plus a margin."""
    R = spec.view().rotation
    eye = np.array(fl.eye)
    corners = np.array([[0, 0], [fl.width, 0], [0, fl.height], [fl.width, fl.height]], float) - 0.5
    K = fl.K
    rays = np.column_stack([(corners[:, 0] - K[0, 2]) / fl.f, (corners[:, 1] - K[1, 2]) / fl.f, np.ones(4)])
    d = rays @ R            # camera → table frame, (x, y, -height)
    s = eye[2] / d[:, 2]    # down to the table
    pts = eye[:2] + d[:, :2] * s[:, None]
    lo, hi = pts.min(axis=0) - margin_mm, pts.max(axis=0) + margin_mm
    return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


def table_texture(spec: SceneSpec, bounds: tuple[float, float, float, float]) -> np.ndarray:
    """Albedo bitmap (rows along +y, columns along +x, texel centres) of the bare table
    top over `bounds`, from vision.render's procedural surface."""
    x0, y0, x1, y1 = bounds
    nx, ny = int((x1 - x0) * TEXELS_PER_MM), int((y1 - y0) * TEXELS_PER_MM)
    ys, xs = np.mgrid[0:ny, 0:nx]
    xy = np.column_stack([x0 + (xs.ravel() + 0.5) / TEXELS_PER_MM, y0 + (ys.ravel() + 0.5) / TEXELS_PER_MM])
    alb = surfaces.table_albedo(spec.surface, xy, 1.0 / TEXELS_PER_MM)
    return alb.reshape(ny, nx, 3).astype(np.float32)


def sheet_texture(spec: SceneSpec, marker) -> np.ndarray:
    """Albedo bitmap of one printed marker sheet (paper_mm square, centred on the marker):
    office paper with the ArUco square in laser-printer black."""
    n = int(round(spec.paper_mm * SHEET_TEXELS_PER_MM))
    aruco = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.layout.dictionary))
    side = int(round(marker.size * SHEET_TEXELS_PER_MM))
    ink_img = 1.0 - cv2.aruco.generateImageMarker(aruco, marker.id, side, borderBits=1).astype(np.float32) / 255
    ink = np.zeros((n, n), np.float32)
    o = (n - side) // 2
    ink[o:o + side, o:o + side] = ink_img
    paper = surfaces.PAPER_ALBEDO * np.array([1.0, 0.99, 0.965])
    alb = paper * (1 - ink[..., None]) + surfaces.INK_ALBEDO * ink[..., None]
    return alb.astype(np.float32)


def quad(x0: float, y0: float, x1: float, y1: float, z: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An upward-facing rectangle with texture coordinates: (vertices, faces, uv); u runs
    along +x, v along +y (so bitmap row 0 is the -y edge when v = 0 is the first row)."""
    v = np.array([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]], float)
    uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    # counter-clockwise seen from above (+z) in a right-handed frame with y down the table:
    # (x0,y0) -> (x1,y0) -> (x1,y1) turns from +x towards +y, whose cross product is +z
    faces = np.array([[0, 1, 2], [0, 2, 3]], np.int64)
    return v, faces, uv



def table_quad(bounds: tuple[float, float, float, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The table top (`quad`) reaching TABLE_BEYOND_MM past `bounds`, its texture
    coordinates 0-1 over `bounds` (the `table_texture`'s), beyond them to be mirrored."""
    x0, y0, x1, y1 = bounds
    b = TABLE_BEYOND_MM
    v, f, _ = quad(x0 - b, y0 - b, x1 + b, y1 + b, 0.0)
    return v, f, (v[:, :2] - [x0, y0]) / [x1 - x0, y1 - y0]


def sheet_quad(spec: SceneSpec, marker) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One marker sheet (`quad`, paper_mm square centred on the marker, SHEET_LIFT_MM up),
    its texture coordinates those of `sheet_texture`."""
    half = spec.paper_mm / 2
    (x, y) = marker.center
    return quad(x - half, y - half, x + half, y + half, SHEET_LIFT_MM)
