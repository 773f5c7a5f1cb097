"""Online Martian Chess games as plain dicts: seats, turns, moves, the clock, rematches.

No Flask here: the views call these functions inside a storage transaction. The server is
the authority: every change is checked against the seat token and the rules engine.

Players are "A" (who started the game) and "B" (the first other person to open the link);
each round says which of them sits at the bottom. Seat tokens and link ids come from
`secrets.token_urlsafe`, far beyond guessing.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from domain import InputError, TableState
from referee.martian_chess import SETUP_NOTATION, IllegalMoveError, Move, NotationError, Position
from referee.martian_chess.board import BOTTOM, SIDE_NAMES, square_name
from referee.martian_chess.physical import BoardGeometry, rule_table

# Random bytes behind a link id and a seat token (128 and 192 bits).
GAME_ID_BYTES = 16
SEAT_TOKEN_BYTES = 24
PLAYERS = ("A", "B")
# Camera flags kept for the players to see (older ones are dropped).
FLAGS_KEPT = 5


class GameError(InputError):
    """A request the game refuses; `status` is the HTTP status the server answers with."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def new_token() -> str:
    return secrets.token_urlsafe(SEAT_TOKEN_BYTES)


def new_game(start: str = SETUP_NOTATION, first: str = "random") -> tuple[dict[str, Any], str]:
    """A game whose creator (player A) sits at the bottom; returns (game, A's token)."""
    Position.from_notation(start)  # refuse a bad configured start early
    token = new_token()
    game = {"id": secrets.token_urlsafe(GAME_ID_BYTES), "version": 0, "start": start,
            "tokens": {"A": token, "B": None}, "camera": None, "history": [], "flags": [],
            "table": None}
    first_player = secrets.choice(PLAYERS) if first == "random" else ("A" if first == "bottom" else "B")
    _start_round(game, number=1, bottom="A", first=first_player)
    return game, token


def _start_round(game: dict, number: int, bottom: str, first: str) -> None:
    side_to_move = "b" if first == bottom else "t"
    fields = game["start"].split()
    fields[1] = side_to_move
    notation = " ".join(fields)
    game["round"] = {"number": number, "bottom": bottom, "first": first,
                     "notation": notation, "start_notation": notation, "moves": [], "result": None}


def player_of(game: dict, token: Any) -> str | None:
    if not isinstance(token, str) or not token:
        return None
    for player, held in game["tokens"].items():
        if held and hmac.compare_digest(held, token):
            return player
    return None


def seat_of_player(game: dict, player: str | None) -> str | None:
    if player is None:
        return None
    return "bottom" if game["round"]["bottom"] == player else "top"


def join(game: dict, token: Any) -> tuple[str | None, str | None]:
    """Reclaim the seat a token holds, take the free seat, or watch: (seat, token)."""
    player = player_of(game, token)
    if player is not None:
        return seat_of_player(game, player), token
    if game["tokens"]["B"] is None:
        game["tokens"]["B"] = new_token()
        return seat_of_player(game, "B"), game["tokens"]["B"]
    return None, None


def attach_camera(game: dict, token: Any) -> str:
    """The creator hands the free seat to a physical board; returns the camera's token."""
    if player_of(game, token) != "A":
        raise GameError(403, "only the player who started the game can seat a physical board")
    if game["tokens"]["B"] is not None:
        raise GameError(409, "both seats are already taken")
    game["tokens"]["B"] = new_token()
    game["camera"] = "B"
    return game["tokens"]["B"]


def position(game: dict) -> Position:
    return Position.from_notation(game["round"]["notation"])


def _seated_player(game: dict, token: Any) -> str:
    player = player_of(game, token)
    if player is None:
        raise GameError(403, "you do not hold a seat in this game (spectators cannot move)")
    return player


def _player_to_move(game: dict, token: Any) -> tuple[str, Position]:
    player = _seated_player(game, token)
    if None in game["tokens"].values():
        raise GameError(409, "waiting for an opponent to take the other seat")
    pos = position(game)
    if pos.is_game_over():
        raise GameError(409, "the game is over")
    if SIDE_NAMES[pos.turn] != seat_of_player(game, player):
        raise GameError(409, "it is not your turn")
    return player, pos


def play(game: dict, token: Any, move_text: Any) -> Move:
    """The token's holder plays `move_text` (FROM-TO)."""
    if not isinstance(move_text, str):
        raise GameError(400, "send the move as a string FROM-TO, e.g. c3-d4")
    _, pos = _player_to_move(game, token)
    try:
        move = Move.parse(move_text)
        pos.push(move)
    except IllegalMoveError as e:
        raise GameError(422, str(e)) from None
    except NotationError as e:
        raise GameError(400, str(e)) from None
    _record(game, pos, str(move))
    return move


def set_board(game: dict, token: Any, board: Any) -> None:
    """Where the physical board lies on the table ({"corners": [[x, y] x4]}, mm)."""
    _seated_player(game, token)
    game["board"] = BoardGeometry.from_dict(board).to_dict()


def camera_table(game: dict, token: Any, table: Any) -> dict[str, Any]:
    """A confirmed table state from the camera seat: play the move it shows, or flag it."""
    if game["camera"] is None or player_of(game, token) != game["camera"]:
        raise GameError(403, "only the camera of the physical board's seat may send table states")
    state = TableState.from_dict(table)
    board = game.get("board")
    geometry = BoardGeometry.from_dict(board) if board else BoardGeometry.default()
    pos = position(game)
    ruling = rule_table(pos, state, geometry)
    camera_seat = seat_of_player(game, game["camera"])
    status, message = ruling.status, ruling.message
    if status == "move" and SIDE_NAMES[pos.turn] != camera_seat:
        status, message = "flag", f"it is {SIDE_NAMES[pos.turn]}'s turn online, yet the board changed: {message}"
    elif status == "flag" and _shows_position_before_last_move(game, state, geometry):
        message = f"the board does not show {game['round']['moves'][-1]} yet: make that move on the board"
    if status == "move":
        pos.push(ruling.move)  # type: ignore[arg-type]
        _record(game, pos, str(ruling.move))
        game["flags"] = []
    elif status == "flag":
        game["flags"] = (game["flags"] + [{"message": message, "seen": ruling.seen}])[-FLAGS_KEPT:]
    else:
        game["flags"] = []
    return {**ruling.to_dict(), "status": status, "message": message}


def _record(game: dict, pos: Position, entry: str) -> None:
    rnd = game["round"]
    rnd["notation"] = pos.notation()
    rnd["moves"].append(entry)
    outcome = pos.outcome()
    if outcome is not None and rnd["result"] is None:
        rnd["result"] = outcome.to_dict()
        game["history"].append({"round": rnd["number"], "bottom": rnd["bottom"], **rnd["result"]})


def call_clock(game: dict, token: Any) -> None:
    _, pos = _player_to_move(game, token)
    try:
        pos.call_clock()
    except IllegalMoveError as e:
        raise GameError(409, str(e)) from None
    _record(game, pos, "clock")


def rematch(game: dict, token: Any) -> None:
    """After a finished round: sides swap and the player who did not move first now does."""
    _seated_player(game, token)
    rnd = game["round"]
    if rnd["result"] is None:
        raise GameError(409, "the game is still going on: finish it before a rematch")
    other = {"A": "B", "B": "A"}
    _start_round(game, rnd["number"] + 1, bottom=other[rnd["bottom"]], first=other[rnd["first"]])
    game["flags"] = []


def _shows_position_before_last_move(game: dict, state: TableState, geometry: BoardGeometry) -> bool:
    """Whether the table still shows the game before its last move (not yet copied onto it)."""
    moves = game["round"]["moves"]
    if not moves or moves[-1] == "clock":
        return False
    pos = Position.from_notation(game["round"]["start_notation"])
    for entry in moves[:-1]:
        pos.call_clock() if entry == "clock" else pos.push(Move.parse(entry))
    return rule_table(pos, state, geometry).status == "none"


def public_view(game: dict) -> dict[str, Any]:
    """What anyone watching may see (never a token)."""
    rnd = game["round"]
    pos = position(game)
    outcome = pos.outcome()
    legal: dict[str, list[str]] = {}
    for m in pos.legal_moves():
        legal.setdefault(square_name(m.from_square), []).append(square_name(m.to_square))
    seat_player = {"bottom": rnd["bottom"], "top": "B" if rnd["bottom"] == "A" else "A"}
    return {
        "id": game["id"], "version": game["version"], "round": rnd["number"],
        "notation": rnd["notation"], "board": pos.board, "turn": SIDE_NAMES[pos.turn],
        "scores": {"bottom": pos.scores[BOTTOM], "top": pos.scores[1 - BOTTOM]},
        "last": str(pos.last) if pos.last else None, "clock": pos.clock,
        "moves": rnd["moves"], "last_move": next((m for m in reversed(rnd["moves"]) if m != "clock"), None),
        "legal": legal, "outcome": None if outcome is None else outcome.to_dict(),
        "seats": {seat: {"taken": game["tokens"][p] is not None, "camera": game["camera"] == p}
                  for seat, p in seat_player.items()},
        "history": game["history"], "flags": game["flags"],
    }
