"""The dashboard's HTTP API as a player's browser (or a script) uses it."""

from __future__ import annotations

import json
import subprocess
import sys

from server.bus import EventBus


def test_state_is_exactly_the_contracts_shape(played):
    state = played.test_client().get("/api/state").get_json()
    assert set(state) == {"game", "table", "rulings", "scores"}
    assert state["game"]["kind"] == "warpships"
    assert state["table"]["units"] == "mm" and len(state["table"]["pieces"]) == 2
    assert len(state["rulings"]) >= 1
    assert set(state["scores"]) == {"Player 1", "Player 2"}


def test_a_ruling_keeps_the_picture_it_was_read_from(played):
    c = played.test_client()
    rid = c.get("/api/state").get_json()["rulings"][0]["id"]
    pic = c.get(f"/api/rulings/{rid}/picture.jpg")
    assert pic.status_code == 200 and pic.data[:2] == b"\xff\xd8"
    assert c.get("/api/frame.jpg").data[:2] == b"\xff\xd8"


def test_games_rulings_and_corrections_survive_a_restart(played, make_app):
    c = played.test_client()
    state = c.get("/api/state").get_json()
    red = next(p for p in state["table"]["pieces"] if p["color"] == "red")
    assert c.post(f"/api/pieces/{red['id']}", json={"color": "yellow"}).status_code == 200
    rid = state["rulings"][0]["id"]
    assert c.post(f"/api/rulings/{rid}", json={"action": "override", "note": "it was legal"}).status_code == 200
    played.extensions["live"].stop()

    again = make_app().test_client().get("/api/state").get_json()
    assert again["game"]["id"] == state["game"]["id"]
    assert {p["id"]: p["color"] for p in again["table"]["pieces"]}[red["id"]] == "yellow"
    assert [r["id"] for r in again["rulings"]] == [r["id"] for r in state["rulings"]]
    assert again["rulings"][0]["status"] == "overridden"
    steps = make_app().test_client().get(f"/api/games/{state['game']['id']}/steps").get_json()["steps"]
    assert [s["kind"] for s in steps][:2] == ["table", "table"] and steps[-1]["kind"] == "override"


def test_bad_requests_get_one_clear_line_and_lose_nothing(played):
    c = played.test_client()
    before = c.get("/api/state").get_json()
    cases = [
        (c.post("/api/games", json={"game": "chess"}), 400, "unknown game 'chess'"),
        (c.get("/api/games/999"), 404, "no game 999"),
        (c.get("/history/999"), 404, "no game 999"),
        (c.post("/api/pieces/nope", json={"color": "red"}), 404, "no piece 'nope'"),
        (c.post(f"/api/pieces/{before['table']['pieces'][0]['id']}", json={"color": "mauve"}), 400, "unknown 'mauve'"),
        (c.post("/api/pieces/x", json={"owner": "me"}), 400, "may change only"),
        (c.post(f"/api/rulings/{before['rulings'][0]['id']}", json={"action": "shout"}), 400, "unknown action"),
        (c.post("/api/rulings/r0", json={"action": "confirm"}), 404, "no ruling"),
        (c.post("/api/games", data="not json", content_type="application/json"), 400, "unknown game"),
        (c.post("/api/die", json={"face": "S"}), 400, "no shot is waiting"),
        (c.post("/api/games", json={"game": "warpships", "players": [{"name": "solo", "color": "red"}]}), 400,
         "2-4 players"),
    ]
    for res, status, text in cases:
        assert res.status_code == status, res.get_json()
        assert text in res.get_json()["error"]
    assert c.get("/api/state").get_json() == before


def test_a_new_game_from_the_set_up_page_becomes_current(played):
    c = played.test_client()
    res = c.post("/api/games", json={"game": "martian-chess", "shadow": True,
                                     "players": [{"name": "Ann", "color": "red"}, {"name": "Bob", "color": "blue"}]})
    assert res.status_code == 201
    state = c.get("/api/state").get_json()
    assert state["game"]["kind"] == "martian-chess" and state["game"]["shadow"]
    assert state["rulings"] == [] and state["scores"] == {"Ann": {"points": 0}, "Bob": {"points": 0}}
    assert len(c.get("/api/games").get_json()["games"]) == 2


def test_every_page_renders(played):
    c = played.test_client()
    for page in ("/", "/setup", "/calibrate", "/history", "/history/1"):
        res = c.get(page)
        assert res.status_code == 200 and b"<html" in res.data


def test_the_event_bus_fans_out_and_drops_a_stalled_listener():
    bus = EventBus()
    a, b = bus.stream(), bus.stream()
    assert next(a).startswith("retry") and next(b).startswith("retry")
    bus.publish("ruling", {"id": "r1"})
    assert next(a) == 'event: ruling\ndata: {"id": "r1"}\n\n'
    for i in range(300):  # a keeps reading, b never reads again
        bus.publish("status", {"i": i})
        assert next(a) == f'event: status\ndata: {{"i": {i}}}\n\n'
    assert bus.listeners == 1


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, timeout=60)


def test_serve_refuses_a_source_or_game_it_cannot_use(tmp_path):
    missing = run_cli("serve", "--source", str(tmp_path / "nope.avi"), "--database", str(tmp_path / "g.db"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "no such file" in missing.stderr
    game = run_cli("serve", "--game", "chess")
    assert game.returncode == 2 and "unknown game 'chess'" in game.stderr


def test_the_calibration_check_reports_the_markers_seen(played, make_app):
    cal = played.test_client().get("/api/calibration?check=1").get_json()
    assert cal["registered"] and cal["markers_seen"] == [0, 1, 2, 3]
    assert cal["reprojection_error_px"] == 0.3 and len(cal["paper_white_bgr"]) == 3
    without_camera = make_app().test_client().get("/api/calibration").get_json()
    assert not without_camera["registered"] and "no camera" in without_camera["message"]


def test_a_challenge_marks_the_ruling_and_rules_the_change_again(played):
    c = played.test_client()
    first = c.get("/api/state").get_json()["rulings"][0]
    res = c.post(f"/api/rulings/{first['id']}", json={"action": "challenge", "note": "the ship touched"})
    assert res.get_json()["ruling"]["status"] == "challenged"
    rulings = c.get("/api/state").get_json()["rulings"]
    assert rulings[0]["status"] == "challenged" and rulings[0]["history"][0]["note"] == "the ship touched"
    assert rulings[-1]["summary"].startswith("re-check: ") and rulings[-1]["advisory"]


def test_serve_runs_the_dashboard_on_a_folder_of_pictures(tmp_path):
    import re
    import urllib.request

    import cv2

    from tests.dashboard.conftest import BEFORE
    from tests.live.fakes import paint
    (tmp_path / "pics").mkdir()
    cv2.imwrite(str(tmp_path / "pics" / "a.png"), paint(BEFORE))
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "serve", "--source", str(tmp_path / "pics"),
                             "--port", "0", "--database", str(tmp_path / "g.db"), "--game", "martian-chess"],
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        port = int(re.search(r":(\d+)/", line).group(1))
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=10) as res:
            state = json.load(res)
        assert state["game"]["kind"] == "martian-chess" and set(state) == {"game", "table", "rulings", "scores"}
    finally:
        proc.terminate()
        proc.wait(timeout=10)
