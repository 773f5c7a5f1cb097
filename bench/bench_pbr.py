"""Detection on an independent, physically based renderer (Mitsuba 3, bench/pbr/) next to
our own renderer's picture of the same scenes: found / false %, colour / size / pose %,
position and flat heading errors, overall and per table surface.

Needs the optional extra (`pip install -e '.[pbr]'`); without mitsuba it says so and
skips. Path tracing takes about a minute a frame on two cores; renders are cached under
$PYRAMID_PBR_CACHE (default /tmp/pyramid-pbr-cache), so only the first run is slow.
Seeds: $PYRAMID_PBR_SEEDS as "first-last" (default 9200-9211, the first twelve of
bench_detect's held-out set: red, yellow, green, blue on wood, cloth and felt). Then the
Rainbow stash with its black (path-traced only): $PYRAMID_PBR_RAINBOW_SEEDS (default
9800-9805), where black's colour prior is weighed against dark green uprights. Last, the
same path-traced light developed as another renderer or camera might (`_developments`:
Blender's AgX view transform, other exposures, defocus, a lower JPEG quality): the
picture's pipeline is as much the outside renderer's unknown as its light transport.
And lit otherwise (`render.relit`: softboxes, a sun, a bare bulb), each a path tracing of its own.
Each of those lines ends with the pictures' blur measured at the markers (calibration.sharpness).
Last, Spike's coins among the pieces, path traced as measured metals
($PYRAMID_PBR_COIN_SEEDS, default 7900-7911: 2-4 coins a table).
"""

import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain import InputError, TableState  # noqa: E402
from referee.warpships.colony import GAME_COLOURS  # noqa: E402
from vision.evaluate import CoinScore, Score  # noqa: E402
from vision.pipeline import Detector  # noqa: E402
from vision.scenes import rendered  # noqa: E402


RAINBOW = ("red", "yellow", "green", "blue", "black")


def _developments():
    from bench.pbr.render import Development
    return {
        "AgX's curve (Blender 4's default view, its gamut left out)": Development(view="agx"),
        "AgX, a stop brighter": Development(view="agx", stops=1.0),
        "a stop darker": Development(stops=-1.0),
        "a stop brighter (the paper clipped)": Development(stops=1.0),
        "defocused (0.5 px)": Development(blur_px=0.5),
        "defocused (1 px)": Development(blur_px=1.0),
        "JPEG quality 60": Development(jpeg_quality=60),
        "white balance left warm (red 1.5x, blue 0.6x)": Development(cast=(1.5, 1.0, 0.6)),
        "white balance left cool (red 0.7x, blue 1.4x)": Development(cast=(0.7, 1.0, 1.4)),
    }


def _seeds(variable: str = "PYRAMID_PBR_SEEDS", default: str = "9200-9211") -> list[int]:
    """$variable's seeds (`seed_list`)."""
    return seed_list(os.environ.get(variable, default))


def seed_list(text: str) -> list[int]:
    """Seeds written "first-last" (inclusive) or as a comma list.

    >>> seed_list("9200-9203"), seed_list("9203"), seed_list("9200,9205")
    ([9200, 9201, 9202, 9203], [9203], [9200, 9205])
    """
    if "-" in text:
        first, last = text.split("-")
        return list(range(int(first), int(last) + 1))
    return [int(s) for s in text.split(",")]


def _detect(r, seed: int, failures: list[str], palette=None, blurs: list[float] | None = None,
            camera_file: bool = True, views: list | None = None) -> TableState:
    """The detected table, or an empty one (every piece missed) when the markers are not
    found; the picture's blur at the markers (px) is added to `blurs` if given, the view
    transform it was taken as developed through (None: plainly) to `views`; without
    `camera_file` the lens is estimated from the markers."""
    try:
        detection = Detector(r.spec.layout, r.intrinsics if camera_file else None).detect(r.image, palette=palette)
    except InputError as e:
        failures.append(f"{seed}: {e}")
        return TableState(())
    if blurs is not None and detection.registration.blur is not None:
        blurs.append(detection.registration.blur.sigma_px)
    if views is not None:
        views.append(detection.registration.view_transform)
    return detection.state


def main() -> None:
    from bench.pbr import render as pbr
    if not pbr.available():
        print("SKIPPED: mitsuba is not installed (pip install -e '.[pbr]' for the independent renderer)")
        return
    scores = {"pbr": Score(), "ours": Score(), "pbr-game": Score(), "pbr-markers": Score()}
    per_surface: dict[tuple[str, str], Score] = {}
    seconds = []
    failures: dict[str, list[str]] = {"pbr": [], "ours": [], "pbr-game": [], "pbr-markers": []}
    for seed in _seeds():
        r, timing = pbr.render_seed(seed)
        if not timing.cached:
            seconds.append(timing.seconds)
        ours = rendered(seed)
        kind = r.spec.surface.kind
        for name, pic in (("pbr", r), ("ours", ours)):
            state = _detect(pic, seed, failures[name])
            scores[name].add(pic.truth, state, str(seed))
            per_surface.setdefault((name, kind), Score()).add(pic.truth, state, str(seed))
        # the live referee tells the detector its game's colours (WarpShips': the scenes')
        scores["pbr-game"].add(r.truth, _detect(r, seed, failures["pbr-game"], GAME_COLOURS), str(seed))
        # no camera.json: the focal length and k1 from the markers (calibration.registration)
        scores["pbr-markers"].add(r.truth, _detect(r, seed, failures["pbr-markers"], camera_file=False), str(seed))
    seeds = _seeds()
    print(f"{len(seeds)} scenes (seeds {seeds[0]}-{seeds[-1]}), intrinsics given; "
          f"Mitsuba {pbr._mi().variant()}, {pbr.SPP} spp, walls {pbr.WALLS}")
    if seconds:
        print(f"path tracing s per frame (median of {len(seconds)} rendered now): {statistics.median(seconds):.0f}")
    for name, label in (("pbr", "independent renderer (Mitsuba)"), ("ours", "our renderer (vision.render)")):
        print(f"\n{label}: " + scores[name].summary().replace("\n", "\n  "))
        for f in failures[name]:
            print(f"  registration failed, every piece counted missed: {f}")
        for (who, kind), s in sorted(per_surface.items()):
            if who == name:
                print(f"  {kind}: " + s.summary().split("\nper colour")[0].replace("\n", "; "))
    print("\nindependent renderer, WarpShips' colours in play: "
          + "; ".join(scores["pbr-game"].summary().split("\n")[:2]).replace(";   ", "; "))
    print("independent renderer, markers alone (no camera.json): "
          + "; ".join(scores["pbr-markers"].summary().split("\n")[:4]).replace(";   ", "; "))
    for f in failures["pbr-markers"]:
        print(f"  registration failed, every piece counted missed: {f}")
    print("\nmistakes on the independent renderer:")
    for m in scores["pbr"].mistakes:
        print("  ", m)
    sys.stdout.flush()

    rainbow, missed_markers = Score(), []
    rainbow_seeds = _seeds("PYRAMID_PBR_RAINBOW_SEEDS", "9800-9805")
    for seed in rainbow_seeds:
        r, _ = pbr.render_seed(seed, colors=RAINBOW)
        rainbow.add(r.truth, _detect(r, seed, missed_markers), str(seed))
    print(f"\nthe Rainbow stash with black, independent renderer ({len(rainbow_seeds)} scenes, seeds "
          f"{rainbow_seeds[0]}-{rainbow_seeds[-1]}): " + rainbow.summary().replace("\n", "\n  "))
    for f in missed_markers:
        print(f"  registration failed, every piece counted missed: {f}")
    sys.stdout.flush()

    print(f"\nthe same {len(seeds)} path-traced scenes, developed otherwise:")
    for label, how in _developments().items():
        _print_variant(pbr, seeds, label, development=how)
    sys.stdout.flush()

    print(f"\nthe same {len(seeds)} scenes lit otherwise:")
    _print_variant(pbr, seeds, f"each lamp a softbox ({pbr.SOFTBOX_RADIUS_MM:.0f} mm disc)", lighting="softbox")
    _print_variant(pbr, seeds, "one sun (parallel light, hard shadows)", lighting="sun")
    _print_variant(pbr, seeds, f"one bare bulb ({pbr.BULB_RADIUS_MM:.0f} mm) in a room of its colour", lighting="bulb")
    sys.stdout.flush()
    _print_coins(pbr, _seeds("PYRAMID_PBR_COIN_SEEDS", "7900-7911"))


def _print_coins(pbr, seeds: list[int]) -> None:
    """Spike's coins (pennies and nickels, worn copper and nickel) among the pieces."""
    coins, pieces, missed = CoinScore(), Score(), []
    for seed in seeds:
        r, _ = pbr.render_seed(seed, coins=(2, 4))
        state = _detect(r, seed, missed)
        coins.add(r.truth, state, str(seed))
        pieces.add(r.truth, state, str(seed))
    print(f"\nSpike's coins among the pieces, path traced ({len(seeds)} scenes, seeds {seeds[0]}-{seeds[-1]}): "
          + coins.summary() + "\n  the pieces: " + "; ".join(pieces.summary().split("\n")[:2]))
    for m in coins.mistakes:
        print("  ", m)
    for f in missed:
        print(f"  registration failed, every piece counted missed: {f}")


def _print_variant(pbr, seeds: list[int], label: str, **render) -> None:
    """One line of figures for the scenes rendered otherwise (`render`: render_seed's
    development or lighting)."""
    score, missed, blurs = Score(), [], []
    for seed in seeds:
        r, _ = pbr.render_seed(seed, **render)
        score.add(r.truth, _detect(r, seed, missed, blurs=blurs), str(seed))
    blur = f"; blur at the markers {statistics.median(blurs):.2f} px (median)" if blurs else ""
    print(f"  {label}: " + "; ".join(score.summary().split("\n")[:4]) + blur)
    for f in missed:
        print(f"    registration failed, every piece counted missed: {f}")


if __name__ == "__main__":
    main()
