"""Light: shading of opaque surfaces, soft tinted shadows, glints, the room's reflection.

Light reaching a surface is traced towards jittered points on each lamp disc: the
translucent walls on the way tint it (Beer-Lambert, Fresnel), opaque things block it.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.camera import CameraView
from vision.render import surfaces
from vision.render.materials import F0_PLASTIC, schlick
from vision.render.rays import Pixels, pixel_box, shell_path, wall_transmission
from vision.render.world import Light, Shell, Solid, World

SHADOW_SAMPLES = 8          # lamp points per surface point (per-point jittered disc)
AO_REACH_MM = 3.0           # contact darkening falls off over this distance from a base
AO_STRENGTH = {True: 0.35, False: 0.6}   # translucent / opaque occluder
TABLE_ID, SOLID_ID = 0, 1   # hit ids: the table, then solid k is SOLID_ID + k
SHININESS = {"table": 40.0, "plastic": 300.0, "skin": 12.0, "cloth": 4.0}   # Blinn-Phong exponents
F0_CLOTH = 0.01
F0_SKIN = 0.028
PAPER_F0 = 0.01
BOARD_F0 = 0.03            # a printed, laminated card board
PLASTIC_ROUGHNESS = 0.03   # rad: spread of a glint on moulded plastic
SCATTER_FLOOR = 0.3        # share of a lamp's light a wall facing away still scatters
HAND_KINDS = ("skin", "cloth")


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


def highlights(world: World, t, o, d, nrm, refl) -> np.ndarray:
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


def scatter_light(world: World, P: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Light a wall scatters back, by direction (N×3): faces turned to a lamp glow more;
    light entering elsewhere in the piece reaches every wall a little (the floor)."""
    out = np.broadcast_to(world.ambient, (len(P), 3)).copy()
    for light in world.lights:
        to_l = light.position - P
        dist2 = np.einsum("ij,ij->i", to_l, to_l)
        facing = np.clip(np.einsum("ij,ij->i", n, to_l) / np.sqrt(dist2), 0, 1)
        out += light.rgb * (1e6 / dist2 * (SCATTER_FLOOR + (1 - SCATTER_FLOOR) * facing))[:, None]
    return out


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


def _shadow_points(obj_vertices: np.ndarray, light: Light) -> np.ndarray:
    """The object's vertices and their shadows on the table from an octagon around the
    lamp's disc (so their hull holds every shadow the disc casts)."""
    out = [obj_vertices]
    rim = light.radius / math.cos(math.pi / 8)
    for a in np.arange(8) * math.pi / 4:
        L = light.position + rim * np.array([math.cos(a), math.sin(a), 0.0])
        k = L[2] / np.maximum(L[2] - obj_vertices[:, 2], 1e-3)
        out.append(L + (obj_vertices - L) * k[:, None])
    return np.vstack(out)


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
               rng: np.random.Generator, self_k: np.ndarray, on_table: np.ndarray, samples: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """Fraction (rgb) of the lamp the points see through the walls and past opaque things:
    (indices of the points that may be in a shadow, their visibility); elsewhere it is 1."""
    cands = _shadow_candidates(world, view, light, P, pix, self_k, on_table)
    if not cands:
        return np.zeros(0, dtype=np.int64), np.ones((0, 3))
    member = np.zeros(len(P), bool)
    for _, idx in cands:
        member[idx] = True
    union = np.flatnonzero(member)
    pos_of = np.empty(len(P), np.int64)
    pos_of[union] = np.arange(len(union))
    V = np.ones((len(union), samples, 3))
    lamp = _lamp_samples(light, len(union), samples, rng)
    for obj, idx in cands:
        pos = pos_of[idx]
        # a hand's shadow is wide and soft: every other lamp point is enough for it
        step = 2 if isinstance(obj, Solid) and obj.kind in HAND_KINDS else 1
        used = lamp[pos][:, ::step]
        k = used.shape[1]
        o = np.repeat(P[idx] + n[idx] * 0.05, k, axis=0)
        d = (used - P[idx, None, :]).reshape(-1, 3)
        if isinstance(obj, Shell):
            T = wall_transmission(obj, d, shell_path(obj, o, d, 1.0))
            V[pos] *= T.reshape(len(idx), k, 3)
        else:
            t, _, _ = obj.hit(o, d)
            blocked = np.repeat((t < 1.0).reshape(len(idx), k), step, axis=1)[:, :samples]
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
    if world.spec.board is not None:
        on, cover, board_albedo = surfaces.board(world.spec.board, P[tbl, :2], footprint[tbl])
        card = tbl[on]
        albedo[card] = albedo[card] * (1 - cover[:, None]) + board_albedo * cover[:, None]
        f0[card] = f0[card] * (1 - cover[:, None]) + BOARD_F0 * cover[:, None]
    near, cover, paper_albedo = surfaces.paper(world.spec.layout, world.spec.paper_mm, P[tbl, :2], footprint[tbl],
                                               world.spec.surface.seed)
    sheet = tbl[near]
    albedo[sheet] = albedo[sheet] * (1 - cover[:, None]) + paper_albedo * cover[:, None]
    f0[sheet] = f0[sheet] * (1 - cover[:, None]) + PAPER_F0 * cover[:, None]
    for k, s in enumerate(world.solids):
        sel = hit_id == SOLID_ID + k
        if not sel.any():
            continue
        if s.kind == "metal":
            shin[sel] = s.metal.shininess
            f0[sel] = s.metal.f0
            face = np.flatnonzero(sel & (n[:, 2] > 0.99))
            if len(face):
                cyl = s.shape
                n[face], tarnish = surfaces.coin_relief(cyl.center[:2], cyl.radius, P[face, :2], int(cyl.radius * 1000))
                f0[face] *= tarnish[:, None]
        else:
            shin[sel] = SHININESS[s.kind]
            albedo[sel] = s.albedo
            f0[sel] = {"plastic": F0_PLASTIC, "skin": F0_SKIN, "cloth": F0_CLOTH}[s.kind]
            if s.kind != "plastic":  # blotchy skin, woven cloth
                albedo[sel] *= (1 + 0.25 * surfaces.fbm(P[sel, :2], 6.0, k + 77, 3))[:, None]
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
