"""A SceneSpec turned into solids, materials and lights the tracer can intersect."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.render import surfaces
from vision.render.materials import METALS, PLASTICS, Metal, Plastic, kelvin_rgb
from vision.render.scene import Hand, SceneSpec, nest_sizes
from vision.render.shapes import Capsule, Convex, Cylinder, shell

# How far a nested inner piece may sit off the outer piece's centre / turn: the cavity of
# the next size up leaves ~1.2 mm of play on each side.
NEST_PLAY_MM = 0.8
NEST_TURN_DEG = 4.0
PLASTIC_SPREAD = 0.15   # log-normal spread of a scene's dye strength / albedo per channel


@dataclass(frozen=True)
class Shell:
    outer: Convex
    cavity: Convex
    plastic: Plastic
    on_table: bool          # casts contact shadow / ambient occlusion
    footprint: np.ndarray | None  # xy polygon on the table (for ambient occlusion)
    pips: np.ndarray        # 4 × pips × 3: centres of the dimples on each side face

    @property
    def vertices(self) -> np.ndarray:
        return self.outer.vertices


PIP_UP_MM = 4.0          # pips sit this far up a face from its base edge...
PIP_SPACING_MM = 3.2     # ...side by side this far apart


def pip_centres(outer: Convex, pips: int) -> np.ndarray:
    """Where the pips are on the four side faces of a pyramid (4 × pips × 3), from the
    solid's corners (base corners 0-3 counter-clockwise, apex 4, as shapes._pyramid)."""
    v = outer.vertices
    out = np.empty((4, pips, 3))
    for f, (i, j) in enumerate(((0, 3), (1, 0), (2, 1), (3, 2))):   # base edge of side face f
        mid = (v[i] + v[j]) / 2
        up = (v[4] - mid) / np.linalg.norm(v[4] - mid)
        along = (v[j] - v[i]) / np.linalg.norm(v[j] - v[i])
        for k in range(pips):
            out[f, k] = mid + up * PIP_UP_MM + along * (k - (pips - 1) / 2) * PIP_SPACING_MM
    return out


@dataclass(frozen=True)
class Solid:
    """An opaque object: a shape that rays can hit, and how it looks."""

    shape: object
    kind: str                                   # "plastic" | "metal" | "skin" | "cloth"
    albedo: tuple[float, float, float] = (0.0, 0.0, 0.0)
    metal: Metal | None = None
    footprint: np.ndarray | None = None

    @property
    def vertices(self) -> np.ndarray:
        return self.shape.vertices  # type: ignore[attr-defined]

    def hit(self, o: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Entry t (inf when missed), outward normal there, and which flat face (-1: curved)."""
        if isinstance(self.shape, Convex):
            t_in, t_out, f_in, _ = self.shape.hit(o, d)
            ok = (t_in < t_out) & (t_in > 0)
            return np.where(ok, t_in, np.inf), self.shape.normals[f_in], f_in
        t, n = self.shape.hit(o, d)  # type: ignore[attr-defined]
        return t, n, np.full(len(t), -1)


@dataclass(frozen=True)
class Light:
    position: np.ndarray
    radius: float
    rgb: np.ndarray          # irradiance straight below at 1 m, per channel


@dataclass(frozen=True)
class World:
    shells: list[Shell]
    solids: list[Solid]
    lights: list[Light]
    ambient: np.ndarray      # rgb irradiance of the room
    floor: np.ndarray        # rgb radiance of the table as seen in reflections
    window: float            # how much brighter the room is towards the window
    window_azimuth: float    # radians
    spec: SceneSpec


def scene_plastics(seed: int, haze: float = 1.0) -> dict:
    """This scene's plastics: every colour varied a little (another batch, another maker),
    the same for all pieces of that colour in the scene; translucent ones' back-scatter
    scaled by `haze`."""
    rng = np.random.default_rng([seed, 3])
    out = {}
    for color, p in PLASTICS.items():
        k = np.exp(rng.normal(0, PLASTIC_SPREAD, 3))
        if p.wall is None:
            out[color] = Plastic(None, p.haze, tuple(np.clip(np.array(p.albedo) * k, 0, 0.9)))
        else:  # thicker or thinner dye: the wall's transmission raised to a power
            out[color] = Plastic(tuple(np.array(p.wall) ** k), tuple(np.array(p.haze) * k * haze), p.albedo)
    return out


def _piece_objects(piece, plastics: dict, rng: np.random.Generator, lift=0.0, tilt=0.0, on_table=True):
    plastic = plastics[piece.color]
    fp = np.array(piece.footprint()) if on_table else None
    out_shells, out_solids = [], []
    for k, size in enumerate(nest_sizes(piece)):
        off = rng.uniform(-NEST_PLAY_MM, NEST_PLAY_MM, 2) if k else np.zeros(2)
        turn = rng.uniform(-NEST_TURN_DEG, NEST_TURN_DEG) if k else 0.0
        outer, cavity = shell(piece, size, tuple(off), turn, lift, tilt)
        if plastic.wall is None:
            if k == 0:  # an opaque outer piece hides the rest of its nest
                out_solids.append(Solid(outer, "plastic", plastic.albedo, footprint=fp))
        else:
            out_shells.append(Shell(outer, cavity, plastic, on_table and k == 0, fp if k == 0 else None,
                                    pip_centres(outer, size.pips)))
    return out_shells, out_solids


def hand_capsules(h: Hand) -> list[tuple[Capsule, str, tuple[float, float, float]]]:
    """Forearm (in a sleeve when the hand has one), palm, four fingers and a thumb as
    capsules (mm), fingers pointing along direction: (capsule, material kind, albedo)."""
    s = h.scale
    a = math.radians(h.direction_deg)
    fwd = np.array([math.cos(a), math.sin(a), 0.0])
    side = np.array([-math.sin(a), math.cos(a), 0.0])
    up = np.array([0.0, 0.0, 1.0])
    palm = np.array(h.palm, float)
    skin = lambda cap: (cap, "skin", h.skin)  # noqa: E731
    # forearm from the wrist back and up, upper arm on to a shoulder beside the table, out
    # of the picture (an arm always comes in from outside the view); a sleeve from
    # mid-forearm
    wrist = palm - fwd * 45 * s + up * 8 * s
    elbow = wrist - fwd * 260 * s + up * 160 * s
    shoulder = elbow - fwd * 420 * s + up * 120 * s
    cuff = wrist + (elbow - wrist) * (0.35 if h.sleeve else 1.0)
    parts = [skin(Capsule(cuff, wrist, 28 * s))]
    if h.sleeve:
        parts.append((Capsule(elbow, cuff, 40 * s), "cloth", h.sleeve))
    parts.append((Capsule(shoulder, elbow, 45 * s), "cloth", h.sleeve) if h.sleeve
                 else skin(Capsule(shoulder, elbow, 42 * s)))
    # palm: three fat capsules side by side
    for k in (-1, 0, 1):
        parts.append(skin(Capsule(palm - fwd * 35 * s + side * k * 18 * s, palm + fwd * 30 * s + side * k * 24 * s,
                                  16 * s)))
    for k, ln in enumerate((62, 72, 68, 55)):
        ang = a + math.radians((k - 1.5) * h.spread_deg)
        f = np.array([math.cos(ang), math.sin(ang), 0.0])
        root = palm + fwd * 32 * s + side * (k - 1.5) * 19 * s
        mid = root + f * ln * 0.55 * s - up * h.curl * 12 * s
        tip = mid + f * ln * 0.45 * s - up * h.curl * 22 * s
        parts += [skin(Capsule(root, mid, 8.0 * s)), skin(Capsule(mid, tip, 7.6 * s))]
    thumb_root = palm - fwd * 20 * s - side * 38 * s
    thumb_tip = thumb_root + (fwd * 0.7 - side * 0.7) * 55 * s - up * h.curl * 15 * s
    parts.append(skin(Capsule(thumb_root, thumb_tip, 9.5 * s)))
    return parts


def build_world(spec: SceneSpec) -> World:
    rng = np.random.default_rng(spec.seed + 7919)
    plastics = scene_plastics(spec.seed, spec.haze)
    shells, solids = [], []
    for p in spec.pieces:
        sh, so = _piece_objects(p, plastics, rng)
        shells += sh
        solids += so
    for c in spec.carried:
        sh, so = _piece_objects(c.piece, plastics, rng, c.height, c.tilt_deg, on_table=False)
        shells += sh
        solids += so
    for coin in spec.coins:
        cyl = Cylinder((coin.center[0], coin.center[1], 0.0), coin.kind.diameter / 2, coin.kind.thickness)
        n = 24
        circle = np.array([[coin.center[0] + cyl.radius * math.cos(2 * math.pi * i / n),
                            coin.center[1] + cyl.radius * math.sin(2 * math.pi * i / n)] for i in range(n)])
        solids.append(Solid(cyl, "metal", metal=METALS[coin.kind], footprint=circle))
    for h in spec.occluders:
        for cap, kind, albedo in hand_capsules(h):
            solids.append(Solid(cap, kind, albedo))
    lights = [Light(np.array(l.position, float), l.radius, l.intensity * kelvin_rgb(l.kelvin)) for l in spec.lamps]
    ambient = spec.ambient * kelvin_rgb(spec.ambient_kelvin)
    floor = table_tone(spec) * (ambient + sum(l.rgb * lamp_irradiance(l.position, table_centre(spec)) for l in lights))
    return World(shells, solids, lights, ambient, floor, float(rng.uniform(0.5, 3.0)),
                 float(rng.uniform(-np.pi, np.pi)), spec)


def lamp_irradiance(lamp: np.ndarray, at: np.ndarray) -> float:
    """Irradiance on the table at `at` from a lamp of unit intensity, as the direct light
    computes it (vision.render.lighting): its irradiance at 1 m (1e6 mm²) over the
    squared distance, times the cosine at the table and the cosine of the lamp's
    downward-facing emission."""
    v = np.asarray(lamp, float) - np.asarray(at, float)
    d2 = float(v @ v)
    return 1e6 * max(v[2], 0.0) ** 2 / d2 ** 2


def table_centre(spec: SceneSpec) -> np.ndarray:
    """The middle of the marker layout, on the table."""
    xy = np.mean([m.center for m in spec.layout.markers], axis=0)
    return np.array([xy[0], xy[1], 0.0])


def table_tone(spec: SceneSpec) -> np.ndarray:
    """Mean albedo of the table top (for what plastic and metal reflect of it)."""
    xy = np.random.default_rng(0).uniform((0, 0), (760, 560), (2000, 2))
    return surfaces.table_albedo(spec.surface, xy, 1.0).mean(axis=0)

