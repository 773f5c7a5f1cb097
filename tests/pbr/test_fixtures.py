"""bench/pbr/fixtures.py writes a scene as the files `pyramid-referee detect` takes and its
answer: read back, they are the scene's picture, layout, camera and truth (the
path tracer is stood in for by our renderer: the writing is what is tested here)."""

import cv2
import numpy as np
import pytest

from bench.pbr import fixtures
from calibration.camera import Intrinsics
from calibration.markers import MarkerLayout
from domain import TableState
from vision.scenes import rendered


def test_a_scene_written_reads_back_exactly(monkeypatch, tmp_path):
    monkeypatch.setattr(fixtures.pbr, "render_seed", lambda seed: (rendered(seed), None))
    monkeypatch.setattr(fixtures.pbr, "WALLS", fixtures.pbr.WALLS)   # (writing sets the walls: restored after)
    [picture] = fixtures.write(tmp_path, "thick", range(7001, 7002))
    r = rendered(7001)
    assert picture.name == "thick-7001.jpg"
    assert np.array_equal(cv2.imread(str(picture)), r.image)
    assert MarkerLayout.load(str(tmp_path / "thick-7001.markers.json")).to_dict() == r.spec.layout.to_dict()
    assert Intrinsics.load(str(tmp_path / "thick-7001.camera.json")) == r.intrinsics
    # the truth in the contract's JSON, which gives millimetres and degrees to 0.01
    assert TableState.load(str(tmp_path / "thick-7001.truth.json")).to_json() == r.truth.to_json()


def test_an_unknown_source_is_refused(tmp_path):
    with pytest.raises(ValueError, match="thin, thick, cycles"):
        fixtures.write(tmp_path, "glass", range(1))


def test_seed_ranges_are_inclusive():
    assert fixtures.seed_list("9200-9209") == list(range(9200, 9210))
    assert fixtures.seed_list("9203") == [9203]
