"""The spec → Mitsuba conversion's geometry (bench/pbr/scene.py), checked without rendering."""

import math
from collections import Counter

import numpy as np
import pytest

from bench.pbr import scene as S
from domain import Size
from vision.render import random_scene, scene_from_pieces
from domain import Piece
from vision.render.shapes import WALL_MM


def _shell_volume(size: Size) -> float:
    a, h = size.base / 2, size.height
    slant = math.hypot(a, h)
    a_in, h_in = a - WALL_MM * slant / h, h - WALL_MM * slant / a
    return (4 * a * a * h - 4 * a_in * a_in * h_in) / 3


@pytest.mark.parametrize("seed", [9200, 9203])
def test_shells_are_closed_outward_and_the_right_volume(seed):
    spec = random_scene(seed, nest_prob=0.5)
    meshes = S.piece_meshes(spec)
    sizes = [s for p in spec.pieces for s in (p.stack if p.stack else (p.size,))]
    assert len(meshes) == len(sizes)
    for m, size in zip(meshes, sizes):
        edges = Counter(tuple(sorted((f[i], f[(i + 1) % 3]))) for f in m.faces for i in range(3))
        assert set(edges.values()) == {2}            # closed: every edge between two faces
        assert S.signed_volume(m.vertices, m.faces) == pytest.approx(_shell_volume(size), rel=1e-6)
        assert m.vertices[:, 2].min() == pytest.approx(S.LIFT_MM)


def test_nested_pieces_sit_inside_the_cavity_around_them():
    spec = scene_from_pieces([Piece.upright("a", "red", "large", (380, 280), 20, stack=("large", "medium", "small"))],
                             seed=3)
    outer, mid, inner = S.piece_meshes(spec)
    assert S._inside(mid.vertices[:5], outer.vertices[5:], 0.0)
    assert S._inside(inner.vertices[:5], mid.vertices[5:], 0.0)


def test_film_map_sends_each_picture_pixel_to_the_pinhole_projection():
    spec = random_scene(9201)
    assert spec.camera.k1 != 0 or spec.camera.dcx != 0
    fl = S.film(spec)
    mx, my = S.film_map(spec, fl)
    view = spec.view()
    pts = np.array([[100.0, 80.0, 0.0], [380.0, 280.0, 30.0], [650.0, 500.0, 0.0]])
    pix = np.round(view.project(pts)).astype(int)
    # the pinhole projection of the rays through those (rounded) pixels, on the film
    rays = view.undistort_pixels(pix.astype(float))
    film_px = rays * fl.f + [(fl.width - 1) / 2, (fl.height - 1) / 2]
    got = np.column_stack([mx[pix[:, 1], pix[:, 0]], my[pix[:, 1], pix[:, 0]]])
    assert np.abs(got - film_px).max() < 1e-3
    assert (got > 0).all() and (got[:, 0] < fl.width - 1).all() and (got[:, 1] < fl.height - 1).all()


def test_lamp_disc_gives_the_specs_irradiance_at_one_metre():
    spec = random_scene(9202)
    for lamp, disc in zip(spec.lamps, S.lamps(spec)):
        e = math.pi * disc.radiance * disc.radius ** 2 / 1000.0 ** 2
        lum = 0.2126 * e[0] + 0.7152 * e[1] + 0.0722 * e[2]
        assert lum == pytest.approx(lamp.intensity, rel=1e-6)


def test_coins_are_closed_discs_of_their_size_where_the_spec_puts_them():
    spec = random_scene(7901, coins=(2, 4))
    meshes = S.coin_meshes(spec)
    assert [m.kind for m in meshes] == [c.kind for c in spec.coins]
    for m, coin in zip(meshes, spec.coins):
        edges = Counter(tuple(sorted((f[i], f[(i + 1) % 3]))) for f in m.faces for i in range(3))
        assert set(edges.values()) == {2}
        r, t = coin.kind.diameter / 2, coin.kind.thickness
        polygon = 0.5 * S.COIN_SEGMENTS * math.sin(2 * math.pi / S.COIN_SEGMENTS) * r * r   # the 96-gon's area
        assert S.signed_volume(m.vertices, m.faces) == pytest.approx(polygon * t, rel=1e-9)
        assert np.allclose(m.vertices[:, :2].mean(axis=0), coin.center)
        assert m.vertices[:, 2].min() == pytest.approx(S.LIFT_MM) and m.vertices[:, 2].max() == pytest.approx(S.LIFT_MM + t)


def test_each_coin_is_worn_its_own_way_and_the_same_every_time():
    from bench.pbr import render as R

    spec = random_scene(7901, coins=(2, 4))
    looks = [R._metal(m) for m in S.coin_meshes(spec)]
    assert looks == [R._metal(m) for m in S.coin_meshes(spec)]
    assert len({look["alpha"] for look in looks}) == len(looks)
    for look, coin in zip(looks, spec.coins):
        assert R.COIN_ROUGHNESS[0] <= look["alpha"] <= R.COIN_ROUGHNESS[1]
        low, high = R.COIN_TARNISH[coin.kind]
        assert low <= look["specular_reflectance"]["value"][0] <= high
        assert look["material"] == R.METAL[coin.kind]
