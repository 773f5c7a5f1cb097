"""Routes of the online Martian Chess blueprint: pages, the JSON API and the live stream."""

from __future__ import annotations

import json
import threading
from typing import Any, Callable

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request, url_for

from domain import InputError
from referee.martian_chess import SETUP_NOTATION
from server.martian_chess import games
from server.martian_chess.events import Broker
from server.martian_chess.games import GameError
from server.martian_chess.store import GameStore

bp = Blueprint("martian_chess", __name__, url_prefix="/martian-chess",
               template_folder="templates", static_folder="static")

# Longest JSON body the API reads (a table state from the camera is the biggest).
MAX_BODY_BYTES = 256 * 1024


# The first requests to a new server may come together: each would open the database
# (switching it to WAL fails while another connection does the same) and make a broker
# of its own, whose listeners then hear nothing.
_OPENING = threading.Lock()


def _store() -> GameStore:
    ext = current_app.extensions
    if "martian_chess_store" not in ext:
        with _OPENING:
            if "martian_chess_store" not in ext:
                ext["martian_chess_broker"] = Broker()   # before the store: _broker reads it after
                ext["martian_chess_store"] = GameStore(current_app.config["DATABASE"])
    return ext["martian_chess_store"]


def _broker() -> Broker:
    _store()
    return current_app.extensions["martian_chess_broker"]


def _body() -> dict[str, Any]:
    if request.content_length and request.content_length > MAX_BODY_BYTES:
        raise GameError(413, f"the request body is larger than {MAX_BODY_BYTES} bytes")
    data = request.get_json(silent=True)
    if data is None and request.get_data():
        raise GameError(400, "the request body is not valid JSON")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise GameError(400, "the request body must be a JSON object")
    return data


def _change(game_id: str, change: Callable[[dict], Any]) -> tuple[dict, Any]:
    try:
        game, result = _store().update(game_id, change)
    except KeyError:
        raise GameError(404, "no such game: check the link") from None
    _broker().publish(game_id, game["version"])
    return game, result


def _load(game_id: str) -> dict:
    game = _store().get(game_id)
    if game is None:
        raise GameError(404, "no such game: check the link")
    return game


@bp.errorhandler(GameError)
def _game_error(e: GameError):
    return jsonify(error=str(e)), e.status


@bp.errorhandler(InputError)
def _input_error(e: InputError):
    return jsonify(error=str(e)), 400


# -- pages ------------------------------------------------------------------------------
@bp.get("/")
def home():
    return render_template("martian_chess/home.html")


@bp.get("/g/<game_id>")
def game_page(game_id: str):
    if _store().get(game_id) is None:
        abort(404)
    return render_template("martian_chess/game.html", game_id=game_id)


# -- API ----------------------------------------------------------------------------------
@bp.post("/api/games")
def create_game():
    start = current_app.config.get("MARTIAN_CHESS_START", SETUP_NOTATION)
    first = current_app.config.get("MARTIAN_CHESS_FIRST", "random")
    game, token = games.new_game(start, first)
    _store().create(game)
    return jsonify(id=game["id"], token=token, seat="bottom",
                   url=url_for("martian_chess.game_page", game_id=game["id"])), 201


@bp.get("/api/games/<game_id>")
def game_state(game_id: str):
    return jsonify(games.public_view(_load(game_id)))


@bp.post("/api/games/<game_id>/join")
def join_game(game_id: str):
    token = _body().get("token")
    game = _load(game_id)
    if games.player_of(game, token) is None and game["tokens"]["B"] is None:
        game, (seat, token) = _change(game_id, lambda g: games.join(g, token))
    else:
        seat, token = games.join(game, token)
    return jsonify(seat=seat, token=token, state=games.public_view(game))


@bp.post("/api/games/<game_id>/move")
def move(game_id: str):
    body = _body()
    game, _ = _change(game_id, lambda g: games.play(g, body.get("token"), body.get("move")))
    return jsonify(games.public_view(game))


@bp.post("/api/games/<game_id>/clock")
def clock(game_id: str):
    body = _body()
    game, _ = _change(game_id, lambda g: games.call_clock(g, body.get("token")))
    return jsonify(games.public_view(game))


@bp.post("/api/games/<game_id>/rematch")
def rematch(game_id: str):
    body = _body()
    game, _ = _change(game_id, lambda g: games.rematch(g, body.get("token")))
    return jsonify(games.public_view(game))


@bp.post("/api/games/<game_id>/camera")
def attach_camera(game_id: str):
    body = _body()
    game, token = _change(game_id, lambda g: games.attach_camera(g, body.get("token")))
    return jsonify(token=token, seat=games.seat_of_player(game, game["camera"]))


@bp.post("/api/games/<game_id>/board")
def set_board(game_id: str):
    body = _body()
    game, _ = _change(game_id, lambda g: games.set_board(g, body.get("token"), body.get("board")))
    return jsonify(board=game["board"])


@bp.post("/api/games/<game_id>/table")
def camera_table(game_id: str):
    body = _body()
    game, ruling = _change(game_id, lambda g: games.camera_table(g, body.get("token"), body.get("table")))
    return jsonify(ruling=ruling, state=games.public_view(game))


@bp.get("/api/games/<game_id>/events")
def events(game_id: str):
    _load(game_id)
    store = _store()  # the stream runs after the request context is gone

    def snapshot() -> tuple[int, str]:
        game = store.get(game_id)
        return game["version"], json.dumps(games.public_view(game))

    stream = _broker().stream(game_id, snapshot)
    return Response(stream, mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
