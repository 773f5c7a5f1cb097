"""Martian Chess (two players, 4x8 board): rules engine, notation and physical-board refereeing.

>>> from referee.martian_chess import Position
>>> Position.setup().perft(2)
104
"""

from referee.martian_chess.board import BOTTOM, TOP, NotationError
from referee.martian_chess.position import (CLOCK_MOVES, SETUP_NOTATION, IllegalMoveError, Move,
                                            Outcome, Position)

__all__ = ["BOTTOM", "TOP", "CLOCK_MOVES", "SETUP_NOTATION", "IllegalMoveError", "Move",
           "NotationError", "Outcome", "Position"]
