"""`pyramid-referee` run as a user runs it: the installed command, or the module."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXE = ROOT / ".venv" / "bin" / "pyramid-referee"


def run(*args, cwd=None):
    cmd = [str(EXE)] if EXE.exists() else [sys.executable, "-m", "cli.main"]
    return subprocess.run(cmd + [str(a) for a in args], capture_output=True, text=True, cwd=cwd or ROOT, timeout=120)
