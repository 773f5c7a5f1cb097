"""Ray casting: what each camera ray sees, in linear RGB radiance.

A ray ends on the first opaque thing (table, coin, hand, black/white piece). On its way it
may cross translucent pyramid walls: each crossing reflects a little of the room and the
lamps (Fresnel) and tints what lies behind by Beer-Lambert absorption over the path
length inside the plastic. Walls are composited front to back per ray with a sort, so
nests and overlapping pieces work. Light reaching a surface is traced towards jittered
points on each lamp disc: the same walls tint the shadows, opaque things block them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraView
from vision.render import surfaces
from vision.render.materials import F0_PLASTIC, IOR_PLASTIC, schlick
from vision.render.shapes import WALL_MM
from vision.render.world import Light, Shell, Solid, World

SHADOW_SAMPLES = 8          # lamp points per surface point (per-point jittered disc)
AO_REACH_MM = 3.0           # contact darkening falls off over this distance from a base
AO_STRENGTH = {True: 0.35, False: 0.6}   # translucent / opaque occluder
TABLE_ID, SOLID_ID, SHELL_ID = 0, 1, 100000
SHININESS = {"table": 40.0, "plastic": 300.0, "metal": 18.0, "skin": 12.0}   # Blinn-Phong exponents
F0_SKIN = 0.028
PAPER_F0 = 0.01
PLASTIC_ROUGHNESS = 0.03   # rad: spread of a glint on moulded plastic


UNDISTORT_STEP = 8          # px between exactly undistorted grid points; bilinear in between


@dataclass(frozen=True)
class Pixels:
    """Where rays go through the picture (u, v), as a full raster (grid = (h, w)) or a list."""

    u: np.ndarray
    v: np.ndarray
    grid: tuple[int, int] | None = None

    def select(self, box) -> np.ndarray:
        """Indices of the rays inside a pixel box (u0, u1, v0, v1)."""
        if self.grid is None:
            return np.flatnonzero((self.u >= box[0]) & (self.u <= box[1]) & (self.v >= box[2]) & (self.v <= box[3]))
        h, w = self.grid
        u0, u1 = max(math.ceil(box[0]), 0), min(math.floor(box[1]), w - 1)
        v0, v1 = max(math.ceil(box[2]), 0), min(math.floor(box[3]), h - 1)
        if u0 > u1 or v0 > v1:
            return np.zeros(0, dtype=np.int64)
        return (np.arange(v0, v1 + 1)[:, None] * w + np.arange(u0, u1 + 1)[None, :]).ravel()


def _undistort_table(view: CameraView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact undistorted normalised coordinates on a coarse grid: (grid u, grid v, values)."""
    K, s = view.intrinsics, UNDISTORT_STEP
    gu = np.arange(-2 * s, K.width + 3 * s, s, dtype=np.float64)
    gv = np.arange(-2 * s, K.height + 3 * s, s, dtype=np.float64)
    mesh = np.stack(np.meshgrid(gu, gv), axis=-1).reshape(-1, 2)
    return gu, gv, view.undistort_pixels(mesh).reshape(len(gv), len(gu), 2)


def _weights(x: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    f = (x - g[0]) / UNDISTORT_STEP
    i = np.clip(np.floor(f).astype(int), 0, len(g) - 2)
    return i, (f - i)[:, None]


def _normalised(view: CameraView, pix: Pixels) -> np.ndarray:
    """Undistorted normalised image coordinates of pixels: exact on a coarse grid,
    bilinear in between (lens distortion is smooth: error far below 0.01 px)."""
    K = view.intrinsics
    if not any(K.dist):
        return np.column_stack([(pix.u - K.cx) / K.fx, (pix.v - K.cy) / K.fy])
    gu, gv, table = _undistort_table(view)
    if pix.grid is not None:  # separable: along u for every coarse row, then along v
        h, w = pix.grid
        iu, au = _weights(np.arange(w, dtype=np.float64), gu)
        iv, av = _weights(np.arange(h, dtype=np.float64), gv)
        rows = table[:, iu] * (1 - au[None]) + table[:, iu + 1] * au[None]
        return (rows[iv] * (1 - av[:, :, None]) + rows[iv + 1] * av[:, :, None]).reshape(-1, 2)
    iu, au = _weights(pix.u, gu)
    iv, av = _weights(pix.v, gv)
    return ((1 - av) * ((1 - au) * table[iv, iu] + au * table[iv, iu + 1])
            + av * ((1 - au) * table[iv + 1, iu] + au * table[iv + 1, iu + 1]))


def camera_rays(view: CameraView, pix: Pixels) -> tuple[np.ndarray, np.ndarray]:
    """World origins and unit directions (z up) of the rays through pixels (u, v)."""
    rays = _normalised(view, pix)
    R = view.rotation
    d = np.empty((len(rays), 3))
    # camera ray (x, y, 1) to the table frame (R.T @ ray), whose third axis is -height
    d[:, 0] = R[0, 0] * rays[:, 0] + R[1, 0] * rays[:, 1] + R[2, 0]
    d[:, 1] = R[0, 1] * rays[:, 0] + R[1, 1] * rays[:, 1] + R[2, 1]
    d[:, 2] = -(R[0, 2] * rays[:, 0] + R[1, 2] * rays[:, 1] + R[2, 2])
    d /= np.sqrt(np.einsum("ij,ij->i", d, d))[:, None]
    o = np.broadcast_to(view.position, d.shape)
    return o, d


def pixel_box(view: CameraView, pts: np.ndarray, pad: float = 2.0) -> tuple[float, float, float, float]:
    px = view.project(pts)
    return px[:, 0].min() - pad, px[:, 0].max() + pad, px[:, 1].min() - pad, px[:, 1].max() + pad


def _shadow_points(obj_vertices: np.ndarray, light: Light) -> np.ndarray:
    """The object's vertices and their shadows on the table from the lamp's rim."""
    out = [obj_vertices]
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        L = light.position + light.radius * np.array([dx, dy, 0.0])
        k = L[2] / np.maximum(L[2] - obj_vertices[:, 2], 1e-3)
        out.append(L + (obj_vertices - L) * k[:, None])
    return np.vstack(out)


def shell_path(sh: Shell, o: np.ndarray, d: np.ndarray, t_max: np.ndarray | float):
    """Plastic intervals of a ray through a shell, clipped to (0, t_max).

    Returns (start1, end1, start2, end2, outer face at start1, cavity face at start2,
    cavity hit?); empty intervals have end <= start.
    """
    a0, a1, fa, _ = sh.outer.hit(o, d)
    b0, b1, _, fb = sh.cavity.hit(o, d)
    a0c, a1c = np.maximum(a0, 0.0), np.minimum(a1, t_max)
    cav = b0 < b1
    e1 = np.where(cav, np.minimum(b0, a1c), a1c)
    s2 = np.where(cav, np.maximum(b1, a0c), np.inf)
    return a0c, e1, s2, a1c, fa, fb, cav


def _refraction_scale(n: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Ratio of the refracted path through a thin wall to the straight one: cos θi / cos θt.

    Rays are not bent (a thin wall only shifts them sideways), but the light inside the
    plastic runs closer to the wall normal, so it crosses less plastic than a straight
    line would at grazing angles.
    """
    cos_i = np.abs(np.einsum("ij,ij->i", n, d)) / np.linalg.norm(d, axis=1)
    sin_t2 = (1 - cos_i ** 2) / IOR_PLASTIC ** 2
    return cos_i / np.sqrt(1 - sin_t2)


def wall_length(sh: Shell, d: np.ndarray, path) -> np.ndarray:
    """Effective length (mm) of plastic a ray crosses in a shell, refraction-corrected."""
    s1, e1, s2, e2, fa, fb, _ = path
    scale = np.linalg.norm(d, axis=1)
    first = np.clip(e1 - s1, 0, None) * scale * _refraction_scale(sh.outer.normals[fa], d)
    second = np.clip(e2 - s2, 0, None) * scale * _refraction_scale(sh.cavity.normals[fb], d)
    return first + second


def environment(r: np.ndarray, world: World) -> np.ndarray:
    """Radiance of the room in direction r (N×3): the lit table below, dim walls with a
    brighter window on one side, a brighter ceiling overhead."""
    up = np.clip(r[:, 2], -1, 1)[:, None]
    # a window: brighter towards one azimuth, a little above the horizon (von Mises lobe)
    wx, wy = math.cos(world.window_azimuth), math.sin(world.window_azimuth)
    cos_az = (r[:, 0] * wx + r[:, 1] * wy)[:, None] / np.sqrt(r[:, 0] ** 2 + r[:, 1] ** 2 + 1e-9)[:, None]
    window = 1.0 + world.window * np.exp(4.0 * (cos_az - 1.0) - ((up - 0.25) / 0.2) ** 2)
    sky = world.ambient * (0.6 + 0.8 * up ** 2) * window
    return np.where(up > 0, sky, world.floor)


def _lamp_samples(light: Light, n: int, samples: int, rng: np.random.Generator) -> np.ndarray:
    """n×S×3 points on the lamp disc: a jittered Vogel spiral turned at random per surface point."""
    s = np.arange(samples)
    r = light.radius * np.sqrt((s + rng.random((n, 1))) / samples)
    ang = s * 2.39996323 + rng.uniform(0, 2 * np.pi, (n, 1))
    pts = np.empty((n, samples, 3))
    pts[..., 0] = light.position[0] + r * np.cos(ang)
    pts[..., 1] = light.position[1] + r * np.sin(ang)
    pts[..., 2] = light.position[2]
    return pts


def _shadow_candidates(world: World, view: CameraView, light: Light, P: np.ndarray, pix: Pixels,
                       self_k: np.ndarray, on_table: np.ndarray) -> list[tuple[object, np.ndarray]]:
    """For each object, the points its shadow from this lamp may fall on."""
    out = []
    for k, obj in enumerate(list(world.shells) + list(world.solids)):
        pts = _shadow_points(obj.vertices, light)
        idx = pix.select(pixel_box(view, pts))
        idx = idx[self_k[idx] != k + 1]  # a surface does not shadow itself
        if len(idx) == 0:
            continue
        # on the table the shadow lies inside the hull of the object and its cast outline
        hull = cv2.convexHull(pts[:, :2].astype(np.float32)).reshape(-1, 2).astype(np.float64)
        inside = _polygon_distance(hull, P[idx, :2]) <= 0.5
        idx = idx[~on_table[idx] | inside]
        if len(idx):
            out.append((obj, idx))
    return out


def visibility(world: World, view: CameraView, light: Light, P: np.ndarray, n: np.ndarray, pix: Pixels,
               rng: np.random.Generator, self_k: np.ndarray, on_table: np.ndarray, samples: int) -> np.ndarray:
    """Fraction (rgb) of the lamp the points see through the walls and past opaque things:
    (indices of the points that may be in a shadow, their visibility); elsewhere it is 1."""
    cands = _shadow_candidates(world, view, light, P, pix, self_k, on_table)
    if not cands:
        return np.zeros(0, dtype=np.int64), np.ones((0, 3))
    union = np.unique(np.concatenate([idx for _, idx in cands]))
    V = np.ones((len(union), samples, 3))
    lamp = _lamp_samples(light, len(union), samples, rng)
    for obj, idx in cands:
        pos = np.searchsorted(union, idx)
        o = np.repeat(P[idx] + n[idx] * 0.05, samples, axis=0)
        d = (lamp[pos] - P[idx, None, :]).reshape(-1, 3)
        if isinstance(obj, Shell):
            length = wall_length(obj, d, shell_path(obj, o, d, 1.0))
            crossings = np.where(length > 0, (1 - F0_PLASTIC) ** 2, 1.0)
            T = np.exp(-length[:, None] * obj.plastic.sigma) * crossings[:, None]
            V[pos] *= T.reshape(len(idx), samples, 3)
        else:
            t, _ = obj.hit(o, d)
            blocked = (t < 1.0).reshape(len(idx), samples)
            V[pos] *= np.where(blocked, 0.0, 1.0)[..., None]
    return union, V.mean(axis=1)


def contact_occlusion(world: World, view: CameraView, P: np.ndarray, pix: Pixels,
                      on_table: np.ndarray) -> np.ndarray:
    """Ambient darkening of table points close to (or under) a piece or coin base."""
    ao = np.ones(len(P))
    feet = [(s.footprint, True) for s in world.shells if s.footprint is not None]
    feet += [(s.footprint, False) for s in world.solids if s.footprint is not None]
    for poly, translucent in feet:
        lo, hi = poly.min(axis=0) - 4 * AO_REACH_MM, poly.max(axis=0) + 4 * AO_REACH_MM
        idx = pix.select(pixel_box(view, np.array([[lo[0], lo[1]], [lo[0], hi[1]], [hi[0], lo[1]], [hi[0], hi[1]]])))
        near = idx[on_table[idx]]
        if len(near) == 0:
            continue
        dist = _polygon_distance(poly, P[near, :2])
        ao[near] *= 1 - AO_STRENGTH[translucent] * np.exp(-np.maximum(dist, 0) / AO_REACH_MM)
    return ao


def _polygon_distance(poly: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Signed distance outside a convex polygon (negative inside; corners approximate)."""
    c = poly.mean(axis=0)
    best = np.full(len(q), -np.inf)
    for a, b in zip(poly, np.roll(poly, -1, axis=0)):
        e = b - a
        nrm = np.array([e[1], -e[0]]) / np.hypot(*e)
        if np.dot(nrm, c - a) > 0:
            nrm = -nrm
        best = np.maximum(best, (q - a) @ nrm)
    return best


def trace(world: World, view: CameraView, pix: Pixels, rng: np.random.Generator,
          pixel_size: float = 1.0, shadow_samples: int = SHADOW_SAMPLES) -> tuple[np.ndarray, np.ndarray]:
    """Radiance (N×3) and an object id per ray (for finding edges to anti-alias).

    pixel_size: the side of the picture area each ray stands for, px (textures are
    band-limited to it); shadow_samples: lamp points per ray (rays that are averaged
    into one pixel can share the work).
    """
    o, d = camera_rays(view, pix)
    N = len(pix.u)
    t_hit = np.where(d[:, 2] < 0, -o[:, 2] / np.minimum(d[:, 2], -1e-9), np.inf)
    normal = np.tile([0.0, 0.0, 1.0], (N, 1))
    hit_id = np.zeros(N, dtype=np.int64)
    for k, obj in enumerate(world.solids):
        idx = pix.select(pixel_box(view, obj.vertices))
        if len(idx) == 0:
            continue
        t, nrm = obj.hit(o[idx], d[idx])
        closer = t < t_hit[idx]
        sel = idx[closer]
        t_hit[sel], normal[sel], hit_id[sel] = t[closer], nrm[closer], SOLID_ID + k
    glass, T, front_id, shift = _walls(world, view, o, d, t_hit, pix)
    P = o + d * t_hit[:, None]
    # the table seen through walls is displaced by their refraction: move the ray
    # sideways by the shift and meet the table again
    tbl = np.flatnonzero((hit_id == TABLE_ID) & np.any(shift != 0, axis=1))
    P[tbl] += shift[tbl] - d[tbl] * (shift[tbl, 2] / d[tbl, 2])[:, None]
    # size of the ray's pixel on the surface it meets, mm (grows at grazing incidence)
    footprint = t_hit * pixel_size / view.intrinsics.fx / np.sqrt(np.abs(np.einsum("ij,ij->i", d, normal)) + 1e-3)
    rgb = shade(world, view, P, normal, -d, hit_id, pix, rng, footprint, shadow_samples)
    rgb = glass + T * rgb
    hit_id = np.where(front_id >= 0, front_id, hit_id)
    return rgb, hit_id


def _walls(world: World, view: CameraView, o, d, t_hit, pix: Pixels):
    """Composite the translucent walls in front of each ray's end:
    (added light, transmittance, id of the front wall, sideways shift of the ray)."""
    N = len(o)
    ev_ray, ev_t, ev_add, ev_T, ev_id, ev_shift = [], [], [], [], [], []
    for k, sh in enumerate(world.shells):
        idx = pix.select(pixel_box(view, sh.vertices))
        if len(idx) == 0:
            continue
        s1, e1, s2, e2, fa, fb, cav = shell_path(sh, o[idx], d[idx], t_hit[idx])
        for start, end, is_outer in ((s1, e1, True), (s2, e2, False)):
            ok = end > start + 1e-6
            if not ok.any():
                continue
            j = idx[ok]
            # the surface normal facing the incoming ray
            nrm = sh.outer.normals[fa[ok]] if is_outer else -sh.cavity.normals[fb[ok]]
            cos = np.abs(np.einsum("ij,ij->i", nrm, d[j]))
            F = schlick(cos, F0_PLASTIC)[:, 0]
            length = (end[ok] - start[ok]) * _refraction_scale(nrm, d[j])
            absorb = np.exp(-length[:, None] * sh.plastic.sigma)
            refl = d[j] - 2 * (np.einsum("ij,ij->i", nrm, d[j]))[:, None] * nrm
            add = F[:, None] * (environment(refl, world) + _highlights(world, start[ok], o[j], d[j], nrm, refl))
            # back-scatter grows with the path through the plastic (one wall = `haze`)
            haze = np.array(sh.plastic.haze) * np.minimum(length / WALL_MM, 3.0)[:, None]
            add = add + (1 - F[:, None]) * haze * (world.ambient + sum(l.rgb for l in world.lights) * 0.5)
            T = (1 - F[:, None]) ** 2 * absorb
            ev_ray.append(j); ev_t.append(start[ok]); ev_add.append(add); ev_T.append(T)
            ev_shift.append(_slab_shift(nrm, d[j], end[ok] - start[ok]))
            ev_id.append(np.full(len(j), SHELL_ID + 16 * k) + (fa[ok] if is_outer else 8) + 5 * cav[ok])
    glass = np.zeros((N, 3))
    T_all = np.ones((N, 3))
    front_id = np.full(N, -1, dtype=np.int64)
    shift = np.zeros((N, 3))
    if not ev_ray:
        return glass, T_all, front_id, shift
    ray = np.concatenate(ev_ray); t = np.concatenate(ev_t)
    all_shift = np.concatenate(ev_shift)
    for c in range(3):
        shift[:, c] = np.bincount(ray, all_shift[:, c], minlength=N)
    add = np.concatenate(ev_add); T = np.concatenate(ev_T); ids = np.concatenate(ev_id)
    order = np.lexsort((t, ray))
    ray, add, T, ids = ray[order], add[order], T[order], ids[order]
    logT = np.log(np.maximum(T, 1e-12))
    cs = np.cumsum(logT, axis=0)
    first = np.r_[True, ray[1:] != ray[:-1]]
    start_of_group = np.maximum.accumulate(np.where(first, np.arange(len(ray)), 0))
    before = cs - logT - (cs - logT)[start_of_group]
    contrib = np.exp(before) * add
    for c in range(3):
        glass[:, c] = np.bincount(ray, contrib[:, c], minlength=N)
        T_all[:, c] = np.exp(np.bincount(ray, logT[:, c], minlength=N))
    front_id[ray[first]] = ids[first]
    return glass, T_all, front_id, shift


def _slab_shift(n: np.ndarray, d: np.ndarray, straight: np.ndarray) -> np.ndarray:
    """Sideways displacement of a ray crossing a wall (taken as a parallel slab) whose
    straight path would be `straight` mm long: the refracted ray leaves parallel to d."""
    eta = 1.0 / IOR_PLASTIC
    cos_i = np.clip(-np.einsum("ij,ij->i", n, d), 1e-3, 1.0)
    cos_t = np.sqrt(1 - eta ** 2 * (1 - cos_i ** 2))
    d_t = eta * d + (eta * cos_i - cos_t)[:, None] * n
    thickness = straight * cos_i
    return thickness[:, None] * (d_t / cos_t[:, None] - d / cos_i[:, None])


def _highlights(world: World, t, o, d, nrm, refl) -> np.ndarray:
    """Glossy reflection of the lamps (a Phong lobe widened by each lamp's apparent size)."""
    P = o + d * t[:, None]
    out = np.zeros((len(P), 3))
    for light in world.lights:
        to_l = light.position - P
        dist = np.linalg.norm(to_l, axis=1)
        ldir = to_l / dist[:, None]
        cosang = np.clip(np.einsum("ij,ij->i", refl, ldir), -1, 1)
        ang = np.arccos(cosang)
        # the lamp's angular radius blurred by the surface roughness; the lobe holds the
        # lamp's whole irradiance, so a glint on a face is as bright as it should be
        width = np.sqrt((light.radius / dist) ** 2 + PLASTIC_ROUGHNESS ** 2)
        lobe = np.exp(-(ang / width) ** 2) / (np.pi * width ** 2)
        out += lobe[:, None] * light.rgb * (1000.0 / dist[:, None]) ** 2
    return out


def shade(world: World, view: CameraView, P, n, to_eye, hit_id, pix: Pixels, rng, footprint,
          shadow_samples: int) -> np.ndarray:
    """Radiance leaving each opaque hit point towards the camera."""
    N = len(P)
    n = n.copy()  # coin relief tilts normals
    on_table = hit_id == TABLE_ID
    albedo = np.zeros((N, 3), np.float32)
    f0 = np.zeros((N, 3), np.float32)
    shin = np.full(N, SHININESS["table"], np.float32)
    tbl = np.flatnonzero(on_table)
    albedo[tbl] = surfaces.table_albedo(world.spec.surface, P[tbl, :2], footprint[tbl])
    f0[tbl] = surfaces.GLOSS[world.spec.surface.kind]
    near, cover, paper_albedo = surfaces.paper(world.spec.layout, world.spec.paper_mm, P[tbl, :2], footprint[tbl],
                                               world.spec.surface.seed)
    sheet = tbl[near]
    albedo[sheet] = albedo[sheet] * (1 - cover[:, None]) + paper_albedo * cover[:, None]
    f0[sheet] = f0[sheet] * (1 - cover[:, None]) + PAPER_F0 * cover[:, None]
    for k, s in enumerate(world.solids):
        sel = hit_id == SOLID_ID + k
        if not sel.any():
            continue
        shin[sel] = SHININESS[s.kind]
        if s.kind == "metal":
            f0[sel] = s.metal.f0
            face = np.flatnonzero(sel & (n[:, 2] > 0.99))
            if len(face):
                cyl = s.shape
                n[face], tarnish = surfaces.coin_relief(cyl.center[:2], cyl.radius, P[face, :2], int(cyl.radius * 1000))
                f0[face] *= tarnish[:, None]
        else:
            albedo[sel] = s.albedo
            f0[sel] = F0_PLASTIC if s.kind == "plastic" else F0_SKIN
    # direct light with soft, tinted shadows; the visibility differs from 1 only near things
    direct = np.zeros((N, 3), np.float32)
    spec = np.zeros((N, 3), np.float32)
    P32, n32, eye32 = P.astype(np.float32), n.astype(np.float32), to_eye.astype(np.float32)
    cos_v = np.clip(np.einsum("ij,ij->i", n32, eye32), 0, 1)
    F = schlick(cos_v, f0)
    is_glossy = f0.max(axis=1) > 0
    # glossy points: all of them (views, no copies) when most are, else the subset
    g = slice(None) if is_glossy.mean() > 0.5 else np.flatnonzero(is_glossy)
    g_pos = np.arange(N) if isinstance(g, slice) else np.cumsum(is_glossy) - 1
    # visibility() numbers shells first, then solids, from 1; a solid does not shadow itself
    self_k = np.where(hit_id >= SOLID_ID, hit_id - SOLID_ID + len(world.shells) + 1, 0)
    for light in world.lights:
        rgb = light.rgb.astype(np.float32)
        to_l = light.position.astype(np.float32) - P32
        inv = 1.0 / np.sqrt(np.einsum("ij,ij->i", to_l, to_l))
        ldir = to_l * inv[:, None]
        cos_s = np.clip(np.einsum("ij,ij->i", n32, ldir), 0, 1)
        E = (1e6 * inv * inv) * cos_s * np.clip(ldir[:, 2], 0, 1)       # scalar irradiance
        where, vis = visibility(world, view, light, P, n, pix, rng, self_k, on_table, shadow_samples)
        direct += E[:, None] * rgb
        direct[where] += (E[where, None] * rgb) * (vis - 1)
        if is_glossy.any():
            half = ldir[g] + eye32[g]
            half /= np.sqrt(np.einsum("ij,ij->i", half, half))[:, None]
            nh = np.clip(np.einsum("ij,ij->i", n32[g], half), 1e-6, 1)
            sh = shin[g]
            lobe = E[g] * (sh + 8) / (8 * math.pi) * np.exp(sh * np.log(nh))
            spec[g] += lobe[:, None] * rgb
            hit = np.flatnonzero(is_glossy[where])
            spec[where[hit]] += (lobe[g_pos[where[hit]], None] * rgb) * (vis[hit] - 1)
    ao = contact_occlusion(world, view, P, pix, on_table)
    radiance = albedo * (1 - F) * (direct + (world.ambient * ao[:, None]).astype(np.float32)) + F * spec
    if is_glossy.any():
        refl = -eye32[g] + 2 * cos_v[g, None] * n32[g]
        radiance[g] += F[g] * (environment(refl, world) * ao[g, None]).astype(np.float32)
    return radiance
