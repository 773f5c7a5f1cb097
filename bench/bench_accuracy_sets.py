"""The accuracy sets every detection change is weighed on, as counts of mistakes.

A mistake is a missed piece, a false piece, or a piece read with the wrong colour, size
or pose; each set prints its five counts and their sum, then the sum over the sets (the
figure docs/detection.md's passes quote). Intrinsics are given, as `detect --camera`.

Our renderer (vision.render, cached by vision.scenes), always:
  A: the held-out renders of bench_detect (seeds 9200-9229);
  held out: 9600-9629; N: 9700-9729; T: 9000-9009;
  crowded: 9520-9544, every piece placed beside another.
Path traced (bench/pbr, Mitsuba), with thin walls and with refracting ones: seeds
9200-9259 (red, yellow, green, blue) and 9800-9805 (the Rainbow stash with black);
and a cleaner set, thin walls at 256 samples a pixel (9200-9223): another renderer may
leave less noise than our 64 samples do, and the two read differently.
Path tracing takes about a minute a scene (four at 256 samples), so those sets are read
only when their renders are cached (PYRAMID_PBR_CACHE), or rendered first with
PYRAMID_ACCURACY_RENDER=1.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.evaluate import Score  # noqa: E402
from vision.pipeline import Detector  # noqa: E402
from vision.scenes import rendered  # noqa: E402

RAINBOW = ("red", "yellow", "green", "blue", "black")
OURS = {
    "A (bench_detect's held out)": [(seed, {}) for seed in range(9200, 9230)],
    "held out": [(seed, {}) for seed in range(9600, 9630)],
    "N": [(seed, {}) for seed in range(9700, 9730)],
    "T": [(seed, {}) for seed in range(9000, 9010)],
    "crowded": [(seed, {"crowd": 1.0}) for seed in range(9520, 9545)],
}
PATH_TRACED = [(seed, {}) for seed in range(9200, 9260)] + [(seed, {"colors": RAINBOW}) for seed in range(9800, 9806)]
CLEANER = [(seed, {"spp": 256}) for seed in range(9200, 9224)]
PATH_TRACED_SETS = {   # label: (walls, scenes)
    "path traced, thin walls": ("thin", PATH_TRACED),
    "path traced, refracting walls": ("thick", PATH_TRACED),
    "path traced, thin walls, 256 samples a pixel": ("thin", CLEANER),
}


def mistakes(score: Score) -> list[int]:
    """Missed, false, and wrong colour, size and pose, as counts."""
    matched = score.n_matched
    return [score.n_truth - matched, score.n_found - matched, matched - score.colour_ok,
            matched - score.size_ok, matched - score.pose_ok]


def read(pictures) -> Score:
    score = Score()
    for seed, r in pictures:
        score.add(r.truth, Detector(r.spec.layout, r.intrinsics).detect(r.image).state, str(seed))
    return score


def report(label: str, score: Score, scenes: int) -> int:
    counts = mistakes(score)
    figures = "; ".join(score.summary().split("\n")[:2])
    print(f"{label} ({scenes} scenes): {' / '.join(map(str, counts))} = {sum(counts)}   [{figures}]")
    return sum(counts)


def main() -> None:
    print("mistakes: missed / false / colour / size / pose = their sum   [found, false, colour, size, pose]")
    total, sets = 0, 0
    for label, scenes in OURS.items():
        total += report(label, read((seed, rendered(seed, **opts)) for seed, opts in scenes), len(scenes))
        sets += 1
    from bench.pbr import render as pbr
    render_now = os.environ.get("PYRAMID_ACCURACY_RENDER") == "1"
    for label, (walls, scenes) in PATH_TRACED_SETS.items():
        if not pbr.available():
            print(f"{label}: SKIPPED (mitsuba is not installed: pip install -e '.[pbr]')")
            continue
        pbr.WALLS = walls
        missing = sum(not pbr.cached(seed, **opts) for seed, opts in scenes)
        if missing and not render_now:
            print(f"{label}: SKIPPED ({missing} of {len(scenes)} scenes not rendered yet; "
                  "PYRAMID_ACCURACY_RENDER=1 renders them, about a minute each at 64 samples)")
            continue
        total += report(label, read((seed, pbr.render_seed(seed, **opts)[0]) for seed, opts in scenes), len(scenes))
        sets += 1
    print(f"total over {sets} sets: {total}")


if __name__ == "__main__":
    main()
