"""Move rulings against cases derived by hand, and every contradiction a state can carry."""

import math

import pytest

from domain import Piece, Size, StateError, TableState
from referee.warpships import ContradictionError, rule_move
from referee.warpships.placement import FLUSH_TOLERANCE_MM as TOL

R = 50.8  # the default warp's radius
HALF_L = Size.LARGE.base / 2


def at(c, r, deg):
    return (c[0] + r * math.cos(math.radians(deg)), c[1] + r * math.sin(math.radians(deg)))


def launch_states(tail, heading, extra=(), stack=("large", "medium", "small")):
    nest = Piece.upright("n", "red", "large", (0.0, 0.0), stack=stack)
    left = [nest.moved(size=nest.stack[1], stack=nest.stack[1:])] if len(stack) > 1 else []
    before = TableState((nest, *extra))
    after = TableState((*left, Piece.flat("s", "red", "large", tail, heading), *extra))
    return before, after


def test_straight_launch_warp_between_edge_and_tail():
    before, after = launch_states((HALF_L + 2 * R, 0.0), 0.0)
    r = rule_move(before, after)
    assert (r.kind, r.legal, r.ship, r.ship_before) == ("launch", True, "s", "n")
    assert r.warp_center == pytest.approx((HALF_L + R, 0.0), abs=1e-6)
    assert r.margin == pytest.approx(TOL)


@pytest.mark.parametrize("deg", [-10, 0, 35, 90, 150, 190])
def test_launch_anywhere_round_the_warp(deg):
    # warp flush with the +y edge, 6 mm off the edge's middle; ship tail flush at angle deg
    c = (6.0, HALF_L + R)
    before, after = launch_states(at(c, R, deg), deg)
    r = rule_move(before, after)
    assert r.legal, r.reason
    # the placement reported really is flush with the +y edge and with the tail
    wc = r.warp_center
    assert abs(wc[1] - (HALF_L + R)) <= TOL and abs(wc[0]) <= HALF_L + TOL
    tail = after.piece("s").tail
    assert abs(math.dist(wc, tail) - R) <= TOL


def test_launch_with_the_tail_10mm_short_of_the_warp():
    before, after = launch_states((HALF_L + 2 * R + 10.0, 0.0), 0.0)
    r = rule_move(before, after)
    assert not r.legal and r.warp_center is None
    assert r.margin == pytest.approx(TOL - 10.0, abs=1e-6)
    assert r.reason == "the new tail is 112 mm from the base of n; the warp spans only 101.6 mm"


def test_warp_touching_only_a_corner_of_the_base_is_not_flush():
    # the warp against the (+x, +y) corner at 45 degrees, the ship flush on its far side:
    # no warp flush along an edge can also reach that tail
    c = at((HALF_L, HALF_L), R, 45)
    before, after = launch_states(at(c, R, 45), 45.0)
    r = rule_move(before, after)
    assert not r.legal and r.margin < -20


def test_warp_slides_along_the_edge_to_clear_a_nearby_ship():
    # straight launch; a small square sits 1 mm off the centred warp's rim on the +y side.
    # Edge and tail loci coincide (x = 63.5, |y| <= 12.7), so the warp may slide towards -y:
    # from y = 1 - TOL on it is TOL clear, and the flush tolerance binds instead.
    b = Piece.upright("b", "blue", "small", (HALF_L + R, R + 1.0 + Size.SMALL.base / 2))
    before, after = launch_states((HALF_L + 2 * R, 0.0), 0.0, extra=(b,))
    r = rule_move(before, after)
    assert r.legal and r.margin == pytest.approx(TOL)
    # the warp nearest the middle of the edge that has that room (sampled every 0.5 mm)
    assert r.warp_center[0] == pytest.approx(HALF_L + R) and 0.5 - TOL <= r.warp_center[1] <= 1.0 - TOL


def test_launch_blocked_by_a_ship_where_the_warp_must_lie():
    blocker = Piece.upright("b", "blue", "small", (HALF_L + R, 30.0))
    before, after = launch_states((HALF_L + 2 * R, 0.0), 0.0, extra=(blocker,))
    r = rule_move(before, after)
    assert not r.legal and r.blocker == "b"
    assert "overlap b" in r.reason


def test_launch_from_a_single_ship_nest_landing_1mm_into_a_ship():
    # the large ship is 46.2 mm long; put a medium square so its near edge is 1 mm short
    # of the nose (measured states may show touching pieces that far "inside" each other)
    x = HALF_L + 2 * R + Size.LARGE.slant - 1.0 + Size.MEDIUM.base / 2
    target = Piece.upright("t", "green", "medium", (x, 0.0))
    before, after = launch_states((HALF_L + 2 * R, 0.0), 0.0, extra=(target,), stack=("large",))
    r = rule_move(before, after)
    assert not r.legal and r.blocker == "t"
    assert r.margin == pytest.approx(-1.0, abs=1e-6)
    assert r.reason == "the ship lands on t (overlapping it by 1.0 mm)"


def fly_states(new_tail, new_heading, extra=()):
    old = Piece.flat_from_nose("f", "blue", "large", (0.0, 0.0), 0.0)
    return (TableState((old, *extra)),
            TableState((Piece.flat("f", "blue", "large", new_tail, new_heading), *extra)))


def test_contract_example_fly_too_far():
    before, after = fly_states((231.0, 0.0), 0.0)
    r = rule_move(before, after)
    assert (r.kind, r.legal, r.warp_center) == ("fly", False, None)
    assert r.reason == "the new tail is 231 mm from the old nose; the warp spans only 101.6 mm"
    assert r.margin == pytest.approx(TOL - (231.0 - 2 * R), abs=1e-6)


@pytest.mark.parametrize("phi,deg", [(0, 0), (0, 180), (40, 100), (-60, -150), (70, 10)])
def test_fly_warp_on_the_nose_cone(phi, deg):
    c = at((0.0, 0.0), R, phi)  # warp touching the nose from direction phi
    before, after = fly_states(at(c, R, deg), deg)
    r = rule_move(before, after)
    assert r.legal, r.reason
    assert abs(math.dist(r.warp_center, (0.0, 0.0)) - R) <= TOL


def test_fly_with_the_warp_against_the_ships_side_is_illegal():
    # at 120 degrees off the heading the disc would lie across the ship's body, not its nose
    c = at((0.0, 0.0), R, 120)
    before, after = fly_states(at(c, R, 200), 200)
    r = rule_move(before, after)
    assert not r.legal and r.margin < -10


def test_ids_need_not_match():
    before, after = launch_states((HALF_L + 2 * R, 0.0), 0.0)
    renamed = TableState(tuple(p.moved(id=f"x{i}") for i, p in enumerate(after.pieces)))
    r = rule_move(before, renamed)
    assert r.legal and r.ship == "x1" and r.ship_before == "n"


def test_too_close_to_call_when_the_margin_is_within_the_error():
    before, after = launch_states((HALF_L + 2 * R + TOL - 0.3, 0.0), 0.0)
    r = rule_move(before, after, uncertainty_mm=1.0)
    assert r.legal and r.margin == pytest.approx(0.3, abs=1e-6)
    assert r.too_close_to_call and r.to_dict()["call"] == "too close to call"
    assert rule_move(before, after).to_dict()["call"] == "legal"


def test_contract_fields_come_first():
    d = rule_move(*launch_states((HALF_L + 2 * R, 0.0), 0.0)).to_dict()
    assert list(d)[:6] == ["ship", "kind", "legal", "reason", "warp_center", "margin"]
    assert d["warp_center"] == [63.5, 0.0]


# -- contradictions: a clear error, never a ruling -------------------------------------------
def test_nothing_moved():
    before, _ = launch_states((HALF_L + 2 * R, 0.0), 0.0)
    with pytest.raises(ContradictionError, match="no ship moved"):
        rule_move(before, before)


def test_two_ships_moved():
    other = Piece.flat("o", "green", "small", (300.0, 0.0), 0.0)
    before, after = launch_states((HALF_L + 2 * R, 0.0), 0.0, extra=(other,))
    after = after.with_piece(other.moved(tail=(300.0, 80.0), nose=(300.0 + other.size.slant, 80.0)))
    with pytest.raises(ContradictionError, match="more than one ship moved"):
        rule_move(before, after)


def test_ship_vanished_without_explanation():
    other = Piece.flat("o", "green", "small", (300.0, 0.0), 0.0)
    before, after = launch_states((HALF_L + 2 * R, 0.0), 0.0, extra=(other,))
    with pytest.raises(ContradictionError, match="vanished"):
        rule_move(before, after.without("o"))


def test_full_nest_vanishing_or_growing_is_refused():
    before, after = launch_states((HALF_L + 2 * R, 0.0), 0.0)
    with pytest.raises(ContradictionError, match="vanished"):
        rule_move(before, after.without("n"))
    grown = after.with_piece(after.piece("n").moved(size=Size.SMALL, stack=(Size.SMALL,)))
    with pytest.raises(ContradictionError, match="held"):
        rule_move(before, grown)


def test_overlapping_ships_in_a_state_are_refused():
    before, after = launch_states((HALF_L + 2 * R, 0.0), 0.0)
    clash = Piece.upright("c", "blue", "large", (HALF_L + 2 * R + 10, 0.0))
    with pytest.raises(ContradictionError, match="overlap"):
        rule_move(before, after.with_piece(clash))


def test_unknown_colour_and_missing_fields_are_state_errors():
    with pytest.raises(StateError, match="color unknown 'pink'"):
        TableState.from_dict({"pieces": [{"id": "a", "color": "pink", "size": "small", "pose": "flat",
                                          "tail": [0, 0], "heading": 0}]})
    with pytest.raises(StateError, match="center"):
        TableState.from_dict({"pieces": [{"id": "a", "color": "red", "size": "small", "pose": "upright"}]})


def test_warp_size_change_is_refused():
    before, after = launch_states((HALF_L + 2 * R, 0.0), 0.0)
    with pytest.raises(ContradictionError, match="warp changed"):
        rule_move(before, TableState(after.pieces, warp_diameter=120.0))


def test_larger_warp_setting_is_used():
    nest = Piece.upright("n", "red", "large", (0.0, 0.0))
    before = TableState((nest,), warp_diameter=120.0)
    after = TableState((Piece.flat("s", "red", "large", (HALF_L + 120.0, 0.0), 0.0),), warp_diameter=120.0)
    r = rule_move(before, after)
    assert r.legal and r.warp_center == pytest.approx((HALF_L + 60.0, 0.0), abs=1e-6)


def test_a_nest_that_shrinks_with_no_ship_landing_is_a_contradiction_not_a_crash():
    # e.g. a ship lifted off its nest and kept in the hand, or a teleport the camera saw
    before = TableState((Piece.upright("n", "red", "large", (100, 100), stack=["large", "medium"]),))
    after = TableState((Piece.upright("n", "red", "medium", (100, 100), stack=["medium"]),))
    with pytest.raises(ContradictionError, match="no red large flat ship appeared"):
        rule_move(before, after)
    # the same without stacks (the detector reports only the outermost piece)
    before = TableState((Piece.upright("n", "red", "large", (100, 100)),))
    after = TableState((Piece.upright("n", "red", "medium", (100, 100)),))
    with pytest.raises(ContradictionError, match="lost its outermost ship"):
        rule_move(before, after)
