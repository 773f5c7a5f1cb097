"""Detection on a second physically based renderer nobody tuned on: Blender's Cycles
(bench/cycles/), the held-out scenes of bench_detect's first seeds (red, yellow, green
and blue on wood, cloth and felt): found / false %, colour / size / pose %, position and
flat heading errors, overall and per table surface, and over the same light developed
with fresh sensor noise (FRESH_NOISE_SEEDS); then with WarpShips' colours in
play; on the scenes of CALIBRATED, as a player would after `pyramid-referee
calibrate-colours` with a picture of one medium upright of each colour on the same table
under the same light (vision.render.calibration_scene, rendered too); the same light
developed through Blender's own view transforms (VIEWS, by Blender's colour management:
bench.cycles.views), with how many pictures the detector took for developed so
(calibration.view_transforms), and the calibration pictures through AgX too. Last,
tables of the Rainbow stash with black (RAINBOW_SEEDS): black plastic as another
renderer draws it, a glossy opaque Principled plastic, against our own renderer's
(bench_detect's Rainbow set); and tables whose translucent pieces are solid prisms of
their plastic, not hollow shells (SOLID_SEEDS), as someone modelling the pieces may make
them.

The detector's rules were measured on our renderer and on Mitsuba (bench_pbr,
bench_accuracy_sets); these pictures are kept out of that, as the outside check's are
(but for bounds read on them, docs/detection.md's thirty-fourth and thirty-sixth passes:
the scenes from UNTOUCHED on, rendered after, are scored apart).
Needs Blender's Python module in a venv of its own (`make cycles`; it pins its own
numpy); without it this says so and skips. Cycles takes about two minutes a scene on two
cores at 32 samples; renders are cached under $PYRAMID_CYCLES_CACHE (default
/tmp/pyramid-cycles-cache). Seeds: $PYRAMID_CYCLES_SEEDS as "first-last" (default
9200-9307); samples: $PYRAMID_CYCLES_SAMPLES (default 32, denoised).
"""

import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_pbr import _detect, _seeds  # noqa: E402
from calibration.colour import refine_from_picture  # noqa: E402
from domain import InputError  # noqa: E402
from referee.warpships.colony import GAME_COLOURS  # noqa: E402
from vision.evaluate import Score, spread  # noqa: E402
from vision.pipeline import Detector  # noqa: E402
from vision.render import calibration_scene  # noqa: E402

UNTOUCHED = 9284   # the first seed no rule was read on (docs/detection.md, thirty-sixth pass)
CALIBRATED = range(9236, 9284)   # the scenes read after their table's calibration picture
RAINBOW = ("red", "yellow", "green", "blue", "black")
RAINBOW_SEEDS = "9800-9815"   # default of $PYRAMID_CYCLES_RAINBOW_SEEDS
# Scenes also rendered with the translucent pieces as solid prisms, not hollow shells, as
# someone modelling the pieces for another renderer might make them (bench.cycles.export).
SOLID_SEEDS = "9200-9223"   # default of $PYRAMID_CYCLES_SOLID_SEEDS
# The same light developed again with other sensor noise (each scene's own noise seed is
# its seed): pictures no rule was weighed on, while 9200-9235's own were (docs/detection.md,
# thirty-fourth to thirty-sixth and fortieth passes).
FRESH_NOISE_SEEDS = (1, 2)
VIEWS = ("AgX", "Filmic")   # Blender's view transforms the light is also developed through (Blender 4-5's and 2.8-3's default)


def main() -> None:
    from bench.cycles import render as cycles
    from bench.pbr.render import Development, fresh_noise
    if not cycles.available():
        print(f"SKIPPED: no Python with Blender's bpy at {cycles.BLENDER_PYTHON} (`make cycles` installs one)")
        return
    samples = cycles.SAMPLES
    seeds = _seeds("PYRAMID_CYCLES_SEEDS", "9200-9307")
    plain, game, untouched = Score(), Score(), Score()
    fresh = [Score() for _ in FRESH_NOISE_SEEDS]
    read_plainly = {}   # seed: (truth, state) of its plain picture
    developed_by = {view: (Score(), Counter()) for view in VIEWS}   # the score, and the views told
    calibrated, shipped = Score(), Score()   # the scenes of CALIBRATED whose calibration picture was accepted
    agx_calibrated, agx_shipped = Score(), Score()   # the same through AgX, the calibration picture too
    refused: list[str] = []
    agx_refused: list[str] = []
    per_surface: dict[str, Score] = {}
    failures: list[str] = []
    seconds = []
    for seed in seeds:
        r, timing = cycles.render_seed(seed, samples)
        if not timing.cached:
            seconds.append(timing.seconds)
        state = _detect(r, seed, failures)
        plain.add(r.truth, state, str(seed))
        read_plainly[seed] = (r.truth, state)
        if seed >= UNTOUCHED:
            untouched.add(r.truth, state, str(seed))
        if seed in CALIBRATED:
            read = _calibrated(cycles, r, seed, samples, refused, Development())
            if read is not None:
                calibrated.add(r.truth, read, str(seed))
                shipped.add(r.truth, state, str(seed))
        per_surface.setdefault(r.spec.surface.kind, Score()).add(r.truth, state, str(seed))
        for score, k in zip(fresh, FRESH_NOISE_SEEDS):
            again, _ = cycles.render_seed(seed, samples, noise_seed=fresh_noise(k, seed))
            score.add(again.truth, _detect(again, seed, failures), str(seed))
        game.add(r.truth, _detect(r, seed, failures, GAME_COLOURS), str(seed))
        for view, (score, told) in developed_by.items():
            developed, _ = cycles.render_seed(seed, samples, Development(view=f"blender:{view}"))
            views: list = []
            view_state = _detect(developed, seed, failures, views=views)
            score.add(developed.truth, view_state, str(seed))
            told.update(views)
            if view == "AgX":
                agx, agx_state = developed, view_state
        if seed in CALIBRATED:
            read = _calibrated(cycles, agx, seed, samples, agx_refused, Development(view="blender:AgX"))
            if read is not None:
                agx_calibrated.add(agx.truth, read, str(seed))
                agx_shipped.add(agx.truth, agx_state, str(seed))
    print(f"{len(seeds)} scenes (seeds {seeds[0]}-{seeds[-1]}), intrinsics given; Blender Cycles, "
          f"{samples} samples, denoised")
    if seconds:
        print(f"path tracing s per frame (median of {len(seconds)} rendered now): {statistics.median(seconds):.0f}")
    print("second independent renderer (Cycles): " + plain.summary().replace("\n", "\n  "))
    for kind, s in sorted(per_surface.items()):
        print(f"  {kind}: " + s.summary().split("\nper colour")[0].replace("\n", "; "))
    if untouched.n_truth:
        print(f"  the scenes from {UNTOUCHED} on: " + "; ".join(untouched.summary().split("\n")[:2]))
    print(f"  the same light with fresh sensor noise ({len(fresh)} pictures each; pooled, and the range): "
          f"{spread(fresh)}")
    print("the same, WarpShips' colours in play: " + "; ".join(game.summary().split("\n")[:2]))
    _print_calibrated("", "of each table", calibrated, shipped, refused)
    for view, (score, told) in developed_by.items():
        said = ", ".join(f"{n or 'plain'} {k}" for n, k in told.most_common())
        print(f"the same light through Blender's {view} view transform (taken for: {said}): "
              + "; ".join(score.summary().split("\n")[:4]))
    _print_calibrated("  ", "through AgX too", agx_calibrated, agx_shipped, agx_refused)
    rainbow = Score()
    rainbow_seeds = _seeds("PYRAMID_CYCLES_RAINBOW_SEEDS", RAINBOW_SEEDS)
    for seed in rainbow_seeds:
        r, _ = cycles.render_seed(seed, samples, colors=RAINBOW)
        rainbow.add(r.truth, _detect(r, seed, failures), f"rainbow {seed}")
    print(f"the Rainbow stash with black, {len(rainbow_seeds)} scenes: " + rainbow.summary().replace("\n", "\n  "))
    solid, shells = Score(), Score()
    solid_seeds = _seeds("PYRAMID_CYCLES_SOLID_SEEDS", SOLID_SEEDS)
    for seed in solid_seeds:
        r, _ = cycles.render_seed(seed, samples, solid=True)
        solid.add(r.truth, _detect(r, seed, failures), f"solid {seed}")
        if seed not in read_plainly:
            r, _ = cycles.render_seed(seed, samples)
            read_plainly[seed] = (r.truth, _detect(r, seed, failures))
        shells.add(*read_plainly[seed], str(seed))
    print(f"the pieces as solid prisms of their plastic, {len(solid_seeds)} scenes: "
          + "; ".join(solid.summary().split("\n")[:5]))
    print("  the same scenes as hollow shells: " + "; ".join(shells.summary().split("\n")[:2]))
    for f in sorted(set(failures)):
        print(f"  failed, every piece counted missed: {f}")
    print("mistakes (plain development):")
    for m in plain.mistakes + rainbow.mistakes + solid.mistakes:
        print("  ", m)


def _print_calibrated(indent: str, picture: str, calibrated: Score, shipped: Score, refused: list[str]) -> None:
    """The scenes of CALIBRATED read after their calibration picture (`picture` says how it
    was taken) and with the shipped models, and the pictures refused."""
    if not (calibrated.n_truth or refused):
        return
    print(f"{indent}the scenes {CALIBRATED.start}-{CALIBRATED.stop - 1} after a calibration picture {picture} "
          f"({len(refused)} refused, left out): " + "; ".join(calibrated.summary().split("\n")[:2]))
    print(f"{indent}  the same scenes with the shipped models: " + "; ".join(shipped.summary().split("\n")[:2]))
    for f in refused:
        print(f"{indent}  refused: {f}")


def _calibrated(cycles, r, seed: int, samples: int, refused: list[str], development):
    """The table of `r` read with colour models measured from a Cycles calibration picture
    of its table and light, developed as `r` was (`development`); None if that picture is
    refused (said in `refused`), as `calibrate-colours` refuses it and the player takes
    another."""
    colours = ["red", "yellow", "green", "blue"]
    picture, _ = cycles.render_spec(calibration_scene(r.spec, colours), seed, samples, development)
    try:
        models = refine_from_picture(picture.image, r.spec.layout, colours, intrinsics=picture.intrinsics)
        return Detector(r.spec.layout, r.intrinsics, models=models).detect(r.image).state
    except InputError as e:
        refused.append(f"{seed}: {e}")
        return None


if __name__ == "__main__":
    main()
