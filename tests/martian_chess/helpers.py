"""Shared by the online Martian Chess tests: the blueprint on a small Flask app, a short endgame."""

from __future__ import annotations

from flask import Flask

from server.martian_chess import bp

# A short endgame for tests: bottom pawn b4 and queen a1, top pawn c5 and queen d8.
ENDGAME = "...3/..../..../..1./.1../..../..../3... b 0-0 -"


def make_app(database: str, **config) -> Flask:
    """The blueprint alone, as server/app.py registers it (without the live dashboard)."""
    app = Flask(__name__)
    app.config.update(DATABASE=database, **config)
    app.register_blueprint(bp)
    return app
