"""Refereeing Martian Chess on a real board seen by the camera.

The 4x8 board lies on the table; its four outer corners (table mm) fix where each square
is. They come from the marker layout's optional, additive ``"board"`` field::

    {"dictionary": "DICT_4X4_50", "markers": [...],
     "board": {"corners": [[280, 480], [480, 480], [480, 80], [280, 80]]}}

in the order: outer corner of a1, of d1, of d8, of a8 (the default above: 50 mm squares
between the contract's markers, rank 1 nearest the bottom of a top-down picture).

Upright pyramids are pieces by size (small pawn, medium drone, large queen; an upright
nest counts the pips of its whole stack, so a drone over a pawn is a merged queen). From
a confirmed TableState and the game's Position, `rule_table` finds the one legal move
that explains what the camera sees, or flags the change with what it saw.

>>> from referee.martian_chess import Position
>>> from domain import Piece, TableState
>>> geo = BoardGeometry.default()
>>> [round(c) for c in geo.square_center("a1")]
[305, 455]
>>> pos = Position.from_notation("1.../..../..../..../..../..../..../3..3 b 0-0 -")
>>> table = TableState((Piece.upright("q1", "red", "large", geo.square_center("b2")),
...                     Piece.upright("q2", "blue", "large", geo.square_center("d1")),
...                     Piece.upright("p8", "red", "small", geo.square_center("a8")),
...                     Piece.upright("p9", "green", "small", (700, 300))))  # set aside
>>> ruling = rule_table(pos, table, geo)
>>> ruling.status, str(ruling.move), ruling.kind
('move', 'a1-b2', 'move')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from domain import InputError, Piece, Point, Pose, TableState
from referee.martian_chess.board import (EMPTY, N_FILES, N_RANKS, N_SQUARES, PIECE_NAMES, QUEEN,
                                         SIDE_NAMES, parse_square, square_name)
from referee.martian_chess.position import Move, Position

# Default board: 50 mm squares centred between the contract's four markers.
DEFAULT_CORNERS: tuple[Point, ...] = ((280.0, 480.0), (480.0, 480.0), (480.0, 80.0), (280.0, 80.0))
# A piece whose centre is closer than this (in squares) to a line between squares is
# "off-square": at 50 mm squares, 7.5 mm, where even a small base overlaps the next square.
OFF_SQUARE_FRACTION = 0.15
# A piece standing this far (in squares) outside the board is set aside (captured pieces,
# the stash) and ignored; nearer than that it straddles the edge and is flagged.
OFF_BOARD_FRACTION = 0.35


class BoardGeometryError(InputError):
    """Board corners that cannot describe a 4x8 board."""


@dataclass(frozen=True)
class BoardGeometry:
    """Where the 4x8 board lies on the table: a homography from table mm to squares."""

    corners: tuple[Point, Point, Point, Point]
    _h: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        src = np.array(self.corners, dtype=float)
        dst = np.array([(0, 0), (N_FILES, 0), (N_FILES, N_RANKS), (0, N_RANKS)], dtype=float)
        rows, rhs = [], []
        for (x, y), (u, v) in zip(src, dst):
            rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y]); rhs.append(u)
            rows.append([0, 0, 0, x, y, 1, -v * x, -v * y]); rhs.append(v)
        try:
            h = np.linalg.solve(np.array(rows), np.array(rhs))
        except np.linalg.LinAlgError:
            raise BoardGeometryError(f"board corners {list(self.corners)} do not span a board") from None
        object.__setattr__(self, "_h", np.append(h, 1.0).reshape(3, 3))

    @classmethod
    def default(cls) -> "BoardGeometry":
        return cls(DEFAULT_CORNERS)  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls, d: Any) -> "BoardGeometry":
        """From ``{"corners": [[x, y], x4]}`` (the layout's "board" field)."""
        corners = d.get("corners") if isinstance(d, dict) else None
        try:
            pts = tuple((float(c[0]), float(c[1])) for c in corners)  # type: ignore[union-attr]
        except (TypeError, ValueError, IndexError, KeyError):
            pts = ()
        if len(pts) != 4 or not all(math.isfinite(v) for p in pts for v in p):
            raise BoardGeometryError("board needs 'corners': four [x, y] points in mm (a1, d1, d8, a8)")
        return cls(pts)  # type: ignore[arg-type]

    @classmethod
    def from_layout(cls, layout: Any) -> "BoardGeometry":
        """The marker layout JSON's optional "board" field, or the default board."""
        if isinstance(layout, dict) and "board" in layout:
            return cls.from_dict(layout["board"])
        return cls.default()

    def to_dict(self) -> dict[str, Any]:
        return {"corners": [list(c) for c in self.corners]}

    def to_board(self, p: Point) -> tuple[float, float]:
        """Table mm -> (file, rank) coordinates: square a1 spans [0, 1) x [0, 1)."""
        u, v, w = self._h @ np.array([p[0], p[1], 1.0])
        return float(u / w), float(v / w)

    def square_center(self, name: str) -> Point:
        sq = parse_square(name)
        target = np.array([sq % N_FILES + 0.5, sq // N_FILES + 0.5, 1.0])
        x, y, w = np.linalg.solve(self._h, target)
        return float(x / w), float(y / w)


@dataclass
class BoardReading:
    """What the camera shows on the board: a value per square and anything doubtful."""

    board: list[int]
    problems: list[str]
    set_aside: list[str]

    def describe(self) -> str:
        pieces = [f"{PIECE_NAMES[v]} {square_name(s)}" for s, v in enumerate(self.board) if v]
        return ", ".join(pieces) or "an empty board"


def read_board(state: TableState, geometry: BoardGeometry) -> BoardReading:
    """Assign each upright piece to the square holding its centre; flag doubtful ones."""
    board = [EMPTY] * N_SQUARES
    seen_on: dict[int, str] = {}
    problems, aside = [], []
    for piece in state.pieces:
        u, v = geometry.to_board(_footprint_centre(piece))
        where = f"{piece.id} ({piece.size.value} {piece.color.value})"
        outside = max(-u, u - N_FILES, -v, v - N_RANKS)
        if outside > OFF_BOARD_FRACTION:
            aside.append(piece.id)
            continue
        if outside > -OFF_SQUARE_FRACTION:
            problems.append(f"{where} straddles the edge of the board")
            continue
        sq = int(v) * N_FILES + int(u)
        if piece.pose is Pose.FLAT:
            problems.append(f"{where} lies flat on {square_name(sq)}: stand it up")
            continue
        if min(u % 1, 1 - u % 1, v % 1, 1 - v % 1) < OFF_SQUARE_FRACTION:
            problems.append(f"{where} sits on a line near {square_name(sq)}: put it in the middle of a square")
            continue
        if sq in seen_on:
            problems.append(f"two pieces on {square_name(sq)}: {seen_on[sq]} and {piece.id}")
            continue
        seen_on[sq] = piece.id
        value = sum(s.pips for s in piece.stack) if piece.stack else piece.size.pips
        if value > QUEEN:
            problems.append(f"{where} on {square_name(sq)} is a nest worth {value}: no piece is worth more than 3")
            continue
        board[sq] = value
    return BoardReading(board, problems, aside)


def _footprint_centre(piece: Piece) -> Point:
    """Where a piece stands: the base centre, or the middle of a flat piece's length."""
    if piece.pose is Pose.UPRIGHT:
        return piece.center  # type: ignore[return-value]
    (tx, ty), (nx, ny) = piece.tail, piece.nose  # type: ignore[misc]
    return ((tx + nx) / 2, (ty + ny) / 2)


@dataclass(frozen=True)
class PhysicalRuling:
    """The referee's answer to one confirmed table state.

    status: "move" (a legal move was made: `move`, `kind`, `notation` after it), "none"
    (the board matches the game), or "flag" (unexplained or illegal: `message` says what
    the camera saw, for the players to sort out; nothing is ruled silently).
    """

    status: str
    message: str
    seen: str
    move: Move | None = None
    kind: str | None = None
    notation: str | None = None
    problems: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "message": self.message, "seen": self.seen,
                "move": str(self.move) if self.move else None, "kind": self.kind,
                "notation": self.notation, "problems": list(self.problems)}


def rule_table(position: Position, after: TableState, geometry: BoardGeometry,
               before: TableState | None = None) -> PhysicalRuling:
    """Which legal move of `position` turns the board into what the camera sees in `after`.

    `before` (the previous confirmed state) is only a cross-check: if it does not match the
    game, the ruling says so. The position is not changed; play `ruling.move` to apply it.
    """
    reading = read_board(after, geometry)
    seen = reading.describe()
    if reading.problems:
        return PhysicalRuling("flag", "the camera cannot read the board: " + "; ".join(reading.problems),
                              seen, problems=tuple(reading.problems))
    if reading.board == position.board:
        return PhysicalRuling("none", "the board matches the game", seen)
    if position.is_game_over():
        return PhysicalRuling("flag", f"the game is over, but the board changed: {_diff(position.board, reading.board)}", seen)
    for move in position.legal_moves():
        kind = position.move_kind(move)
        position.push(move)
        matches = position.board == reading.board
        notation = position.notation()
        position.pop()
        if matches:
            return PhysicalRuling("move", f"{SIDE_NAMES[position.turn]} played {move} ({kind})", seen,
                                  move, kind, notation)
    message = f"{SIDE_NAMES[position.turn]} to move, but the camera saw {_diff(position.board, reading.board)}"
    reason = _single_move_reason(position, reading.board)
    if reason:
        message += f": {reason}"
    if before is not None and read_board(before, geometry).board != position.board:
        message += " (the previous picture did not match the game either)"
    return PhysicalRuling("flag", message, seen)


def _diff(was: list[int], now: list[int]) -> str:
    def name(v: int) -> str:
        return PIECE_NAMES.get(v, "empty")
    changes = [f"{square_name(s)} {name(a)} -> {name(b)}" for s, (a, b) in enumerate(zip(was, now)) if a != b]
    return ", ".join(changes)


def _single_move_reason(position: Position, now: list[int]) -> str | None:
    """If the change looks like one piece going from one square to another, why it is illegal."""
    changed = [s for s in range(N_SQUARES) if position.board[s] != now[s]]
    emptied = [s for s in changed if now[s] == EMPTY]
    if len(changed) != 2 or len(emptied) != 1:
        return None
    f = emptied[0]
    t = changed[0] if changed[1] == f else changed[1]
    move = Move(f, t)
    return position.why_illegal(move) or f"{move} is legal, but {square_name(t)} should then hold " \
                                          f"a {PIECE_NAMES[_expected(position, move)]}"


def _expected(position: Position, move: Move) -> int:
    position.push(move)
    value = position.board[move.to_square]
    position.pop()
    return value
