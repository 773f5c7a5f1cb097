"""The 3-D models against hand-derived geometry and an independent polygon library."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from shapely.geometry import Point, Polygon

from domain import Piece, Size
from vision.geometry import FLAT, UPRIGHT, hypothesis_faces, lift, model, model_sdf, place, silhouette


def test_lift_leaves_the_table_and_the_nadir_alone():
    camera = np.array([100.0, 200.0, 900.0])
    pts = np.array([[300.0, 50.0], [100.0, 200.0]])
    assert np.allclose(lift(pts, np.array([0.0, 0.0]), camera), pts)
    assert np.allclose(lift(pts[1:], np.array([44.45]), camera), pts[1:])


def test_lift_by_similar_triangles():
    # a point 45 mm up, 400 mm from the nadir of a camera 900 mm up, seen on the table:
    # 400 * 900 / (900 - 45) = 421.05 mm from the nadir
    camera = np.array([0.0, 0.0, 900.0])
    out = lift(np.array([[400.0, 0.0]]), np.array([45.0]), camera)
    assert out[0] == pytest.approx([400 * 900 / 855, 0.0])


@pytest.mark.parametrize("size", list(Size))
def test_flat_model_matches_the_domain_footprint(size):
    piece = Piece.flat("a", "red", size, (120.0, 80.0), 37.0)
    m = model(FLAT, size)
    pts = place(np.array([[120.0, 80.0, 37.0]]), m.offsets[None])[0]
    assert np.allclose(pts, np.array(piece.footprint()), atol=1e-9)
    # the raised corners are the only vertices off the table
    assert [h > 0 for h in m.heights] == [False, False, True, False, True]
    assert max(m.heights) == pytest.approx(size.flat_raised_height)


def test_upright_model_matches_the_domain_footprint():
    piece = Piece.upright("a", "red", "medium", (50.0, 60.0), 20.0)
    m = model(UPRIGHT, Size.MEDIUM)
    pts = place(np.array([[50.0, 60.0, 20.0]]), m.offsets[None])[0]
    assert np.allclose(pts[:4], np.array(piece.footprint()))
    assert np.allclose(pts[4], [50.0, 60.0])


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from([UPRIGHT, FLAT]), size=st.sampled_from(list(Size)),
       x=st.floats(0, 700), y=st.floats(0, 500), angle=st.floats(0, 360),
       cx=st.floats(0, 700), cy=st.floats(0, 500), ch=st.floats(700, 1200),
       qx=st.floats(-40, 40), qy=st.floats(-40, 40))
def test_silhouette_distance_agrees_with_shapely(kind, size, x, y, angle, cx, cy, ch, qx, qy):
    camera = np.array([cx, cy, ch])
    params = np.array([[x, y, angle]])
    faces = hypothesis_faces(params, [kind], [size], camera)
    outline = Polygon(silhouette(kind, size, params[0], camera))
    q = np.array([[[x + qx, y + qy]]])
    sdf = float(model_sdf(faces, q)[0, 0])
    truth = outline.exterior.distance(Point(x + qx, y + qy))
    inside = outline.contains(Point(x + qx, y + qy))
    if truth < 1e-3:
        return
    # right sign, never overstating the distance (less near corners and inner edges)
    if inside:
        assert -truth - 1e-3 <= sdf < 0
    else:
        assert 0 < sdf <= truth + 1e-3
    # far from every corner of every face the distance is exact: near one, the largest
    # distance to a face's edge lines falls short of the distance to the face (a face's
    # corner may lie inside the silhouette: an upright's apex leaning to its edge)
    corners = faces[0].reshape(-1, 2)
    if np.min(np.hypot(*(corners - [x + qx, y + qy]).T)) > 3 * truth and not inside:
        assert sdf == pytest.approx(truth, rel=0.05, abs=1e-3)


def test_silhouette_distance_near_an_apex_leaning_to_the_base_edge():
    # hypothesis found it: a large upright whose apex leans to 1.3 mm inside its base
    # edge (camera 168 mm off, 700 mm up); 1.3 mm outside that edge the approximation
    # reads the side face's edge lines (1.22 mm), not its corner: a lower bound
    camera = np.array([168.0, 0.0, 700.0])
    params = np.array([[0.0, 0.0, 0.0]])
    faces = hypothesis_faces(params, [UPRIGHT], [Size.LARGE], camera)
    sdf = float(model_sdf(faces, np.array([[[-14.0, 0.0]]]))[0, 0])
    truth = Polygon(silhouette(UPRIGHT, Size.LARGE, params[0], camera)).exterior.distance(Point(-14.0, 0.0))
    assert 0 < sdf <= truth + 1e-3
    assert sdf == pytest.approx(1.2165, abs=1e-3)
