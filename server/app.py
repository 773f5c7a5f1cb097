"""Application factory of the dashboard."""

from __future__ import annotations

import os
from typing import Any

from flask import Flask


def create_app(config: dict[str, Any] | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        DATABASE=os.path.join(app.instance_path, "pyramid-referee.sqlite3"),
    )
    if config:
        app.config.update(config)
    os.makedirs(os.path.dirname(app.config["DATABASE"]) or ".", exist_ok=True)
    # Blueprints: each feature registers here.
    return app
