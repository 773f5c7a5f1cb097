"""calibration.view_transforms' undoing of a view that mixes its channels, compiled
(numba): one pass over the picture, pixel by pixel, instead of two colour transforms and
two table look-ups over whole float arrays (~17 ms a rectified table in numpy, ~3 here).
The kernel comes from vision.compiled, the project's one place for numba's settings and
cache.
"""

from __future__ import annotations

import numpy as np

from vision.compiled import jit


@jit()
def undo_mixing(image, linear, display, scene_light, display_steps, scene, srgb, scene_steps, out):
    """For each BGR pixel of `image` (uint8): its channels' display light (`linear`, by
    level), mixed by `display` (3×3), each looked up in `scene_light` (a table over the
    display's light, `display_steps` entries per unit), mixed by `scene` (3×3, the scale
    folded in), each looked up in `srgb` (levels over the scaled light, `scene_steps`
    per unit), into `out`."""
    h, w = image.shape[0], image.shape[1]
    last_d, last_s = scene_light.shape[0] - 1, srgb.shape[0] - 1
    shown = np.empty(3, np.float32)
    light = np.empty(3, np.float32)
    for y in range(h):
        for x in range(w):
            for i in range(3):
                shown[i] = linear[image[y, x, i]]
            for i in range(3):
                v = display[i, 0] * shown[0] + display[i, 1] * shown[1] + display[i, 2] * shown[2]
                k = int(v * display_steps + np.float32(0.5)) if v > 0 else 0
                light[i] = scene_light[min(k, last_d)]
            for i in range(3):
                v = scene[i, 0] * light[0] + scene[i, 1] * light[1] + scene[i, 2] * light[2]
                k = int(v * scene_steps + np.float32(0.5)) if v > 0 else 0
                out[y, x, i] = srgb[min(k, last_s)]
