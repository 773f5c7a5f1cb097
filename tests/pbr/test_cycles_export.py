"""The spec → Blender Cycles hand-over (bench/cycles/export.py), checked without Blender;
and, where Blender's Python is installed (`make cycles`), one small scene rendered."""

import numpy as np
import pytest

from bench.cycles import export
from bench.cycles import render as cycles
from bench.pbr import scene as S
from bench.pbr.render import develop
from vision.evaluate import Score
from vision.pipeline import Detector
from vision.render import random_scene


def _blender_pixels(matrix: np.ndarray, film: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Where Blender's pinhole camera (looking down its -z, y up, horizontal sensor fit)
    puts table points, in pixel-centre coordinates of the picture flipped left to right
    as blender_scene.render saves it."""
    w, h, f = film
    cam = (np.linalg.inv(matrix) @ np.column_stack([points, np.ones(len(points))]).T).T[:, :3]
    x = w / 2 + f * cam[:, 0] / -cam[:, 2]       # from the left edge, pixel corners
    y = h / 2 - f * cam[:, 1] / -cam[:, 2]       # from the top edge
    return np.column_stack([w - x - 0.5, y - 0.5])


@pytest.mark.parametrize("seed", [9200, 9217])
def test_the_blender_camera_sees_the_table_where_the_film_does(seed):
    spec = random_scene(seed)
    fl = S.film(spec)
    arrays = export.scene_arrays(spec)
    assert np.linalg.det(arrays["camera_matrix"][:3, :3]) == pytest.approx(1.0)   # a rotation, no mirror
    points = np.array([[60.0, 60.0, 0.0], [700.0, 80.0, 0.0], [380.0, 280.0, 44.45], [120.0, 500.0, 0.0]])
    # the film as bench.pbr.scene describes it: OpenCV's pinhole at the eye, the view's axes
    R = np.asarray(spec.view().rotation)
    rel = (points - np.array(fl.eye)) * [1.0, 1.0, -1.0]   # the view's frame: z down into the table
    cv = rel @ R.T
    expected = (fl.K @ (cv / cv[:, 2:3]).T).T[:, :2]
    assert _blender_pixels(arrays["camera_matrix"], arrays["film"], points) == pytest.approx(expected, abs=1e-6)


def test_every_piece_coin_lamp_and_sheet_is_handed_over():
    spec = random_scene(7900, coins=(2, 4), colors=("red", "black", "white", "clear"))
    arrays = export.scene_arrays(spec)
    meshes = S.piece_meshes(spec)
    assert int(arrays["pieces"]) == len(meshes)
    kinds = [str(arrays[f"piece{k}_kind"]) for k in range(len(meshes))]
    assert kinds == ["opaque" if m.sigma is None else "translucent" for m in meshes]
    for k, m in enumerate(meshes):
        colour = arrays[f"piece{k}_colour"]
        assert np.all((colour >= 0) & (colour <= 1))
        if m.sigma is not None:   # what one wall lets through
            assert colour == pytest.approx(np.exp(-m.sigma * S.WALL_MM))
    assert int(arrays["coins"]) == len(spec.coins) >= 2
    assert arrays["lamps"].shape == (len(spec.lamps), 7)
    assert int(arrays["sheets"]) == len(spec.layout.markers)
    for k, m in enumerate(spec.layout.markers):   # the sheet square around its marker
        assert arrays[f"sheet{k}_vertices"][:, :2].mean(axis=0) == pytest.approx(m.center)
    x0, y0, x1, y1 = S.table_bounds(spec, S.film(spec))
    ny, nx = arrays["table_texture"].shape[:2]
    assert (nx, ny) == (int((x1 - x0) * S.TEXELS_PER_MM), int((y1 - y0) * S.TEXELS_PER_MM))
    # the texture's 0-1 coordinates span those bounds on the table top
    uv, xy = arrays["table_uv"], arrays["table_vertices"][:, :2]
    assert (xy - [x0, y0]) / [x1 - x0, y1 - y0] == pytest.approx(uv)


def test_solid_pieces_are_the_shells_outer_solids_and_are_cached_apart():
    spec = random_scene(7900, colors=("red", "black", "green"))
    shells, solids = export.scene_arrays(spec), export.scene_arrays(spec, solid=True)
    for k in range(int(shells["pieces"])):
        outer, faces = shells[f"piece{k}_vertices"], shells[f"piece{k}_faces"]
        if str(shells[f"piece{k}_kind"]) == "translucent":   # a hollow shell: outer and cavity corners
            assert (len(outer), len(faces)) == (10, 16)
            assert solids[f"piece{k}_vertices"] == pytest.approx(outer[:5])
            assert solids[f"piece{k}_faces"].tolist() == S.SOLID_FACES.tolist()
        else:   # opaque pieces were solid already
            assert solids[f"piece{k}_vertices"] == pytest.approx(outer)
        assert solids[f"piece{k}_colour"] == pytest.approx(shells[f"piece{k}_colour"])
    assert cycles._cache_path(7900, spec, 32) != cycles._cache_path(7900, spec, 32, solid=True)


@pytest.mark.skipif(not cycles.available(), reason="needs Blender's Python module (make cycles)")
def test_a_cycles_picture_registers_where_the_camera_is_and_shows_the_pieces():
    spec = random_scene(9201)
    image, _ = develop(cycles.render_radiance(spec, samples=4), spec, 0)
    detection = Detector(spec.layout, spec.camera.intrinsics()).detect(image)
    probes = np.array([[100.0, 100.0, 0.0], [660.0, 460.0, 0.0]])
    seen = detection.registration.view.project(probes)
    assert seen == pytest.approx(spec.view().project(probes), abs=1.5)   # px
    score = Score()
    score.add(spec.truth(), detection.state)
    assert score.n_matched >= 0.8 * score.n_truth
