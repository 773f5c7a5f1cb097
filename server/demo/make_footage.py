"""Render the bundled demo footage: a few WarpShips turns seen by the overhead camera.

    python -m server.demo.make_footage [--out server/demo/footage] [--turns 3] [--resume]

The turns are real: each move is the WarpShips advisor's best legal launch or fly
(`referee.warpships.advisor.advise`), its shot is resolved with seeded die rolls, and the
teleported ships are taken off the table. Every frame is drawn by the project's renderer:
a hand comes in from the edge, lifts and carries the ship, leaves; the still table is
held for a few seconds. Still frames repeat one picture (`playlist.json` says how often),
so the footage stays small; `script.json` records the turns and the rolls, which the demo
enters on the dashboard's die when the referee asks for them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from dataclasses import replace
from typing import Any

import cv2

from domain import Piece, Pose, TableState
from referee.warpships.advisor import advise
from referee.warpships.odds import resolve_shot, roller
from referee.warpships.game import teleport
from referee.warpships.setup import setup_table
from vision.render import Carried, Hand, render, scene_from_pieces

OUT = os.path.join(os.path.dirname(__file__), "footage")
FPS = 10.0
SETUP_SEED = 3  # which of the rules' random set-ups
SCENE_SEED = 5  # light, camera, surface: one where the detector reads the set-up right
ROLL_SEED = 5  # the die
# Frames the still table is held: long enough for the pipeline to read it, rule, and for
# the demo's die roll to come in before the next hand appears (4 s at 10 fps).
HOLD_FRAMES = 40
APPROACH, CARRY, LEAVE = 3, 3, 2  # rendered frames of each phase of a hand's visit
PALM_HEIGHT_MM = 110.0
CARRY_HEIGHT_MM = 45.0
EDGE_Y_MM = 640.0  # where the arm comes from: beyond the bottom of the picture
JPEG_QUALITY = 78
# A scripted move is kept if its beam would survive the detector's error several times
# over: this far (mm) from changing target. (A launch's own margin is bounded by how
# flush the warp must sit, a couple of mm, whatever the move.)
CLEAR_MARGIN_MM = 6.0
CANDIDATES = 40
# ... and the landed ship this far (mm) from every other piece, so the camera sees it apart.
APART_MM = 25.0


def _lerp(a: tuple[float, float], b: tuple[float, float], t: float) -> tuple[float, float]:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def _hand(at: tuple[float, float]) -> Hand:
    """A hand whose fingers reach up the picture to `at`, its arm coming from the bottom edge."""
    return Hand((at[0], at[1] + 45.0, PALM_HEIGHT_MM), direction_deg=270.0)


def _ship_at(p: Piece, pos: tuple[float, float]) -> Piece:
    """`p` lying flat with its footprint's middle moved to `pos` (for carrying it)."""
    if p.pose is Pose.UPRIGHT:
        p = Piece.flat(p.id, p.color, p.size, p.center, 270.0)
    mid = _lerp(p.tail, p.nose, 0.5)
    return Piece.flat(p.id, p.color, p.size, (p.tail[0] + pos[0] - mid[0], p.tail[1] + pos[1] - mid[1]),
                      p.heading)


def _where(p: Piece) -> tuple[float, float]:
    return p.center if p.pose is Pose.UPRIGHT else _lerp(p.tail, p.nose, 0.5)


def clear_move(table: TableState) -> Any:
    """The advisor's best legal move whose beam is clear-cut (a demo should not show a
    too-close-to-call beam at every turn): None when no move has a target."""
    from shapely.geometry import Polygon

    from referee.warpships import rule_beam, rule_move
    candidates = advise(table, top=CANDIDATES)
    for c in candidates:
        margin = rule_move(table, c.after).margin
        clearance = rule_beam(c.after, c.new_id).clearance or 0.0
        landed = Polygon(c.after.piece(c.new_id).footprint())
        apart = min(landed.distance(Polygon(p.footprint())) for p in c.after.pieces if p.id != c.new_id)
        if margin > 0 and clearance >= CLEAR_MARGIN_MM and apart >= APART_MM:
            return c
    return candidates[0] if candidates else None


class Footage:
    def __init__(self, out: str, base, resume: bool = False):
        self.out, self.base, self.resume = out, base, resume
        self.playlist: list[dict[str, Any]] = []
        os.makedirs(os.path.join(out, "frames"), exist_ok=True)

    def frame(self, pieces, occluders=(), carried=(), repeat: int = 1, hand: bool = False) -> None:
        spec = replace(self.base, pieces=tuple(pieces), occluders=tuple(occluders), carried=tuple(carried))
        name = f"frames/{len(self.playlist) + 1:04d}.jpg"
        path = os.path.join(self.out, name)
        if not (self.resume and cv2.imread(path) is not None):  # rendering is deterministic: reuse
            cv2.imwrite(path, render(spec).image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        self.playlist.append({"file": name, "repeat": repeat, "hand": hand})
        print(f"  {name} ×{repeat}{' (hand)' if hand else ''}", file=sys.stderr, flush=True)

    def visit(self, table: TableState, during: TableState, after: TableState, ship: Piece,
              start: tuple[float, float], end: tuple[float, float] | None) -> None:
        """A hand comes to `start`, carries `ship` to `end` (None: off the table), leaves."""
        gate = (start[0], EDGE_Y_MM)
        for i in range(1, APPROACH + 1):
            self.frame(table.pieces, [_hand(_lerp(gate, start, i / APPROACH))], hand=True)
        stop = end or (start[0], EDGE_Y_MM - 40)
        for i in range(1, CARRY + 1):
            at = _lerp(start, stop, i / CARRY)
            self.frame(during.pieces, [_hand(at)], [Carried(_ship_at(ship, at), CARRY_HEIGHT_MM)], hand=True)
        for i in range(1, LEAVE + 1):
            self.frame(after.pieces, [_hand(_lerp(stop, (stop[0], EDGE_Y_MM), i / LEAVE))], hand=True)
        self.frame(after.pieces, repeat=HOLD_FRAMES)


def make(out: str = OUT, turns: int = 3, resume: bool = False) -> dict[str, Any]:
    table = setup_table(SETUP_SEED)
    footage = Footage(out, scene_from_pieces((), seed=SCENE_SEED), resume)
    rng = random.Random(ROLL_SEED)
    footage.frame(table.pieces, repeat=HOLD_FRAMES)
    script: list[dict[str, Any]] = []
    for _ in range(turns):
        move = clear_move(table)
        if move is None:
            break
        mover, landed = table.piece(move.ship), move.after.piece(move.new_id)
        during = move.after.without(move.new_id)
        footage.visit(table, during, move.after, landed, _where(mover), _where(landed))
        shot = resolve_shot(move.after, move.new_id, roller(None, rng))
        rolls = [s.face for s in shot.steps]
        script.append({"kind": move.kind, "ship": move.ship, "landed": landed.to_dict(), "rolls": rolls,
                       "shot": shot.notation(), "teleported": list(shot.teleported)})
        table = move.after
        for pid in shot.teleported:  # the players take each teleported ship off the table
            gone = table.piece(pid)
            left = teleport(table, [pid])
            footage.visit(table, left, left, gone, _where(gone), None)
            table = left
    with open(os.path.join(out, "playlist.json"), "w", encoding="utf-8") as f:
        json.dump({"fps": FPS, "frames": footage.playlist}, f, indent=1)
    with open(os.path.join(out, "script.json"), "w", encoding="utf-8") as f:
        json.dump({"setup_seed": SETUP_SEED, "scene_seed": SCENE_SEED, "camera": footage.base.view().to_dict(),
                   "turns": script}, f, indent=1)
    return {"frames": len(footage.playlist), "turns": script}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--resume", action="store_true", help="keep the pictures already rendered in --out")
    args = ap.parse_args(argv)
    done = make(args.out, args.turns, args.resume)
    print(f"{done['frames']} pictures, {len(done['turns'])} turns → {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
