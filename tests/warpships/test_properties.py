"""Properties: rulings ignore where the table is; generated moves are legal; an independent
shapely check agrees with the exact geometry."""

import functools
import math
from fractions import Fraction

import pytest
import shapely
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from domain import Piece, Pose, Size, TableState
from referee.warpships import ContradictionError, candidate_moves, rule_beam, rule_move, setup_table
from referee.warpships.odds import FACES, bonus, hits
from referee.warpships.placement import FLUSH_TOLERANCE_MM as TOL

COLOURS = ("red", "yellow", "green", "blue")
SIZES = ("small", "medium", "large")


def rigid(state: TableState, deg: float, shift) -> TableState:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))

    def move(p):
        return (c * p[0] - s * p[1] + shift[0], s * p[0] + c * p[1] + shift[1])

    out = []
    for p in state.pieces:
        if p.pose is Pose.UPRIGHT:
            out.append(Piece.upright(p.id, p.color, p.size, move(p.center), p.rotation + deg, stack=p.stack))
        else:
            out.append(p.moved(tail=move(p.tail), nose=move(p.nose), heading=(p.heading + deg) % 360))
    return TableState(tuple(out), state.coins, state.warp_diameter)


piece_st = st.builds(
    lambda kind, col, size, x, y, a: (Piece.upright if kind else Piece.flat)(
        "", col, size, (x, y), a),
    st.booleans(), st.sampled_from(COLOURS), st.sampled_from(SIZES),
    st.floats(-250, 250), st.floats(-250, 250), st.floats(0, 360))


@st.composite
def tables(draw):
    firing = Piece.flat_from_nose("f", draw(st.sampled_from(COLOURS)), draw(st.sampled_from(SIZES)),
                                  (0.0, 0.0), draw(st.floats(0, 360)))
    others = [p.moved(id=f"p{i}") for i, p in enumerate(draw(st.lists(piece_st, min_size=1, max_size=10)))]
    state = TableState((firing, *others))
    # ships apart (the referee tolerates 1.5 mm of measured overlap; inside such an overlap
    # two ships' order along the beam is a tie that no ruling can settle)
    polys = [shapely.Polygon(p.footprint()) for p in state.pieces]
    assume(all(a.distance(b) > 0.01 for i, a in enumerate(polys) for b in polys[i + 1:]))
    return state


def shapely_first_hit(state: TableState, offset: float, turn: float = 0.0):
    """Independent first hit: a long shapely ray from the nose shifted sideways by `offset`
    mm and turned by `turn` degrees."""
    f = state.piece("f")
    d = (math.cos(math.radians(f.heading + turn)), math.sin(math.radians(f.heading + turn)))
    o = (f.nose[0] - d[1] * offset, f.nose[1] + d[0] * offset)
    ray = shapely.LineString([o, (o[0] + 5000 * d[0], o[1] + 5000 * d[1])])
    best = (math.inf, None)
    for p in state.pieces:
        if p.id == "f":
            continue
        hit = ray.intersection(shapely.Polygon(p.footprint()))
        if not hit.is_empty:
            best = min(best, (shapely.Point(o).distance(hit), p.id))
    return best


@settings(max_examples=60, deadline=None)
@given(tables(), st.floats(0, 360), st.floats(-500, 500), st.floats(-500, 500))
def test_beam_unchanged_by_moving_the_whole_table(state, deg, dx, dy):
    a = rule_beam(state, "f")
    b = rule_beam(rigid(state, deg, (dx, dy)), "f")
    assert (a.target, a.valid, a.reason) == (b.target, b.valid, b.reason)
    for x, y in ((a.distance, b.distance), (a.clearance, b.clearance), (a.turn, b.turn)):
        assert (x is None) == (y is None) and (x is None or x == pytest.approx(y, abs=1e-6))


@settings(max_examples=60, deadline=None)
@given(tables())
def test_beam_agrees_with_an_independent_shapely_ray(state):
    r = rule_beam(state, "f")
    dist, target = shapely_first_hit(state, 0.0)
    assert r.target == target
    if target is not None:
        assert r.distance == pytest.approx(dist, abs=1e-6)
    if r.clearance is not None and r.clearance > 0.02:
        # just inside the clearance, on both sides, the answer stands; just past it on the
        # limiting side, it changes
        for side in (1, -1):
            assert shapely_first_hit(state, side * (r.clearance - 0.01))[1] == r.target
        side = 1 if r.clear_plus == r.clearance else -1
        assert shapely_first_hit(state, side * (r.clearance + 0.01))[1] != r.target
    if 0.002 < r.turn < 89 and (r.distance is None or r.distance > 1e-6):  # not nose-to-ship
        assert shapely_first_hit(state, 0.0, r.turn - 0.001)[1] == r.target
        assert shapely_first_hit(state, 0.0, -r.turn + 0.001)[1] == r.target
        changed = [shapely_first_hit(state, 0.0, t)[1] != r.target for t in (r.turn + 0.001, -r.turn - 0.001)]
        assert any(changed)


@functools.lru_cache(maxsize=None)
def generated(seed: int):
    """Legal moves on a fresh set-up, and (after one launch) on a table with a flying ship."""
    start = setup_table(seed)
    launches = [c for c, _ in candidate_moves(start)]
    mid = launches[len(launches) // 2].after
    flies = [c for c, _ in candidate_moves(mid) if c.kind == "fly"]
    return start, launches, mid, flies


def check_placement(before: TableState, after: TableState, ruling) -> None:
    """The reported warp really sits flush on both contacts and clear of everything else."""
    c = shapely.Point(ruling.warp_center)
    R = before.warp_diameter / 2
    start = shapely.Polygon(before.piece(ruling.ship_before).footprint())
    landed = after.piece(ruling.ship)
    tail_edge = shapely.LineString(landed.footprint()[:2])
    assert abs(c.distance(start) - R) <= TOL + 1e-6
    assert abs(c.distance(tail_edge) - R) <= TOL + 1e-6
    if ruling.kind == "fly":
        assert abs(c.distance(shapely.Point(before.piece(ruling.ship_before).nose)) - R) <= TOL + 1e-6
    for p in before.pieces:
        if p.id != ruling.ship_before:
            assert c.distance(shapely.Polygon(p.footprint())) >= R - 1e-6


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 3), st.integers(0, 10 ** 6), st.booleans())
def test_every_generated_move_is_ruled_legal_with_a_real_placement(seed, pick, fly):
    start, launches, mid, flies = generated(seed)
    before, moves = (mid, flies) if fly and flies else (start, launches)
    cand = moves[pick % len(moves)]
    r = rule_move(before, cand.after)
    assert r.legal and r.kind == cand.kind and r.ship == cand.new_id, r.reason
    check_placement(before, cand.after, r)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 3), st.integers(0, 10 ** 6), st.floats(0, 360), st.floats(-400, 400), st.booleans(),
       st.floats(-30, 30))
def test_move_ruling_unchanged_by_moving_the_whole_table(seed, pick, deg, dx, fly, nudge):
    start, launches, mid, flies = generated(seed)
    before, moves = (mid, flies) if fly and flies else (start, launches)
    cand = moves[pick % len(moves)]
    # nudge the landed ship sideways so illegal moves are compared too
    p = cand.after.piece(cand.new_id)
    after = cand.after.with_piece(p.moved(tail=(p.tail[0] + nudge, p.tail[1]),
                                          nose=(p.nose[0] + nudge, p.nose[1])))
    try:
        a = rule_move(before, after)
    except ContradictionError:  # nudged onto another ship
        assume(False)
    b = rule_move(rigid(before, deg, (dx, -dx)), rigid(after, deg, (dx, -dx)))
    assert (a.legal, a.kind, a.ship) == (b.legal, b.kind, b.ship)
    assert a.margin == pytest.approx(b.margin, abs=1e-6)


def test_die_odds_match_the_facts():
    sixth = Fraction(1, 6)
    for size in Size:
        assert sum(sixth for f in FACES if hits(f, size)) == Fraction(1, 2)
    for a in Size:
        for b in Size:
            p = sum(sixth for f in FACES if bonus(f, a, b))
            assert p == (0 if a is b else sixth)
