"""Debouncing and piece identities across frames.

A detection counts only after `AGREEING_FRAMES` readings in a row agree (same pieces,
each within `POSITION_TOLERANCE_MM`); the tracker then carries piece ids over from the
last confirmed table by matching colour and size exactly and position as closely as
possible (a Hungarian assignment), so a ship keeps its id when it is launched or flown
and a player's correction of a misread piece sticks to that piece.

>>> from domain import Piece, TableState
>>> a = TableState((Piece.upright("x", "red", "large", (100, 100)),))
>>> b = TableState((Piece.upright("p9", "red", "large", (101, 99)),))
>>> same_table(a, b)
True
>>> Tracker(a).adopt(b).pieces[0].id
'x'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment
from shapely.geometry import Polygon

from domain import Color, Piece, Pose, Size, TableState, angle_between

# Two readings of a piece that has not moved differ by detector noise (~1-2 mm); a
# nudge of more than this is a real change of the table.
POSITION_TOLERANCE_MM = 5.0
# Same for a flat ship's heading, degrees; a beam 100 mm long swings 17 mm per 10°.
HEADING_TOLERANCE_DEG = 6.0
# Readings in a row that must agree before a table counts.
AGREEING_FRAMES = 2
# Matching cost added when a piece changed pose (a launch): prefers keeping poses.
POSE_CHANGE_COST_MM = 50.0
# Pieces of the same colour and size farther apart than this are different pieces.
MAX_TRACK_DISTANCE_MM = 600.0
# Share of the smaller footprint a reading in the other pose must cover to be the same
# piece misread (real pieces never overlap on the table).
FLIPPED_OVERLAP = 0.5
_IMPOSSIBLE = 1e9


def _cost(a: Piece, b: Piece) -> float:
    if a.color is not b.color or a.size is not b.size:
        return _IMPOSSIBLE
    d = math.dist(_anchor(a), _anchor(b))
    if d > MAX_TRACK_DISTANCE_MM:
        return _IMPOSSIBLE
    return d + (POSE_CHANGE_COST_MM if a.pose is not b.pose else 0.0)


def _anchor(p: Piece) -> tuple[float, float]:
    """The middle of the footprint: comparable between upright and flat."""
    pts = p.footprint()
    return (sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts))


def match(old: Sequence[Piece], new: Sequence[Piece]) -> list[tuple[int, int]]:
    """Pairs (i_old, j_new) of the same piece; unmatched pieces appear in no pair."""
    if not old or not new:
        return []
    cost = np.array([[_cost(a, b) for b in new] for a in old])
    rows, cols = linear_sum_assignment(cost)
    return [(int(i), int(j)) for i, j in zip(rows, cols) if cost[i, j] < _IMPOSSIBLE]


def same_piece_place(a: Piece, b: Piece) -> bool:
    """Has the piece stayed put (pose, place, heading and nest) between two readings?"""
    if a.pose is not b.pose or math.dist(_anchor(a), _anchor(b)) > POSITION_TOLERANCE_MM:
        return False
    if a.pose is Pose.FLAT:
        return angle_between(a.heading, b.heading) <= HEADING_TOLERANCE_DEG
    return (a.stack or (a.size,)) == (b.stack or (b.size,))


def same_table(a: TableState, b: TableState) -> bool:
    """Do two readings show the same pieces in the same places?"""
    if len(a.pieces) != len(b.pieces):
        return False
    pairs = match(a.pieces, b.pieces)
    return len(pairs) == len(a.pieces) and all(same_piece_place(a.pieces[i], b.pieces[j]) for i, j in pairs)


def same_places(a: TableState, b: TableState, nest_sizes: bool = False) -> bool:
    """Do two tables have pieces in the same places and poses, whatever their colours and sizes
    were read as (but, with `nest_sizes`, upright pieces of the same size)?"""
    if len(a.pieces) != len(b.pieces):
        return False
    left = list(b.pieces)
    for p in a.pieces:
        q = next((q for q in left if _same_spot(p, q)
                  and not (nest_sizes and p.pose is Pose.UPRIGHT and p.size is not q.size)), None)
        if q is None:
            return False
        left.remove(q)
    return True


def only_taken_off(before: TableState, after: TableState) -> bool:
    """Did pieces only leave the table (or nests lose ships) between the two readings?"""
    left = list(before.pieces)
    for p in after.pieces:
        q = next((q for q in left if _same_spot(q, p)), None)
        if q is None:
            return False
        left.remove(q)
    return True


class Debouncer:
    """Confirms a reading once `k` readings in a row agree; each run confirms once."""

    def __init__(self, k: int = AGREEING_FRAMES):
        self.k = k
        self._run: list[TableState] = []
        self._confirmed_run = False

    def push(self, state: TableState) -> TableState | None:
        if self._run and not same_table(self._run[-1], state):
            self._run, self._confirmed_run = [], False
        self._run.append(state)
        if len(self._run) >= self.k and not self._confirmed_run:
            self._confirmed_run = True
            return state
        return None

    def reset(self) -> None:
        self._run, self._confirmed_run = [], False


@dataclass
class Correction:
    """A player's fix of a misread piece: what the detector keeps seeing → what it is."""

    seen_color: Color
    seen_size: Size
    color: Color
    size: Size


@dataclass
class Tracker:
    """The confirmed table with stable ids, and the players' corrections of misreads."""

    confirmed: TableState = field(default_factory=TableState)
    corrections: dict[str, Correction] = field(default_factory=dict)
    _next_id: int = 1

    def __post_init__(self) -> None:
        self._bump(self.confirmed.pieces)

    def _bump(self, pieces: Sequence[Piece]) -> None:
        for p in pieces:
            if p.id.startswith("p") and p.id[1:].isdigit():
                self._next_id = max(self._next_id, int(p.id[1:]) + 1)

    def _as_seen(self, p: Piece) -> Piece:
        c = self.corrections.get(p.id)
        return replace(p, color=c.seen_color, size=c.seen_size) if c else p

    def adopt(self, reading: TableState) -> TableState:
        """`reading` with ids carried over from the confirmed table and corrections applied."""
        old = [self._as_seen(p) for p in self.confirmed.pieces]
        ids: dict[int, str] = {j: old[i].id for i, j in match(old, reading.pieces)}
        kept = self._reread(old, reading.pieces, ids)
        pieces, fresh = [], self._next_id  # new ids are only taken for good by confirm()
        by_id = {q.id: q for q in old}
        for j, p in enumerate(reading.pieces):
            pid = ids.get(j)
            if j in kept:
                pid, p = kept[j]
            elif pid is not None and _flipped_in_place(by_id[pid], p):
                p = by_id[pid]  # a pose misread: the piece stays as confirmed
            if pid is None:
                pid, fresh = f"p{fresh}", fresh + 1
            c = self.corrections.get(pid)
            pieces.append(replace(p, id=pid, color=c.color, size=c.size,
                                  stack=_restack(p.stack, c.size)) if c else replace(p, id=pid))
        return replace(reading, pieces=tuple(pieces))

    @staticmethod
    def _reread(old: list[Piece], new: Sequence[Piece], ids: dict[int, str]) -> dict[int, tuple[str, Piece]]:
        """Pieces left unmatched that lie where an unmatched old piece lay, same pose: the same
        piece read differently. Plastic does not change colour, and a flat ship does not change
        size, so those stay as confirmed; an upright nest takes the new size (it is smaller
        once its top ship is launched)."""
        taken = set(ids.values())
        free_old = [p for p in old if p.id not in taken]
        out: dict[int, tuple[str, Piece]] = {}
        for j, p in enumerate(new):
            if j in ids:
                continue
            near = [q for q in free_old if _same_spot(q, p) or _flipped_in_place(q, p)]
            if near:
                q = min(near, key=lambda q: math.dist(_anchor(q), _anchor(p)))
                free_old.remove(q)
                if q.pose is not p.pose:
                    out[j] = (q.id, q)  # a pose misread: the piece stays as confirmed
                else:
                    out[j] = (q.id, replace(p, color=q.color) if p.pose is Pose.UPRIGHT else _resized(p, q))
        return out

    def confirm(self, state: TableState) -> None:
        self.confirmed = state
        self._bump(state.pieces)
        live = {p.id for p in state.pieces}
        self.corrections = {k: v for k, v in self.corrections.items() if k in live}

    def correct(self, pid: str, changes: dict[str, Any]) -> TableState:
        """Fix a misread piece (colour, size, pose...) of the confirmed table; returns the new table."""
        piece = self.confirmed.piece(pid)
        fixed = Piece.from_dict({**piece.to_dict(), **changes, "id": pid, "confidence": 1.0,   # a player's word
                                 **({"stack": [changes["size"]]} if "size" in changes else {})})
        seen = self._as_seen(piece)
        self.corrections[pid] = Correction(seen.color, seen.size, fixed.color, fixed.size)
        self.confirmed = self.confirmed.with_piece(fixed)
        return self.confirmed


def _same_spot(old: Piece, new: Piece) -> bool:
    """Could `new` be `old` misread (another colour or size), lying where it lay?"""
    if old.pose is not new.pose:
        return False
    if old.pose is Pose.UPRIGHT:
        return math.dist(old.center, new.center) <= POSITION_TOLERANCE_MM  # type: ignore[arg-type]
    return (math.dist(old.tail, new.tail) <= POSITION_TOLERANCE_MM  # type: ignore[arg-type]
            and angle_between(old.heading, new.heading) <= HEADING_TOLERANCE_DEG)


def _flipped_in_place(old: Piece, new: Piece) -> bool:
    """A reading in the other pose lying mostly on the old piece's footprint: no piece can lie
    on top of another, so it is the old piece misread (a nest taken for a flat ship)."""
    if old.pose is new.pose:
        return False
    a, b = Polygon(old.footprint()), Polygon(new.footprint())
    return a.intersection(b).area >= FLIPPED_OVERLAP * min(a.area, b.area)


def _resized(new: Piece, old: Piece) -> Piece:
    """A flat reading `new` given the confirmed colour and size of `old` (same tail and heading)."""
    return Piece.flat(new.id, old.color, old.size, new.tail, new.heading, new.confidence)  # type: ignore[arg-type]


def _restack(stack: tuple[Size, ...], outer: Size) -> tuple[Size, ...]:
    if not stack:
        return ()
    return (outer,) + tuple(s for s in stack[1:] if s.pips < outer.pips)
