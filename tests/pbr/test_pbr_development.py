"""The path-traced pictures' camera (bench/pbr/render.py `develop`): the plain development
and the others bench_pbr measures the detector under, checked on made-up light."""

import numpy as np
import pytest

from bench.pbr.render import Development, develop, illuminant
from calibration.srgb import LINEAR
from vision.render import random_scene


def _light(spec) -> np.ndarray:
    """Paper-white light on the left half, ink-dark (4 %) on the right, under the spec's lamps."""
    light = np.ones((96, 128, 3), np.float32)
    light[:, 64:] = 0.04
    return light * illuminant(spec).astype(np.float32)


def _levels(image: np.ndarray) -> tuple[float, float]:
    return float(image[:, 8:56].mean()), float(image[:, 72:120].mean())


def test_agx_lifts_the_darks_and_lowers_the_paper_against_srgb():
    spec = random_scene(9200)
    light = _light(spec)
    paper, ink = _levels(develop(light, spec, 1)[0])
    agx_paper, agx_ink = _levels(develop(light, spec, 1, Development(view="agx"))[0])
    assert paper > 235 and agx_paper < paper - 20        # AgX keeps highlights off white
    assert agx_ink > ink + 3                             # and lifts the shadows
    assert agx_ink / agx_paper > 1.25 * ink / paper      # a flatter picture


def test_a_stop_darker_halves_the_light():
    spec = random_scene(9200)
    light = _light(spec)
    plain = develop(light, spec, 1)[0]
    dark = develop(light, spec, 1, Development(stops=-1.0))[0]
    linear = [LINEAR[v][:, 8:56].mean() for v in (plain, dark)]
    assert abs(linear[1] / linear[0] - 0.5) < 0.03


def test_defocus_spreads_an_edge_and_jpeg_quality_is_used():
    spec = random_scene(9200)
    light = _light(spec)
    sharp = develop(light, spec, 1)[0].mean(axis=(0, 2))
    soft = develop(light, spec, 1, Development(blur_px=2.0))[0].mean(axis=(0, 2))
    assert np.count_nonzero(np.abs(np.diff(soft)) > 5) > np.count_nonzero(np.abs(np.diff(sharp)) > 5)
    assert len(develop(light, spec, 1, Development(jpeg_quality=40))[1]) < len(develop(light, spec, 1)[1])


def test_a_cast_leaves_the_paper_tinted_by_its_gains():
    spec = random_scene(9200)
    light = _light(spec)
    plain = develop(light, spec, 1, Development(stops=-1.0))[0]          # a stop under: nothing clips
    warm = develop(light, spec, 1, Development(stops=-1.0, cast=(1.5, 1.0, 0.6)))[0]
    gain = LINEAR[warm][:, 8:56].mean(axis=(0, 1)) / LINEAR[plain][:, 8:56].mean(axis=(0, 1))   # b, g, r
    assert gain / gain[1] == pytest.approx([0.6, 1.0, 1.5], rel=0.03)
