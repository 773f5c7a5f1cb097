"""Entry point of `pyramid-referee`: one argparse tree, one sub-module per family of commands.

Each sub-module exposes `register(subparsers)`, adding its commands with
`set_defaults(run=function)`; `function(args)` returns the exit code.
"""

from __future__ import annotations

import argparse
import sys

from domain import InputError

from cli import calibration_cmd, martian_chess_cmd, serve_cmd, vision_cmd, warpships_cmd

COMMAND_MODULES = (calibration_cmd, vision_cmd, warpships_cmd, martian_chess_cmd, serve_cmd)

EXIT_BAD_INPUT = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pyramid-referee",
        description="See Looney Pyramids on a table and referee the games played with them.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except InputError as e:
        print(f"pyramid-referee: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
