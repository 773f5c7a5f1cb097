"""Path-traced pictures shipped with the tests: the detector is checked on another
renderer's pictures by `make test`, where Mitsuba is not installed.

    python -m bench.pbr.fixtures tests/vision/data/path_traced --walls thin --seeds 9200-9209

writes, for each scene, the files a user hands `pyramid-referee detect` and the answer:

* `W-SEED.jpg`: the picture as the camera developed it (bench.pbr.render.render_seed: 64
  samples a pixel, the scene's own sensor noise, JPEG 90), W the walls (thin, thick);
* `W-SEED.markers.json`, `W-SEED.camera.json`: the scene's marker layout and the camera's
  intrinsics, in the contract's formats (`--markers`, `--camera`);
* `W-SEED.truth.json`: the table state a perfect detector reports (the contract's JSON,
  to 0.01 mm and 0.01°).

Renders are cached (bench.pbr.render.CACHE_DIR), so writing from cached scenes is quick.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.pbr import render as pbr  # noqa: E402

WALLS = ("thin", "thick")


def write(out: Path, walls: str, seeds: range) -> list[Path]:
    """Each scene of `seeds` path traced with `walls` written into `out`; the pictures'
    paths."""
    if walls not in WALLS:
        raise ValueError(f"walls {walls!r}: one of {', '.join(WALLS)}")
    out.mkdir(parents=True, exist_ok=True)
    pbr.WALLS = walls
    written = []
    for seed in seeds:
        r, _ = pbr.render_seed(seed)
        stem = out / f"{walls}-{seed}"
        stem.with_suffix(".jpg").write_bytes(r.jpeg)
        Path(f"{stem}.markers.json").write_text(json.dumps(r.spec.layout.to_dict(), indent=1) + "\n")
        Path(f"{stem}.camera.json").write_text(json.dumps(r.intrinsics.to_dict(), indent=1) + "\n")
        Path(f"{stem}.truth.json").write_text(r.truth.to_json(indent=1) + "\n")
        written.append(stem.with_suffix(".jpg"))
    return written


def _seeds(text: str) -> range:
    """'9200-9209' → range(9200, 9210); '9200' → range(9200, 9201)."""
    first, _, last = text.partition("-")
    return range(int(first), int(last or first) + 1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--walls", choices=WALLS, default="thin")
    parser.add_argument("--seeds", type=_seeds, default=_seeds("9200-9209"), help="FIRST-LAST, inclusive")
    args = parser.parse_args(argv)
    if not pbr.available():
        sys.exit("mitsuba is not installed: pip install -e '.[pbr]'")
    for path in write(args.out, args.walls, args.seeds):
        print(path)


if __name__ == "__main__":
    main()
