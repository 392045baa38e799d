"""``pibench pivots build``: play careers, find decision points, keep the cases the futures
decide (PIVOTS.md "How it is used"; the world side is :mod:`world.pivots`).

A task is one (seed, fork month) of a reference policy's career: the worker replays the
career to that month (deterministic), finds the decisions open there (with ``per_kind``,
only those the survey chose), **screens** each pair
of plans on branches ``1..S`` and **confirms** the survivors on ``S+1..S+C``; a case is kept
when the confirmation passes the keep rule (:func:`world.pivots.keep`). With ``stability``
the kept cases are replayed on the disjoint ``S+C+1..S+2C`` and the sign agreement is counted.

With ``per_kind`` a **survey** comes first: one task per seed plays the career once and notes
at which candidate months each kind of decision is open; then at most ``per_kind`` decisions
of each kind are screened per career, at months spread evenly over those where the kind was
found. A rare kind (a draft waiting for a venue opens ~1.5 times a baseline career) is then
looked for in every month, and a common one (staffing opens every month) is not screened
fifty times a career: screening is where a build spends most of its rollouts.

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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..cli.seeds import file_commitment
from ..harness.rundir import JsonlFile, atomic_write_json, atomic_write_text, read_json, read_jsonl

__all__ = ["BuildSettings", "PRESETS", "build", "find_runs", "run_task", "survey_task"]

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
        per_kind: With ``0`` every decision at every candidate month is screened; else a
            survey first, then at most this many decisions of each kind per career.
        per_kind_by: ``((kind, n), ...)``: with ``per_kind``, at most ``n`` decisions of that
            kind per career instead of ``per_kind`` (a kind that keeps most of what it screens
            needs fewer; a scarce one more).
        stress_kinds: Kinds whose months (with ``per_kind``) are those of the shortest runway on
            the dashboard where the kind was open (ties: the earliest), not months spread evenly:
            grants matter when money does.
        cases: At most this many cases in all (0: no limit).
        stability: Replay kept cases on ``C`` disjoint branches and count sign agreement.
        prefix: Case id prefix.
        commitments: Sealed seeds' public commitments, one per seed in order (empty: the
            seeds are public). Cases then carry the commitment instead of the seed.
        finders: The finder generation that pairs the plans (:data:`world.pivots.FINDER_GENERATIONS`):
            1 the first dev set's pairs, screened whole (the default without a preset); 2 the
            pairs that part ways more often, screened in two halves (the dev preset's).
        min_se: Keep rule, stricter than the issue's floor: |Δ| at least this many standard
            errors of the confirmation's paired differences (0: the floor alone;
            :func:`world.pivots.keep`).
        confirm_stop: Sequential early stop of the confirmation: after its first half of
            branches, a pair whose |Δ| there is below this many standard errors (of that half)
            is dropped without the second half (0: every confirmation plays all ``C``). A kept
            case's key is always the whole confirmation's.
        runs: Recorded agent careers to fork along as well, ``(run directory, SHA-256 of its
            actions.jsonl)`` each (:func:`find_runs`): the career up to the fork is the
            agent's own, the continuation after it the reference policy.
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
    per_kind: int = 0
    cases: int = 0
    stability: bool = True
    prefix: str = "pv"
    commitments: tuple[str, ...] = ()
    runs: tuple[tuple[str, str], ...] = ()
    finders: int = 1
    per_kind_by: tuple[tuple[str, int], ...] = ()
    stress_kinds: tuple[str, ...] = ()
    min_se: float = 0.0
    confirm_stop: float = 0.0

    def months_of(self, kind: str) -> int:
        """How many decisions of ``kind`` a career screens (with ``per_kind``)."""
        return dict(self.per_kind_by).get(kind, self.per_kind)

    def fingerprint(self) -> str:
        """SHA-256 of the settings (a journal of other settings is not resumed)."""
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()


PRESETS: dict[str, BuildSettings] = {
    "dev": BuildSettings(
        seeds=tuple(range(1, 86)),
        months=tuple(range(2, 51)),
        per_kind=4,
        per_kind_by=(("hiring", 2), ("staffing", 3), ("spending", 3), ("topics", 6), ("grants", 6)),
        stress_kinds=("grants",),
        per_career=8,
        screen=8,
        confirm=32,
        prefix="dev",
        finders=2,
        min_se=2.0,
        confirm_stop=1.0,
    ),
    "smoke": BuildSettings(seeds=(1, 2), months=(2, 14), screen=4, confirm=8, prefix="smoke", stability=False),
}
"""Named settings: ``dev`` (the public development set shipped in ``sets/dev``: 85 seeds, at
most 8 cases a career, the keep rule with ``min_se`` 2 and the confirmation's early stop;
docs/pivots.md) and ``smoke`` (a seconds-long check)."""


class _Player:
    """One career of a build played a month at a time: a reference policy's over a seed, or
    a recorded agent run's logged calls (``ref`` = ``"run<i>"``, the i-th of ``settings.runs``).

    Raises:
        ValueError: A run that cannot be used (changed since the build started, sealed, of
            another scenario's rules, or its action log does not replay).
    """

    def __init__(self, settings: BuildSettings, ref: int | str) -> None:
        from scenarios import load_scenario
        from world.api import Api
        from world.api.cached import CachedApi
        from world.engine import World
        from world.policies import ORACLE, make_policy
        from world.runner import AgentView

        config = load_scenario(settings.scenario).config
        self.rows: dict[int, list[Any]] | None = None
        self.seed = ref if isinstance(ref, int) else 0
        if isinstance(ref, str):
            path, digest = settings.runs[int(ref[3:])]
            self.seed, self.rows = _run_rows(path, digest, config.content_hash())
        self.world = World(config, self.seed)
        self.api = CachedApi(Api(self.world))
        self.view: Any = self.api if settings.policy == ORACLE else AgentView(self.api)
        self.policy = make_policy(settings.policy)

    @property
    def over(self) -> bool:
        """The career ended (or a run's log ends here)."""
        return self.world.s.finished or (self.rows is not None and self.world.s.month not in self.rows)

    def step(self) -> None:
        """Play the current month and close it."""
        from world.api import replay_calls

        m = self.world.s.month
        if self.rows is not None:
            replay_calls(self.world, self.rows[m])
            return
        self.policy.act(self.view)
        if self.world.s.month == m and not self.world.s.finished:
            self.api.next_month_unread()  # the record reads the report and the dashboard it needs

    def actions(self) -> list[Any]:
        """The calls made so far (``[month, "ns.method", kwargs]`` rows)."""
        return json.loads(json.dumps(self.world.s.action_log))


def _run_rows(path: str, digest: str, config_hash: str) -> tuple[int, dict[int, list[Any]]]:
    """A run's seed and its logged calls by month (each month's list ends with its close).

    Raises:
        ValueError: As :class:`_Player`.
    """
    import hashlib as _hashlib

    from world.config import WorldConfig

    from ..harness.rundir import read_json as _read_json

    folder = Path(path)
    raw = (folder / "actions.jsonl").read_bytes()
    if _hashlib.sha256(raw).hexdigest() != digest:
        raise ValueError(f"{folder}: actions.jsonl changed since the build started; start a new build")
    res = _read_json(folder / "result.json")
    if not isinstance(res.get("seed"), int):
        raise ValueError(f"{folder}: a sealed run (its seed is withheld) cannot be forked; unseal it first")
    if WorldConfig.from_dict(res["config"]).content_hash() != config_hash:
        raise ValueError(f"{folder}: played with other rules than the build's scenario")
    rows: dict[int, list[Any]] = {}
    for row in read_jsonl(folder / "actions.jsonl", strict=True):
        rows.setdefault(int(row[0]), []).append(row)
    closed = {m: r for m, r in rows.items() if r[-1][1] == "time.next_month"}
    return int(res["seed"]), closed


def find_runs(paths: Sequence[str | os.PathLike[str]]) -> tuple[tuple[str, str], ...]:
    """The finished agent runs under ``paths`` (run directories, or folders holding them at
    any depth), sorted, each with the SHA-256 of its ``actions.jsonl``.

    Raises:
        ValueError: A path that does not exist or holds no finished run.
    """
    found: list[Path] = []
    for p in paths:
        root = Path(p)
        if not root.is_dir():
            raise ValueError(f"--runs {p}: not a folder")
        here = [root] if (root / "result.json").is_file() else sorted(x.parent for x in root.rglob("result.json"))
        here = [x for x in here if (x / "actions.jsonl").is_file()]
        if not here:
            raise ValueError(f"--runs {p}: holds no finished run (a folder with result.json and actions.jsonl)")
        found += here
    return tuple(
        (str(x.resolve()), hashlib.sha256((x / "actions.jsonl").read_bytes()).hexdigest()) for x in sorted(set(found))
    )


def _careers(settings: BuildSettings) -> list[int | str]:
    """The build's careers: its seeds, then its runs (``"run<i>"``)."""
    return [*settings.seeds, *(f"run{i}" for i in range(len(settings.runs)))]


def _record(seed: int | str, month: int, settings: BuildSettings) -> tuple[Any, dict[str, Any], _Player]:
    """The world at the start of ``month`` and the record the PI saw (rules, dashboard, reports)."""
    player = _Player(settings, seed)
    world, api = player.world, player.api
    reports = []
    while world.s.month < month and not player.over:
        player.step()
        reports.append(api.call("time", "last_report", [], {}))  # as the PI was told it (world.report.pi_view)
    record = {
        "rules": api.call("lab", "rules", [], {}),
        "dashboard": api.call("lab", "dashboard", [], {}),
        "reports": reports,
    }
    return world, json.loads(json.dumps(record)), player


def _screen_passes(t: Any, settings: BuildSettings) -> bool:
    """Screening: |Δ| material and at least one standard error from 0."""
    import statistics

    diffs = [a - b for a, b in zip(t.impact["A"], t.impact["B"], strict=True)]
    mean_impact = (statistics.fmean(t.impact["A"]) + statistics.fmean(t.impact["B"])) / 2
    se = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("inf")
    return abs(t.delta) >= max(settings.min_citations, settings.min_share * mean_impact) and abs(t.delta) >= se


#: The fewest branches the first half of a two-half screen has (fewer screen whole: with two
#: or three branches "no branch parted ways" says too little).
SCREEN_HALF_MIN = 4


def _screen(world: Any, d: Any, settings: BuildSettings, cache: dict[Any, Any] | None = None) -> bool:
    """Screen ``d`` on branches ``1..S`` in two halves: when no branch of the first half moves
    Impact by ``min_citations`` between the plans (they did not part ways), the second half is
    not played and the decision fails; else :func:`_screen_passes` on all ``S``. Finder
    generation 1, and a screen of fewer than ``2 * SCREEN_HALF_MIN`` branches, screen on all
    ``S`` at once. ``cache``: :func:`world.pivots.truth`'s, the task's."""
    from world.pivots import Truth, truth

    half = settings.screen // 2
    if half < SCREEN_HALF_MIN or settings.finders < 2:
        return _screen_passes(truth(world, d, range(1, settings.screen + 1), settings.policy, cache), settings)
    t = truth(world, d, range(1, half + 1), settings.policy, cache)
    if all(abs(a - b) < settings.min_citations for a, b in zip(t.impact["A"], t.impact["B"], strict=True)):
        return False
    rest = truth(world, d, range(half + 1, settings.screen + 1), settings.policy, cache)
    both = Truth(
        t.branches + rest.branches,
        {k: t.impact[k] + rest.impact[k] for k in ("A", "B")},
        {k: t.collapsed[k] + rest.collapsed[k] for k in ("A", "B")},
    )
    return _screen_passes(both, settings)


def _confirm(world: Any, d: Any, settings: BuildSettings, cache: dict[Any, Any]) -> Any:
    """The confirmation of ``d`` on branches ``S+1..S+C`` (a :class:`world.pivots.Truth`), or
    ``None`` when the sequential early stop (``confirm_stop``) drops it after the first half:
    |Δ| over those branches below ``confirm_stop`` standard errors. The halves are played in
    branch order and joined, so a confirmation that goes on is the one played whole."""
    from world.pivots import Truth, truth

    s, c = settings.screen, settings.confirm
    half = c // 2
    if settings.confirm_stop <= 0.0 or half < 2:
        return truth(world, d, range(s + 1, s + c + 1), settings.policy, cache)
    first = truth(world, d, range(s + 1, s + half + 1), settings.policy, cache)
    if abs(first.delta) < settings.confirm_stop * first.standard_error():
        return None
    rest = truth(world, d, range(s + half + 1, s + c + 1), settings.policy, cache)
    return Truth(
        first.branches + rest.branches,
        {k: first.impact[k] + rest.impact[k] for k in ("A", "B")},
        {k: first.collapsed[k] + rest.collapsed[k] for k in ("A", "B")},
    )


def survey_task(task: tuple[BuildSettings, int | str]) -> dict[str, Any]:
    """The survey of one career: at which candidate months each kind is open, and (for the
    settings' ``stress_kinds``) the runway the dashboard showed at those months.

    Returns:
        ``{"survey": career, "found": {kind: [month, ...]}}`` (kinds with no month left out),
        with ``stress_kinds`` also ``"runway": [[month, months of runway or None], ...]``.
    """
    from world.api import Api
    from world.pivots import find_decisions

    settings, ref = task
    player = _Player(settings, ref)
    world = player.world
    months, last = set(settings.months), max(settings.months)
    found: dict[str, list[int]] = {}
    runway: list[list[Any]] = []
    while not player.over and world.s.month <= last:
        m = world.s.month
        if m in months:
            found_here = find_decisions(world, settings.kinds, settings.finders, first_of_kind=True)
            kinds = sorted({d.kind for d in found_here})
            for kind in kinds:
                found.setdefault(kind, []).append(m)
            if set(kinds) & set(settings.stress_kinds):  # read on a copy, as the finders do
                runway.append([m, Api(world.fork(1)).call("lab", "dashboard", [], {}).get("runway_months")])
        player.step()
    out: dict[str, Any] = {"survey": ref, "found": found}
    if settings.stress_kinds:
        out["runway"] = runway
    return out


def shortest_runway(months: Sequence[int], runway: dict[int, float | None], n: int) -> list[int]:
    """At most ``n`` of ``months`` (sorted): those with the shortest runway (no runway, a lab
    that burns nothing, counts as endless), ties the earliest.

    >>> shortest_runway([2, 3, 4, 5], {2: None, 3: 30.0, 4: 12.5, 5: 30.0}, 2)
    [3, 4]
    """
    if n <= 0:
        return list(months)
    ranked = sorted(months, key=lambda m: (float("inf") if runway.get(m) is None else float(runway[m] or 0.0), m))
    return sorted(ranked[:n])


def spread(months: Sequence[int], n: int) -> list[int]:
    """At most ``n`` of ``months`` (sorted), spread evenly from the first to the last.

    >>> spread([2, 3, 4, 5, 6, 7, 8], 3)
    [2, 5, 8]
    """
    if n <= 0 or len(months) <= n:
        return list(months)
    if n == 1:
        return [months[len(months) // 2]]
    return [months[round(i * (len(months) - 1) / (n - 1))] for i in range(n)]


def planned(
    settings: BuildSettings, surveys: dict[int | str, dict[str, Any]]
) -> dict[tuple[int | str, int], list[str]]:
    """The (seed, month) tasks and the kinds each screens: every kind at every month without
    ``per_kind``, else the months each seed's survey (a :func:`survey_task` result) offers:
    :func:`spread` evenly, or for ``stress_kinds`` those of the :func:`shortest_runway`, at
    most :meth:`BuildSettings.months_of` each."""
    if not settings.per_kind:
        return {(seed, m): list(settings.kinds) for seed in _careers(settings) for m in settings.months}
    plan: dict[tuple[int | str, int], list[str]] = {}
    for seed in _careers(settings):
        survey = surveys[seed]
        runway = {int(m): r for m, r in survey.get("runway", [])}
        for kind in settings.kinds:
            months, n = survey["found"].get(kind, []), settings.months_of(kind)
            chosen = shortest_runway(months, runway, n) if kind in settings.stress_kinds else spread(months, n)
            for m in chosen:
                plan.setdefault((seed, m), []).append(kind)
    return {k: [kind for kind in settings.kinds if kind in v] for k, v in sorted(plan.items())}


def run_task(
    task: tuple[BuildSettings, int | str, int] | tuple[BuildSettings, int | str, int, list[str]],
) -> dict[str, Any]:
    """One (seed, month): every decision found (of the task's kinds, default the settings'),
    screened, confirmed; the kept cases with keys.

    Returns:
        ``{"seed", "month", "found", "screened", "kept": [{"case", "key"}], "stability": [bool],
        "funnel": {kind: [found, screened, kept]}}``.
    """
    from world.pivots import find_decisions, keep, truth

    settings, seed, month = task[:3]
    kinds = task[3] if len(task) > 3 else list(settings.kinds)
    world, record, player = _record(seed, month, settings)
    out: dict[str, Any] = {
        "seed": seed, "month": month, "found": 0, "screened": 0, "kept": [], "stability": [], "funnel": {}
    }  # fmt: skip
    if world.s.finished or world.s.month != month:
        return out
    run: dict[str, Any] = {}
    if isinstance(seed, str):  # an agent's run: the case carries its calls up to the fork
        path = Path(settings.runs[int(seed[3:])][0])
        run = {"run": f"{path.parent.name}/{path.name}", "actions": player.actions()}
    decisions = find_decisions(world, kinds, settings.finders)
    for d in decisions:
        out["funnel"].setdefault(d.kind, [0, 0, 0])[0] += 1
    out["found"] = len(decisions)
    s, c = settings.screen, settings.confirm
    played: dict[Any, Any] = {}  # rollouts of this fork, shared by pairs with a plan in common
    point: Any = world.fork_point() if decisions else None  # the fork serialised once, for every truth here
    for d in decisions:
        if not _screen(point, d, settings, played):
            continue
        out["screened"] += 1
        out["funnel"][d.kind][1] += 1
        t = _confirm(point, d, settings, played)
        if t is None or not keep(
            t, min_share=settings.min_share, min_citations=settings.min_citations, min_se=settings.min_se
        ):
            continue
        out["funnel"][d.kind][2] += 1
        commitment = (
            dict(zip(settings.seeds, settings.commitments, strict=True)).get(seed)
            if settings.commitments and isinstance(seed, int)
            else None
        )
        who = f"sealed:{commitment[:12]}" if commitment else str(seed)
        what = f"{d.kind}-{d.variant}" if d.variant else d.kind
        if run:
            who = f"run/{run['run']}"
            cid = f"{settings.prefix}-{seed}-{month:02d}-{what}"
        else:
            cid = f"{settings.prefix}-{commitment[:10] if commitment else f'{seed:04d}'}-{month:02d}-{what}"
        key = {"format": 1, "id": cid, **t.key()}
        if settings.stability:
            again = truth(point, d, range(s + c + 1, s + 2 * c + 1), settings.policy, played)
            agree = (again.delta > 0) == (t.delta > 0)
            key["stability"] = {"branches": [s + c + 1, s + 2 * c], "delta": again.delta, "agree": agree}
            out["stability"].append(agree)
        case = {
            "format": 1,
            "id": cid,
            "scenario": settings.scenario,
            "config_hash": world.cfg.content_hash(),
            "seed": None if commitment else player.seed,
            "commitment": commitment,
            "career": who if run else f"{settings.policy}/{who}",
            "policy": settings.policy,
            "fork_month": month,
            "kind": d.kind,
            "capability": d.capability,
            "question": d.question,
            "record": record,
            "plans": {"A": {"text": d.a.text, "code": d.a.code}, "B": {"text": d.b.text, "code": d.b.code}},
            **run,
        }
        out["kept"].append({"case": case, "key": key})
    return out


def _round_robin(items: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """At most ``limit`` of ``items`` (kept cases sorted by id) taken round-robin over kinds,
    so no kind crowds the others out."""
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for k in items:
        by_kind.setdefault(k["case"]["kind"], []).append(k)
    chosen: list[dict[str, Any]] = []
    while len(chosen) < limit and any(by_kind.values()):
        for kind in sorted(by_kind):
            if by_kind[kind] and len(chosen) < limit:
                chosen.append(by_kind[kind].pop(0))
    return chosen


def _select(results: list[dict[str, Any]], settings: BuildSettings) -> list[dict[str, Any]]:
    """Kept cases sorted by id: at most ``per_career`` per seed, then at most ``cases`` in all,
    each cap taken round-robin over kinds."""
    kept = sorted((k for r in results for k in r["kept"]), key=lambda k: k["case"]["id"])
    by_seed: dict[str, list[dict[str, Any]]] = {}
    for k in kept:
        by_seed.setdefault(k["case"]["career"], []).append(k)
    capped = sorted(
        (k for ks in by_seed.values() for k in _round_robin(ks, settings.per_career)), key=lambda k: k["case"]["id"]
    )
    if settings.cases and len(capped) > settings.cases:
        capped = sorted(_round_robin(capped, settings.cases), key=lambda k: k["case"]["id"])
    return capped


def _funnel(results: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Decisions found, screened and kept (before the caps) per kind."""
    out: dict[str, list[int]] = {}
    for r in results:
        for kind, counts in r.get("funnel", {}).items():
            acc = out.setdefault(kind, [0, 0, 0])
            for i, n in enumerate(counts):
                acc[i] += n
    return {k: dict(zip(("found", "screened", "kept"), v, strict=True)) for k, v in sorted(out.items())}


def _worker_init() -> None:
    """A build worker's initializer: Ctrl-C goes to the parent alone, which stops the pool
    (a worker interrupted on its own would print a traceback and leave its task half done)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _map(
    fn: Callable[[Any], dict[str, Any]],
    tasks: Sequence[Any],
    jobs: int,
    cluster: Any,
    journal: JsonlFile,
    done: int,
    total: int,
    progress: Callable[[int, int, str], None] | None,
    what: str = "tasks",
) -> list[dict[str, Any]]:
    """``fn`` over ``tasks`` (locally, in ``jobs`` processes, or on the Dask ``cluster``), each
    result appended to the journal and synced as it comes, in the order they finish.

    An interrupt (Ctrl-C) or an error stops at once: the tasks not started are dropped, the
    worker processes terminated (the cluster's futures cancelled); every result that finished
    is already in the journal, so the same build resumes from there."""
    results: list[dict[str, Any]] = []

    def finished(r: dict[str, Any]) -> None:
        journal.append(r)
        journal.sync()
        results.append(r)
        if progress is not None:
            progress(done + len(results), total, what)

    if cluster is not None:
        from ..sweep.executors import DaskExecutor

        for r in DaskExecutor(cluster).map_unordered(fn, list(tasks)):
            finished(r)
    elif jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            finished(fn(task))
    else:
        import gc
        import multiprocessing

        ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        gc.collect()
        gc.freeze()  # as world.runner's pool: forked workers never walk the parent's objects again
        pool = ctx.Pool(min(jobs, len(tasks)), initializer=_worker_init)
        try:
            for r in pool.imap_unordered(fn, tasks, chunksize=1):
                finished(r)
        except BaseException:
            pool.terminate()  # Ctrl-C or an error: the running tasks are dropped, the queued never start
            raise
        else:
            pool.close()
        finally:
            pool.join()
    return results


def _make_folder(path: Path, option: str) -> None:
    """Create the folder ``path`` (and its parents).

    Raises:
        ValueError: a file is where it (or a folder above it) goes, named with ``option``.
    """
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), path)
        raise ValueError(f"{option} {path}: {blocker} is a file, not a folder; use another {option}") from None


def _folders(settings: BuildSettings, folder: Path, seal: str | os.PathLike[str] | None) -> Path:
    """Check what :func:`build` is asked and make its folders; the folder its journal and
    key go to (``seal`` for a sealed build, else ``folder``).

    Raises:
        ValueError: As :func:`build`.
    """
    if not _careers(settings):
        raise ValueError("nothing to build: no seeds and no runs (--seeds, --runs)")
    if settings.commitments and seal is None:
        raise ValueError(
            "a build on sealed seeds needs a private folder for its key and journal (--seal DIR): "
            "both hold the answers and the seeds"
        )
    if seal is not None and not settings.commitments:
        raise ValueError(
            "--seal needs sealed seeds (--seeds @FILE from pibench seal): cases built on public seeds "
            "can be answered by playing the seeds"
        )
    work = Path(seal) if seal is not None else folder
    if seal is not None and (work.resolve() == folder.resolve() or folder.resolve() in work.resolve().parents):
        raise ValueError(f"--seal {work} is inside --out {folder}: the private folder must not be published with it")
    _make_folder(folder, "--out")
    _make_folder(work, "--seal" if seal is not None else "--out")
    private = seal is not None
    if private:  # the key and the journal's seeds: the owner's alone
        os.chmod(work, 0o700)
        for old in work.iterdir():
            if old.is_file() and not old.is_symlink():
                os.chmod(old, 0o600)
    meta_path = work / "journal.json"
    mine = json.loads(json.dumps(asdict(settings)))
    if meta_path.exists():
        meta = read_json(meta_path)
        if meta.get("fingerprint") != settings.fingerprint():
            raise ValueError(
                f"{folder} holds a build of other settings{_differing(meta.get('settings'), mine)}; use another --out"
            )
    atomic_write_json(
        meta_path, {"format": BUILD_FORMAT, "fingerprint": settings.fingerprint(), "settings": mine}, private=private
    )
    return work


def _differing(theirs: Any, mine: dict[str, Any]) -> str:
    """`` (differ: screen, confirm)``: the settings (:class:`BuildSettings` fields) in which a
    journal's recorded settings ``theirs`` differ from ``mine`` (QA9: the refusal named none);
    ``""`` when the journal recorded none (journals written before it did)."""
    if not isinstance(theirs, dict):
        return ""
    names = [k for k in mine if theirs.get(k) != mine[k]] + sorted(k for k in theirs if k not in mine)
    return f" (differ: {', '.join(names)})" if names else ""


def _run_all(
    settings: BuildSettings,
    work: Path,
    jobs: int,
    cluster: Any,
    progress: Callable[[int, int, str], None] | None,
    *,
    private: bool = False,
) -> list[dict[str, Any]]:
    """The survey (with ``per_kind``) and every task's result, those in the journal taken
    from it, the others run and appended to it (``private``: the journal is ``0o600``)."""
    lines = read_jsonl(work / "journal.jsonl")
    surveys = {r["survey"]: r for r in lines if "survey" in r}
    done = {(r["seed"], r["month"]): r for r in lines if "survey" not in r}
    journal = JsonlFile(work / "journal.jsonl", private=private)
    try:
        if settings.per_kind:
            careers = _careers(settings)
            todo = [(settings, ref) for ref in careers if ref not in surveys]
            for r in _map(
                survey_task, todo, jobs, cluster, journal, len(surveys), len(careers), progress, "careers surveyed"
            ):
                surveys[r["survey"]] = r
        plan = planned(settings, surveys)
        tasks = [(settings, seed, m, kinds) for (seed, m), kinds in plan.items() if (seed, m) not in done]
        results = [done[k] for k in plan if k in done]
        results += _map(run_task, tasks, jobs, cluster, journal, len(results), len(plan), progress)
    finally:
        journal.close()
    return results


def _write(
    settings: BuildSettings, results: list[dict[str, Any]], folder: Path, work: Path, *, sealed: bool
) -> dict[str, Any]:
    """Write the chosen cases, the key and build.json (a sealed build's public build.json
    withholds the seeds and commits to the key); the summary."""
    from pibench_tui import __version__

    chosen = _select(results, settings)
    atomic_write_text(folder / "cases.jsonl", "".join(json.dumps(k["case"], sort_keys=True) + "\n" for k in chosen))
    key_text = "".join(json.dumps(k["key"], sort_keys=True) + "\n" for k in chosen)
    atomic_write_text(work / "key.jsonl", key_text, private=sealed)
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
        "tasks": len(results),
        "funnel_by_kind": _funnel(results),
        "screened": sum(r["screened"] for r in results),
        "kept_before_caps": sum(len(r["kept"]) for r in results),
        "stability": {"checked": len(stability), "agree": sum(stability)},
    }
    atomic_write_json(work / "build.json", summary, private=sealed)
    if sealed:
        public = json.loads(json.dumps(summary))
        public["settings"]["seeds"] = f"sealed ({len(settings.seeds)} seeds)"
        public["sealed"] = {
            "seed_commitment": file_commitment(list(settings.commitments)),
            "key_sha256": hashlib.sha256(key_text.encode("utf-8")).hexdigest(),
        }
        atomic_write_json(folder / "build.json", public)
    return summary


def build(
    settings: BuildSettings,
    out: str | os.PathLike[str],
    *,
    jobs: int = 1,
    cluster: Any = None,
    progress: Callable[[int, int, str], None] | None = None,
    seal: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Build a case set into ``out`` (``cases.jsonl``, ``key.jsonl``, ``build.json``).

    A **sealed** build (``settings.commitments``, seeds from ``pibench seal``) writes only
    ``cases.jsonl`` (commitments, no seeds) and a public ``build.json`` (seeds withheld, the
    key's SHA-256 as its commitment) into ``out``; the key, the full ``build.json`` and the
    journal (which holds seeds and answers) go into the private folder ``seal``. Publish
    ``out``; keep ``seal`` until the evaluation is over, then publish the key and the seal
    file so anyone can check both commitments.

    Args:
        settings: What to build.
        out: The case set folder.
        jobs: Local worker processes (ignored with ``cluster``).
        cluster: A Dask scheduler address (or ``distributed.Client``): the tasks run there,
            as the sweeps' (:class:`~pibench_tui.sweep.executors.DaskExecutor`).
        progress: Called with ``(done, of, what)`` after each task: ``what`` is ``"careers
            surveyed"`` during the survey (with ``per_kind``), then ``"tasks"``.
        seal: The private folder of a sealed build (required with sealed seeds, refused
            without them).

    Raises:
        ValueError: ``out`` holds the journal of a build of other settings; sealed seeds
            without ``seal``, ``seal`` without sealed seeds, or ``seal`` inside ``out``.
        ExecutorError: The cluster cannot be used (the message says why).
        KeyboardInterrupt: Passed on after stopping the workers; the journal keeps every
            finished task (the same call resumes).
    """
    folder = Path(out)
    work = _folders(settings, folder, seal)
    started = time.perf_counter()
    results = _run_all(settings, work, jobs, cluster, progress, private=seal is not None)
    summary = _write(settings, results, folder, work, sealed=seal is not None)
    summary["seconds_this_run"] = round(time.perf_counter() - started, 1)
    return summary
