"""vision.medians gives NumPy's medians exactly: the detector's thresholds compare them."""

import math

import numpy as np

from vision.medians import column_medians, median


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


def test_column_medians_are_numpys():
    rng = np.random.default_rng(8)
    for values in _arrays(rng, 500):
        table = np.column_stack([values, values[::-1] * 2, -values])
        assert np.array_equal(column_medians(table), np.median(table, axis=0))
