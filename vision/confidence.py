"""A piece's confidence: the chance that its reading (colour, size and pose) is right.

Three margins of the decision say how sure it was, and a flat piece is misread more
often than an upright one at the same margins (its outline has fewer corners):
- the fit: the chosen model's silhouette IoU with the blob;
- the pose and size: by how much (mm of outline cost) the best model of another size or
  pose lost;
- the colour: how much further (in model spreads) the next colour model is.
A logistic model turns them into a probability. Its weights are fitted on rendered
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


@dataclass(frozen=True)
class ConfidenceModel:
    weights: np.ndarray   # one per FEATURES

    @classmethod
    def load(cls, path: str | None = None) -> "ConfidenceModel":
        path = path or DEFAULT_PATH
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not JSON ({e})") from None
        weights = data.get("weights") if isinstance(data, dict) else None
        if not isinstance(weights, dict) or set(weights) != set(FEATURES) \
                or not all(isinstance(weights[k], (int, float)) for k in FEATURES):
            raise ValueError(f"{path}: expected weights for {', '.join(FEATURES)}")
        return cls(np.array([float(weights[k]) for k in FEATURES]))

    def save(self, path: str, note: str = "") -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"note": note, "weights": {k: round(float(w), 4) for k, w in zip(FEATURES, self.weights)}},
                      f, indent=1)
            f.write("\n")

    def probability(self, iou: float, pose_margin: float, colour_margin: float, flat: bool) -> float:
        return float(1.0 / (1.0 + np.exp(-features(iou, pose_margin, colour_margin, flat) @ self.weights)))

    @classmethod
    def fit(cls, rows: np.ndarray, right: np.ndarray) -> "ConfidenceModel":
        """Logistic regression by Newton's method, ridge-penalised: rows of `features`,
        right as 0/1.

        >>> rng = np.random.default_rng(0)
        >>> x = np.column_stack([np.ones(4000), rng.normal(size=(4000, 4))])
        >>> truth = np.array([2.0, 1.0, -1.0, 0.5, 0.0])
        >>> right = rng.random(4000) < 1 / (1 + np.exp(-x @ truth))
        >>> bool(np.abs(ConfidenceModel.fit(x, right).weights - truth).max() < 0.15)
        True
        """
        x, y = np.asarray(rows, float), np.asarray(right, float)
        w = np.zeros(x.shape[1])
        for _ in range(50):
            p = 1.0 / (1.0 + np.exp(-x @ w))
            gradient = x.T @ (p - y) + RIDGE * w
            hessian = (x * (p * (1 - p))[:, None]).T @ x + RIDGE * np.eye(len(w))
            step = np.linalg.solve(hessian, gradient)
            w -= step
            if np.abs(step).max() < 1e-8:
                break
        return cls(w)
