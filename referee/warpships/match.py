"""Which ship moved between two table states (ids need not match).

Pieces are paired by colour, size and place: upright nests by their centre (a launch
leaves the nest's next smaller ship at the same place, or nothing when it was a single
ship), flat ships by the cheapest assignment of tail and nose positions. Exactly one ship
must have moved; anything else is a contradiction, never a guess.

>>> from domain import Piece, TableState
>>> before = TableState((Piece.upright("n1", "red", "large", (0, 0), stack=["large", "medium"]),))
>>> after = TableState((Piece.upright("n1", "red", "medium", (0.5, 0), stack=["medium"]),
...                     Piece.flat("s9", "red", "large", (0, 70), 90)))
>>> c = find_change(before, after)
>>> c.kind, c.before.id, c.after.id, c.nest_after.id
('launch', 'n1', 's9', 'n1')
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from domain import Piece, Pose, TableState
from referee.warpships.table import ContradictionError

# A piece whose position changed less than this between two states did not move: covers
# the detector's jitter (about 1 mm) with room; a legal fly moves a nose or tail by at
# least a small ship's length (26 mm), a launch takes the ship off its nest.
STILL_TOLERANCE_MM = 6.0

# Largest group of same-looking pieces paired by trying every assignment (7! = 5040);
# bigger groups (never in WarpShips: 3 of each colour and size) are paired greedily.
EXACT_ASSIGNMENT_MAX = 7


@dataclass(frozen=True)
class Change:
    """The one move between two states."""

    kind: str  # "launch" or "fly"
    before: Piece  # the nest launched from, or the flat ship before it flew
    after: Piece  # the flat ship where it landed
    nest_after: Piece | None = None  # what is left of the nest (launch), if anything


def _flat_cost(a: Piece, b: Piece) -> float:
    return max(math.dist(a.tail, b.tail), math.dist(a.nose, b.nose))  # type: ignore[arg-type]


def _upright_cost(a: Piece, b: Piece) -> float:
    return math.dist(a.center, b.center)  # type: ignore[arg-type]


def assign(olds: list[Piece], news: list[Piece], cost) -> list[tuple[Piece, Piece]]:
    """Pair every old piece with a distinct new one (len(news) >= len(olds)), cheapest total."""
    if not olds:
        return []
    # Pieces that stayed put pair with themselves at once; only the rest need a search.
    nearest_new = {id(o): min(news, key=lambda m: cost(o, m)) for o in olds}
    nearest_old = {id(n): min(olds, key=lambda m: cost(m, n)) for n in news}
    still = [(o, n) for o in olds if (n := nearest_new[id(o)]) is not None
             and nearest_old[id(n)] is o and cost(o, n) <= STILL_TOLERANCE_MM]
    if still:
        rest = assign([o for o in olds if all(o is not s[0] for s in still)],
                      [n for n in news if all(n is not s[1] for s in still)], cost)
        return still + rest
    if len(news) <= EXACT_ASSIGNMENT_MAX:
        best = min(itertools.permutations(range(len(news)), len(olds)),
                   key=lambda perm: sum(cost(o, news[j]) for o, j in zip(olds, perm)))
        return [(o, news[j]) for o, j in zip(olds, best)]
    pairs, free = [], list(news)
    for o, n in sorted(((o, n) for o in olds for n in news), key=lambda on: cost(*on)):
        if n in free and o not in [p[0] for p in pairs]:
            pairs.append((o, n))
            free.remove(n)
    return pairs


def _group(pieces, key) -> dict:
    out: dict = {}
    for p in pieces:
        out.setdefault(key(p), []).append(p)
    return out


def _nest_changes(before: TableState, after: TableState) -> list[tuple[Piece, Piece | None]]:
    """Nests that lost their outermost ship: (nest before, what is left or None)."""
    bu = _group([p for p in before.pieces if p.pose is Pose.UPRIGHT], lambda p: p.color)
    au = _group([p for p in after.pieces if p.pose is Pose.UPRIGHT], lambda p: p.color)
    launched = []
    for colour in set(bu) | set(au):
        olds, news = bu.get(colour, []), au.get(colour, [])
        if len(news) > len(olds):
            raise ContradictionError(f"more upright {colour.value} nests after the move than before: "
                                     "ships leave nests, they never stand up again")
        paired = {id(o): n for n, o in assign(news, olds, _upright_cost)}
        for old in olds:
            new = paired.get(id(old))
            if new is not None and _upright_cost(old, new) > STILL_TOLERANCE_MM:
                raise ContradictionError(f"nest {old.id} was moved by {_upright_cost(old, new):.0f} mm: "
                                         "upright nests only lose their outermost ship")
            if new is None:
                if len(old.stack) > 1:
                    raise ContradictionError(f"nest {old.id} ({len(old.stack)} ships) vanished: "
                                             "a launch takes only its outermost ship")
                launched.append((old, None))
            elif new.size is not old.size:
                _check_nest_shrank(old, new)
                launched.append((old, new))
    return launched


def _check_nest_shrank(old: Piece, new: Piece) -> None:
    if new.size.pips > old.size.pips:
        raise ContradictionError(f"nest {old.id} grew from {old.size.value} to {new.size.value}")
    if old.stack and (len(old.stack) < 2 or old.stack[1] is not new.size
                      or (new.stack and new.stack != old.stack[1:])):
        inner = [s.value for s in old.stack[1:]] or "nothing"
        raise ContradictionError(f"nest {old.id} held {inner} under its {old.size.value} ship, "
                                 f"but a {new.size.value} one is left")


def find_change(before: TableState, after: TableState) -> Change:
    """The single launch or fly that turns `before` into `after` (ContradictionError if none)."""
    launched = _nest_changes(before, after)
    launched_kinds = [(old.color, old.size) for old, _ in launched]
    bf = _group([p for p in before.pieces if p.pose is Pose.FLAT], lambda p: (p.color, p.size))
    af = _group([p for p in after.pieces if p.pose is Pose.FLAT], lambda p: (p.color, p.size))
    flown, arrived = [], []
    for key in set(bf) | set(af) | set(launched_kinds):
        olds, news = bf.get(key, []), af.get(key, [])
        extra, expected = len(news) - len(olds), launched_kinds.count(key)
        if extra != expected:
            what = f"{key[0].value} {key[1].value} flat ship"
            if extra > expected:
                raise ContradictionError(f"a {what} appeared without being launched from a nest")
            if extra < 0:
                raise ContradictionError(f"a {what} vanished without a teleport")
            nests = ", ".join(old.id for old, _ in launched if (old.color, old.size) == key)
            raise ContradictionError(f"nest {nests} lost its outermost ship, but no {what} "
                                     "appeared on the table (taken off by hand?)")
        pairs = assign(olds, news, _flat_cost)
        flown += [(o, n) for o, n in pairs if _flat_cost(o, n) > STILL_TOLERANCE_MM]
        used = {id(n) for _, n in pairs}
        arrived += [n for n in news if id(n) not in used]
    moves = len(launched) + len(flown)
    if moves == 0:
        raise ContradictionError("no ship moved between the two states")
    if moves > 1:
        names = sorted([o.id for o, _ in launched] + [o.id for o, _ in flown])
        raise ContradictionError(f"more than one ship moved ({', '.join(names)}): rule one move at a time")
    if launched:
        nest, left = launched[0]
        return Change("launch", nest, arrived[0], left)
    old, new = flown[0]
    return Change("fly", old, new)
