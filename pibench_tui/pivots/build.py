"""``pibench pivots build``: play careers, find decision points, keep the cases the futures
decide (PIVOTS.md "How it is used"; the world side is :mod:`world.pivots`).

A task is one (seed, fork month) of a reference policy's career: the worker replays the
career to that month (deterministic), finds the decisions open there, **screens** each pair
of plans on branches ``1..S`` and **confirms** the survivors on ``S+1..S+C``; a case is kept
when the confirmation passes the keep rule (:func:`world.pivots.keep`). With ``stability``
the kept cases are replayed on the disjoint ``S+C+1..S+2C`` and the sign agreement is counted.

Every finished task is appended to ``OUT/journal.jsonl``; a build run again with the same
settings skips them, so an interrupted build resumes. Results are sorted by case id before
the files are written, so ``--jobs`` never changes the output.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..harness.rundir import JsonlFile, atomic_write_json, atomic_write_text, read_json, read_jsonl

__all__ = ["BuildSettings", "PRESETS", "build", "run_task"]

BUILD_FORMAT = "pibench-pivots-build/1"


@dataclass(frozen=True)
class BuildSettings:
    """What a build depends on (two builds of equal settings write the same files).

    Attributes:
        scenario: A bundled scenario's name.
        seeds: The careers' seeds.
        policy: The reference policy that plays to the fork and continues after it.
        kinds: Decision kinds looked for.
        months: Candidate fork months.
        screen: Screening branches ``S``.
        confirm: Confirmation branches ``C``.
        min_share: Keep rule: |Δ| at least this share of the plans' mean Impact.
        min_citations: Keep rule: |Δ| at least this many citations.
        per_career: At most this many kept cases per career (seed).
        cases: At most this many cases in all (0: no limit).
        stability: Replay kept cases on ``C`` disjoint branches and count sign agreement.
        prefix: Case id prefix.
    """

    scenario: str = "standard"
    seeds: tuple[int, ...] = (1, 2, 3)
    policy: str = "baseline"
    kinds: tuple[str, ...] = ("hiring", "venue", "grants", "topics", "staffing", "spending")
    months: tuple[int, ...] = (2, 6, 10, 13, 14, 18, 22, 25, 26, 30, 34, 37, 38, 42, 46, 50)
    screen: int = 16
    confirm: int = 128
    min_share: float = 0.05
    min_citations: float = 5.0
    per_career: int = 4
    cases: int = 0
    stability: bool = True
    prefix: str = "pv"

    def fingerprint(self) -> str:
        """SHA-256 of the settings (a journal of other settings is not resumed)."""
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()


PRESETS: dict[str, BuildSettings] = {
    "dev": BuildSettings(seeds=tuple(range(1, 61)), prefix="dev"),
    "smoke": BuildSettings(seeds=(1, 2), months=(2, 14), screen=4, confirm=8, prefix="smoke", stability=False),
}
"""Named settings: ``dev`` (the public development set) and ``smoke`` (a seconds-long check)."""


def _record(seed: int, month: int, settings: BuildSettings) -> tuple[Any, dict[str, Any]]:
    """The world at the start of ``month`` and the record the PI saw (rules, dashboard, reports)."""
    from scenarios import load_scenario
    from world.api import Api
    from world.engine import World
    from world.policies import ORACLE, make_policy
    from world.runner import AgentView

    scen = load_scenario(settings.scenario)
    world = World(scen.config, seed)
    api = Api(world, shared_results=True)
    view: Any = api if settings.policy == ORACLE else AgentView(api)
    pol = make_policy(settings.policy)
    reports = []
    while world.s.month < month and not world.s.finished:
        m = world.s.month
        pol.act(view)
        if world.s.month == m and not world.s.finished:
            api.call("time", "next_month", [], {})
        reports.append(api.call("time", "last_report", [], {}))
    record = {
        "rules": api.call("lab", "rules", [], {}),
        "dashboard": api.call("lab", "dashboard", [], {}),
        "reports": reports,
    }
    return world, json.loads(json.dumps(record))


def _screen_passes(t: Any, settings: BuildSettings) -> bool:
    """Screening: |Δ| material and at least one standard error from 0."""
    import statistics

    diffs = [a - b for a, b in zip(t.impact["A"], t.impact["B"], strict=True)]
    mean_impact = (statistics.fmean(t.impact["A"]) + statistics.fmean(t.impact["B"])) / 2
    se = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("inf")
    return abs(t.delta) >= max(settings.min_citations, settings.min_share * mean_impact) and abs(t.delta) >= se


def run_task(task: tuple[BuildSettings, int, int]) -> dict[str, Any]:
    """One (seed, month): every decision found, screened, confirmed; the kept cases with keys.

    Returns:
        ``{"seed", "month", "found", "screened", "kept": [{"case", "key"}], "stability": [bool]}``.
    """
    from world.pivots import find_decisions, keep, truth

    settings, seed, month = task
    world, record = _record(seed, month, settings)
    out: dict[str, Any] = {"seed": seed, "month": month, "found": 0, "screened": 0, "kept": [], "stability": []}
    if world.s.finished or world.s.month != month:
        return out
    decisions = find_decisions(world, settings.kinds)
    out["found"] = len(decisions)
    s, c = settings.screen, settings.confirm
    for d in decisions:
        if not _screen_passes(truth(world, d, range(1, s + 1), settings.policy), settings):
            continue
        out["screened"] += 1
        t = truth(world, d, range(s + 1, s + c + 1), settings.policy)
        if not keep(t, min_share=settings.min_share, min_citations=settings.min_citations):
            continue
        cid = f"{settings.prefix}-{seed:04d}-{month:02d}-{d.kind}"
        key = {"format": 1, "id": cid, **t.key()}
        if settings.stability:
            again = truth(world, d, range(s + c + 1, s + 2 * c + 1), settings.policy)
            agree = (again.delta > 0) == (t.delta > 0)
            key["stability"] = {"branches": [s + c + 1, s + 2 * c], "delta": again.delta, "agree": agree}
            out["stability"].append(agree)
        case = {
            "format": 1,
            "id": cid,
            "scenario": settings.scenario,
            "config_hash": world.cfg.content_hash(),
            "seed": seed,
            "commitment": None,
            "career": f"{settings.policy}/{seed}",
            "policy": settings.policy,
            "fork_month": month,
            "kind": d.kind,
            "capability": d.capability,
            "question": d.question,
            "record": record,
            "plans": {"A": {"text": d.a.text, "code": d.a.code}, "B": {"text": d.b.text, "code": d.b.code}},
        }
        out["kept"].append({"case": case, "key": key})
    return out


def _select(results: list[dict[str, Any]], settings: BuildSettings) -> list[dict[str, Any]]:
    """Kept cases sorted by id, at most ``per_career`` per seed, then at most ``cases`` in
    all taken round-robin over kinds (so no kind crowds the others out)."""
    kept = sorted((k for r in results for k in r["kept"]), key=lambda k: k["case"]["id"])
    per: dict[int, int] = {}
    capped = []
    for k in kept:
        seed = k["case"]["seed"]
        if per.get(seed, 0) < settings.per_career:
            per[seed] = per.get(seed, 0) + 1
            capped.append(k)
    if not settings.cases or len(capped) <= settings.cases:
        return capped
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for k in capped:
        by_kind.setdefault(k["case"]["kind"], []).append(k)
    chosen: list[dict[str, Any]] = []
    while len(chosen) < settings.cases and any(by_kind.values()):
        for kind in sorted(by_kind):
            if by_kind[kind] and len(chosen) < settings.cases:
                chosen.append(by_kind[kind].pop(0))
    return sorted(chosen, key=lambda k: k["case"]["id"])


def build(
    settings: BuildSettings,
    out: str | os.PathLike[str],
    *,
    jobs: int = 1,
    cluster: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Build a case set into ``out`` (``cases.jsonl``, ``key.jsonl``, ``build.json``).

    Args:
        settings: What to build.
        out: The case set folder.
        jobs: Local worker processes (ignored with ``cluster``).
        cluster: A Dask scheduler address (or ``distributed.Client``): the tasks run there,
            as the sweeps' (:class:`~pibench_tui.sweep.executors.DaskExecutor`).
        progress: Called with ``(tasks done, tasks)`` after each task.

    Raises:
        ValueError: ``out`` holds the journal of a build of other settings.
        ExecutorError: The cluster cannot be used (the message says why).
    """
    from pibench_tui import __version__

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    meta_path = folder / "journal.json"
    if meta_path.exists() and read_json(meta_path).get("fingerprint") != settings.fingerprint():
        raise ValueError(f"{folder} holds a build of other settings; use another --out")
    atomic_write_json(meta_path, {"format": BUILD_FORMAT, "fingerprint": settings.fingerprint()})
    done = {(r["seed"], r["month"]): r for r in read_jsonl(folder / "journal.jsonl")}
    tasks: Sequence[tuple[BuildSettings, int, int]] = [
        (settings, seed, month) for seed in settings.seeds for month in settings.months if (seed, month) not in done
    ]
    journal = JsonlFile(folder / "journal.jsonl")
    total = len(settings.seeds) * len(settings.months)
    started = time.perf_counter()
    try:
        results = list(done.values())

        def finished(r: dict[str, Any]) -> None:
            journal.append(r)
            journal.sync()
            results.append(r)
            if progress is not None:
                progress(len(results), total)

        if cluster is not None:
            from ..sweep.executors import DaskExecutor

            for r in DaskExecutor(cluster).map_unordered(run_task, list(tasks)):
                finished(r)
        elif jobs <= 1:
            for task in tasks:
                finished(run_task(task))
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                for r in pool.map(run_task, tasks, chunksize=1):
                    finished(r)
    finally:
        journal.close()
    chosen = _select(results, settings)
    atomic_write_text(folder / "cases.jsonl", "".join(json.dumps(k["case"], sort_keys=True) + "\n" for k in chosen))
    atomic_write_text(folder / "key.jsonl", "".join(json.dumps(k["key"], sort_keys=True) + "\n" for k in chosen))
    stability = [a for r in results for a in r["stability"]]
    counts: dict[str, int] = {}
    for k in chosen:
        counts[k["case"]["kind"]] = counts.get(k["case"]["kind"], 0) + 1
    summary = {
        "format": BUILD_FORMAT,
        "pibench_version": __version__,
        "settings": asdict(settings),
        "cases": len(chosen),
        "by_kind": dict(sorted(counts.items())),
        "candidates": sum(r["found"] for r in results),
        "screened": sum(r["screened"] for r in results),
        "kept_before_caps": sum(len(r["kept"]) for r in results),
        "stability": {"checked": len(stability), "agree": sum(stability)},
    }
    atomic_write_json(folder / "build.json", summary)
    summary["seconds_this_run"] = round(time.perf_counter() - started, 1)
    return summary
