"""Where a pivot rollout's time goes (issue 24: the dev set in <= 10 minutes on 2 cores needs
faster rollouts). Prints figures; asserts nothing.

Run: ``python bench/pivots_rollout.py [--seeds 1,2] [--months 2,14,30] [--branches 4] [--repeat 3]``.
Replays each seed's baseline career to each fork month (as ``pibench pivots build`` does),
finds the decisions open there (finder generation 2, at most one of each kind), and plays both
plans of each on branches ``1..B`` (as :func:`world.pivots.rollout_calls`). Prints per rollout the
CPU milliseconds in all and their split: the world's months (``World.next_month``), the
continuation policy's ``act`` (its reads and calls, the month's close excluded), and the rest
(the fork, the plan, the score). The split's timers cost a little themselves; the total is
also measured without them. The repeats run alternately; the best of each is printed. The
last line is the SHA-256 of every rollout's (Impact, collapsed) in order: equal before and
after a change that must not alter outcomes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pibench_tui.pivots.build import PRESETS, _record  # noqa: E402
from world import engine, pivots, scoring  # noqa: E402
from world.policies.baseline import Baseline  # noqa: E402


class _Timer:
    """Accumulates the CPU time of a wrapped method (not re-entrant calls)."""

    def __init__(self, owner: Any, name: str) -> None:
        self.owner, self.name, self.total = owner, name, 0.0
        self.inner = getattr(owner, name)

    def __enter__(self) -> _Timer:
        inner, timer = self.inner, self

        def timed(*args: Any, **kwargs: Any) -> Any:
            t = time.process_time()
            try:
                return inner(*args, **kwargs)
            finally:
                timer.total += time.process_time() - t

        setattr(self.owner, self.name, timed)
        return self

    def __exit__(self, *exc: object) -> None:
        setattr(self.owner, self.name, self.inner)


def _forks(seeds: list[int], months: list[int]) -> list[tuple[Any, list[Any]]]:
    """``(world at the fork, decisions)`` for each seed and month (at most one decision a kind)."""
    settings = PRESETS["dev"]
    out = []
    for seed in seeds:
        for month in months:
            world, _, _ = _record(seed, month, settings)
            if world.s.finished or world.s.month != month:
                continue
            chosen: dict[str, Any] = {}
            for d in pivots.find_decisions(world, settings.kinds, settings.finders):
                chosen.setdefault(d.kind, d)
            out.append((world, list(chosen.values())))
    return out


def _play(forks: list[tuple[Any, list[Any]]], branches: int) -> tuple[float, int, int, list[Any]]:
    """CPU seconds, rollouts, career months played, and the outcomes of every rollout."""
    outcomes: list[Any] = []
    months = 0
    t = time.process_time()
    for world, decisions in forks:
        for d in decisions:
            point = world.fork_point()  # as world.pivots.truth: the fork serialised once per pair
            for b in range(1, branches + 1):
                for plan in (d.a, d.b):
                    w, _ = pivots._play(point, plan, d.kind, b, "baseline")  # rollout_calls' world
                    outcomes.append([float(scoring.impact(w)["total"]), bool(w.s.collapsed)])
                    months += w.s.month - world.s.month + 1
    return time.process_time() - t, len(outcomes), months, outcomes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1,2", help="comma-separated seeds (default: 1,2)")
    ap.add_argument("--months", default="2,14,30", help="comma-separated fork months (default: 2,14,30)")
    ap.add_argument("--branches", type=int, default=4, help="branches per plan (default: 4)")
    ap.add_argument("--repeat", type=int, default=3, help="repeats, alternately timed and split (default: 3)")
    args = ap.parse_args()
    forks = _forks([int(x) for x in args.seeds.split(",")], [int(x) for x in args.months.split(",")])
    plain: list[float] = []
    split: list[tuple[float, float, float]] = []
    digest = ""
    n = months = 0
    for _ in range(args.repeat):
        cpu, n, months, outcomes = _play(forks, args.branches)
        plain.append(cpu)
        digest = hashlib.sha256(json.dumps(outcomes).encode()).hexdigest()
        with _Timer(engine.World, "next_month") as tick, _Timer(Baseline, "act") as act:
            cpu, _, _, _ = _play(forks, args.branches)
        split.append((cpu, tick.total, act.total))
    best = min(plain)
    cpu, tick_s, act_s = min(split)
    print(
        f"{len(forks)} forks, {n} rollouts, {months:,} career months: best of {args.repeat} "
        f"{1000 * best / n:.1f} ms CPU a rollout, {1000 * best / months:.3f} ms a month"
    )
    print(
        f"split (timed run, {1000 * cpu / n:.1f} ms a rollout): world months {100 * tick_s / cpu:.0f} %, "
        f"policy act {100 * act_s / cpu:.0f} %, the rest {100 * (cpu - tick_s - act_s) / cpu:.0f} %"
    )
    print(f"outcomes sha256 {digest}")


if __name__ == "__main__":
    main()
