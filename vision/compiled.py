"""Compiled kernels (numba) of the per-pixel and per-point arithmetic, and their cache.

numba compiles a kernel on its first call (seconds) and keeps the machine code on disk
(in `__pycache__` beside the source, else in the user's cache directory), so later
processes only load it (milliseconds). `make install` calls `warm()` once, so the first
detection on a fresh machine is not slow. Where no cache directory can be written the
kernels are compiled in every process instead: slower to start, the same results.

Every kernel releases the interpreter's lock (a server detects in several threads).
The wrappers hand the kernels arrays of fixed types and layouts, so each compiles once.
"""

from __future__ import annotations

import warnings

import numba


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
    """Compile (or load) every kernel with the argument types detection uses."""
    import numpy as np

    from domain import Size
    from vision import fit
    from vision.geometry import COIN, FLAT, UPRIGHT

    camera = np.array([300.0, 200.0, 900.0])
    hyps = [fit.Hypothesis(0, UPRIGHT, Size.LARGE), fit.Hypothesis(0, FLAT, Size.SMALL),
            fit.Hypothesis(0, COIN, None, fit.CoinKind.PENNY)]
    a = np.linspace(0, 2 * np.pi, fit.OUTLINE_POINTS, endpoint=False)
    ring = np.column_stack([300 + 12 * np.cos(a), 200 + 12 * np.sin(a)])
    points = np.repeat(ring[None], len(hyps), axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit.gauss_newton(hyps, np.array([[300.0, 200.0, 0.0]] * len(hyps)), points,
                         np.zeros(points.shape[:2], bool), camera, np.zeros((len(hyps), 1)))


if __name__ == "__main__":
    warm()
