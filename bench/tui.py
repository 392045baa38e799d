"""TUI benchmark at month 40 of a busy career (the baseline policy's lab), measured in-process
with Textual's Pilot: process CPU time (every thread: the month's worker too), not wall time,
so Textual's idle waits and other processes on the machine do not count. Prints figures;
asserts nothing (issue 27 §5: goals ≤ 50 ms month close, ≤ 20 ms tab switch, ≤ 150 ms start).

- app start: ``make_app`` until the first frame is painted and the app is idle (imports done
  before; the first start in the process, then the median of the next ones);
- month close with its repaint: ``enter`` in the month-end confirmation until the digest is
  painted, plus ``enter`` on the digest until the lab under it is repainted;
- tab switch: a panel key (2-8) until the panel is drawn and focused, on a career changed
  since the panel was last drawn (it redraws) and on an unchanged one: after each month close,
  each panel once changed then once unchanged (back to the Lab, 1, between); the medians of
  all and of each panel;
- key-line repaints per month close (the footer is one line, drawn again only when its keys
  change: the dialog covering it, the digest, the lab again);
- full (generation-2) garbage collections while the month closes and tab switches are played:
  how many, their total and longest CPU ms (``gc.callbacks``); each one is a hitch inside
  whichever player action it falls in, so the close's p90 and max are printed beside its median.

Run: ``python bench/tui.py [--months 8] [--starts 5] [--profile]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SIZE = (120, 40)

PANEL_KEYS = "2345678"
"""The panels switched to after each month close (the Lab, 1, is the one the close redraws)."""


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


QUIET = 5
"""Event-loop turns in a row the app must be found quiet to be settled (3 were enough for a
following Pilot ``_wait_for_screen`` to find nothing more to do at every step of this bench)."""

_IN_FLIGHT = [0]
"""Messages being handled now, app-wide (counted by :func:`count_dispatches`)."""


def count_dispatches() -> None:
    """Count the messages being handled (Textual's own queue keeps no such count): a node whose
    queue is empty may still be inside a handler that awaits."""
    from textual.message_pump import MessagePump

    dispatch = MessagePump._dispatch_message
    if getattr(dispatch, "counted", False):
        return

    async def counted(self, message):
        _IN_FLIGHT[0] += 1
        try:
            return await dispatch(self, message)
        finally:
            _IN_FLIGHT[0] -= 1

    counted.counted = True  # type: ignore[attr-defined]
    MessagePump._dispatch_message = counted  # type: ignore[method-assign]


def _busy(node) -> bool:
    """``node`` has a message queued or a callback due after the current one."""
    return bool(node._message_queue.qsize() or node._next_callbacks)


async def settle(pilot) -> None:
    """Let the app handle every queued message and make every pending refresh (as the test
    suite's ``drain``), so the CPU measured is the work the key caused, not an idle guess.

    The app is settled when, :data:`QUIET` event-loop turns in a row, no message is being
    handled (:func:`count_dispatches`), no node of the app and its screen has one queued, the
    screen has no refresh pending and no animation runs. This looks at the queues instead of
    calling Pilot's ``_wait_for_screen``, which posts a callback to every widget of the screen
    and waits for them all: ~7 ms of CPU per call at month 40 with every panel composed,
    several calls per key, none of it work the app does for a player."""
    app = pilot.app
    quiet = 0
    while quiet < QUIET:  # a screen being popped takes a few loop turns between its steps
        screen = app.screen
        pending = not app._batch_count and bool(
            screen._layout_required
            or screen._scroll_required
            or screen._repaint_required
            or screen._recompose_required
            or screen._dirty_widgets
            or screen._callbacks
        )
        if _IN_FLIGHT[0] or _busy(app) or any(_busy(n) for n in screen.walk_children(with_self=True)):
            quiet = 0
            await asyncio.sleep(0)
        elif pending:
            quiet = 0
            screen._on_timer_update()
        elif not app.animator._complete_event.is_set():
            quiet = 0
            await app.animator.wait_until_complete()
        else:
            quiet += 1
            await asyncio.sleep(0)


async def key(pilot, k: str) -> None:
    """Post one key as the terminal would and settle."""
    from textual import events

    ev = events.Key(k, k if len(k) == 1 else None)
    ev.set_sender(pilot.app)
    pilot.app.post_message(ev)
    await settle(pilot)


async def wait(pilot, cond) -> None:
    """Settle until ``cond()`` holds (a worker thread may still run)."""
    await settle(pilot)
    while not cond():
        await asyncio.sleep(0.001)
        await settle(pilot)


def cpu_ms(t0: float) -> float:
    return (time.process_time() - t0) * 1000


async def start_once(world) -> float:
    """CPU ms from make_app to the first painted, settled frame."""
    from pibench_tui.tui.app import make_app

    t0 = time.process_time()
    app = make_app(world=world, scenario="standard", test_mode=True, run_baseline=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait(pilot, lambda: app.focused is not None)
        took = cpu_ms(t0)
    return took


class FullCollections:
    """CPU ms of each generation-2 garbage collection while :attr:`on` (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.on = False
        self.ms: list[float] = []
        self._t0 = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if not self.on or info["generation"] != 2:
            return
        if phase == "start":
            self._t0 = time.process_time()
        else:
            self.ms.append((time.process_time() - self._t0) * 1000)


async def play(world, months: int, full: FullCollections | None = None) -> dict:
    """Month closes and tab switches on ``world``; returns lists of CPU ms. ``full`` records
    the full collections of the measured month closes and tab switches (not the setup)."""
    from pibench_tui.tui.app import make_app
    from pibench_tui.tui.widgets.footer import KeyLine

    app = make_app(world=world, scenario="standard", test_mode=True, run_baseline=False)
    out: dict[str, list[float]] = defaultdict(list)
    async with app.run_test(size=SIZE) as pilot:
        await wait(pilot, lambda: app.focused is not None)
        for tab in "12345678":  # every panel composed once (a player has seen them all by month 40)
            await key(pilot, tab)
        await key(pilot, "1")
        for _ in range(5):  # the floor under every figure: settling an app with nothing to do
            t0 = time.process_time()
            await settle(pilot)
            out["idle"].append(cpu_ms(t0))
        footer = app.query_one(KeyLine)
        if full is not None:
            full.on = True
        for _ in range(months):
            await key(pilot, "n")
            await wait(pilot, lambda: type(app.screen).__name__ == "ConfirmNextMonth")
            before = app.months_advanced
            drawn = footer.renders
            t0 = time.process_time()
            await key(pilot, "enter")
            await wait(pilot, lambda b=before: app.months_advanced > b and not app.busy)
            await wait(pilot, lambda: type(app.screen).__name__ == "DigestScreen")
            t1 = time.process_time()
            await key(pilot, "enter")
            await wait(pilot, lambda: type(app.screen).__name__ == "LabScreen")
            t2 = time.process_time()
            out["digest"].append((t1 - t0) * 1000)
            out["repaint"].append((t2 - t1) * 1000)
            out["close"].append((t2 - t0) * 1000)
            out["footer"].append(footer.renders - drawn)
            for tab in PANEL_KEYS:  # each panel changed since drawn, then unchanged
                for kind in ("stale", "fresh"):
                    for k in (tab, "1"):
                        t0 = time.process_time()
                        await key(pilot, k)
                        if k == tab:
                            out[kind].append(cpu_ms(t0))
                            out[f"{kind} {tab}"].append(cpu_ms(t0))
        if full is not None:
            full.on = False
    return out


def med(xs: list[float]) -> str:
    return f"median {statistics.median(xs):.0f} ms (min {min(xs):.0f}, max {max(xs):.0f}; n={len(xs)})"


def tail(xs: list[float]) -> str:
    """p90 (inclusive quantile) and max of ``xs`` in ms."""
    p90 = statistics.quantiles(xs, n=10, method="inclusive")[-1] if len(xs) > 1 else xs[0]
    return f"p90 {p90:.0f} ms, max {max(xs):.0f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--months", type=int, default=8, help="month closes measured (from month 40)")
    ap.add_argument("--starts", type=int, default=5, help="app starts measured")
    ap.add_argument("--profile", action="store_true", help="print a cProfile of the month closes")
    args = ap.parse_args()
    count_dispatches()
    import pibench_tui.tui.app  # noqa: F401 - imports are not the app's start

    world = busy_world()
    from world.api import Api

    dash = Api(world).lab.dashboard()
    print(
        f"busy career: standard scenario, baseline policy, month {dash['month']}: "
        f"{len(dash['students']) + len(dash['staff'])} people, {len(dash['active_projects'])} active projects; "
        f"terminal {SIZE[0]}x{SIZE[1]}; CPU time of the process"
    )
    starts = [asyncio.run(start_once(busy_world())) for _ in range(max(2, args.starts))]
    print(f"app start (make_app → first frame settled): first {starts[0]:.0f} ms; later {med(starts[1:])}")
    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
    full = FullCollections()
    gc.callbacks.append(full)
    out = asyncio.run(play(world, args.months, full))
    gc.callbacks.remove(full)
    if args.profile:
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(40)
    print(f"month close with its repaint: {med(out['close'])}; {tail(out['close'])}")
    print(f"  of which enter → digest painted {med(out['digest'])}")
    print(f"  of which digest closed → lab repainted {med(out['repaint'])}")
    print(
        f"  key line (footer) drawn per month close: median {statistics.median(out['footer']):.0f}, "
        f"max {max(out['footer'])}"
    )
    print(f"tab switch to a panel changed since last drawn: {med(out['stale'])}")
    print(f"tab switch to an unchanged panel: {med(out['fresh'])}")
    from pibench_tui.tui.lab_app import TABS

    titles = {title.split()[0]: title for _, title in TABS}
    print(
        "  per panel, median changed / unchanged: "
        + ", ".join(
            f"{titles[k]} {statistics.median(out[f'stale {k}']):.0f}/{statistics.median(out[f'fresh {k}']):.0f} ms"
            for k in PANEL_KEYS
        )
    )
    gcs = full.ms
    print(
        f"full (gen-2) garbage collections during the closes and tab switches: {len(gcs)}, "
        f"{sum(gcs):.0f} ms CPU in all (longest {max(gcs, default=0):.0f} ms)"
    )
    idle = out["idle"]
    print(f"settling an idle app (the bench's own floor under each figure): median {statistics.median(idle):.2f} ms")
    print("goals (issue 27 §5): month close ≤ 50 ms, tab switch ≤ 20 ms, app start ≤ 150 ms")


if __name__ == "__main__":
    main()
