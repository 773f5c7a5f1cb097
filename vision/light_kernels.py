"""The shadow pixels a lamp's predicted shadow takes out, compiled (numba): one pass over
a piece's window instead of a dozen NumPy calls on its pixels (vision.light.cast_shadows,
~90 µs a piece, ~2 ms a frame). The same pixels as the NumPy expressions it replaced,
with their types: hue and chroma in float32, the hue's agreement with the caster's in
float64 (NumPy's matrix product of float32 pixels with a float64 hue). Also the samples
of the picture's shadow tint (vision.light.shadow_tint), one pass a window.
"""

from __future__ import annotations

import numpy as np

from vision.compiled import jit


@jit()
def shadow_samples(shadow, body, usable, hue, lum, darker, caster, same_hue_cos):
    """Each pixel's hue change per unit of darkening (N × 2, float32) in the predicted
    `shadow` (uint8) off every `body` on `usable` table, darker than `darker` (log) and
    not tinted the `caster`'s way (cosine over `same_hue_cos`: its plastic's light)."""
    rows, cols = shadow.shape
    out = np.empty((rows * cols, 2), np.float32)
    caster_length = np.hypot(caster[0], caster[1])
    n = 0
    for y in range(rows):
        for x in range(cols):
            if shadow[y, x] == 0 or body[y, x] != 0 or not usable[y, x] or lum[y, x] >= darker:
                continue
            h0, h1 = hue[y, x, 0], hue[y, x, 1]
            if h0 * caster[0] + h1 * caster[1] > same_hue_cos * np.hypot(h0, h1) * caster_length:
                continue
            out[n, 0], out[n, 1] = h0 / -lum[y, x], h1 / -lum[y, x]
            n += 1
    return out[:n]


@jit()
def take_out_window(shadow, body, usable, hue, lum, caster, plain_chroma, same_hue_cos, out):
    """Set `out` (bool, the window) where the predicted `shadow` (uint8) lies off every
    `body` (uint8) on `usable` table (bool) and the pixel is darker than the bare table
    (`lum` < 0) with a hue change under `plain_chroma`, or its hue change (`hue`, float32
    pairs) points the `caster`'s way (float64 pair): cosine over `same_hue_cos`."""
    caster_length = np.float32(np.hypot(caster[0], caster[1]))
    plain_limit = np.float32(plain_chroma)
    cos = np.float32(same_hue_cos)
    rows, cols = shadow.shape
    for y in range(rows):
        for x in range(cols):
            if shadow[y, x] == 0 or body[y, x] != 0 or not usable[y, x]:
                continue
            h0, h1 = hue[y, x, 0], hue[y, x, 1]
            chroma = np.float32(np.hypot(h0, h1))
            along = np.float64(h0) * caster[0] + np.float64(h1) * caster[1]
            same = along > np.float64(np.float32(cos * chroma) * caster_length)
            plain = chroma < plain_limit and lum[y, x] < 0
            if same or plain:
                out[y, x] = True
