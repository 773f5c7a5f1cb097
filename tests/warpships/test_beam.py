"""Beam rulings against cases derived by hand from the rules and facts.md."""

import math

import pytest

from domain import Piece, Size, TableState
from referee.warpships import ShipError, rule_beam

HALF_L = Size.LARGE.base / 2  # 12.7
HALF_S = Size.SMALL.base / 2  # 7.145


def shooter(nose=(0.0, 0.0), heading=0.0, colour="red", size="small", pid="f"):
    return Piece.flat_from_nose(pid, colour, size, nose, heading)


def table(*pieces):
    return TableState(tuple(pieces))


def test_square_ahead_distance_and_clearance_exact():
    # near edge at x = 150 - 12.7; the beam runs 5 mm off the square's middle line
    st = table(shooter(), Piece.upright("t", "green", "large", (150.0, 5.0)))
    r = rule_beam(st, "f")
    assert (r.target, r.valid, r.reason) == ("t", True, "first ship on the beam is green")
    assert r.distance == pytest.approx(150.0 - HALF_L, abs=1e-9)
    assert r.clearance == pytest.approx(HALF_L - 5.0, abs=1e-9)
    assert r.clear_plus == pytest.approx(HALF_L + 5.0, abs=1e-9)  # the +y side has more room


def test_diamond_corner_first_contact():
    # a square turned 45 degrees presents its corner: contact at centre - half diagonal
    st = table(shooter(), Piece.upright("t", "blue", "large", (200.0, 0.0), rotation=45))
    r = rule_beam(st, "f")
    assert r.distance == pytest.approx(200.0 - HALF_L * math.sqrt(2), abs=1e-9)
    assert r.clearance == pytest.approx(HALF_L * math.sqrt(2), abs=1e-9)


def test_flat_target_hit_on_its_side_edge():
    # a small flat ship pointing +y with its tail edge on y = 0; the beam at y = 2 (between
    # the tail edge and the raised corners at y = f) meets its straight side at x = 200 - 7.145
    target = Piece.flat("t", "yellow", "small", (200.0, 0.0), 90.0)
    f = Size.SMALL.flat_raised_offset
    assert f > 2.0
    st = table(shooter(nose=(0.0, 2.0)), target)
    r = rule_beam(st, "f")
    assert r.distance == pytest.approx(200.0 - HALF_S, abs=1e-9)
    # shifting towards -y by 2 mm reaches the tail edge line: the beam leaves the ship there
    assert r.clear_minus == pytest.approx(2.0, abs=1e-9)


def test_heading_not_along_an_axis():
    # heading 30 degrees; a large square centred on the beam line 100 mm beyond the nose,
    # turned to face the beam: its near edge is 100 - 12.7 away
    d = (math.cos(math.radians(30)), math.sin(math.radians(30)))
    nose = (10.0, 20.0)
    centre = (nose[0] + 100 * d[0], nose[1] + 100 * d[1])
    st = table(shooter(nose, 30.0), Piece.upright("t", "green", "large", centre, rotation=30))
    r = rule_beam(st, "f")
    assert r.distance == pytest.approx(100 - HALF_L, abs=1e-9)
    assert r.clearance == pytest.approx(HALF_L, abs=1e-9)


def test_only_the_first_ship_counts_and_same_colour_is_no_shot():
    st = table(shooter(colour="red"), Piece.upright("near", "red", "small", (80.0, 0.0)),
               Piece.upright("far", "green", "large", (200.0, 0.0)))
    r = rule_beam(st, "f")
    assert (r.target, r.valid) == ("near", False)
    assert r.reason == "first ship on the beam is the same colour (red): no shot"
    assert r.distance == pytest.approx(80.0 - HALF_S, abs=1e-9)


def test_clearance_stops_where_a_nearer_ship_starts_to_block():
    # target large square at x = 200; a small square at x = 100 centred 15 mm to the side:
    # its span begins 15 - 7.145 = 7.855 mm off the beam, and it stands in front
    st = table(shooter(), Piece.upright("t", "green", "large", (200.0, 0.0)),
               Piece.upright("b", "blue", "small", (100.0, 15.0)))
    r = rule_beam(st, "f")
    assert r.target == "t"
    assert r.clear_plus == pytest.approx(15.0 - HALF_S, abs=1e-9)
    assert r.clear_minus == pytest.approx(HALF_L, abs=1e-9)
    assert r.clearance == pytest.approx(15.0 - HALF_S, abs=1e-9)


def test_ship_behind_the_target_does_not_shrink_clearance():
    st = table(shooter(), Piece.upright("t", "green", "large", (100.0, 0.0)),
               Piece.upright("b", "blue", "small", (200.0, 10.0)))
    assert rule_beam(st, "f").clearance == pytest.approx(HALF_L, abs=1e-9)


def test_ships_behind_the_nose_are_never_hit():
    st = table(shooter(), Piece.upright("t", "green", "large", (-60.0, 0.0)))
    r = rule_beam(st, "f")
    assert (r.target, r.valid, r.distance) == (None, False, None)
    assert r.reason == "the beam meets no ship"
    assert r.clearance is None  # nothing it could swing onto by sliding sideways


def test_no_target_clearance_is_room_to_the_nearest_span():
    st = table(shooter(), Piece.upright("t", "green", "large", (150.0, 30.0)))
    r = rule_beam(st, "f")
    assert r.target is None
    assert r.clearance == pytest.approx(30.0 - HALF_L, abs=1e-9)


def test_nest_target_is_its_outermost_ship():
    nest = Piece.upright("n", "blue", "large", (120.0, 0.0), stack=["large", "medium", "small"])
    r = rule_beam(table(shooter(), nest), "f")
    assert r.target == "n" and r.to_dict()["target_size"] == "large"


def test_upright_ship_cannot_fire_and_unknown_ids_are_refused():
    st = table(shooter(), Piece.upright("u", "green", "large", (150.0, 0.0)))
    with pytest.raises(ShipError, match="upright"):
        rule_beam(st, "u")
    with pytest.raises(ShipError, match="no ship 'zz'"):
        rule_beam(st, "zz")


def test_uncertainty_makes_a_grazing_beam_too_close_to_call():
    st = table(shooter(), Piece.upright("t", "green", "large", (150.0, 12.0)))
    r = rule_beam(st, "f", uncertainty_mm=1.0)
    assert r.clearance == pytest.approx(0.7, abs=1e-9)
    assert r.too_close_to_call and r.to_dict()["call"] == "too close to call"
    assert "too close to call" in r.to_dict()["reason"]
    assert not rule_beam(st, "f").too_close_to_call


def test_to_dict_has_exactly_the_contract_fields_first():
    st = table(shooter(), Piece.upright("t", "green", "large", (150.0, 5.0)))
    d = rule_beam(st, "f").to_dict()
    assert list(d)[:6] == ["ship", "target", "valid", "reason", "distance", "clearance"]
    assert d["distance"] == 137.3 and d["clearance"] == 7.7


def test_turn_is_the_exact_angle_to_the_targets_near_corner():
    # square large at x = 150: the beam turned about the nose leaves it past the corner
    # (137.3, +-12.7), i.e. at atan(12.7 / 137.3)
    st = table(shooter(), Piece.upright("t", "green", "large", (150.0, 0.0)))
    r = rule_beam(st, "f")
    assert r.turn == pytest.approx(math.degrees(math.atan2(HALF_L, 150.0 - HALF_L)), abs=1e-9)
    assert rule_beam(st, "f", heading_uncertainty_deg=6.0).call == "too close to call"
    assert rule_beam(st, "f", heading_uncertainty_deg=5.0).call == "shot"


def test_turn_stops_where_a_nearer_ship_comes_into_the_aim():
    # a small square at (60, 10): the first of it the turning beam meets is its far corner
    # on the near side, (67.145, 2.855), at atan(2.855 / 67.145) -- before the target's edge
    st = table(shooter(), Piece.upright("t", "green", "large", (150.0, 0.0)),
               Piece.upright("b", "blue", "small", (60.0, 10.0)))
    r = rule_beam(st, "f")
    assert r.turn == pytest.approx(math.degrees(math.atan2(10 - HALF_S, 60 + HALF_S)), abs=1e-9)


def test_stated_uncertainty_widens_the_call_and_confidence_does_not():
    # clearance 1.5 mm: a shot when measured exactly, too close to call within 2 mm
    sure = table(shooter(), Piece.upright("t", "green", "large", (150.0, 11.2)))
    unsure = table(shooter(), Piece.upright("t", "green", "large", (150.0, 11.2), confidence=0.5))
    assert rule_beam(sure, "f").call == "shot"
    assert rule_beam(unsure, "f").call == "shot"
    r = rule_beam(sure, "f", uncertainty_mm=2.0)
    assert r.clearance == pytest.approx(1.5, abs=1e-9) and r.call == "too close to call"
