"""Domain types shared by every layer: colours, sizes, poses, pieces, coins, table state.

Everything here is plain Python (no numpy, OpenCV, shapely or Flask) so that
calibration, vision, referee and server can all import it. Units are table
millimetres; angles are degrees in [0, 360) measured from +x towards +y
(x to the right, y downwards, as in a top-down picture).

>>> p = Piece.from_dict({"id": "p2", "color": "blue", "size": "small", "pose": "flat",
...                      "tail": [400.0, 300.0], "heading": 90.0})
>>> [round(v, 1) for v in p.nose]
[400.0, 326.4]
>>> TableState.from_dict({"pieces": [p.to_dict()]}).piece("p2").size.pips
1
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Iterable, Sequence

Point = tuple[float, float]

# How far a flat piece's given nose may sit from where its tail, heading and size put it
# before the file is called contradictory: covers a detector's stated error with room.
FLAT_NOSE_TOLERANCE_MM = 6.0


class InputError(ValueError):
    """Bad input from a user or a file: the message is the one-line reason shown to them.

    Every layer raises a subclass of this for input it refuses; the CLI prints it and
    exits non-zero, the server answers 4xx with it.
    """


def read_json_file(path: str, what: str, error: type[InputError] = InputError) -> Any:
    """Parse the JSON file at `path`; any failure is `error` with a one-line reason naming `what`."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise error(f"cannot read {what} {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise error(f"{what} {path} is not a UTF-8 text file") from None
    except json.JSONDecodeError as e:
        raise error(f"{what} {path} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None


class StateError(InputError):
    """A table-state file or dict that cannot be trusted: say why in one line."""


class Color(str, Enum):
    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"
    BLACK = "black"
    PURPLE = "purple"
    CLEAR = "clear"
    ORANGE = "orange"
    CYAN = "cyan"
    WHITE = "white"

    @property
    def translucent(self) -> bool:
        """Black and white plastic is opaque; every other colour lets the table show through."""
        return self not in (Color.BLACK, Color.WHITE)


@dataclass(frozen=True)
class SizeSpec:
    pips: int
    base_mm: float
    height_mm: float


# ../shared/facts.md, from the looneypyramids.wiki "Piece" page.
_SIZE_SPECS = {
    "small": SizeSpec(1, 14.29, 25.40),
    "medium": SizeSpec(2, 19.84, 34.93),
    "large": SizeSpec(3, 25.40, 44.45),
}


class Size(str, Enum):
    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"

    @property
    def pips(self) -> int:
        return _SIZE_SPECS[self.value].pips

    @property
    def base(self) -> float:
        """Side of the base square, mm."""
        return _SIZE_SPECS[self.value].base_mm

    @property
    def height(self) -> float:
        """Apex height of an upright piece, mm."""
        return _SIZE_SPECS[self.value].height_mm

    @property
    def slant(self) -> float:
        """Face slant height: distance from the middle of a base edge to the apex, mm.

        >>> round(Size.LARGE.slant, 1)
        46.2
        """
        return math.hypot(self.height, self.base / 2)

    @property
    def face_angle(self) -> float:
        """Angle between a face and the base, radians: atan(2·height/base)."""
        return math.atan2(2 * self.height, self.base)

    @property
    def flat_raised_offset(self) -> float:
        """Lying flat, how far the two raised base corners stand in front of the tail edge, mm."""
        return self.base * math.cos(self.face_angle)

    @property
    def flat_raised_height(self) -> float:
        """Lying flat, how high the two raised base corners are above the table, mm."""
        return self.base * math.sin(self.face_angle)

    @classmethod
    def from_pips(cls, pips: int) -> "Size":
        return {1: cls.SMALL, 2: cls.MEDIUM, 3: cls.LARGE}[pips]


class Pose(str, Enum):
    UPRIGHT = "upright"
    FLAT = "flat"


class CoinKind(str, Enum):
    PENNY = "penny"
    NICKEL = "nickel"

    @property
    def diameter(self) -> float:
        return {"penny": 19.05, "nickel": 21.21}[self.value]

    @property
    def thickness(self) -> float:
        """mm (the US Mint's figures): a camera sees the top face this far up."""
        return {"penny": 1.52, "nickel": 1.95}[self.value]


def norm_angle(deg: float, period: float = 360.0) -> float:
    """Fold an angle into [0, period).

    >>> norm_angle(-90), norm_angle(365), norm_angle(95, 90)
    (270.0, 5.0, 5.0)
    """
    a = math.fmod(float(deg), period)
    if a < 0:
        a += period
    return 0.0 if a >= period else a


def angle_between(a: float, b: float, period: float = 360.0) -> float:
    """Smallest absolute difference of two angles, degrees (within `period`).

    >>> angle_between(359, 1), angle_between(5, 85, 90)
    (2.0, 10.0)
    """
    d = norm_angle(a - b, period)
    return min(d, period - d)


def _unit(deg: float) -> Point:
    r = math.radians(deg)
    return (math.cos(r), math.sin(r))


@dataclass(frozen=True)
class Piece:
    """One pyramid (or the outermost of an upright nest) on the table.

    Upright: `center` and `rotation` (direction of one base edge, modulo 90).
    Flat: `tail` (middle of the base edge on the table), `nose` (apex) and `heading`.
    """

    id: str
    color: Color
    size: Size
    pose: Pose
    center: Point | None = None
    rotation: float = 0.0
    tail: Point | None = None
    nose: Point | None = None
    heading: float = 0.0
    confidence: float = 1.0
    stack: tuple[Size, ...] = ()

    @property
    def position(self) -> Point:
        """Where the piece is: the base centre when upright, the nose when flat."""
        return self.center if self.pose is Pose.UPRIGHT else self.nose  # type: ignore[return-value]

    @property
    def direction(self) -> Point:
        """Unit vector of the heading (flat pieces)."""
        return _unit(self.heading)

    def footprint(self) -> list[Point]:
        """Outline seen from above, counter-clockwise in screen terms, mm.

        Upright: the base square. Flat: the pentagon tail-left, tail-right,
        raised-right, nose, raised-left (../shared/facts.md).

        >>> [tuple(round(c, 2) for c in v) for v in Piece.upright("a", "red", "large", (0, 0)).footprint()]
        [(12.7, 12.7), (-12.7, 12.7), (-12.7, -12.7), (12.7, -12.7)]
        """
        half = self.size.base / 2
        if self.pose is Pose.UPRIGHT:
            ux, uy = _unit(self.rotation)
            vx, vy = -uy, ux
            cx, cy = self.center  # type: ignore[misc]
            return [(cx + sx * half * ux + sy * half * vx, cy + sx * half * uy + sy * half * vy)
                    for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1))]
        dx, dy = self.direction
        px, py = -dy, dx  # perpendicular to the heading
        tx, ty = self.tail  # type: ignore[misc]
        f = self.size.flat_raised_offset
        nx, ny = self.nose  # type: ignore[misc]
        return [
            (tx + half * px, ty + half * py),
            (tx - half * px, ty - half * py),
            (tx - half * px + f * dx, ty - half * py + f * dy),
            (nx, ny),
            (tx + half * px + f * dx, ty + half * py + f * dy),
        ]

    # -- construction ---------------------------------------------------------------
    @classmethod
    def upright(cls, id: str, color: Color | str, size: Size | str, center: Sequence[float],
                rotation: float = 0.0, confidence: float = 1.0,
                stack: Iterable[Size | str] = ()) -> "Piece":
        return cls(id=id, color=Color(color), size=Size(size), pose=Pose.UPRIGHT,
                   center=(float(center[0]), float(center[1])), rotation=norm_angle(rotation, 90),
                   confidence=float(confidence), stack=tuple(Size(s) for s in stack))

    @classmethod
    def flat(cls, id: str, color: Color | str, size: Size | str, tail: Sequence[float],
             heading: float, confidence: float = 1.0) -> "Piece":
        """A flat piece from its tail and heading; the nose follows from the size."""
        size = Size(size)
        heading = norm_angle(heading)
        ux, uy = _unit(heading)
        tail = (float(tail[0]), float(tail[1]))
        nose = (tail[0] + size.slant * ux, tail[1] + size.slant * uy)
        return cls(id=id, color=Color(color), size=size, pose=Pose.FLAT, tail=tail, nose=nose,
                   heading=heading, confidence=float(confidence))

    @classmethod
    def flat_from_nose(cls, id: str, color: Color | str, size: Size | str, nose: Sequence[float],
                       heading: float, confidence: float = 1.0) -> "Piece":
        size = Size(size)
        ux, uy = _unit(heading)
        tail = (float(nose[0]) - size.slant * ux, float(nose[1]) - size.slant * uy)
        return replace(cls.flat(id, color, size, tail, heading, confidence),
                       nose=(float(nose[0]), float(nose[1])))

    def moved(self, **changes: Any) -> "Piece":
        return replace(self, **changes)

    # -- JSON -----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "color": self.color.value, "size": self.size.value,
                             "pose": self.pose.value}
        if self.pose is Pose.UPRIGHT:
            d["center"] = [round(self.center[0], 2), round(self.center[1], 2)]  # type: ignore[index]
            d["rotation"] = round(self.rotation, 2)
        else:
            d["tail"] = [round(self.tail[0], 2), round(self.tail[1], 2)]  # type: ignore[index]
            d["nose"] = [round(self.nose[0], 2), round(self.nose[1], 2)]  # type: ignore[index]
            d["heading"] = round(self.heading, 2)
        d["confidence"] = round(self.confidence, 3)
        if self.stack:
            d["stack"] = [s.value for s in self.stack]
        return d

    @classmethod
    def from_dict(cls, d: Any) -> "Piece":
        if not isinstance(d, dict):
            raise StateError(f"a piece must be a JSON object, got {type(d).__name__}")
        pid = d.get("id")
        if not isinstance(pid, str) or not pid:
            raise StateError(f"piece {d!r:.60} has no string 'id'")
        color = _enum(Color, d, "color", pid)
        size = _enum(Size, d, "size", pid)
        pose = _enum(Pose, d, "pose", pid)
        conf = _number(d.get("confidence", 1.0), pid, "confidence")
        if pose is Pose.UPRIGHT:
            center = _point(d, "center", pid)
            stack = d.get("stack", [size.value])
            if not isinstance(stack, list) or not stack:
                raise StateError(f"piece {pid}: 'stack' must be a non-empty list of sizes")
            sizes = tuple(_enum(Size, {"stack": s}, "stack", pid) for s in stack)
            if sizes[0] is not size:
                raise StateError(f"piece {pid}: stack starts with {sizes[0].value} "
                                 f"but the outermost piece is {size.value}")
            if any(a.pips <= b.pips for a, b in zip(sizes, sizes[1:])):
                raise StateError(f"piece {pid}: a nest's sizes must shrink from outermost to innermost")
            return cls.upright(pid, color, size, center, _number(d.get("rotation", 0.0), pid, "rotation"),
                               conf, sizes if "stack" in d else ())
        return _flat_from_fields(pid, color, size, d, conf)


def _flat_from_fields(pid: str, color: Color, size: Size, d: dict, conf: float) -> Piece:
    has = {k for k in ("tail", "nose", "heading") if d.get(k) is not None}
    if "heading" in has:
        heading = _number(d["heading"], pid, "heading")
    elif has >= {"tail", "nose"}:
        t, n = _point(d, "tail", pid), _point(d, "nose", pid)
        heading = math.degrees(math.atan2(n[1] - t[1], n[0] - t[0]))
    else:
        raise StateError(f"piece {pid}: a flat piece needs 'heading' with 'tail' or 'nose' (or both points)")
    if "tail" in has:
        piece = Piece.flat(pid, color, size, _point(d, "tail", pid), heading, conf)
    elif "nose" in has:
        return Piece.flat_from_nose(pid, color, size, _point(d, "nose", pid), heading, conf)
    else:
        raise StateError(f"piece {pid}: a flat piece needs 'tail' or 'nose'")
    if "nose" in has:
        given = _point(d, "nose", pid)
        off = math.dist(given, piece.nose)  # type: ignore[arg-type]
        if off > FLAT_NOSE_TOLERANCE_MM:
            raise StateError(f"piece {pid}: nose {list(given)} is {off:.1f} mm from where tail, heading "
                             f"and size put it (a {size.value} piece is {size.slant:.1f} mm long)")
        piece = replace(piece, nose=given)
    return piece


@dataclass(frozen=True)
class Coin:
    id: str
    kind: CoinKind
    center: Point
    confidence: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind.value,
                "center": [round(self.center[0], 2), round(self.center[1], 2)],
                "confidence": round(self.confidence, 3)}

    @classmethod
    def from_dict(cls, d: Any) -> "Coin":
        if not isinstance(d, dict) or not isinstance(d.get("id"), str):
            raise StateError(f"a coin must be an object with a string 'id', got {d!r:.60}")
        return cls(d["id"], _enum(CoinKind, d, "kind", d["id"]), _point(d, "center", d["id"]),
                   _number(d.get("confidence", 1.0), d["id"], "confidence"))


DEFAULT_WARP_DIAMETER_MM = 101.6


@dataclass(frozen=True)
class TableState:
    """Everything on the table at one moment, in table mm."""

    pieces: tuple[Piece, ...] = ()
    coins: tuple[Coin, ...] = ()
    warp_diameter: float = DEFAULT_WARP_DIAMETER_MM
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def piece(self, pid: str) -> Piece:
        for p in self.pieces:
            if p.id == pid:
                return p
        raise KeyError(f"no piece with id {pid!r} on the table (ids: {', '.join(p.id for p in self.pieces)})")

    def without(self, pid: str) -> "TableState":
        return replace(self, pieces=tuple(p for p in self.pieces if p.id != pid))

    def with_piece(self, piece: Piece) -> "TableState":
        return replace(self, pieces=tuple(p for p in self.pieces if p.id != piece.id) + (piece,))

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"units": "mm", "pieces": [p.to_dict() for p in self.pieces],
                             "coins": [c.to_dict() for c in self.coins]}
        if self.warp_diameter != DEFAULT_WARP_DIAMETER_MM:
            d["warp_diameter"] = self.warp_diameter
        d.update(self.extra)
        return d

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_dict(cls, d: Any) -> "TableState":
        if not isinstance(d, dict):
            raise StateError("a table state must be a JSON object")
        if d.get("units", "mm") != "mm":
            raise StateError(f"units must be 'mm', got {d.get('units')!r}")
        raw_pieces = d.get("pieces")
        if not isinstance(raw_pieces, list):
            raise StateError("a table state needs a 'pieces' list")
        pieces = tuple(Piece.from_dict(p) for p in raw_pieces)
        coins_raw = d.get("coins", [])
        if not isinstance(coins_raw, list):
            raise StateError("'coins' must be a list")
        coins = tuple(Coin.from_dict(c) for c in coins_raw)
        ids = [x.id for x in pieces + coins]  # type: ignore[operator]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise StateError(f"duplicate ids: {', '.join(dup)}")
        warp = _number(d.get("warp_diameter", DEFAULT_WARP_DIAMETER_MM), "table", "warp_diameter")
        if warp <= 0:
            raise StateError(f"warp_diameter must be positive, got {warp}")
        known = {"units", "pieces", "coins", "warp_diameter"}
        return cls(pieces, coins, warp, {k: v for k, v in d.items() if k not in known})

    @classmethod
    def from_json(cls, text: str) -> "TableState":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise StateError(f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str) -> "TableState":
        data = read_json_file(path, "table state", StateError)
        try:
            return cls.from_dict(data)
        except StateError as e:
            raise StateError(f"{path}: {e}") from None


# -- validation helpers ----------------------------------------------------------------
def _enum(kind: type[Enum], d: dict, key: str, pid: str) -> Any:
    value = d.get(key)
    try:
        return kind(value.lower() if isinstance(value, str) else value)
    except ValueError:
        allowed = ", ".join(m.value for m in kind)  # type: ignore[attr-defined]
        what = "missing" if value is None else f"unknown {value!r}"
        raise StateError(f"piece {pid}: {key} {what} (one of: {allowed})") from None


def _number(v: Any, pid: str, key: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise StateError(f"piece {pid}: {key} must be a finite number, got {v!r}")
    return float(v)


def _point(d: dict, key: str, pid: str) -> Point:
    v = d.get(key)
    if not isinstance(v, (list, tuple)) or len(v) != 2:
        raise StateError(f"piece {pid}: {key} must be [x, y] in mm, got {v!r}")
    return (_number(v[0], pid, key), _number(v[1], pid, key))
