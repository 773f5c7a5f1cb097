"""Random but physically valid scenes, reproducible per seed.

>>> spec = random_scene(3)
>>> spec == random_scene(3), 10 <= len(spec.pieces) <= 18
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

import numpy as np
from shapely.geometry import Polygon, box
from shapely.ops import unary_union

from calibration.markers import MarkerLayout
from domain import Coin, CoinKind, Color, Piece, Size
from vision.render.scene import (IMAGE_SIZE, SURFACE_KINDS, CameraSpec, Carried, Hand, Lamp, SceneError, SceneSpec,
                                 Sensor, Surface)
from vision.render.world import hand_capsules

PAPER_RANGE_MM = (72.0, 100.0)     # side of the white sheet each marker is printed on
IMAGE_MARGIN_PX = 12               # the sheets stay at least this far inside the picture
GAP_UPRIGHT_MM = 1.0               # free space kept around an upright piece or coin
GAP_FLAT_MM = 0.4                  # flat pieces may lie almost touching others
PLACEMENT_TRIES = 400
SLEEVE_PROB = 0.6
HAND_CLEARANCE_MM = Size.LARGE.height + 5   # a random hand never touches a piece
# nests (outermost first) and how often each comes up
NESTS = ((Size.LARGE, Size.MEDIUM), (Size.LARGE, Size.MEDIUM, Size.SMALL), (Size.MEDIUM, Size.SMALL),
         (Size.LARGE, Size.SMALL))
NEST_WEIGHTS = (0.3, 0.3, 0.25, 0.15)
SKIN_TONES = ((0.45, 0.29, 0.21), (0.38, 0.24, 0.17), (0.26, 0.15, 0.10), (0.12, 0.07, 0.045), (0.50, 0.34, 0.26))  # linear


def _camera(rng: np.random.Generator, layout: MarkerLayout, paper_mm: float) -> CameraSpec:
    """A camera 0.8-1.1 m up, tilted up to 10°, that sees every marker sheet whole."""
    corners = np.array([(m.center[0] + sx * paper_mm / 2, m.center[1] + sy * paper_mm / 2)
                        for m in layout.markers for sx in (-1, 1) for sy in (-1, 1)])
    mid = corners.mean(axis=0)
    w, h = IMAGE_SIZE
    for attempt in range(200):
        height = rng.uniform(800, 1100)
        tilt = math.radians(rng.uniform(0, 10))
        az = rng.uniform(0, 2 * math.pi)
        target = (mid[0] + rng.uniform(-25, 25), mid[1] + rng.uniform(-20, 20), 0.0)
        off = height * math.tan(tilt)
        cam = CameraSpec(eye=(target[0] + off * math.cos(az), target[1] + off * math.sin(az), height),
                         target=target, fov_deg=rng.uniform(55, 70) + attempt * 0.05,
                         roll_deg=rng.uniform(-4, 4), k1=rng.choice([0.0, rng.uniform(-0.08, 0.04)]),
                         k2=0.0, dcx=rng.uniform(-12, 12), dcy=rng.uniform(-10, 10))
        px = cam.view().project(corners)
        if (px[:, 0].min() > IMAGE_MARGIN_PX and px[:, 0].max() < w - IMAGE_MARGIN_PX
                and px[:, 1].min() > IMAGE_MARGIN_PX and px[:, 1].max() < h - IMAGE_MARGIN_PX):
            return cam
    raise SceneError("no camera 0.8-1.1 m up sees the whole marker layout: is it larger than about 0.9 × 0.7 m?")


WINDOW_PROB = 0.3   # share of scenes lit mainly through a window: a big, far, low source


def _lamps(rng: np.random.Generator) -> tuple[Lamp, ...]:
    n = int(rng.integers(1, 4))
    lamps = []
    for k in range(n):
        if k == 0 and rng.random() < WINDOW_PROB:
            side = rng.uniform(0, 2 * np.pi)
            lamps.append(Lamp(position=(380 + 1800 * np.cos(side), 280 + 1800 * np.sin(side), rng.uniform(900, 1800)),
                              radius=rng.uniform(300, 600), intensity=rng.uniform(4.0, 10.0),
                              kelvin=rng.uniform(5000, 6500)))
            continue
        lamps.append(Lamp(position=(rng.uniform(-300, 1060), rng.uniform(-300, 860), rng.uniform(700, 1600)),
                          radius=rng.uniform(25, 150), intensity=rng.uniform(0.5, 1.5) * (0.6 if k else 1.0),
                          kelvin=rng.uniform(2700, 6500)))
    return tuple(lamps)


def _sensor(rng: np.random.Generator, seed: int) -> Sensor:
    wb = np.exp(rng.normal(0, 0.07, 3))
    return Sensor(exposure=rng.uniform(0.65, 1.15), wb_error=tuple(wb / wb[1]),
                  vignette=rng.uniform(0.08, 0.45), blur_px=rng.choice([0.0, rng.uniform(0.25, 0.7)], p=[0.6, 0.4]),
                  shot_noise=rng.uniform(0.006, 0.025), read_noise=rng.uniform(0.6, 3.0),
                  jpeg_quality=int(rng.integers(75, 96)), noise_seed=seed, sharpen=rng.uniform(0.0, 0.7),
                  metering=str(rng.choice(["highlights", "average"])), chromatic=rng.uniform(0.0, 0.0012))


def random_setting(seed: int, surface: str | None = None, layout: MarkerLayout | None = None) -> SceneSpec:
    """An empty table: surface, paper, lamps, camera and sensor drawn from `seed`."""
    rng = np.random.default_rng([seed, 1])
    layout = layout or MarkerLayout.default()
    if surface is not None and surface not in SURFACE_KINDS:
        raise SceneError(f"unknown surface {surface!r} (one of: {', '.join(SURFACE_KINDS)})")
    kind = surface or str(rng.choice(SURFACE_KINDS))
    surf = Surface(kind, seed=int(rng.integers(1 << 30)), tint=tuple(np.exp(rng.normal(0, 0.08, 3))),
                   scale=rng.uniform(0.8, 1.3), angle_deg=rng.uniform(-12, 12) + rng.choice([0, 90]))
    paper_mm = rng.uniform(*PAPER_RANGE_MM)
    return SceneSpec(surface=surf, lamps=_lamps(rng), ambient=rng.uniform(0.08, 0.4),
                     ambient_kelvin=rng.uniform(4000, 7500), camera=_camera(rng, layout, paper_mm),
                     sensor=_sensor(rng, seed), layout=layout, paper_mm=paper_mm, seed=seed)


def calibration_scene(spec: SceneSpec, colours: Sequence[str]) -> SceneSpec:
    """The picture `pyramid-referee calibrate-colours` asks for, on `spec`'s table under
    its light: one medium upright of each of `colours`, in a row 100 mm apart across the
    table's middle, each turned 20° more than the last.

    >>> [(p.color.value, p.center) for p in calibration_scene(SceneSpec(), ["red", "blue"]).pieces]
    [('red', (350.0, 280.0)), ('blue', (450.0, 280.0))]
    """
    first = 400.0 - 50.0 * (len(colours) - 1)
    return replace(spec, pieces=tuple(Piece.upright(f"c{i}", c, Size.MEDIUM, (first + 100.0 * i, 280.0), 20.0 * i)
                                      for i, c in enumerate(colours)))


def _placement_area(layout: MarkerLayout, paper_mm: float):
    """Inside the rectangle of marker centres, off the marker sheets."""
    xs = [m.center[0] for m in layout.markers]
    ys = [m.center[1] for m in layout.markers]
    area = box(min(xs), min(ys), max(xs), max(ys))
    half = paper_mm / 2 + 4
    sheets = unary_union([box(m.center[0] - half, m.center[1] - half, m.center[0] + half, m.center[1] + half)
                          for m in layout.markers])
    return area.difference(sheets)


def random_scene(seed: int, n_pieces: tuple[int, int] | int = (10, 18),
                 colors: Sequence[str] = ("red", "yellow", "green", "blue"), *,
                 surface: str | None = None, nest_prob: float = 0.2, flat_prob: float = 0.35,
                 coins: tuple[int, int] | int = 0, hands: int = 0, carried: int = 0, crowd: float = 0.3,
                 layout: MarkerLayout | None = None) -> SceneSpec:
    """A random table: `n_pieces` (a count or an inclusive range) pyramids of `colors`,
    a mix of upright singles, upright nests (probability `nest_prob`) and flat pieces
    (`flat_prob`) with random headings; optional coins, hands held above the table and
    pieces being carried. Each piece or coin is put right next to one already placed
    with probability `crowd` (clusters, near-touching pieces), else anywhere. Pieces
    never overlap and stay inside the marker rectangle."""
    base = random_setting(seed, surface, layout)
    rng = np.random.default_rng([seed, 2])
    if isinstance(colors, str):  # one colour, or "red,blue"
        colors = colors.split(",")
    try:
        colors = [Color(c) for c in colors]
    except ValueError:
        raise SceneError(f"unknown colour in {list(colors)} (one of: {', '.join(c.value for c in Color)})") from None
    if not colors:
        raise SceneError("random_scene needs at least one colour")
    n = int(n_pieces) if isinstance(n_pieces, int) else int(rng.integers(n_pieces[0], n_pieces[1] + 1))
    n_coins = int(coins) if isinstance(coins, int) else int(rng.integers(coins[0], coins[1] + 1))
    area = _placement_area(base.layout, base.paper_mm)
    x0, y0, x1, y1 = area.bounds
    taken = []
    pieces: list[Piece] = []
    coin_list: list[Coin] = []
    for k in range(n + n_coins):
        huddle = bool(taken) and rng.random() < crowd
        for attempt in range(PLACEMENT_TRIES):
            if huddle and attempt < PLACEMENT_TRIES // 2:  # right next to something already there
                c = taken[int(rng.integers(len(taken)))].centroid
                a = rng.uniform(0, 2 * math.pi)
                r = rng.uniform(10, 35)
                xy = (c.x + r * math.cos(a), c.y + r * math.sin(a))
            else:
                xy = (rng.uniform(x0, x1), rng.uniform(y0, y1))
            if k >= n:
                kind = CoinKind(rng.choice(["penny", "nickel"]))
                item = Coin(f"c{len(coin_list) + 1}", kind, xy)
                shape = Polygon(_circle(xy, kind.diameter / 2)).buffer(GAP_UPRIGHT_MM)
            else:
                item = _random_piece(rng, f"p{k + 1}", colors, xy, nest_prob, flat_prob)
                gap = GAP_FLAT_MM if item.pose.value == "flat" else GAP_UPRIGHT_MM
                shape = Polygon(item.footprint()).buffer(gap)
            if area.contains(shape) and not any(shape.intersects(t) for t in taken):
                taken.append(shape)
                (coin_list if k >= n else pieces).append(item)
                break
    occluders = tuple(_random_hand(rng, x0, y0, x1, y1) for _ in range(hands))
    held = tuple(_random_carried(rng, f"h{j + 1}", colors, occluders, x0, y0, x1, y1) for j in range(carried))
    return replace(base, pieces=tuple(pieces), coins=tuple(coin_list), occluders=occluders, carried=held)


def _circle(c, r, n=24):
    return [(c[0] + r * math.cos(2 * math.pi * i / n), c[1] + r * math.sin(2 * math.pi * i / n)) for i in range(n)]


def _random_piece(rng, pid, colors, xy, nest_prob, flat_prob) -> Piece:
    color = colors[int(rng.integers(len(colors)))]
    size = Size(rng.choice(["small", "medium", "large"]))
    r = rng.random()
    if r < flat_prob:
        heading = rng.uniform(0, 360)
        # xy is where the footprint's middle lands: put the tail half a length behind it
        back = size.slant / 2
        tail = (xy[0] - back * math.cos(math.radians(heading)), xy[1] - back * math.sin(math.radians(heading)))
        return Piece.flat(pid, color, size, tail, heading)
    stack: tuple[Size, ...] = ()
    if r < flat_prob + nest_prob:
        stack = NESTS[int(rng.choice(len(NESTS), p=NEST_WEIGHTS))]
        size = stack[0]
    return Piece.upright(pid, color, size, xy, rng.uniform(0, 90), stack=stack)


def _random_hand(rng, x0, y0, x1, y1) -> Hand:
    palm = (rng.uniform(x0, x1), rng.uniform(y0, y1), rng.uniform(70, 220))
    # the arm comes in from the nearest picture edge, so fingers point inwards
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    inward = math.degrees(math.atan2(cy - palm[1], cx - palm[0]))
    skin = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
    sleeve = (tuple(np.clip(rng.uniform(0.02, 0.6) * np.exp(rng.normal(0, 0.4, 3)), 0, 0.9))
              if rng.random() < SLEEVE_PROB else None)
    hand = Hand(palm, direction_deg=inward + rng.uniform(-50, 50), scale=rng.uniform(0.85, 1.1),
                spread_deg=rng.uniform(5, 18), curl=rng.uniform(0.1, 0.8), skin=skin, sleeve=sleeve)
    # curled fingers reach down: keep the whole hand above the tallest piece
    lowest = min(min(c.a[2], c.b[2]) - c.r for c, _, _ in hand_capsules(hand))
    lift = max(HAND_CLEARANCE_MM - lowest, 0.0)
    return replace(hand, palm=(palm[0], palm[1], palm[2] + lift))


def _random_carried(rng, pid, colors, hands, x0, y0, x1, y1) -> Carried:
    color = colors[int(rng.integers(len(colors)))]
    size = Size(rng.choice(["small", "medium", "large"]))
    if hands:  # held under the fingertips of the first hand
        h = hands[0]
        a = math.radians(h.direction_deg)
        xy = (h.palm[0] + 95 * h.scale * math.cos(a), h.palm[1] + 95 * h.scale * math.sin(a))
        height = max(h.palm[2] - 45 - size.height, 5.0)
    else:
        xy, height = (rng.uniform(x0, x1), rng.uniform(y0, y1)), rng.uniform(15, 120)
    return Carried(Piece.upright(pid, color, size, xy, rng.uniform(0, 90)), height, rng.uniform(-25, 25))
