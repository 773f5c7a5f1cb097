"""Debouncing and identities: agreement within tolerance, ids across moves, corrections stick."""

from __future__ import annotations

from domain import Color, Piece, Size, TableState
from vision.live.tracking import Debouncer, Tracker, same_places, same_table

NEST = Piece.upright("n1", "green", "large", (300, 300), stack=("large", "medium", "small"))
BLUE = Piece.upright("b1", "blue", "small", (500, 200))


def table(*pieces):
    return TableState(tuple(pieces))


def test_readings_agree_within_detector_noise_but_not_beyond():
    a = table(NEST, BLUE)
    assert same_table(a, table(NEST.moved(center=(302, 299)), BLUE))
    assert not same_table(a, table(NEST.moved(center=(309, 300)), BLUE))
    assert not same_table(a, table(NEST))
    assert not same_table(a, table(NEST.moved(stack=NEST.stack[:2]), BLUE))  # the nest lost a piece


def test_the_debouncer_needs_k_agreeing_readings_and_confirms_each_run_once():
    d = Debouncer(3)
    a, b = table(NEST), table(NEST, BLUE)
    assert [d.push(x) for x in (a, b, a, a)] == [None, None, None, None]
    assert d.push(a) == a and d.push(a) is None
    assert d.push(b) is None


def test_a_launched_ship_keeps_its_id_and_the_rest_of_the_nest_gets_a_new_one():
    t = Tracker(table(NEST, BLUE))
    launched = Piece.flat("x", "green", "large", (330, 300), 0)
    rest = Piece.upright("y", "green", "medium", (300, 300), stack=("medium", "small"))
    after = t.adopt(table(rest, launched, BLUE.moved(id="z")))
    ids = {(p.size.value, p.pose.value): p.id for p in after.pieces}
    assert ids[("large", "flat")] == "n1"
    assert ids[("small", "upright")] == "b1"
    assert ids[("medium", "upright")] not in ("n1", "b1")


def test_a_players_correction_sticks_to_that_piece_in_later_readings():
    t = Tracker(table(NEST, BLUE))
    t.correct("b1", {"color": "yellow"})
    again = t.adopt(table(NEST.moved(id="q"), BLUE.moved(id="r", center=(501, 201))))
    fixed = next(p for p in again.pieces if p.id == "b1")
    assert fixed.color.value == "yellow"
    moved = t.adopt(table(NEST.moved(id="q"), BLUE.moved(id="r", center=(560, 260))))
    assert next(p for p in moved.pieces if p.id == "b1").color.value == "yellow"


def test_unconfirmed_readings_do_not_use_up_ids():
    t = Tracker()
    reading = table(NEST.moved(id="d1"), BLUE.moved(id="d2"))
    first, second = t.adopt(reading), t.adopt(reading)
    assert [p.id for p in first.pieces] == [p.id for p in second.pieces] == ["p1", "p2"]
    t.confirm(second)
    assert t.adopt(table(NEST, BLUE, Piece.upright("d3", "red", "small", (100, 100)))).pieces[2].id == "p3"


def test_a_piece_read_in_another_colour_where_it_stood_keeps_its_id_and_colour():
    t = Tracker(table(NEST, BLUE))
    flicker = t.adopt(table(NEST.moved(id="q"), BLUE.moved(id="r", color=Color.WHITE, size=Size.MEDIUM)))
    blue = next(p for p in flicker.pieces if p.id == "b1")
    assert blue.color is Color.BLUE and blue.size is Size.MEDIUM
    far = t.adopt(table(NEST.moved(id="q"), BLUE.moved(id="r", color=Color.WHITE, center=(560, 260))))
    assert "b1" not in {p.id for p in far.pieces}  # a white piece elsewhere is another piece


def test_a_flat_ship_read_smaller_where_it_lay_keeps_its_size():
    ship = Piece.flat("s1", "red", "large", (300, 200), 45)
    t = Tracker(table(NEST, ship))
    misread = Piece.flat("d2", "red", "medium", (301, 201), 44)
    again = t.adopt(table(NEST.moved(id="d1"), misread))
    s = next(p for p in again.pieces if p.id == "s1")
    assert s.size is Size.LARGE and s.pose.value == "flat" and s.tail == (301, 201)


def test_same_places_ignores_misread_colours_and_sizes_but_not_places():
    a = table(NEST, BLUE)
    assert same_places(a, table(NEST.moved(size=Size.MEDIUM), BLUE.moved(color=Color.WHITE)))
    assert not same_places(a, table(NEST, BLUE.moved(center=(520, 200))))
    assert not same_places(a, table(NEST))


def test_a_nest_misread_as_a_flat_ship_in_place_stays_a_nest():
    t = Tracker(table(NEST, BLUE))
    flat_misread = Piece.flat("d1", "green", "large", (292, 300), 0)  # lies over the nest's square
    again = t.adopt(table(flat_misread, BLUE.moved(id="d2")))
    assert again.piece("n1") == NEST
    launched = Piece.flat("d1", "green", "large", (340, 300), 0)  # clear of the nest: a real launch
    assert t.adopt(table(launched, BLUE.moved(id="d2"))).piece("n1").pose.value == "flat"
