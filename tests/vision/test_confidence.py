"""The confidence model's file and its probabilities."""

import json

import numpy as np
import pytest

from vision.confidence import FEATURES, ConfidenceModel, features


def test_shipped_model_orders_readings_by_their_margins():
    model = ConfidenceModel.load()
    clean = dict(iou=0.88, pose_margin=1.0, colour_margin=3.0, flat=False)
    for weaker in (dict(iou=0.6), dict(pose_margin=0.05), dict(colour_margin=0.2), dict(flat=True)):
        assert model.probability(**{**clean, **weaker}) < model.probability(**clean), weaker
    assert 0.0 < model.probability(iou=0.5, pose_margin=0, colour_margin=0, flat=True) < 0.5


def test_saved_model_loads_back(tmp_path):
    model = ConfidenceModel(np.arange(len(FEATURES), dtype=float) / 10)
    model.save(str(tmp_path / "c.json"), "test")
    assert np.allclose(ConfidenceModel.load(str(tmp_path / "c.json")).weights, model.weights)


@pytest.mark.parametrize("content", ["not json", "[]", json.dumps({"weights": {"bias": 1.0}}),
                                     json.dumps({"weights": {k: "x" for k in FEATURES}})])
def test_malformed_file_is_refused_with_its_name(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ValueError, match="bad.json"):
        ConfidenceModel.load(str(path))


def test_margins_past_their_caps_add_nothing():
    assert np.allclose(features(0.8, 2.0, 4.0, False), features(0.8, 9.0, 40.0, False))
