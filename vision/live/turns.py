"""Turn each confirmed change of the table into what the game's referee says about it.

WarpShips: the change is a launch or a fly (`rule_move`); the moved ship then fires
(`rule_beam`); a valid target asks the players for a die roll. Ships that a teleport
removed are expected to leave the table and are not a move. A change that no legal
reading explains (two ships moved, a ship vanished) is *uncertain*: the players are
asked, the referee does not rule on it.

Each ruling is a JSON-ready dict: `id`, `kind` (move | beam | roll | uncertain),
`summary` (one line for the card), `ruling` (the referee's own JSON, as the contract
prints it), `margin` (mm), `too_close_to_call`, `advisory` (shadow mode) and `status`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from domain import InputError, TableState

# The detector's stated position error, mm: a ruling within this of flipping is "too close to call".
DEFAULT_UNCERTAINTY_MM = 2.0

def new_ruling(kind: str, summary: str, ruling: dict[str, Any] | None = None, *, margin: float | None = None,
               too_close: bool = False, advisory: bool = False, **extra: Any) -> dict[str, Any]:
    return {"id": "r" + uuid.uuid4().hex[:10], "kind": kind, "summary": summary, "ruling": ruling or {},
            "margin": None if margin is None else round(float(margin), 2), "too_close_to_call": bool(too_close),
            "advisory": advisory, "status": "open", **extra}


def vanished(before: TableState, after: TableState) -> set[str]:
    return {p.id for p in before.pieces} - {p.id for p in after.pieces}


@dataclass
class WarpShipsReferee:
    """Rules each confirmed change of a WarpShips table; `shadow` marks every ruling advisory."""

    rule_move: Callable[..., Any]
    rule_beam: Callable[..., Any]
    shadow: bool = False
    uncertainty_mm: float = DEFAULT_UNCERTAINTY_MM
    expected_removals: set[str] = field(default_factory=set)
    pending_roll: dict[str, Any] | None = None

    @classmethod
    def real(cls, **kw: Any) -> "WarpShipsReferee":
        from referee.warpships import rule_beam, rule_move
        return cls(rule_move, rule_beam, **kw)

    def on_change(self, before: TableState, after: TableState) -> list[dict[str, Any]]:
        gone = vanished(before, after)
        appeared = {p.id for p in after.pieces} - {p.id for p in before.pieces}
        if gone and gone <= self.expected_removals and not appeared and self._unmoved_except(before, after, gone):
            self.expected_removals -= gone
            return []  # the teleported ships were taken off the table, as the roll said
        try:
            move = self.rule_move(before, after, uncertainty_mm=self.uncertainty_mm)
        except InputError as e:
            return [self._uncertain(f"I cannot tell what happened: {e}")]
        m = move.to_dict()
        rulings = [new_ruling("move", _move_summary(m), m, margin=m.get("margin"),
                              too_close=move.too_close_to_call, advisory=self.shadow)]
        if not m.get("legal") and not move.too_close_to_call:
            return rulings
        try:
            beam = self.rule_beam(after, m["ship"], uncertainty_mm=self.uncertainty_mm)
        except (InputError, KeyError) as e:
            return rulings + [self._uncertain(f"cannot trace the beam of {m.get('ship')}: {e}")]
        b = beam.to_dict()
        rulings.append(new_ruling("beam", _beam_summary(b), b, margin=b.get("clearance"),
                                  too_close=beam.too_close_to_call, advisory=self.shadow))
        if b.get("valid"):
            ship, target = after.piece(b["ship"]), after.piece(b["target"])
            self.pending_roll = {"ship": ship.id, "ship_size": ship.size.value, "target": target.id,
                                 "target_size": target.size.value}
            rulings.append(new_ruling("roll", f"roll the die: {ship.size.value} {ship.color.value} {ship.id} "
                                      f"fires at {target.size.value} {target.color.value} {target.id}",
                                      dict(self.pending_roll), advisory=self.shadow))
        return rulings

    def _uncertain(self, why: str) -> dict[str, Any]:
        return new_ruling("uncertain", why + " — please check the table and confirm or correct.",
                          advisory=True)

    @staticmethod
    def _unmoved_except(before: TableState, after: TableState, gone: set[str]) -> bool:
        from vision.live.tracking import same_table
        kept = TableState(tuple(p for p in before.pieces if p.id not in gone))
        return same_table(kept, TableState(after.pieces))


def _move_summary(m: dict[str, Any]) -> str:
    verdict = "legal" if m.get("legal") else "ILLEGAL"
    return f"{m.get('kind', 'move')} of {m.get('ship')}: {verdict} — {m.get('reason', '')}".rstrip(" —")


def _beam_summary(b: dict[str, Any]) -> str:
    if b.get("target") is None:
        return f"{b.get('ship')} fires at nothing — {b.get('reason', '')}".rstrip(" —")
    verdict = "valid target" if b.get("valid") else "not a valid target"
    return f"{b.get('ship')} fires at {b.get('target')}: {verdict} — {b.get('reason', '')}".rstrip(" —")
