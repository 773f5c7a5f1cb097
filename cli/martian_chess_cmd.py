"""`pyramid-referee martian-chess moves|perft`: the rules engine on the command line.

>>> from cli.main import main
>>> main(["martian-chess", "perft", "2"])
104
0
>>> main(["martian-chess", "moves", "--position", "..3./..../..../..../..../..../..../.... t 2-2 -"])
<BLANKLINE>
0
"""

from __future__ import annotations

import argparse
import sys

from domain import InputError
from referee.martian_chess import Position
from referee.martian_chess.board import NotationError


class PositionsFileError(InputError):
    """A --positions file that cannot be read."""


def register(sub) -> None:
    mc = sub.add_parser("martian-chess", help="Martian Chess rules: legal moves and perft")
    mc_sub = mc.add_subparsers(dest="mc_command", required=True, metavar="SUBCOMMAND")

    moves = mc_sub.add_parser("moves", help="legal moves of positions, one line each")
    source = moves.add_mutually_exclusive_group(required=True)
    source.add_argument("--position", metavar="POS", help="one position in the contract's notation")
    source.add_argument("--positions", metavar="FILE", help="a file of positions, one a line")
    moves.set_defaults(run=run_moves)

    perft = mc_sub.add_parser("perft", help="count legal move sequences of a given length")
    perft.add_argument("depth", type=_depth, metavar="DEPTH")
    perft.add_argument("--position", metavar="POS", help="default: the standard setup, bottom to move")
    perft.set_defaults(run=run_perft)


def _depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"DEPTH must be a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"DEPTH must not be negative, got {value}")
    return value


def _read_positions(path: str) -> list[Position]:
    try:
        with open(path, encoding="utf-8") as f:
            lines = [line.strip() for line in f]
    except OSError as e:
        raise PositionsFileError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise PositionsFileError(f"{path} is not a UTF-8 text file") from None
    positions = []
    for number, line in enumerate(lines, 1):
        if not line:
            continue
        try:
            positions.append(Position.from_notation(line))
        except NotationError as e:
            raise NotationError(f"{path} line {number}: {e}") from None
    return positions


def run_moves(args: argparse.Namespace) -> int:
    # Parse everything first so that a malformed line prints nothing but its reason.
    positions = [Position.from_notation(args.position)] if args.position is not None \
        else _read_positions(args.positions)
    out = sys.stdout
    for pos in positions:
        out.write(" ".join(str(m) for m in pos.legal_moves()) + "\n")
    out.flush()
    return 0


def run_perft(args: argparse.Namespace) -> int:
    pos = Position.from_notation(args.position) if args.position is not None else Position.setup()
    print(pos.perft(args.depth))
    return 0
