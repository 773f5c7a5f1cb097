"""The marker layout (`markers.json`): which ArUco markers lie where on the table.

>>> layout = MarkerLayout.default()
>>> layout.dictionary, [m.id for m in layout.markers]
('DICT_4X4_50', [0, 1, 2, 3])
>>> layout.marker(1).corners()[0]
(670.0, 40.0)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from domain import InputError, Point


class MarkerLayoutError(InputError):
    """A markers.json that cannot be used."""


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

    def to_dict(self) -> dict[str, Any]:
        return {"dictionary": self.dictionary,
                "markers": [{"id": m.id, "center": list(m.center), "size": m.size} for m in self.markers]}

    @classmethod
    def from_dict(cls, d: Any, source: str = "marker layout") -> "MarkerLayout":
        if not isinstance(d, dict) or not isinstance(d.get("markers"), list):
            raise MarkerLayoutError(f"{source}: needs a 'markers' list")
        markers = []
        for m in d["markers"]:
            try:
                markers.append(Marker(int(m["id"]), (float(m["center"][0]), float(m["center"][1])),
                                      float(m["size"])))
            except (KeyError, TypeError, ValueError, IndexError):
                raise MarkerLayoutError(f"{source}: marker {m!r:.60} needs id, center [x, y] and size") from None
        return cls(str(d.get("dictionary", "DICT_4X4_50")), tuple(markers))

    @classmethod
    def load(cls, path: str) -> "MarkerLayout":
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except OSError as e:
            raise MarkerLayoutError(f"cannot read marker layout {path}: {e.strerror}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise MarkerLayoutError(f"marker layout {path} is not valid JSON: {e}") from None
        return cls.from_dict(data, source=path)

    @classmethod
    def default(cls) -> "MarkerLayout":
        text = resources.files("calibration").joinpath("data/markers.json").read_text(encoding="utf-8")
        return cls.from_dict(json.loads(text), source="default layout")
