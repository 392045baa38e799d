"""Sweeps: many careers of scripted policies, streamed, resumable, local or on a cluster.

``pibench run | compare | ablate | calibrate | tune`` describe their work as
:class:`Group` s (a policy, world parameters, seeds) and hand them to :func:`run_sweep`,
which

* skips careers an interrupted run of the same sweep already finished (the
  :class:`~pibench_tui.sweep.journal.SweepJournal` beside ``--json``/``--csv``),
* runs the rest on an executor (:class:`LocalExecutor`: this process or ``--jobs N``
  processes; :class:`DaskExecutor`: ``--cluster ADDRESS``), whose rows are identical,
* streams each finished career to the journal, the progress callback and, with
  ``--save-runs DIR``, its run directory,
* names sealed seeds (``--seeds @FILE``) by their commitments in every file it writes
  (run directories, journal rows, so ``--json``/``--csv``, journal settings),
* returns the rows per group in seed order as :class:`GroupRows`: a few numbers a career
  in this process, the full rows in the journal (memory flat in the number of seeds).

Nothing here touches the world's rules: a career is :func:`world.runner.run_career` (or its
recorded twin for run directories). No rich or textual import at module level.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from scenarios import DEFAULT_SCENARIO

from .executors import DaskExecutor, Executor, ExecutorError, Group, LocalExecutor, make_executor
from .journal import (
    JournalError,
    SweepJournal,
    atomic_text_writer,
    atomic_write_text,
    fingerprint,
    journal_path,
    seeds_text,
)
from .results import GroupRows, write_json

__all__ = [
    "DaskExecutor",
    "Executor",
    "ExecutorError",
    "Group",
    "GroupRows",
    "JournalError",
    "LocalExecutor",
    "SweepJournal",
    "atomic_text_writer",
    "atomic_write_text",
    "journal_path",
    "make_executor",
    "run_sweep",
    "sealed_text",
    "sweep_settings",
    "write_json",
]


def sweep_settings(
    command: str, scenario: str, groups: Sequence[Group], sealed: Mapping[int, str] | None = None
) -> dict[str, Any]:
    """The settings a journal is checked against: the command, the scenario, and per group
    its key, policy, world parameters (fingerprint), baseline config and seeds (fingerprint).
    ``sealed`` (seed -> commitment, ``--seeds @FILE``): the seeds are fingerprinted and
    described by their commitments, never by themselves."""

    def seeds_of(g: Group) -> tuple[str, str]:
        if not sealed:
            return fingerprint(list(g.seeds)), seeds_text(list(g.seeds))
        commitments = [sealed[s] for s in g.seeds]
        return fingerprint(commitments), sealed_text(commitments)

    return {
        "command": command,
        "scenario": scenario,
        "groups": [
            {
                "key": g.key,
                "policy": g.policy,
                "config": fingerprint(g.config.to_dict()),
                "baseline_config": dataclasses.asdict(g.baseline_config)
                if dataclasses.is_dataclass(g.baseline_config) and not isinstance(g.baseline_config, type)
                else None,
                "seeds": seeds_of(g)[0],
                "seeds_text": seeds_of(g)[1],
            }
            for g in groups
        ],
    }


def sealed_text(commitments: Sequence[str]) -> str:
    """A short description of sealed seeds for messages, by their labels:
    ``sealed:0a1b2c3d4e5f, sealed:...`` (at most 4 named, then how many)."""
    labels = [f"sealed:{c[:12]}" for c in commitments]
    if len(labels) <= 4:
        return ", ".join(labels) or "no seeds"
    return f"{labels[0]}, {labels[1]}, ... {labels[-1]} ({len(labels):,} sealed seeds)"


def run_sweep(
    groups: Sequence[Group],
    executor: Executor | None = None,
    journal: SweepJournal | None = None,
    progress: Callable[[str, dict[str, Any]], None] | None = None,
    save_runs: str | Path | None = None,
    scenario: str = DEFAULT_SCENARIO,
    axes: bool = False,
    sealed: Mapping[int, str] | None = None,
) -> dict[str, GroupRows]:
    """Every career of ``groups``; the rows per group key, in seed order.

    Args:
        groups: the work (keys must be unique).
        executor: where careers run (default: this process).
        journal: careers already in it are not played again; new ones are appended as they
            finish (and the full rows are read back from it: :meth:`GroupRows.full_rows`).
        progress: called with ``(key, row)`` for each career (its full row), resumed ones
            first, in the order they finished.
        save_runs: write one run directory per career under this folder (resumed careers
            already have theirs: a directory is written before its journal line).
        scenario: the scenario name (run directories' ``scenario``).
        axes: keep what :meth:`GroupRows.pooled_axes` needs.
        sealed: seed -> commitment of sealed seeds (``--seeds @FILE``): their run
            directories and journal rows (so ``--json``/``--csv``) name them by commitment,
            never by seed (:func:`~pibench_tui.sweep.runs.sealed_row`); the rows returned
            for tables keep the seeds (tables show :func:`sealed_text`'s labels).

    Raises:
        ValueError: two groups share a key.
        ExecutorError: the executor cannot run (its message says why), or it returned
            without some careers.
        KeyboardInterrupt: passed on; the journal keeps what finished.
    """
    keys = [g.key for g in groups]
    if len(set(keys)) != len(keys):
        raise ValueError(f"sweep groups need distinct keys, got {keys}")
    executor = executor or LocalExecutor(1)
    sealed = dict(sealed or {})
    unseal = {c: s for s, c in sealed.items()}
    results = {g.key: GroupRows(g.seeds, journal, axes) for g in groups}
    if journal is not None:
        for key, row, offset in journal.read_back():
            if row.get("seed") is None and row.get("seed_commitment") in unseal:
                row = {**row, "seed": unseal[row["seed_commitment"]]}
            rows = results.get(key)
            if rows is None or not rows.wants(int(row["seed"])):  # not this sweep's (settings matched)
                continue
            if rows.add(row, offset) and progress is not None:
                progress(key, row)
    todo = []
    for g in groups:
        missing = results[g.key].missing()
        if missing:
            todo.append(dataclasses.replace(g, seeds=missing))

    def emit(key: str, row: dict[str, Any], run: dict[str, Any] | None) -> None:
        from .runs import sealed_row, write_run

        commitment = sealed.get(int(row["seed"]))
        if save_runs is not None and run is not None:
            write_run(save_runs, key, scenario, run, commitment)
        offset = journal.append(key, sealed_row(row, commitment)) if journal is not None else None
        results[key].add(row, offset)
        if progress is not None:
            progress(key, row)

    if todo:
        executor.run(todo, emit, record=save_runs is not None)
    for key, rows in results.items():
        if rows.missing():
            missing = rows.missing()
            which = sealed_text([sealed[s] for s in missing]) if sealed else seeds_text(missing)
            raise ExecutorError(
                f"{executor.describe()} returned without {len(missing):,} career(s) of {key} (seeds {which})"
            )
    return results
