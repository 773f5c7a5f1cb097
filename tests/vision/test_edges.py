"""A pyramid's edges decide its size and pose where its blob cannot (vision.edges,
vision.edge_steps)."""

import math

import cv2
import numpy as np
import pytest

from domain import Pose, Size
from vision import edge_steps, edges
from vision import fit as fitting
from vision.geometry import FLAT, UPRIGHT, hypothesis_faces
from vision.rectify import TableGrid
from vision.scenes import rendered

from seeded import assert_read_as, detect

GRID = TableGrid(0.0, 0.0, 1.0, 200, 200)


def _codes(keys):
    """(kind, size) keys as edge_steps._better takes them: edges.KEYS' indices."""
    return [edges.CODE[key] for key in keys]


# Seeded pieces read right until the renderer's haze was absorbed and its thick places
# stopped mirroring the room (docs/renderer.md, 2026-11-23): known losses, kept pinned.
RENDERER_LOST = pytest.mark.xfail(strict=True, reason="lost since the renderer's haze is absorbed")
CAMERA = np.array([60.0, 40.0, 950.0])   # up and to one side: the apex leans away


def drawn(kind, size, params, table=(120, 140, 160),
          colours=((40, 90, 200), (60, 120, 230), (30, 70, 160), (50, 110, 210), (45, 100, 190))):
    """A rectified picture of one pyramid: each apparent face its own colour, painted back
    to front by height so nearer faces cover farther ones, on a plain table."""
    image = np.full((GRID.height, GRID.width, 3), table, np.uint8)
    faces = hypothesis_faces(np.array([params], float), [kind], [size], CAMERA)[0]
    for face, colour in zip(faces, colours):
        px = np.round(GRID.to_px(face) * 16).astype(np.int32)
        cv2.fillConvexPoly(image, px, colour, cv2.LINE_AA, 4)
    return cv2.GaussianBlur(image, (0, 0), 0.7)


def edge_map(image):
    return edges.edge_map(image, GRID, [(0, 0, GRID.width, GRID.height)])


def test_the_right_size_has_the_strongest_edges():
    where = [100.0, 100.0, 20.0]
    emap = edge_map(drawn(UPRIGHT, Size.MEDIUM, where))
    s = edges.scores(emap, [UPRIGHT] * 3, list(Size), np.array([where] * 3), CAMERA)
    small, medium, large = s
    assert medium > edge_steps.EDGE_RATIO * max(small, large)


def test_refine_finds_the_pose_from_a_few_mm_and_degrees_off():
    for kind, truth in ((UPRIGHT, [100.0, 100.0, 20.0]), (FLAT, [80.0, 95.0, 35.0])):
        emap = edge_map(drawn(kind, Size.LARGE, truth))
        start = np.array([[truth[0] + 1.5, truth[1] - 1.0, truth[2] + 4.0]])
        params, score = edges.refine(emap, [kind], [Size.LARGE], start, CAMERA)
        assert math.dist(params[0, :2], truth[:2]) < 0.6
        assert abs(params[0, 2] - truth[2]) < 1.5
        assert score[0] > edges.scores(emap, [kind], [Size.LARGE], start, CAMERA)[0]


def _numpy_ascent(rows, params, best):
    """edges.ascend as numpy calls, before its rounds were compiled (docs/detection-speed.md,
    fifteenth pass): what the compiled rounds must give, bit for bit."""
    best = best.copy()
    for moves in edges._ROUND_MOVES:
        live = np.arange(len(params))
        for _ in range(edges.MOVES_PER_ROUND):
            n = len(live)
            trial = (params[live, None, :] + moves[None]).reshape(-1, 3)
            s = rows.take(live).scores(trial, len(moves)).reshape(n, len(moves))
            pick = np.argmax(s, axis=1)
            top = s[np.arange(n), pick]
            gain = top > best[live]
            moved = live[gain]
            params[moved] = trial.reshape(n, len(moves), 3)[np.flatnonzero(gain), pick[gain]]
            best[moved] = top[gain]
            live = moved
    return params, best


def test_the_compiled_ascent_moves_as_numpys_did_bit_for_bit():
    image = drawn(UPRIGHT, Size.LARGE, [70.0, 70.0, 0.0])
    image[100:] = drawn(FLAT, Size.MEDIUM, [120.0, 150.0, -30.0])[100:]
    emap = edge_map(image)
    rng = np.random.default_rng(15)
    starts = np.repeat([[70.0, 70.0, 0.0], [120.0, 150.0, -30.0]], 30, axis=0) + rng.uniform(-5, 5, (60, 3))
    starts[:4, 2] = [0.0, -0.0, 0.375, -1.5]   # signed zeros and angles a few turns reach
    kinds = [(UPRIGHT, FLAT)[k] for k in rng.integers(0, 2, 60)]
    sizes = [list(Size)[k] for k in rng.integers(0, 3, 60)]
    every = edges.HypothesisRows.of(kinds, sizes, CAMERA, emap)
    rows = every.take(np.arange(1, 60, 2))   # geometry rows other than the poses' own
    params = starts[1::2].copy()
    first = rows.scores(params)
    compiled = edges.ascend(rows, params.copy(), first)
    numpy_calls = _numpy_ascent(rows, params.copy(), first)
    assert compiled[0].tobytes() == numpy_calls[0].tobytes()
    assert compiled[1].tobytes() == numpy_calls[1].tobytes()
    assert (compiled[1] > first).mean() > 0.8   # most rows moved


def test_refine_takes_the_searchs_ascent_only_from_the_same_pose_size_and_camera():
    emap = edge_map(drawn(UPRIGHT, Size.LARGE, [100.0, 100.0, 20.0]))
    start = np.array([[101.0, 99.0, 0.0]])

    # an ascent the search made from this pose, its end planted to be told apart
    planted = edges.Ascents(np.array([edges.CODE[UPRIGHT, Size.LARGE]]), CAMERA, start.copy(),
                            np.array([[1.0, 2.0, 3.0]]), np.array([0.5], np.float32))

    def refined(size=Size.LARGE, params=start, camera=CAMERA, searched=planted):
        emap.searched = searched
        return edges.refine(emap, [UPRIGHT], [size], params, camera)

    params, score = refined()
    assert params.tolist() == [[1.0, 2.0, 3.0]] and score.tolist() == [0.5]
    changed = [dict(params=start + [[1e-9, 0.0, 0.0]]), dict(params=start * [[1.0, 1.0, -1.0]]),   # −0.0°
               dict(size=Size.MEDIUM), dict(camera=CAMERA + [0.0, 0.0, 1.0])]
    for change in changed:
        fresh, again = refined(**change, searched=None), refined(**change)
        assert again[0].tobytes() == fresh[0].tobytes() and again[1].tobytes() == fresh[1].tobytes(), change


def test_bare_table_has_no_edges():
    emap = edge_map(np.full((GRID.height, GRID.width, 3), 128, np.uint8))
    assert edges.scores(emap, [UPRIGHT], [Size.LARGE], np.array([[100.0, 100.0, 0.0]]), CAMERA)[0] == 0.0


@pytest.mark.parametrize("seed, where, colour, size, pose", [
    # a yellow flat piece whose light-through shadow grew its blob by a size
    (9212, (451.4, 400.6), "yellow", Size.MEDIUM, Pose.FLAT),
    (9214, (400.0, 264.2), "red", Size.SMALL, Pose.FLAT),
    # a small upright whose blob, with a mirroring face, looked a size bigger
    (9219, (159.1, 390.0), "yellow", Size.SMALL, Pose.UPRIGHT),
    # (read as a small flat since the renderer's haze is absorbed, docs/renderer.md 2026-11-23)
    pytest.param(9207, (390.1, 288.8), "blue", Size.SMALL, Pose.UPRIGHT, marks=RENDERER_LOST),
    # a large upright whose blob held only its lit side: its centre is off the blob's
    (9224, (488.3, 422.4), "green", Size.LARGE, Pose.UPRIGHT),
])
def test_seeded_pieces_the_outline_fit_got_a_size_wrong(seed, where, colour, size, pose):
    assert_read_as(detect(rendered(seed)), where, 3.0, colour, size, pose)


@pytest.mark.parametrize("seed, where, colour, size", [
    # the upright's ridges are 1.5 times stronger than the flat's edges and the rest of
    # the blob is tinted shadow
    (9005, (134.0, 446.2), "red", Size.SMALL),
    (9003, (311.6, 248.6), "blue", Size.MEDIUM),
    # the flat points along the picture's shadows, its edges at that nose a penumbra's
    # (half as strong as at its tail), and the upright's edges are as strong as the flat's
    (9003, (360.0, 443.0), "blue", Size.SMALL),
    (9625, (525.0, 89.0), "red", Size.MEDIUM),
    # the flat points straight along the picture's shadows (within 11°) and its outline
    # fits loosely (1.7 mm), its nose crisp: the upright's edges are as strong
    (9716, (490.8, 150.9), "red", Size.SMALL),
    pytest.param(9724, (321.1, 363.1), "red", Size.SMALL, marks=RENDERER_LOST),   # missed since 2026-11-23
])
def test_an_upright_with_its_shadow_is_not_a_flat(seed, where, colour, size):
    # the blob is the upright and its shadow, shaped like a flat piece from the upright's
    # back to the shadow's tip: its outline fits the flat far better
    assert_read_as(detect(rendered(seed)), where, 3.0, colour, size, Pose.UPRIGHT)


def test_a_loose_flat_straight_along_the_shadows_may_be_an_upright_and_its_shadow(monkeypatch):
    # every nose crisp, no top face faded: only the direction and the outline's fit count
    monkeypatch.setattr(edge_steps, "nose_softness", lambda fits, emap, camera: np.ones(len(fits)))
    monkeypatch.setattr(edge_steps, "_top_faded", lambda *args: False)
    monkeypatch.setattr(edge_steps, "_nose_diluted", lambda *args: False)
    monkeypatch.setattr(edge_steps, "_in_faint_faces", lambda *args: False)

    def flat(heading, rms, iou):   # outline cost rms + 5 mm × (1 − IoU)
        return None, fitting.Fit(fitting.Hypothesis(0, FLAT, Size.MEDIUM), np.array([100.0, 100.0, heading]), rms, iou), 1.0

    chosen = [flat(5.0, 1.0, 0.85),    # straight along the shadows (5°), loose (1.75 mm)
              flat(5.0, 0.4, 0.97),    # straight along, but laid close (0.55 mm): a flat piece
              flat(30.0, 1.0, 0.85)]   # loose, along the shadows' side but 30° off
    noses = edge_steps._shadow_noses(chosen, edges.EdgeMap(np.zeros((1, 1, 3), np.float32), GRID), CAMERA, np.array([1.0, 0.0]))
    assert noses == {0: edge_steps.STRAIGHT_LOOSE_RATIO}
    # the upright then needs only that share of the flat's edges
    _, winner, _ = chosen[0]
    upright = fitting.Fit(fitting.Hypothesis(0, UPRIGHT, Size.MEDIUM), np.array([104.0, 100.0, 0.0]), 2.5, 0.7)
    keys = [(FLAT, Size.MEDIUM), (UPRIGHT, Size.MEDIUM)]
    params = np.array([winner.params, upright.params])
    score = np.array([0.1, 0.1 * (edge_steps.STRAIGHT_LOOSE_RATIO + edge_steps.SOFT_NOSE_RATIO) / 2])
    for ratio, switched in ((noses[0], True), (edge_steps.SOFT_NOSE_RATIO, False), (None, False)):
        pick = edge_steps._better(None, winner, [winner, upright], _codes(keys), score, params, GRID, CAMERA, ratio)
        assert (pick is not None and pick[0] == 1) is switched


def test_a_nose_in_soft_shadow_is_soft():
    flat = [70.0, 100.0, 10.0]   # tail at x 70, nose about 40 mm further along x
    image = drawn(FLAT, Size.LARGE, flat)
    fit = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.LARGE), np.array(flat), 0.0, 0.0)
    crisp = edges.nose_softness([fit], edge_map(image), CAMERA)[0]
    # the same outline whose nose half is a penumbra (an upright's shadow fitted as a nose)
    soft = image.copy()
    soft[:, 90:] = cv2.GaussianBlur(image, (0, 0), 4.0)[:, 90:]
    blurred = edges.nose_softness([fit], edge_map(soft), CAMERA)[0]
    assert crisp > 0.8 and blurred < edge_steps.SOFT_NOSE


@pytest.mark.parametrize("seed, where, colour, size, pose", [
    # green on green felt: the outline fit took a large upright for a flat and a flat
    # for an upright; the other pose's edges are 1.35-1.5 times stronger
    (9223, (102.3, 209.3), "green", Size.LARGE, Pose.UPRIGHT),
    # ... and a medium flat whose nose the blob left out, for a small flat; its edges
    # (2.3 times) and its best fit say medium flat (held out; test_a_rival_is_weighed...)
    (9600, (599.2, 412.3), "green", Size.MEDIUM, Pose.FLAT),
    # (missed from 2026-11-23, when the renderer's haze was absorbed, until its shadow
    # was read out of the picture, vision.light)
    (9005, (424.9, 491.9), "green", Size.MEDIUM, Pose.FLAT),
])
def test_seeded_pieces_the_outline_fit_got_the_pose_wrong(seed, where, colour, size, pose):
    # (the felt upright's faces barely differ: its centre is found only within 4-5 mm)
    assert_read_as(detect(rendered(seed)), where, 5.0, colour, size, pose)


def test_a_smaller_flat_in_a_bigger_ones_nose_is_not_taken_for_it():
    # demo footage frame 28: the edges of a small flat laid in a green large flat's nose
    # lie on the large one's sides, 1.5 times as strong as its whole outline's; but the
    # blob is far too big for a small piece (the fit did not even try one)
    from server.startup import DEMO_FOOTAGE, real_detector
    image = cv2.imread(f"{DEMO_FOOTAGE}/frames/0028.jpg")
    state = real_detector().detect(image).state
    near = [p for p in state.pieces if p.color.value == "green" and math.dist(p.position, (398, 313)) < 8]
    assert [(p.size, p.pose) for p in near] == [(Size.LARGE, Pose.FLAT)]


def test_a_small_upright_and_its_shadow_are_not_a_flat_piece_with_a_faded_top():
    # the outline fit took the upright and its shadow for a flat piece whose top face lies
    # on the shadow, hardly tinted; the upright's edges are as strong as that flat's
    assert_read_as(detect(rendered(9622)), (331.0, 419.0), 3.0, "green", Size.SMALL, Pose.UPRIGHT)


def test_a_flat_piece_with_a_faded_top_face_is_one_the_edges_may_stand_up():
    from types import SimpleNamespace
    flat = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.MEDIUM), np.array([100.0, 100.0, 0.0]), 1.0, 0.8)
    origin = np.array([60, 60])
    for tint, faded in ((0.2, True), (0.8, False)):
        blob = SimpleNamespace(origin_px=origin, chroma=np.full((80, 80), tint, np.float32))
        assert edge_steps._top_faded(blob, flat, GRID, CAMERA) is faded


def test_a_choice_the_edges_make_just_past_their_ratio_is_not_confident():
    best = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.LARGE), np.array([0.0, 0.0, 0.0]), 1.0, 0.8)
    rival = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.MEDIUM), np.array([0.0, 0.0, 0.0]), 1.2, 0.8)
    keys = [(FLAT, Size.LARGE), (FLAT, Size.MEDIUM)]
    params = np.zeros((2, 3))
    for rival_score, margin in ((0.125, 0.125 / 0.12 - 1), (0.2, 0.2 / 0.12 - 1)):
        pick = edge_steps._better(None, best, [best, rival], _codes(keys), np.array([0.1, rival_score]), params, GRID, CAMERA)
        assert pick[0] == 1 and pick[1] == pytest.approx(margin)
    assert edge_steps._better(None, best, [best, rival], _codes(keys), np.array([0.1, 0.11]), params, GRID, CAMERA) is None


def test_a_rival_is_weighed_by_its_best_outline_fit():
    # held out 9600: a green medium flat on felt whose blob left its faint nose out. The
    # outline fit's medium flat laid tail first costs 0.8 mm more than the small flat
    # that won; a second one, pointing the other way, 1.6 mm more. Its edges are 2.3 times
    # the winner's: the cheaper fit is within the near tie, and the medium wins
    winner = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.SMALL), np.zeros(3), 1.0, 0.9)          # cost 1.5
    tail_first = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.MEDIUM), np.zeros(3), 1.3, 0.8)     # 2.3
    turned = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.MEDIUM), np.zeros(3), 1.6, 0.6)         # 3.6
    keys = [(FLAT, Size.SMALL), (FLAT, Size.MEDIUM)]
    score, params = np.array([0.068, 0.156]), np.zeros((2, 3))
    assert edge_steps._better(None, winner, [winner, tail_first, turned], _codes(keys), score, params,
                              GRID, CAMERA)[0] == 1
    # a rival whose best fit is past the tie is out, however strong its edges
    assert edge_steps._better(None, winner, [winner, turned], _codes(keys), score, params, GRID, CAMERA) is None


def test_a_small_flat_in_a_large_ones_nose_gives_way_to_a_medium_that_also_passes():
    # a small flat's edges lie on the nose of the piece, stronger than any whole outline's:
    # when the medium between it and the large winner beats the winner too, it is the medium
    best = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.LARGE), np.zeros(3), 1.0, 0.8)
    options = [best] + [fitting.Fit(fitting.Hypothesis(0, FLAT, size), np.zeros(3), 1.2, 0.8)
                        for size in (Size.MEDIUM, Size.SMALL)]
    keys = [(FLAT, Size.LARGE), (FLAT, Size.MEDIUM), (FLAT, Size.SMALL)]
    params = np.zeros((3, 3))
    for medium, pick in ((0.15, 1), (0.11, 2)):   # the medium past EDGE_RATIO (1.2), or not
        assert edge_steps._better(None, best, options, _codes(keys), np.array([0.1, medium, 0.19]), params,
                                  GRID, CAMERA)[0] == pick


def test_seeded_medium_flat_whose_nose_holds_a_small_ones_edges():
    # the outline fit took it for a large flat (its open base, as pale as the table, widens
    # the blob); a small flat in its nose steps 1.9 times the large one's edges, the medium 1.6
    assert_read_as(detect(rendered(9226)), (399.0, 261.6), 3.0, "yellow", Size.MEDIUM, Pose.FLAT)


LARGE_AT = np.array([100.0, 100.0, 0.0])


def half_lit_blob(rest_lum, rest_chroma=0.0):
    """A blob of a large upright's two lit faces (its +x half) at LARGE_AT, its other half
    `rest_lum` darker than the table (log) and `rest_chroma` tinted (the blob 0.5)."""
    from types import SimpleNamespace
    from vision import decide
    origin = np.array([60, 60])
    full = decide._model_mask(fitting.Fit(fitting.Hypothesis(0, UPRIGHT, Size.LARGE), LARGE_AT, 0.0, 0.0), (80, 80),
                              GRID.corner_mm(origin), GRID.res, CAMERA)
    lit = full.copy()
    lit[:, :40] = False
    rest = np.zeros_like(lit)
    rest[:, :40] = full[:, :40]     # the piece's other half; the table around it as it is
    lum = np.select([lit, rest], [-0.1, rest_lum], 0.0).astype(np.float32)
    chroma = np.select([lit, rest], [0.5, rest_chroma], 0.0).astype(np.float32)
    return SimpleNamespace(origin_px=origin, part=SimpleNamespace(mask=lit.astype(np.uint8) * 255), lum=lum,
                           chroma=chroma, dark=False, neighbours=None)


def test_a_bigger_upright_needs_its_added_faces_dark():
    # the large piece is only as likely as its edges say when the half the blob left out
    # is darker than the table; that half is about as big as the blob
    for rest, share in ((-0.6, (0.7, 1.3)), (0.0, (0.0, 0.0))):
        got = edge_steps._dark_added_share(half_lit_blob(rest), (UPRIGHT, Size.LARGE), LARGE_AT, GRID, CAMERA)
        assert share[0] <= got <= share[1]


def test_an_upright_holding_dark_faces_keeps_its_pose_against_a_flat_in_its_ridges():
    # path-traced 9205 and 9226: the blob is two lit faces, the upright adds the shaded
    # two; a small flat laid in its ridges steps 1.5-1.8 times as strongly
    upright = fitting.Fit(fitting.Hypothesis(0, UPRIGHT, Size.LARGE), LARGE_AT, 1.2, 0.8)
    flat = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.SMALL), np.array([105.0, 110.0, 270.0]), 1.0, 0.8)
    keys = [(UPRIGHT, Size.LARGE), (FLAT, Size.SMALL)]
    params = np.array([LARGE_AT, flat.params])
    score = np.array([0.1, 0.1 * edge_steps.OTHER_POSE_RATIO * 1.3])
    for rest, kept in ((-0.6, True), (0.0, False)):
        pick = edge_steps._better(half_lit_blob(rest), upright, [upright, flat], _codes(keys), score, params, GRID, CAMERA)
        assert (pick is None) is kept


def test_a_bigger_upright_adding_dark_faces_is_not_ruled_out_by_its_outline():
    # path-traced 9202 and 9214: the blob is a large upright's lit faces, which a medium
    # upright outlines far better; the large one's edges are stronger and the faces it
    # adds to the blob are shaded, so its poor outline fit does not rule it out
    medium = fitting.Fit(fitting.Hypothesis(0, UPRIGHT, Size.MEDIUM), np.array([104.0, 100.0, 0.0]), 0.8, 0.85)
    large = fitting.Fit(fitting.Hypothesis(0, UPRIGHT, Size.LARGE), LARGE_AT, 3.5, 0.7)
    keys = [(UPRIGHT, Size.MEDIUM), (UPRIGHT, Size.LARGE)]
    params = np.array([medium.params, LARGE_AT])
    score = np.array([0.1, 0.1 * edge_steps.EDGE_RATIO * 1.2])
    for rest, switched in ((-0.6, True), (0.0, False)):
        pick = edge_steps._better(half_lit_blob(rest), medium, [medium, large], _codes(keys), score, params, GRID, CAMERA)
        assert (pick is not None and pick[0] == 1) is switched


def test_an_upright_adding_dark_faces_beats_a_flat_at_the_size_ratio():
    # (its outline 0.8 mm costlier: past CLOSE_POSE_COST_MM, within the near tie)
    flat = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.SMALL), np.array([105.0, 110.0, 270.0]), 1.0, 0.8)
    upright = fitting.Fit(fitting.Hypothesis(0, UPRIGHT, Size.LARGE), LARGE_AT, 1.8, 0.8)
    keys = [(FLAT, Size.SMALL), (UPRIGHT, Size.LARGE)]
    params = np.array([flat.params, LARGE_AT])
    score = np.array([0.1, 0.1 * (edge_steps.EDGE_RATIO + edge_steps.OTHER_POSE_RATIO) / 2])
    for rest, switched in ((-0.6, True), (0.0, False)):
        pick = edge_steps._better(half_lit_blob(rest), flat, [flat, upright], _codes(keys), score, params, GRID, CAMERA)
        assert (pick is not None and pick[0] == 1) is switched


def test_a_dark_upright_with_ridges_is_a_piece_a_soft_dark_patch_is_not():
    from types import SimpleNamespace
    at = np.array([100.0, 100.0, 20.0])
    fit = fitting.Fit(fitting.Hypothesis(0, UPRIGHT, Size.MEDIUM), at, 1.0, 0.8)
    dark = (SimpleNamespace(dark=True), fit, 0.5)
    lit = (SimpleNamespace(dark=False), fit, 0.5)
    # path-traced green uprights: grey faces, from near black to half the table's light
    pyramid = drawn(UPRIGHT, Size.MEDIUM, at, colours=((25, 30, 25), (60, 70, 60), (35, 40, 35), (80, 90, 80)))
    assert edges.ridged_dark([lit, dark], edge_map(pyramid), CAMERA) == {1}
    # a shadow: as dark, no ridges, a soft outline
    patch = np.full((GRID.height, GRID.width, 3), (120, 140, 160), np.uint8)
    cv2.circle(patch, (100, 100), 11, (60, 70, 80), -1)
    patch = cv2.GaussianBlur(patch, (0, 0), 3.0)
    assert edges.ridged_dark([lit, dark], edge_map(patch), CAMERA) == set()


@pytest.mark.parametrize("seed, where", [(9207, (249.0, 58.0)), (9000, (68.0, 308.0)), (9000, (288.0, 169.0))])
def test_a_blotch_of_felt_tinted_by_chance_is_no_piece(seed, where):
    # a green felt's texture tints patches smaller than any piece: with no pyramid's
    # edges where the fit lays its model, they are table
    state = detect(rendered(seed))
    assert not [p for p in state.pieces if math.dist(p.position, where) < 10.0]


def test_a_dark_flat_needs_a_pyramids_edges():
    from types import SimpleNamespace
    at = np.array([90.0, 100.0, 0.0])
    fit = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.MEDIUM), at, 1.0, 0.8)
    dark = (SimpleNamespace(dark=True, area_mm2=300.0), fit, 0.5)
    piece = drawn(FLAT, Size.MEDIUM, at, colours=((25, 30, 25), (60, 70, 60), (35, 40, 35), (80, 90, 80), (50, 55, 50)))
    assert edges.edgeless([dark], edge_map(piece), CAMERA, 200.0) == set()
    # a darker streak of wood: as dark, soft, no ridges
    streak = np.full((GRID.height, GRID.width, 3), (120, 140, 160), np.uint8)
    cv2.fillConvexPoly(streak, np.array([[96, 94], [96, 106], [124, 100]], np.int32), (80, 95, 110))
    streak = cv2.GaussianBlur(streak, (0, 0), 3.0)
    assert edges.edgeless([dark], edge_map(streak), CAMERA, 200.0) == {0}


def test_a_dark_upright_needs_a_pyramids_edges_too():
    # Blender's Cycles 9260 and 9279: a soft dark streak of the wood's figure, fitted as an
    # upright and read yellow or green by the little hue it has, is no piece
    from types import SimpleNamespace
    at = np.array([100.0, 100.0, 20.0])
    fit = fitting.Fit(fitting.Hypothesis(0, UPRIGHT, Size.MEDIUM), at, 1.0, 0.8)
    dark = (SimpleNamespace(dark=True, area_mm2=400.0), fit, 0.5)
    streak = np.full((GRID.height, GRID.width, 3), (120, 140, 160), np.uint8)
    cv2.ellipse(streak, (100, 100), (9, 16), 0.0, 0.0, 360.0, (85, 100, 120), -1)
    streak = cv2.GaussianBlur(streak, (0, 0), 3.0)
    assert edges.edgeless([dark], edge_map(streak), CAMERA, 200.0) == {0}
    pyramid = drawn(UPRIGHT, Size.MEDIUM, at, colours=((25, 30, 25), (60, 70, 60), (35, 40, 35), (80, 90, 80)))
    assert edges.edgeless([dark], edge_map(pyramid), CAMERA, 200.0) == set()


def test_a_coloured_flat_also_needs_a_pyramids_edges():
    from types import SimpleNamespace
    at = np.array([90.0, 100.0, 0.0])
    fit = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.MEDIUM), at, 1.0, 0.8)
    big = (SimpleNamespace(dark=False, area_mm2=300.0), fit, 0.5)
    # a soft, bluish patch the size of a medium flat piece: a shadow lit by the room only
    patch = np.full((GRID.height, GRID.width, 3), (120, 140, 160), np.uint8)
    cv2.fillConvexPoly(patch, np.array([[96, 94], [96, 106], [124, 100]], np.int32), (110, 110, 120))
    patch = cv2.GaussianBlur(patch, (0, 0), 3.0)
    assert edges.edgeless([big], edge_map(patch), CAMERA, 200.0) == {0}
    piece = drawn(FLAT, Size.MEDIUM, at)
    assert edges.edgeless([big], edge_map(piece), CAMERA, 200.0) == set()


def test_a_flat_winner_ringed_by_an_uprights_faint_faces_is_that_upright():
    # path-traced nests and large uprights: the blob is two shaded faces, a half-square a
    # flat piece fits; the faces beyond it are darker than the table and tinted. Bare
    # shade beside a flat piece (darker, untinted) is not such a ring.
    flat = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.SMALL), np.array([105.0, 110.0, 270.0]), 1.0, 0.8)
    upright = fitting.Fit(fitting.Hypothesis(0, UPRIGHT, Size.LARGE), LARGE_AT, 2.5, 0.7)
    keys = [(FLAT, Size.SMALL), (UPRIGHT, Size.LARGE)]
    params = np.array([flat.params, LARGE_AT])
    score = np.array([0.1, 0.1 * (edge_steps.FAINT_RING_RATIO + 1.0) / 2])
    for rest_lum, rest_chroma, switched in ((-0.3, 0.3, True), (-0.3, 0.0, False), (0.0, 0.3, False)):
        pick = edge_steps._better(half_lit_blob(rest_lum, rest_chroma), flat, [flat, upright], _codes(keys), score, params,
                                  GRID, CAMERA)
        assert (pick is not None and pick[0] == 1) is switched


def test_a_pose_is_averaged_with_its_edges_best_lie_the_short_way_round(monkeypatch):
    # the outline says one pose, the edges another: the piece goes POSE_BY_EDGES of the
    # way, turning the short way (an upright's rotation is mod 90, a flat's heading mod 360)
    upright = fitting.Fit(fitting.Hypothesis(0, UPRIGHT, Size.LARGE), np.array([100.0, 100.0, 89.0]), 1.0, 0.9)
    flat = fitting.Fit(fitting.Hypothesis(1, FLAT, Size.SMALL), np.array([200.0, 100.0, 359.0]), 1.0, 0.9)
    coin = fitting.Fit(fitting.Hypothesis(2, "coin", None), np.array([300.0, 100.0, 0.0]), 1.0, 0.9)
    edges_say = np.array([[102.0, 100.0, 1.0], [200.0, 98.0, 3.0]])
    monkeypatch.setattr(edges, "refine", lambda emap, kinds, sizes, params, camera: (edges_say, np.ones(len(params))))
    out = edges.with_edges([("b0", upright, 0.5), ("b1", flat, 0.5), ("b2", coin, 0.5)], None, None)
    share = edges.POSE_BY_EDGES
    np.testing.assert_allclose(out[0][1].params, [100.0 + 2 * share, 100.0, 89.0 + 2 * share])
    np.testing.assert_allclose(out[1][1].params, [200.0, 100.0 - 2 * share, 359.0 + 4 * share])
    assert out[2][1] is coin and [c[0] for c in out] == ["b0", "b1", "b2"] and out[0][2] == 0.5
    assert upright.params[2] == 89.0   # the fits given are not changed


def test_a_tightly_fitted_upright_is_not_a_smaller_piece_and_its_shadow(monkeypatch):
    # path-traced 9233: a red large upright fitted at 1.08 mm; a small flat in its darker
    # faces steps 1.54 times its edges, and the paler lit faces pass for that flat's shadow
    from vision import decide
    monkeypatch.setattr(edge_steps, "_rest_is_shadow", lambda *a: True)
    flat_params = np.array([108.0, 100.0, 138.0])
    keys = [(UPRIGHT, Size.LARGE), (FLAT, Size.SMALL)]   # the small flat: too small for the fit to try
    params, score = np.array([LARGE_AT, flat_params]), np.array([0.1, 0.1 * edge_steps.UNFITTED_RATIO * 1.03])
    for rms, iou, replaced in ((0.87, 0.96, False), (1.3, 0.85, True)):
        upright = fitting.Fit(fitting.Hypothesis(0, UPRIGHT, Size.LARGE), LARGE_AT, rms, iou)
        assert (decide.cost(upright) < decide.TIGHT_FIT_COST_MM) is not replaced
        pick = edge_steps._better(half_lit_blob(0.0), upright, [upright], _codes(keys), score, params, GRID, CAMERA)
        assert (pick is not None and pick[0] == 1) is replaced


def test_the_other_pose_fitting_the_outline_nearly_as_well_needs_less_of_an_edge():
    # path-traced 9225, 9238 and 9802: a flat piece whose faint nose the blob left out
    # looks like the upright its tail does; the flat's outline is 0.3 mm costlier and its
    # edges 1.25 times the upright's, under the 1.35 another pose needs
    upright = fitting.Fit(fitting.Hypothesis(0, UPRIGHT, Size.SMALL), np.array([100.0, 100.0, 0.0]), 1.0, 0.8)
    keys = [(UPRIGHT, Size.SMALL), (FLAT, Size.SMALL)]
    params = np.array([upright.params, [90.0, 100.0, 0.0]])

    def switched(flat_rms, edge_ratio):
        flat = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.SMALL), params[1], flat_rms, 0.8)
        options = sorted([upright, flat], key=lambda f: f.rms)
        pick = edge_steps._better(half_lit_blob(0.0), upright, options, _codes(keys), np.array([0.1, 0.1 * edge_ratio]),
                                  params, GRID, CAMERA)
        return pick is not None and pick[0] == 1

    assert switched(1.3, 1.25)
    assert not switched(1.3, 1.15)     # under CLOSE_POSE_RATIO
    assert not switched(1.7, 1.25)     # its outline fits far worse: OTHER_POSE_RATIO
    assert switched(1.7, 1.4)
    assert not switched(0.8, 1.25)     # cheaper, yet a rule chose the upright: it stands


def test_a_neighbours_plastic_is_not_an_uprights_shaded_faces():
    # crowded 9530: a large upright laid over a yellow small upright and the green flat
    # beside it steps 1.5 times as strongly; the flat's plastic beyond the blob is darker
    # than the table, which passed for the large one's shaded faces (_dark_added_share)
    assert_read_as(detect(rendered(9530, crowd=1.0)), (339.0, 394.0), 2.0, "yellow", Size.SMALL, Pose.UPRIGHT)


def test_a_winner_is_weighed_at_its_best_start_that_covers_its_blob():
    # path-traced 9211 at 256 samples: a large upright's blob held only its coloured faces,
    # the outline fit turned it 15° off, and there its edges scored 0.21 against 0.31 at
    # another start; a flat's 0.29 beat the first by the other pose's ratio
    from types import SimpleNamespace
    from vision.decide import outline_of, polygon_mask
    grid = TableGrid(0.0, 0.0, 1.0, 80, 80)
    camera = np.array([40.0, 40.0, 950.0])
    upright = fitting.Hypothesis(0, UPRIGHT, Size.LARGE)
    true_pose, fitted_pose = np.array([40.0, 40.0, 26.0]), np.array([40.0, 41.0, 11.0])
    piece = polygon_mask(outline_of(fitting.Fit(upright, true_pose, 1.0, 0.8), camera), (80, 80), np.zeros(2), 1.0)
    # the table around the blob is bare (no shaded faces beyond it)
    blob = SimpleNamespace(origin_px=np.array([0.0, 0.0]), part=SimpleNamespace(mask=piece.astype(np.uint8) * 255),
                           dark=False, neighbours=None, lum=np.zeros((80, 80), np.float32),
                           chroma=np.zeros((80, 80), np.float32))
    winner = fitting.Fit(upright, fitted_pose, 1.0, 0.8)
    flat = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.MEDIUM), np.array([45.0, 35.0, 300.0]), 1.1, 0.8)
    keys = [(UPRIGHT, Size.LARGE), (UPRIGHT, Size.LARGE), (FLAT, Size.MEDIUM)]
    params = np.array([fitted_pose, true_pose, flat.params])
    score = np.array([0.21, 0.31, 0.29])
    assert edge_steps._better(blob, winner, [winner, flat], _codes(keys), score, params, grid, camera) is None
    # the same score at a start off the blob (a neighbour's edges) does not count
    params[1] = true_pose + [12.0, 0.0, 0.0]
    pick = edge_steps._better(blob, winner, [winner, flat], _codes(keys), score, params, grid, camera)
    assert pick is not None and pick[0] == 2


def test_a_flat_winner_turned_round_is_not_the_winner_at_its_best():
    # held out N 9724: a red medium upright's blob fitted as a flat; its better start lay
    # 19 mm off, turned 159° round: another reading of the blob, which then beat the
    # upright rival the edges favoured
    from types import SimpleNamespace
    grid = TableGrid(0.0, 0.0, 1.0, 80, 80)
    camera = np.array([40.0, 40.0, 950.0])
    flat = fitting.Fit(fitting.Hypothesis(0, FLAT, Size.MEDIUM), np.array([40.0, 40.0, 90.0]), 1.0, 0.8)
    blob = SimpleNamespace(origin_px=np.array([0.0, 0.0]), part=SimpleNamespace(mask=np.full((80, 80), 255, np.uint8)))
    codes = _codes([(FLAT, Size.MEDIUM)] * 2)
    score = np.array([0.135, 0.185])
    same_way = np.array([[40.0, 40.0, 90.0], [40.0, 41.0, 100.0]])
    assert edge_steps._winner_at_its_best(blob, flat, codes, score, same_way, grid, camera)[0] == 0.185
    turned = np.array([[40.0, 40.0, 90.0], [40.0, 41.0, 249.0]])
    assert edge_steps._winner_at_its_best(blob, flat, codes, score, turned, grid, camera)[0] == 0.135
