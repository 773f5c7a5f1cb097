"""The dashboard's pages (blueprint "pages"): live view, set-up, calibration, history, replay."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, render_template

from domain import TableState
from server.games import DEFAULT_PLAYER_COLOURS, GAMES
from server.table_map import table_map

pages = Blueprint("pages", __name__)

DIE_FACES = ("S", "M", "L", "SM", "SL", "ML")


def service():
    return current_app.extensions["live"]


@pages.get("/")
def live():
    return render_template("live.html", die_faces=DIE_FACES, active="live")


@pages.get("/setup")
def setup():
    return render_template("setup.html", games=GAMES.values(), colours=DEFAULT_PLAYER_COLOURS,
                           current=service().game, active="setup")


@pages.get("/calibrate")
def calibrate():
    return render_template("calibrate.html", layout=service().layout, active="calibrate")


@pages.get("/history")
def history():
    return render_template("history.html", games=service().store.games(), active="history")


@pages.get("/history/<int:game_id>")
def replay(game_id: int):
    game = service().store.game(game_id)  # NotFound → 404 with a message
    return render_template("replay.html", game=game, active="history")


@pages.get("/api/map")
def map_data():
    s = service()
    with s.lock:
        return jsonify(table_map(s.table, s.rulings, s.layout))


@pages.get("/api/games/<int:game_id>/steps")
def steps(game_id: int):
    """Each recorded event of a game with the table as it stood then: the replay's frames."""
    store = service().store
    store.game(game_id)
    rulings = {r["id"]: r for r in store.rulings(game_id)}
    layout = service().layout
    table, seen, out = TableState(), [], []
    for e in store.events(game_id):
        data, picture = e["data"], None
        if "table" in data:
            table = TableState.from_dict(data["table"])
        if e["kind"] == "ruling" and data.get("id") in rulings:
            seen.append(rulings[data["id"]])
            text = rulings[data["id"]]["summary"]
            picture = f"/api/rulings/{data['id']}/picture.jpg"
        elif e["kind"] == "table":
            text = f"table read: {len(table.pieces)} pieces"
        elif e["kind"] == "correction":
            text = f"{data['piece']} corrected: {data['changes']}"
        else:
            text = str(data.get("message") or data.get("note") or data.get("ruling") or "")
        if e["has_image"]:
            picture = f"/api/events/{e['id']}/picture.jpg"
        out.append({"at": e["at"], "kind": e["kind"], "text": text, "picture": picture,
                    "map": table_map(table, seen, layout)})
    return jsonify({"steps": out})
