"""Fit the confidence model (vision/confidence.py) and show how well it holds.

Renders FIT_SEEDS (the project's renderer, scenes used nowhere else), detects them, and
fits the logistic model to whether each found piece was read all right; writes the
weights (`--out`, default the shipped vision/data/confidence.json) and prints the
Brier score and calibration error on the held-out renders (`bench_detect`'s A set and
the tests' seeds are not fitted on).

    .venv/bin/python bench/fit_confidence.py [--out confidence.json]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from vision.confidence import DEFAULT_PATH, ConfidenceModel, features  # noqa: E402
from vision.evaluate import Score, match  # noqa: E402
from vision.geometry import FLAT  # noqa: E402
from vision.pipeline import Detector  # noqa: E402
from vision.scenes import rendered  # noqa: E402

FIT_SEEDS = range(9403, 9460)
CHECK_SEEDS = range(9600, 9630)


def readings(seeds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features of each found piece, whether its size and pose were right, whether its
    colour was: NaN for a false piece) over rendered seeds."""
    rows, shape_right, colour_right = [], [], []
    for seed in seeds:
        r = rendered(seed)
        detection = Detector(r.spec.layout, r.intrinsics).detect(r.image)
        truth_of = {id(f): t for t, f in match(r.truth, detection.state)}
        fits = {pf.id: pf for pf in detection.fits}
        for piece in detection.state.pieces:
            pf = fits[piece.id]
            rows.append(features(pf.fit.iou, pf.pose_margin, pf.colour_margin, pf.fit.hypothesis.kind == FLAT))
            t = truth_of.get(id(piece))
            shape_right.append(t is not None and (t.size, t.pose) == (piece.size, piece.pose))
            colour_right.append(np.nan if t is None else float(t.color == piece.color))
    return np.array(rows), np.array(shape_right), np.array(colour_right)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=DEFAULT_PATH)
    args = ap.parse_args()
    rows, shape_right, colour_right = readings(FIT_SEEDS)
    right = shape_right & (colour_right == 1)
    model = ConfidenceModel.fit(rows, shape_right, colour_right)
    model.save(args.out, f"bench/fit_confidence.py: {len(right)} pieces of seeds {FIT_SEEDS.start}-"
                         f"{FIT_SEEDS.stop - 1}, {int(right.sum())} read all right")
    print(f"fitted on {len(right)} pieces ({100 * right.mean():.1f}% right): shape weights "
          + ", ".join(f"{w:.3f}" for w in model.shape) + ", colour weights "
          + ", ".join(f"{w:.3f}" for w in model.colour) + f" -> {args.out}")
    check = Score()
    for seed in CHECK_SEEDS:
        r = rendered(seed)
        detector = Detector(r.spec.layout, r.intrinsics)
        detector.confidence = model
        check.add(r.truth, detector.detect(r.image).state, str(seed))
    print(f"held out ({len(CHECK_SEEDS)} renders): " + check.summary().splitlines()[-1])


if __name__ == "__main__":
    main()
