"""Martian Chess rules, one rule at a time, plus the outside check against the oracle."""

from __future__ import annotations

import json
import pathlib

import pytest

from referee.martian_chess import BOTTOM, TOP, IllegalMoveError, Move, NotationError, Position
from referee.martian_chess.board import N_FILES, N_RANKS, parse_square

ORACLE = pathlib.Path(__file__).resolve().parents[3] / "shared" / "oracles" / "martian-chess-moves.jsonl"


def position(pieces: dict[str, int], turn: str = "b", scores: str = "0-0", last: str = "-",
             clock: int | None = None) -> Position:
    """A position from {square: value}, e.g. {"a1": 3, "d8": 1}."""
    board = [["."] * N_FILES for _ in range(N_RANKS)]
    for name, value in pieces.items():
        sq = parse_square(name)
        board[sq // N_FILES][sq % N_FILES] = str(value)
    ranks = "/".join("".join(board[r]) for r in range(N_RANKS - 1, -1, -1))
    text = f"{ranks} {turn} {scores} {last}" + ("" if clock is None else f" clock{clock}")
    return Position.from_notation(text)


def targets(pos: Position, square: str) -> list[str]:
    return sorted(str(m)[3:] for m in pos.legal_moves() if str(m).startswith(square))


# -- the outside check -----------------------------------------------------------------
@pytest.mark.skipif(not ORACLE.exists(), reason="oracle file not present")
def test_every_oracle_position_has_exactly_the_oracle_moves():
    mismatches = []
    for line in ORACLE.read_text().splitlines():
        row = json.loads(line)
        got = [str(m) for m in Position.from_notation(row["position"]).legal_moves()]
        if got != row["moves"]:
            mismatches.append(row["position"])
    assert len(ORACLE.read_text().splitlines()) == 2000
    assert mismatches == []


def test_perft_from_the_setup_matches_the_published_figures():
    assert [Position.setup().perft(d) for d in range(1, 5)] == [10, 104, 1328, 17428]


# -- movement --------------------------------------------------------------------------
def test_pawn_moves_one_square_diagonally_in_any_direction():
    pos = position({"b2": 1, "d8": 3})
    assert targets(pos, "b2") == ["a1", "a3", "c1", "c3"]


def test_drone_moves_one_or_two_squares_orthogonally_without_jumping():
    pos = position({"b2": 2, "b3": 3, "d8": 3})
    assert targets(pos, "b2") == ["a2", "b1", "c2", "d2"]  # b3 blocks the way up


def test_queen_slides_any_distance_and_stops_at_pieces():
    pos = position({"a1": 3, "a3": 1, "d8": 1})
    # up the file only to a2 (a queen cannot land on its own pawn); the long diagonal is open to d4
    assert targets(pos, "a1") == ["a2", "b1", "b2", "c1", "c3", "d1", "d4"]


def test_a_queen_may_cross_the_whole_canal_and_capture_at_the_far_end():
    pos = position({"a1": 3, "a8": 2})
    assert "a8" in targets(pos, "a1")


def test_you_move_only_pieces_on_your_side():
    pos = position({"a1": 3, "a5": 1})
    assert not any(str(m).startswith("a5") for m in pos.legal_moves())
    assert "top player's side" in pos.why_illegal(Move.parse("a5-b6"))


# -- captures ----------------------------------------------------------------------------
def test_capture_scores_the_captured_value_and_the_capturer_changes_owner():
    pos = position({"c4": 1, "d5": 3, "a8": 1, "a1": 3}, scores="1-2")
    pos.push(Move.parse("c4-d5"))
    assert pos.scores == [4, 2]
    assert pos.board[parse_square("d5")] == 1 and pos.turn == TOP
    assert "d5-c6" in [str(m) for m in pos.legal_moves()]  # top now owns the pawn


def test_landing_on_your_own_piece_is_illegal_except_merges():
    pos = position({"a1": 3, "b2": 2, "d8": 1})
    assert "you cannot land on your own drone" in pos.why_illegal(Move.parse("a1-b2"))


# -- field promotions ------------------------------------------------------------------
def test_drone_and_pawn_merge_into_a_queen_only_without_queens_on_your_side():
    pos = position({"a1": 2, "a2": 1, "d8": 1})
    assert pos.move_kind(Move.parse("a1-a2")) == "merge"
    pos.push(Move.parse("a1-a2"))
    assert pos.board[parse_square("a2")] == 3 and pos.scores == [0, 0]
    with_queen = position({"a1": 2, "a2": 1, "d1": 3, "d8": 1})
    assert "no queen on your side" in with_queen.why_illegal(Move.parse("a1-a2"))
    pawn_onto_drone = position({"a1": 1, "b2": 2, "d8": 1})
    assert "b2" in targets(pawn_onto_drone, "a1")


def test_a_queen_on_the_other_side_does_not_stop_a_promotion():
    pos = position({"a1": 2, "a2": 1, "a8": 3})
    assert "a2" in targets(pos, "a1")


def test_pawns_merge_into_a_drone_only_without_drones_on_your_side():
    pos = position({"a1": 1, "b2": 1, "d8": 1})
    pos.push(Move.parse("a1-b2"))
    assert pos.board[parse_square("b2")] == 2
    with_drone = position({"a1": 1, "b2": 1, "d1": 2, "d8": 1})
    assert "b2" not in targets(with_drone, "a1")


def test_drones_and_queens_never_merge():
    assert "a2" not in targets(position({"a1": 2, "a2": 2, "d8": 1}), "a1")
    assert "a2" not in targets(position({"a1": 3, "a2": 1, "d8": 1}), "a1")


# -- no undos --------------------------------------------------------------------------
def test_a_piece_that_just_crossed_cannot_go_straight_back():
    pos = position({"c4": 2, "a8": 1, "a1": 3})
    pos.push(Move.parse("c4-c5"))
    assert pos.last == Move.parse("c4-c5")
    assert "c4" not in targets(pos, "c5") and "c3" in targets(pos, "c5")  # only the very square it came from
    assert "no undos" in pos.why_illegal(Move.parse("c5-c4"))
    pos.push(Move.parse("a8-b7"))
    pos.push(Move.parse("a1-a2"))
    assert "c4" in targets(pos, "c5")  # the restriction lasts only one turn


def test_no_undo_applies_after_a_capture_across_the_canal_too():
    pos = position({"b4": 1, "c5": 2, "a8": 1, "a1": 3})
    pos.push(Move.parse("b4-c5"))
    assert "b4" not in targets(pos, "c5") and "d4" in targets(pos, "c5")


def test_no_undo_field_round_trips_in_notation():
    pos = position({"c4": 2, "a8": 1, "a1": 3})
    pos.push(Move.parse("c4-c5"))
    assert pos.notation().endswith(" t 0-0 c4-c5")
    assert Position.from_notation(pos.notation()).legal_moves() == pos.legal_moves()


# -- the end of the game ---------------------------------------------------------------
def test_emptying_a_half_ends_the_game_and_the_ender_wins_a_tie():
    pos = position({"a4": 1, "b8": 1}, scores="3-3")
    pos.push(Move.parse("a4-b5"))  # bottom's last piece crosses
    assert pos.is_game_over() and pos.legal_moves() == []
    assert pos.outcome().winner == BOTTOM


def test_higher_score_wins_regardless_of_who_ended_it():
    pos = position({"a4": 1, "b8": 1}, scores="2-5")
    pos.push(Move.parse("a4-b5"))
    assert pos.outcome().winner == TOP


def test_calling_the_clock_ends_the_game_after_seven_moves_without_capture():
    pos = position({"a1": 3, "d8": 3}, scores="1-1")
    pos.call_clock()
    assert pos.notation().endswith("clock7")
    shuffle = ["a1-a2", "d8-d7", "a2-a1", "d7-d8", "a1-a2", "d8-d7"]
    for text in shuffle:
        pos.push(Move.parse(text))
        assert not pos.is_game_over()
    pos.push(Move.parse("a2-a1"))
    assert pos.clock == 0 and pos.is_game_over()
    assert pos.outcome().winner is None  # a tie after the clock is a draw


def test_a_capture_resets_the_clock():
    pos = position({"a3": 3, "a6": 1, "d8": 3, "d7": 1}, clock=2)
    pos.push(Move.parse("a3-a6"))
    assert pos.clock == 7 and pos.scores == [1, 0]


def test_the_clock_cannot_be_called_twice():
    pos = Position.setup()
    pos.call_clock()
    with pytest.raises(IllegalMoveError):
        pos.call_clock()


# -- push / pop, notation ----------------------------------------------------------------
def test_pop_restores_every_field():
    pos = Position.setup()
    before = pos.notation()
    for text in ["c3-d4", "b6-c5", "d4-c5"]:
        pos.push(Move.parse(text))
    for _ in range(3):
        pos.pop()
    assert pos.notation() == before


def test_illegal_moves_are_refused_with_a_reason():
    pos = Position.setup()
    with pytest.raises(IllegalMoveError, match="a pawn moves exactly one square diagonally"):
        pos.push(Move.parse("c3-c4"))
    with pytest.raises(IllegalMoveError, match="jump"):
        pos.push(Move.parse("d1-d4"))


@pytest.mark.parametrize("text", [
    "", "332./321./211./..../..../.112/.123/.233 x 0-0 -",
    "332./321./211./..../..../.112/.123/.234 b 0-0 -", "332./321./211./..../..../.112/.123 b 0-0 -",
    "332./321./211./..../..../.112/.123/.233 b 0:0 -", "332./321./211./..../..../.112/.123/.233 b 0-0 c3-c4",
    "332./321./211./..../..../.112/.123/.233 b 0-0 e3-c4", "332./321./211./..../..../.112/.123/.233 b 0-0 - clock9",
    "332./321./211./..../..../.112/.123/.233 b 0-0 - clock", "332./321./211./..../..../.112/.123/.233 b 0-0 - x y",
])
def test_malformed_positions_are_refused_with_one_line_reason(text):
    with pytest.raises(NotationError) as info:
        Position.from_notation(text)
    assert "\n" not in str(info.value) and str(info.value)


def test_notation_round_trips_through_a_random_game():
    import random
    rng = random.Random(5)
    pos = Position.setup()
    while not pos.is_game_over():
        if pos.clock is None and rng.random() < 0.02:
            pos.call_clock()
        again = Position.from_notation(pos.notation())
        assert again.notation() == pos.notation() and again.legal_moves() == pos.legal_moves()
        pos.push(rng.choice(pos.legal_moves()))
    assert pos.outcome() is not None
