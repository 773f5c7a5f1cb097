"""Confirmed changes → WarpShips rulings, with the real referee on hand-derived turns."""

from __future__ import annotations

import pytest

from domain import Color, InputError, Piece, Size, TableState
from vision.live.turns import WarpShipsReferee, with_nests

NEST = Piece.upright("n", "green", "large", (300, 300), stack=("large", "medium", "small"))
BLUE = Piece.upright("b", "blue", "large", (500, 300), stack=("large",))
BEFORE = TableState((NEST, BLUE))
REST = Piece.upright("n2", "green", "medium", (300, 300), stack=("medium", "small"))


def launched(tail_x: float) -> TableState:
    # warp flush against the nest's right edge (x = 312.7): centre 363.5, far side 414.3
    return TableState((REST, Piece.flat("n", "green", "large", (tail_x, 300), 0), BLUE))


def test_a_legal_launch_fires_at_the_blue_ship_and_asks_for_a_roll():
    ref = WarpShipsReferee.real()
    rulings = ref.on_change(BEFORE, launched(414.3))
    assert [r["kind"] for r in rulings] == ["move", "beam", "roll"]
    move, beam, roll = rulings
    assert move["ruling"]["legal"] and move["ruling"]["kind"] == "launch"
    assert beam["ruling"]["target"] == "b" and beam["ruling"]["valid"]
    assert beam["ruling"]["distance"] == pytest.approx(487.3 - 460.5, abs=0.2)
    assert ref.public()["pending_roll"] == {"ship": "n", "ship_size": "large", "target": "b",
                                           "target_size": "large", "rolls_so_far": []}
    assert not any(r["advisory"] for r in rulings)


def test_a_hit_sends_the_target_to_the_movers_colony_and_its_removal_is_no_move():
    ref = WarpShipsReferee.real(players=("ann", "bob"))
    after = launched(414.3)
    ref.on_change(BEFORE, after)
    with pytest.raises(InputError, match="not a Pyramid Die face"):
        ref.roll("XL")
    (teleport,) = ref.roll("M+L")  # shows a large: the large blue target is hit; same sizes, no bonus
    assert teleport["kind"] == "teleport" and "take b off the table" in teleport["summary"]
    players = [{"name": "ann", "color": "red"}, {"name": "bob", "color": "blue"}]
    ann = ref.scores(players)["ann"]
    assert ann["ships"] == 1 and ann["colony"] == [{"color": "blue", "size": "large"}]
    assert ref.public()["turn"] == "bob" and ref.public()["pending_roll"] is None
    assert ref.on_change(after, after.without("b")) == []  # taking the ship off is not a move
    with pytest.raises(InputError, match="no shot is waiting"):
        ref.roll("S")


def test_a_miss_passes_the_turn_and_the_game_survives_a_restart():
    ref = WarpShipsReferee.real(players=("ann", "bob"))
    ref.on_change(BEFORE, launched(414.3))
    (miss,) = ref.roll("S")
    assert "miss" in miss["summary"].lower() or miss["ruling"]["gained"] == []
    again = WarpShipsReferee.real()
    again.restore(ref.snapshot(), [{"name": "ann", "color": "red"}, {"name": "bob", "color": "blue"}])
    assert again.public()["turn"] == "bob" and len(again.game.history) == 1


def test_a_launch_too_far_from_the_warp_is_illegal_fires_nothing_and_may_be_taken_back():
    ref = WarpShipsReferee.real(shadow=True)
    rulings = ref.on_change(BEFORE, launched(440))
    assert [r["kind"] for r in rulings] == ["move"]
    assert rulings[0]["ruling"]["legal"] is False and rulings[0]["margin"] < 0
    assert rulings[0]["advisory"]  # shadow mode
    assert ref.on_change(launched(440), BEFORE) == []  # taken back: no ruling, nobody's turn passed
    assert ref.game is None


def test_a_challenge_rules_the_corrected_table_again_without_replaying_the_game():
    ref = WarpShipsReferee.real()
    ref.on_change(BEFORE, launched(414.3))
    corrected = launched(414.3).with_piece(BLUE.moved(color=Color.GREEN))  # the target was misread: same colour
    move, beam = ref.recheck(BEFORE.with_piece(BLUE.moved(color=Color.GREEN)), corrected)
    assert move["summary"].startswith("re-check: ") and move["advisory"]
    assert beam["ruling"]["target"] == "b" and not beam["ruling"]["valid"]
    assert ref.public()["pending_roll"]["target"] == "b"  # the game itself is untouched


def test_a_change_within_the_measurement_error_is_too_close_to_call():
    rulings = WarpShipsReferee.real(uncertainty_mm=3.0).on_change(BEFORE, launched(415.5))
    assert rulings[0]["too_close_to_call"]


def test_a_change_no_single_move_explains_is_uncertain_not_a_ruling():
    two_moved = TableState((REST, Piece.flat("n", "green", "large", (414.3, 300), 0), BLUE.moved(center=(560, 380))))
    rulings = WarpShipsReferee.real().on_change(BEFORE, two_moved)
    assert [r["kind"] for r in rulings] == ["uncertain"]
    assert "confirm or correct" in rulings[0]["summary"]


def test_a_referee_failure_becomes_uncertain_too():
    def fails(*a, **k):
        raise IndexError("list index out of range")
    (r,) = WarpShipsReferee(fails, fails).on_change(BEFORE, launched(414.3))
    assert r["kind"] == "uncertain" and "IndexError" in r["summary"]


def test_a_referee_refusal_becomes_uncertain():
    def refuses(*a, **k):
        raise InputError("two ships moved")
    rulings = WarpShipsReferee(refuses, refuses).on_change(BEFORE, launched(414.3))
    assert rulings[0]["kind"] == "uncertain" and "two ships moved" in rulings[0]["summary"]


def test_nests_seen_from_above_hold_every_smaller_size():
    seen = TableState((Piece.upright("n", "green", "medium", (300, 300)), Piece.flat("s", "red", "large", (100, 100), 0)))
    nested = with_nests(seen)
    assert [x.value for x in nested.piece("n").stack] == ["medium", "small"]
    assert nested.piece("s") == seen.piece("s")


def test_a_teleported_nest_top_leaves_the_rest_of_the_nest_expected():
    ref = WarpShipsReferee.real(players=("ann", "bob"))
    plain = lambda t: TableState(tuple(p.moved(stack=()) for p in t.pieces))  # noqa: E731  as the camera reports
    after = plain(launched(414.3))
    ref.on_change(plain(BEFORE), after)
    ref.roll("M+L")
    assert ref.on_change(after, after.with_piece(BLUE.moved(size=Size.MEDIUM, stack=()))) == []


def test_teleported_ships_may_leave_one_at_a_time_but_a_new_move_is_ruled():
    ref = WarpShipsReferee.real(players=("ann", "bob"))
    after = launched(414.3)
    ref.on_change(BEFORE, after)
    ref.expected = TableState(tuple(p for p in after.pieces if p.id not in ("b", "n"))).to_dict()  # two to go
    one_gone = after.without("b")
    assert ref.on_change(after, one_gone) == []
    moved = one_gone.with_piece(REST.moved(center=(250, 250)))
    assert ref.on_change(one_gone, moved) and ref.expected is None


def test_impossible_nest_size_changes_are_misreads_but_a_launch_shrinks_the_nest():
    ref = WarpShipsReferee.real()
    grew = TableState((NEST, BLUE.moved(size=Size.MEDIUM, stack=())))
    assert ref.clean(grew, BEFORE).piece("b").size is Size.MEDIUM  # a medium nest cannot grow
    shrank_alone = TableState((NEST.moved(size=Size.MEDIUM, stack=()), BLUE))
    assert ref.clean(BEFORE, shrank_alone).piece("n").size is Size.LARGE  # no ship left it: misread
    assert ref.clean(BEFORE, launched(414.3)).piece("n2").size is Size.MEDIUM  # its large ship flew


def test_one_launched_ship_shrinks_one_nest_the_other_reading_is_a_misread():
    # two green nests read a size smaller, one green large ship newly flat: it left the
    # nearer nest; the far nest (200 mm away) lost nothing
    far = Piece.upright("f", "green", "large", (100, 100), stack=("large", "medium", "small"))
    before = BEFORE.with_piece(far)
    after = launched(414.3).with_piece(far.moved(size=Size.MEDIUM, stack=()))
    cleaned = WarpShipsReferee.real().clean(with_nests(before), with_nests(after))
    assert cleaned.piece("n2").size is Size.MEDIUM and cleaned.piece("f").size is Size.LARGE
