"""Online Martian Chess: a Flask blueprint (private links, seats, live moves, rematches).

Register with `app.register_blueprint(server.martian_chess.bp)`; pages live under
/martian-chess/. Config keys: DATABASE (SQLite path, shared with the app),
MARTIAN_CHESS_START (the notation new games start from; tests use short endgames),
MARTIAN_CHESS_FIRST ("random", "bottom" or "top": who moves first in round one).
"""

from server.martian_chess.views import bp

__all__ = ["bp"]
