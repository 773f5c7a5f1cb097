"""What the top-down SVG map draws: footprints, the latest beam and warp disc, the markers."""

from __future__ import annotations

import math
from typing import Any, Sequence

from calibration.markers import MarkerLayout
from domain import Pose, TableState
from vision.confidence import UNSURE_BELOW

# Margin drawn around the markers' extent, mm: pieces are played just outside them too.
MAP_MARGIN_MM = 40.0
# A beam that meets nothing is drawn this far, mm (beyond the table).
OPEN_BEAM_MM = 900.0


def _r(v: float) -> float:
    return round(float(v), 1)


def bounds(layout: MarkerLayout) -> list[float]:
    xs = [c[0] for m in layout.markers for c in m.corners()]
    ys = [c[1] for m in layout.markers for c in m.corners()]
    return [_r(min(xs) - MAP_MARGIN_MM), _r(min(ys) - MAP_MARGIN_MM),
            _r(max(xs) - min(xs) + 2 * MAP_MARGIN_MM), _r(max(ys) - min(ys) + 2 * MAP_MARGIN_MM)]


def table_map(table: TableState, rulings: Sequence[dict[str, Any]], layout: MarkerLayout) -> dict[str, Any]:
    pieces = []
    for p in table.pieces:
        item = {"id": p.id, "color": p.color.value, "size": p.size.value, "pose": p.pose.value,
                "footprint": [[_r(x), _r(y)] for x, y in p.footprint()],
                "label": [_r(v) for v in (p.center if p.pose is Pose.UPRIGHT else p.tail)],
                "stack": [s.value for s in p.stack],
                "confidence": round(p.confidence, 2), "unsure": p.confidence < UNSURE_BELOW}
        if p.pose is Pose.FLAT:
            item["nose"] = [_r(v) for v in p.nose]
        pieces.append(item)
    return {"viewbox": bounds(layout),
            "markers": [{"id": m.id, "corners": [[_r(x), _r(y)] for x, y in m.corners()]} for m in layout.markers],
            "pieces": pieces, "beam": latest_beam(table, rulings), "warp": latest_warp(table, rulings)}


def latest_beam(table: TableState, rulings: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    r = next((r for r in reversed(rulings) if r.get("kind") == "beam"), None)
    if r is None:
        return None
    b = r["ruling"]
    try:
        ship = table.piece(b["ship"])
    except KeyError:
        return None  # the ship has left the table since
    if ship.pose is not Pose.FLAT:
        return None
    length = b.get("distance") if b.get("target") is not None and b.get("distance") is not None else OPEN_BEAM_MM
    dx, dy = math.cos(math.radians(ship.heading)), math.sin(math.radians(ship.heading))
    nx, ny = ship.nose
    return {"ship": ship.id, "target": b.get("target"), "valid": bool(b.get("valid")),
            "from": [_r(nx), _r(ny)], "to": [_r(nx + dx * length), _r(ny + dy * length)],
            "too_close_to_call": bool(r.get("too_close_to_call"))}


def latest_warp(table: TableState, rulings: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    r = next((r for r in reversed(rulings) if r.get("kind") == "move"), None)
    if r is None or not r["ruling"].get("warp_center"):
        return None
    cx, cy = r["ruling"]["warp_center"]
    return {"center": [_r(cx), _r(cy)], "radius": _r(table.warp_diameter / 2), "legal": bool(r["ruling"].get("legal"))}
