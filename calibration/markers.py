"""The marker layout (`markers.json`): which ArUco markers lie where on the table.

A layout is validated when it is read: every refusal is a `MarkerLayoutError` whose
message is one line naming the file and the problem.

>>> layout = MarkerLayout.default()
>>> layout.dictionary, [m.id for m in layout.markers]
('DICT_4X4_50', [0, 1, 2, 3])
>>> layout.marker(1).corners()[0]
(670.0, 40.0)
>>> MarkerLayout.from_dict({"dictionary": "DICT_4X4_50", "markers": []}, source="x.json")
Traceback (most recent call last):
...
calibration.markers.MarkerLayoutError: x.json: needs at least 4 markers, got 0
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import cv2

from domain import InputError, Point, read_json_file

# Fewer markers than this cannot fix the table frame and estimate the camera from one picture.
MIN_MARKERS = 4

# White paper kept around each black square on the printed sheet, in marker modules
# (one module = one bit cell). ArUco needs about one module of quiet zone; 1.5 leaves
# room for the paper-white ring that registration samples for white balance.
QUIET_ZONE_MODULES = 1.5


class MarkerLayoutError(InputError):
    """A markers.json that cannot be used."""


@lru_cache(maxsize=None)
def aruco_dictionary(name: str) -> "cv2.aruco.Dictionary":
    """OpenCV's predefined dictionary called `name` (e.g. 'DICT_4X4_50'); KeyError if unknown."""
    if not name.startswith("DICT_") or not isinstance(getattr(cv2.aruco, name, None), int):
        raise KeyError(name)
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def known_dictionaries() -> list[str]:
    return sorted(n for n in dir(cv2.aruco) if n.startswith("DICT_") and isinstance(getattr(cv2.aruco, n), int))


@dataclass(frozen=True)
class Marker:
    id: int
    center: Point
    size: float

    def corners(self) -> list[Point]:
        """The black square's corners in OpenCV's order (top-left, top-right, bottom-right,
        bottom-left); the marker lies upright in the table frame, top edge towards −y."""
        (x, y), h = self.center, self.size / 2
        return [(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)]

    def overlaps(self, other: "Marker") -> bool:
        """Whether the two black squares share any area."""
        reach = (self.size + other.size) / 2
        return abs(self.center[0] - other.center[0]) < reach and abs(self.center[1] - other.center[1]) < reach


@dataclass(frozen=True)
class MarkerLayout:
    dictionary: str
    markers: tuple[Marker, ...]

    def marker(self, marker_id: int) -> Marker:
        for m in self.markers:
            if m.id == marker_id:
                return m
        raise KeyError(marker_id)

    @property
    def ids(self) -> list[int]:
        return [m.id for m in self.markers]

    @property
    def aruco(self) -> "cv2.aruco.Dictionary":
        return aruco_dictionary(self.dictionary)

    @property
    def modules(self) -> int:
        """Cells across a marker's black square: the data bits plus a one-cell black border."""
        return int(self.aruco.markerSize) + 2

    def quiet_zone(self, marker: Marker) -> float:
        """Width of white paper the printed sheet leaves around `marker`'s black square, mm."""
        return QUIET_ZONE_MODULES * marker.size / self.modules

    def bounds(self) -> tuple[float, float, float, float]:
        """(min x, min y, max x, max y) of all black squares, mm."""
        xs = [c[0] for m in self.markers for c in m.corners()]
        ys = [c[1] for m in self.markers for c in m.corners()]
        return min(xs), min(ys), max(xs), max(ys)

    def to_dict(self) -> dict[str, Any]:
        return {"dictionary": self.dictionary,
                "markers": [{"id": m.id, "center": list(m.center), "size": m.size} for m in self.markers]}

    @classmethod
    def from_dict(cls, d: Any, source: str = "marker layout") -> "MarkerLayout":
        if not isinstance(d, dict):
            raise MarkerLayoutError(f"{source}: must be a JSON object with 'dictionary' and 'markers'")
        name = d.get("dictionary", "DICT_4X4_50")
        try:
            dictionary = aruco_dictionary(name) if isinstance(name, str) else None
        except KeyError:
            dictionary = None
        if dictionary is None:
            raise MarkerLayoutError(f"{source}: unknown ArUco dictionary {name!r} "
                                    f"(known: {', '.join(known_dictionaries())})")
        if not isinstance(d.get("markers"), list):
            raise MarkerLayoutError(f"{source}: needs a 'markers' list")
        markers = tuple(_parse_marker(m, i, source) for i, m in enumerate(d["markers"]))
        _check_markers(markers, int(dictionary.bytesList.shape[0]), name, source)
        return cls(name, markers)

    @classmethod
    def load(cls, path: str) -> "MarkerLayout":
        data = read_json_file(path, "marker layout", MarkerLayoutError)
        return cls.from_dict(data, source=path)

    @classmethod
    def default(cls) -> "MarkerLayout":
        text = resources.files("calibration").joinpath("data/markers.json").read_text(encoding="utf-8")
        return cls.from_dict(json.loads(text), source="default layout")


def _number(v: Any) -> float | None:
    """A finite JSON number as float, else None (booleans are not numbers here)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return float(v)


def _parse_marker(m: Any, index: int, source: str) -> Marker:
    where = f"{source}: marker #{index + 1}"
    if not isinstance(m, dict):
        raise MarkerLayoutError(f"{where} must be an object with id, center [x, y] and size")
    for key in ("id", "center", "size"):
        if key not in m:
            raise MarkerLayoutError(f"{where} has no {key!r} (needs id, center [x, y] and size)")
    mid = _number(m["id"])
    if mid is None or mid != int(mid) or mid < 0:
        raise MarkerLayoutError(f"{where}: id must be a non-negative integer, got {m['id']!r:.40}")
    c = m["center"]
    xy = [_number(v) for v in c] if isinstance(c, list) and len(c) == 2 else [None]
    if None in xy:
        raise MarkerLayoutError(f"{where} (id {int(mid)}): center must be [x, y] in mm, got {c!r:.40}")
    size = _number(m["size"])
    if size is None or size <= 0:
        raise MarkerLayoutError(f"{where} (id {int(mid)}): size must be a positive number of mm, "
                                f"got {m['size']!r:.40}")
    return Marker(int(mid), (xy[0], xy[1]), size)


def _check_markers(markers: tuple[Marker, ...], n_ids: int, name: str, source: str) -> None:
    if len(markers) < MIN_MARKERS:
        raise MarkerLayoutError(f"{source}: needs at least {MIN_MARKERS} markers, got {len(markers)}")
    seen: set[int] = set()
    for m in markers:
        if m.id >= n_ids:
            raise MarkerLayoutError(f"{source}: marker id {m.id} is not in {name} (ids 0 to {n_ids - 1})")
        if m.id in seen:
            raise MarkerLayoutError(f"{source}: marker id {m.id} appears more than once")
        seen.add(m.id)
    for i, a in enumerate(markers):
        for b in markers[i + 1:]:
            if a.overlaps(b):
                raise MarkerLayoutError(f"{source}: markers {a.id} and {b.id} overlap")
