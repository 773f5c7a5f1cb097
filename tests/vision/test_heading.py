"""The flat-heading refit (vision.heading) on hand-made outlines."""

import cv2
import numpy as np
import pytest

from domain import Size
from vision import heading
from vision.fit import perimeter_points
from vision.geometry import FLAT, apparent_vertices, model, silhouette

TAIL = np.array([300.0, 200.0, 30.0])   # tail x, y, heading


def test_an_overhead_camera_sees_no_lateral_face():
    grazing = heading.grazing_faces(Size.LARGE, TAIL, np.array([320.0, 215.0, 900.0]))
    assert not grazing[heading.LEFT_FACE] and not grazing[heading.RIGHT_FACE]


@pytest.mark.parametrize("side, face", [(1, heading.LEFT_FACE), (-1, heading.RIGHT_FACE)])
def test_a_camera_off_to_one_side_sees_that_lateral_face_grazing(side, face):
    a = np.radians(TAIL[2])
    left = np.array([-np.sin(a), np.cos(a)])
    camera = np.array([*(TAIL[:2] + side * 250 * left), 900.0])
    grazing = heading.grazing_faces(Size.LARGE, TAIL, camera)
    assert grazing[face] and not grazing[heading.LEFT_FACE + heading.RIGHT_FACE - face]


def test_the_heading_comes_back_when_the_camera_side_is_pale():
    """The blob misses a wedge of the camera's side (0 at the nose, 3 mm at the tail):
    refit from a start 2° off, the heading comes back to within 0.3°."""
    a = np.radians(TAIL[2])
    left, along = np.array([-np.sin(a), np.cos(a)]), np.array([np.cos(a), np.sin(a)])
    camera = np.array([*(TAIL[:2] + 250 * left), 900.0])
    pts = perimeter_points([silhouette(FLAT, Size.LARGE, TAIL, camera)], heading.POINTS)[0]
    rel = pts - TAIL[:2]
    inset = np.clip(1 - (rel @ along) / Size.LARGE.slant, 0, 1) * 3.0 * (rel @ left > 0)
    pts = pts - inset[:, None] * left
    start = TAIL + [0.0, 0.0, 2.0]
    out = heading.refine([Size.LARGE], start[None], camera, pts[None], np.zeros((1, len(pts)), bool), np.zeros(1))[0]
    assert abs(out[2] - TAIL[2]) < 0.3
    assert np.hypot(*(out[:2] - TAIL[:2])) < 0.5


def _small_flat_seen_from_left() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A small flat piece at TAIL with the camera off to its left: its silhouette
    (tail-left, tail-right, raised-right, nose), its far side (raised corner to nose) and
    that side's outward normal, the camera and the unit vector to the piece's left."""
    a = np.radians(TAIL[2])
    left = np.array([-np.sin(a), np.cos(a)])
    camera = np.array([*(TAIL[:2] + 250 * left), 900.0])
    sil = silhouette(FLAT, Size.SMALL, TAIL, camera)
    edge = sil[3] - sil[2]
    return sil, edge, np.array([edge[1], -edge[0]]) / np.hypot(*edge), camera, left


def _shadow_beside_contour() -> tuple[np.ndarray, np.ndarray]:
    """A small flat piece's silhouette with a 3 mm deep shadow joined to the middle of its
    far side (raised corner to nose, 30-50 % of the way), and the camera (off to the
    piece's left)."""
    sil, edge, out, camera, _ = _small_flat_seen_from_left()
    bump = [sil[2] + 0.3 * edge, sil[2] + 0.3 * edge + 3 * out, sil[2] + 0.5 * edge + 3 * out, sil[2] + 0.5 * edge]
    return np.vstack([sil[:3], bump, sil[3:]]), camera


@pytest.mark.parametrize("hull", [False, True])
def test_a_shadow_joined_beside_turns_the_heading_only_through_the_hull(hull):
    """Refit on the contour round the shadow, the heading stays within 0.3°; on the
    contour's convex hull, whose straight edges bridge the bump to the nose and the
    raised corner, it turns by more than 0.5°."""
    contour, camera = _shadow_beside_contour()
    if hull:
        contour = cv2.convexHull(contour.astype(np.float32)).reshape(-1, 2).astype(float)
    pts = perimeter_points([contour], heading.POINTS)[0]
    out = heading.refine([Size.SMALL], TAIL[None], camera, pts[None], np.zeros((1, len(pts)), bool), np.zeros(1))[0]
    if hull:
        assert abs(out[2] - TAIL[2]) > 0.5
    else:
        assert abs(out[2] - TAIL[2]) < 0.3


def _shadow_at_tail_contour() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A small flat piece's silhouette with a 2 mm deep shadow joined to its far side at
    the raised corner and tapering off to 40 % of the way to the nose (as a flat piece's
    own shadow: widest where it is tallest), the camera (off to the piece's left) and
    the picture's shadow direction (to the piece's right)."""
    sil, edge, out, camera, left = _small_flat_seen_from_left()
    bump = [sil[2] + 2 * out, sil[2] + 0.4 * edge + 0.6 * out, sil[2] + 0.4 * edge]
    return np.vstack([sil[:3], bump, sil[3:]]), camera, -left


@pytest.mark.parametrize("dark", [True, False])
def test_a_shadow_darker_than_the_table_in_the_shadow_zone_counts_less(dark):
    """Refit from 2° off, the heading comes back to within 0.5° when the bump's points
    are darker than the table (shadow); lit like the table, they count in full and turn
    it by more than 1°."""
    contour, camera, shadow = _shadow_at_tail_contour()
    pts = perimeter_points([contour], heading.POINTS)[0]
    m = model(FLAT, Size.SMALL)
    verts = apparent_vertices(TAIL[None], m.offsets[None], m.heights[None], camera)
    outside = heading.hull_sdf(verts, pts[None])[0] > 0.3
    start = TAIL + [0.0, 0.0, 2.0]
    out = heading.refine([Size.SMALL], start[None], camera, pts[None], np.zeros((1, len(pts)), bool), np.zeros(1),
                         shadow, (outside & dark)[None])[0]
    assert (abs(out[2] - TAIL[2]) < 0.5) if dark else (abs(out[2] - TAIL[2]) > 1.0)


def test_shadow_points_keep_their_distance_and_lose_weight():
    """Points of a shadow joined in the shadow zone are as far from the model as they are
    (the robust loss must see that) and weigh SHADOW_WEIGHT; the rest weigh 1."""
    contour, camera, shadow = _shadow_at_tail_contour()
    pts = perimeter_points([contour], heading.POINTS)[0][None]
    m = model(FLAT, Size.SMALL)
    args = (m.offsets[None], m.heights[None], TAIL[None], camera, np.zeros(1), pts, np.zeros((1, 1)))
    r0, _, w0 = heading.residuals(*args)
    r, _, w = heading.residuals(*args, shadow, np.ones(pts.shape[:2], bool))
    np.testing.assert_allclose(r, r0)
    bump = r0[0] > 0.3
    assert bump.sum() >= 3 and np.all(w0 == 1.0)
    assert np.all(w[0][bump] == heading.SHADOW_WEIGHT) and np.all(w[0][r0[0] <= 0] == 1.0)
