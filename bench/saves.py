"""Save-store benchmarks (issue 6): prints figures, asserts nothing.

Run: ``python bench/saves.py [--repeat N] [--dir DIR]``. The "busy lab" is the ambitious
policy (MECHANICS §17: hire to 8, every open call, every event) on seed 101 with a
$100,000,000 start budget, so it never collapses and is still busy at month 60. Prints:

* the save file size at month 60;
* the median time to save it (``SaveStore.save``: state snapshot, JSON normalisation,
  checksum, temp file + fsync + atomic replace, index update under the lock);
* the median time to load it (``SaveStore.load_world``: read, verify format, checksum and
  the store's seal, rebuild the World and check it is exactly the saved state; see
  ``saves/seal.py``), to load an unsealed copy the first time (digest check plus the replay
  of its action log, then the store's mark on its index entry; the copy is written afresh,
  untimed, before each timing), to load it once it is verified (the mark verifies: no
  replay) and to read it only (``SaveStore.load``);
* the median time of the replay check alone (``saves.store.verify_replay``: what a load
  adds so that a hand-edited save is refused as tampered);
* the median time to resume at month 59 and play one month (load + policy + tick);
* the median and mean autosave cost per month over a whole career (``SaveStore.autosave``,
  keep 3), and apart for the whole autosaves and the deltas written between them (see
  ``saves.store.is_delta``: every ``DELTA_MONTHS`` months a whole one);
* the median time to load the career's newest autosave before the end (a delta: its base
  loaded, then up to ``DELTA_MONTHS - 1`` months of logged calls replayed).

Every figure is given as wall time and as CPU time of this process: on a shared machine the
CPU time is the steadier one (wall time also waits for the disk: ``fsync`` of manual saves).
As a yardstick of the machine's speed at the time, the one-shot ``json.dumps`` of the
month-60 state is printed first (a saver that re-encodes everything pays it at least twice a
save: the digest and the text).

By default the store is a fresh temporary folder (on the same disk as ``$TMPDIR``); use
``--dir`` to measure another disk.

``--against PATH`` (another checkout, e.g. the first release) measures instead, side by side
in this one process (``bench/speed.py``'s ``Tree``; the two trees interleaved round by
round, in alternating order), each tree's own busy lab and store: the save, the load of
that save (sealed here: no replay; the first release replays every load), the first load of
an unsealed save (written by ``save_state`` afresh, untimed, before each timing, so the
load replays), the load of an unsealed save that one load has verified already (here its
index entry's mark spares the replay; a tree without marks replays again) and the replay
check alone. Medians, CPU time (the steadier clock on a shared machine) and wall time.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from saves import CareerSaves, SaveStore  # noqa: E402
from saves.deltas import describe_world
from saves.verify import verify_replay  # noqa: E402
from world.api import Api  # noqa: E402
from world.config import WorldConfig  # noqa: E402
from world.engine import World  # noqa: E402
from world.policies import make_policy  # noqa: E402

POLICY = "ambitious"
SEED = 101


def _home(tree: Any, name: str) -> Any:
    """``name`` from the saves module that holds it in ``tree`` (saves.store before the split
    of the store by concern, saves.deltas / saves.verify after it)."""
    for module in ("saves.deltas", "saves.verify", "saves.store"):
        try:
            found = getattr(tree.module(module), name, None)
        except ImportError:
            continue
        if found is not None:
            return found
    raise SystemExit(f"{tree.path} has no saves function {name}")


def busy_config() -> WorldConfig:
    """The default world with money no object, so the busy lab lasts 60 months."""
    return WorldConfig.from_dict({"start_budget": 100_000_000.0})


def play_month(world: World, api: Api, policy) -> None:
    m = world.month
    policy.act(api)
    if not world.finished and world.month == m:
        api.time.next_month()


def busy_career(
    until: int | None = None,
    store: SaveStore | None = None,
    autosave_times: list[float] | None = None,
    autosave_cpu: list[float] | None = None,
    autosave_kinds: list[bool] | None = None,
) -> World:
    """Play the busy lab to the opening of month ``until`` (or to the end)."""
    world = World(busy_config(), SEED)
    api = Api(world)
    policy = make_policy(POLICY)
    writer = CareerSaves(store) if store is not None else None  # the career's save writer keeps its caches
    while not world.finished and (until is None or world.month < until):
        play_month(world, api, policy)
        if store is not None and autosave_times is not None:
            t0, c0 = time.perf_counter(), time.process_time()
            assert writer is not None
            info = writer.autosave("bench", world, scenario="busy", keep=3)
            if autosave_kinds is not None:
                autosave_kinds.append(not info.digest)  # a delta records no digest
            if autosave_cpu is not None:
                autosave_cpu.append(time.process_time() - c0)
            autosave_times.append(time.perf_counter() - t0)
    return world


def median(fn, repeat: int, setup=None) -> float:
    """Median wall seconds of ``fn()`` (after an untimed ``setup()`` each time, if given); the
    median CPU seconds go to :data:`CPU`."""
    times, cpus = [], []
    for _ in range(repeat):
        if setup is not None:
            setup()
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        cpus.append(time.process_time() - c0)
        times.append(time.perf_counter() - t0)
    CPU[0] = statistics.median(cpus)
    return statistics.median(times)


CPU = [0.0]
"""CPU seconds (this process) of the last :func:`median` figure: steadier than wall time on a
shared machine, and blind to waiting for the disk (fsync)."""


def cpu() -> str:
    return f"(cpu {CPU[0] * 1e3:.2f} ms)"


def speed_module() -> Any:
    """bench/speed.py as a module (the one already loaded under ``_bench_speed``, if any)."""
    if "_bench_speed" in sys.modules:
        return sys.modules["_bench_speed"]
    here = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("_bench_speed", here / "bench" / "speed.py")
    assert spec is not None and spec.loader is not None
    speed = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = speed  # dataclasses look their module up by name
    spec.loader.exec_module(speed)
    return speed


FIGURES = ("save", "load (as saved)", "unsealed, 1st load", "unsealed, verified", "replay check")
"""The figures of :func:`side_by_side_figures`, in order."""


def side_by_side_figures(trees: dict[str, Any], repeat: int, folder: Path) -> dict[str, dict[str, tuple[float, float]]]:
    """Median (wall, CPU) seconds of each tree's :data:`FIGURES` (``trees``: label ->
    ``speed.Tree``): the save, the load of that save, the first load of an unsealed save
    (written afresh before each round, untimed), the load of an unsealed save one load has
    verified already, and the replay check; each with its own busy lab and store under
    ``folder``, interleaved over ``repeat`` rounds (``speed.interleaved``). Returns label ->
    figure -> (wall, cpu).

    Raises:
        SystemExit: a tree has no bench/saves.py.
    """
    speed = speed_module()
    tasks: dict[tuple[str, str], tuple[Any, Any]] = {}
    setups: dict[tuple[str, str], Any] = {}
    for n, (label, tree) in enumerate(trees.items()):
        script = tree.script("bench/saves.py")
        if script is None:
            raise SystemExit(f"{tree.path} has no bench/saves.py")
        with tree:
            verify_replay = _home(tree, "verify_replay")
            world = script.busy_career()
            store = script.SaveStore(folder / f"store-{n}")
            # a tree with save writers keeps the world's caches in the career's writer
            saver = script.CareerSaves(store) if hasattr(script, "CareerSaves") else store
            saver.save("busy-m60", world, scenario="busy")
            raw = _home(tree, "describe_world")(world, "busy")

            def unsealed(s=store, r=raw) -> None:  # no seal: the load replays
                s.save_state("busy-raw", *r)

            unsealed()
            store.save_state("busy-checked", *raw)  # its first load (the warm-up below) verifies it
            digest = world.digest()
            calls = {
                "save": lambda s=saver, w=world: s.save("busy-m60", w, scenario="busy"),
                "load (as saved)": lambda s=store: s.load_world("busy-m60"),
                "unsealed, 1st load": lambda s=store: s.load_world("busy-raw"),
                "unsealed, verified": lambda s=store: s.load_world("busy-checked"),
                "replay check": lambda v=verify_replay, w=world, d=digest: v(w, "busy-m60", "-", d),
            }
            for what, fn in calls.items():
                fn()  # warm
                tasks[label, what] = (tree, fn)
            setups[label, "unsealed, 1st load"] = unsealed
    times = speed.interleaved(tasks, repeat, setups)
    figures: dict[str, dict[str, tuple[float, float]]] = {label: {} for label in trees}
    for (label, what), (walls, cpus) in times.items():
        figures[label][what] = (statistics.median(walls), statistics.median(cpus))
    return figures


def side_by_side(other: Path, repeat: int, folder: Path) -> None:
    """Print the save, load, unsealed load and replay check of this tree and ``other``, each
    with its own busy lab and store under ``folder``, measured side by side (see the module
    docstring)."""
    here = Path(__file__).resolve().parents[1]
    speed = speed_module()
    trees = {"this tree": speed.Tree(here), str(other): speed.Tree(other)}
    figures = side_by_side_figures(trees, repeat, folder)
    a, b = trees
    print(f"side by side, medians of {repeat} interleaved rounds, ms CPU (wall); A = {a}, B = {b}")
    for what in FIGURES:
        (wa, ca), (wb, cb) = ((x * 1e3 for x in figures[k][what]) for k in (a, b))
        print(f"  {what:18s} A {ca:8.2f} ({wa:8.2f})   B {cb:8.2f} ({wb:8.2f})   B/A CPU {cb / ca:5.2f}x")
    load = os.getloadavg()
    print(f"load average (1, 5, 15 min): {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=21, help="timings per figure (default 21)")
    ap.add_argument("--dir", type=Path, default=None, help="store folder (default: a fresh temporary folder)")
    ap.add_argument("--against", type=Path, default=None, help="another checkout, measured side by side instead")
    args = ap.parse_args()
    if args.against is not None:
        with tempfile.TemporaryDirectory() as tmp:
            side_by_side(args.against, args.repeat, args.dir or Path(tmp))
        return
    with tempfile.TemporaryDirectory() as tmp:
        store = SaveStore(args.dir or Path(tmp) / "store")
        world = busy_career()
        people = len(Api(world).students.list())
        print(
            f"busy lab: {POLICY} policy, seed {SEED}, month {world.month}, "
            f"{'collapsed' if world.collapsed else 'not collapsed'}, {people} people ever hired"
        )
        view = world.state_view()
        t = median(lambda: json.dumps(view, separators=(",", ":")), args.repeat)
        print(f"yardstick: json.dumps of the month-60 state {t * 1e3:6.2f} ms {cpu()}")
        saver = CareerSaves(store)
        info = saver.save("busy-m60", world, scenario="busy")
        print(f"save file at month 60:     {info.size / 1024:8.1f} kB")
        t = median(lambda: saver.save("busy-m60", world, scenario="busy"), args.repeat)
        print(f"save (month 60):           {t * 1e3:8.2f} ms {cpu()} (median of {args.repeat}; goal <= 15 ms)")
        t = median(lambda: store.load_world("busy-m60"), args.repeat)
        print(f"load + rebuild world:      {t * 1e3:8.2f} ms {cpu()} (goal <= 15 ms; sealed: no replay needed)")
        raw = describe_world(world, "busy")
        # Written afresh (untimed) before each timing: no seal, so the load replays, then marks it.
        t = median(lambda: store.load_world("busy-raw"), args.repeat, lambda: store.save_state("busy-raw", *raw))
        print(f"unsealed save, 1st load:   {t * 1e3:8.2f} ms {cpu()} (replay check included, then its mark)")
        t = median(lambda: store.load_world("busy-raw"), args.repeat)
        print(f"unsealed save, verified:   {t * 1e3:8.2f} ms {cpu()} (goal <= 15 ms; its mark: no replay)")
        t = median(lambda: store.load("busy-m60"), args.repeat)
        print(f"load (read + verify only): {t * 1e3:8.2f} ms {cpu()}")
        t = median(lambda: verify_replay(world, "busy-m60", "-"), args.repeat)
        print(f"replay check (in load):    {t * 1e3:8.2f} ms {cpu()} ({len(world.s.action_log)} logged calls replayed)")

        store.save("busy-m59", busy_career(until=59), scenario="busy")

        def resume_one_month() -> None:
            w, _ = store.load_world("busy-m59")
            play_month(w, Api(w), make_policy(POLICY))

        t = median(resume_one_month, args.repeat)
        print(f"resume at 59 + play month: {t * 1e3:8.2f} ms {cpu()}")

        times: list[float] = []
        cpus: list[float] = []
        kinds: list[bool] = []
        busy_career(store=store, autosave_times=times, autosave_cpu=cpus, autosave_kinds=kinds)
        print(
            f"autosave per month:        {statistics.median(times) * 1e3:8.2f} ms median (cpu {statistics.median(cpus) * 1e3:.2f} ms), "
            f"mean {statistics.mean(times) * 1e3:.2f} ms (cpu {statistics.mean(cpus) * 1e3:.2f} ms), "
            f"{sum(times) * 1e3:8.1f} ms over {len(times)} months (goal <= 4 ms a month)"
        )
        for label, want in (("whole", False), ("delta", True)):
            picked = [(t, c) for t, c, k in zip(times, cpus, kinds, strict=True) if k is want]
            if picked:
                print(
                    f"  {label} autosaves:         {statistics.median(t for t, _ in picked) * 1e3:8.2f} ms median "
                    f"(cpu {statistics.median(c for _, c in picked) * 1e3:.2f} ms), {len(picked)} of them"
                )
        newest = store.list(career="bench", kind="autosave")
        before_end = [i for i in newest if not i.finished]
        if before_end:
            name = before_end[-1].name
            t = median(lambda: store.load_world(name, exact=True), args.repeat)
            what = "a delta" if not before_end[-1].digest else "whole"
            print(f"load newest autosave {name.split('@')[1]}: {t * 1e3:8.2f} ms {cpu()} ({what})")
        load = os.getloadavg() if hasattr(os, "getloadavg") else None
        if load is not None:
            print(f"load average (1, 5, 15 min): {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
