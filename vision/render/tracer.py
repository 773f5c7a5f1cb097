"""Ray casting: what each camera ray sees, in linear RGB radiance.

A ray ends on the first opaque thing (table, coin, hand, black/white piece). On its way it
may cross translucent pyramid walls: each crossing reflects a little of the room and the
lamps (Fresnel), shifts the ray sideways (refraction) and tints what lies behind by
Beer-Lambert absorption over the path length inside the plastic. Walls are composited
front to back per ray with a sort, so nests and overlapping pieces work.
"""

from __future__ import annotations

import numpy as np

from calibration.camera import CameraView
from vision.render.lighting import (SHADOW_SAMPLES, SOLID_ID, TABLE_ID, environment, highlights,
                                    scatter_light, shade)
from vision.render.materials import F0_PLASTIC, schlick
from vision.render.rays import (Pixels, camera_rays, dimpled_normal, pixel_box, prism_factor, refraction_scale,
                                rounded_normal, shell_path, slab_shift)
from vision.render.shapes import WALL_MM
from vision.render.world import World

SHELL_ID = 100000           # hit id of a wall: SHELL_ID + 16 × shell + face code

__all__ = ["Pixels", "trace"]


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
    face = np.full(N, -1, dtype=np.int64)
    for k, obj in enumerate(world.solids):
        idx = pix.select(pixel_box(view, obj.vertices))
        if len(idx) == 0:
            continue
        t, nrm, f = obj.hit(o[idx], d[idx])
        closer = t < t_hit[idx]
        sel = idx[closer]
        t_hit[sel], normal[sel], hit_id[sel], face[sel] = t[closer], nrm[closer], SOLID_ID + k, f[closer]
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
    # what a ray sees, down to the face: anti-aliasing re-casts pixels where this changes
    seen = np.where(front_id >= 0, front_id, hit_id * 8 + face + 1)
    return rgb, seen


def scatter_depth(length: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """How many walls' worth of back-scatter (N×3) a path of `length` mm through plastic
    absorbing `sigma` per mm sends back: light scattered at depth x has crossed 2x of
    plastic by the time it leaves, so the deep plastic of a strongly absorbed channel
    adds little (green plastic's red, a path tracer's single scattering).

    >>> [round(float(v), 3) for v in scatter_depth(np.array([1.5]), np.array([0.0, 0.46, 1.88]))[0]]
    [1.0, 0.542, 0.177]
    """
    x = 2 * length[:, None] * sigma[None, :]
    absorbed = np.where(x > 1e-9, -np.expm1(-x) / np.maximum(x, 1e-9), 1.0)
    return length[:, None] / WALL_MM * absorbed


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
            # moulded edges are rounded: near an edge the reflecting normal turns towards
            # the next face (thin glints along ridges and the rim)
            if is_outer:
                X = o[j] + d[j] * start[ok, None]
                shine = dimpled_normal(sh, X, fa[ok], rounded_normal(sh.outer, X, fa[ok]))
            else:
                shine = nrm
            cos = np.abs(np.einsum("ij,ij->i", shine, d[j]))
            F = schlick(cos, F0_PLASTIC)[:, 0]
            length = (end[ok] - start[ok]) * refraction_scale(nrm, d[j])
            absorb = np.exp(-length[:, None] * sh.plastic.sigma)
            refl = d[j] - 2 * (np.einsum("ij,ij->i", shine, d[j]))[:, None] * shine
            room = environment(refl, world)
            add = F[:, None] * (room + highlights(world, start[ok], o[j], d[j], shine, refl))
            haze = np.array(sh.plastic.haze) * scatter_depth(np.minimum(length, 3 * WALL_MM), sh.plastic.sigma)
            add = add + (1 - F[:, None]) * haze * scatter_light(world, o[j] + d[j] * start[ok, None], nrm)
            straight = end[ok] - start[ok]
            through = prism_factor(nrm, d[j], straight)
            T = (1 - F[:, None]) ** 2 * absorb * through[:, None]
            ev_ray.append(j); ev_t.append(start[ok]); ev_add.append(add); ev_T.append(T)
            ev_shift.append(slab_shift(nrm, d[j], end[ok] - start[ok]))
            ev_id.append(np.full(len(j), SHELL_ID + 16 * k) + (fa[ok] + 5 * cav[ok] if is_outer else 10))
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
