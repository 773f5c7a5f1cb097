"""Path-trace a SceneSpec with Blender's Cycles, a second physically based renderer, and
develop it like a camera; renders are cached.

Nobody tuned the detector on these pictures: the Mitsuba renderer (bench/pbr) is the one
studied, and Cycles differs from it where another maker's pictures would: the Principled
BSDF's transmission instead of a wall's measured absorption and haze, Cycles' sampling,
pixel filter and denoiser. Geometry, lamps, room, table and sheets are the same
(bench.pbr.scene); the camera develops the light as bench.pbr.render.develop does (or
through one of Blender's own view transforms, `Development(view="blender:AgX")`:
bench.cycles.views).

Blender's Python module (`bpy`, 5.0, from PyPI) pins its own numpy, so it lives in a
venv of its own, `make cycles` (PYRAMID_BLENDER_PYTHON names another Python with bpy);
this module hands it the scene as arrays (bench.cycles.export) and reads back the light.
About two minutes a scene at 32 samples on two cores (nearly four at 64).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from pathlib import Path

import cv2
import numpy as np

from bench.cycles.export import scene_arrays
from bench.pbr import scene as S
from bench.pbr.render import PLAIN, Development, Timing, cached_radiance, develop
from vision.render import random_scene
from vision.render.render import Rendered
from vision.render.scene import SceneSpec

# Bump when what is rendered changes (bench/cycles/blender_scene.py, export.py).
RENDER_VERSION = 1
CACHE_DIR = Path(os.environ.get("PYRAMID_CYCLES_CACHE", "/tmp/pyramid-cycles-cache"))
SAMPLES = int(os.environ.get("PYRAMID_CYCLES_SAMPLES", "32"))   # denoised, as Blender renders
BLENDER_PYTHON = Path(os.environ.get("PYRAMID_BLENDER_PYTHON",
                                     Path(__file__).resolve().parents[2] / ".venv-cycles" / "bin" / "python"))
SCRIPT = Path(__file__).with_name("blender_scene.py")


def available() -> bool:
    """Is there a Python with Blender's module to render with?"""
    return BLENDER_PYTHON.exists()


def run_blender(script: Path, args: list, made: Path, what: str) -> None:
    """Run `script` with Blender's Python and `args`; RuntimeError (naming `what`) when
    there is no such Python, or it fails or does not make `made`."""
    if not available():
        raise RuntimeError(f"no Python with Blender's bpy at {BLENDER_PYTHON}: run `make cycles`, "
                           "or name one in PYRAMID_BLENDER_PYTHON")
    done = subprocess.run([str(BLENDER_PYTHON), str(script), *map(str, args)], capture_output=True, text=True)
    if done.returncode != 0 or not made.exists():
        raise RuntimeError(f"{what} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")


def render_radiance(spec: SceneSpec, samples: int = SAMPLES, solid: bool = False) -> np.ndarray:
    """Linear RGB radiance of the picture (H×W×3 float32), distortion applied; `solid`:
    translucent pieces as solid prisms (export.scene_arrays)."""
    with tempfile.TemporaryDirectory() as tmp:
        scene, out = Path(tmp) / "scene.npz", Path(tmp) / "light.npy"
        np.savez(scene, **scene_arrays(spec, solid))
        run_blender(SCRIPT, [scene, out, samples], out, "Cycles")
        film = np.load(out)
    mx, my = S.film_map(spec, S.film(spec))
    return cv2.remap(film, mx, my, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)


def cached(seed: int, samples: int = SAMPLES, solid: bool = False, **options) -> bool:
    """Whether `render_seed` with these arguments reads its light from the cache."""
    return _cache_path(seed, random_scene(seed, **options), samples, solid).exists()


def _cache_path(seed: int, spec: SceneSpec, samples: int, solid: bool = False) -> Path:
    kind = "solid:" if solid else ""
    key = hashlib.sha1(f"cycles{RENDER_VERSION}:{samples}:{kind}{spec!r}".encode()).hexdigest()[:20]
    return CACHE_DIR / f"{seed}-{key}.npy"


def render_seed(seed: int, samples: int = SAMPLES, development: Development = PLAIN, solid: bool = False,
                noise_seed: int | None = None, **options) -> tuple[Rendered, Timing]:
    """The Cycles picture of random_scene(seed, **options); the light is kept on disk,
    the camera develops it anew (`development`, with `noise_seed`'s sensor noise,
    default `seed`'s); `solid`: translucent pieces as solid prisms (export.scene_arrays)."""
    return render_spec(random_scene(seed, **options), seed, samples, development, solid, noise_seed)


def render_spec(spec: SceneSpec, seed: int, samples: int = SAMPLES, development: Development = PLAIN,
                solid: bool = False, noise_seed: int | None = None) -> tuple[Rendered, Timing]:
    """The Cycles picture of any `spec` (a scene's table and light with other pieces: a
    calibration picture), cached under `seed` and the spec; `seed` also seeds the
    camera's noise unless `noise_seed` is given."""
    radiance, timing = cached_radiance(_cache_path(seed, spec, samples, solid),
                                       lambda: render_radiance(spec, samples, solid))
    image, jpeg = develop(radiance, spec, seed if noise_seed is None else noise_seed, development)
    return Rendered(image, jpeg, spec.truth(), spec.view(), spec), timing
