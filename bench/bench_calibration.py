"""Registration speed and accuracy: synthetic views of the marker layout (known cameras,
with and without camera.json) and a few of the renderer's scenes.

Prints medians / 90th percentiles of: time per 1280×960 frame, corner error, focal-length
error, camera-position error, and the error locating table points at z = 0 and at the apex
height of a large pyramid (44.45 mm), where a wrong pose shows as a wrongly corrected lean.
Then the picture's blur measured at the markers (calibration.sharpness) on the synthetic
views defocused in light by known amounts: blurs add as the root of the sum of squares,
so each measure is compared with that of the view's sharp picture and the blur added.
"""

import sys
import time

import numpy as np

from calibration.markers import MarkerLayout
from calibration.registration import find_markers, register
from calibration.sharpness import marker_blur
from calibration.synthetic import defocused, picture_of_layout, random_view

LAYOUT = MarkerLayout.default()
APEX_MM = 44.45
PROBES = np.array([(65, 65), (695, 65), (695, 495), (65, 495), (380, 280), (200, 400), (560, 150)], float)
N_SYNTHETIC = 30
RENDER_SEEDS = tuple(range(1, 9))
REPEATS = 5


def table_error(est, truth, h):
    return float(np.abs(est.image_to_table(truth.project(PROBES, height=h), height=h) - PROBES).max())


def timed(fn, repeats=REPEATS):
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        ts.append((time.perf_counter() - t) * 1e3)
    return out, float(np.median(ts))


def row(name, values, unit, fmt=".2f"):
    v = np.asarray(values, float)
    print(f"  {name:<34} median {np.median(v):{fmt}} {unit}   p90 {np.percentile(v, 90):{fmt}} {unit}   "
          f"max {v.max():{fmt}} {unit}")


def views(n, seed):
    rng, out = np.random.default_rng(seed), []
    while len(out) < n:
        v = random_view(rng, LAYOUT)
        px = np.concatenate([v.project(m.corners()) for m in LAYOUT.markers])
        if ((px > 20) & (px < [1260, 940])).all():
            out.append(v)
    return out


def measure(cases, label):
    stats = {k: [] for k in ("t_find", "t_cam", "t_nocam", "corner", "f", "pos", "pos_cam",
                             "z0", "z44", "z0_cam", "z44_cam", "lean")}
    for view, image in cases:
        found, t_find = timed(lambda: find_markers(image, LAYOUT))
        stats["t_find"].append(t_find)
        stats["corner"] += [float(np.abs(c - view.project(LAYOUT.marker(i).corners())).max()) for i, c in found.items()]
        with_cam, t = timed(lambda: register(image, LAYOUT, view.intrinsics))
        stats["t_cam"].append(t)
        without, t = timed(lambda: register(image, LAYOUT))
        stats["t_nocam"].append(t)
        stats["f"].append(100 * abs(without.view.intrinsics.fx / view.intrinsics.fx - 1))
        stats["pos"].append(float(np.linalg.norm(without.view.position - view.position)))
        stats["pos_cam"].append(float(np.linalg.norm(with_cam.view.position - view.position)))
        for key, reg in (("", without), ("_cam", with_cam)):
            stats["z0" + key].append(table_error(reg.view, view, 0.0))
            stats["z44" + key].append(table_error(reg.view, view, APEX_MM))
        apex = view.project(PROBES, height=APEX_MM)
        stats["lean"].append(float(np.abs(view.image_to_table(apex) - PROBES).max()))
    print(f"{label}: {len(cases)} pictures, 1280×960")
    row("find markers", stats["t_find"], "ms", ".1f")
    row("register with camera.json", stats["t_cam"], "ms", ".1f")
    row("register without camera.json", stats["t_nocam"], "ms", ".1f")
    row("corner error", stats["corner"], "px", ".3f")
    row("uncorrected lean of a 44 mm apex", stats["lean"], "mm")
    print("  with camera.json:")
    row("camera position error", stats["pos_cam"], "mm")
    row("table point error at z=0", stats["z0_cam"], "mm")
    row("table point error at z=44.45", stats["z44_cam"], "mm")
    print("  without camera.json (focal length estimated):")
    row("focal length error", stats["f"], "%")
    row("camera position error", stats["pos"], "mm")
    row("table point error at z=0", stats["z0"], "mm")
    row("table point error at z=44.45", stats["z44"], "mm")


def measure_blur(cases, added=(0.5, 1.0, 1.5, 2.0)):
    ids = [m.id for m in LAYOUT.markers]
    sharp, times = [], []
    for view, image in cases:
        b, t = timed(lambda: marker_blur(image, view, LAYOUT, ids))
        sharp.append(b.sigma_px)
        times.append(t)
    print(f"the picture's blur at the markers, the same {len(cases)} views defocused in light:")
    row("measure", times, "ms", ".1f")
    row("as drawn", sharp, "px")
    for sigma in added:
        err = [abs(marker_blur(defocused(image, sigma), view, LAYOUT, ids).sigma_px - np.hypot(s, sigma))
               for (view, image), s in zip(cases, sharp)]
        row(f"{sigma} px added: |error|", err, "px")


def main():
    synthetic = [(v, picture_of_layout(LAYOUT, v, seed=k)) for k, v in enumerate(views(N_SYNTHETIC, 2024))]
    measure(synthetic, "synthetic views (calibration.synthetic; tilt 0-30°, hfov 50-80°, off-centre principal point)")
    measure_blur(synthetic)
    if "--no-render" in sys.argv:
        return
    from vision.render import random_scene
    from vision.render.cache import render_cached
    renders = []
    for seed in RENDER_SEEDS:
        r = render_cached(random_scene(seed))
        renders.append((r.view, r.image))
    measure(renders, f"renderer scenes (vision.render, seeds {RENDER_SEEDS})")


if __name__ == "__main__":
    main()
