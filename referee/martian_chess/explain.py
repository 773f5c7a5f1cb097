"""Why a Martian Chess move is illegal, in words a player at the table understands.

>>> from referee.martian_chess.board import parse_square as sq
>>> board = [0] * 32; board[sq("a1")] = 1; board[sq("b2")] = 3; board[sq("d8")] = 1
>>> explain_illegal(board, 0, None, None, sq("a1"), sq("a2"))
'a pawn moves exactly one square diagonally'
>>> explain_illegal(board, 0, None, None, sq("a1"), sq("b2"))
'you cannot land on your own queen on b2'
"""

from __future__ import annotations

from referee.martian_chess.board import (DRONE, DRONE_REACH, EMPTY, N_FILES, PAWN, PIECE_NAMES, QUEEN,
                                         SIDE_NAMES, half_of, square_name)


def explain_illegal(board: list[int], turn: int, last, clock: int | None, f: int, t: int) -> str:
    """The first rule the move from square f to square t breaks (assumes it breaks one)."""
    from_name, to_name = square_name(f), square_name(t)
    own = [board[s] for s in range(32) if half_of(s) == turn]
    if clock == 0 or not any(own) or not any(board[s] for s in range(32) if half_of(s) != turn):
        return "the game is over"
    piece = board[f]
    if piece == EMPTY:
        return f"there is no piece on {from_name}"
    if half_of(f) != turn:
        return (f"{from_name} is on the {SIDE_NAMES[half_of(f)]} player's side of the canal: "
                f"you move only the pieces on your side")
    if f == t:
        return "a move must go somewhere"
    name = PIECE_NAMES[piece]
    path = _path(f, t)
    if path is None or not _reaches(piece, f, t):
        return {PAWN: "a pawn moves exactly one square diagonally",
                DRONE: "a drone moves one or two squares horizontally or vertically",
                QUEEN: "a queen moves any distance in one straight line"}[piece]
    blocker = next((s for s in path if board[s]), None)
    if blocker is not None:
        return f"a {name} cannot jump over the piece on {square_name(blocker)}"
    target = board[t]
    if target and half_of(t) == turn:
        return _merge_refusal(piece, target, to_name, own)
    if last is not None and (last.to_square, last.from_square) == (f, t):
        return (f"no undos: the {name} that just crossed the canal from {to_name} "
                f"cannot go straight back there this turn")
    return "the rules do not allow it"


def _merge_refusal(piece: int, target: int, to_name: str, own: list[int]) -> str:
    pair = {piece, target}
    if pair == {PAWN, DRONE} and QUEEN in own:
        return (f"a drone and a pawn merge into a queen only when you have no queen "
                f"on your side (landing on your {PIECE_NAMES[target]} on {to_name})")
    if piece == target == PAWN and DRONE in own:
        return f"two pawns merge into a drone only when you have no drone on your side (landing on {to_name})"
    return f"you cannot land on your own {PIECE_NAMES[target]} on {to_name}"


def _path(f: int, t: int) -> list[int] | None:
    """The squares strictly between f and t on a straight line, or None if not on one."""
    df, dr = t % N_FILES - f % N_FILES, t // N_FILES - f // N_FILES
    if not (df == 0 or dr == 0 or abs(df) == abs(dr)):
        return None
    steps = max(abs(df), abs(dr))
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    return [f + k * (sr * N_FILES + sf) for k in range(1, steps)]


def _reaches(piece: int, f: int, t: int) -> bool:
    df, dr = abs(t % N_FILES - f % N_FILES), abs(t // N_FILES - f // N_FILES)
    if piece == PAWN:
        return df == dr == 1
    if piece == DRONE:
        return (df == 0 or dr == 0) and max(df, dr) <= DRONE_REACH
    return True
