"""Registration on the renderer's scenes (vision.render): cameras, lamps, lenses and
pieces we did not draw ourselves. Tolerances are about twice the worst seen over seeds 1-8."""

import numpy as np
import pytest

from calibration.registration import register

render = pytest.importorskip("vision.render")

SEEDS = range(1, 7)
PROBES = np.array([(65, 65), (695, 65), (695, 495), (65, 495), (380, 280), (200, 400)], float)
LARGE_APEX_MM = 44.45


def table_error(estimated, truth, height):
    """Worst error (mm) locating PROBES at `height` from where the true camera sees them."""
    seen = truth.project(PROBES, height=height)
    return float(np.abs(estimated.image_to_table(seen, height=height) - PROBES).max())


@pytest.fixture(scope="module", params=SEEDS)
def scene(request):
    spec = render.random_scene(request.param)
    return spec, render.render_cached(spec)


def test_with_the_true_lens_table_points_are_within_half_a_millimetre(scene):
    spec, r = scene
    reg = register(r.image, spec.layout, r.view.intrinsics)
    assert reg.markers_seen == sorted(spec.layout.ids)
    assert table_error(reg.view, r.view, 0.0) < 0.5
    assert table_error(reg.view, r.view, LARGE_APEX_MM) < 0.6


def test_without_the_lens_the_apex_of_a_large_pyramid_is_placed_within_a_few_mm(scene):
    spec, r = scene
    reg = register(r.image, spec.layout)
    assert abs(reg.view.intrinsics.fx / r.view.intrinsics.fx - 1) < 0.25
    assert table_error(reg.view, r.view, 0.0) < 1.0
    # the uncorrected lean is ~20 mm at the layout's corners; what is left must be small
    assert table_error(reg.view, r.view, LARGE_APEX_MM) < 4.0
