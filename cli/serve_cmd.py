"""`pyramid-referee serve`: the live dashboard."""

from __future__ import annotations

import argparse
import os
import signal
import sys

from domain import InputError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 5000


class ServeError(InputError):
    """A serve option that cannot be used."""


def register(sub) -> None:
    p = sub.add_parser("serve", help="serve the live dashboard",
                       description="Serve the live dashboard: camera view, table map, rulings, scores.")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--demo", action="store_true", help="play the bundled WarpShips footage in a loop (no camera)")
    src.add_argument("--source", metavar="CAMERA_INDEX_OR_FILE_OR_URL",
                     help="a camera index (0), a video file, a folder of pictures or a stream URL")
    p.add_argument("--game", help="the game to referee (warpships, martian-chess)")
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument("--shadow", action="store_true", help="log rulings as advisory only")
    p.add_argument("--database", help="SQLite file of games and rulings (default: the instance folder)")
    p.add_argument("--record", metavar="FOLDER", help="record the session (frames, states, rulings) to FOLDER")
    p.add_argument("--markers", metavar="markers.json", help="marker layout (default: the shipped layout)")
    p.add_argument("--camera", metavar="camera.json", help="camera intrinsics (default: estimated from the markers)")
    p.add_argument("--colours", "--colors", metavar="colours.json", help="colour models from calibrate-colours")
    p.add_argument("--forward-to", nargs=2, metavar=("URL", "TOKEN"),
                   help="Martian Chess: also post each table to an online game's camera seat "
                        "(URL ending /martian-chess/api/games/ID/table, the camera token)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from server.app import create_app
    from server.games import game_kind
    from server.wsgi_server import make_server

    if args.game:
        game_kind(args.game)  # an unknown game: one-line message before anything starts
    if not 0 <= args.port <= 65535:
        raise ServeError(f"--port must be 0-65535, got {args.port}")
    config = {"LIVE_DEMO": args.demo, "LIVE_SOURCE": args.source, "GAME": args.game, "SHADOW": args.shadow,
              "RECORD_DIR": args.record, "MARKERS": args.markers, "CAMERA": args.camera, "COLOURS": args.colours,
              "MARTIAN_CHESS_FORWARD": tuple(args.forward_to) if args.forward_to else None}
    if args.database:
        config["DATABASE"] = os.path.abspath(args.database)
    app = create_app(config)
    try:
        server = make_server(args.host, args.port, app)
    except OSError as e:
        raise ServeError(f"cannot listen on {args.host}:{args.port}: {e.strerror}") from None
    print(f"pyramid-referee: dashboard on http://{args.host}:{server.server_port}/ (Ctrl-C stops)", file=sys.stderr)
    # stopped by a service manager (SIGTERM): stop as on Ctrl-C, the live loop and its
    # detector's worker processes with the server, the store flushed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    finally:
        app.extensions["live"].stop()
    return 0
