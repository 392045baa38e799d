"""The big sweep of issue 9 §3: ``pibench run baseline --seeds 1-N --jobs 2`` (prints figures,
asserts nothing).

Run: ``python bench/sweep.py [--seeds N] [--jobs J]`` (default 10,000 seeds, 2 jobs; goal:
under 60 s on this 2-core machine, memory flat). Runs the real command once, samples the
resident memory of the command and its worker processes every half second, and prints the
wall time, careers per second, the CPU time of the whole process tree, and the memory at
10%, 50% and 90% of the run (flat = the figures stay close). Also printed: the command's own CPU (the
parent: progress, rows, the table) apart from its workers', the proportional memory (PSS:
pages shared by the forked workers counted once) beside the resident one, and the load
average before and after (the machine is shared: a wall time means little without it).

``python bench/sweep.py --growth [--sizes 1000,3000,10000] [--against TREE]`` runs the sweep at
each size and prints the command's own peak resident memory (its ``VmHWM`` at exit: the
parent alone, workers not included, the table's printing included) and the least-squares
**parent RSS growth per 1,000 seeds**, with the CPU per career (``--files``: the sweep also
writes ``--json`` and ``--csv``, whose journal holds the full rows); ``--against TREE`` (another
pibench checkout) runs that tree's command at each size too, alternating, for a side-by-side
figure under the same load.

``python bench/sweep.py --split [--seeds N]`` (default 200 seeds) instead plays the careers of
the sweep in this process and prints where a career's CPU goes: ``World()`` (config check,
random streams, hotness trajectory, month 1 opened), the months (the policy and the tick),
and the result row (end-of-career summary with its projection, capability axes). A worker of
the real sweep spends its time the same way: the pool, the rows' pickling and the parent's
progress and table add well under 1% (callgrind, and the command's own CPU printed above).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def pibench() -> list[str]:
    script = Path(sys.executable).parent / "pibench"
    return [str(script)] if script.exists() else [sys.executable, "-m", "pibench_tui"]


def tree_memory_mb(pid: int) -> tuple[float, float]:
    """(resident, proportional) memory of ``pid`` and its descendants, MB (Linux /proc; 0
    elsewhere). Resident counts a page shared by several processes once per process;
    proportional (PSS) splits it between them."""
    rss = pss = 0
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
                        rss += int(line.split()[1])
            try:
                with open(f"/proc/{p}/smaps_rollup") as fh:
                    for line in fh:
                        if line.startswith("Pss:"):
                            pss += int(line.split()[1])
            except OSError:
                pass
            with open(f"/proc/{p}/task/{p}/children") as fh:
                todo.extend(int(x) for x in fh.read().split())
        except OSError:
            continue
    return rss / 1024, pss / 1024


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` alone, MB (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux /proc; none elsewhere)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(x) for x in fh.read().split()]
    except OSError:
        return []


def own_cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system) of process ``pid`` itself, children not included."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def load() -> str:
    try:
        return "/".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


@dataclass
class Sweep:
    """One run of ``pibench run baseline --seeds 1-N --jobs J`` (see :func:`run_sweep`)."""

    command: list[str]
    seeds: int
    wall: float
    """Seconds from the command's start to its exit."""
    cpu: float
    """CPU seconds (user + system) of the command and its workers."""
    parent_cpu: float | None
    """CPU seconds of the command's own process at its last sample (None without /proc)."""
    returncode: int
    samples: list[tuple[float, float, float, float, float]] = field(default_factory=list)
    """Every half second: (seconds since the start, resident MB of the process tree,
    proportional MB of the tree, resident MB of the command's own process, of its largest
    worker)."""
    load_before: str = "?"
    load_after: str = "?"

    def at(self, frac: float, i: int) -> float:
        """Field ``i`` of the sample taken at fraction ``frac`` of the run (0 without samples)."""
        if not self.samples:
            return 0.0
        return self.samples[min(len(self.samples) - 1, int(frac * len(self.samples)))][i]


def run_sweep(
    seeds: int,
    jobs: int,
    command: list[str] | None = None,
    env: dict[str, str] | None = None,
    extra: list[str] | None = None,
) -> Sweep:
    """Run ``pibench run baseline --seeds 1-seeds --jobs jobs`` once (``command``: the
    program, default :func:`pibench`; ``env``: its environment, default this one's; ``extra``:
    more arguments), sampling the memory of its process tree every half second."""
    cmd = (command or pibench()) + ["run", "baseline", "--seeds", f"1-{seeds}", "--jobs", str(jobs), *(extra or [])]
    load_before = load()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    samples: list[tuple[float, float, float, float, float]] = []
    parent_cpu: float | None = None
    while proc.poll() is None:
        rss, pss = tree_memory_mb(proc.pid)
        workers = [rss_mb(c) for c in children(proc.pid)]
        samples.append((time.perf_counter() - t0, rss, pss, rss_mb(proc.pid), max(workers, default=0.0)))
        c = own_cpu_s(proc.pid)
        parent_cpu = c if c is not None else parent_cpu
        time.sleep(0.5)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    return Sweep(cmd, seeds, wall, cpu, parent_cpu, proc.returncode, samples, load_before, load())


PEAK_WRAPPER = """
import atexit, os, sys
def _peak(pid=os.getpid(), out=os.environ["PIBENCH_BENCH_PEAK_FILE"]):
    if os.getpid() == pid:  # the command's own process, not a forked worker
        with open("/proc/self/status") as fh:
            peak = [line.split()[1] for line in fh if line.startswith("VmHWM:")]
        with open(out, "w") as fh:
            fh.write(peak[0] if peak else "0")
atexit.register(_peak)
from pibench_tui.cli.command import main
sys.exit(main(sys.argv[1:]))
"""
"""``python -c PEAK_WRAPPER ARGS``: ``pibench ARGS`` that writes its own peak resident memory
(kB, ``VmHWM``, Linux) to the file named by ``PIBENCH_BENCH_PEAK_FILE`` as it exits."""


def parent_peak(seeds: int, jobs: int, tree: str | None, files: bool = False) -> tuple[float, Sweep]:
    """One sweep of ``seeds`` seeds (``tree``: another checkout's code, else this one's;
    ``files``: writing ``--json`` and ``--csv``): the command's own peak resident memory in
    MB and the run."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        peak_file = Path(tmp) / "peak"
        env = {**os.environ, "PIBENCH_BENCH_PEAK_FILE": str(peak_file)}
        if tree:
            env["PYTHONPATH"] = str(Path(tree).resolve())
        extra = ["--json", f"{tmp}/rows.json", "--csv", f"{tmp}/rows.csv"] if files else []
        run = run_sweep(seeds, jobs, [sys.executable, "-c", PEAK_WRAPPER], env, extra)
        try:
            peak = int(peak_file.read_text()) / 1024
        except (OSError, ValueError):
            peak = 0.0
    return peak, run


def slope(xs: list[float], ys: list[float]) -> float:
    """The least-squares slope of ``ys`` over ``xs`` (NaN when every x is the same)."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / spread if spread else float("nan")


def growth(sizes: list[int], jobs: int, against: str | None, files: bool = False) -> None:
    """Print the command's peak memory at each sweep size and its growth per 1,000 seeds
    (this tree, and ``against`` beside it when given)."""
    trees: list[tuple[str, str | None]] = [("this tree", None)]
    if against:
        trees.append((against, against))
    peaks: dict[str, list[float]] = {name: [] for name, _ in trees}
    cpus: dict[str, list[float]] = {name: [] for name, _ in trees}
    more = " --json FILE --csv FILE" if files else ""
    print(f"$ pibench run baseline --seeds 1-N --jobs {jobs}{more}, N = {', '.join(f'{n:,}' for n in sizes)}")
    for n in sizes:
        for name, tree in trees if n % 2 else trees[::-1]:  # alternate which tree goes first
            peak, run = parent_peak(n, jobs, tree, files)
            if run.returncode != 0:
                print(f"{name}: the command failed with exit status {run.returncode}")
                sys.exit(1)
            peaks[name].append(peak)
            cpus[name].append(run.cpu / n * 1e3)
            print(
                f"  {name:>14s} N={n:>6,}: the command's own peak RSS {peak:6.1f} MB; wall {run.wall:6.1f} s; "
                f"CPU of the process tree {run.cpu / n * 1e3:5.2f} ms a career; load {run.load_before} -> {run.load_after}"
            )
    for name, _ in trees:
        per_k = slope([float(n) for n in sizes], peaks[name]) * 1000
        print(
            f"{name}: parent RSS growth per 1,000 seeds {per_k:.2f} MB ({per_k * 1024 * 1024 / 1000:,.0f} bytes a seed); "
            f"CPU {', '.join(f'{c:.2f}' for c in cpus[name])} ms a career"
        )


def split(seeds: int) -> None:
    """Print the CPU of ``World()``, the months and the result row of baseline careers 1..N,
    in-process (``run_career``'s steps one by one, the same work)."""
    import copy
    import gc

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from world.api import Api
    from world.config import WorldConfig
    from world.engine import World
    from world.runner import build_policy, play, result_row

    config = WorldConfig()
    gc.set_threshold(50_000, 20, 20)  # as in a sweep's worker
    cpu = {"World()": 0.0, "months (policy + tick)": 0.0, "result row": 0.0}
    months = 0
    for seed in range(1, seeds + 1):
        c0 = time.process_time()
        world = World(copy.copy(config), seed)
        c1 = time.process_time()
        policy = build_policy("baseline", world)
        api = _runner_api(Api, world)
        play(world, policy, api)
        c2 = time.process_time()
        row = result_row(world, policy)
        c3 = time.process_time()
        vars(api).clear()
        months += row["months"]
        cpu["World()"] += c1 - c0
        cpu["months (policy + tick)"] += c2 - c1
        cpu["result row"] += c3 - c2
    total = sum(cpu.values())
    print(
        f"baseline careers 1-{seeds} in this process: {total / seeds * 1e3:.2f} ms CPU a career ({months / seeds:.1f} months)"
    )
    for name, value in cpu.items():
        print(f"  {name:24s} {value / seeds * 1e3:7.2f} ms  {value / total * 100:5.1f}%")
    print(f"load average (1/5/15 min) after: {load()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=None, help="seeds 1..N (default 10,000; 200 with --split)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--split", action="store_true", help="where a career's CPU goes, in this process")
    ap.add_argument("--growth", action="store_true", help="the command's own peak memory at several sizes")
    ap.add_argument("--sizes", default="1000,3000,10000", help="sweep sizes for --growth (default 1000,3000,10000)")
    ap.add_argument("--against", metavar="TREE", help="with --growth: another pibench checkout, side by side")
    ap.add_argument("--files", action="store_true", help="with --growth: the sweep also writes --json and --csv")
    args = ap.parse_args()
    if args.growth:
        growth([int(x) for x in args.sizes.split(",")], args.jobs, args.against, args.files)
        return
    if args.split:
        split(args.seeds or 200)
        return
    args.seeds = args.seeds or 10_000
    print("$ pibench run baseline --seeds", f"1-{args.seeds}", "--jobs", args.jobs)
    run = run_sweep(args.seeds, args.jobs)
    wall, cpu, parent_cpu, samples, at = run.wall, run.cpu, run.parent_cpu, run.samples, run.at
    if run.returncode != 0:
        print(f"the command failed with exit status {run.returncode}")
        sys.exit(1)
    print(
        f"wall {wall:.1f} s ({args.seeds / wall:.0f} careers/s; goal < 60 s for 10,000 seeds), "
        f"CPU of the process tree {cpu:.1f} s ({cpu / args.seeds * 1e3:.2f} ms a career)"
    )
    if parent_cpu is not None:
        print(
            f"of which the command's own process (start-up, progress, rows; its last sample before "
            f"exit, the table's printing partly missed) {parent_cpu:.1f} s"
        )
    print(
        f"load average (1/5/15 min) before {run.load_before}, after {run.load_after}; os.cpu_count() = {os.cpu_count()}"
    )
    if samples:
        print(
            f"resident memory of the tree: {at(0.1, 1):.0f} MB at 10%, {at(0.5, 1):.0f} MB at 50%, "
            f"{at(0.9, 1):.0f} MB at 90% of the run; proportional (PSS): {at(0.1, 2):.0f}, "
            f"{at(0.5, 2):.0f}, {at(0.9, 2):.0f} MB ({len(samples)} samples)"
        )
        print(
            f"of which the command's own process: "
            f"{at(0.1, 3):.0f}, {at(0.5, 3):.0f}, {at(0.9, 3):.0f} MB; the largest worker: "
            f"{at(0.1, 4):.0f}, {at(0.5, 4):.0f}, {at(0.9, 4):.0f} MB"
        )


def _runner_api(api_cls: Any, world: Any) -> Any:
    """The API the runner plays policies through, in this tree or an older one (main before
    the read cache became a wrapper: ``Api(world, shared_results=True)``)."""
    try:
        from world.api.cached import CachedApi
    except ImportError:
        return api_cls(world, shared_results=True)
    return CachedApi(api_cls(world))


if __name__ == "__main__":
    main()
