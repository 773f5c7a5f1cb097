"""vision.medians and the compiled medians (vision.segment_kernels, vision.reading_kernels)
give NumPy's exactly: the detector's thresholds compare them."""

import math

import numpy as np

from vision import reading_kernels, segment_kernels
from vision.medians import median, percentile


def _arrays(rng, count):
    for k in range(count):
        n = int(rng.integers(1, 400))
        dtype = np.float32 if k % 2 else np.float64
        values = rng.normal(size=n).astype(dtype)
        if k % 3 == 0:   # ties, as lum and chroma planes of a blob have
            values = np.round(values, 1)
        yield values


def test_median_is_numpys_for_odd_and_even_counts_and_ties():
    rng = np.random.default_rng(7)
    for values in _arrays(rng, 3000):
        assert median(values) == float(np.median(values))


def test_median_of_nothing_is_nan():
    assert math.isnan(median(np.zeros(0, np.float32)))


def test_compiled_medians_are_numpys():
    rng = np.random.default_rng(8)
    for values in _arrays(rng, 1000):
        values = values.astype(np.float32)
        assert segment_kernels.median_of(values) == float(np.median(values))
        assert segment_kernels.median_deviation(values) == float(np.median(np.abs(values - np.median(values))))


def test_compiled_readings_are_numpys():
    rng = np.random.default_rng(9)
    lut, paper = rng.normal(size=256).astype(np.float32), rng.normal(size=3).astype(np.float32)
    for k in range(300):
        h, w = (int(v) for v in rng.integers(1, 40, 2))
        picture, table = (rng.integers(0, 256 if k % 2 else 4, (h, w, 3), dtype=np.uint8) for _ in range(2))
        where = rng.random((h, w)) < 0.7
        where.flat[0] = True
        pixels, bare = lut[picture[where]] - paper, lut[table[where]] - paper
        change = pixels - bare
        sat = np.linalg.norm(change - change.mean(axis=1, keepdims=True), axis=1)
        keep = sat >= percentile(sat, 75)
        expected = np.array([[np.median(pixels[keep], axis=0), np.median(bare[keep], axis=0)],
                             [np.median(pixels, axis=0), np.median(bare, axis=0)]])
        assert np.array_equal(reading_kernels.readings(picture, table, where, lut, paper, 75), expected)
