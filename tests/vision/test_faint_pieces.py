"""Pieces that barely change the table's colour: green plastic on green felt shows only
by the faces that mirror or pipe the lamp (bright) around a core as dark as the felt.
Seed 9216 has three such pieces that the half-way cut of their blobs used to lose."""

from types import SimpleNamespace

import numpy as np
import pytest
from shapely.geometry import Polygon

from domain import Pose, Size
from vision import decide, edges
from vision import fit as fitting
from vision.faint_faces import PALE_FLAT_COST_MM, faint_faces_decide, pale_flat_decide
from vision.geometry import FLAT, UPRIGHT
from vision.pipeline import Detector
from vision.rectify import TableGrid
from vision.scenes import rendered

from seeded import assert_read_as, detect

FAINT_GREEN = ((222, 383), (241, 372), (593, 294))   # truth positions, table mm


# Lost from the renderer's first correction (the table mirrored in the faces lit by the
# lamps' irradiance at the table) until its second (haze absorbed, docs/renderer.md
# 2026-11-23): its haze had made green over green felt about three times fainter than
# the path tracer's, and all three are found again.
def test_green_on_green_felt_seen_by_its_lit_faces():
    r = rendered(9216)
    assert r.spec.surface.kind == "felt"
    found = Detector(r.spec.layout, r.intrinsics).detect(r.image).state.pieces
    for xy in FAINT_GREEN:
        truth = next(p for p in r.truth.pieces if abs(p.position[0] - xy[0]) < 1 and abs(p.position[1] - xy[1]) < 1)
        assert truth.color.value == "green"
        outline = Polygon(truth.footprint())
        assert any(p.color.value == "green" and Polygon(p.footprint()).intersection(outline).area > 0.3 * outline.area
                   for p in found), xy


def test_a_green_upright_darkening_the_felt_beside_a_yellow_flat_is_found():
    # held out 9619: its darkened felt and the yellow flat's blob made one dark candidate,
    # dropped as the flat's; beyond the flat's blob it is a piece's footprint
    # (vision.segment BLACK_OVERLAP_MAX). Its size is still read a size small.
    state = detect(rendered(9619))
    p = min(state.pieces, key=lambda p: np.hypot(p.position[0] - 154.5, p.position[1] - 127.9))
    assert np.hypot(p.position[0] - 154.5, p.position[1] - 127.9) < 3.0
    assert (p.color.value, p.pose) == ("green", Pose.UPRIGHT)


@pytest.mark.parametrize("seed, where", [(9008, (445, 402)), (9616, (249, 311)), (9621, (589, 305))])
def test_a_small_upright_seen_by_its_lit_half(seed, where):
    # only the faces towards the lamp are tinted; the shaded ones read as shadow, which
    # leaves a blob half a small upright's size: smaller than any piece, still one (9621:
    # with its shaded faces' darkest part, under a small upright's base together)
    # (its centre is placed from half an outline: within 5 mm)
    assert_read_as(detect(rendered(seed)), where, 5.0, "green", Size.SMALL, Pose.UPRIGHT)


@pytest.mark.parametrize("seed, where, colour, size", [
    (9208, (539.0, 218.0), "green", Size.LARGE),
    (9610, (489.0, 235.0), "green", Size.MEDIUM),
    # its outer faces tinted but hardly darker than the table; their edges show
    (9225, (437.0, 142.0), "blue", Size.MEDIUM),
])
def test_an_upright_whose_outer_faces_are_faint_reads_its_size(seed, where, colour, size):
    # uprights whose steep outer faces, mirroring the table, were left out of the blob:
    # the fit took the next size down (vision.faint_faces)
    assert_read_as(detect(rendered(seed)), where, 3.0, colour, size, Pose.UPRIGHT)


def test_an_upright_seen_by_its_shaded_faces_alone_is_not_a_flat_piece():
    # its two shaded faces make a half-square blob that fits a medium flat piece; its lit
    # faces around it are darker than the wood and tinted, and its edges step nearly as
    # strongly as the flat's (vision.edge_steps FAINT_RING_RATIO)
    assert_read_as(detect(rendered(9005)), (652.9, 160.2), 3.0, "green", Size.LARGE, Pose.UPRIGHT)


def test_an_upright_whose_faint_faces_mirror_the_table_reads_its_size_by_their_edges():
    # developed through a filmic curve, a green large upright's outer faces are darker
    # than the table but hardly tinted: the large one's edges, searched from the medium
    # winner's pose, step as strongly as the medium's (vision.faint_faces)
    r = rendered(9003, sensor={"development": "filmic"})
    assert_read_as(detect(r), (307.0, 83.0), 3.0, "green", Size.LARGE, Pose.UPRIGHT)


def test_a_small_uprights_blob_inside_a_large_ones_faint_faces_grows_to_the_large():
    # the blob is a small upright's footprint in the middle of a large upright whose
    # faces all around it are darker than the table and tinted: medium, then large
    grid, camera = TableGrid(0.0, 0.0, 1.0, 200, 200), np.array([60.0, 40.0, 950.0])
    at = np.array([100.0, 100.0, 20.0])
    origin = np.array([60, 60])

    def drawn(size):
        fit = fitting.Fit(fitting.Hypothesis(0, UPRIGHT, size), at, 1.0, 0.8)
        return decide._model_mask(fit, (80, 80), grid.corner_mm(origin), grid.res, camera)

    large, small = drawn(Size.LARGE), drawn(Size.SMALL)
    blob = SimpleNamespace(origin_px=origin, dark=False, part=SimpleNamespace(mask=small.astype(np.uint8) * 255),
                           lum=np.where(large, -0.4, 0.0).astype(np.float32),
                           chroma=np.where(large, 0.5, 0.02).astype(np.float32))
    emap = edges.EdgeMap(np.zeros((200, 200, 3), np.float32), grid)
    winner = fitting.Fit(fitting.Hypothesis(0, UPRIGHT, Size.SMALL), at, 1.0, 0.8)
    assert faint_faces_decide(winner, blob, grid, camera, emap).hypothesis.size is Size.LARGE
    # bare table around the blob: the small one stands
    blob.lum, blob.chroma = np.where(small, -0.4, 0.0).astype(np.float32), np.where(small, 0.5, 0.02).astype(np.float32)
    assert faint_faces_decide(winner, blob, grid, camera, emap).hypothesis.size is Size.SMALL


def test_a_flat_piece_whose_pale_face_was_left_out_reads_its_size():
    # path traced 9201 and 9252 (both wall models): a large flat's face turned to the lamp,
    # paler than the other, was left out; a medium flat in the darker face fits the blob
    # 0.2 mm better. The pale face is still darker than the table beyond the large outline.
    grid, camera = TableGrid(0.0, 0.0, 1.0, 200, 200), np.array([60.0, 40.0, 950.0])
    origin = np.array([50, 50])
    tail = np.array([80.0, 100.0, 10.0])   # both fits' tail and heading (the nose differs)

    def fit(size, rms):
        return fitting.Fit(fitting.Hypothesis(0, FLAT, size), tail, rms, 0.9)

    def drawn(size):
        return decide._model_mask(fit(size, 1.0), (100, 100), grid.corner_mm(origin), grid.res, camera)

    large, medium = drawn(Size.LARGE), drawn(Size.MEDIUM)
    blob = SimpleNamespace(origin_px=origin, dark=False, part=SimpleNamespace(mask=medium.astype(np.uint8) * 255),
                           lum=np.where(large, -0.4, 0.0).astype(np.float32))
    winner = fit(Size.MEDIUM, 1.0)

    def decided(rival_rms):
        options = sorted([winner, fit(Size.LARGE, rival_rms)], key=decide.cost)
        return pale_flat_decide(winner, options, blob, grid, camera).hypothesis.size

    assert decided(1.2) is Size.LARGE
    # its outline fits far worse, or better (a rule that overruled it stands): the winner stays
    assert decided(1.0 + PALE_FLAT_COST_MM + 0.1) is Size.MEDIUM
    assert decided(0.9) is Size.MEDIUM
    # bare table beyond the medium flat: no step across the large outline
    blob.lum = np.where(medium, -0.4, 0.0).astype(np.float32)
    assert decided(1.2) is Size.MEDIUM
