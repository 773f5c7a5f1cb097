"""markers.json and camera.json: every malformed file is refused with a one-line reason."""

import json

import pytest

from calibration.camera import CameraFileError, Intrinsics
from calibration.markers import MarkerLayout, MarkerLayoutError

GOOD = MarkerLayout.default().to_dict()


def with_marker(index, **changes):
    d = json.loads(json.dumps(GOOD))
    d["markers"][index].update(changes)
    return d


@pytest.mark.parametrize("data, reason", [
    ([1, 2], "must be a JSON object"),
    ({**GOOD, "dictionary": "DICT_9X9_7"}, "unknown ArUco dictionary 'DICT_9X9_7'"),
    ({**GOOD, "dictionary": 4}, "unknown ArUco dictionary 4"),
    ({"dictionary": "DICT_4X4_50"}, "needs a 'markers' list"),
    ({**GOOD, "markers": GOOD["markers"][:3]}, "needs at least 4 markers, got 3"),
    (with_marker(1, id=-1), "marker #2: id must be a non-negative integer"),
    (with_marker(1, id=1.5), "marker #2: id must be a non-negative integer"),
    (with_marker(1, id=0), "marker id 0 appears more than once"),
    (with_marker(1, id=50), "marker id 50 is not in DICT_4X4_50 .ids 0 to 49."),
    (with_marker(2, center=[1, "x"]), r"marker #3 .id 2.: center must be \[x, y\]"),
    (with_marker(2, center=[1, 2, 3]), r"marker #3 .id 2.: center must be \[x, y\]"),
    (with_marker(3, size=0), "marker #4 .id 3.: size must be a positive number"),
    (with_marker(3, size=True), "marker #4 .id 3.: size must be a positive number"),
    (with_marker(3, center=[70, 90]), "markers 0 and 3 overlap"),
    ({**GOOD, "markers": GOOD["markers"][:3] + ["zero"]}, "marker #4 must be an object"),
])
def test_malformed_layouts_are_refused_in_one_line(tmp_path, data, reason):
    path = tmp_path / "markers.json"
    path.write_text(json.dumps(data))
    with pytest.raises(MarkerLayoutError, match=reason) as e:
        MarkerLayout.load(str(path))
    assert "\n" not in str(e.value) and str(path) in str(e.value)


def test_unreadable_layout_files_are_refused(tmp_path):
    with pytest.raises(MarkerLayoutError, match="cannot read marker layout"):
        MarkerLayout.load(str(tmp_path / "missing.json"))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(MarkerLayoutError, match="is not valid JSON"):
        MarkerLayout.load(str(tmp_path / "bad.json"))


def test_a_layout_survives_a_round_trip():
    assert MarkerLayout.from_dict(json.loads(json.dumps(GOOD))) == MarkerLayout.default()


CAMERA = {"width": 1280, "height": 960, "fx": 1000.0, "fy": 1000.0, "cx": 639.5, "cy": 479.5, "dist": [0, 0, 0, 0, 0]}


@pytest.mark.parametrize("data, reason", [
    ("[]", "must be a JSON object"),
    ('{"width": 1280}', "missing height, fx, fy, cx, cy"),
    (json.dumps({**CAMERA, "fx": -3}), "fx must be a positive number"),
    (json.dumps({**CAMERA, "width": "wide"}), "width must be a positive number"),
    (json.dumps({**CAMERA, "dist": [0, 0, 0]}), "dist must be a list of 4, 5, 8, 12 or 14 numbers"),
    ("{oops", "is not valid JSON"),
])
def test_malformed_camera_files_are_refused_in_one_line(tmp_path, data, reason):
    path = tmp_path / "camera.json"
    path.write_text(data)
    with pytest.raises(CameraFileError, match=reason) as e:
        Intrinsics.load(str(path))
    assert "\n" not in str(e.value)
