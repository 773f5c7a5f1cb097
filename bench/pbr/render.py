"""Path-trace a SceneSpec with Mitsuba 3 and develop it like a camera; renders are cached.

Light transport (Mitsuba's volumetric path tracer `volpath`): each pyramid shell bounds
a homogeneous medium that absorbs as the spec's transmission per 1.5 mm wall says
(Beer-Lambert over the path length) and scatters its haze; its surfaces are Fresnel
interfaces, `thin` (reflect, pass light unbent) or `thick` (refract, n = 1.49), see
WALLS. Glints, internal reflections and the tinted light under the pieces follow.
Lamps are discs glowing downwards (seen from above, where the camera is, they are
neither bright nor in the way: the specs put some between the camera and the table),
the room a uniform sky, coins worn measured metals (copper, nickel); varnished wood is a rough dielectric
coating over the grain (`roughplastic`), cloth, felt and paper are Lambertian.

The camera: a pinhole film slightly larger than the picture, resampled through the
spec's radial distortion and principal point offset; then auto white balance on the
lamps' mix, auto exposure (the brightest 1 % just below clipping), photon and read
noise, sRGB encoding, 8 bits and JPEG. None of vision.render's camera code is used,
but for the AgX curve of the optional filmic development (`Development`).
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from bench.pbr import scene as S
from calibration.srgb import encode
from domain import CoinKind
from vision.render import random_scene
from vision.render.materials import IOR_PLASTIC, kelvin_rgb
from vision.render.render import Rendered
from vision.render.scene import SceneSpec
from vision.render.sensor import filmic
from vision.render.shapes import WALL_MM

# Bump when what is rendered changes (geometry, materials, lights, integrator); the camera's
# development (`develop`) runs on every load, so it may change freely.
RENDER_VERSION = 2
CACHE_DIR = Path(os.environ.get("PYRAMID_PBR_CACHE", "/tmp/pyramid-pbr-cache"))
SPP = int(os.environ.get("PYRAMID_PBR_SPP", "64"))
MAX_DEPTH = 24          # camera → wall → wall → cavity → wall → wall → table → ... → lamp
WOOD_ALPHA = 0.2        # Beckmann roughness of a table's varnish (a soft, wide sheen)
WOOD_IOR = 1.58         # varnish: 5 % reflectance at normal incidence (vision.render's GLOSS)
EXPOSURE_PERCENTILE = 99.0   # auto exposure puts this luminance percentile...
EXPOSURE_LEVEL = 0.92        # ...at this linear level
SHOT_NOISE = 0.012      # relative photon noise at full scale
READ_NOISE = 1.0 / 255  # read noise, linear full scale
JPEG_QUALITY = 90
# Spike's coins: Mitsuba's measured conductors (copper for the penny's plating; nickel for
# the nickel's cupronickel, 75 % copper but as grey as nickel), worn to a soft sheen
# (GGX roughness). Tables without coins render as before (the cache keys on the spec).
# Circulated coins are worn and tarnished: each coin's roughness (GGX alpha) and the share
# of the metal's reflectance its tarnish leaves are drawn from these ranges, by its place.
METAL = {CoinKind.PENNY: "Cu", CoinKind.NICKEL: "Ni_palik"}
COIN_ROUGHNESS = (0.2, 0.5)
COIN_TARNISH = {CoinKind.PENNY: (0.35, 0.9), CoinKind.NICKEL: (0.6, 1.0)}
# How a wall surface passes light. "thin" (default): a Fresnel interface that reflects
# but does not bend what it lets through (Mitsuba's thindielectric, whose light the
# path tracer's shadow rays can follow), so the table under and behind a piece gets
# its tinted light by next-event estimation instead of as a caustic no affordable
# sample count converges; its index is set so that its slab formula 2R/(1+R) equals
# one acrylic surface's reflectance at normal incidence. "thick": true refraction
# (dielectric, n = 1.49): exact, but the light inside the plastic and under a piece
# only arrives by refraction paths that happen to hit a lamp: speckle at 64 spp.
WALLS = os.environ.get("PYRAMID_PBR_WALLS", "thin")
# The film's reconstruction filter: Mitsuba's default Gaussian (standard deviation 0.5
# px), or another renderer's (PYRAMID_PBR_FILTER: a Mitsuba filter and its parameter,
# e.g. "gaussian:0.3", nearer Blender's 1.5 px Blackman-Harris; "tent:0.5"). Pictures
# are then kept apart from the default's in the cache.
FILTER = os.environ.get("PYRAMID_PBR_FILTER", "gaussian")


def _rfilter() -> dict:
    kind, _, value = FILTER.partition(":")
    out: dict = {"type": kind}
    if value:
        out["stddev" if kind == "gaussian" else "radius"] = float(value)
    return out


def _filter_key() -> str:
    return "" if FILTER == "gaussian" else f":{FILTER}"

_R_SURFACE = ((IOR_PLASTIC - 1) / (IOR_PLASTIC + 1)) ** 2
_R_HALF = _R_SURFACE / (2 - _R_SURFACE)              # solves 2R/(1+R) = R_surface
THIN_IOR = (1 + _R_HALF ** 0.5) / (1 - _R_HALF ** 0.5)


def available() -> bool:
    try:
        import mitsuba  # noqa: F401
    except ImportError:
        return False
    return True


# Dr.Jit's LLVM backend needs a recent libLLVM (14 and 15 abort on its kernels: cannot
# select fminimum); Debian's libllvm19 works. Without one, the scalar variant is used.
MIN_LLVM = 18
LLVM_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib")


def _recent_llvm() -> str | None:
    if os.environ.get("DRJIT_LIBLLVM_PATH"):
        return os.environ["DRJIT_LIBLLVM_PATH"]
    for version in range(25, MIN_LLVM - 1, -1):
        for d in LLVM_DIRS:
            path = Path(d) / f"libLLVM-{version}.so"
            if path.exists():
                return str(path)
    return None


@functools.lru_cache(maxsize=1)
def _mi():
    llvm = _recent_llvm()
    if llvm:
        os.environ["DRJIT_LIBLLVM_PATH"] = llvm   # read when Dr.Jit's LLVM backend starts
    import mitsuba as mi
    variant = os.environ.get("PYRAMID_PBR_VARIANT") or ("llvm_ad_rgb" if llvm else "scalar_rgb")
    mi.set_variant(variant)
    return mi


def _rgb(mi, value) -> dict:
    return {"type": "rgb", "value": [float(c) for c in value]}


def _mesh(mi, name: str, vertices: np.ndarray, faces: np.ndarray, uv: np.ndarray | None = None, **props):
    p = mi.Properties()
    for k, v in props.items():
        p[k] = v
    m = mi.Mesh(name, len(vertices), len(faces), props=p, has_vertex_normals=False,
                has_vertex_texcoords=uv is not None)
    params = mi.traverse(m)
    # the buffers' own types: drjit arrays in the llvm variant, dynamic scalar arrays in scalar_rgb
    for key, data, dtype in (("vertex_positions", vertices, np.float32), ("faces", faces, np.uint32),
                             ("vertex_texcoords", uv, np.float32)):
        if data is not None:
            params[key] = type(params[key])(np.asarray(data, dtype).ravel())
    params.update()
    return m


def _bitmap(mi, albedo: np.ndarray, wrap: str = "clamp") -> dict:
    return {"type": "bitmap", "bitmap": mi.Bitmap(np.ascontiguousarray(albedo, np.float32)), "raw": True,
            "filter_type": "bilinear", "wrap_mode": wrap}


def _plastic(mi, m: S.Mesh) -> dict:
    if m.sigma is None:
        return {"bsdf": mi.load_dict({"type": "roughplastic", "distribution": "beckmann", "alpha": 0.05,
                                      "int_ior": IOR_PLASTIC, "diffuse_reflectance": _rgb(mi, m.albedo)})}
    sigma_s = 2 * np.asarray(m.haze) / WALL_MM     # a thin slab scatters back about σs·L/2
    sigma_t = np.asarray(m.sigma) + sigma_s
    peak = float(max(sigma_t.max(), 1e-6))
    medium = mi.load_dict({"type": "homogeneous", "albedo": _rgb(mi, sigma_s / sigma_t), "scale": peak,
                           "sigma_t": _rgb(mi, sigma_t / peak)})
    if WALLS == "thick":
        bsdf = {"type": "dielectric", "int_ior": IOR_PLASTIC, "ext_ior": 1.0}
    else:
        bsdf = {"type": "thindielectric", "int_ior": THIN_IOR, "ext_ior": 1.0}
    return {"bsdf": mi.load_dict(bsdf), "interior": medium}


def _metal(c: S.CoinMesh) -> dict:
    """A coin's worn metal (METAL, COIN_ROUGHNESS, COIN_TARNISH), drawn from its place."""
    rng = np.random.default_rng(np.round(c.vertices[-1, :2] * 1000).astype(np.int64) % 2 ** 31)
    return {"type": "roughconductor", "distribution": "ggx", "material": METAL[c.kind],
            "alpha": float(rng.uniform(*COIN_ROUGHNESS)),
            "specular_reflectance": {"type": "rgb", "value": [float(rng.uniform(*COIN_TARNISH[c.kind]))] * 3}}


def mitsuba_scene(spec: SceneSpec, fl: S.Film, spp: int = SPP):
    """The Mitsuba scene object of `spec` seen through film `fl`."""
    mi = _mi()
    T = mi.ScalarTransform4f
    sc: dict = {"type": "scene",
                "integrator": {"type": "volpath", "max_depth": MAX_DEPTH, "rr_depth": 8},
                "sensor": {"type": "perspective", "fov_axis": "x", "fov": fl.fov_deg,
                           "near_clip": 10.0, "far_clip": 20000.0,
                           "to_world": T().look_at(origin=list(fl.eye), target=list(fl.target), up=list(fl.up)),
                           "sampler": {"type": "independent", "sample_count": spp},
                           "film": {"type": "hdrfilm", "width": fl.width, "height": fl.height,
                                    "pixel_format": "rgb", "rfilter": _rfilter()}},
                "sky": {"type": "constant", "radiance": _rgb(mi, S.sky_radiance(spec))}}
    # the table: the baked pattern over what the camera sees, mirrored beyond (reflections)
    bounds = S.table_bounds(spec, fl)
    tex = _bitmap(mi, S.table_texture(spec, bounds), "mirror")
    if spec.surface.kind == "wood":
        table_bsdf = {"type": "roughplastic", "distribution": "beckmann", "alpha": WOOD_ALPHA, "int_ior": WOOD_IOR,
                      "nonlinear": True, "diffuse_reflectance": tex}
    else:
        table_bsdf = {"type": "diffuse", "reflectance": tex}
    v, f, uv = S.table_quad(bounds)
    sc["table"] = _mesh(mi, "table", v, f, uv, bsdf=mi.load_dict(table_bsdf))
    for m in spec.layout.markers:
        v, f, uv = S.sheet_quad(spec, m)
        sc[f"sheet{m.id}"] = _mesh(mi, f"sheet{m.id}", v, f, uv,
                                   bsdf=mi.load_dict({"type": "diffuse", "reflectance": _bitmap(mi, S.sheet_texture(spec, m))}))
    for k, m in enumerate(S.piece_meshes(spec)):
        props = _plastic(mi, m)
        sc[f"piece{k}"] = _mesh(mi, f"piece{k}", m.vertices, m.faces, **props)
    for k, c in enumerate(S.coin_meshes(spec)):
        sc[f"coin{k}"] = _mesh(mi, f"coin{k}", c.vertices, c.faces, bsdf=mi.load_dict(_metal(c)))
    for k, lamp in enumerate(S.lamps(spec)):
        # Mitsuba's disk: unit radius in the xy plane, emitting along +z; turned face down
        sc[f"lamp{k}"] = {"type": "disk",
                          "to_world": T().translate(list(lamp.centre)).scale(lamp.radius).rotate([1, 0, 0], 180),
                          "emitter": {"type": "area", "radiance": _rgb(mi, lamp.radiance)},
                          "bsdf": {"type": "null"}}
    return mi.load_dict(sc)


def render_radiance(spec: SceneSpec, spp: int = SPP, seed: int = 0) -> np.ndarray:
    """Linear RGB radiance of the picture (H×W×3 float32), distortion applied."""
    mi = _mi()
    fl = S.film(spec)
    scene = mitsuba_scene(spec, fl, spp)
    img = np.array(mi.render(scene, seed=seed), np.float32)[..., :3]
    # the table frame (x right, y down the picture, z up) is a mirror image of the room:
    # Mitsuba draws it mirrored left to right about the film's centre, which is the axis
    img = np.ascontiguousarray(img[:, ::-1])
    mx, my = S.film_map(spec, fl)
    return cv2.remap(img, mx, my, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)


def illuminant(spec: SceneSpec) -> np.ndarray:
    """What auto white balance settles on: the lamps' and room's colours weighted by the
    light each sends to the middle of the layout."""
    centre = np.array([*np.mean([m.center for m in spec.layout.markers], axis=0), 0.0])
    mix = spec.ambient * kelvin_rgb(spec.ambient_kelvin)
    for lamp in spec.lamps:
        to_l = np.array(lamp.position) - centre
        d = np.linalg.norm(to_l)
        mix = mix + lamp.intensity * kelvin_rgb(lamp.kelvin) * (1000 / d) ** 2 * max(to_l[2] / d, 0.0)
    return mix / mix.mean()


@dataclass(frozen=True)
class Development:
    """How the camera develops the path-traced light. The default is a plain camera:
    sRGB, auto exposure, sharp, JPEG at JPEG_QUALITY. The others are what another
    renderer's or camera's pipeline may do instead: `view` "agx" is Blender's AgX view
    transform's curve alone (vision.render.sensor.filmic), "blender:AgX" (or any view of
    Blender's: "blender:Filmic", ...) the transform as Blender applies it
    (bench.cycles.views, needs `make cycles`), `stops` exposes brighter (+) or darker
    (-) than the auto exposure, `blur_px` defocuses (Gaussian sigma, pixels),
    `cast` (linear gains r, g, b) is the colour cast a white balance set for other light
    leaves on the picture."""
    view: str = "srgb"
    stops: float = 0.0
    blur_px: float = 0.0
    jpeg_quality: int = JPEG_QUALITY
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)


PLAIN = Development()


def develop(radiance: np.ndarray, spec: SceneSpec, noise_seed: int,
            how: Development = PLAIN) -> tuple[np.ndarray, bytes]:
    """White balance, exposure, optics, noise, the view transform, 8 bits, JPEG: (decoded
    BGR image, JPEG bytes)."""
    img = np.nan_to_num(radiance, nan=0.0, posinf=0.0, neginf=0.0) / illuminant(spec) * np.asarray(how.cast)
    lum = img @ np.array([0.2126, 0.7152, 0.0722])
    img = img * (EXPOSURE_LEVEL / max(float(np.percentile(lum, EXPOSURE_PERCENTILE)), 1e-9)) * 2.0 ** how.stops
    if how.blur_px > 0:
        img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), how.blur_px)
    rng = np.random.default_rng(noise_seed)
    img = np.clip(img, 0, None)
    img = img + rng.standard_normal(img.shape).astype(np.float32) * np.sqrt(SHOT_NOISE ** 2 * img + READ_NOISE ** 2)
    if how.view == "agx":
        rgb8 = filmic(np.clip(img, 0, None))
    elif how.view.startswith("blender:"):   # Blender's own view transform (needs `make cycles`)
        from bench.cycles.views import through_blender_view
        rgb8 = through_blender_view(np.clip(img, 0, None), how.view.split(":", 1)[1])
    else:
        rgb8 = encode(img)   # IEC 61966-2-1
    ok, buf = cv2.imencode(".jpg", np.ascontiguousarray(rgb8[..., ::-1]), [cv2.IMWRITE_JPEG_QUALITY, how.jpeg_quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), buf.tobytes()


# Other lamps than random_scene's, as another renderer's scene may be lit (`relit`):
# "softbox", each lamp a disc of radius SOFTBOX_RADIUS_MM (soft shadows); "sun",
# the first lamp moved SUN_DISTANCE_MM away along its direction from the layout's middle,
# as bright there, a disc the sun's apparent size (0.27°: parallel, hard shadows);
# "bulb", the first lamp alone where it hangs, a bare bulb of radius BULB_RADIUS_MM (hard
# shadows fanning out from below it), in a room of its own colour (a grey world, as a
# renderer's default scene has: shadows no bluer than the lit table).
LIGHTINGS = ("lamps", "softbox", "sun", "bulb")
BULB_RADIUS_MM = 15.0
SOFTBOX_RADIUS_MM = 350.0
SUN_DISTANCE_MM = 20000.0
SUN_RADIUS_MM = SUN_DISTANCE_MM * math.tan(math.radians(0.27))


def relit(spec: SceneSpec, lighting: str) -> SceneSpec:
    """The scene under LIGHTINGS' `lighting` ("lamps": as it is)."""
    if lighting == "lamps":
        return spec
    if lighting == "softbox":
        return replace(spec, lamps=tuple(replace(lamp, radius=SOFTBOX_RADIUS_MM) for lamp in spec.lamps))
    if lighting == "sun":
        lamp = spec.lamps[0]
        middle = np.array([*np.mean([m.center for m in spec.layout.markers], axis=0), 0.0])
        towards = np.array(lamp.position) - middle
        near = float(np.linalg.norm(towards))
        position = tuple(float(v) for v in middle + towards / near * SUN_DISTANCE_MM)
        sun = replace(lamp, position=position, radius=SUN_RADIUS_MM,
                      intensity=lamp.intensity * (SUN_DISTANCE_MM / near) ** 2)
        return replace(spec, lamps=(sun,))
    if lighting == "bulb":
        lamp = spec.lamps[0]
        return replace(spec, lamps=(replace(lamp, radius=BULB_RADIUS_MM),), ambient_kelvin=lamp.kelvin)
    raise ValueError(f"lighting {lighting!r}: one of {', '.join(LIGHTINGS)}")


@dataclass(frozen=True)
class Timing:
    seconds: float      # path tracing only (0 when read from the cache)
    cached: bool


def cached(seed: int, spp: int = SPP, lighting: str = "lamps", **options) -> bool:
    """Whether `render_seed` with these arguments reads its radiance from the cache (no
    path tracing, ~1 min a scene, needed)."""
    return _cache_path(seed, relit(random_scene(seed, **options), lighting), spp).exists()


def _cache_path(seed: int, spec: SceneSpec, spp: int) -> Path:
    key = hashlib.sha1(f"{RENDER_VERSION}:{WALLS}:{spp}:{spec!r}{_filter_key()}".encode()).hexdigest()[:20]
    return CACHE_DIR / f"{seed}-{key}.npy"


def cached_radiance(path: Path, render) -> tuple[np.ndarray, Timing]:
    """The radiance kept at `path`, or `render()` now and kept there. It is kept in half
    floats and read back from them, so the first run's pictures are the same as every
    later run's; written under another name first, so a reader never sees half a file."""
    try:
        return np.load(path).astype(np.float32), Timing(0.0, True)
    except (OSError, ValueError):
        t = time.perf_counter()
        radiance = render().astype(np.float16)
        timing = Timing(time.perf_counter() - t, False)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, radiance)
        os.replace(tmp, path)
        return radiance.astype(np.float32), timing


def fresh_noise(draw: int, seed: int) -> int | None:
    """The sensor noise seed of scene `seed`'s `draw`-th other picture of the same light
    (None for draw 0: the scene's own, seeded by `seed`).

    >>> fresh_noise(3, 9201), fresh_noise(0, 9201)
    (309201, None)
    """
    return draw * 100_000 + seed if draw else None


def render_seed(seed: int, spp: int = SPP, development: Development = PLAIN, lighting: str = "lamps",
                noise_seed: int | None = None, **options) -> tuple[Rendered, Timing]:
    """The path-traced picture of random_scene(seed, **options), `relit` by `lighting`.
    The radiance is kept on disk (keyed by RENDER_VERSION, walls, spp, the spec and a
    filter other than the default), the camera develops it anew (`development`, with
    `noise_seed`'s sensor noise, default `seed`'s)."""
    spec = relit(random_scene(seed, **options), lighting)
    radiance, timing = cached_radiance(_cache_path(seed, spec, spp), lambda: render_radiance(spec, spp, seed))
    image, jpeg = develop(radiance, spec, seed if noise_seed is None else noise_seed, development)
    return Rendered(image, jpeg, spec.truth(), spec.view(), spec), timing
