"""Speed figures of issue 9 §3, printed next to the goals (prints figures, asserts nothing).

Run: ``python bench/speed.py [--repeat N] [--quick] [--heads] [--runs N] [--against PATH]``. Prints, each as the median of
repeated runs:

* **baseline career per simulated month**, warm and in-process (``run_career("baseline",
  seed)`` after a warm-up, seeds 101-110), beside the original benchmark's figure measured
  side by side on this machine: :data:`ORIGINAL_MS_PER_MONTH` (0.43-0.51 ms per month, the
  range quoted in issue 9; nothing is fetched). Goal: at least 5x faster.
* **where a baseline month goes**: the policy's ``act`` (reads and changes through the API)
  against the tick, CPU ms per month.
* **engine tick of a do-nothing month** (``World.next_month`` with no lab members and no
  actions, months 1-59 of seeds 101-140). Goal: at most 0.06 ms.
* **per-month cost against head count**, 10 to 2,000 people (``--quick``: 10, 100, 500, 2,000): a lab of ``n`` researchers
  (PhD students and postdocs put straight into the state, two per project) plays a few
  months; the engine tick and an API month (the dashboard twice, every researcher's reports
  and everybody's mentoring through the API, 100 people a call, as a policy must) are timed,
  and the cost per person is printed, with the exponent of cost ~ n^b fitted over all sizes
  and over n >= 200, in each of ``--runs`` runs (default 3) and their spread. Goal: no worse
  than linear (flat cost per person, b <= 1). ``--heads`` prints this figure alone; with
  ``--against PATH`` too, for both trees side by side (their months interleaved).
  ``bench/heads_instructions.py`` counts the same month's instructions under callgrind (a
  figure the machine's load does not move).

With ``--against PATH`` (another checkout of pibench, e.g. a worktree of ``main``), the
baseline career, the do-nothing career, the do-nothing tick and ``World()`` are measured for
both trees side by side in this one process (each tree's ``world`` package imported under its
own module objects), interleaved career by career in alternating order, and the medians of
CPU time are printed one row per tree: a before/after comparison that a loaded machine
disturbs equally on both sides.

Both wall time and CPU time of this process are printed: the machine is shared, and CPU
time is the steadier of the two under load (the goals are about either).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import importlib.util
import math
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from world.api import Api  # noqa: E402
from world.config import WorldConfig  # noqa: E402
from world.engine import World  # noqa: E402
from world.runner import run_career  # noqa: E402

ORIGINAL_MS_PER_MONTH = (0.43, 0.51)
"""The original benchmark's warm in-process baseline career, ms per simulated month, measured
side by side with pibench in one process on this machine (issue 9 §3). A constant: the
original is not fetched or run here."""

GOAL_SPEEDUP = 5.0
GOAL_TICK_MS = 0.06


def timed(fn, repeat: int) -> tuple[float, float]:
    """Median (wall, cpu) seconds of ``fn(i)`` over ``repeat`` calls."""
    walls, cpus = [], []
    for i in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn(i)
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - w0)
    return statistics.median(walls), statistics.median(cpus)


def baseline_per_month(repeat: int) -> None:
    run_career("baseline", 100)  # warm-up: imports, caches
    months: list[int] = []

    def career(i: int) -> None:
        row = run_career("baseline", 101 + i % 10)
        months.append(row["months"])

    wall, cpu = timed(career, repeat)
    per = statistics.median(months)
    lo, hi = ORIGINAL_MS_PER_MONTH
    for label, t in (("wall", wall), ("cpu ", cpu)):
        ms = t * 1e3 / per
        print(
            f"baseline career, {label}: {t * 1e3:7.2f} ms = {ms:.4f} ms/month "
            f"(original {lo}-{hi} ms/month on the issue's machine, unscaled: {lo / ms:.1f}-{hi / ms:.1f}x; "
            f"goal >= {GOAL_SPEEDUP:g}x; bench/goals.py scales it to today)"
        )


def policy_and_tick(repeat: int) -> None:
    """Where a baseline month goes: the policy's ``act`` (its reads and changes through the API)
    and the month's tick (``time.next_month``), CPU ms per month, medians over careers played
    as :func:`world.runner.play` plays them (an ``Api(shared_results=True)`` behind an
    ``AgentView``)."""
    from world.policies import Baseline
    from world.runner import AgentView

    acts, ticks = [], []
    for i in range(repeat):
        w = World(WorldConfig(), 101 + i % 10)
        api = _runner_api(Api, w)
        view = AgentView(api)
        pol = Baseline()
        a = t = 0.0
        while not w.s.finished:
            m = w.s.month
            c0 = time.process_time()
            pol.act(view)
            c1 = time.process_time()
            if not w.s.finished and w.s.month == m:
                api.next_month_unread()
            t += time.process_time() - c1
            a += c1 - c0
        acts.append(a * 1e3 / w.s.month)
        ticks.append(t * 1e3 / w.s.month)
    a, t = statistics.median(acts), statistics.median(ticks)
    print(
        f"baseline month, cpu: policy + API {a:.4f} ms ({100 * a / (a + t):.0f}%), tick {t:.4f} ms ({100 * t / (a + t):.0f}%)"
    )


def do_nothing_tick(seeds: int) -> None:
    walls, cpus = [], []
    for seed in range(101, 101 + seeds):
        w = World(WorldConfig(), seed)
        while not w.finished:
            w0, c0 = time.perf_counter(), time.process_time()
            w.next_month()
            cpus.append(time.process_time() - c0)
            walls.append(time.perf_counter() - w0)
    print(
        f"engine tick, do-nothing month: wall {statistics.median(walls) * 1e3:.4f} ms, "
        f"cpu {statistics.median(cpus) * 1e3:.4f} ms median over {len(walls)} months (goal <= {GOAL_TICK_MS} ms)"
    )


class LabKit(NamedTuple):
    """What a crowded lab is built from and played through: one tree's classes (:func:`lab_kit`)."""

    World: Any
    WorldConfig: Any
    TOPICS: tuple[str, ...]
    Person: Any
    Project: Any
    Api: Any
    max_dict_items: int


def lab_kit(tree: Tree | None = None) -> LabKit:
    """The :class:`LabKit` of ``tree`` (another checkout), or of this process's own ``world``."""

    def get(name: str) -> Any:
        return importlib.import_module(name) if tree is None else tree.module(name)

    cfg, state = get("world.config"), get("world.state")
    api: Any = get("world.api").Api
    try:  # the API the runner plays policies through (its read cache keeps the reports' index)
        wrapper = get("world.api.cached").CachedApi

        def api(world: Any) -> Any:
            return wrapper(get("world.api").Api(world))

    except ImportError:  # a tree from before the wrapper: its Api kept its reads itself
        pass
    return LabKit(
        get("world.engine").World,
        cfg.WorldConfig,
        cfg.TOPICS,
        state.Person,
        state.Project,
        api,
        get("world.api.limits").MAX_DICT_ITEMS,
    )


def crowded_lab(n: int, seed: int = 7, kit: LabKit | None = None) -> World:
    """A world at month 2 with ``n`` active researchers, two per project, no mentoring hours yet
    (bench only: the cap of 12 researchers is bypassed by writing the state directly); built
    with ``kit`` (default: this process's ``world``)."""
    k = kit or lab_kit()
    w = k.World(k.WorldConfig(start_budget=1e9), seed)
    s = w.s
    for i in range(n):
        pid = f"S{i + 1:04d}"
        s.people[pid] = k.Person(
            id=pid,
            name=f"Person {i}",
            role="phd" if i % 4 else "postdoc",
            arrived_month=1,
            ability=0.5 + (i % 7) / 20,
            speed=1.0,
            resilience=0.6,
            independence=0.5,
            growth=1.0,
            skill=0.4,
            morale=0.7,
            stipend=w.cfg.pay_phd,
            mentoring=0.0,
        )
    ids = list(s.people)
    for j in range(0, n - 1, 2):
        pj_id = s.next_id("PJ")
        s.projects[pj_id] = k.Project(
            id=pj_id,
            topic=k.TOPICS[j % len(k.TOPICS)],
            tier=2,
            members=ids[j : j + 2],
            compute=500.0,
            started_month=1,
            work=1e9,
            feasible=True,
            novelty=1.0,
        )
    w.next_month()
    return w


def api_month(api: Api, ids: list[str], chunk: int = 100) -> None:
    """What a policy reads and does in a month: a dashboard, each researcher's reports, everybody's
    mentoring set (0.01 h each in odd months, or less to fit the pool; 0 in even ones) in calls
    of at most ``chunk`` people (the API's dict limit), and the dashboard again. A refused
    change raises: the month then did not do what it is timed for."""
    d = api.lab.dashboard()
    for pid in ids:
        api.students.reports(pid, 1)
    att = d["attention"]
    room = att["pool"] - att["oneoff_used"] - 0.02  # the dashboard rounds to 2 dp
    h = min(0.01, int(100 * room / len(ids)) / 100) if ids and d["month"] % 2 else 0.0
    for i in range(0, len(ids), chunk):
        api.students.set_mentoring({pid: h for pid in ids[i : i + chunk]})
    api.lab.dashboard()


HeadRow = tuple[int, float, float]
"""``(people, engine tick, API month)``: CPU seconds of one month at a head count."""


def head_count_runs(
    trees: dict[str, Tree | None], sizes: list[int], months: int, runs: int, pick: Any = statistics.median
) -> dict[str, list[list[HeadRow]]]:
    """Per-month CPU seconds against head count, ``runs`` times: tree name -> one list of
    :data:`HeadRow` per run, each ``pick`` (default the median) over ``months`` months of
    :func:`crowded_lab` ``(n)`` for each ``n`` in ``sizes`` (the API month is
    :func:`api_month`; ``trees``: name -> a :class:`Tree`, or None for this process's own).

    Every run builds its labs afresh, and the labs play their months in turn (month 1 of every
    size of every tree, then month 2 ..., the trees in alternating order), so that a burst of
    other work on the machine falls on every size and tree alike rather than on one. A full
    garbage collection runs, untimed, before each lab's month: every lab lives in this one
    process, and a full collection walks all of them, so one falling inside the biggest lab's
    month (its allocations trigger most of them) made it look dearer per person than it is in a
    process of its own (callgrind, one lab a process, the collector on: 200 to 2,000 people
    grow the instructions 9.7x)."""
    out: dict[str, list[list[HeadRow]]] = {name: [] for name in trees}
    kits = {name: lab_kit(tree) for name, tree in trees.items()}
    for _ in range(runs):
        labs: dict[str, list[Any]] = {}
        for name, tree in trees.items():
            with tree or contextlib.nullcontext():
                labs[name] = []
                for n in sizes:
                    w = crowded_lab(n, kit=kits[name])
                    ids = [p.id for p in w.s.people.values() if p.status == "active"]
                    labs[name].append([n, w, kits[name].Api(w), ids, [], []])
        for m in range(months):
            order = list(trees.items()) if m % 2 else list(trees.items())[::-1]
            for name, tree in order:
                with tree or contextlib.nullcontext():
                    for lab in labs[name]:
                        n, w, api, ids, ticks, apis = lab
                        if w.finished:
                            continue
                        gc.collect()  # a full collection now, untimed, rather than inside some lab's month
                        c0 = time.process_time()
                        api_month(api, ids, kits[name].max_dict_items)
                        apis.append(time.process_time() - c0)
                        c0 = time.process_time()
                        w.next_month()
                        ticks.append(time.process_time() - c0)
                        lab[3] = [pid for pid in ids if w.s.people[pid].status == "active"]
        for name in trees:
            out[name].append([(lab[0], pick(lab[4]), pick(lab[5])) for lab in labs[name]])
        gc.collect()
    return out


def head_count_figures(sizes: list[int], months: int, pick: Any = statistics.median) -> list[HeadRow]:
    """Per-month CPU seconds against head count in this process's ``world``, one run:
    :func:`head_count_runs` for this tree alone."""
    return head_count_runs({"": None}, sizes, months, 1, pick)[""][0]


def fit_exponent(sizes: Sequence[float], costs: Sequence[float]) -> float:
    """The exponent ``b`` of ``cost ~ a * size**b`` fitted by least squares on logarithms
    (1: linear; needs two sizes or more)."""
    if len(sizes) != len(costs) or len(sizes) < 2:
        raise ValueError("fit_exponent needs as many costs as sizes, two or more")
    xs = [math.log(s) for s in sizes]
    ys = [math.log(c) for c in costs]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        raise ValueError("fit_exponent needs two different sizes")
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx


UPPER_SIZES = 200
"""The head-count exponent is also fitted over the sizes from this one up (where a term that
grows faster than the people shows; the small labs' fixed costs flatten the overall fit)."""


def head_exponents(rows: list[HeadRow]) -> tuple[float, float]:
    """``(over all sizes, over n >= UPPER_SIZES)`` exponents of tick + API month of one run's rows
    (the second is the first when fewer than two sizes reach ``UPPER_SIZES``)."""
    ns = [n for n, _, _ in rows]
    total = [t + a for _, t, a in rows]
    upper = [i for i, n in enumerate(ns) if n >= UPPER_SIZES]
    b_all = fit_exponent(ns, total)
    if len(upper) < 2:
        return b_all, b_all
    return b_all, fit_exponent([ns[i] for i in upper], [total[i] for i in upper])


def head_count(trees: dict[str, Tree | None], sizes: list[int], months: int, runs: int) -> None:
    """Print :func:`head_count_runs`: per tree, each size's CPU ms and us per person (medians
    over the runs), and the fitted exponents of every run, with their median and spread."""
    print(
        f"per-month cost against head count (CPU; each run the median of {months} months, {runs} runs; "
        "cost per person should stay flat, exponent <= 1):"
    )
    got = head_count_runs(trees, sizes, months, runs)
    for name, per_run in got.items():
        if name:
            print(f"{name}:")
        print(
            f"{'people':>7} {'tick ms':>9} {'tick us/person':>15} {'API ms':>9} {'API us/person':>14} {'us/person':>10}"
        )
        for i, n in enumerate(sizes):
            t = statistics.median(r[i][1] for r in per_run)
            a = statistics.median(r[i][2] for r in per_run)
            tot = statistics.median(r[i][1] + r[i][2] for r in per_run)
            print(f"{n:7d} {t * 1e3:9.3f} {t * 1e6 / n:15.2f} {a * 1e3:9.3f} {a * 1e6 / n:14.2f} {tot * 1e6 / n:10.2f}")
        fits = [head_exponents(r) for r in per_run]
        for j, label in enumerate((f"sizes {sizes[0]}..{sizes[-1]}", f"n >= {UPPER_SIZES}")):
            bs = [f[j] for f in fits]
            print(
                f"exponent over {label}: {statistics.median(bs):.3f} median of {runs} runs, "
                f"spread {min(bs):.3f}-{max(bs):.3f} ({', '.join(f'{b:.3f}' for b in bs)})"
            )


PACKAGES = ("world", "saves", "scenarios", "pibench_tui")
"""The top-level packages of a pibench checkout (what :class:`Tree` keeps apart)."""


class Tree:
    """One pibench checkout's packages imported under their own module objects, so that two
    checkouts (this one and another, e.g. the first release) live side by side in one process.

    Call into a tree only inside ``with tree:``: its modules are then the ones in
    ``sys.modules`` and its folder is first on ``sys.path``, so that the imports its code makes
    at call time (``saves.store`` imports ``world.engine`` lazily, for one) find its own
    modules and not the other tree's. Outside, the process's own modules are back. Entering and
    leaving cost microseconds; keep them out of the timed region all the same.

    Attributes ``runner``, ``engine``, ``config``: the tree's ``world.runner``,
    ``world.engine`` and ``world.config``; ``path``: its folder (resolved).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(Path(path).resolve())
        self._modules: dict[str, Any] = {}
        self._outer: list[tuple[dict[str, Any], list[str]]] = []
        with self:
            self.runner = importlib.import_module("world.runner")
            self.engine = importlib.import_module("world.engine")
            self.config = importlib.import_module("world.config")

    def __enter__(self) -> Tree:
        outer = {k: sys.modules.pop(k) for k in list(sys.modules) if k.split(".")[0] in PACKAGES}
        self._outer.append((outer, list(sys.path)))
        sys.modules.update(self._modules)
        sys.path.insert(0, self.path)
        return self

    def __exit__(self, *exc: object) -> None:
        outer, path = self._outer.pop()
        self._modules = {k: sys.modules.pop(k) for k in list(sys.modules) if k.split(".")[0] in PACKAGES}
        sys.modules.update(outer)
        sys.path[:] = path

    def module(self, name: str) -> Any:
        """The tree's module ``name`` (imported inside the tree if not yet)."""
        with self:
            return importlib.import_module(name)

    def script(self, relpath: str) -> Any:
        """The tree's script ``relpath`` (e.g. ``bench/saves.py``) imported as a module of its
        own (under a name no other tree uses), its imports resolved inside the tree; ``None``
        if the tree has no such file."""
        file = Path(self.path) / relpath
        if not file.exists():
            return None
        name = f"_tree{id(self)}_{relpath.replace('/', '_').removesuffix('.py')}"
        spec = importlib.util.spec_from_file_location(name, file)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        with self:
            spec.loader.exec_module(mod)
        return mod


def interleaved(
    tasks: dict[Any, tuple[Tree, Any]], rounds: int, setups: dict[Any, Any] | None = None
) -> dict[Any, tuple[list[float], list[float]]]:
    """Wall and CPU seconds of each task's call ``fn()`` (``tasks``: key -> ``(tree, fn)``), one
    call a round for ``rounds`` rounds, the tasks in alternating order round by round (so a
    loaded machine disturbs every tree alike); each call inside its tree (``with tree:``),
    after its untimed ``setups[key]()`` if any (e.g. writing afresh what the call reads) and a
    ``gc.collect()``, timed by :func:`timed`. Returns key -> ``(walls, cpus)``."""
    got: dict[Any, tuple[list[float], list[float]]] = {k: ([], []) for k in tasks}
    setups = setups or {}
    for i in range(rounds):
        order = list(tasks.items()) if i % 2 else list(tasks.items())[::-1]
        for key, (tree, fn) in order:
            with tree:
                if key in setups:
                    setups[key]()
                gc.collect()
                wall, cpu = timed(lambda _, f=fn: f(), 1)
            got[key][0].append(wall)
            got[key][1].append(cpu)
    return got


def load_tree(path: str) -> Tree:
    """The checkout at ``path`` as a :class:`Tree` (its ``world`` modules imported afresh)."""
    return Tree(path)


def side_by_side_figures(trees: dict[str, Tree], rounds: int) -> dict[str, dict[str, list[float]]]:
    """CPU seconds of each tree, interleaved: per tree, ``"base"`` (baseline career, per
    month), ``"btick"`` (the time inside ``World.next_month`` during that career, per month),
    ``"idle"`` (do-nothing career, per month), ``"tick"`` (each do-nothing engine tick) and
    ``"world"`` (``World()``); ``rounds`` rounds, seeds 101-110 in turn, the trees' order
    alternating round by round, so that a loaded machine disturbs every tree alike."""
    figures: dict[str, dict[str, list[float]]] = {
        n: {"base": [], "btick": [], "idle": [], "tick": [], "world": []} for n in trees
    }
    for tree in trees.values():
        with tree:
            tree.runner.run_career("baseline", 100)  # warm-up
    for i in range(rounds):
        order = list(trees.items()) if i % 2 else list(trees.items())[::-1]
        for name, tree in order:
            f, seed = figures[name], 101 + i % 10
            with tree:
                runner, engine, config = tree.runner, tree.engine, tree.config
                gc.collect()
                ticked = [0.0]
                tick = engine.World.next_month

                def timed_tick(self: Any, tick: Any = tick, ticked: list[float] = ticked) -> Any:
                    t0 = time.process_time()
                    try:
                        return tick(self)
                    finally:
                        ticked[0] += time.process_time() - t0

                engine.World.next_month = timed_tick  # two clock reads a month: ~0.1% of a month
                try:
                    c0 = time.process_time()
                    row = runner.run_career("baseline", seed)
                    f["base"].append((time.process_time() - c0) / row["months"])
                finally:
                    engine.World.next_month = tick
                f["btick"].append(ticked[0] / row["months"])
                c0 = time.process_time()
                row = runner.run_career("do-nothing", seed)
                f["idle"].append((time.process_time() - c0) / row["months"])
                c0 = time.process_time()
                w = engine.World(config.WorldConfig(), seed)
                f["world"].append(time.process_time() - c0)
                while not w.finished:
                    c0 = time.process_time()
                    w.next_month()
                    f["tick"].append(time.process_time() - c0)
    return figures


def side_by_side(other: str, rounds: int) -> None:
    """Median CPU ms of each tree: baseline career per month and the engine tick's part of it,
    do-nothing career per month, do-nothing engine tick, ``World()``; ``rounds`` careers of
    each (seeds 101-110 in turn)."""
    here = str(Path(__file__).resolve().parents[1])
    figures = side_by_side_figures({"this tree": Tree(here), f"{other}": Tree(other)}, rounds)
    lo, hi = ORIGINAL_MS_PER_MONTH
    print(
        f"side by side, median CPU ms over {rounds} rounds (original baseline: {lo}-{hi} ms/month on the issue's "
        "machine; 'vs original' is unscaled: bench/goals.py reads it against the first release measured now):"
    )
    print(
        f"{'tree':<28} {'baseline/month':>15} {'vs original':>12} {'its tick':>9} "
        f"{'do-nothing/month':>17} {'idle tick':>10} {'World()':>8}"
    )
    for name, f in figures.items():
        base = statistics.median(f["base"]) * 1e3
        print(
            f"{name[-28:]:<28} {base:15.4f} {f'{lo / base:.1f}-{hi / base:.1f}x':>12} "
            f"{statistics.median(f['btick']) * 1e3:9.4f} {statistics.median(f['idle']) * 1e3:17.4f} {statistics.median(f['tick']) * 1e3:10.4f} "
            f"{statistics.median(f['world']) * 1e3:8.3f}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=21, help="careers for the baseline figure (default 21)")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions and sizes")
    ap.add_argument("--against", metavar="PATH", help="another pibench checkout to measure side by side with this one")
    ap.add_argument("--rounds", type=int, default=30, help="careers per tree with --against (default 30)")
    ap.add_argument("--heads", action="store_true", help="the head-count figure only (with --against: both trees)")
    ap.add_argument("--runs", type=int, default=3, help="runs of the head-count figure (default 3)")
    args = ap.parse_args()
    sizes = [10, 100, 500, 2000] if args.quick else [10, 50, 200, 500, 1000, 2000]
    months = 3 if args.quick else 6
    if args.heads:
        here = str(Path(__file__).resolve().parents[1])
        trees: dict[str, Tree | None] = {"": None}
        if args.against:
            trees = {"this tree": Tree(here), args.against: Tree(args.against)}
        head_count(trees, sizes, months, args.runs)
        return
    if args.against:
        side_by_side(args.against, args.rounds)
        return
    repeat = 7 if args.quick else args.repeat
    print(f"python {sys.version.split()[0]}; CPU time = this process only")
    baseline_per_month(repeat)
    policy_and_tick(repeat)
    do_nothing_tick(10 if args.quick else 40)
    gc.collect()
    head_count({"": None}, sizes, months, args.runs)


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
