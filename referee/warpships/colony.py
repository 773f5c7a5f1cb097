"""Colonies and how a WarpShips game ends.

>>> red_trio = [("red", "small"), ("red", "medium"), ("red", "large")]
>>> complete(red_trio * 2), complete(red_trio)
('twin cities', None)
>>> complete([(c, "small") for c in GAME_COLOURS] * 2)
'diverse community'
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from domain import Size

GAME_COLOURS = ("red", "yellow", "green", "blue")
TRIOS_NEEDED = 2  # twin cities: two complete monochrome trios
EACH_COLOUR_NEEDED = 2  # diverse community: two ships of every colour

Ship = tuple[str, str]  # (colour, size) as plain strings


def trios(ships: Iterable[Ship]) -> int:
    """How many complete monochrome trios (S, M, L of one colour) the ships make."""
    c = Counter(ships)
    return sum(min(c[(col, s.value)] for s in Size) for col in {col for col, _ in c})


def complete(ships: Iterable[Ship]) -> str | None:
    """The win condition a colony fulfils, or None."""
    ships = list(ships)
    if trios(ships) >= TRIOS_NEEDED:
        return "twin cities"
    per = Counter(col for col, _ in ships)
    if all(per[col] >= EACH_COLOUR_NEEDED for col in GAME_COLOURS):
        return "diverse community"
    return None


def can_still_complete(colony: Iterable[Ship], available: Iterable[Ship]) -> bool:
    """Whether the colony plus every ship still on the table could fulfil a win condition."""
    return complete(list(colony) + list(available)) is not None


def population_divided(colonies: dict[str, list[Ship]], on_table: list[Ship]) -> bool:
    """No player can still complete a colony from what they hold plus what is left.

    >>> population_divided({"a": [("red", "small")], "b": []}, [("blue", "large")])
    True
    """
    return not any(can_still_complete(c, on_table) for c in colonies.values())


def greatest(colonies: dict[str, list[Ship]]) -> list[str]:
    """The players with the most ships (several on a tie)."""
    top = max(len(c) for c in colonies.values())
    return [p for p, c in colonies.items() if len(c) == top]
