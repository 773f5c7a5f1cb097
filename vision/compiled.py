"""Compiled kernels (numba) of the per-pixel and per-point arithmetic, and their cache.

numba compiles a kernel on its first call (seconds) and keeps the machine code on disk
(in `__pycache__` beside the source, else in the user's cache directory), so later
processes only load it (milliseconds). `make install` calls `warm()` once, so the first
detection on a fresh machine is not slow. Where no cache directory can be written the
kernels are compiled in every process instead: slower to start, the same results.

Every kernel releases the interpreter's lock (a server detects in several threads)
and runs on the calling thread: numba's thread pools (prange) cost more than they
gained on two shared cores (docs/detection-speed.md). The wrappers hand the kernels
arrays of fixed types and layouts, so each compiles once. numba keys a kernel's cache on
its own source file only: after changing `jit`'s options, delete vision/__pycache__/*.nb?.
"""

from __future__ import annotations

import numba

# The rendered table `warm` detects (seed of vision.scenes.rendered): 13 pieces, both poses.
WARM_SEED = 9200


def jit(**options):
    """numba.njit with its on-disk cache where one can be written, without it elsewhere;
    floating-point errors as numpy's (x / 0 is inf or NaN, not an exception)."""
    options = {"nogil": True, "error_model": "numpy", **options}

    def wrap(function):
        try:
            return numba.njit(cache=True, **options)(function)
        except RuntimeError:   # "cannot cache function ...: no locator available" (read-only)
            return numba.njit(**options)(function)
    return wrap


def warm() -> None:
    """Compile (or load) every kernel with the argument types detection uses, by
    detecting one rendered table."""
    from vision.pipeline import Detector
    from vision.scenes import rendered

    r = rendered(WARM_SEED)
    Detector(r.spec.layout, r.intrinsics).detect(r.image)


if __name__ == "__main__":
    warm()
