"""What a rendered frame shows: the scene description and its ground truth.

A `SceneSpec` is a frozen, hashable description of one frame: the pieces on the table,
coins, hands above the table, pieces being carried, the table surface, the lamps, the
camera and the sensor. `dataclasses.replace(spec, pieces=...)` gives the next frame of a
clip with the same table, light and camera; `spec.frame(i, pieces=...)` also draws
fresh sensor noise for frame i.

>>> spec = scene_from_pieces([Piece.upright("a", "red", "large", (300, 250), 10)])
>>> spec.truth().pieces[0].stack
(<Size.LARGE: 'large'>,)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Iterable, Sequence

from calibration.camera import CameraView, Intrinsics
from calibration.markers import MarkerLayout
from domain import Coin, InputError, Piece, Pose, Size, TableState

IMAGE_SIZE = (1280, 960)
SURFACE_KINDS = ("wood", "cloth", "felt")


class SceneError(InputError):
    """A scene that cannot be drawn (unknown colour or surface, impossible request)."""
Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class Lamp:
    """A round area lamp facing the table: position (x, y, height) mm, disc radius mm,
    intensity (irradiance on the table straight below at 1 m, relative) and colour
    temperature, kelvin."""

    position: Vec3
    radius: float = 60.0
    intensity: float = 1.0
    kelvin: float = 4000.0


@dataclass(frozen=True)
class CameraSpec:
    """Where the camera is and what lens it has.

    eye/target: table (x, y, height) mm; fov_deg: horizontal field of view; roll_deg turns
    the picture about the optical axis; k1, k2: radial distortion; principal point offset
    (dcx, dcy) px from the picture centre.
    """

    eye: Vec3 = (380.0, 280.0, 950.0)
    target: Vec3 = (380.0, 280.0, 0.0)
    fov_deg: float = 62.0
    roll_deg: float = 0.0
    k1: float = 0.0
    k2: float = 0.0
    dcx: float = 0.0
    dcy: float = 0.0

    def intrinsics(self) -> Intrinsics:
        w, h = IMAGE_SIZE
        f = (w / 2) / math.tan(math.radians(self.fov_deg) / 2)
        return Intrinsics(w, h, f, f, (w - 1) / 2 + self.dcx, (h - 1) / 2 + self.dcy,
                          (self.k1, self.k2, 0.0, 0.0, 0.0))

    def view(self) -> CameraView:
        r = math.radians(self.roll_deg)
        # the up hint (table direction towards the top of the picture), turned by the roll
        up = (math.sin(r), -math.cos(r), 0.0)
        return CameraView.from_look_at(self.intrinsics(), self.eye, self.target, up_hint=up)


DEVELOPMENTS = ("srgb", "filmic", "filmic-bright")


@dataclass(frozen=True)
class Sensor:
    """What the camera does to the light: exposure, white balance, optics and noise.

    wb_error: multiplicative gains (r, g, b) left over after the camera's white balance
    (1, 1, 1 = perfect); vignette: relative darkening at the picture corners; blur_px:
    Gaussian defocus sigma; shot_noise: relative noise at full scale (photon noise grows
    as the square root of the signal); read_noise: in 8-bit levels; jpeg_quality: 1-100;
    noise_seed: which noise; sharpen: unsharp-mask amount of the camera's processing;
    metering: auto exposure by "highlights" (the brightest 1 % just below clipping) or
    "average" (the mean at mid grey: bright paper may clip on a dark table); chromatic:
    lateral chromatic aberration, red drawn (1 + chromatic) times larger than green, blue
    that much smaller; development: how light becomes pixel values, "srgb" (the plain
    sRGB curve), "filmic" (a renderer's filmic view transform, vision.render.sensor) or
    "filmic-bright" (the same a stop brighter).
    """

    exposure: float = 1.0
    wb_error: Vec3 = (1.0, 1.0, 1.0)
    vignette: float = 0.25
    blur_px: float = 0.0
    shot_noise: float = 0.012
    read_noise: float = 1.2
    jpeg_quality: int = 90
    noise_seed: int = 0
    sharpen: float = 0.3
    metering: str = "highlights"
    chromatic: float = 0.0
    # not in the repr: the path tracer (bench/pbr) keys the light it has traced by the
    # spec's repr, and development does not change the light (vision.render.cache adds it)
    development: str = field(default="srgb", repr=False)

    def __post_init__(self):
        if self.development not in DEVELOPMENTS:
            raise SceneError(f"unknown development {self.development!r} (one of: {', '.join(DEVELOPMENTS)})")


@dataclass(frozen=True)
class Surface:
    """The table top: kind is "wood", "cloth" or "felt"; tint scales the base colour;
    scale stretches the pattern; seed picks the pattern."""

    kind: str = "wood"
    seed: int = 0
    tint: Vec3 = (1.0, 1.0, 1.0)
    scale: float = 1.0
    angle_deg: float = 0.0


@dataclass(frozen=True)
class Board:
    """A printed game board lying flat on the table.

    corners: outer corners of the playing area, table mm, in the order first square of
    the first rank (a1), last file of the first rank, last file of the last rank, first
    file of the last rank (as referee.martian_chess.physical's board corners); files ×
    ranks squares; style "checker" (alternating light and dark squares, Spike) or "grid"
    (light squares, dark lines); canal_after_rank draws a thick line after that rank
    (Martian Chess: 4); margin_mm of card around the squares.
    """

    corners: tuple[tuple[float, float], ...] = ((280.0, 480.0), (480.0, 480.0), (480.0, 80.0), (280.0, 80.0))
    files: int = 4
    ranks: int = 8
    style: str = "grid"
    canal_after_rank: int | None = 4
    margin_mm: float = 12.0
    light: Vec3 = (0.62, 0.58, 0.50)
    dark: Vec3 = (0.06, 0.06, 0.07)


@dataclass(frozen=True)
class Hand:
    """A hand (and its forearm) held above the table.

    palm: centre of the palm (x, y, height) mm; direction_deg: where the fingers point on
    the table (the forearm comes from the opposite side, rising towards the picture's
    edge); scale: 1 = an adult hand (palm ~85 mm wide); spread_deg: finger fan; skin:
    linear RGB albedo; sleeve: albedo of a sleeve over the upper forearm (None: bare arm).
    """

    palm: Vec3
    direction_deg: float = 90.0
    scale: float = 1.0
    spread_deg: float = 12.0
    curl: float = 0.3
    skin: Vec3 = (0.38, 0.24, 0.17)
    sleeve: Vec3 | None = None


@dataclass(frozen=True)
class Carried:
    """A piece lifted off the table (held or moving): drawn `height` mm above where its
    pose puts it, tilted by `tilt_deg` about its own centre. Not part of the ground truth."""

    piece: Piece
    height: float = 60.0
    tilt_deg: float = 0.0


@dataclass(frozen=True)
class SceneSpec:
    """One frame. Upright pieces with a `stack` are drawn as a nest (all sizes nested);
    `board` is an optional printed game board under the pieces."""

    pieces: tuple[Piece, ...] = ()
    coins: tuple[Coin, ...] = ()
    occluders: tuple[Hand, ...] = ()
    carried: tuple[Carried, ...] = ()
    board: Board | None = None
    surface: Surface = Surface()
    lamps: tuple[Lamp, ...] = (Lamp((250.0, 150.0, 1100.0)), Lamp((600.0, 450.0, 1000.0), intensity=0.5))
    ambient: float = 0.25
    ambient_kelvin: float = 6000.0
    camera: CameraSpec = CameraSpec()
    sensor: Sensor = Sensor()
    layout: MarkerLayout = field(default_factory=MarkerLayout.default)
    paper_mm: float = 85.0
    seed: int = 0
    # the plastics' back-scatter (Plastic.haze), scaled: 1 our moulded plastic; 0.2 nearly
    # glass-clear, as a path tracer's plain dielectric draws it. Left out of the repr,
    # like the sensor's development, so the path tracer's cache keys stay valid.
    haze: float = field(default=1.0, repr=False)

    def truth(self) -> TableState:
        """The table state a perfect detector reports: nests once (outermost, with stack)."""
        return TableState(tuple(_as_reported(p) for p in self.pieces), tuple(self.coins))

    def view(self) -> CameraView:
        return self.camera.view()

    def frame(self, index: int, **changes) -> "SceneSpec":
        """Frame `index` of a clip: the same table, light and camera with fresh sensor
        noise (a real camera never repeats its noise), plus any field `changes`."""
        return replace(self, sensor=replace(self.sensor, noise_seed=self.seed * 100_003 + index + 1), **changes)


def _as_reported(p: Piece) -> Piece:
    if p.pose is Pose.UPRIGHT and not p.stack:
        return replace(p, stack=(p.size,))
    return replace(p, confidence=1.0)


def nest_sizes(p: Piece) -> tuple[Size, ...]:
    """Sizes drawn for a piece, outermost first (an upright nest draws every size)."""
    return p.stack if (p.pose is Pose.UPRIGHT and p.stack) else (p.size,)


def scene_from_pieces(pieces: Iterable[Piece], coins: Sequence[Coin] = (), *, seed: int = 0,
                      **changes) -> SceneSpec:
    """A scene with exactly these pieces (and coins); light, camera and surface follow
    `seed` like `random_scene`, and `changes` override any SceneSpec field."""
    from vision.render.generate import random_setting

    base = random_setting(seed)
    return replace(base, pieces=tuple(pieces), coins=tuple(coins), **changes)
