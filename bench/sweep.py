"""The big sweep of issue 9 §3: ``pibench run baseline --seeds 1-N --jobs 2`` (prints figures,
asserts nothing).

Run: ``python bench/sweep.py [--seeds N] [--jobs J]`` (default 10,000 seeds, 2 jobs; goal:
under 60 s on this 2-core machine, memory flat). Runs the real command once, samples the
resident memory of the command and its worker processes every half second, and prints the
wall time, careers per second, the CPU time of the whole process tree, and the memory at
10%, 50% and 90% of the run (flat = the figures stay close; rows of finished careers are
kept until the table is printed, a few kB each).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path


def pibench() -> list[str]:
    script = Path(sys.executable).parent / "pibench"
    return [str(script)] if script.exists() else [sys.executable, "-m", "pibench_tui"]


def tree_rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its descendants, MB (Linux /proc; 0 elsewhere)."""
    total = 0
    todo = [pid]
    seen = set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            with open(f"/proc/{p}/task/{p}/children") as fh:
                todo.extend(int(x) for x in fh.read().split())
        except OSError:
            continue
    return total / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10_000, help="seeds 1..N (default 10,000)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    args = ap.parse_args()
    cmd = pibench() + ["run", "baseline", "--seeds", f"1-{args.seeds}", "--jobs", str(args.jobs)]
    print("$ pibench", " ".join(cmd[len(pibench()) :]))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples: list[tuple[float, float]] = []
    while proc.poll() is None:
        samples.append((time.perf_counter() - t0, tree_rss_mb(proc.pid)))
        time.sleep(0.5)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    if proc.returncode != 0:
        print(f"the command failed with exit status {proc.returncode}")
        sys.exit(1)
    print(
        f"wall {wall:.1f} s ({args.seeds / wall:.0f} careers/s; goal < 60 s for 10,000 seeds), "
        f"CPU of the process tree {cpu:.1f} s ({cpu / args.seeds * 1e3:.2f} ms a career)"
    )
    if samples:

        def at(frac: float) -> float:
            return samples[min(len(samples) - 1, int(frac * len(samples)))][1]

        print(
            f"resident memory of the tree: {at(0.1):.0f} MB at 10%, {at(0.5):.0f} MB at 50%, "
            f"{at(0.9):.0f} MB at 90% of the run ({len(samples)} samples, os.cpu_count() = {os.cpu_count()})"
        )


if __name__ == "__main__":
    main()
