"""Run every bench/bench_*.py in turn; each prints its own figures."""

import pathlib
import runpy
import sys
import time

here = pathlib.Path(__file__).parent
sys.path.insert(0, str(here.parent))
selected = sys.argv[1:]
for script in sorted(here.glob("bench_*.py")):
    if selected and not any(s in script.stem for s in selected):
        continue
    print(f"== {script.stem} ==", flush=True)
    t0 = time.perf_counter()
    sys.argv = [str(script)]   # each bench with its own defaults, not run_all's selection
    runpy.run_path(str(script), run_name="__main__")
    print(f"   ({time.perf_counter() - t0:.1f} s)\n", flush=True)
