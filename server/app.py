"""Application factory of the dashboard.

Configuration (app.config, all optional):
- DATABASE: SQLite file of games, events and rulings (default: instance folder).
- LIVE_SOURCE: what --source names (camera index, video file, folder, URL); LIVE_DEMO:
  True plays the bundled footage in a loop. Without either the dashboard runs without
  a camera (set-up, history, corrections).
- GAME: start a new game of this kind unless the current one is already of it.
- SHADOW: rulings are logged but advisory. RECORD_DIR: record the session there.
- LIVE_REALTIME (True), QUIET_FRAMES, AGREEING_FRAMES: loop tuning (tests speed them up).
- MARKERS, CAMERA, COLOURS: markers.json, camera.json, colours.json for the detector.
- MARTIAN_CHESS_FORWARD: (url, token) — post each confirmed Martian Chess table to that
  online game's physical-board endpoint as its camera seat.
- DETECTOR, FRAME_SOURCE: objects to use instead of the real ones (tests).
"""

from __future__ import annotations

import os
from typing import Any

from flask import Flask, jsonify

from domain import InputError
from server.bus import EventBus
from server.db import NotFound, Store


def create_app(config: dict[str, Any] | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        DATABASE=os.path.join(app.instance_path, "pyramid-referee.sqlite3"),
        LIVE_SOURCE=None, LIVE_DEMO=False, GAME=None, SHADOW=False, RECORD_DIR=None,
        LIVE_REALTIME=True, QUIET_FRAMES=None, AGREEING_FRAMES=None, DETECTOR=None, FRAME_SOURCE=None,
        MARKERS=None, CAMERA=None, COLOURS=None,
    )
    if config:
        app.config.update(config)
    if app.config["LIVE_DEMO"] and "DATABASE" not in (config or {}):  # the looping demo keeps its own games
        app.config["DATABASE"] = os.path.join(app.instance_path, "demo.sqlite3")
    os.makedirs(os.path.dirname(app.config["DATABASE"]) or ".", exist_ok=True)

    from server.startup import build_service  # imports the vision stack: only when an app is made
    service = build_service(app.config, Store(app.config["DATABASE"]), EventBus())
    app.extensions["live"] = service

    @app.errorhandler(InputError)
    def bad_input(e: InputError):
        return jsonify({"error": str(e)}), 404 if isinstance(e, NotFound) else 400

    # Blueprints: each feature registers here.
    from server.martian_chess import bp as martian_chess
    from server.routes_api import api
    from server.routes_pages import pages
    for blueprint in (api, pages, martian_chess):
        app.register_blueprint(blueprint)
    return app
