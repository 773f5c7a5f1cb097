"""Martian Chess positions: the legal move generator, push/pop, the end of the game, perft.

Rules: ../shared/rules/martian-chess.txt; notation: the contract's "Martian Chess notation".

>>> pos = Position.setup()
>>> pos.notation()
'332./321./211./..../..../.112/.123/.233 b 0-0 -'
>>> " ".join(str(m) for m in pos.legal_moves())
'b1-a1 b2-a1 b2-a3 b3-a2 b3-a4 b3-c4 c3-b4 c3-d4 d3-d4 d3-d5'
>>> pos.push(Move.parse("c3-d4")); pos.notation()
'332./321./211./..../...1/.1.2/.123/.233 t 0-0 -'
>>> pos.pop(); pos == Position.setup()
Move('c3-d4')
True
>>> [pos.perft(d) for d in range(4)]
[1, 10, 104, 1328]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from domain import InputError
from referee.martian_chess.board import (BOTTOM, DRONE, EMPTY, HALF, N_FILES, N_RANKS, N_SQUARES,
                                         PAWN, QUEEN, RAYS, SIDE_NAMES, TOP, NotationError,
                                         half_of, parse_square, square_name)
from referee.martian_chess.explain import explain_illegal

SETUP_NOTATION = "332./321./211./..../..../.112/.123/.233 b 0-0 -"
# Calling the clock: the game ends after this many consecutive moves without a capture.
CLOCK_MOVES = 7

_SCORES_RE = re.compile(r"^(\d{1,3})-(\d{1,3})$")
_CLOCK_RE = re.compile(r"^clock(\d)$")
_PIECE_CHARS = ".123"


class IllegalMoveError(InputError):
    """A move the rules forbid in this position; the message says why."""


@dataclass(frozen=True, order=True)
class Move:
    """One move, ``FROM-TO`` in notation, whether it moves, captures or merges.

    >>> Move.parse("c3-d4").from_square, str(Move(0, 5))
    (10, 'a1-b2')
    """

    from_square: int
    to_square: int

    @classmethod
    def parse(cls, text: str) -> "Move":
        parts = text.strip().split("-")
        if len(parts) != 2:
            raise NotationError(f"{text!r} is not a move (FROM-TO, e.g. c3-d4)")
        return cls(parse_square(parts[0]), parse_square(parts[1]))

    def crosses_canal(self) -> bool:
        return half_of(self.from_square) != half_of(self.to_square)

    def __str__(self) -> str:
        return f"{square_name(self.from_square)}-{square_name(self.to_square)}"

    def __repr__(self) -> str:
        return f"Move('{self}')"


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended. `winner` is BOTTOM, TOP, or None for a draw."""

    winner: int | None
    reason: str
    scores: tuple[int, int]

    def to_dict(self) -> dict:
        return {"winner": None if self.winner is None else SIDE_NAMES[self.winner],
                "reason": self.reason, "scores": {"bottom": self.scores[0], "top": self.scores[1]}}


class Position:
    """A Martian Chess position with a move stack (python-chess style).

    `board` is a list of 32 piece values (see board.py), `turn` BOTTOM or TOP, `scores`
    [bottom, top], `last` the previous move when it crossed the canal (that piece may not go
    straight back), `clock` the moves left once the clock is called (None before).
    """

    def __init__(self, board: list[int], turn: int = BOTTOM, scores: tuple[int, int] = (0, 0),
                 last: Move | None = None, clock: int | None = None):
        self.board = list(board)
        self.turn = turn
        self.scores = [int(scores[0]), int(scores[1])]
        self.last = last
        self.clock = clock
        self.move_stack: list[Move] = []
        self._undo: list[tuple] = []

    # -- construction and notation ------------------------------------------------------
    @classmethod
    def setup(cls) -> "Position":
        return cls.from_notation(SETUP_NOTATION)

    @classmethod
    def from_notation(cls, text: str) -> "Position":
        """Parse ``RANKS SIDE SCORES LAST [clockN]``; NotationError says what is wrong.

        >>> Position.from_notation("..../..../..../..../..../..../..../...3 b 0-0 -").is_game_over()
        True
        >>> Position.from_notation("332./321. b 0-0 -")
        Traceback (most recent call last):
        ...
        referee.martian_chess.board.NotationError: position '332./321. b 0-0 -': RANKS needs 8 ranks separated by '/', got 2
        """
        try:
            return cls._parse(text)
        except NotationError as e:
            raise NotationError(f"position {text.strip()!r}: {e}") from None

    @classmethod
    def _parse(cls, text: str) -> "Position":
        fields = text.split()
        if len(fields) not in (4, 5):
            raise NotationError(f"expected 4 or 5 fields (RANKS SIDE SCORES LAST [clockN]), got {len(fields)}")
        ranks = fields[0].split("/")
        if len(ranks) != N_RANKS:
            raise NotationError(f"RANKS needs {N_RANKS} ranks separated by '/', got {len(ranks)}")
        board = [EMPTY] * N_SQUARES
        for i, row in enumerate(ranks):
            rank = N_RANKS - 1 - i
            if len(row) != N_FILES or any(c not in _PIECE_CHARS for c in row):
                raise NotationError(f"rank {rank + 1} {row!r} must be 4 characters from '.123'")
            for f, c in enumerate(row):
                board[rank * N_FILES + f] = _PIECE_CHARS.index(c)
        if fields[1] not in ("b", "t"):
            raise NotationError(f"SIDE must be 'b' or 't', got {fields[1]!r}")
        turn = BOTTOM if fields[1] == "b" else TOP
        m = _SCORES_RE.match(fields[2])
        if not m:
            raise NotationError(f"SCORES must be bottom-top points like 5-3, got {fields[2]!r}")
        last = None if fields[3] == "-" else Move.parse(fields[3])
        if last is not None:
            _check_last(last, board, turn)
        clock = None
        if len(fields) == 5:
            c = _CLOCK_RE.match(fields[4])
            if not c or int(c.group(1)) > CLOCK_MOVES:
                raise NotationError(f"the fifth field must be clockN with N 0-{CLOCK_MOVES}, got {fields[4]!r}")
            clock = int(c.group(1))
        return cls(board, turn, (int(m.group(1)), int(m.group(2))), last, clock)

    def notation(self) -> str:
        rows = ["".join(_PIECE_CHARS[self.board[r * N_FILES + f]] for f in range(N_FILES))
                for r in range(N_RANKS - 1, -1, -1)]
        text = f"{'/'.join(rows)} {'bt'[self.turn]} {self.scores[0]}-{self.scores[1]} {self.last or '-'}"
        return text if self.clock is None else f"{text} clock{self.clock}"

    def copy(self) -> "Position":
        """A copy of the position without the move stack."""
        return Position(self.board, self.turn, tuple(self.scores), self.last, self.clock)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.notation() == other.notation()

    def __hash__(self) -> int:
        return hash(self.notation())

    def __repr__(self) -> str:
        return f"Position('{self.notation()}')"

    def __str__(self) -> str:
        """The board as text, rank 8 at the top, the canal as a line."""
        rows = []
        for r in range(N_RANKS - 1, -1, -1):
            rows.append(f"{r + 1} " + " ".join(".123"[self.board[r * N_FILES + f]] for f in range(N_FILES)))
            if r == N_RANKS // 2:
                rows.append("  ~~~~~~~")
        return "\n".join(rows + ["  a b c d"])

    # -- moves ------------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """Every legal move, sorted as FROM-TO text; empty when the game is over."""
        return sorted((Move(f, t) for f, t in self._generate()), key=str)

    def is_legal(self, move: Move) -> bool:
        return (move.from_square, move.to_square) in self._generate()

    def why_illegal(self, move: Move) -> str | None:
        """None for a legal move, otherwise the reason in words a player understands."""
        if self.is_legal(move):
            return None
        return explain_illegal(self.board, self.turn, self.last, self.clock, move.from_square, move.to_square)

    def move_kind(self, move: Move) -> str:
        """'capture', 'merge' or 'move' (for a legal move)."""
        target = self.board[move.to_square]
        if target == EMPTY:
            return "move"
        return "capture" if half_of(move.to_square) != self.turn else "merge"

    def push(self, move: Move) -> None:
        """Play a legal move (IllegalMoveError, with the reason, for any other)."""
        reason = self.why_illegal(move)
        if reason:
            raise IllegalMoveError(f"{move} is illegal: {reason}")
        self._push(move.from_square, move.to_square)
        self.move_stack.append(move)

    def push_notation(self, text: str) -> Move:
        move = Move.parse(text)
        self.push(move)
        return move

    def pop(self) -> Move:
        """Take back the last move pushed (a call of the clock before it stays called)."""
        self._pop_raw()
        return self.move_stack.pop()

    def call_clock(self) -> None:
        """The player to move calls the clock: CLOCK_MOVES moves without a capture end the game."""
        if self.clock is not None:
            raise IllegalMoveError(f"the clock is already running ({self.clock} moves left)")
        if self.is_game_over():
            raise IllegalMoveError("the game is over")
        self.clock = CLOCK_MOVES

    # -- end of the game --------------------------------------------------------------
    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def outcome(self) -> Outcome | None:
        """None while the game goes on; otherwise who won and why.

        Bottom just moved its last piece across the canal: the tie goes to bottom.

        >>> Position.from_notation("..3./..../..../..../..../..../..../.... t 2-2 -").outcome().to_dict()
        {'winner': 'bottom', 'reason': 'the bottom half is empty: bottom ended the game', 'scores': {'bottom': 2, 'top': 2}}
        """
        scores = (self.scores[0], self.scores[1])
        ender = self.turn ^ 1  # whoever made the last move
        empty = [s for s in (BOTTOM, TOP) if not any(self._half(s))]
        if empty:
            names = " and ".join(f"the {SIDE_NAMES[s]} half" for s in empty)
            return Outcome(_winner(scores, tie=ender), f"{names} is empty: {SIDE_NAMES[ender]} ended the game", scores)
        if self.clock == 0:
            return Outcome(_winner(scores, tie=None), f"{CLOCK_MOVES} moves without a capture after the clock was called", scores)
        if not self._generate():
            return Outcome(_winner(scores, tie=None), f"{SIDE_NAMES[self.turn]} has no legal move", scores)
        return None

    # -- perft --------------------------------------------------------------------------
    def perft(self, depth: int) -> int:
        """Number of legal move sequences of length `depth`; finished games are leaves."""
        if depth <= 0:
            return 1
        moves = self._generate()
        if depth == 1:
            return len(moves)
        total = 0
        for f, t in moves:
            self._push(f, t)
            total += self.perft(depth - 1)
            self._pop_raw()
        return total

    # -- internals ------------------------------------------------------------------------
    def _half(self, side: int) -> list[int]:
        return self.board[:HALF] if side == BOTTOM else self.board[HALF:]

    def _generate(self) -> list[tuple[int, int]]:
        """Legal (from, to) pairs; [] once a half is empty or the clock has run out."""
        board = self.board
        lo = 0 if self.turn == BOTTOM else HALF
        hi = lo + HALF
        own = board[lo:hi]
        if self.clock == 0 or not any(own) or not any(board[HALF - lo:N_SQUARES - lo]):
            return []
        may_make_queen = QUEEN not in own
        may_make_drone = DRONE not in own
        banned = (self.last.to_square, self.last.from_square) if self.last else None
        moves = []
        for f in range(lo, hi):
            piece = board[f]
            if not piece:
                continue
            for ray in RAYS[piece][f]:
                for t in ray:
                    target = board[t]
                    if not target:
                        moves.append((f, t))
                        continue
                    if not lo <= t < hi:  # capture on the opponent's side
                        moves.append((f, t))
                    elif (piece + target == QUEEN and may_make_queen) or \
                            (piece == target == PAWN and may_make_drone):  # field promotion
                        moves.append((f, t))
                    break
        if banned in moves:
            moves.remove(banned)
        return moves

    def _push(self, f: int, t: int) -> None:
        board = self.board
        piece, target = board[f], board[t]
        self._undo.append((f, t, piece, target, self.last, self.clock, list(self.scores)))
        captured = bool(target) and half_of(t) != self.turn
        if captured:
            self.scores[self.turn] += target
            board[t] = piece
        else:
            board[t] = piece + target  # a plain move, or a merge (1+1 drone, 1+2 queen)
        board[f] = EMPTY
        self.last = Move(f, t) if half_of(f) != half_of(t) else None
        if self.clock is not None:
            self.clock = CLOCK_MOVES if captured else self.clock - 1
        self.turn ^= 1

    def _pop_raw(self) -> None:
        f, t, piece, target, last, clock, scores = self._undo.pop()
        self.board[f], self.board[t] = piece, target
        self.turn ^= 1
        self.last, self.clock, self.scores = last, clock, scores


def _winner(scores: tuple[int, int], tie: int | None) -> int | None:
    if scores[0] != scores[1]:
        return BOTTOM if scores[0] > scores[1] else TOP
    return tie


def _check_last(last: Move, board: list[int], turn: int) -> None:
    """LAST must be a canal crossing onto the mover's half, and the piece must still be there."""
    if not last.crosses_canal():
        raise NotationError(f"LAST {last} does not cross the canal (use '-')")
    if half_of(last.to_square) != turn:
        raise NotationError(f"LAST {last} ends on the half of the player who made it, not the player to move")
    if board[last.to_square] == EMPTY:
        raise NotationError(f"LAST {last} ends on an empty square")


