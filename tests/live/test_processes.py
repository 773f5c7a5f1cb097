"""The detector in worker processes reads as it does at home, says its errors, survives a crash."""

import functools
import gc
import os
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool

import numpy as np
import pytest

from domain import InputError
from vision.live.processes import ProcessDetector
from vision.pipeline import Detector
from vision.scenes import rendered

from tests.live.fakes import DiesOnRed   # importable by the spawned worker


@pytest.fixture(scope="module")
def scene():
    return rendered(9001)


def test_worker_reading_is_the_detectors_own(scene):
    here = Detector(scene.spec.layout, scene.intrinsics)
    away = ProcessDetector(functools.partial(Detector, scene.spec.layout, scene.intrinsics))
    try:
        registration = away.register(scene.image)
        expected = here.detect(scene.image, registration).state
        assert away.detect(scene.image, registration).state == expected
        assert away.detect(scene.image, registration).state == expected   # the worker's registration reused
        assert away.detect(scene.image).state == expected                 # or made there
        assert away.layout == scene.spec.layout
    finally:
        away.close()


def test_workers_keep_their_long_lived_objects_out_of_the_collectors_way(scene):
    away = ProcessDetector(functools.partial(Detector, scene.spec.layout, scene.intrinsics), workers=1)
    try:
        away.detect(scene.image)
        # the imports' and the detector's objects: a full collection never walks them
        assert away._pool.submit(gc.get_freeze_count).result() > 10_000
    finally:
        away.close()


def test_worker_errors_are_raised_here_with_their_reason(scene):
    away = ProcessDetector(functools.partial(Detector, scene.spec.layout, scene.intrinsics))
    try:
        with pytest.raises(InputError, match="marker"):
            away.detect(np.full((960, 1280, 3), 128, np.uint8))
    finally:
        away.close()


def test_a_dead_worker_costs_one_reading():
    away = ProcessDetector(DiesOnRed, workers=1)
    red = np.zeros((8, 8, 3), np.uint8)
    red[..., 2] = 255
    try:
        with pytest.raises(BrokenProcessPool):
            away.detect(red)
        assert away.detect(np.full((8, 8, 3), 10, np.uint8)) == 10.0
    finally:
        away.close()


def test_workers_go_when_their_parent_is_killed():
    script = ("import sys, time, numpy as np; from vision.live.processes import ProcessDetector; "
              "from tests.live.fakes import DiesOnRed; d = ProcessDetector(DiesOnRed, workers=1); "
              "d.detect(np.zeros((4, 4, 3), np.uint8)); print(*d._pool._processes, flush=True); time.sleep(60)")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                              cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    workers = [int(p) for p in parent.stdout.readline().split()]
    assert workers and all(_alive(p) for p in workers)
    parent.kill()
    parent.wait()
    deadline = time.time() + 10
    while any(_alive(p) for p in workers) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in workers)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"   # a zombie has exited
    except FileNotFoundError:
        return False
