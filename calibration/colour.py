"""Colour models of the pyramid plastics, and their refinement from a calibration picture.

Translucent plastic is a colour filter: seen over the table, a piece's pixels divided by
the bare table's give its transmission whatever the table, lamp or white balance
(vision.segment computes that log ratio). Opaque black and white hide the table, so they
are modelled by their reflectance relative to the markers' white paper instead.
A blob is given the colour whose model is nearest in these log units, hue counting fully
and overall darkness half (the light path through a piece, and so its darkness, varies
with the viewing angle and the light; its hue does not).

>>> models = ColourModels.load()
>>> import numpy as np
>>> models.classify(np.array([[-1.5, -1.4, -0.3]]), np.array([[-1.2, -1.1, -0.6]]))[0][0]
'red'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Sequence

import numpy as np

from domain import Color, InputError

TRANSLUCENT, OPAQUE = "translucent", "opaque"
# Weight of the grey (overall darkness) part of the log ratio against its hue part.
DARKNESS_WEIGHT = 0.5
# How much a calibration picture's measurement replaces the default: fully, it is the
# same plastic under the same light.
REFINE_WEIGHT = 1.0


class ColourFileError(InputError):
    """A colours.json that cannot be used."""


_GREY = np.ones(3) / np.sqrt(3)


def _weighted(v: np.ndarray) -> np.ndarray:
    """Log colour vectors with their grey component scaled by DARKNESS_WEIGHT."""
    grey = (v @ _GREY)[..., None] * _GREY
    return v - grey + DARKNESS_WEIGHT * grey


@dataclass(frozen=True)
class ColourModel:
    name: str
    kind: str                 # TRANSLUCENT or OPAQUE
    centre: tuple[float, float, float]   # log b, g, r (ratio to table, or to paper white)
    spread: float

    def to_dict(self) -> dict[str, Any]:
        key = "log_ratio" if self.kind == TRANSLUCENT else "log_reflectance"
        return {"kind": self.kind, key: [round(c, 3) for c in self.centre], "spread": round(self.spread, 3)}


@dataclass(frozen=True)
class ColourModels:
    models: tuple[ColourModel, ...]

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.models]

    def restricted(self, names: Sequence[str]) -> "ColourModels":
        keep = set(names)
        return ColourModels(tuple(m for m in self.models if m.name in keep))

    def distances(self, log_ratio: np.ndarray, log_image: np.ndarray) -> np.ndarray:
        """Distance (in spreads) of N colour measurements to each model: N×M."""
        lr, li = _weighted(np.atleast_2d(log_ratio)), _weighted(np.atleast_2d(log_image))
        out = np.empty((len(lr), len(self.models)))
        for j, m in enumerate(self.models):
            src = lr if m.kind == TRANSLUCENT else li
            out[:, j] = np.linalg.norm(src - _weighted(np.asarray(m.centre)), axis=1) / m.spread
        return out

    def classify(self, log_ratio: np.ndarray, log_image: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Best colour of each measurement and its margin (second-best minus best distance)."""
        d = self.distances(log_ratio, log_image)
        order = np.argsort(d, axis=1)
        best = d[np.arange(len(d)), order[:, 0]]
        second = d[np.arange(len(d)), order[:, 1]] if d.shape[1] > 1 else best + 10
        return [self.models[i].name for i in order[:, 0]], second - best

    # -- files --------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"version": 1, "colours": {m.name: m.to_dict() for m in self.models}}

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=1)
            f.write("\n")

    @classmethod
    def from_dict(cls, d: Any, source: str = "colours file") -> "ColourModels":
        if not isinstance(d, dict) or not isinstance(d.get("colours"), dict) or not d["colours"]:
            raise ColourFileError(f"{source}: needs a non-empty 'colours' object")
        models = []
        for name, m in d["colours"].items():
            try:
                Color(name)
            except ValueError:
                raise ColourFileError(f"{source}: unknown colour {name!r} "
                                      f"(one of: {', '.join(c.value for c in Color)})") from None
            try:
                kind = m["kind"]
                centre = m["log_ratio" if kind == TRANSLUCENT else "log_reflectance"]
                spread = float(m["spread"])
                vec = tuple(float(c) for c in centre)
                if kind not in (TRANSLUCENT, OPAQUE) or len(vec) != 3 or not spread > 0 \
                        or not all(np.isfinite(vec)):
                    raise ValueError
            except (KeyError, TypeError, ValueError):
                raise ColourFileError(f"{source}: colour {name!r} needs kind (translucent|opaque), "
                                      f"log_ratio or log_reflectance [b, g, r] and a positive spread") from None
            models.append(ColourModel(name, kind, vec, spread))  # type: ignore[arg-type]
        return cls(tuple(models))

    @classmethod
    def load(cls, path: str | None = None) -> "ColourModels":
        """The models in `path`, or the shipped defaults."""
        if path is None:
            text = resources.files("calibration").joinpath("data/colours.json").read_text(encoding="utf-8")
            return cls.from_dict(json.loads(text), "default colours")
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except OSError as e:
            raise ColourFileError(f"cannot read colours file {path}: {e.strerror}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ColourFileError(f"colours file {path} is not valid JSON: {e}") from None
        return cls.from_dict(data, path)


def refine_from_picture(image_bgr: np.ndarray, layout, expected_colours: Sequence[str],
                        base: ColourModels | None = None, intrinsics=None) -> ColourModels:
    """Colour models measured from a picture with one piece of each expected colour.

    Pieces are found with the current models, then matched one-to-one to the expected
    colours (least total distance), and each matched model moves to what was measured.
    Raises InputError when the picture does not show exactly that many pieces.
    """
    from scipy.optimize import linear_sum_assignment

    from vision.pipeline import Detector  # the detector measures; this module only models

    base = base or ColourModels.load()
    names = [Color(c).value for c in expected_colours]
    if len(set(names)) != len(names):
        raise InputError("each colour may appear only once in a calibration picture")
    found = Detector(layout, intrinsics, models=base).measure_colours(image_bgr)
    if len(found) != len(names):
        raise InputError(f"the calibration picture should show {len(names)} pieces "
                         f"({', '.join(names)}), found {len(found)}")
    sub = base.restricted(names)
    ratios = np.array([f[0] for f in found])
    images = np.array([f[1] for f in found])
    rows, cols = linear_sum_assignment(sub.distances(ratios, images))
    measured = {sub.models[c].name: (ratios[r], images[r]) for r, c in zip(rows, cols)}
    out = []
    for m in base.models:
        if m.name in measured:
            ratio, img = measured[m.name]
            new = ratio if m.kind == TRANSLUCENT else img
            centre = tuple(float(v) for v in (1 - REFINE_WEIGHT) * np.asarray(m.centre) + REFINE_WEIGHT * new)
            m = ColourModel(m.name, m.kind, centre, m.spread)  # type: ignore[arg-type]
        out.append(m)
    return ColourModels(tuple(out))
