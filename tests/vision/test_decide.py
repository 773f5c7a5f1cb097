"""The decision's rules on hand-made fits and on seeded renders (vision.decide)."""

from types import SimpleNamespace

import cv2
import numpy as np

from domain import Pose, Size
from vision.decide import dark_faces_decide
from vision.shadows import without_shadows
from vision.fit import Fit, Hypothesis
from vision.geometry import FLAT, UPRIGHT, hypothesis_faces
from vision.rectify import TableGrid
from vision.scenes import rendered

from seeded import assert_read_as, detect

CAMERA = np.array([320.0, 240.0, 900.0])


def entry(dark: bool, kind: str, size: Size, params, rms: float = 0.5, iou: float = 0.9) -> tuple:
    return SimpleNamespace(dark=dark, beside=False), Fit(Hypothesis(0, kind, size), np.array(params, float), rms, iou), 1.0


def test_a_dark_upright_around_a_coloured_part_is_that_piece():
    # PBR: a large upright's faces pass its light with little hue left; only part shows
    # colour, which a small piece fits loosely
    lit = entry(False, UPRIGHT, Size.SMALL, (101.0, 101.0, 10.0), rms=1.2, iou=0.75)
    dark = entry(True, UPRIGHT, Size.LARGE, (100.0, 100.0, 10.0))
    out = without_shadows([lit, dark], CAMERA)
    assert len(out) == 1 and out[0][0] is lit[0] and out[0][1] is dark[1]


def test_a_whole_piece_keeps_its_model_against_its_shadows_upright():
    # Cycles 9247: a medium upright fits its blob tightly; its shadow's blob, fitted with
    # the piece as one upright a size up, holds it but fits worse: it is the shadow
    lit = entry(False, UPRIGHT, Size.MEDIUM, (101.0, 101.0, 10.0), rms=0.8, iou=0.88)
    shadow = entry(True, UPRIGHT, Size.LARGE, (100.0, 100.0, 10.0), rms=0.79, iou=0.73)
    assert without_shadows([lit, shadow], CAMERA) == [lit]


def test_a_dark_upright_holding_a_coloured_blob_is_that_piece_though_not_its_model():
    # path-traced 9230: the coloured blob is one lit face, fitted as a small piece that
    # reaches past the dark candidate's upright; the blob itself lies within it
    from vision import shadows
    from vision.decide import _outline
    grid = TableGrid(0.0, 0.0, 1.0, 200, 200)
    dark = entry(True, UPRIGHT, Size.LARGE, (100.0, 100.0, 0.0))
    for face, held in (((104, 95, 111, 105), True), ((113, 95, 125, 105), False)):
        x0, y0, x1, y1 = face
        blob = SimpleNamespace(dark=False, beside=False, origin_px=np.array([0, 0]),
                               part=SimpleNamespace(outline=np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float) - 0.5))
        lit = (blob, Fit(Hypothesis(0, UPRIGHT, Size.SMALL), np.array([111.0, 100.0, 0.0]), 1.0, 0.8), 1.0)
        model, mine = _outline(lit[1], CAMERA), _outline(dark[1], CAMERA)
        assert mine.intersection(model).area < shadows.ENCLOSED_SHARE * model.area   # the model is not held
        assert len(without_shadows([lit, dark], CAMERA)) == 1 and without_shadows([lit, dark], CAMERA)[0] is lit
        out = without_shadows([lit, dark], CAMERA, grid=grid)
        assert len(out) == 1 and out[0][0] is blob and (out[0][1] is dark[1]) is held


def test_a_dark_candidate_beside_or_only_partly_explained_is_a_shadow():
    lit = entry(False, UPRIGHT, Size.SMALL, (100.0, 100.0, 10.0))
    beside = entry(True, UPRIGHT, Size.LARGE, (120.0, 100.0, 10.0))   # touching, not holding
    flat = entry(True, FLAT, Size.LARGE, (88.0, 100.0, 0.0))           # holding, but a flat model
    for dark in (beside, flat):
        out = without_shadows([lit, dark], CAMERA)
        assert len(out) == 1 and out[0] is lit



def test_a_dark_upright_with_a_pyramids_edges_touching_a_piece_is_kept():
    lit = entry(False, UPRIGHT, Size.SMALL, (100.0, 100.0, 10.0))
    beside = entry(True, UPRIGHT, Size.LARGE, (120.0, 100.0, 10.0))
    assert without_shadows([lit, beside], CAMERA, ridged={1}) == [lit, beside]


def test_a_dark_upright_that_also_covered_a_piece_is_its_shadow_on_its_shadow_side():
    # its edges step as a pyramid's (ridged), but a shadow touching its piece has that
    # piece's edges along their border: on the piece's shadow side it is a shadow
    grid = TableGrid(0.0, 0.0, 1.0, 200, 200)

    def square(dark, x0, beside=False):
        outline = np.array([[x0, 95], [x0 + 12, 95], [x0 + 12, 107], [x0, 107]], float) - 0.5
        return SimpleNamespace(dark=dark, beside=beside, origin_px=np.array([0, 0]), centre_px=outline.mean(axis=0),
                               part=SimpleNamespace(outline=outline))

    lit = (square(False, 94), Fit(Hypothesis(0, UPRIGHT, Size.SMALL), np.array([100.0, 101.0, 0.0]), 0.5, 0.9), 1.0)
    dark = (square(True, 107, beside=True), Fit(Hypothesis(0, UPRIGHT, Size.SMALL), np.array([113.0, 101.0, 0.0]), 0.5, 0.9), 1.0)
    east, west = np.array([1.0, 0.0]), np.array([-1.0, 0.0])
    assert without_shadows([lit, dark], CAMERA, ridged={1}, grid=grid, direction=east) == [lit]
    assert without_shadows([lit, dark], CAMERA, ridged={1}, grid=grid, direction=west) == [lit, dark]
    # one that covered no coloured blob is kept on either side, as before
    plain = (square(True, 107), dark[1], 1.0)
    assert without_shadows([lit, plain], CAMERA, ridged={1}, grid=grid, direction=east) == [lit, plain]


ABOVE = np.array([60.0, 60.0, 900.0])   # the camera nearly over the piece: its ridges inside its outline


def _upright_picture(face_lum) -> tuple:
    """A blob box (1 mm pixels, box origin at table (0, 0)) holding a large upright at
    (40, 40), its four apparent faces at the given darkenings, the table at 0."""
    faces = hypothesis_faces(np.array([[40.0, 40.0, 0.0]]), [UPRIGHT], [Size.LARGE], ABOVE)[0]
    lum = np.zeros((80, 80), np.float32)
    hull = cv2.convexHull(faces[:4].reshape(-1, 2).astype(np.float32)).reshape(-1, 2)
    cv2.fillConvexPoly(lum, np.round((hull - 0.5) * 16).astype(np.int32), float(np.mean(face_lum)), cv2.LINE_8, 4)
    for poly, level in zip(faces[:4], face_lum):
        layer = np.zeros_like(lum, np.uint8)
        cv2.fillConvexPoly(layer, np.round((poly[:3] - 0.5) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
        lum[layer > 0] = level
    blob = SimpleNamespace(dark=False, origin_px=np.array([0.0, 0.0]), lum=lum)
    grid = TableGrid(-0.5, -0.5, 1.0, 80, 80)   # pixel (i, j)'s centre at table (i, j)
    return blob, grid


def test_an_upright_whose_darkest_faces_were_missed_is_not_a_small_flat():
    # PBR: two faces nearly black and hueless (taken for shadow), the lit two read as a flat
    flat = Fit(Hypothesis(0, FLAT, Size.SMALL), np.array([40.0, 52.0, -90.0]), 0.6, 0.9)
    upright = Fit(Hypothesis(0, UPRIGHT, Size.LARGE), np.array([40.0, 40.0, 0.0]), 1.2, 0.8)
    blob, grid = _upright_picture((-0.3, -1.2, -1.2, -0.6))
    assert dark_faces_decide(flat, [flat, upright], blob, grid, ABOVE) is upright
    # the same dark patch without faces meeting at an apex (a shadow) stays a flat's
    blob, grid = _upright_picture((-1.0,) * 4)
    assert dark_faces_decide(flat, [flat, upright], blob, grid, ABOVE) is flat


def test_two_blobs_moved_onto_one_piece_are_reported_once():
    from domain import Piece
    from vision.places import one_per_place
    piece = Piece.upright("", "red", Size.LARGE, (251.0, 478.0), 30.0, 0.59)
    again = Piece.upright("", "red", Size.LARGE, (251.5, 477.0), 31.0, 0.08)
    flat_in_it = Piece.flat("", "red", Size.SMALL, (242.0, 478.0), 0.0, 0.2)
    assert sorted(one_per_place([again, piece, flat_in_it])) == [1]
    # held-out 9600: a green medium flat, its tail also seen as a small upright, more
    # confidently: the bigger piece takes in both blobs
    flat = Piece.flat("", "green", Size.MEDIUM, (624.0, 386.0), 132.8, 0.11)
    tail = Piece.upright("", "green", Size.SMALL, (621.0, 395.0), 10.0, 0.2)
    assert one_per_place([flat, tail]) == {0: [1]}


def test_pieces_pressed_together_are_all_kept():
    from domain import Piece
    from vision.places import one_per_place
    # side by side, each placed 1.5 mm towards the other: their squares overlap by 3 mm
    row = [Piece.upright("", "blue", size, (x, 300.0), 0.0, 0.5)
           for size, x in ((Size.SMALL, 100.0), (Size.SMALL, 111.3), (Size.LARGE, 129.2))]
    assert one_per_place(row) == {0: [], 1: [], 2: []}


def test_a_flat_piece_whose_outline_fits_is_not_an_upright_by_its_ridges_alone():
    # seed 9201: a blue medium flat on grey cloth fits its outline at 1.05 mm (IoU 0.93);
    # an upright at its tail, 1.2 mm costlier, finds steps where its ridges would lie (the
    # flat's own edges): the ridges alone do not overrule the outline
    assert_read_as(detect(rendered(9201)), (581, 399), 3.0, "blue", Size.MEDIUM, Pose.FLAT)


def test_a_place_whose_lit_face_reads_blue_and_shaded_faces_green_is_green():
    from calibration.colour import ColourModels
    from vision.places import place_colour
    models = ColourModels.load()
    hued = np.array([m.kind == "translucent" and m.name != "clear" for m in models.models])
    names = list(models.names)

    def margins(*readings):
        return list(models.nearest(np.array(readings))[1])
    # path-traced 9202 at 256 samples a pixel, thin walls: a green medium upright's pale lit
    # face (kept: its reading covers more) and its shaded faces, read apart (distances to
    # red, orange, yellow, green, cyan, blue, purple, clear, black, white)
    lit = np.array([1.02, 1.86, 1.01, 0.43, 0.41, 0.24, 1.44, 1.2, 1.12, 1.13])
    shaded = np.array([1.48, 2.21, 1.38, 0.78, 1.52, 1.3, 2.13, 1.86, 1.34, 2.35])
    assert names[int(np.argmin(lit))] == "blue" and place_colour([lit, shaded], margins(lit, shaded), hued) == 1
    # a neighbour's reading less sure than the kept one's own does not recolour it
    red = np.array([0.5, 0.6, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0])
    assert place_colour([shaded, red], margins(shaded, red), hued) is None
    # nor does a surer one that the readings together do not bear out
    green = np.array([3.0, 3.0, 3.0, 0.1, 0.3, 3.0, 3.0, 3.0, 3.0, 3.0])
    surely_red = np.array([0.5, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0])
    assert place_colour([green, surely_red], margins(green, surely_red), hued) is None
    black = np.array([2.0] * 8 + [0.1, 2.0])
    # black's reading keeps its own rule (places.one_per_place: colour before black)
    assert place_colour([black, shaded], margins(black, shaded), hued) is None
