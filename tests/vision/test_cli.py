"""`pyramid-referee detect` and `calibrate-colours` as a user runs them."""

import json

import cv2
import numpy as np
import pytest

from commands import run


def one_line_error(p, *needles):
    assert p.returncode != 0
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    for n in needles:
        assert n in lines[0], lines[0]


@pytest.fixture()
def blank_png(tmp_path):
    path = tmp_path / "blank.png"
    cv2.imwrite(str(path), np.full((960, 1280, 3), 128, np.uint8))
    return path


def test_missing_image(tmp_path):
    one_line_error(run("detect", tmp_path / "nope.jpg"), "nope.jpg")


def test_corrupt_image(tmp_path):
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"this is not a picture at all" * 10)
    one_line_error(run("detect", bad), "bad.jpg")


def test_truncated_jpeg(tmp_path):
    ok, data = cv2.imencode(".jpg", np.full((480, 640, 3), 90, np.uint8))
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(data.tobytes()[: len(data) // 2])
    one_line_error(run("detect", cut), "truncated")


def test_empty_file(tmp_path):
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    one_line_error(run("detect", empty), "empty")


@pytest.mark.parametrize("text", ["{not json", '{"markers": "four"}', '{"markers": [{"id": 0}]}'])
def test_malformed_marker_layout(tmp_path, blank_png, text):
    layout = tmp_path / "markers.json"
    layout.write_text(text)
    one_line_error(run("detect", blank_png, "--markers", layout), "markers.json")


@pytest.mark.parametrize("text", ["[]", '{"width": 1280}', '{"width": 1280, "height": 960, "fx": -1, "fy": 1, "cx": 1, "cy": 1}'])
def test_malformed_camera_file(tmp_path, blank_png, text):
    cam = tmp_path / "camera.json"
    cam.write_text(text)
    one_line_error(run("detect", blank_png, "--camera", cam), "camera.json")


def test_malformed_colours_file(tmp_path, blank_png):
    colours = tmp_path / "colours.json"
    colours.write_text('{"colours": {"mauve": {"kind": "opaque", "appearance": [0, 0, 0], "spread": 1}}}')
    one_line_error(run("detect", blank_png, "--colours", colours), "mauve")


def test_calibrate_colours_rejects_unknown_colour(blank_png, tmp_path):
    one_line_error(run("calibrate-colours", blank_png, "--colours", "red,mauve", "--out", tmp_path / "c.json"),
                   "mauve")


def test_detect_rejects_an_unknown_colour_in_play(blank_png):
    one_line_error(run("detect", blank_png, "--in-play", "red,teal"), "teal")


# -- registered from the markers in the picture ----------------------------------------
def test_no_markers_names_the_missing_ids(blank_png):
    one_line_error(run("detect", blank_png), "0", "3")


def test_detect_a_rendered_table(tmp_path):
    from vision.scenes import rendered
    from vision.evaluate import Score
    from domain import TableState
    r = rendered(7001)
    img = tmp_path / "table.jpg"
    img.write_bytes(r.jpeg)
    layout = tmp_path / "markers.json"
    layout.write_text(json.dumps(r.spec.layout.to_dict()))
    camera = tmp_path / "camera.json"
    camera.write_text(json.dumps(r.intrinsics.to_dict()))
    p = run("detect", img, "--markers", layout, "--camera", camera, "--annotate", tmp_path / "seen.png",
            "--in-play", "red,yellow,green,blue")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 1
    state = TableState.from_json(lines[0])
    assert "warnings" not in json.loads(lines[0])   # no hand over this table
    assert [x.id for x in state.pieces] == [f"p{i}" for i in range(1, len(state.pieces) + 1)]
    score = Score.of([(r.truth, state)])
    assert score.found_rate >= 0.8 and score.false_rate <= 0.1, score.mistakes
    drawing = cv2.imread(str(tmp_path / "seen.png"))
    assert drawing is not None and drawing.shape == r.image.shape


def test_detect_says_when_a_hand_is_over_the_table(tmp_path):
    from vision.scenes import rendered
    r = rendered(9914, hands=1)
    img = tmp_path / "hand.jpg"
    img.write_bytes(r.jpeg)
    layout = tmp_path / "markers.json"
    layout.write_text(json.dumps(r.spec.layout.to_dict()))
    camera = tmp_path / "camera.json"   # (the hand hides a marker: the focal length must be known)
    camera.write_text(json.dumps(r.intrinsics.to_dict()))
    p = run("detect", img, "--markers", layout, "--camera", camera)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert len(out["warnings"]) == 1 and "hand" in out["warnings"][0]


def test_detect_reads_a_table_with_one_marker_hidden_and_says_so(tmp_path):
    # without camera.json three markers fix the frame; the JSON says which one was not used
    from vision.scenes import rendered
    from vision.evaluate import Score
    from domain import TableState
    r = rendered(7001)
    m = r.spec.layout.marker(2)
    sheet = [(m.center[0] + dx * m.size, m.center[1] + dy * m.size) for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    image = r.image.copy()
    cv2.fillPoly(image, [np.round(r.spec.view().project(sheet)).astype(np.int32)], (90, 120, 170))
    img = tmp_path / "covered.png"
    cv2.imwrite(str(img), image)
    layout = tmp_path / "markers.json"
    layout.write_text(json.dumps(r.spec.layout.to_dict()))
    p = run("detect", img, "--markers", layout)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert len(out["warnings"]) == 1 and out["warnings"][0].startswith("marker 2 not used"), out["warnings"]
    score = Score.of([(r.truth, TableState.from_dict(out))])
    assert score.found_rate >= 0.9 and score.position_median <= 1.0, score.mistakes


def test_a_greyscale_picture_is_refused(tmp_path):
    from vision.scenes import rendered
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), cv2.cvtColor(rendered(7001).image, cv2.COLOR_BGR2GRAY))
    one_line_error(run("detect", grey), "greyscale")


def test_several_images_one_bad(tmp_path, blank_png):
    from vision.scenes import rendered
    r = rendered(7001)
    good = tmp_path / "good.jpg"
    good.write_bytes(r.jpeg)
    p = run("detect", good, blank_png, good, "--annotate", tmp_path / "out.png")
    assert p.returncode != 0
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 2
    assert [json.loads(line)["image"] for line in lines] == [str(good), str(good)]
    assert "blank.png" in p.stderr
    assert (tmp_path / "out-1.png").exists() and (tmp_path / "out-3.png").exists()
    assert not (tmp_path / "out-2.png").exists()


def test_detect_warns_of_a_soft_picture(tmp_path):
    # a lens out of focus: the pieces are still read, and the reader is told
    from calibration.synthetic import defocused
    from vision.scenes import rendered
    r = rendered(9201)
    layout, camera = tmp_path / "markers.json", tmp_path / "camera.json"
    layout.write_text(json.dumps(r.spec.layout.to_dict()))
    camera.write_text(json.dumps(r.intrinsics.to_dict()))
    for name, image in (("sharp.png", r.image), ("soft.png", defocused(r.image, 1.5))):
        cv2.imwrite(str(tmp_path / name), image)
    p = run("detect", tmp_path / "sharp.png", tmp_path / "soft.png", "--markers", layout, "--camera", camera)
    assert p.returncode == 0, p.stderr
    sharp, soft = (json.loads(line) for line in p.stdout.splitlines())
    assert "warnings" not in sharp
    assert len(soft["warnings"]) == 1 and soft["warnings"][0].startswith("the picture is soft"), soft["warnings"]
    assert soft["pieces"]   # still read
