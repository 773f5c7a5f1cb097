"""Rendered scenes for tests and benchmarks, cached on disk: rendering takes seconds,
detection milliseconds.

The cache lives in $PYRAMID_RENDER_CACHE (default: the system temp dir) and is keyed by
the scene options and a hash of the renderer's source, so a changed renderer re-renders.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import pickle
import tempfile
from dataclasses import replace

import vision.render


def _renderer_hash() -> str:
    h = hashlib.sha1()
    for f in sorted(pathlib.Path(vision.render.__file__).parent.glob("*.py")):
        h.update(f.read_bytes())
    return h.hexdigest()[:10]


def cache_dir() -> pathlib.Path:
    base = os.environ.get("PYRAMID_RENDER_CACHE") or os.path.join(tempfile.gettempdir(), "pyramid-referee-renders")
    d = pathlib.Path(base) / _renderer_hash()
    d.mkdir(parents=True, exist_ok=True)
    return d


def rendered(seed: int, sensor: dict | None = None, **options):
    """render(random_scene(seed, **options)), from the cache when possible; `sensor`
    overrides fields of the scene's Sensor (JPEG quality, noise, white balance error...)."""
    from vision.render import random_scene, render
    parts = [str(seed)] + [f"{k}-{v}" for k, v in sorted(options.items())]
    parts += [f"sensor-{k}-{v}" for k, v in sorted((sensor or {}).items())]
    key = "_".join(parts).replace("/", "-").replace(" ", "")
    path = cache_dir() / f"{key}.pkl"
    if path.exists():
        with open(path, "rb") as f:
            return pickle.load(f)
    spec = random_scene(seed, **options)
    if sensor:
        spec = replace(spec, sensor=replace(spec.sensor, **sensor))
    r = render(spec)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        pickle.dump(r, f)
    tmp.replace(path)
    return r
