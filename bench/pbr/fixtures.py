"""Path-traced pictures shipped with the tests: the detector is checked on other
renderers' pictures by `make test`, where neither Mitsuba nor Blender is installed.

    python -m bench.pbr.fixtures tests/vision/data/path_traced --source thin --seeds 9200-9209

writes, for each scene, the files a user hands `pyramid-referee detect` and the answer:

* `S-SEED.jpg`: the picture as the camera developed it (the scene's own sensor noise,
  JPEG 90), S its source: Mitsuba 3 with thin or refracting walls at 64 samples a pixel
  (`thin`, `thick`: bench.pbr.render.render_seed), or Blender's Cycles at 32, denoised
  (`cycles`: bench.cycles.render.render_seed);
* `S-SEED.markers.json`, `S-SEED.camera.json`: the scene's marker layout and the camera's
  intrinsics, in the contract's formats (`--markers`, `--camera`);
* `S-SEED.truth.json`: the table state a perfect detector reports (the contract's JSON,
  to 0.01 mm and 0.01°).

Renders are cached (each renderer's CACHE_DIR), so writing from cached scenes is quick.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.bench_pbr import seed_list  # noqa: E402
from bench.pbr import render as pbr  # noqa: E402

SOURCES = ("thin", "thick", "cycles")


def renderer(source: str):
    """The module whose `render_seed` and `available` draw `source`'s pictures (for
    Mitsuba's, with its WALLS set to the source's)."""
    if source not in SOURCES:
        raise ValueError(f"source {source!r}: one of {', '.join(SOURCES)}")
    if source == "cycles":
        from bench.cycles import render as cycles
        return cycles
    pbr.WALLS = source
    return pbr


def write(out: Path, source: str, seeds: Iterable[int]) -> list[Path]:
    """Each scene of `seeds` drawn by `source` written into `out`; the pictures' paths."""
    draw = renderer(source)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for seed in seeds:
        r, _ = draw.render_seed(seed)
        stem = out / f"{source}-{seed}"
        stem.with_suffix(".jpg").write_bytes(r.jpeg)
        Path(f"{stem}.markers.json").write_text(json.dumps(r.spec.layout.to_dict(), indent=1) + "\n")
        Path(f"{stem}.camera.json").write_text(json.dumps(r.intrinsics.to_dict(), indent=1) + "\n")
        Path(f"{stem}.truth.json").write_text(r.truth.to_json(indent=1) + "\n")
        written.append(stem.with_suffix(".jpg"))
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--source", choices=SOURCES, default="thin")
    parser.add_argument("--seeds", type=seed_list, default=seed_list("9200-9209"),
                        help="FIRST-LAST, inclusive, or a comma list")
    args = parser.parse_args(argv)
    if not renderer(args.source).available():
        sys.exit("mitsuba is not installed (pip install -e '.[pbr]')" if args.source != "cycles"
                 else "Blender's Python module is not installed (make cycles)")
    for path in write(args.out, args.source, args.seeds):
        print(path)


if __name__ == "__main__":
    main()
