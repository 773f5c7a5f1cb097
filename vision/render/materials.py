"""Optical constants: pyramid plastics, coin metals, lamp colours. All linear RGB.

Translucent plastic is described by what one 1.5 mm wall lets through at normal
incidence (`wall`), from which the Beer-Lambert absorption coefficient follows; `haze`
is the small part of the light the plastic scatters back (it gives the colour where the
table behind is dark). Black and white are opaque with a diffuse `albedo`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from calibration.srgb import to_linear
from domain import Color, CoinKind
from vision.render.shapes import WALL_MM

IOR_PLASTIC = 1.49    # acrylic / polystyrene
F0_PLASTIC = ((IOR_PLASTIC - 1) / (IOR_PLASTIC + 1)) ** 2


@dataclass(frozen=True)
class Plastic:
    wall: tuple[float, float, float] | None   # transmission of one wall; None = opaque
    haze: tuple[float, float, float]           # back-scattered albedo of one wall
    albedo: tuple[float, float, float] = (0.0, 0.0, 0.0)  # opaque pieces

    @property
    def sigma(self) -> np.ndarray:
        """Absorption coefficient per mm (rgb)."""
        return -np.log(np.clip(np.array(self.wall), 1e-4, 1.0)) / WALL_MM


PLASTICS = {
    Color.RED: Plastic((0.80, 0.045, 0.06), (0.10, 0.010, 0.012)),
    Color.YELLOW: Plastic((0.88, 0.70, 0.05), (0.11, 0.08, 0.008)),
    Color.GREEN: Plastic((0.06, 0.50, 0.18), (0.008, 0.06, 0.025)),
    Color.BLUE: Plastic((0.05, 0.20, 0.72), (0.006, 0.025, 0.09)),
    Color.PURPLE: Plastic((0.40, 0.06, 0.55), (0.05, 0.008, 0.07)),
    Color.CLEAR: Plastic((0.93, 0.94, 0.95), (0.02, 0.02, 0.022)),
    Color.ORANGE: Plastic((0.88, 0.25, 0.025), (0.11, 0.03, 0.004)),
    Color.CYAN: Plastic((0.05, 0.62, 0.72), (0.006, 0.08, 0.09)),
    Color.BLACK: Plastic(None, (0.0, 0.0, 0.0), (0.022, 0.022, 0.024)),
    Color.WHITE: Plastic(None, (0.0, 0.0, 0.0), (0.72, 0.71, 0.68)),
}


@dataclass(frozen=True)
class Metal:
    f0: tuple[float, float, float]   # reflectance at normal incidence (Schlick)
    roughness: float                 # Beckmann-like slope spread of the worn surface

    @property
    def shininess(self) -> float:
        """The Blinn-Phong exponent of that roughness (Walter et al.'s 2/m² - 2)."""
        return 2.0 / self.roughness ** 2 - 2.0


METALS = {
    CoinKind.PENNY: Metal((0.70, 0.42, 0.28), 0.30),   # worn, browned copper plating
    CoinKind.NICKEL: Metal((0.60, 0.58, 0.55), 0.27),  # cupronickel
}


def schlick(cos_theta: np.ndarray, f0) -> np.ndarray:
    """Fresnel reflectance (N×1 or N×3) by Schlick's approximation."""
    c = np.clip(cos_theta, 0.0, 1.0)[:, None]
    return np.asarray(f0) + (1 - np.asarray(f0)) * (1 - c) ** 5


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Linear RGB of a black body at `kelvin`, scaled to unit luminance
    (Tanner Helland's fit of the Planckian locus in sRGB, then linearised)."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    srgb = np.clip(np.array([r, g, b]) / 255.0, 0, 1)
    lin = to_linear(srgb)
    return lin / (0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2])
