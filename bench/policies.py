"""Benchmark of the scripted policies (issue 4): prints figures, asserts nothing.

* median wall time of one baseline career (in-process, seed 101, default world);
* careers per second (serial, baseline, seeds 1-50);
* median wall time of `pibench run baseline --seeds 1-200 --jobs 2` (the real command).

Run: ``python bench/policies.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="repetitions of the 200-seed command (default 3)")
    args = ap.parse_args()

    from world.runner import run_career, run_seeds

    run_career("baseline", 101)  # warm-up (imports, caches)
    times = []
    for _ in range(21):
        t = time.perf_counter()
        run_career("baseline", 101)
        times.append(time.perf_counter() - t)
    print(f"one baseline career (seed 101): median {1000 * statistics.median(times):.1f} ms over {len(times)} runs")

    t = time.perf_counter()
    run_seeds("baseline", range(1, 51))
    dt = time.perf_counter() - t
    print(f"careers per second (baseline, serial, seeds 1-50): {50 / dt:.1f}")

    exe = shutil.which("pibench")
    cmd = [exe] if exe else [sys.executable, "-m", "pibench_tui"]
    walls = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        subprocess.run(
            [*cmd, "run", "baseline", "--seeds", "1-200", "--jobs", "2"], check=True, stdout=subprocess.DEVNULL
        )
        walls.append(time.perf_counter() - t)
    print(
        f"`pibench run baseline --seeds 1-200 --jobs 2`: median {statistics.median(walls):.2f} s over {len(walls)} runs "
        f"({200 / statistics.median(walls):.0f} careers/s incl. start-up)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
