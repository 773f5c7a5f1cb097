"""Renderer figures: seconds per frame, and how well the true camera agrees with what
OpenCV finds in the pictures (marker detection rate, corner error)."""

import statistics
import sys
import time

import cv2
import numpy as np

sys.path.insert(0, __file__.rsplit("/bench/", 1)[0])

from vision.render import random_scene, render  # noqa: E402

SEEDS = range(100, 108)
ALL = ["red", "yellow", "green", "blue", "black", "purple", "clear", "orange", "cyan", "white"]


def main() -> None:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
    times, errors, found, pieces = [], [], 0, 0
    for seed in SEEDS:
        spec = random_scene(seed, colors=ALL, coins=(0, 2), hands=int(seed % 4 == 0))
        t0 = time.process_time()
        r = render(spec)
        times.append(time.process_time() - t0)
        pieces += len(spec.pieces)
        corners, ids, _ = det.detectMarkers(r.image)
        ids = [] if ids is None else ids.ravel().tolist()
        found += len(set(ids) & set(spec.layout.ids))
        for c, i in zip(corners, ids):
            if i in spec.layout.ids:
                errors.append(np.abs(c.reshape(4, 2) - r.view.project(spec.layout.marker(i).corners())).max())
        print(f"  seed {seed}: {spec.surface.kind:5s} {len(spec.pieces):2d} pieces, {len(spec.occluders)} hand(s), "
              f"{times[-1]:.2f} s CPU, markers {sorted(ids)}", flush=True)
    n = len(list(SEEDS))
    print(f"render CPU seconds per frame: median {statistics.median(times):.2f}, max {max(times):.2f} "
          f"({pieces / n:.1f} pieces a frame)")
    print(f"markers found by cv2.aruco: {found}/{4 * n} (hands may cover some)")
    print(f"marker corner error vs truth, px: median {np.median(errors):.2f}, p95 {np.percentile(errors, 95):.2f}")


if __name__ == "__main__":
    main()
