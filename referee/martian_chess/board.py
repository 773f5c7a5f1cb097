"""Squares, sides and the move tables of the two-player Martian Chess board (4 files x 8 ranks).

A square is an int 0..31: ``rank * 4 + file`` with rank 0 = rank 1 (the bottom edge) and
file 0 = file a. The bottom player owns ranks 1-4 (squares 0..15), the top player ranks
5-8 (16..31). A piece is its value: 1 pawn, 2 drone, 3 queen (0 = empty square).

>>> square_name(parse_square("c3")), half_of(parse_square("c4")), half_of(parse_square("c5"))
('c3', 0, 1)
>>> [square_name(t) for ray in RAYS[PAWN][parse_square("a1")] for t in ray]
['b2']
"""

from __future__ import annotations

from domain import InputError

FILES = "abcd"
N_FILES, N_RANKS = 4, 8
N_SQUARES = N_FILES * N_RANKS
HALF = N_SQUARES // 2  # squares below this index are the bottom player's territory

BOTTOM, TOP = 0, 1
SIDE_NAMES = ("bottom", "top")

EMPTY, PAWN, DRONE, QUEEN = 0, 1, 2, 3
PIECE_NAMES = {PAWN: "pawn", DRONE: "drone", QUEEN: "queen"}

# How far each piece may slide along one of its directions (the board is 8 long).
DRONE_REACH = 2
QUEEN_REACH = N_RANKS
ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))


class NotationError(InputError):
    """A square, move or position string that does not follow the contract's notation."""


def square_name(sq: int) -> str:
    return FILES[sq % N_FILES] + str(sq // N_FILES + 1)


def parse_square(text: str) -> int:
    if len(text) != 2 or text[0] not in FILES or text[1] not in "12345678":
        raise NotationError(f"{text!r} is not a square (files a-d, ranks 1-8)")
    return (int(text[1]) - 1) * N_FILES + FILES.index(text[0])


def half_of(sq: int) -> int:
    """Whose territory the square is: BOTTOM (ranks 1-4) or TOP (ranks 5-8)."""
    return BOTTOM if sq < HALF else TOP


def half_squares(side: int) -> range:
    return range(0, HALF) if side == BOTTOM else range(HALF, N_SQUARES)


def _rays(sq: int, directions: tuple[tuple[int, int], ...], reach: int) -> tuple[tuple[int, ...], ...]:
    f, r = sq % N_FILES, sq // N_FILES
    rays = []
    for df, dr in directions:
        ray = []
        for step in range(1, reach + 1):
            ff, rr = f + df * step, r + dr * step
            if not (0 <= ff < N_FILES and 0 <= rr < N_RANKS):
                break
            ray.append(rr * N_FILES + ff)
        if ray:
            rays.append(tuple(ray))
    return tuple(rays)


# RAYS[piece][square]: the squares the piece may slide through, nearest first, one tuple
# per direction. A pawn's "rays" are single diagonal steps.
RAYS: dict[int, tuple[tuple[tuple[int, ...], ...], ...]] = {
    PAWN: tuple(_rays(s, DIAGONAL, 1) for s in range(N_SQUARES)),
    DRONE: tuple(_rays(s, ORTHOGONAL, DRONE_REACH) for s in range(N_SQUARES)),
    QUEEN: tuple(_rays(s, ORTHOGONAL + DIAGONAL, QUEEN_REACH) for s in range(N_SQUARES)),
}
