"""Helpers for colour tests: a blob read from given readings, as the pipeline reads one."""

from types import SimpleNamespace

import numpy as np

from vision.blobs import Blob


def read_colour(det, readings, table):
    """The colour (and its margin) `det` reads for a blob whose readings (its most tinted
    quarter, the whole; each b, g, r log) lie over `table`, after every reading rule."""
    blob = Blob(None, np.zeros(2), 600.0, None, None, None, None, None, None)
    (read,) = det.blob_reader().with_best_readings([blob], [np.array([[r, table] for r in readings])])
    names, margins = det.models.nearest(read.colour_distances[None])
    return names[0], float(margins[0])


def whole_blob(det, whole):
    """A blob read by its `whole` (observed, table), with that reading's colour distances."""
    observed, table = np.array(whole)
    distances = det.models.distances(observed[None], table[None])[0]
    return SimpleNamespace(whole=np.array(whole), colour_distances=distances, whole_distances=distances.copy())
