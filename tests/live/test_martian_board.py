"""Martian Chess tables through the engine's physical-board referee."""

from __future__ import annotations

from domain import Piece, TableState
from referee.martian_chess import Position
from referee.martian_chess.physical import BoardGeometry
from vision.live.martian_board import MartianChessReferee

GEO = BoardGeometry.default()
START = "1.../..../..../..../..../..../..../3..3 b 0-0 -"  # a top pawn on a8, bottom queens a1 d1


def board(**squares: str) -> TableState:
    sizes = {"p": "small", "d": "medium", "q": "large"}
    return TableState(tuple(Piece.upright(f"x{i}", "red", sizes[kind], GEO.square_center(sq))
                            for i, (sq, kind) in enumerate(squares.items())))


def test_a_legal_move_is_played_and_an_unexplained_change_is_uncertain():
    forwarded = []
    ref = MartianChessReferee(position=Position.from_notation(START), forward=forwarded.append,
                              players=("ann", "bob"))
    before = board(a8="p", a1="q", d1="q")
    (move,) = ref.on_change(before, board(a8="p", b2="q", d1="q"))
    assert move["kind"] == "move" and move["ruling"]["move"] == "a1-b2"
    assert ref.public()["turn"] == "bob" and len(forwarded) == 1
    (flag,) = ref.on_change(board(a8="p", b2="q", d1="q"), board(a8="p", b2="q", d1="q", c3="d"))
    assert flag["kind"] == "uncertain" and flag["advisory"]
    assert ref.public()["turn"] == "bob"  # nothing was ruled
    again = MartianChessReferee()
    again.restore(ref.snapshot(), [{"name": "ann"}, {"name": "bob"}])
    assert again.position.notation() == ref.position.notation()
    assert again.scores([{"name": "ann"}, {"name": "bob"}]) == {"ann": {"points": 0}, "bob": {"points": 0}}


def test_tables_are_forwarded_to_an_online_game_as_its_physical_board(tmp_path):
    import threading

    from werkzeug.serving import make_server

    from server.app import create_app
    from vision.live.martian_board import online_forwarder

    top_to_move = START.replace(" b ", " t ")
    app = create_app({"DATABASE": str(tmp_path / "g.sqlite3"), "MARTIAN_CHESS_START": top_to_move,
                      "MARTIAN_CHESS_FIRST": "top"})
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        c = app.test_client()
        game = c.post("/martian-chess/api/games").get_json()
        camera = c.post(f"/martian-chess/api/games/{game['id']}/camera", json={"token": game["token"]}).get_json()
        url = f"http://127.0.0.1:{srv.server_port}/martian-chess/api/games/{game['id']}/table"
        ref = MartianChessReferee(position=Position.from_notation(top_to_move), forward=online_forwarder(url, camera["token"]))
        (move,) = ref.on_change(board(a8="p", a1="q", d1="q"), board(b7="p", a1="q", d1="q"))
        assert move["ruling"]["move"] == "a8-b7"
        online = c.get(f"/martian-chess/api/games/{game['id']}").get_json()
        assert online["last_move"] == "a8-b7" and online["turn"] == "bottom"
    finally:
        srv.shutdown()
