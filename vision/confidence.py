"""A piece's confidence: the chance that its reading (colour, size and pose) is right.

Three margins of the decision say how sure it was, and a flat piece is misread more
often than an upright one at the same margins (its outline has fewer corners):
- the fit: the chosen model's silhouette IoU with the blob;
- the pose and size: by how much (mm of outline cost) the best model of another size or
  pose lost;
- the colour: how much further (in model spreads) the next colour model is.
The colour and the shape go wrong for different reasons (the plastic's light, the
outline), so the chance is a product of two logistic models: the shape read right
(fit, pose margin, flat) times the colour read right (colour margin). One logistic model
over all three margins let a clear outline vouch for a colour on a knife's edge (a red
upright 0.1 spread nearer orange, said 94 % sure). The weights are fitted on rendered
tables by `bench/fit_confidence.py` and shipped in `vision/data/confidence.json`; the
bench prints how well the probabilities hold on scenes it was not fitted on.

>>> model = ConfidenceModel.load()
>>> sure = model.probability(iou=0.9, pose_margin=0.8, colour_margin=3.0, flat=False)
>>> doubtful = model.probability(iou=0.65, pose_margin=0.02, colour_margin=0.1, flat=True)
>>> sure > 0.95, doubtful < 0.5
(True, True)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

DEFAULT_PATH = os.path.join(os.path.dirname(__file__), "data", "confidence.json")
FEATURES = ("bias", "fit", "pose_margin", "colour_margin", "flat")
# Which of FEATURES each part of the model reads.
SHAPE = ("bias", "fit", "pose_margin", "flat")
COLOUR = ("bias", "colour_margin")
_SHAPE_COLUMNS = [FEATURES.index(k) for k in SHAPE]
_COLOUR_COLUMNS = [FEATURES.index(k) for k in COLOUR]
# Margins beyond these add nothing: a runner-up 2 mm costlier is as beaten as one 5 mm.
POSE_MARGIN_CAP_MM = 2.0
COLOUR_MARGIN_CAP = 4.0
# The margins count by their logarithm past these scales (a 0.1 mm lead is little, the
# first millimetre matters more than the second).
POSE_MARGIN_SCALE_MM = 0.1
COLOUR_MARGIN_SCALE = 0.2
# The IoU's range in chosen fits: 0.5 (the least kept) to 0.9 (a clean outline).
IOU_LOW, IOU_SPAN = 0.5, 0.4
# Ridge penalty of the fit: keeps the weights sane where the training set has few errors.
RIDGE = 1.0
# A piece read right with less than this chance is flagged for the players to check (the
# dashboard's map and list, `detect --annotate`): one in four or worse.
UNSURE_BELOW = 0.75


def features(iou: float, pose_margin: float, colour_margin: float, flat: bool) -> np.ndarray:
    """The model's inputs (FEATURES) for one piece."""
    pose = min(max(pose_margin, 0.0), POSE_MARGIN_CAP_MM)
    colour = min(max(colour_margin, 0.0), COLOUR_MARGIN_CAP)
    return np.array([1.0, (iou - IOU_LOW) / IOU_SPAN, np.log1p(pose / POSE_MARGIN_SCALE_MM),
                     np.log1p(colour / COLOUR_MARGIN_SCALE), float(flat)])


def _logistic(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def fit_logistic(rows: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Logistic regression weights by Newton's method, ridge-penalised: `rows` of inputs,
    `right` as 0/1.

    >>> rng = np.random.default_rng(0)
    >>> x = np.column_stack([np.ones(4000), rng.normal(size=(4000, 4))])
    >>> truth = np.array([2.0, 1.0, -1.0, 0.5, 0.0])
    >>> right = rng.random(4000) < 1 / (1 + np.exp(-x @ truth))
    >>> bool(np.abs(fit_logistic(x, right) - truth).max() < 0.15)
    True
    """
    x, y = np.asarray(rows, float), np.asarray(right, float)
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = _logistic(x @ w)
        gradient = x.T @ (p - y) + RIDGE * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + RIDGE * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


@dataclass(frozen=True)
class ConfidenceModel:
    shape: np.ndarray    # one weight per SHAPE
    colour: np.ndarray   # one weight per COLOUR

    @classmethod
    def load(cls, path: str | None = None) -> "ConfidenceModel":
        path = path or DEFAULT_PATH
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not JSON ({e})") from None
        parts = []
        for name, keys in (("shape", SHAPE), ("colour", COLOUR)):
            weights = data.get(name) if isinstance(data, dict) else None
            if not isinstance(weights, dict) or set(weights) != set(keys) \
                    or not all(isinstance(weights[k], (int, float)) and not isinstance(weights[k], bool) for k in keys):
                raise ValueError(f"{path}: expected {name!r} weights for {', '.join(keys)}")
            parts.append(np.array([float(weights[k]) for k in keys]))
        return cls(*parts)

    def save(self, path: str, note: str = "") -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"note": note,
                       "shape": {k: round(float(w), 4) for k, w in zip(SHAPE, self.shape)},
                       "colour": {k: round(float(w), 4) for k, w in zip(COLOUR, self.colour)}}, f, indent=1)
            f.write("\n")

    def probability(self, iou: float, pose_margin: float, colour_margin: float, flat: bool) -> float:
        x = features(iou, pose_margin, colour_margin, flat)
        return float(_logistic(x[_SHAPE_COLUMNS] @ self.shape) * _logistic(x[_COLOUR_COLUMNS] @ self.colour))

    @classmethod
    def fit(cls, rows: np.ndarray, shape_right: np.ndarray, colour_right: np.ndarray) -> "ConfidenceModel":
        """Both parts fitted on rows of `features`: the shape part on whether each piece's
        size and pose were right (a false piece: wrong), the colour part on whether its
        colour was (NaN: a false piece, which has no true colour, left out)."""
        rows, colour_right = np.asarray(rows, float), np.asarray(colour_right, float)
        known = ~np.isnan(colour_right)
        return cls(fit_logistic(rows[:, _SHAPE_COLUMNS], shape_right),
                   fit_logistic(rows[known][:, _COLOUR_COLUMNS], colour_right[known]))
