"""Compare detected table states with ground truth: the figures tests and benchmarks report.

Pieces are paired by position (upright: base centre; flat: nose) with the Hungarian
method; a pair further apart than MATCH_MM is no pair (a miss and a false detection).

>>> from domain import Piece, TableState
>>> truth = TableState((Piece.upright("a", "red", "large", (100, 100)),))
>>> found = TableState((Piece.upright("p1", "red", "large", (100.5, 100)),
...                     Piece.flat("p2", "blue", "small", (300, 300), 0)))
>>> s = Score.of([(truth, found)])
>>> s.found_rate, s.false_rate, round(s.position_median, 2)
(1.0, 0.5, 0.5)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from domain import Piece, Pose, TableState, angle_between

# Further apart than this (mm) a truth and a detection are different pieces: about the
# size of a large piece, so a piece is never paired with its neighbour.
MATCH_MM = 25.0
# Confidence bins for the calibration error, and the confidence a user may take as sure.
CONFIDENCE_BINS = (0.0, 0.25, 0.5, 0.75, 0.9, 1.0001)
SURE = 0.9


def match(truth: TableState, found: TableState) -> list[tuple[Piece, Piece]]:
    """Pairs (truth piece, detected piece) by nearest position."""
    pairs = _pairs([p.position for p in truth.pieces], [p.position for p in found.pieces], MATCH_MM)
    return [(truth.pieces[r], found.pieces[c]) for r, c in pairs]


def read_right(truth: Piece, found: Piece) -> bool:
    """Is a detected piece read all right: colour, size and pose?"""
    return (truth.color, truth.size, truth.pose) == (found.color, found.size, found.pose)


def _pairs(truth: list, found: list, within_mm: float) -> list[tuple[int, int]]:
    """Index pairs of truth and found points no further apart than within_mm: as many such
    pairs as there can be, and of those the nearest overall (Hungarian). A pair out of
    reach costs more than every pair within it together, so a piece read in its place is
    never traded for two pairs out of reach (which would count it missed and false):

    >>> _pairs([(162, 431), (140, 409)], [(162, 430), (195, 464)], 25.0)   # 1 + 78 mm, or 47 + 30
    [(0, 0)]
    """
    if not truth or not found:
        return []
    cost = np.linalg.norm(np.array(truth, float)[:, None] - np.array(found, float)[None], axis=2)
    out_of_reach = within_mm * (min(len(truth), len(found)) + 1)
    rows, cols = linear_sum_assignment(np.where(cost <= within_mm, cost, out_of_reach))
    return [(int(r), int(c)) for r, c in zip(rows, cols) if cost[r, c] <= within_mm]


@dataclass
class _Counts:
    n_truth: int = 0
    n_found: int = 0
    n_matched: int = 0

    @property
    def found_rate(self) -> float:
        return self.n_matched / self.n_truth if self.n_truth else 1.0

    @property
    def false_rate(self) -> float:
        return (self.n_found - self.n_matched) / self.n_found if self.n_found else 0.0


@dataclass
class Score(_Counts):
    colour_ok: int = 0
    size_ok: int = 0
    pose_ok: int = 0
    position_err: list[float] = field(default_factory=list)   # pieces with right size and pose
    heading_err: list[float] = field(default_factory=list)    # flat pieces with right size and pose
    per_colour: dict[str, list[int]] = field(default_factory=dict)  # colour: [truth, found right]
    mistakes: list[str] = field(default_factory=list)
    said: list[tuple[float, bool]] = field(default_factory=list)   # each found piece: (confidence, all right)

    @classmethod
    def of(cls, pairs_of_states) -> "Score":
        s = cls()
        for i, (truth, found) in enumerate(pairs_of_states):
            s.add(truth, found, label=str(i))
        return s

    def add(self, truth: TableState, found: TableState, label: str = "") -> None:
        pairs = match(truth, found)
        self.n_truth += len(truth.pieces)
        self.n_found += len(found.pieces)
        self.n_matched += len(pairs)
        for p in truth.pieces:
            self.per_colour.setdefault(p.color.value, [0, 0])[0] += 1
        matched_truth = {id(t) for t, _ in pairs}
        for p in truth.pieces:
            if id(p) not in matched_truth:
                self.mistakes.append(f"{label}: missed {_describe(p)}")
        matched_found = {id(f): t for t, f in pairs}
        for p in found.pieces:
            t = matched_found.get(id(p))
            if t is None:
                self.mistakes.append(f"{label}: false {_describe(p)}")
            self.said.append((p.confidence, t is not None and read_right(t, p)))
        for t, f in pairs:
            self.colour_ok += t.color is f.color
            self.size_ok += t.size is f.size
            self.pose_ok += t.pose is f.pose
            if read_right(t, f):
                self.per_colour[t.color.value][1] += 1
            else:
                self.mistakes.append(f"{label}: {_describe(t)} seen as {_describe(f)}")
            if t.size is f.size and t.pose is f.pose:
                self.position_err.append(math.dist(t.position, f.position))
                if t.pose is Pose.FLAT:
                    self.heading_err.append(angle_between(t.heading, f.heading))

    def rate(self, ok: int) -> float:
        return ok / self.n_matched if self.n_matched else 1.0

    @property
    def position_median(self) -> float:
        return float(np.median(self.position_err)) if self.position_err else 0.0

    def percentile(self, values: list[float], q: float) -> float:
        return float(np.percentile(values, q)) if values else 0.0

    def confidence_figures(self) -> dict[str, float]:
        """How well the confidences hold as probabilities that a found piece is all right:
        Brier score (mean squared error), calibration error (the gap between the mean
        confidence and the share right, weighted over CONFIDENCE_BINS), and of the pieces
        said to be at least SURE sure, the share right."""
        if not self.said:
            return {"brier": 0.0, "calibration_error": 0.0, "sure_share": 0.0, "sure_right": 1.0}
        said, right = (np.array(v, float) for v in zip(*self.said))
        gap = sum(abs(said[b].mean() - right[b].mean()) * b.sum()
                  for b in (np.digitize(said, CONFIDENCE_BINS) == k for k in range(1, len(CONFIDENCE_BINS))) if b.any())
        sure = said >= SURE
        return {"brier": float(np.mean((said - right) ** 2)), "calibration_error": float(gap / len(said)),
                "sure_share": float(sure.mean()), "sure_right": float(right[sure].mean()) if sure.any() else 1.0}

    def summary(self) -> str:
        c = self.confidence_figures()
        lines = [
            f"pieces {self.n_truth}, found {100 * self.found_rate:.1f}%, false {100 * self.false_rate:.1f}%",
            f"colour {100 * self.rate(self.colour_ok):.1f}%, size {100 * self.rate(self.size_ok):.1f}%, "
            f"pose {100 * self.rate(self.pose_ok):.1f}%",
            f"position mm: median {self.position_median:.2f}, p95 {self.percentile(self.position_err, 95):.2f}, "
            f"max {max(self.position_err, default=0):.2f}",
            f"flat heading deg: median {self.percentile(self.heading_err, 50):.2f}, "
            f"p95 {self.percentile(self.heading_err, 95):.2f}",
            "per colour (all right / pieces): " + ", ".join(f"{k} {v[1]}/{v[0]}" for k, v in sorted(self.per_colour.items())),
            f"confidence as the chance a found piece is all right: Brier {c['brier']:.3f}, calibration error "
            f"{c['calibration_error']:.3f}; said ≥ {SURE}: {100 * c['sure_share']:.0f}% of pieces, "
            f"{100 * c['sure_right']:.1f}% of them right",
        ]
        return "\n".join(lines)


def _describe(p: Piece) -> str:
    x, y = p.position
    return f"{p.color.value} {p.size.value} {p.pose.value} at ({x:.0f}, {y:.0f})"


# A coin detection further than this (mm) from a coin is another coin or none.
COIN_MATCH_MM = 8.0


@dataclass
class CoinScore(_Counts):
    """Spike's coins: found, false, metal and centre error, paired like pieces.

    >>> from domain import Coin, CoinKind
    >>> penny, nickel = CoinKind.PENNY, CoinKind.NICKEL
    >>> truth = TableState(coins=(Coin("a", penny, (50, 50)), Coin("b", nickel, (90, 50))))
    >>> s = CoinScore(); s.add(truth, TableState(coins=(Coin("c1", nickel, (50.4, 50)),)))
    >>> s.found_rate, s.kind_rate, s.false_rate
    (0.5, 0.0, 0.0)
    """

    kind_ok: int = 0
    centre_err: list[float] = field(default_factory=list)
    mistakes: list[str] = field(default_factory=list)

    def add(self, truth: TableState, found: TableState, label: str = "") -> None:
        self.n_truth += len(truth.coins)
        self.n_found += len(found.coins)
        pairs = _pairs([c.center for c in truth.coins], [c.center for c in found.coins], COIN_MATCH_MM)
        self.n_matched += len(pairs)
        for r, c in pairs:
            t, f = truth.coins[r], found.coins[c]
            self.kind_ok += t.kind is f.kind
            self.centre_err.append(math.dist(t.center, f.center))
            if t.kind is not f.kind:
                self.mistakes.append(f"{label}: {t.kind.value} at ({t.center[0]:.0f}, {t.center[1]:.0f}) "
                                     f"seen as {f.kind.value}")
        matched, seen = {r for r, _ in pairs}, {c for _, c in pairs}
        self.mistakes += [f"{label}: missed {c.kind.value} at ({c.center[0]:.0f}, {c.center[1]:.0f})"
                          for i, c in enumerate(truth.coins) if i not in matched]
        self.mistakes += [f"{label}: false {c.kind.value} at ({c.center[0]:.0f}, {c.center[1]:.0f})"
                          for i, c in enumerate(found.coins) if i not in seen]

    @property
    def kind_rate(self) -> float:
        return self.kind_ok / self.n_matched if self.n_matched else 1.0

    def percentile_centre(self, q: float) -> float:
        return float(np.percentile(self.centre_err, q)) if self.centre_err else 0.0

    def summary(self) -> str:
        return (f"coins {self.n_truth}, found {100 * self.found_rate:.1f}%, false {100 * self.false_rate:.1f}%, "
                f"metal right {100 * self.kind_rate:.1f}%, centre mm: median {self.percentile_centre(50):.2f}, "
                f"p95 {self.percentile_centre(95):.2f}")


def spread(scores: list[Score]) -> str:
    """The headline figures of several readings of the same scenes (the same tables with
    other sensor noise, say): each pooled over all of them, with the range of the single
    readings in brackets. A figure that moves this much with the noise alone says how far
    one reading's can be trusted.

    >>> from domain import Piece, TableState
    >>> truth = TableState((Piece.upright("a", "red", "large", (100, 100)),
    ...                     Piece.upright("b", "blue", "small", (200, 100))))
    >>> one = Score.of([(truth, TableState(truth.pieces[:1]))])
    >>> both = Score.of([(truth, truth)])
    >>> for figure in spread([one, both]).split(", "):
    ...     print(figure)
    found 75.0% (50.0-100.0)
    false 0.0% (0.0-0.0)
    colour 100.0% (100.0-100.0)
    size 100.0% (100.0-100.0)
    pose 100.0% (100.0-100.0)
    position mm median 0.00 (0.00-0.00)
    """
    pooled = Score()
    for s in scores:
        for name in ("n_truth", "n_found", "n_matched", "colour_ok", "size_ok", "pose_ok"):
            setattr(pooled, name, getattr(pooled, name) + getattr(s, name))
        pooled.position_err += s.position_err

    def figure(name: str, of, unit: str = "%", scale: float = 100.0, digits: int = 1) -> str:
        values = [scale * of(s) for s in scores]
        return (f"{name} {scale * of(pooled):.{digits}f}{unit} "
                f"({min(values):.{digits}f}-{max(values):.{digits}f})")

    return ", ".join([
        figure("found", lambda s: s.found_rate), figure("false", lambda s: s.false_rate),
        figure("colour", lambda s: s.rate(s.colour_ok)), figure("size", lambda s: s.rate(s.size_ok)),
        figure("pose", lambda s: s.rate(s.pose_ok)),
        figure("position mm median", lambda s: s.position_median, "", 1.0, 2)])
