"""render(spec) -> Rendered: the picture, its JPEG bytes, the ground truth and the camera."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.camera import CameraView, Intrinsics
from domain import TableState
from vision.render import sensor as sensor_mod
from vision.render.materials import kelvin_rgb
from vision.render.scene import IMAGE_SIZE, SceneSpec
from vision.render.tracer import Pixels, trace
from vision.render.world import build_world

AA_SIDE = 3   # edge pixels are re-cast with AA_SIDE × AA_SIDE rays


@dataclass(frozen=True)
class Rendered:
    image: np.ndarray      # BGR uint8, 960×1280, after noise and a JPEG round trip
    jpeg: bytes
    truth: TableState
    view: CameraView
    spec: SceneSpec

    @property
    def intrinsics(self) -> Intrinsics:
        return self.view.intrinsics


def _edges(ids: np.ndarray) -> np.ndarray:
    e = np.zeros(ids.shape, bool)
    dx = ids[:, 1:] != ids[:, :-1]
    dy = ids[1:, :] != ids[:-1, :]
    e[:, 1:] |= dx; e[:, :-1] |= dx
    e[1:, :] |= dy; e[:-1, :] |= dy
    return e


def render_linear(spec: SceneSpec) -> np.ndarray:
    """Scene radiance (H×W×3 linear RGB, float32) before the camera's processing."""
    w, h = IMAGE_SIZE
    view = spec.view()
    world = build_world(spec)
    rng = np.random.default_rng(spec.seed + 104729)
    v, u = np.mgrid[0:h, 0:w]
    u = u.ravel().astype(np.float64)
    v = v.ravel().astype(np.float64)
    rgb, ids = trace(world, view, Pixels(u, v, (h, w)), rng)
    img = rgb.reshape(h, w, 3)
    edge = np.flatnonzero(_edges(ids.reshape(h, w)).ravel())
    if len(edge):
        offs = (np.arange(AA_SIDE) + 0.5) / AA_SIDE - 0.5
        ox, oy = np.meshgrid(offs, offs)
        su = (u[edge, None] + ox.ravel()).ravel()
        sv = (v[edge, None] + oy.ravel()).ravel()
        # the sub-rays of a pixel are averaged, so one lamp point each still gives many a pixel
        sub, _ = trace(world, view, Pixels(su, sv), rng, 1.0 / AA_SIDE, shadow_samples=1)
        img.reshape(-1, 3)[edge] = sub.reshape(len(edge), AA_SIDE ** 2, 3).mean(axis=1)
    return img.astype(np.float32)


def illuminant(spec: SceneSpec) -> np.ndarray:
    """The light colour an auto white balance would settle on: the mix of the room and
    the lamps, each weighted by its irradiance at the middle of the marker layout."""
    centre = np.array([*np.mean([m.center for m in spec.layout.markers], axis=0), 0.0])
    mix = spec.ambient * kelvin_rgb(spec.ambient_kelvin)
    for lamp in spec.lamps:
        to_l = np.array(lamp.position) - centre
        dist = np.linalg.norm(to_l)
        mix = mix + lamp.intensity * kelvin_rgb(lamp.kelvin) * (1000.0 / dist) ** 2 * max(to_l[2] / dist, 0.0)
    return mix / mix.mean()


def render(spec: SceneSpec) -> Rendered:
    radiance = render_linear(spec)
    exposed = sensor_mod.expose(radiance, spec.sensor, illuminant(spec))
    image, jpeg = sensor_mod.to_jpeg(exposed, spec.sensor)
    return Rendered(image, jpeg, spec.truth(), spec.view(), spec)
