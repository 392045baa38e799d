"""TUI benchmark: cold start to first paint, and the time from ``n`` to the refreshed screen
for a busy lab at month 40 (the baseline policy's lab). Prints figures; asserts nothing.

Run: ``python bench/tui.py [--repeat 5] [--months 10]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

COLD = r"""
import time, sys
t0 = float(sys.argv[1])
from pibench_tui.tui.app import make_app
app = make_app(test_mode=True, run_baseline=False)
def painted():
    print(time.time() - t0)
    app.exit()
app.call_after_refresh(lambda: app.call_after_refresh(painted))
app.run(headless=True, size=(120, 40))
"""


def cold_start(repeat: int) -> list[float]:
    """Seconds from process start to the first painted frame (headless driver, 120x40)."""
    out = []
    for _ in range(repeat):
        t0 = time.time()
        r = subprocess.run([sys.executable, "-c", COLD, repr(t0)], capture_output=True, text=True, timeout=120)
        lines = [x for x in r.stdout.split() if x.strip()]
        if r.returncode != 0 or not lines:
            raise SystemExit(f"cold start failed: {r.stderr[-2000:]}")
        out.append(float(lines[-1]))
    return out


def busy_world(month: int = 40):
    """The baseline policy's lab, played up to ``month``."""
    from scenarios import load_scenario
    from world.api import Api
    from world.engine import World
    from world.policies import Baseline
    from world.runner import AgentView

    sc = load_scenario("standard")
    w = World(sc.config, sc.seed)
    api = Api(w)
    pol = Baseline()
    while w.month < month:
        pol.act(AgentView(api))
        if w.month < month:
            api.time.next_month()
    return w


async def next_month_times(months: int, tab: str) -> tuple[list[float], list[float], dict]:
    """Per month: (n key → confirmation shown), (confirm → month closed and screen refreshed)."""
    from pibench_tui.tui.app import make_app

    w = busy_world()
    dash0 = None
    app = make_app(world=w, scenario="standard", test_mode=True, show_digest=True, run_baseline=False)
    opened, closed = [], []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(tab)
        from world.api import Api

        dash0 = Api(w).lab.dashboard()
        for _ in range(months):
            t = time.perf_counter()
            await pilot.press("n")
            opened.append(time.perf_counter() - t)
            t = time.perf_counter()
            await pilot.press("enter")
            while app.busy:
                await asyncio.sleep(0.001)
            await pilot.pause()
            closed.append(time.perf_counter() - t)
            await pilot.press("enter")  # close the digest
    return opened, closed, dash0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--months", type=int, default=10)
    args = ap.parse_args()
    cold = cold_start(args.repeat)
    print(
        f"cold start to first paint: median {statistics.median(cold) * 1000:.0f} ms "
        f"(min {min(cold) * 1000:.0f}, max {max(cold) * 1000:.0f}; n={len(cold)})"
    )
    for tab in ("1", "4", "8"):
        opened, closed, dash = asyncio.run(next_month_times(args.months, tab))
        print(
            f"busy lab at month 40 ({len(dash['students'])} researchers, {len(dash['active_projects'])} projects), panel {tab}: "
            f"n → confirmation median {statistics.median(opened) * 1000:.0f} ms; "
            f"confirm → month closed + screen refreshed median {statistics.median(closed) * 1000:.0f} ms "
            f"(max {max(closed) * 1000:.0f} ms; n={len(closed)})"
        )
    print("(Pilot timings include Textual's test-harness idle waits of ~10-50 ms per key.)")


if __name__ == "__main__":
    main()
