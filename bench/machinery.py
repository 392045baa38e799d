"""Each piece of speed machinery against its removal, side by side (issue 23 §1; prints
figures, asserts nothing).

    python bench/machinery.py [--runs N] [--pieces a,b,...]

For every piece, the same user-felt figure is measured with the piece on and off, the two
alternating run by run (a shared machine disturbs both alike), and the medians and their
ratio (off / on) are printed. A piece keeps its place only if removing it costs at least
10 % (ratio >= 1.10). Pieces (each switched off in this process only):

* ``mirror``: the agent process's read cache as the parent steers it (``sandbox/reads.py``:
  what still holds after a change, prefetching) against the plain cache keyed on the world
  version; figure: a headless career of ``examples/agents/baseline.py`` (seed 101) as one
  block of a session here, wall and CPU (pibench + agent process).
* ``child``: the agent process's read cache at all (with the mirror and prefetching) against
  every read a round trip; figure: the same headless career.
* ``cosched``: running pibench's thread and the agent process on one CPU during a block;
  figure: the same headless career.
* ``wrapper``: the read cache around the API (:class:`world.api.cached.CachedApi`) against
  the plain API; figure: the baseline career in-process (``run_career``, seed 101); and the
  headless career (which plays on the plain API) with the wrapper added (``+wrapper``: the
  "without" column is the career with it).
* ``bind``: the API's own argument binding (``registry._bind``, where a tree has one)
  against ``inspect.Signature.bind``; figure: the baseline career in-process, and headless.
* ``table``: ``pibench_tui/cli/fast_table.py`` against Rich's table for the sweep's output;
  figure: ``pibench run baseline --seeds 1-N`` output printing (CPU of the table alone).
* ``reseed``: the ctypes re-seeding in ``world/rng.py`` against numpy's own ``state`` setter;
  figures: a baseline career in-process, ``World()``.

Pieces the tree on ``PYTHONPATH`` does not have any more are reported as gone.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent  # run with PYTHONPATH set to the tree to measure


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) of process ``pid`` from ``/proc``, or None."""
    import os

    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def headless_career(session_options: dict[str, Any]) -> tuple[float, float]:
    """The baseline agent's career as one block of a headless session here (seed 101), with
    ``session_options`` overriding the sandbox's keyword arguments: (wall s, CPU s of pibench
    and the agent process)."""
    import pibench_tui.headless.session as session_mod
    import world
    from pibench_tui.headless.session import HeadlessOptions, HeadlessSession

    code = (Path(world.__file__).resolve().parent.parent / "examples" / "agents" / "baseline.py").read_text()
    real = session_mod.open_sandbox

    def patched(handler: Any, world: Any, **options: Any) -> Any:
        options.update(session_options)
        return real(handler, world, **options)

    session_mod.open_sandbox = patched  # type: ignore[assignment]
    try:
        session = HeadlessSession(HeadlessOptions(seed=101))
    finally:
        session_mod.open_sandbox = real  # type: ignore[assignment]
    try:
        session.run_block("1")
        proc = session.sandbox._process
        pid = proc.proc.pid if proc is not None else 0
        a0 = process_cpu(pid)
        t0, c0 = time.perf_counter(), time.process_time()
        result = session.run_block(code)
        wall = time.perf_counter() - t0
        a1 = process_cpu(pid)
        cpu = time.process_time() - c0 + (a1 - a0 if a0 is not None and a1 is not None else 0.0)
        if not result.ok:
            raise RuntimeError(f"baseline block failed: {result.error}")
        return wall, cpu
    finally:
        session.close()


def in_process_career() -> tuple[float, float]:
    """``run_career("baseline", 101)``: (wall s, CPU s)."""
    from world.runner import run_career

    t0, c0 = time.perf_counter(), time.process_time()
    run_career("baseline", 101)
    return time.perf_counter() - t0, time.process_time() - c0


@contextlib.contextmanager
def nothing() -> Iterator[None]:
    yield


def side_by_side(
    name: str, figure: str, measure: Callable[[], tuple[float, float]], off: Callable[[], Any], runs: int
) -> None:
    """Measure ``measure`` with the piece on and (inside ``off()``) off, alternately."""
    on_w: list[float] = []
    on_c: list[float] = []
    off_w: list[float] = []
    off_c: list[float] = []
    measure()  # warm-up
    for i in range(runs):
        order = (True, False) if i % 2 == 0 else (False, True)
        for enabled in order:
            with nothing() if enabled else off():
                w, c = measure()
            (on_w if enabled else off_w).append(w)
            (on_c if enabled else off_c).append(c)
    mw, mc, xw, xc = (statistics.median(v) for v in (on_w, on_c, off_w, off_c))
    print(
        f"{name:8s} {figure:34s} with {mw * 1e3:8.1f} ms wall {mc * 1e3:8.1f} ms CPU | "
        f"without {xw * 1e3:8.1f} ms wall {xc * 1e3:8.1f} ms CPU | ratio {xw / mw:5.2f} wall {xc / mc:5.2f} CPU (n={runs})",
        flush=True,
    )


def gone(name: str) -> None:
    print(f"{name:8s} (not in this tree)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--runs", type=int, default=5, help="runs of each figure with and without a piece (default 5)")
    ap.add_argument(
        "--pieces",
        default="mirror,child,cosched,wrapper,bind,reseed,table",
        help="the pieces to measure, comma-separated (default all: mirror,child,cosched,wrapper,bind,reseed,table)",
    )
    ap.add_argument(
        "--table-rows",
        type=int,
        default=10_000,
        help="rows of the `pibench run` table of the table piece (default 10,000)",
    )
    args = ap.parse_args()
    pieces = args.pieces.split(",")
    import world

    print(f"tree: {Path(world.__file__).resolve().parent.parent}")
    import inspect as inspect_mod

    import pibench_tui.sandbox as sandbox_mod

    sandbox_params = inspect_mod.signature(sandbox_mod.Sandbox.__init__).parameters
    if "mirror" in pieces:
        if "kept" in sandbox_params or "version" in sandbox_params:

            @contextlib.contextmanager
            def no_mirror() -> Iterator[None]:
                global _overrides
                # without the parent's mirror steering it: every change empties the agent
                # process's cache and nothing is prefetched (the cache keyed on the version alone)
                _overrides = {"version": None, "prefetch": False}
                if "kept" in sandbox_params:  # main before the wrapper
                    _overrides = {"kept": None, "kept_probe": None, "bind_read": None, "prefetch": False}
                yield
                _overrides = {}

            side_by_side(
                "mirror", "headless career (seed 101)", lambda: headless_career(_overrides), no_mirror, args.runs
            )
        else:
            gone("mirror")
    if "child" in pieces:
        from pibench_tui.sandbox import reads

        @contextlib.contextmanager
        def no_child_cache() -> Iterator[None]:
            global _overrides
            keep = reads.ReadMirror.keep
            reads.ReadMirror.keep = lambda self, text, call, *rest: (self.read(text, call), (None, []))[1]  # type: ignore[method-assign]
            _overrides = {"prefetch": False}
            try:
                yield
            finally:
                reads.ReadMirror.keep = keep  # type: ignore[method-assign]
                _overrides = {}

        side_by_side(
            "child", "headless career (seed 101)", lambda: headless_career(_overrides), no_child_cache, args.runs
        )
    if "cosched" in pieces:
        if "coschedule" in sandbox_params:

            @contextlib.contextmanager
            def no_cosched() -> Iterator[None]:
                global _overrides
                _overrides = {"coschedule": False}
                yield
                _overrides = {}

            side_by_side(
                "cosched", "headless career (seed 101)", lambda: headless_career(_overrides), no_cosched, args.runs
            )
        else:
            gone("cosched")
    if "wrapper" in pieces:
        wrapper_piece(args.runs)
    if "bind" in pieces:
        bind_piece(args.runs)
    if "reseed" in pieces:
        reseed_piece(args.runs)
    if "table" in pieces:
        table_piece(max(1, args.runs // 2), args.table_rows)


_overrides: dict[str, Any] = {}


def wrapper_piece(runs: int) -> None:
    """The read cache around the API against the plain API, in-process and headless."""
    try:
        from world.api import cached  # type: ignore[attr-defined]
    except ImportError:
        gone("wrapper")
        return
    import world.career as career_mod
    import world.runner as runner

    @contextlib.contextmanager
    def plain() -> Iterator[None]:
        real = career_mod.Career.__init__

        def init(self: Any, world: Any, *, cached: bool = False, cache_bytes: Any = None, saves: Any = None) -> None:
            real(self, world, cached=False, saves=saves)

        class Plain:  # what play() wraps a plain API in: nothing
            def __new__(cls, api: Any, **options: Any) -> Any:
                return api

        wrapper_cls = runner.CachedApi
        career_mod.Career.__init__ = init  # type: ignore[method-assign]
        runner.CachedApi = Plain  # type: ignore[misc,assignment]
        try:
            yield
        finally:
            career_mod.Career.__init__ = real  # type: ignore[method-assign]
            runner.CachedApi = wrapper_cls  # type: ignore[misc]

    del cached
    side_by_side("wrapper", "baseline career in-process", in_process_career, plain, runs)

    @contextlib.contextmanager
    def added() -> Iterator[None]:  # headless plays on the plain API: "without" adds the wrapper
        real = career_mod.Career.__init__

        def init(self: Any, world: Any, **options: Any) -> None:
            real(self, world, **{**options, "cached": True})

        career_mod.Career.__init__ = init  # type: ignore[method-assign]
        try:
            yield
        finally:
            career_mod.Career.__init__ = real  # type: ignore[method-assign]

    side_by_side("+wrapper", "headless career (seed 101)", lambda: headless_career({}), added, runs)


def bind_piece(runs: int) -> None:
    """The registry's own argument binding (``registry._bind``) against
    ``inspect.Signature.bind`` (the signature built once per call's parameters)."""
    import inspect

    from world.api import registry

    if not hasattr(registry, "_bind"):
        gone("bind")
        return
    fast = registry._bind
    sigs: dict[tuple[Any, ...], inspect.Signature] = {}

    def signature_bind(
        names: list[str], defaults: dict[str, Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        key = (tuple(names), tuple(defaults.items()))
        sig = sigs.get(key)
        if sig is None:
            sig = sigs[key] = inspect.Signature(
                [
                    inspect.Parameter(
                        n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=defaults.get(n, inspect.Parameter.empty)
                    )
                    for n in names
                ]
            )
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return dict(bound.arguments)

    @contextlib.contextmanager
    def slow() -> Iterator[None]:
        registry._bind = signature_bind
        try:
            yield
        finally:
            registry._bind = fast

    side_by_side("bind", "baseline career in-process", in_process_career, slow, runs)
    side_by_side("bind", "headless career (seed 101)", lambda: headless_career({}), slow, runs)


def reseed_piece(runs: int) -> None:
    """The ctypes re-seeding in ``world/rng.py`` against numpy's ``state`` setter."""
    from world import rng

    if not getattr(rng, "_FAST_RESEED", False):
        gone("reseed")
        return

    @contextlib.contextmanager
    def slow() -> Iterator[None]:
        rng._FAST_RESEED = False
        try:
            yield
        finally:
            rng._FAST_RESEED = True

    side_by_side("reseed", "baseline career in-process", in_process_career, slow, runs)
    side_by_side("reseed", "World() (a sweep's unit)", new_world, slow, runs)


def new_world() -> tuple[float, float]:
    """``World(WorldConfig(), 101)``: (wall s, CPU s)."""
    from world.config import WorldConfig
    from world.engine import World

    t0, c0 = time.perf_counter(), time.process_time()
    World(WorldConfig(), 101)
    return time.perf_counter() - t0, time.process_time() - c0


def table_piece(runs: int, seeds: int) -> None:
    """``pibench run``'s table of ``seeds`` rows printed by FastTable against rich's Table
    (to a console writing nowhere): CPU of the printing alone."""
    try:
        from pibench_tui.cli.fast_table import FastTable, print_table
    except ImportError:
        gone("table")
        return
    import io

    from rich.console import Console
    from rich.table import Table

    cols = ["seed", "impact", "earned", "projection", "papers", "grants", "hires", "quits", "budget", "months"]
    rows = [
        [str(i), f"{i * 1.7:.1f}", str(i % 97), f"{i * 0.3:.1f}", "4", "2", "3", "0", f"{i * 13:,}", "60"]
        for i in range(seeds)
    ]

    def fast() -> tuple[float, float]:
        con = Console(file=io.StringIO(), width=160)
        t0, c0 = time.perf_counter(), time.process_time()
        table = FastTable([(c, "right") for c in cols])
        table.add_rows(lambda: iter(rows), len(rows))
        print_table(con, table)
        return time.perf_counter() - t0, time.process_time() - c0

    def rich_table() -> tuple[float, float]:
        con = Console(file=io.StringIO(), width=160)
        t0, c0 = time.perf_counter(), time.process_time()
        table = Table(title="baseline")
        for c in cols:
            table.add_column(c, justify="right")
        for r in rows:
            table.add_row(*r)
        con.print(table)
        return time.perf_counter() - t0, time.process_time() - c0

    on = [fast() for _ in range(runs)]
    off = [rich_table() for _ in range(runs)]
    mw, mc = statistics.median(x[0] for x in on), statistics.median(x[1] for x in on)
    xw, xc = statistics.median(x[0] for x in off), statistics.median(x[1] for x in off)
    print(
        f"{'table':8s} {f'{seeds:,}-row run table printed':34s} with {mw * 1e3:8.1f} ms wall {mc * 1e3:8.1f} ms CPU | "
        f"without {xw * 1e3:8.1f} ms wall {xc * 1e3:8.1f} ms CPU | +{(xc - mc):.1f} s CPU on the sweep (n={runs})",
        flush=True,
    )


if __name__ == "__main__":
    main()
