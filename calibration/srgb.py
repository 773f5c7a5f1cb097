"""sRGB: how cameras encode light in pixel values (lenses and sensors work in light).

>>> round(float(LINEAR[128]), 3), int(encode(np.array([0.2159]))[0])
(0.216, 128)
"""

from __future__ import annotations

import numpy as np


def to_linear(v: np.ndarray) -> np.ndarray:
    """sRGB-encoded levels (0-1) → linear light (0-1)."""
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


# Pixel value (0-255) → linear light (0-1).
LINEAR = to_linear(np.arange(256) / 255.0)


def levels(light: np.ndarray) -> np.ndarray:
    """Linear light (any shape) → sRGB levels as floats (0-255), the curve continued past
    full scale: where a clipped channel's true level would be.

    >>> [round(float(v), 1) for v in levels(np.array([0.0, 1.0, 1.2]))]
    [0.0, 255.0, 276.2]
    """
    x = np.maximum(light, 0.0)
    return 255 * np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def encode(light: np.ndarray) -> np.ndarray:
    """Linear light (0-1, any shape) → sRGB pixel values (uint8)."""
    return np.round(levels(np.clip(light, 0.0, 1.0))).astype(np.uint8)
