"""Measure Blender's view transforms for the detector: calibration/data/view_curves.json.

`.venv/bin/python bench/cycles/view_curves.py` (needs `make cycles`). Each view of
VIEWS develops, through Blender itself (bench.cycles.views):
- a grey ramp, whose levels give the view's grey curve: for each 8-bit level, the log2
  of the scene light shown at that level (the mean over the ramp's samples shown so);
- random colours (log-uniform, channels within PATCH_SPREAD stops of each other), on
  which undoing the grey curve channel by channel (calibration.view_transforms.ViewUndo)
  is scored by how far each colour's chromaticity lands from the true one (median, log,
  channel less the mean of the three): what the curve leaves of a view that mixes its
  channels (AgX works in a gamut of its own).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.cycles.views import through_blender_view  # noqa: E402
from calibration.view_transforms import ViewUndo  # noqa: E402

VIEWS = ("AgX", "Filmic")
OUT = Path(__file__).resolve().parents[2] / "calibration" / "data" / "view_curves.json"
RAMP_LOW, RAMP_HIGH, RAMP_STEPS = -14.0, 6.0, 8192   # stops of scene light
PATCHES = 256 * 256
PATCH_LOW, PATCH_HIGH, PATCH_SPREAD = -8.0, 1.5, 5.0  # stops: a colour's mean level, its channels' spread
SCORED_LEVELS = (8, 247)     # colours scored only where every channel is shown between these


def grey_stops(view: str) -> list[float]:
    """log2 scene light at each 8-bit level of `view`: the mean of the ramp's stops shown
    at that level, levels the ramp never shows interpolated."""
    stops = np.linspace(RAMP_LOW, RAMP_HIGH, RAMP_STEPS)
    ramp = np.repeat((2.0 ** stops)[None, :, None], 3, axis=2).repeat(2, axis=0)
    shown = through_blender_view(ramp, view)[0, :, 1].astype(int)
    count = np.bincount(shown, minlength=256)
    mean = np.bincount(shown, stops, minlength=256) / np.maximum(count, 1)
    hit = count > 0
    return [round(float(v), 4) for v in np.interp(np.arange(256), np.flatnonzero(hit), mean[hit])]


def patches(seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    level = rng.uniform(PATCH_LOW, PATCH_HIGH, (PATCHES, 1))
    spread = rng.uniform(-PATCH_SPREAD / 2, PATCH_SPREAD / 2, (PATCHES, 3))
    return 2.0 ** (level + spread)


def chroma_error(light: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Per colour, the largest difference of log chromaticity (log less the mean log)."""
    a, b = np.log(np.maximum(light, 1e-12)), np.log(truth)
    return np.abs((a - a.mean(axis=1, keepdims=True)) - (b - b.mean(axis=1, keepdims=True))).max(axis=1)


def measure(view: str) -> dict:
    stops = grey_stops(view)
    truth = patches()
    shown = through_blender_view(truth.reshape(256, -1, 3), view).reshape(-1, 3)
    used = np.all((shown > SCORED_LEVELS[0]) & (shown < SCORED_LEVELS[1]), axis=1)
    error = chroma_error(ViewUndo(np.array(stops)).light(shown[used]), truth[used])
    return {"stops": stops, "grey_curve_error": round(float(np.median(error)), 4)}


def main() -> None:
    views = {view: measure(view) for view in VIEWS}
    data = {"source": "Blender 5.0.1's OCIO configuration (display sRGB, look None), measured by "
                      "bench/cycles/view_curves.py",
            "meaning": "stops: for each 8-bit level 0-255, log2 of the scene light the view shows at that level "
                       "(a grey ramp); grey_curve_error: median chromaticity error (log) of random colours the "
                       "curve undoes (calibration.view_transforms.ViewUndo), what it leaves of the view's mixing",
            "views": views}
    # each view's 256 levels on one line
    text = re.sub(r"\[\s*([-\d.e,\s]+?)\s*\]", lambda m: "[" + re.sub(r"\s+", " ", m.group(1)) + "]",
                  json.dumps(data, indent=1))
    OUT.write_text(text + "\n")
    for view, v in views.items():
        print(view, "grey curve's chromaticity error", v["grey_curve_error"])


if __name__ == "__main__":
    main()
