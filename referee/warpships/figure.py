"""What a drawing of a ruling shows, as plain shapes in table mm (no pixels, no OpenCV).

The CLI renders a Figure with OpenCV (cli/warpships_drawing.py); the dashboard can draw
the same dict as SVG. Roles say what a shape means: "piece", "ghost" (where a moved ship
was), "warp", "beam", "band" (the beam's sideways clearance), "turn" (the beam turned by
its angular clearance), "contact", "blocker", "gap" (a landing's shortfall).

>>> from domain import Piece, TableState
>>> from referee.warpships import rule_beam
>>> st = TableState((Piece.flat_from_nose("p2", "red", "small", (40.0, 0.0), 0.0),
...                  Piece.upright("p7", "green", "large", (112.7, 0.0))))
>>> f = beam_figure(st, rule_beam(st, "p2"))
>>> [s["role"] for s in f.shapes]
['piece', 'piece', 'band', 'turn', 'turn', 'beam', 'contact']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from domain import Piece, TableState
from referee import geometry as g
from referee.warpships.beam import BeamRuling
from referee.warpships.move import MoveRuling

# How far past the first contact (or, with no target, past the nose) the beam is drawn.
BEAM_OVERSHOOT_MM = 40.0
NO_TARGET_BEAM_MM = 400.0


@dataclass
class Figure:
    """Shapes (dicts with "kind": polygon | circle | line | point, and a "role") and a caption."""

    shapes: list[dict[str, Any]] = field(default_factory=list)
    caption: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"shapes": self.shapes, "caption": self.caption}

    def add_piece(self, p: Piece, role: str = "piece") -> None:
        self.shapes.append({"kind": "polygon", "role": role, "points": [list(v) for v in p.footprint()],
                            "color": p.color.value, "label": p.id})


def beam_figure(state: TableState, r: BeamRuling) -> Figure:
    f = Figure()
    for p in state.pieces:
        f.add_piece(p)
    reach = (r.distance + BEAM_OVERSHOOT_MM) if r.distance is not None else NO_TARGET_BEAM_MM
    end = g.add(r.nose, r.direction, reach)
    if r.clear_plus is not None or r.clear_minus is not None:
        n = g.perp(r.direction)
        plus = min(r.clear_plus if r.clear_plus is not None else 0.0, reach)
        minus = min(r.clear_minus if r.clear_minus is not None else 0.0, reach)
        band = [g.add(r.nose, n, plus), g.add(end, n, plus), g.add(end, n, -minus), g.add(r.nose, n, -minus)]
        f.shapes.append({"kind": "polygon", "role": "band", "points": [list(v) for v in band]})
    for side in (1, -1):  # the beam turned as far as it may go about the nose
        f.shapes.append({"kind": "line", "role": "turn", "a": list(r.nose),
                         "b": list(g.add(r.nose, g.unit(g.heading_of(r.direction) + side * r.turn), reach))})
    f.shapes.append({"kind": "line", "role": "beam", "a": list(r.nose), "b": list(end)})
    if r.contact is not None:
        f.shapes.append({"kind": "point", "role": "contact", "p": list(r.contact)})
    f.caption = [f"{r.ship} -> {r.target or 'nothing'}: {r.reason}",
                 _join(r.distance, "contact"), _join(r.clearance, "clearance (sideways)"),
                 f"turn {r.turn:.1f} deg about the nose", f"call: {r.call}"]
    f.caption = [c for c in f.caption if c]
    return f


def move_figure(before: TableState, after: TableState, r: MoveRuling) -> Figure:
    f = Figure()
    moved = before.piece(r.ship_before)
    f.add_piece(moved, "ghost")
    for p in after.pieces:
        f.add_piece(p, "blocker" if p.id == r.blocker else "piece")
    if r.closest_warp_center is not None:
        f.shapes.append({"kind": "circle", "role": "warp", "center": list(r.closest_warp_center),
                         "radius": r.warp_radius, "legal": r.legal})
        if not r.legal:
            tail = after.piece(r.ship).tail
            c = r.closest_warp_center
            d = math.dist(c, tail)
            if d > r.warp_radius:  # the shortfall between the warp's rim and the new tail
                rim = g.add(c, g.sub(tail, c), r.warp_radius / d)
                f.shapes.append({"kind": "line", "role": "gap", "a": list(rim), "b": list(tail)})
    f.caption = [f"{r.kind} of {r.ship_before} -> {r.ship}: {'LEGAL' if r.legal else 'ILLEGAL'}",
                 r.reason, _join(r.margin, "margin"), f"call: {r.call}"]
    f.caption = [c for c in f.caption if c]
    return f


def _join(v: float | None, what: str) -> str:
    return "" if v is None else f"{what} {v:.1f} mm"
