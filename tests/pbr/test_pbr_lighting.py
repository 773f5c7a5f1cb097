"""The path-traced scenes lit otherwise (bench/pbr/render.py `relit`), as bench_pbr measures
the detector under them: a softbox keeps each lamp where it is, a sun is one far lamp as
bright on the layout as the first, a bulb the first lamp alone, small, in a room of its colour."""

import numpy as np
import pytest

from bench.pbr.render import BULB_RADIUS_MM, SOFTBOX_RADIUS_MM, SUN_DISTANCE_MM, relit
from vision.render import random_scene


def _irradiance_at_middle(spec, lamp) -> float:
    middle = np.array([*np.mean([m.center for m in spec.layout.markers], axis=0), 0.0])
    to_lamp = np.array(lamp.position) - middle
    d = np.linalg.norm(to_lamp)
    return lamp.intensity * (1000 / d) ** 2 * to_lamp[2] / d


def test_softboxes_are_the_same_lamps_bigger():
    spec = random_scene(9200)
    soft = relit(spec, "softbox")
    assert [l.position for l in soft.lamps] == [l.position for l in spec.lamps]
    assert [l.intensity for l in soft.lamps] == [l.intensity for l in spec.lamps]
    assert all(l.radius == SOFTBOX_RADIUS_MM for l in soft.lamps)
    assert soft.pieces == spec.pieces and relit(spec, "lamps") is spec


def test_the_sun_is_one_far_lamp_as_bright_on_the_table_from_the_first_lamps_side():
    spec = random_scene(9203)
    sun = relit(spec, "sun")
    assert len(sun.lamps) == 1
    lamp, first = sun.lamps[0], spec.lamps[0]
    middle = np.array([*np.mean([m.center for m in spec.layout.markers], axis=0), 0.0])
    to_sun, to_first = np.array(lamp.position) - middle, np.array(first.position) - middle
    assert np.linalg.norm(to_sun) == pytest.approx(SUN_DISTANCE_MM)
    assert np.dot(to_sun, to_first) / np.linalg.norm(to_sun) / np.linalg.norm(to_first) == pytest.approx(1.0)
    assert _irradiance_at_middle(sun, lamp) == pytest.approx(_irradiance_at_middle(spec, first))
    # near parallel light: across the layout the sun's direction turns ~2°, a lamp's ~35°
    corners = np.array([[*m.center, 0.0] for m in spec.layout.markers])

    def turn(position) -> float:
        rays = np.array(position) - corners
        rays /= np.linalg.norm(rays, axis=1, keepdims=True)
        return float(np.degrees(np.arccos(np.clip(rays @ rays.T, -1, 1))).max())
    assert turn(lamp.position) < 2.5 and turn(first.position) > 20


def test_a_bulb_is_the_first_lamp_alone_small_in_a_room_of_its_colour():
    spec = random_scene(9204)
    bulb = relit(spec, "bulb")
    (lamp,) = bulb.lamps
    first = spec.lamps[0]
    assert lamp.position == first.position and lamp.intensity == first.intensity
    assert lamp.radius == BULB_RADIUS_MM < first.radius
    # the room takes the bulb's colour (a renderer's grey world): shadows are not bluer
    assert bulb.ambient_kelvin == first.kelvin and bulb.ambient == spec.ambient
    assert bulb.pieces == spec.pieces


def test_an_unknown_lighting_is_refused():
    with pytest.raises(ValueError, match="softbox"):
        relit(random_scene(9200), "candles")


def test_a_scene_counts_as_cached_only_once_its_radiance_is_kept_under_its_own_key(monkeypatch, tmp_path):
    # bench_accuracy_sets reads the path-traced sets only when every scene is cached
    from bench.pbr import render as pbr
    monkeypatch.setattr(pbr, "CACHE_DIR", tmp_path)
    assert not pbr.cached(9200)
    spec = random_scene(9200)
    np.save(pbr._cache_path(9200, spec, pbr.SPP), np.zeros((2, 2, 3), np.float16))
    assert pbr.cached(9200)
    assert not pbr.cached(9200, lighting="sun") and not pbr.cached(9201)
    assert not pbr.cached(9200, spp=4 * pbr.SPP)   # the cleaner set's renders are others
    monkeypatch.setattr(pbr, "WALLS", "thick" if pbr.WALLS == "thin" else "thin")
    assert not pbr.cached(9200)   # the other wall model is another render
