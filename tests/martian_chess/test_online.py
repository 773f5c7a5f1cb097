"""Online play through the JSON API: seats, authority, errors, restarts, rematches."""

from __future__ import annotations

from server.martian_chess.games import GAME_ID_BYTES, SEAT_TOKEN_BYTES

from tests.martian_chess.helpers import ENDGAME, make_app


def start(client):
    created = client.post("/martian-chess/api/games").get_json()
    joined = client.post(f"/martian-chess/api/games/{created['id']}/join", json={}).get_json()
    return created, joined


def api(game_id, what=""):
    return f"/martian-chess/api/games/{game_id}{what}"


def play_line(client, gid, bottom, top):
    """From ENDGAME, bottom to move: a capture, then top empties its own half (1-0, bottom wins)."""
    for token, move in [(bottom, "b4-c5"), (top, "d8-d1"), (bottom, "a1-b2"), (top, "c5-b4")]:
        r = client.post(api(gid, "/move"), json={"token": token, "move": move})
        assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_creator_and_first_visitor_take_the_seats_later_ones_watch(client):
    created, joined = start(client)
    assert created["seat"] == "bottom" and joined["seat"] == "top"
    assert joined["token"] and joined["token"] != created["token"]
    spectator = client.post(api(created["id"], "/join"), json={}).get_json()
    assert spectator["seat"] is None and spectator["token"] is None
    again = client.post(api(created["id"], "/join"), json={"token": joined["token"]}).get_json()
    assert again["seat"] == "top"  # the same browser reclaims its seat


def test_links_and_tokens_carry_at_least_128_random_bits(client):
    created, joined = start(client)
    assert GAME_ID_BYTES * 8 >= 128 and SEAT_TOKEN_BYTES * 8 >= 128
    assert len(created["id"]) >= 22 and len(created["token"]) >= 22 and len(joined["token"]) >= 22
    assert created["id"] != start(client)[0]["id"]


def test_a_full_game_plays_to_the_end_with_scores_and_winner(client):
    created, joined = start(client)
    gid, bottom = created["id"], created["token"]
    state = play_line(client, gid, bottom, joined["token"])
    assert state["outcome"]["winner"] == "bottom" and state["scores"] == {"bottom": 1, "top": 0}
    assert state["legal"] == {}
    assert client.post(api(gid, "/move"), json={"token": bottom, "move": "b2-a3"}).status_code == 409


def test_the_server_refuses_spectators_strangers_wrong_turns_and_illegal_moves(client):
    created, joined = start(client)
    gid = created["id"]
    spectator = client.post(api(gid, "/move"), json={"move": "b4-c5"})
    assert spectator.status_code == 403 and "spectators cannot move" in spectator.get_json()["error"]
    guess = client.post(api(gid, "/move"), json={"token": "x" * 32, "move": "b4-c5"})
    assert guess.status_code == 403
    wrong_turn = client.post(api(gid, "/move"), json={"token": joined["token"], "move": "c5-b4"})
    assert wrong_turn.status_code == 409 and "not your turn" in wrong_turn.get_json()["error"]
    illegal = client.post(api(gid, "/move"), json={"token": created["token"], "move": "b4-b5"})
    assert illegal.status_code == 422 and "diagonally" in illegal.get_json()["error"]
    assert client.get(api(gid)).get_json()["moves"] == []  # nothing was lost or changed


def test_nobody_moves_before_the_other_seat_is_taken(client):
    created = client.post("/martian-chess/api/games").get_json()
    r = client.post(api(created["id"], "/move"), json={"token": created["token"], "move": "b4-c5"})
    assert r.status_code == 409 and "waiting for an opponent" in r.get_json()["error"]


def test_malformed_requests_get_clear_errors(client):
    created, _ = start(client)
    gid = created["id"]
    not_json = client.post(api(gid, "/move"), data="{{{", content_type="application/json")
    assert not_json.status_code == 400 and "not valid JSON" in not_json.get_json()["error"]
    not_object = client.post(api(gid, "/move"), json=[1, 2])
    assert not_object.status_code == 400
    bad_move = client.post(api(gid, "/move"), json={"token": created["token"], "move": "z9-b4"})
    assert bad_move.status_code == 400 and "not a square" in bad_move.get_json()["error"]
    no_game = client.get(api("nonexistent"))
    assert no_game.status_code == 404 and "no such game" in no_game.get_json()["error"]


def test_games_survive_a_server_restart(tmp_path):
    db = str(tmp_path / "g.sqlite3")
    first = make_app(db, MARTIAN_CHESS_START=ENDGAME, MARTIAN_CHESS_FIRST="bottom").test_client()
    created, joined = start(first)
    first.post(api(created["id"], "/move"), json={"token": created["token"], "move": "b4-c5"})
    second = make_app(db).test_client()
    state = second.get(api(created["id"])).get_json()
    assert state["moves"] == ["b4-c5"] and state["turn"] == "top"
    r = second.post(api(created["id"], "/move"), json={"token": joined["token"], "move": "d8-d1"})
    assert r.status_code == 200


def test_calling_the_clock_shows_the_count(client):
    created, joined = start(client)
    gid = created["id"]
    state = client.post(api(gid, "/clock"), json={"token": created["token"]}).get_json()
    assert state["clock"] == 7 and state["notation"].endswith("clock7")
    assert client.post(api(gid, "/clock"), json={"token": created["token"]}).status_code == 409
    state = client.post(api(gid, "/move"), json={"token": created["token"], "move": "a1-a2"}).get_json()
    assert state["clock"] == 6


def test_rematch_swaps_sides_and_the_other_player_moves_first(client):
    created, joined = start(client)
    gid, a, b = created["id"], created["token"], joined["token"]
    assert client.post(api(gid, "/rematch"), json={"token": a}).status_code == 409  # not finished
    play_line(client, gid, a, b)
    r = client.post(api(gid, "/rematch"), json={"token": b})
    state = r.get_json()
    assert r.status_code == 200 and state["round"] == 2 and state["moves"] == [] and state["outcome"] is None
    seat_a = client.post(api(gid, "/join"), json={"token": a}).get_json()["seat"]
    seat_b = client.post(api(gid, "/join"), json={"token": b}).get_json()["seat"]
    assert (seat_a, seat_b) == ("top", "bottom")  # sides swapped
    assert state["turn"] == seat_b  # A moved first in round one, so B moves first now
    assert state["history"][0]["round"] == 1 and state["history"][0]["winner"] == "bottom"


def test_first_mover_is_random(tmp_path):
    client = make_app(str(tmp_path / "r.sqlite3")).test_client()
    turns = {client.get(api(start(client)[0]["id"])).get_json()["turn"] for _ in range(30)}
    assert turns == {"bottom", "top"}


def test_pages_render(client):
    assert b"Start a game" in client.get("/martian-chess/").data
    created, _ = start(client)
    page = client.get(f"/martian-chess/g/{created['id']}")
    assert page.status_code == 200 and created["id"].encode() in page.data
    assert client.get("/martian-chess/g/nope").status_code == 404
    assert client.get("/martian-chess/static/game.js").status_code == 200


# -- a physical board in one seat --------------------------------------------------------
def table_json(board: list[int]) -> dict:
    from referee.martian_chess.board import square_name
    from referee.martian_chess.physical import BoardGeometry
    geo = BoardGeometry.default()
    sizes = {1: "small", 2: "medium", 3: "large"}
    return {"units": "mm", "pieces": [
        {"id": f"p{s}", "color": "red", "size": sizes[v], "pose": "upright",
         "center": list(geo.square_center(square_name(s)))} for s, v in enumerate(board) if v]}


def test_the_camera_seat_moves_by_table_states_and_flags_what_it_cannot_accept(client):
    from referee.martian_chess import Position
    created = client.post("/martian-chess/api/games").get_json()
    gid, online = created["id"], created["token"]
    camera = client.post(api(gid, "/camera"), json={"token": online}).get_json()
    assert camera["seat"] == "top"
    assert client.post(api(gid, "/join"), json={}).get_json()["seat"] is None  # seats are full
    client.post(api(gid, "/move"), json={"token": online, "move": "b4-c5"})
    pos = Position.from_notation(client.get(api(gid)).get_json()["notation"])

    # The person at the table has not copied the online move yet: told what to do.
    stale = Position.from_notation(ENDGAME)
    r = client.post(api(gid, "/table"), json={"token": camera["token"], "table": table_json(stale.board)})
    assert r.get_json()["ruling"]["status"] == "flag" and "make that move" in r.get_json()["ruling"]["message"]
    assert r.get_json()["state"]["flags"]

    # In sync, then an illegal move on the table: flagged, nothing played.
    synced = client.post(api(gid, "/table"), json={"token": camera["token"], "table": table_json(pos.board)})
    assert synced.get_json()["ruling"]["status"] == "none"
    wrong = list(pos.board)
    wrong[31], wrong[24] = 0, 3  # the d8 queen lands on a7: not a straight line
    bad = client.post(api(gid, "/table"), json={"token": camera["token"], "table": table_json(wrong)}).get_json()
    assert bad["ruling"]["status"] == "flag" and bad["state"]["moves"] == ["b4-c5"]

    # A legal move on the table becomes the camera seat's move.
    pos.push(pos.legal_moves()[0])
    good = client.post(api(gid, "/table"), json={"token": camera["token"], "table": table_json(pos.board)})
    body = good.get_json()
    assert body["ruling"]["status"] == "move" and body["state"]["notation"] == pos.notation()
    assert body["state"]["flags"] == []


def test_only_the_camera_may_post_tables_and_bad_tables_are_refused(client):
    created, joined = start(client)
    gid = created["id"]
    assert client.post(api(gid, "/table"), json={"token": joined["token"], "table": {}}).status_code == 403
    assert client.post(api(gid, "/camera"), json={"token": created["token"]}).status_code == 409
    fresh = client.post("/martian-chess/api/games").get_json()
    cam = client.post(api(fresh["id"], "/camera"), json={"token": fresh["token"]}).get_json()["token"]
    r = client.post(api(fresh["id"], "/table"), json={"token": cam, "table": {"pieces": "no"}})
    assert r.status_code == 400 and "pieces" in r.get_json()["error"]
    r = client.post(api(fresh["id"], "/board"), json={"token": cam, "board": {"corners": [[0, 0]]}})
    assert r.status_code == 400 and "corners" in r.get_json()["error"]


def test_the_dashboard_app_serves_the_blueprint(tmp_path):
    from server.app import create_app
    app = create_app({"DATABASE": str(tmp_path / "app.sqlite3")})
    client = app.test_client()
    assert b"Start a game" in client.get("/martian-chess/").data
    created = client.post("/martian-chess/api/games").get_json()
    assert client.get(f"/martian-chess/api/games/{created['id']}").status_code == 200
