"""The shared table-state format: round trips and every refusal a user can meet."""

import json
import math

import pytest

from domain import Piece, Size, StateError, TableState


def test_flat_footprint_is_the_facts_pentagon():
    p = Piece.flat("s", "red", "large", (0, 0), 0)
    tl, tr, rr, nose, rl = p.footprint()
    assert math.dist(tl, tr) == pytest.approx(25.40)
    assert nose == pytest.approx((46.2, 0), abs=0.05)
    # raised corners stand base·cos(atan(2h/b)) in front of the tail edge
    assert rr[0] == pytest.approx(25.40 * math.cos(math.atan(2 * 44.45 / 25.40)))
    assert Size.LARGE.flat_raised_height == pytest.approx(24.42, abs=0.01)


def test_round_trip_keeps_every_field():
    state = TableState((Piece.upright("a", "green", "large", (10, 20), 95, stack=["large", "small"]),
                        Piece.flat("b", "blue", "small", (5, 5), 350)), warp_diameter=120)
    again = TableState.from_json(state.to_json())
    assert again.piece("a").rotation == pytest.approx(5)
    assert again.piece("a").stack == (Size.LARGE, Size.SMALL)
    assert again.piece("b").heading == pytest.approx(350)
    assert again.warp_diameter == 120


@pytest.mark.parametrize("bad, reason", [
    ({"pieces": [{"id": "a", "color": "pink", "size": "small", "pose": "flat", "tail": [0, 0], "heading": 0}]},
     "unknown 'pink'"),
    ({"pieces": [{"id": "a", "color": "red", "pose": "upright", "center": [0, 0]}]}, "size missing"),
    ({"pieces": [{"id": "a", "color": "red", "size": "small", "pose": "upright"}]}, "center must be"),
    ({"pieces": [{"id": "a", "color": "red", "size": "small", "pose": "flat", "tail": [0, 0]}]}, "needs 'heading'"),
    ({"pieces": [{"id": "a", "color": "red", "size": "small", "pose": "flat",
                  "tail": [0, 0], "nose": [100, 0], "heading": 0}]}, "mm from where"),
    ({"pieces": [{"id": "a", "color": "red", "size": "small", "pose": "upright", "center": [0, "x"]}]},
     "finite number"),
    ({"pieces": [{"id": "a", "color": "red", "size": "small", "pose": "upright", "center": [0, 0]},
                 {"id": "a", "color": "red", "size": "small", "pose": "upright", "center": [50, 0]}]},
     "duplicate ids"),
    ({"pieces": [{"id": "a", "color": "red", "size": "small", "pose": "upright", "center": [0, 0],
                  "stack": ["small", "large"]}]}, "must shrink"),
    ({"units": "inch", "pieces": []}, "units"),
    ({}, "'pieces' list"),
    ([], "JSON object"),
])
def test_malformed_states_are_refused_with_a_reason(bad, reason):
    with pytest.raises(StateError, match=reason):
        TableState.from_json(json.dumps(bad))


def test_not_json_says_where():
    with pytest.raises(StateError, match="line 1"):
        TableState.from_json("{pieces: ]")


def test_missing_file_is_a_state_error(tmp_path):
    with pytest.raises(StateError, match="cannot read"):
        TableState.load(str(tmp_path / "nope.json"))
