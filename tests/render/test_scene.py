"""Scene generation: valid, reproducible scenes and exact pyramid geometry (no rendering)."""

import math

import numpy as np
import pytest
from shapely.geometry import Polygon, box

from calibration.markers import MarkerLayout
from domain import Piece, Pose, Size
from vision.render import random_scene, scene_from_pieces
from vision.render.scene import IMAGE_SIZE
from vision.render.shapes import shell

SEEDS = range(25)


def test_same_seed_same_scene_and_different_seeds_differ():
    assert random_scene(11) == random_scene(11)
    assert hash(random_scene(11)) == hash(random_scene(11))
    assert random_scene(11) != random_scene(12)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_scenes_are_physically_valid(seed):
    spec = random_scene(seed, coins=(0, 3))
    assert 10 <= len(spec.pieces) <= 18
    layout = spec.layout
    xs = [m.center[0] for m in layout.markers]
    ys = [m.center[1] for m in layout.markers]
    marker_area = box(min(xs), min(ys), max(xs), max(ys))
    sheets = [box(m.center[0] - spec.paper_mm / 2, m.center[1] - spec.paper_mm / 2,
                  m.center[0] + spec.paper_mm / 2, m.center[1] + spec.paper_mm / 2) for m in layout.markers]
    shapes = [Polygon(p.footprint()) for p in spec.pieces]
    shapes += [Polygon([(c.center[0] + c.kind.diameter / 2 * math.cos(a), c.center[1] + c.kind.diameter / 2 * math.sin(a))
                        for a in np.linspace(0, 2 * math.pi, 32, endpoint=False)]) for c in spec.coins]
    for i, s in enumerate(shapes):
        assert marker_area.contains(s)
        assert not any(s.intersects(sheet) for sheet in sheets)
        for t in shapes[i + 1:]:
            assert not s.intersects(t), "two things on the table overlap"
    ids = [p.id for p in spec.pieces] + [c.id for c in spec.coins]
    assert len(ids) == len(set(ids))


def test_scenes_mix_uprights_nests_and_flat_pieces_with_all_headings():
    pieces = [p for seed in SEEDS for p in random_scene(seed).pieces]
    flat = [p for p in pieces if p.pose is Pose.FLAT]
    nests = [p for p in pieces if len(p.stack) > 1]
    singles = [p for p in pieces if p.pose is Pose.UPRIGHT and len(p.stack) <= 1]
    assert len(flat) > 0.2 * len(pieces) and len(nests) > 0.1 * len(pieces) and len(singles) > 0.2 * len(pieces)
    quadrants = {int(p.heading // 90) for p in flat}
    assert quadrants == {0, 1, 2, 3}
    for n in nests:  # outermost first, strictly smaller inside
        assert all(a.base > b.base for a, b in zip(n.stack, n.stack[1:]))


def test_truth_reports_nests_once_with_their_stack():
    nest = Piece.upright("n", "blue", "large", (300, 300), 30, stack=("large", "medium", "small"))
    single = Piece.upright("s", "red", "small", (400, 300), 10)
    truth = scene_from_pieces([nest, single], seed=3).truth()
    assert [p.id for p in truth.pieces] == ["n", "s"]
    assert truth.piece("n").stack == (Size.LARGE, Size.MEDIUM, Size.SMALL)
    assert truth.piece("s").stack == (Size.SMALL,)


@pytest.mark.parametrize("seed", range(30))
def test_camera_sees_every_marker_sheet_from_the_stated_range(seed):
    spec = random_scene(seed, n_pieces=0)
    cam = spec.camera
    assert 800 <= cam.eye[2] <= 1100
    tilt = math.degrees(math.atan2(math.hypot(cam.eye[0] - cam.target[0], cam.eye[1] - cam.target[1]), cam.eye[2]))
    assert tilt <= 10.0 + 1e-9
    assert 55 <= cam.fov_deg <= 71
    view = spec.view()
    h = spec.paper_mm / 2
    for m in spec.layout.markers:
        px = view.project([(m.center[0] + sx * h, m.center[1] + sy * h) for sx in (-1, 1) for sy in (-1, 1)])
        assert (px >= 0).all() and (px[:, 0] < IMAGE_SIZE[0]).all() and (px[:, 1] < IMAGE_SIZE[1]).all()


@pytest.mark.parametrize("size", list(Size))
def test_flat_pyramid_lies_on_a_face_with_the_facts_md_geometry(size):
    p = Piece.flat("f", "green", size, (200.0, 150.0), 33.0)
    outer, _ = shell(p)
    verts = outer.vertices
    on_table = verts[np.abs(verts[:, 2]) < 1e-9]
    raised = verts[verts[:, 2] > 1e-6]
    assert len(on_table) == 3 and len(raised) == 2
    assert np.allclose(raised[:, 2], size.flat_raised_height)
    # every vertex seen from above is a corner of the domain's footprint pentagon
    foot = np.array(p.footprint())
    for v in verts:
        assert np.min(np.linalg.norm(foot - v[:2], axis=1)) < 1e-6
    apex = verts[np.argmin(np.linalg.norm(verts[:, :2] - np.array(p.nose), axis=1))]
    assert apex[2] == pytest.approx(0.0, abs=1e-9)


def test_upright_pyramid_has_the_domain_dimensions():
    p = Piece.upright("u", "red", "medium", (100.0, 100.0), 20.0)
    outer, cavity = shell(p)
    assert outer.vertices[:, 2].max() == pytest.approx(Size.MEDIUM.height)
    assert np.allclose(sorted(map(tuple, np.round(outer.vertices[:4, :2], 6))),
                       sorted(map(tuple, np.round(p.footprint(), 6))))
    # the wall is 1.5 mm thick: a point 1 mm inside a face is plastic, 2 mm inside is air
    n = outer.normals[0]
    on_face = np.array([100.0, 100.0, 10.0])
    on_face = on_face + n * (outer.offsets[0] - n @ on_face)
    inside = lambda c, q: bool(np.all(c.normals @ q <= c.offsets + 1e-9))
    assert inside(outer, on_face - n * 1.0) and not inside(cavity, on_face - n * 1.0)
    assert inside(cavity, on_face - n * 2.0)


def test_clip_frames_keep_the_scene_and_change_only_the_noise():
    spec = random_scene(4)
    a, b = spec.frame(1), spec.frame(2, pieces=spec.pieces[:3])
    assert a.sensor.noise_seed != b.sensor.noise_seed != spec.sensor.noise_seed
    assert (a.camera, a.lamps, a.surface) == (spec.camera, spec.lamps, spec.surface)
    assert b.pieces == spec.pieces[:3]


def test_bad_requests_get_a_one_line_reason():
    from vision.render import SceneError
    with pytest.raises(SceneError, match="unknown colour"):
        random_scene(1, colors=["pink"])
    with pytest.raises(SceneError, match="unknown surface"):
        random_scene(1, surface="marble")


def _march(dist_fn, o, d, t_max=300.0, step=0.02):
    """First t where a ray enters {dist_fn <= 0}, by marching (an independent check)."""
    ts = np.arange(0, t_max, step)
    inside = dist_fn(o + d * ts[:, None]) <= 0
    return ts[np.argmax(inside)] if inside.any() else np.inf


def test_ray_hits_agree_with_ray_marching():
    from vision.render.shapes import Capsule
    rng = np.random.default_rng(0)
    cap = Capsule(np.array([0.0, 0, 50]), np.array([40.0, 10, 80]), 12.0)
    piece = Piece.flat("f", "red", "large", (10.0, 0.0), 40.0)
    outer, _ = shell(piece)
    o = np.column_stack([rng.uniform(-40, 80, 120), rng.uniform(-40, 50, 120), np.full(120, 300.0)])
    d = np.column_stack([rng.normal(0, 0.1, 120), rng.normal(0, 0.1, 120), -np.ones(120)])
    t_cap, _ = cap.hit(o, d)
    t_in, t_out, _, _ = outer.hit(o, d)
    t_pyr = np.where((t_in < t_out) & (t_in > 0), t_in, np.inf)

    def cap_dist(p):
        ba = cap.b - cap.a
        s = np.clip(((p - cap.a) @ ba) / (ba @ ba), 0, 1)
        return np.linalg.norm(p - (cap.a + s[:, None] * ba), axis=1) - cap.r

    def pyr_dist(p):
        return (p @ outer.normals.T - outer.offsets).max(axis=1)

    for i in range(len(o)):
        for got, fn in ((t_cap[i], cap_dist), (t_pyr[i], pyr_dist)):
            want = _march(fn, o[i], d[i])
            assert (np.isinf(got) and np.isinf(want)) or abs(got - want) < 0.05
    assert np.isfinite(t_cap).sum() > 5 and np.isfinite(t_pyr).sum() > 5


def test_random_hands_stay_above_the_pieces():
    from vision.render.world import hand_capsules
    for seed in range(15):
        for hand in random_scene(seed, n_pieces=2, hands=2).occluders:
            lowest = min(min(c.a[2], c.b[2]) - c.r for c, _, _ in hand_capsules(hand))
            assert lowest > Size.LARGE.height


def test_an_arm_comes_in_from_outside_the_picture():
    from vision.render.world import hand_capsules
    for seed in range(15):
        spec = random_scene(seed, n_pieces=2, hands=1)
        view = spec.view()
        for hand in spec.occluders:
            ends = np.array([p for c, _, _ in hand_capsules(hand) for p in (c.a, c.b)])
            u, v = view.project(ends).T
            w, h = view.intrinsics.width, view.intrinsics.height
            assert np.any((u < 0) | (u >= w) | (v < 0) | (v >= h)), seed   # the shoulder is out of view
