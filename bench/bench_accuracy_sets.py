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
PYRAMID_ACCURACY_RENDER=1. Blender's Cycles pictures (bench_cycles) are left out on
purpose, so that they stay a renderer the rules are not tuned on (two bounds of the
thirty-fourth pass were read on its scenes 9200-9235; those from 9236 on are untouched).

`--noise-seed K [K ...]` reads every set from other pictures of the same scenes, once a
K: the same light with another sensor noise (our renderer re-renders with
Sensor.noise_seed K, the path-traced sets develop their cached light with noise seed
K·100000 + the scene's seed; K 0 is the scenes' own pictures). Their sets are labelled
"(noise K)". The rules were weighed on the scenes' own pictures, whose mistakes flip with
the noise alone (docs/detection.md, fortieth pass): a change that helps should help on
fresh pictures too (`--noise-seed 0 1 2`).

To weigh a change piece by piece: `--mistakes before.txt` on main writes every mistake, a
line each, named by its set and scene; `--against before.txt` on the change prints the
mistakes it mends and the ones it makes. `--sets A crowded` reads only the sets whose
labels hold one of those words.
"""

import argparse
import os
import sys
from collections import Counter
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


def _read_sets(wanted: list[str], draw: int):
    """(label, Score, scenes) of each set of `wanted` read from its pictures with the
    noise of `draw` (0: the scenes' own; else labelled "(noise K)"), or a line saying
    why a path-traced set is skipped."""
    tag = f" (noise {draw})" if draw else ""
    sensor = {"noise_seed": draw} if draw else None
    for label, scenes in OURS.items():
        if label in wanted:
            yield label + tag, read(label + tag, ((seed, rendered(seed, sensor=sensor, **opts))
                                                  for seed, opts in scenes)), len(scenes)
    from bench.pbr import render as pbr
    render_now = os.environ.get("PYRAMID_ACCURACY_RENDER") == "1"
    for label, (walls, scenes) in PATH_TRACED_SETS.items():
        if label not in wanted:
            continue
        if not pbr.available():
            print(f"{label}: SKIPPED (mitsuba is not installed: pip install -e '.[pbr]')")
            continue
        pbr.WALLS = walls
        missing = sum(not pbr.cached(seed, **opts) for seed, opts in scenes)
        if missing and not render_now:
            print(f"{label}: SKIPPED ({missing} of {len(scenes)} scenes not rendered yet; "
                  "PYRAMID_ACCURACY_RENDER=1 renders them, about a minute each at 64 samples)")
            continue
        pictures = ((seed, pbr.render_seed(seed, noise_seed=pbr.fresh_noise(draw, seed), **opts)[0])
                    for seed, opts in scenes)
        yield label + tag, read(label + tag, pictures), len(scenes)


def mistakes(score: Score) -> list[int]:
    """Missed, false, and wrong colour, size and pose, as counts."""
    matched = score.n_matched
    return [score.n_truth - matched, score.n_found - matched, matched - score.colour_ok,
            matched - score.size_ok, matched - score.pose_ok]


def read(label: str, pictures) -> Score:
    """The set's pictures read, each mistake named `label seed`."""
    score = Score()
    for seed, r in pictures:
        score.add(r.truth, Detector(r.spec.layout, r.intrinsics).detect(r.image).state, f"{label} {seed}")
    return score


def changed(before: list[str], after: list[str], sets: list[str]) -> tuple[list[str], list[str]]:
    """The mistakes of `before` that `after` no longer makes, and those it makes anew,
    counted line by line (a scene may make the same mistake twice), among the mistakes
    of the sets read (`sets`, their labels).

    >>> old = ["A 9201: missed red small flat at (1, 2)", "N 9700: false blue large upright at (5, 5)"]
    >>> new = ["A 9202: missed green large flat at (3, 4)"]
    >>> changed(old, new, ["A"])
    (['A 9201: missed red small flat at (1, 2)'], ['A 9202: missed green large flat at (3, 4)'])
    """
    def of_sets(lines: list[str]) -> Counter:
        return Counter(line for line in lines if line.split(": ", 1)[0].rsplit(" ", 1)[0] in sets)   # "LABEL SEED: ..."
    old, new = of_sets(before), of_sets(after)
    return sorted((old - new).elements()), sorted((new - old).elements())


def report(label: str, score: Score, scenes: int) -> int:
    counts = mistakes(score)
    figures = "; ".join(score.summary().split("\n")[:2])
    print(f"{label} ({scenes} scenes): {' / '.join(map(str, counts))} = {sum(counts)}   [{figures}]")
    return sum(counts)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", nargs="+", metavar="WORD", help="only the sets whose labels hold one of these")
    parser.add_argument("--mistakes", type=Path, metavar="OUT", help="write every mistake, a line each")
    parser.add_argument("--against", type=Path, metavar="BEFORE", help="the mistakes mended and made since BEFORE")
    parser.add_argument("--noise-seed", type=int, nargs="+", metavar="K",
                        help="the same scenes pictured with other sensor noise, a reading per K (0: their own pictures)")
    args = parser.parse_args(argv)
    try:   # (a bad path fails before the reading, not after it)
        before = args.against.read_text().splitlines() if args.against else None
    except OSError as e:
        parser.error(f"--against: cannot read {args.against}: {e.strerror}")
    wanted = [label for label in [*OURS, *PATH_TRACED_SETS] if not args.sets or any(w in label for w in args.sets)]
    if not wanted:
        parser.error(f"--sets: no set's label holds {' or '.join(args.sets)}")
    if args.mistakes and not args.mistakes.parent.is_dir():   # (found out now, not after the reading)
        parser.error(f"--mistakes: no directory {args.mistakes.parent}")
    print("mistakes: missed / false / colour / size / pose = their sum   [found, false, colour, size, pose]")
    total, scores = 0, {}   # the sets read, by label (and draw of noise)
    for draw in args.noise_seed or [0]:
        for label, score, scenes in _read_sets(wanted, draw):
            scores[label] = score
            total += report(label, score, scenes)
    print(f"total over {len(scores)} sets: {total}")
    lines = [line for score in scores.values() for line in score.mistakes]
    if args.mistakes:
        args.mistakes.write_text("".join(line + "\n" for line in lines))
    if before is not None:
        mended, made = changed(before, lines, list(scores))
        print(f"against {args.against}: {len(mended)} mended, {len(made)} made")
        print("".join(f"  - {line}\n" for line in mended) + "".join(f"  + {line}\n" for line in made), end="")


if __name__ == "__main__":
    main()
