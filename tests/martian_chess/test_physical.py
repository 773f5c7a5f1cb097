"""Refereeing a physical board: from what the camera sees to a move, or a flag."""

from __future__ import annotations

import math

import pytest

from domain import Piece, TableState
from referee.martian_chess import Position
from referee.martian_chess.board import N_FILES, PIECE_NAMES, square_name
from referee.martian_chess.physical import (BoardGeometry, BoardGeometryError, read_board,
                                            rule_table)

SIZES = {1: "small", 2: "medium", 3: "large"}
GEO = BoardGeometry.default()


def table_for(pos: Position, geo: BoardGeometry = GEO, **overrides) -> TableState:
    """What a perfect camera would see for `pos`; overrides {square: value or Piece}."""
    board = list(pos.board)
    extra = []
    for name, v in overrides.items():
        sq = (int(name[1]) - 1) * N_FILES + "abcd".index(name[0])
        if isinstance(v, Piece):
            board[sq] = 0
            extra.append(v)
        else:
            board[sq] = v
    pieces = [Piece.upright(f"p{s}", "red", SIZES[v], geo.square_center(square_name(s)), rotation=7)
              for s, v in enumerate(board) if v]
    return TableState(tuple(pieces + extra))


def test_a_plain_move_is_recognised_and_the_position_is_untouched():
    pos = Position.setup()
    ruling = rule_table(pos, table_for(pos, c3=0, d4=1), GEO)
    assert (ruling.status, str(ruling.move), ruling.kind) == ("move", "c3-d4", "move")
    assert pos == Position.setup()


def test_a_capture_is_recognised_and_scores_when_played():
    pos = Position.from_notation("3.../..../..../...3/..1./..../..../3... b 0-0 -")
    ruling = rule_table(pos, table_for(pos, c4=0, d5=1), GEO)
    assert ruling.status == "move" and ruling.kind == "capture"
    pos.push(ruling.move)
    assert pos.scores == [3, 0] and ruling.notation == pos.notation()


def test_a_merge_shown_as_a_nest_or_a_swapped_queen_is_recognised():
    pos = Position.from_notation("3.../..../..../..../..../..../1.../2... b 0-0 -")
    centre = GEO.square_center("a2")
    nest = Piece.upright("n", "red", "medium", centre, stack=["medium", "small"])
    assert rule_table(pos, table_for(pos, a1=0, a2=nest), GEO).kind == "merge"
    swapped = rule_table(pos, table_for(pos, a1=0, a2=3), GEO)
    assert swapped.status == "move" and str(swapped.move) == "a1-a2"


def test_an_illegal_move_is_flagged_with_what_the_camera_saw_and_why():
    pos = Position.setup()
    ruling = rule_table(pos, table_for(pos, c3=0, c4=1), GEO)
    assert ruling.status == "flag" and ruling.move is None
    assert "c3 pawn -> empty, c4 empty -> pawn" in ruling.message
    assert "a pawn moves exactly one square diagonally" in ruling.message


def test_moving_the_opponents_piece_is_flagged():
    pos = Position.setup()
    ruling = rule_table(pos, table_for(pos, c6=0, d5=1), GEO)
    assert ruling.status == "flag" and "top player's side" in ruling.message


def test_an_unexplained_change_is_flagged_not_ruled():
    pos = Position.setup()
    ruling = rule_table(pos, table_for(pos, c3=0, b3=0), GEO)  # two pieces vanished
    assert ruling.status == "flag" and "b3 pawn -> empty" in ruling.message


def test_no_change_is_not_a_move():
    pos = Position.setup()
    assert rule_table(pos, table_for(pos), GEO).status == "none"


def test_pieces_off_square_doubled_or_flat_are_flagged_and_set_aside_pieces_ignored():
    pos = Position.setup()
    x, y = GEO.square_center("d4")
    on_line = Piece.upright("line", "red", "small", (x, y - 24.0))  # 1 mm from the d4/d5 line
    reading = read_board(TableState(table_for(pos).pieces + (on_line,)), GEO)
    assert any("sits on a line" in p for p in reading.problems)
    twice = Piece.upright("twin", "red", "small", (x + 3, y + 3))
    cx, cy = GEO.square_center("c4")
    flat = Piece.flat("flat", "blue", "small", (cx - 13, cy), heading=0)
    aside = Piece.upright("aside", "blue", "large", (700.0, 300.0))
    reading = read_board(TableState((Piece.upright("a", "red", "small", (x, y)), twice, flat, aside)), GEO)
    assert any("two pieces on d4" in p for p in reading.problems)
    assert any("lies flat" in p for p in reading.problems)
    assert reading.set_aside == ["aside"]
    assert rule_table(pos, TableState(table_for(pos).pieces + (on_line,)), GEO).status == "flag"


def test_a_rotated_board_from_the_layout_field_reads_the_same():
    angle = math.radians(33)
    c, s = math.cos(angle), math.sin(angle)
    square = 45.0
    origin = (300.0, 420.0)

    def corner(u, v):  # file u, rank v in squares; ranks go "up" (towards -y) before rotating
        x, y = u * square, -v * square
        return (origin[0] + c * x - s * y, origin[1] + s * x + c * y)

    layout = {"markers": [], "board": {"corners": [corner(0, 0), corner(4, 0), corner(4, 8), corner(0, 8)]}}
    geo = BoardGeometry.from_layout(layout)
    pos = Position.setup()
    ruling = rule_table(pos, table_for(pos, geo, c3=0, d4=1), geo)
    assert str(ruling.move) == "c3-d4"
    assert read_board(table_for(pos, geo), geo).board == pos.board
    assert BoardGeometry.from_layout({"markers": []}) == BoardGeometry.default()


@pytest.mark.parametrize("bad", [{}, {"corners": [[0, 0]] * 3}, {"corners": "x"},
                                 {"corners": [[0, 0], [0, 0], [0, 0], [0, 0]]}])
def test_bad_board_corners_are_refused(bad):
    with pytest.raises(BoardGeometryError):
        BoardGeometry.from_dict(bad)


def test_every_setup_square_reads_back_as_the_right_piece():
    pos = Position.setup()
    reading = read_board(table_for(pos), GEO)
    assert reading.board == pos.board and reading.problems == []
    assert reading.describe().count("queen") == 6 and PIECE_NAMES[1] in reading.describe()
