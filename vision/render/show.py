"""Look at a render: `python -m vision.render.show --seed N --out x.png [--truth] [options]`.

Writes the picture (PNG, or the JPEG bytes for .jpg) and prints the ground truth JSON.
With --truth the true outlines are drawn on a copy (OUT with "-truth" added).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from domain import InputError, Pose
from vision.render.generate import random_scene
from vision.render.render import Rendered, render


def draw_truth(r: Rendered) -> np.ndarray:
    img = r.image.copy()
    for p in r.truth.pieces:
        foot = r.view.project(np.array(p.footprint())).astype(np.int32)
        cv2.polylines(img, [foot], True, (255, 255, 255), 1, cv2.LINE_AA)
        if p.pose is Pose.FLAT:
            t, n = r.view.project([p.tail, p.nose]).astype(int)
            cv2.arrowedLine(img, tuple(t), tuple(n), (0, 255, 255), 1, cv2.LINE_AA, tipLength=0.25)
        label = f"{p.id} {p.color.value[:3]} {p.size.value[0]}{'x' + str(len(p.stack)) if len(p.stack) > 1 else ''}"
        cv2.putText(img, label, tuple(foot[0] + [4, 14]), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (255, 255, 255), 1, cv2.LINE_AA)
    for c in r.truth.coins:
        ctr = r.view.project([c.center])[0]
        cv2.circle(img, tuple(np.round(ctr).astype(int)), 4, (0, 255, 0), 1, cv2.LINE_AA)
    return img


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="render.png")
    ap.add_argument("--surface", choices=["wood", "cloth", "felt"])
    ap.add_argument("--pieces", type=int, help="exact number of pieces (default 10-18)")
    ap.add_argument("--colors", default="red,yellow,green,blue", help="comma-separated, or 'all'")
    ap.add_argument("--coins", type=int, default=0)
    ap.add_argument("--hands", type=int, default=0)
    ap.add_argument("--carried", type=int, default=0)
    ap.add_argument("--truth", action="store_true", help="also write OUT-truth.png with the true outlines")
    args = ap.parse_args(argv)
    colors = ("red,yellow,green,blue,black,purple,clear,orange,cyan,white" if args.colors == "all" else args.colors)
    try:
        spec = random_scene(args.seed, args.pieces if args.pieces is not None else (10, 18), colors.split(","),
                            surface=args.surface, coins=args.coins, hands=args.hands, carried=args.carried)
    except InputError as e:
        print(f"show: {e}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    r = render(spec)
    took = time.perf_counter() - t0
    out = Path(args.out)
    if out.suffix.lower() in (".jpg", ".jpeg"):
        out.write_bytes(r.jpeg)
    else:
        cv2.imwrite(str(out), r.image)
    if args.truth:
        cv2.imwrite(str(out.with_name(out.stem + "-truth.png")), draw_truth(r))
    print(json.dumps(r.truth.to_dict()))
    print(f"seed {args.seed}: {spec.surface.kind}, {len(spec.lamps)} lamp(s), camera {spec.camera.eye[2]:.0f} mm up, "
          f"fov {spec.camera.fov_deg:.1f} deg, rendered in {took:.2f} s -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
