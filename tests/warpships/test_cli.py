"""`pyramid-referee warpships ...` as a user runs it: the contract's JSON, exit codes, drawings."""

import json
import math

import cv2
import pytest

from cli.main import main
from domain import TableState

SHIP = {"id": "p2", "color": "blue", "size": "small", "pose": "flat", "tail": [400.0, 300.0], "heading": 0.0}
TARGET = {"id": "p7", "color": "green", "size": "large", "pose": "upright", "center": [600.0, 300.0],
          "rotation": 0.0, "stack": ["large", "medium"]}


def write(tmp_path, name, pieces, **top):
    path = tmp_path / name
    path.write_text(json.dumps({"units": "mm", "pieces": pieces, **top}))
    return str(path)


def run(capsys, *argv):
    code = main(["warpships", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_beam_prints_the_contract_json(tmp_path, capsys):
    state = write(tmp_path, "s.json", [SHIP, TARGET])
    code, out, err = run(capsys, "beam", state, "--ship", "p2")
    assert code == 0 and err == ""
    d = json.loads(out)
    # nose at 400 + 26.4, the square's near edge at 600 - 12.7
    assert d["ship"] == "p2" and d["target"] == "p7" and d["valid"] is True
    assert d["reason"] == "first ship on the beam is green"
    assert d["distance"] == pytest.approx(600 - 12.7 - 400 - 26.4, abs=0.06)
    assert d["clearance"] == pytest.approx(12.7, abs=0.06)


def test_move_prints_the_contract_json_and_draws(tmp_path, capsys):
    before = write(tmp_path, "b.json", [SHIP, TARGET])
    moved = dict(SHIP, id="q", tail=[400 + 26.4 + 101.6, 300.0])  # a straight fly, tail flush
    after = write(tmp_path, "a.json", [moved, TARGET])
    png = tmp_path / "m.png"
    code, out, _ = run(capsys, "move", before, after, "--annotate", str(png))
    d = json.loads(out)
    assert code == 0 and d["kind"] == "fly" and d["legal"] is True and d["ship"] == "q"
    assert d["warp_center"] == [pytest.approx(400 + 26.4 + 50.8, abs=0.06), 300.0]
    img = cv2.imread(str(png))
    assert img is not None and img.shape[0] > 200 and len({tuple(px) for px in img.reshape(-1, 3)[::97]}) > 5


def test_beam_annotation_is_written(tmp_path, capsys):
    state = write(tmp_path, "s.json", [SHIP, TARGET])
    png = tmp_path / "b.png"
    assert run(capsys, "beam", state, "--ship", "p2", "--annotate", str(png), "--uncertainty", "13")[0] == 0
    assert cv2.imread(str(png)) is not None


def test_uncertainty_flags_give_the_umpires_call(tmp_path, capsys):
    state = write(tmp_path, "s.json", [SHIP, TARGET])
    d = json.loads(run(capsys, "beam", state, "--ship", "p2", "--uncertainty", "13")[1])
    assert d["call"] == "too close to call" and d["valid"] is True
    # the square's near corners are 12.7 mm off the beam, 161.3 mm ahead of the nose
    turn = json.loads(run(capsys, "beam", state, "--ship", "p2")[1])["turn"]
    assert turn == pytest.approx(math.degrees(math.atan2(12.7, 600 - 12.7 - 426.4)), abs=0.01)
    d = json.loads(run(capsys, "beam", state, "--ship", "p2", "--heading-uncertainty", "5")[1])
    assert d["call"] == "too close to call"
    with pytest.raises(SystemExit) as bad:  # argparse refuses it: usage line, exit 2
        run(capsys, "beam", state, "--ship", "p2", "--uncertainty", "-1")
    assert bad.value.code == 2


@pytest.mark.parametrize("pieces,top,needle", [
    ([SHIP, dict(TARGET, center=[420.0, 300.0])], {}, "overlap"),
    ([dict(SHIP, color="pink"), TARGET], {}, "color unknown 'pink'"),
    ([{k: v for k, v in SHIP.items() if k != "tail"}, TARGET], {}, "needs 'tail' or 'nose'"),
    ([SHIP, dict(TARGET, id="p2")], {}, "duplicate ids"),
    ([SHIP, TARGET], {"warp_diameter": -3}, "warp_diameter must be positive"),
])
def test_bad_state_files_exit_2_with_one_line(tmp_path, capsys, pieces, top, needle):
    state = write(tmp_path, "bad.json", pieces, **top)
    code, out, err = run(capsys, "beam", state, "--ship", "p2")
    assert code == 2 and out == ""
    assert needle in err and err.count("\n") == 1


def test_unreadable_and_non_json_files(tmp_path, capsys):
    (tmp_path / "x.json").write_text("{not json")
    for path in (str(tmp_path / "x.json"), str(tmp_path / "missing.json")):
        code, _, err = run(capsys, "beam", path, "--ship", "p2")
        assert code == 2 and err.count("\n") == 1


def test_move_contradictions_exit_2(tmp_path, capsys):
    before = write(tmp_path, "b.json", [SHIP, TARGET])
    gone = write(tmp_path, "a.json", [TARGET])
    code, _, err = run(capsys, "move", before, gone)
    assert code == 2 and "vanished" in err
    code, _, err = run(capsys, "move", before, before)
    assert code == 2 and "no ship moved" in err


def test_upright_firing_ship_exit_2(tmp_path, capsys):
    state = write(tmp_path, "s.json", [SHIP, TARGET])
    code, _, err = run(capsys, "beam", state, "--ship", "p7")
    assert code == 2 and "only flat" in err


def test_odds_and_advice(tmp_path, capsys):
    state = write(tmp_path, "s.json", [SHIP, TARGET])
    d = json.loads(run(capsys, "odds", state, "--ship", "p2")[1])
    assert d["distribution"] == {"0": "1/2", "1": "1/3", "2": "1/6"}  # small at large: bonus S+L
    code, out, _ = run(capsys, "advise", state, "--top", "2")
    assert code == 0 and len(json.loads(out)["advice"]) == 2


def test_setup_then_replay_a_saved_game(tmp_path, capsys):
    from referee.warpships import WarpShipsGame

    code, out, _ = run(capsys, "setup", "--seed", "4")
    table = json.loads(out)
    assert code == 0 and len(table["pieces"]) == 12
    game = WarpShipsGame.new(["ann", "bob"], table=TableState.from_dict(table))
    path = tmp_path / "g.json"
    game.save(str(path))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and json.loads(out)["to_move"] == "ann"
    path.write_text("[]")
    assert run(capsys, "replay", str(path))[0] == 2
