"""Linear light developed through Blender's own view transforms (its OCIO configuration:
AgX, Filmic, Standard, ...), by bench/cycles/blender_views.py run with Blender's Python;
the pictures are cached beside the renders (bench.cycles.render.CACHE_DIR).

bench.pbr.render.develop uses this for `Development(view="blender:AgX")`: the transform
as Blender applies it, gamut handling and all, not the model of it the detector undoes
(calibration/data/view_curves.json, which bench/cycles/view_curves.py measures here).
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

import cv2
import numpy as np

from bench.cycles.render import CACHE_DIR, run_blender

SCRIPT = Path(__file__).with_name("blender_views.py")


def through_blender_view(light_rgb: np.ndarray, view: str) -> np.ndarray:
    """8-bit RGB of linear Rec.709 `light_rgb` (H×W×3, top row first) through Blender's
    `view` (display sRGB, look None)."""
    light = np.ascontiguousarray(light_rgb, np.float32)
    key = hashlib.sha1(light.tobytes() + view.encode()).hexdigest()[:20]
    path = CACHE_DIR / f"view-{key}.png"
    if not path.exists():
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            np.save(Path(tmp) / "light.npy", light)
            made = Path(tmp) / f"out_{view.replace(' ', '_')}.png"
            run_blender(SCRIPT, [Path(tmp) / "light.npy", Path(tmp) / "out", view], made, f"Blender's {view} view")
            made.replace(path)
    bgr = cv2.imread(str(path), cv2.IMREAD_COLOR)
    return np.ascontiguousarray(bgr[..., ::-1])
