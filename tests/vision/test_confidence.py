"""The confidence model's file and its probabilities."""

import json

import numpy as np
import pytest

from vision.confidence import COLOUR, SHAPE, ConfidenceModel, features


def test_shipped_model_orders_readings_by_their_margins():
    model = ConfidenceModel.load()
    clean = dict(iou=0.88, pose_margin=1.0, colour_margin=3.0, flat=False)
    for weaker in (dict(iou=0.6), dict(pose_margin=0.05), dict(colour_margin=0.2), dict(flat=True)):
        assert model.probability(**{**clean, **weaker}) < model.probability(**clean), weaker
    assert 0.0 < model.probability(iou=0.5, pose_margin=0, colour_margin=0, flat=True) < 0.5


def test_a_clear_outline_does_not_vouch_for_a_colour_on_a_knifes_edge():
    # the shape and the colour go wrong for different reasons: the chance is a product
    model = ConfidenceModel.load()
    edge = model.probability(iou=0.9, pose_margin=2.0, colour_margin=0.1, flat=False)
    assert edge < 0.85 < model.probability(iou=0.9, pose_margin=2.0, colour_margin=1.5, flat=False)


def test_saved_model_loads_back(tmp_path):
    model = ConfidenceModel(np.arange(len(SHAPE), dtype=float) / 10, np.arange(len(COLOUR), dtype=float) / 5)
    model.save(str(tmp_path / "c.json"), "test")
    again = ConfidenceModel.load(str(tmp_path / "c.json"))
    assert np.allclose(again.shape, model.shape) and np.allclose(again.colour, model.colour)


def test_both_parts_are_fitted_a_false_piece_only_as_a_wrong_shape():
    rng = np.random.default_rng(2)
    rows = np.array([features(rng.uniform(0.5, 0.95), rng.uniform(0, 2), rng.uniform(0, 4), rng.random() < 0.3)
                     for _ in range(3000)])
    model = ConfidenceModel(np.array([-1.0, 2.0, 1.0, -0.5]), np.array([-0.5, 2.0]))
    shape_p = 1 / (1 + np.exp(-rows[:, [0, 1, 2, 4]] @ model.shape))
    colour_p = 1 / (1 + np.exp(-rows[:, [0, 3]] @ model.colour))
    shape_right, colour_right = rng.random(3000) < shape_p, (rng.random(3000) < colour_p).astype(float)
    colour_right[rng.random(3000) < 0.1] = np.nan        # false pieces: no true colour
    fitted = ConfidenceModel.fit(rows, shape_right, colour_right)
    assert np.abs(fitted.shape - model.shape).max() < 0.35 and np.abs(fitted.colour - model.colour).max() < 0.35


@pytest.mark.parametrize("content", ["not json", "[]", json.dumps({"weights": {"bias": 1.0}}),
                                     json.dumps({"shape": {k: 1.0 for k in SHAPE}, "colour": {"bias": 1.0}}),
                                     json.dumps({"shape": {k: "x" for k in SHAPE},
                                                 "colour": {k: 1.0 for k in COLOUR}})])
def test_malformed_file_is_refused_with_its_name(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ValueError, match="bad.json"):
        ConfidenceModel.load(str(path))


def test_margins_past_their_caps_add_nothing():
    assert np.allclose(features(0.8, 2.0, 4.0, False), features(0.8, 9.0, 40.0, False))
