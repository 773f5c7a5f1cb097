"""Colour models of the pyramid plastics, and their refinement from a calibration picture.

Colours are compared in log units of white-balanced light relative to the markers' white
paper (b, g, r). A model is the piece's `appearance` lying on white paper. Translucent
plastic also lets the table behind it through — a filter multiplies, so in log units the
table's colour adds, by a fraction w between 0 (a dark table: only the light the plastic
scatters back) and 1 (the table seen straight through). A piece seen with appearance
`obs` over a table `t` is therefore at distance

    min over w in [0, 1] of |obs - appearance - w·t|     (translucent; opaque: w = 0)

from a model, with the grey (overall darkness) part weighted by DARKNESS_WEIGHT: uneven
lamp light changes how bright a piece looks, not its hue (and within LIGHT_SPREAD, not
at all). Mirrored lamps make translucent pieces paler (k, below).

>>> models = ColourModels.load()
>>> import numpy as np
>>> table = np.array([[-1.2, -0.9, -0.6]])          # a wooden table
>>> models.classify(np.array([[-1.5, -1.4, -0.3]]) + 0.5 * table, table)[0][0]
'red'
>>> models.classify(np.array([[-0.3, -0.3, -0.3]]), table)[0][0]   # brighter than the table
'white'
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Sequence

import numpy as np

from calibration import colour_kernels as kernels
from domain import Color, InputError, read_json_file

TRANSLUCENT, OPAQUE = "translucent", "opaque"
# Weight of the grey (overall darkness) part of a colour against its hue part: a lamp's
# fall-off across the table easily changes brightness by ±40 % (±0.35 in log units).
DARKNESS_WEIGHT = 0.4
# How much a calibration picture's measurement replaces the default: fully, it is the
# same plastic under the same light.
REFINE_WEIGHT = 1.0
# ...unless the piece passed too little light where it stood to show its plastic: a
# translucent colour measured as spanning less than this (log, between its channels; the
# shipped models span 1.1-1.6) keeps its default. Cycles 9238: a yellow upright over dark
# wood measured nearly grey (0.10), and that "yellow" then explained every dark blob, the
# blue uprights among them. The other measurements (107 of 27 Cycles calibration
# pictures, 108 of 27 of ours) span 0.34 or more; 0.3 and 0.4 read the Cycles scenes alike.
CALIBRATION_MIN_SPAN = 0.3
# A calibration picture read with more pieces than colours named has false pieces too,
# or a piece the player left there: the named count of the most certain is measured,
# provided every piece left out is less certain than this (a false piece's confidence;
# a piece on the table is read 0.9 or more). Through Blender's AgX view transform, 3 of
# Cycles' 48 calibration pictures (9236-9283) read a fifth piece, a yellow flat of
# confidence 0.60-0.74 in a piece's shadow or the table's corner, each less certain than
# the four pieces (0.71-0.99); read plainly, none.
CALIBRATION_EXTRA_CONFIDENCE = 0.8


class ColourFileError(InputError):
    """A colours.json that cannot be used."""


_GREY = np.ones(3) / np.sqrt(3)


def _weighted(v: np.ndarray) -> np.ndarray:
    """Log colour vectors with their grey component scaled by DARKNESS_WEIGHT."""
    grey = (v @ _GREY)[..., None] * _GREY
    return v - grey + DARKNESS_WEIGHT * grey


# A brightness b added to every channel, weighted.
_WEIGHTED_GREY = _weighted(np.ones(3))
_GREY_GREY = _WEIGHTED_GREY @ _WEIGHTED_GREY


@dataclass(frozen=True)
class ColourModel:
    name: str
    kind: str                 # TRANSLUCENT or OPAQUE
    appearance: tuple[float, float, float]   # log b, g, r on white paper, relative to it
    spread: float
    prior: float = 0.0        # added to the distance: how much rarer this colour is
    brightness: tuple[float, float] = (0.0, 0.0)   # opaque: log range added to every channel

    def to_dict(self) -> dict[str, Any]:
        d = {"kind": self.kind, "appearance": [round(c, 3) for c in self.appearance],
             "spread": round(self.spread, 3), "prior": self.prior}
        if self.brightness != (0.0, 0.0):
            d["brightness"] = list(self.brightness)
        return d

    def explain(self, observed: np.ndarray, table: np.ndarray, faint: bool = True) -> tuple[np.ndarray, ...]:
        """For each measurement, the paleness k, show-through w and brightness b that best
        explain it (k·appearance + w·table + b on every channel), and the weighted residual
        (N×3). `faint`: also consider faint readings where they can be told (_faint_ok)."""
        return self._explain(_Readings(observed, table), faint)[:4]

    def _explain(self, rd: "_Readings", faint: bool) -> tuple[np.ndarray, ...]:
        """`explain` of readings whose model-free parts are worked out (`rd`), and each
        residual's length."""
        kk, ww, lo, hi = _search_grid(self.kind, self.brightness, faint)
        m, m_grey, m_m = self._weighted
        # the squared residual |obs - k·m - w·t - b·grey|² over the whole grid from dot
        # products (a fraction of the work of forming every residual), with the best
        # brightness (added to every channel) in its range, a projection on grey: the
        # least on the grid, compiled (calibration.colour_kernels)
        n = len(rd.obs)
        best, b, residual, norm = np.empty(n, np.int64), np.empty(n), np.empty((n, 3)), np.empty(n)
        kernels.grid_search(rd.og, rd.tg, rd.oo, rd.tt, rd.ot, rd.obs @ m, rd.t @ m, rd.faint_ok, kk, ww, lo, hi,
                            m_grey, m_m, _GREY_GREY, K_MIN, rd.obs, rd.t, m, _WEIGHTED_GREY, best, b, residual, norm)
        return kk[best], ww[best], b, residual, norm

    @functools.cached_property
    def _weighted(self) -> tuple[np.ndarray, float, float]:
        """The appearance weighted (_weighted), and its dot products with grey and itself."""
        m = _weighted(np.asarray(self.appearance))
        return m, m @ _WEIGHTED_GREY, m @ m


# Translucent plastic seen with a lamp or window mirrored in its faces is paler than on
# white paper: its colour is scaled towards grey by k (down to K_MIN), and up to the
# whole table shows through it (w). Searched on a grid: cheap and free of local minima.
K_MIN = 0.4
_PALENESS = np.linspace(K_MIN, 1.0, 14)
_SHOW_THROUGH = np.linspace(0.0, 1.0, 11)
# A piece whose plastic shows only faintly (k from K_FAINT up to K_MIN: its faces mirror
# the room more than they tint the table) shows the table straight through (w = 1), so the
# table's own colour is not taken for the plastic's: a faint green over light wood is not
# yellow plastic. Such a reading needs a tint (hue change against the table, log) of at
# least FAINT_TINT — the segmentation's weak hue evidence; an untinted see-through piece
# is clear plastic — and a table lit in every channel (each at least FAINT_TABLE_MIN,
# ~30 % of the paper): over a dark channel (green felt's red) a faint tint is sensor
# noise and mirrored light, not the plastic.
K_FAINT = 0.1
_FAINT = np.linspace(K_FAINT, K_MIN, 4, endpoint=False)
FAINT_TINT = 0.09
FAINT_TABLE_MIN = -1.2
# What makes a piece faint is the light its faces mirror, which adds: a faint piece may
# look up to this much (log, ~50 %) brighter than the table.
FAINT_BRIGHTER = 0.4


@functools.cache
def _search_grid(kind: str, brightness: tuple[float, float], faint: bool) -> tuple[np.ndarray, ...]:
    """The (k, w) grid `ColourModel.explain` searches and each point's brightness range
    (lo, hi): opaque plastic at k = 1, w = 0 in its own brightness range."""
    if kind == OPAQUE:
        # opaque plastic hides the table; what it mirrors makes it lighter or darker
        k, w, (lo, hi) = np.array([1.0]), np.array([0.0]), brightness
    else:
        k, w, (lo, hi) = _PALENESS, _SHOW_THROUGH, (-LIGHT_SPREAD, LIGHT_SPREAD)
    kk, ww = (g.ravel() for g in np.meshgrid(k, w, indexing="ij"))
    hi = np.full(len(kk), hi)
    if faint and kind != OPAQUE:
        kk, ww = np.concatenate([kk, _FAINT]), np.concatenate([ww, np.ones_like(_FAINT)])
        hi = np.concatenate([hi, np.full(len(_FAINT), FAINT_BRIGHTER)])
    return kk, ww, lo, hi


def _faint_ok(observed: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Per measurement: can a faint translucent piece be told here (see K_FAINT)?"""
    change = observed - table
    tint = np.linalg.norm(change - change.mean(axis=1, keepdims=True), axis=1)
    return (tint >= FAINT_TINT) & (table.min(axis=1) >= FAINT_TABLE_MIN)


class _Readings:
    """Measurements (observed, table: N×3 log colours) weighted (_weighted), with their dot
    products with grey and each other and whether a faint piece can be told (_faint_ok):
    what `ColourModel.explain` needs of them whatever the model."""

    def __init__(self, observed: np.ndarray, table: np.ndarray):
        self.obs, self.t = _weighted(observed), _weighted(table)
        self.og, self.tg = self.obs @ _WEIGHTED_GREY, self.t @ _WEIGHTED_GREY
        self.oo, self.tt = np.sum(self.obs * self.obs, axis=1), np.sum(self.t * self.t, axis=1)
        self.ot = np.sum(self.obs * self.t, axis=1)
        self.faint_ok = _faint_ok(observed, table)


# A game in play uses only some colours (WarpShips: red, yellow, green and blue). A
# reading that another colour explains only a little better is then more likely one of
# the game's: every other colour is charged OFF_PALETTE_PRIOR spreads, so only a clear
# reading names a colour the game does not use. On the 83 path-traced scenes the colour
# errors' gaps to the true colour were 0.0-0.6 spread (dark green uprights read black or
# yellow); 0.6 mends 16 of their 35, 1.0 one more, more than 1.0 none.
OFF_PALETTE_PRIOR = 1.0


# Lamps fall off across the table: a translucent piece may look up to LIGHT_SPREAD (log,
# about 20 %) brighter or darker than under the markers' light at no cost; only beyond
# that does its grey part count (at DARKNESS_WEIGHT). Without it a piece in a bright spot
# is pushed towards the palest model of its hue (blue read as white or cyan).
LIGHT_SPREAD = 0.2
# Faces mirror the room: light added in every channel, not filtered (Fresnel reflectance
# of plastic is ~4 % face on and rises past 15 % at a flat piece's or an upright's steep
# faces). Where the plastic and the table leave a channel dark (red under a green piece on
# green felt) that mirror is most of what the camera sees there, and the piece can look
# brighter in that channel than the bare table, which no filter does: green flats on
# felt read red. So a translucent model may also explain a reading that is brighter than
# the table in some channel less m × the paper's white, for m in MIRROR_GRID, at
# MIRROR_COST spreads per unit of m; what is left is floored at MIRROR_FLOOR of the paper
# (the sensor's noise floor, ~8 levels of 255). Only such readings: taking white light
# out of any reading makes it more saturated, and clear plastic over wood would read
# yellow. On our renders (A, held out, N, crowded, glassy, light cloth, ten colours,
# filmic) this mended 2 colours (a green flat on felt read red, a glass-clear blue flat
# read white) and lost none; 16 path-traced scenes read the same.
MIRROR_GRID = (0.03, 0.06, 0.1, 0.15)
MIRROR_COST = 1.0
MIRROR_FLOOR = 0.03
_MIRROR = np.array(MIRROR_GRID)


@dataclass(frozen=True)
class ColourModels:
    models: tuple[ColourModel, ...]

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.models]

    def restricted(self, names: Sequence[str]) -> "ColourModels":
        keep = set(names)
        return ColourModels(tuple(m for m in self.models if m.name in keep))

    def distances(self, observed: np.ndarray, table: np.ndarray) -> np.ndarray:
        """Distance (in spreads) of N pieces seen as `observed` over `table` to each model: N×M."""
        observed, table = np.atleast_2d(observed), np.atleast_2d(table)
        n = len(observed)
        # only a reading brighter than the table in some channel must hold mirrored light:
        # those are tried again less each amount of it (MIRROR_GRID)
        lit = np.flatnonzero(np.any(observed > table, axis=1))
        unmirrored = np.log(np.maximum(np.exp(observed[lit])[None] - _MIRROR[:, None, None], MIRROR_FLOOR))
        variants = np.concatenate([observed, unmirrored.reshape(-1, 3)])
        tables = np.concatenate([table, np.tile(table[lit], (len(_MIRROR), 1))])
        charge = MIRROR_COST * np.repeat(_MIRROR, len(lit))
        out = np.empty((n, len(self.models)))
        plain, tried = _Readings(observed, table), _Readings(variants, tables)
        for j, m in enumerate(self.models):
            if m.kind == OPAQUE:   # what black or white mirrors is in its brightness range
                out[:, j] = m._explain(plain, True)[-1] / m.spread
            else:
                d = m._explain(tried, True)[-1] / m.spread
                out[:, j] = d[:n]
                if len(lit):
                    out[lit, j] = np.minimum(d[:n][lit], (d[n:] + charge).reshape(len(_MIRROR), -1).min(axis=0))
            out[:, j] += m.prior
        return out

    def palette_prior(self, palette: Sequence[str] | None) -> np.ndarray:
        """Per model, what is added to its distance when only the colours of `palette`
        are in play (OFF_PALETTE_PRIOR for the others; all zero when `palette` is None).

        >>> models = ColourModels.load()
        >>> prior = models.palette_prior(["red", "yellow", "green", "blue"])
        >>> [name for name, p in zip(models.names, prior) if p == 0]
        ['red', 'yellow', 'green', 'blue']
        >>> models.palette_prior(["red", "teal"])
        Traceback (most recent call last):
        ...
        domain.InputError: unknown colour in play: 'teal' (known: red, orange, yellow, green, cyan, blue, purple, clear, black, white)
        """
        if palette is None:
            return np.zeros(len(self.models))
        unknown = [c for c in palette if c not in self.names]
        if unknown:
            raise InputError(f"unknown colour in play: {unknown[0]!r} (known: {', '.join(self.names)})")
        return np.array([0.0 if m.name in palette else OFF_PALETTE_PRIOR for m in self.models])

    def classify(self, observed: np.ndarray, table: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Best colour of each measurement and its margin (second-best minus best distance)."""
        return self.nearest(self.distances(observed, table))

    def nearest(self, d: np.ndarray) -> tuple[list[str], np.ndarray]:
        """`classify` from the measurements' `distances` (N×M)."""
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
                centre = m["appearance"]
                spread = float(m["spread"])
                prior = float(m.get("prior", 0.0))
                lo, hi = (float(v) for v in m.get("brightness", (0.0, 0.0)))
                if not lo <= hi:
                    raise ValueError
                vec = tuple(float(c) for c in centre)
                if kind not in (TRANSLUCENT, OPAQUE) or len(vec) != 3 or not spread > 0 \
                        or not all(np.isfinite(vec + (prior,))):
                    raise ValueError
            except (KeyError, TypeError, ValueError):
                raise ColourFileError(f"{source}: colour {name!r} needs kind (translucent|opaque), "
                                      f"appearance [b, g, r] and a positive spread") from None
            models.append(ColourModel(name, kind, vec, spread, prior, (lo, hi)))  # type: ignore[arg-type]
        return cls(tuple(models))

    @classmethod
    def load(cls, path: str | None = None) -> "ColourModels":
        """The models in `path`, or the shipped defaults."""
        if path is None:
            text = resources.files("calibration").joinpath("data/colours.json").read_text(encoding="utf-8")
            return cls.from_dict(json.loads(text), "default colours")
        return cls.from_dict(read_json_file(path, "colours file", ColourFileError), path)


def refine_from_picture(image_bgr: np.ndarray, layout, expected_colours: Sequence[str],
                        base: ColourModels | None = None, intrinsics=None, registration=None,
                        notes: list[str] | None = None) -> ColourModels:
    """Colour models measured from a picture with one piece of each expected colour.

    Pieces are found with the current models, then matched one-to-one to the expected
    colours (least total distance), and each matched model's appearance becomes what was
    measured, less the table showing through. The picture shows the colours in use: they
    lose their priors, and every other colour is charged OFF_PALETTE_PRIOR, as a game's
    colours in play are (until 2026-11-28 every prior was dropped, which made the Xeno
    colours as likely as the measured ones: 12 path-traced scenes' colour 98.8 % with the
    shipped models, 88.9 % calibrated that way, 99.4 % now). Raises InputError when the
    picture does not show that many pieces, or shows more that are not all doubtful
    (CALIBRATION_EXTRA_CONFIDENCE; the doubtful ones left out are said in `notes` if
    given). `registration`: the camera pose, if already known. A colour measured too grey
    to be its plastic (CALIBRATION_MIN_SPAN) keeps its default, said in `notes` too.
    """
    from scipy.optimize import linear_sum_assignment

    from vision.pipeline import Detector  # the detector measures; this module only models

    base = base or ColourModels.load()
    names = [Color(c).value for c in expected_colours]
    if len(set(names)) != len(names):
        raise InputError("each colour may appear only once in a calibration picture")
    # the picture says which colours are in use: those are equally likely, the others are not in play
    base = ColourModels(tuple(ColourModel(m.name, m.kind, m.appearance, m.spread, float(prior), m.brightness)
                              for m, prior in zip(base.models, base.palette_prior(names))))
    # the pieces' readings, not every blob's: a black piece's shadow is a blob too
    detection = Detector(layout, intrinsics, models=base).detect(image_bgr, registration)
    fits = sorted((f for f in detection.fits if f.reading is not None), key=lambda f: -f.confidence)
    extra = fits[len(names):]
    if len(fits) < len(names) or any(f.confidence >= CALIBRATION_EXTRA_CONFIDENCE for f in extra):
        raise InputError(f"the calibration picture should show {len(names)} pieces "
                         f"({', '.join(names)}), found {len(fits)}"
                         + (f" (read as {', '.join(sorted(f.colour for f in fits))})" if fits else ""))
    fits = fits[:len(names)]
    if notes is not None:
        where = {p.id: p.position for p in detection.state.pieces}
        notes += [f"left out a doubtful piece (read as {f.colour}, confidence {f.confidence:.2f}) at "
                  f"({where[f.id][0]:.0f}, {where[f.id][1]:.0f}) mm" for f in extra]
    found = [f.reading for f in fits]
    sub = base.restricted(names)
    observed = np.array([f[0] for f in found])
    table = np.array([f[1] for f in found])
    rows, cols = linear_sum_assignment(sub.distances(observed, table))
    measured = {sub.models[c].name: r for r, c in zip(rows, cols)}
    out = []
    for m in base.models:
        if m.name in measured:
            r = measured[m.name]
            # a calibration piece shows its plastic clearly: never divided by a faint k
            k, w, b, _ = m.explain(observed[r:r + 1], table[r:r + 1], faint=False)
            new = observed[r] if m.kind == OPAQUE else (observed[r] - w[0] * table[r] - b[0]) / k[0]
            if m.kind == TRANSLUCENT and np.ptp(new) < CALIBRATION_MIN_SPAN:
                if notes is not None:
                    notes.append(f"{m.name}: the piece looks nearly grey where it stands (it passes too little "
                                 f"light there to measure); kept the default model")
                out.append(m)
                continue
            appearance = (1 - REFINE_WEIGHT) * np.asarray(m.appearance) + REFINE_WEIGHT * new
            m = ColourModel(m.name, m.kind, tuple(float(v) for v in appearance), m.spread, m.prior,  # type: ignore[arg-type]
                            m.brightness)
        out.append(m)
    return ColourModels(tuple(out))
