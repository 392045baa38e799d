"""Run scripted policies over many seeds and scenarios; the statistics of a run (MECHANICS §17).

Pure stdlib + the world: no rich, no textual (the CLI in :mod:`pibench_tui.cli.run_cmds` draws
tables and progress bars). ``--jobs N`` runs seeds in worker processes; a career depends
only on (policy, config, seed), so the rows are identical to a serial run.
"""

from __future__ import annotations

import copy
import dataclasses
import gc
import math
import multiprocessing
import os
import statistics
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any

from .api import ActionError, Api
from .api.cached import CachedApi
from .axes import capability_axes, pool_axes
from .career import Career
from .config import WorldConfig
from .engine import World
from .policies import ALL_NAMES, ORACLE, POLICIES, Baseline, Policy, make_policy

NAMESPACE_NAMES = ("lab", "recruit", "students", "projects", "papers", "grants", "field", "events", "time")
"""The names an agent script sees, besides ``query`` and ``memory``."""

ROW_FIELDS = (
    "seed",
    "impact",
    "earned",
    "projection",
    "collapse_month",
    "papers",
    "top_papers",
    "grant_dollars",
    "grants_won",
    "hires",
    "quits",
    "graduates",
    "final_budget",
    "months",
    "refused",
    "errors",
)
"""Columns of a per-seed result row (also the CSV header)."""


class AgentView:
    """What an API-only policy receives: the namespaces, ``query`` and ``memory``, nothing else.

    There is no ``world`` attribute: a policy that tries ``api.world`` fails loudly.
    """

    __slots__ = (*NAMESPACE_NAMES, "query", "memory")

    def __init__(self, api: Api | CachedApi) -> None:
        for name in NAMESPACE_NAMES:
            object.__setattr__(self, name, getattr(api, name))
        object.__setattr__(self, "query", api.query)
        object.__setattr__(self, "memory", api.memory)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the agent view is read-only")


def build_policy(name: str, world: World, baseline_config: Any = None) -> Policy:
    """A fresh policy by name; only the oracle receives the World.

    Args:
        name: a policy name.
        world: the world (given to the oracle only).
        baseline_config: a :class:`~world.policies.BaselineConfig` for ``baseline`` (grid runs).

    Raises:
        KeyError: unknown policy name.
    """
    if baseline_config is not None and name == "baseline":
        return Baseline(baseline_config)
    if name == ORACLE:
        from .policies.oracle import Oracle

        return Oracle(world)
    return make_policy(name)


def play(world: World, policy: Policy, api: Api | CachedApi | None = None) -> World:
    """Play ``policy`` on ``world`` until the horizon or a collapse.

    Each month calls ``policy.act`` (API-only policies get an :class:`AgentView`, the oracle
    the :class:`~world.api.Api`), then advances the clock unless the policy already did. A
    refusal the policy did not expect is counted in ``policy.errors`` and the month still ends.

    The policy plays through a :class:`~world.api.cached.CachedApi` (``api`` if it is one,
    else one around ``api`` or a new ``Api``): a read made again between two changes is
    answered with the result kept (the reference policies never alter what they read;
    ``tests/policies/test_cached_reads.py``).
    """
    if not isinstance(api, CachedApi):
        api = CachedApi(api or Api(world))
    view: Any = api if policy.name == ORACLE else AgentView(api)
    policy.errors = []  # type: ignore[attr-defined]
    while not world.s.finished:
        month = world.s.month
        try:
            policy.act(view)
        except ActionError as exc:
            policy.errors.append([month, exc.code, exc.message])  # type: ignore[attr-defined]
        if not world.s.finished and world.s.month == month:
            api.next_month_unread()  # logged as time.next_month; no dashboard built for nobody
    return world


def result_row(world: World, policy: Policy | None = None) -> dict[str, Any]:
    """One per-seed row (:data:`ROW_FIELDS`) from a finished world's summary (§12)."""
    s = world.summary()
    return {
        "seed": world.seed,
        "impact": s["impact"],
        "earned": s["citations"],
        "projection": s["projected"],
        "collapse_month": s["collapse_month"],
        "papers": s["publications"],
        "top_papers": s["top_publications"],
        "grant_dollars": s["grant_dollars"],
        "grants_won": s["grants_won"],
        "hires": s["hires"],
        "quits": s["students_quit"],
        "graduates": s["students_graduated"],
        "final_budget": s["final_budget"],
        "months": s["months_survived"],
        "refused": len(policy.refused) if policy is not None else 0,
        "errors": len(getattr(policy, "errors", [])) if policy is not None else 0,
        "axes": capability_axes(world),
    }


def run_career(
    policy: str, seed: int, config: WorldConfig | None = None, baseline_config: Any = None
) -> dict[str, Any]:
    """Play one career of the named policy and return its row.

    Args:
        policy: a name of :data:`world.policies.ALL_NAMES`.
        seed: the world seed.
        config: the world's parameters (default: ``WorldConfig()``).
        baseline_config: for ``baseline`` only, a config other than the default.
    """
    # WorldConfig is frozen: a shallow copy (no re-run of its 270-field __init__) keeps each
    # world its own config object, as dataclasses.replace did, at ~1/40 of the cost
    cfg = copy.copy(config) if config is not None else WorldConfig()
    career = Career.new(cfg, seed, cached=True)  # the API play() makes when given none
    world, api = career.world, career.api
    pol = build_policy(policy, world, baseline_config)
    # the Api holds no reference cycle (world.api.Mirror): the world is freed by reference
    # counting as soon as the row is returned
    play(world, pol, api)
    return result_row(world, pol)


CareerFn = Callable[[str, int, WorldConfig, Any], Any]
"""``career(policy, seed, config, baseline_config)``: one career's result (:func:`run_career`
gives its row); a module-level function, so worker processes can find it by name."""


@dataclasses.dataclass(frozen=True)
class SeedGroup:
    """Careers of one policy under one config (a row group of a sweep).

    Attributes:
        policy: a policy name.
        seeds: the seeds, in result order.
        config: the world's parameters (default ``WorldConfig()``).
        baseline_config: for ``baseline`` only, a config other than the default.
    """

    policy: str
    seeds: tuple[int, ...]
    config: WorldConfig | None = None
    baseline_config: Any = None


#: The groups of the sweep a worker process serves, as ``(policy, config dict, baseline
#: config)``, set once per worker by :func:`_worker_init`; each config is rebuilt at most once
#: per worker (``_worker_configs``), so a task carries only a group index and seeds.
_worker_groups: list[tuple[str, dict[str, Any], Any]] = []
_worker_configs: dict[int, WorldConfig] = {}
_worker_career: CareerFn | None = None


CAREER_GC_THRESHOLD = (50_000, 20, 20)
"""The cyclic collector's thresholds while careers (or pivot rollouts,
:mod:`pibench_tui.pivots.build`) run back to back: a career leaves no cyclic garbage (an Api
holds no reference cycle), so the collector has nothing to find and runs only every 50,000
net allocations instead of every 700."""


def _worker_init(groups: list[tuple[str, dict[str, Any], Any]], career: CareerFn | None) -> None:
    """Set a worker process up for a sweep: its groups and career function, and a cyclic
    garbage collector that runs less often (:data:`CAREER_GC_THRESHOLD`). Memory stays
    flat: every career's world is freed before the next one starts."""
    global _worker_career
    _worker_groups[:] = groups
    _worker_configs.clear()
    _worker_career = career
    gc.set_threshold(*CAREER_GC_THRESHOLD)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="parent-watch", daemon=True).start()


#: How often a sweep worker checks that the process that started it is still there, in seconds.
PARENT_CHECK_S = 1.0


def _exit_with_parent(parent: int) -> None:
    """A worker's watch: exit once ``parent`` (the sweep's process) is gone. A parent killed
    outright (``kill -9``) never shuts its pool down, and a forked worker holds both ends of
    the pool's pipes, so it would wait for work forever."""
    while True:
        time.sleep(PARENT_CHECK_S)
        if os.getppid() != parent:
            os._exit(1)


def _chunk_task(task: tuple[int, list[int]]) -> list[Any]:
    """Several careers of one group in a worker process, in seed order (one task and one
    round trip per chunk instead of per career)."""
    index, seeds = task
    policy, cfg, bcfg = _worker_groups[index]
    config = _worker_configs.get(index)
    if config is None:
        config = _worker_configs[index] = WorldConfig.from_dict(cfg)
    career = _worker_career or run_career
    return [career(policy, seed, config, bcfg) for seed in seeds]


def chunk_size(n: int, jobs: int) -> int:
    """Careers per worker task when ``n`` careers are left: big enough to amortise a task's
    round trip, small enough that rows stream back often (progress bars) and the workers
    finish together (the chunks shrink towards the end of a sweep)."""
    return max(1, min(32, n // (8 * max(1, jobs))))


def _chunks(groups: list[SeedGroup], jobs: int, chunk: int | None) -> Iterator[tuple[int, int, list[int]]]:
    """The tasks of a sweep, ``(group index, first position, seeds)``, in group and seed
    order; each of :func:`chunk_size` for the careers not yet handed out (or ``chunk``)."""
    left = sum(len(g.seeds) for g in groups)
    for i, g in enumerate(groups):
        start = 0
        while start < len(g.seeds):
            size = chunk or chunk_size(left, jobs)
            seeds = list(g.seeds[start : start + size])
            yield i, start, seeds
            start += len(seeds)
            left -= len(seeds)


def run_groups(
    groups: Iterable[SeedGroup],
    jobs: int = 1,
    progress: Callable[[int, Any], None] | None = None,
    career: CareerFn | None = None,
    chunk: int | None = None,
    keep: bool = True,
) -> list[list[Any]]:
    """Every career of every group, per group in seed order; identical whatever ``jobs`` is.

    With ``jobs`` > 1 one pool of worker processes (forked where the platform allows, so the
    world package is imported once, by this process) serves all groups: the groups' configs
    go to each worker once, when it starts, and the seeds in chunks (:func:`chunk_size` over
    the whole sweep), at most a few chunks per worker in flight, so memory stays flat however
    many seeds there are; results stream back to ``progress`` chunk by chunk.

    Args:
        groups: the work.
        jobs: worker processes (1 = in this process).
        progress: called with ``(group index, result)`` as each career finishes (completion
            order).
        career: what a career returns (default :func:`run_career`, its row).
        chunk: careers per task (default :func:`chunk_size`).
        keep: also return the results; ``False``: they only go to ``progress`` (a sweep that
            streams them somewhere keeps none of them here) and the lists are empty.

    Raises:
        KeyError: unknown policy name.
    """
    groups = [dataclasses.replace(g, seeds=tuple(int(s) for s in g.seeds)) for g in groups]
    for g in groups:
        if g.policy not in ALL_NAMES:
            raise KeyError(f"unknown policy {g.policy!r}; policies: {', '.join(ALL_NAMES)}")
    play_one = career or run_career
    if jobs <= 1 or sum(len(g.seeds) for g in groups) <= 1:
        return _run_here(groups, play_one, progress, keep)
    return _run_in_workers(groups, jobs, progress, career, chunk, keep)


def _run_here(
    groups: list[SeedGroup], play_one: CareerFn, progress: Callable[[int, Any], None] | None, keep: bool
) -> list[list[Any]]:
    """:func:`run_groups` in this process, career after career."""
    out = []
    threshold = gc.get_threshold()
    gc.set_threshold(*CAREER_GC_THRESHOLD)  # as in a worker; this process's own setting is put back
    try:
        for i, g in enumerate(groups):
            cfg = g.config if g.config is not None else WorldConfig()
            results = []
            for seed in g.seeds:
                result = play_one(g.policy, seed, cfg, g.baseline_config)
                if keep:
                    results.append(result)
                if progress:
                    progress(i, result)
            out.append(results)
    finally:
        gc.set_threshold(*threshold)
    return out


def _run_in_workers(
    groups: list[SeedGroup],
    jobs: int,
    progress: Callable[[int, Any], None] | None,
    career: CareerFn | None,
    chunk: int | None,
    keep: bool,
) -> list[list[Any]]:
    """:func:`run_groups` in a pool of ``jobs`` worker processes, a few chunks in flight."""
    specs = [
        (g.policy, (g.config if g.config is not None else WorldConfig()).to_dict(), g.baseline_config) for g in groups
    ]
    tasks = _chunks(groups, jobs, chunk)
    slots: list[list[Any]] = [[None] * len(g.seeds) if keep else [] for g in groups]
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    gc.collect()
    gc.freeze()  # forked workers share the parent's objects without the collector touching them
    try:
        with ProcessPoolExecutor(
            max_workers=jobs, mp_context=ctx, initializer=_worker_init, initargs=(specs, career)
        ) as ex:
            pending: dict[Any, tuple[int, int]] = {}
            limit = 4 * jobs  # chunks in flight: the queue never holds the whole sweep
            task = next(tasks, None)
            while task is not None or pending:
                while task is not None and len(pending) < limit:
                    i, start, seeds = task
                    pending[ex.submit(_chunk_task, (i, seeds))] = (i, start)
                    task = next(tasks, None)
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                _collect(done, pending, slots, progress, keep)
    finally:
        gc.unfreeze()
    return slots


def _collect(
    done: Iterable[Any],
    pending: dict[Any, tuple[int, int]],
    slots: list[list[Any]],
    progress: Callable[[int, Any], None] | None,
    keep: bool,
) -> None:
    """The results of the finished chunks ``done`` into ``slots`` and ``progress``; on an error
    or Ctrl-C the chunks still queued are cancelled (not played) and it is raised."""
    try:
        for fut in done:
            i, start = pending.pop(fut)
            for k, result in enumerate(fut.result()):
                if keep:
                    slots[i][start + k] = result
                if progress:
                    progress(i, result)
    except BaseException:
        for fut in pending:
            fut.cancel()
        raise


def run_seeds(
    policy: str,
    seeds: Iterable[int],
    config: WorldConfig | None = None,
    jobs: int = 1,
    progress: Callable[[dict[str, Any]], None] | None = None,
    baseline_config: Any = None,
) -> list[dict[str, Any]]:
    """Rows for every seed, in the order of ``seeds``; identical whatever ``jobs`` is
    (:func:`run_groups` for one group).

    Args:
        policy: a policy name.
        seeds: the seeds.
        config: the world's parameters (default ``WorldConfig()``).
        jobs: worker processes (1 = in this process).
        progress: called with each row as it finishes (completion order).
        baseline_config: for ``baseline`` only, a config other than the default.

    Raises:
        KeyError: unknown policy name.
    """
    group = SeedGroup(policy, tuple(seeds), config, baseline_config)
    return run_groups([group], jobs, (lambda _i, row: progress(row)) if progress else None)[0]


# ------------------------------------------------------------------ statistics
def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Summary statistics of Impact over rows.

    Returns:
        ``n``, ``mean``, ``median``, ``geomean`` (geometric mean of Impact + 1, minus 1 is
        NOT applied: it is the mean of Impact + 1 on a log scale, as reported), ``std``
        (sample standard deviation, 0 for one row), ``collapses``, and the means of papers,
        top papers, grants won and grant dollars.
    """
    n = len(rows)
    if n == 0:
        return {
            "n": 0,
            "mean": 0.0,
            "median": 0.0,
            "geomean": 0.0,
            "std": 0.0,
            "collapses": 0,
            "papers": 0.0,
            "top_papers": 0.0,
            "grants_won": 0.0,
            "grant_dollars": 0.0,
        }
    imp: list[float] = []
    papers, top_papers, grants_won, grant_dollars = [], [], [], []
    collapses = 0
    for r in rows:  # one pass (a sweep's rows may be made from compact columns as they are read)
        imp.append(float(r["impact"]))
        papers.append(r["papers"])
        top_papers.append(r["top_papers"])
        grants_won.append(r["grants_won"])
        grant_dollars.append(r["grant_dollars"])
        collapses += r["collapse_month"] is not None
    return {
        "n": n,
        "mean": statistics.fmean(imp),
        "median": statistics.median(imp),
        "geomean": math.exp(statistics.fmean(math.log(x + 1.0) for x in imp)),
        "std": statistics.stdev(imp) if n > 1 else 0.0,
        "collapses": collapses,
        "papers": statistics.fmean(papers),
        "top_papers": statistics.fmean(top_papers),
        "grants_won": statistics.fmean(grants_won),
        "grant_dollars": statistics.fmean(grant_dollars),
    }


def pooled_axes(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """The §17 capability axes pooled over the rows' careers (see :func:`world.axes.pool_axes`)."""
    return pool_axes([r["axes"] for r in rows if r.get("axes")])


def paired_ratios(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> list[float]:
    """Per seed (Impact_b + 1) / (Impact_a + 1), for rows of the same seeds in the same order.

    Raises:
        ValueError: the two lists are not over the same seeds.
    """
    if [r["seed"] for r in a] != [r["seed"] for r in b]:
        raise ValueError("paired ratios need the same seeds in the same order")
    return [(rb["impact"] + 1.0) / (ra["impact"] + 1.0) for ra, rb in zip(a, b, strict=True)]


MAX_SEEDS = 100_000
"""Most seeds one command runs (a career takes ~0.1 s; 100,000 are hours of work)."""


def parse_seeds(text: str, max_seeds: int = MAX_SEEDS) -> list[int]:
    """``"101,102,103"``, ``"1-200"`` or a mix (``"1-5,9"``) → a list of seeds, in order.

    Args:
        text: the seeds.
        max_seeds: refuse more seeds than this (checked before any list is built).

    Raises:
        ValueError: anything else, an empty item (``1,,2``), a range whose end is below its
            start (``5-1``), or more than ``max_seeds`` seeds (the message says which).
    """
    out: list[int] = []
    forms = "use a list like 101,102,103 or a range like 1-200"
    parts = [part.strip() for part in str(text).split(",")]
    if any(not part for part in parts) and any(parts):
        raise ValueError(f"bad seeds {text!r}: an empty item between commas; {forms}")
    for part in parts:
        if not part:
            continue
        try:
            if "-" in part[1:]:
                lo, hi = part.split("-", 1) if not part.startswith("-") else (part, "")
                lo_i, hi_i = int(lo), int(hi)
            else:
                lo_i = hi_i = int(part)
        except ValueError:
            raise ValueError(f"bad seeds {text!r}: {forms}") from None
        if hi_i < lo_i:
            raise ValueError(f"bad seeds {text!r}: the range {part} ends below its start; write it as {hi_i}-{lo_i}")
        if len(out) + (hi_i - lo_i + 1) > max_seeds:
            raise ValueError(
                f"too many seeds in {text!r}: at most {max_seeds:,} per command "
                f"(this asks for {len(out) + hi_i - lo_i + 1:,}); split the work into several runs"
            )
        out.extend(range(lo_i, hi_i + 1))
    if not out:
        raise ValueError(f"bad seeds {text!r}: use a list like 101,102,103 or a range like 1-200")
    if any(s < 0 for s in out):
        raise ValueError(f"bad seeds {text!r}: seeds are non-negative integers")
    return out


def ablation_configs(base: WorldConfig | None = None) -> dict[str, WorldConfig]:
    """The ablation variants of §17 over ``base``: default, horizon 12, horizon 30, frozen
    field, unlimited attention, no scooping."""
    base = base if base is not None else WorldConfig()
    return {
        "default": dataclasses.replace(base),
        "horizon 12": dataclasses.replace(base, months=12),
        "horizon 30": dataclasses.replace(base, months=30),
        "frozen field": dataclasses.replace(base, frozen_field=True),
        "unlimited attention": dataclasses.replace(base, unlimited_attention=True),
        "no scooping": dataclasses.replace(base, no_scooping=True),
    }


__all__ = [
    "CAREER_GC_THRESHOLD",
    "ROW_FIELDS",
    "AgentView",
    "POLICIES",
    "ablation_configs",
    "build_policy",
    "paired_ratios",
    "parse_seeds",
    "pooled_axes",
    "play",
    "result_row",
    "SeedGroup",
    "run_career",
    "run_groups",
    "run_seeds",
    "summarize",
]
