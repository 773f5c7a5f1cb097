"""`pyramid-referee warpships beam|move|odds|advise|setup|replay`: WarpShips rulings on table-state files.

Each prints one JSON object (the contract's fields first, extra optional fields after).
"""

from __future__ import annotations

import argparse
import json

from domain import InputError, TableState


def _uncertainty(value: str) -> float:
    try:
        v = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0 <= v < float("inf"):
        raise argparse.ArgumentTypeError("an uncertainty must be a finite number >= 0")
    return v


def register(sub) -> None:
    ws = sub.add_parser("warpships", help="WarpShips referee: beams, moves, odds, advice")
    wsub = ws.add_subparsers(dest="warpships_command", required=True, metavar="WHAT")

    beam = wsub.add_parser("beam", help="what a flat ship's beam hits")
    beam.add_argument("state", metavar="STATE.json")
    beam.add_argument("--ship", required=True, help="id of the firing (flat) ship")
    _common(beam)
    beam.add_argument("--heading-uncertainty", metavar="DEG", type=_uncertainty, default=0.0,
                      help="the detector's heading error: a beam that turns onto another answer "
                           "within it is 'too close to call'")
    beam.set_defaults(run=run_beam)

    move = wsub.add_parser("move", help="which ship moved between two states, and was it legal")
    move.add_argument("before", metavar="BEFORE.json")
    move.add_argument("after", metavar="AFTER.json")
    _common(move)
    move.set_defaults(run=run_move)

    odds = wsub.add_parser("odds", help="exact odds of a shot by a flat ship (die and chain reactions)")
    odds.add_argument("state", metavar="STATE.json")
    odds.add_argument("--ship", required=True)
    odds.set_defaults(run=run_odds)

    setup = wsub.add_parser("setup", help="print a random 12-nest set-up as a table state")
    setup.add_argument("--seed", type=int, default=None)
    setup.set_defaults(run=run_setup)

    replay = wsub.add_parser("replay", help="re-derive every ruling of a saved game record")
    replay.add_argument("record", metavar="GAME.json")
    replay.set_defaults(run=run_replay)

    advise = wsub.add_parser("advise", help="rank launches and flies by expected ships gained")
    advise.add_argument("state", metavar="STATE.json")
    advise.add_argument("--top", type=int, default=5)
    advise.set_defaults(run=run_advise)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--annotate", metavar="OUT.png", help="draw the ruling top-down into this image")
    p.add_argument("--uncertainty", metavar="MM", type=_uncertainty, default=0.0,
                   help="the detector's position error: rulings this close say 'too close to call'")


def _print(d: dict) -> None:
    print(json.dumps(d))


def run_beam(args) -> int:
    from referee.warpships import rule_beam
    from referee.warpships.figure import beam_figure

    state = TableState.load(args.state)
    ruling = rule_beam(state, args.ship, uncertainty_mm=args.uncertainty,
                       heading_uncertainty_deg=args.heading_uncertainty)
    if args.annotate:
        from cli.warpships_drawing import save_figure
        save_figure(beam_figure(state, ruling), args.annotate)
    _print(ruling.to_dict())
    return 0


def run_move(args) -> int:
    from referee.warpships import rule_move
    from referee.warpships.figure import move_figure

    before, after = TableState.load(args.before), TableState.load(args.after)
    ruling = rule_move(before, after, uncertainty_mm=args.uncertainty)
    if args.annotate:
        from cli.warpships_drawing import save_figure
        save_figure(move_figure(before, after, ruling), args.annotate)
    _print(ruling.to_dict())
    return 0


def run_odds(args) -> int:
    from referee.warpships.odds import shot_odds

    _print(shot_odds(TableState.load(args.state), args.ship).to_dict())
    return 0


def run_advise(args) -> int:
    from referee.warpships.advisor import advise

    if args.top < 1:
        raise InputError("--top must be at least 1")
    state = TableState.load(args.state)
    _print({"advice": [a.to_dict() for a in advise(state, top=args.top)]})
    return 0


def run_setup(args) -> int:
    from referee.warpships import setup_table

    _print(setup_table(args.seed).to_dict())
    return 0


def run_replay(args) -> int:
    from referee.warpships import WarpShipsGame

    game = WarpShipsGame.load(args.record)
    result = game.result
    _print({"turns": [t.notation() for t in game.history],
            "colonies": {p: [list(s) for s in game.colony(p)] for p in game.players},
            "to_move": None if result else game.to_move,
            "result": None if result is None else {"winners": list(result.winners), "why": result.why,
                                                   "tie": result.tie}})
    return 0
