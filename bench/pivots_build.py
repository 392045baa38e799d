"""Throughput of `pibench pivots build` (issue 24's goal: the dev set in <= 10 minutes on 2
cores). Prints figures; asserts nothing.

Run: ``python bench/pivots_build.py [--seeds 3] [--jobs 2] [--screen 16] [--confirm 128] [--finders 2]``,
or ``--seeds all --out DIR`` for the whole dev preset (``DIR`` then holds the set, as
``pibench pivots build --preset dev`` writes it). Builds into a temporary folder (or ``--out``)
with the dev preset's settings over its first N seeds, prints the wall time, the CPU seconds
of the build's processes, rollouts made, and the dev preset's projected time. The machine is
shared: wall time depends on its load, so the CPU seconds over 2 are the figure "on 2 free
cores".
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pibench_tui.pivots.build import PRESETS, build  # noqa: E402


def _cpu() -> float:
    """User + system CPU seconds of this process and its finished workers."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _load() -> str:
    """The 1-minute load average (the machine is shared: wall time depends on it)."""
    import os

    return f"{os.getloadavg()[0]:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="dev", choices=sorted(PRESETS), help="the named settings (default: dev)")
    ap.add_argument("--seeds", default="3", help="the first N seeds of the dev preset, or 'all' (default: 3)")
    ap.add_argument("--out", help="build into this folder (kept; a build there resumes) instead of a temporary one")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--screen", type=int, help="screening branches (default: the dev preset's)")
    ap.add_argument("--confirm", type=int, help="confirmation branches (default: the dev preset's)")
    ap.add_argument("--finders", type=int, help="finder generation (default: the dev preset's)")
    args = ap.parse_args()
    dev = PRESETS[args.preset]
    n = len(dev.seeds) if args.seeds == "all" else int(args.seeds)
    settings = dataclasses.replace(
        dev,
        seeds=dev.seeds[:n],
        screen=args.screen or dev.screen,
        confirm=args.confirm or dev.confirm,
        finders=args.finders or dev.finders,
    )
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        cpu0 = _cpu()
        load0 = _load()
        s = build(settings, args.out or tmp, jobs=args.jobs)
        wall = time.perf_counter() - t
        cpu = _cpu() - cpu0
    # at most: a screened pair whose plans did not part ways on the first half stops there
    rollouts = 2 * (s["candidates"] * settings.screen + s["screened"] * settings.confirm)
    rollouts += 2 * settings.confirm * s["stability"]["checked"]
    print(
        f"{n} seeds x months {settings.months[0]}-{settings.months[-1]} (per kind {settings.per_kind}, "
        f"finders {settings.finders}), jobs {args.jobs}: {wall:.1f} s wall"
    )
    print(f"decisions {s['candidates']}, screened {s['screened']}, kept {s['kept_before_caps']}, cases {s['cases']}")
    print(f"funnel by kind (found, screened, kept): {s['funnel_by_kind']}")
    print(f"by kind {s['by_kind']}; stability {s['stability']['agree']}/{s['stability']['checked']}")
    print(
        f"rollouts at most {rollouts:,} ({rollouts / wall:.0f} a second, {1000 * wall / max(1, rollouts):.1f} ms each at least)"
    )
    scale = len(dev.seeds) / n
    print(
        f"CPU {cpu:.1f} s in all (this process and its workers); the machine's 1-minute load at the start "
        f"{load0}, at the end {_load()}"
    )
    print(
        f"dev preset ({len(dev.seeds)} seeds){' projected' if scale != 1 else ''}: {wall * scale / 60:.1f} minutes "
        f"at this wall rate (a shared machine's), {cpu * scale / 2 / 60:.1f} minutes on 2 free cores (CPU / 2)"
    )


if __name__ == "__main__":
    main()
