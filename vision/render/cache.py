"""Render once, reuse: the JPEG of a spec kept on disk under a hash of the spec and of
the renderer's own source (a changed renderer draws afresh).

A Rendered is fully determined by its spec (its image is the decoded JPEG), so the JPEG
bytes are all that needs keeping.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from pathlib import Path

import cv2
import numpy as np

from vision.render.render import Rendered, render
from vision.render.scene import SceneSpec

DEFAULT_DIR = Path(os.environ.get("PYRAMID_RENDER_CACHE", Path(tempfile.gettempdir()) / "pyramid-render-cache"))


@functools.lru_cache(maxsize=1)
def renderer_hash() -> str:
    h = hashlib.sha1()
    for f in sorted(Path(__file__).parent.glob("*.py")):
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def spec_key(spec: SceneSpec) -> str:
    # the sensor's development and the plastics' haze are left out of the spec's repr
    return hashlib.sha1(f"{renderer_hash()}:{spec!r}:{spec.sensor.development}:{spec.haze}".encode()).hexdigest()[:20]


def render_cached(spec: SceneSpec, cache_dir: str | Path | None = None) -> Rendered:
    """render(spec), read from `cache_dir` (default $PYRAMID_RENDER_CACHE or a temp dir) when done before."""
    folder = Path(cache_dir) if cache_dir is not None else DEFAULT_DIR
    path = folder / f"{spec_key(spec)}.jpg"
    if path.is_file():
        data = path.read_bytes()
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        if image is not None:
            return Rendered(image, data, spec.truth(), spec.view(), spec)
    out = render(spec)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(out.jpeg)
    os.replace(tmp, path)  # atomic: parallel test workers never read half a file
    return out
