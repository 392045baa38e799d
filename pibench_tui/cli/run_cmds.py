"""``pibench run | compare | ablate | calibrate | tune``: evaluate scripted policies.

The work is done by :mod:`world.runner` (pure, no UI); this module parses options, shows a
rich progress bar on stderr while careers run, and prints tables on stdout. Nothing heavy
is imported until a command runs (``add_parsers`` only builds argparse parsers).
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import statistics
import sys
from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pibench_tui.cli.argtypes import output_file_problem, positive_int

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from pathlib import Path

    from pibench_tui.sweep import GroupRows

__all__ = ["add_parsers", "cmd_ablate", "cmd_calibrate", "cmd_compare", "cmd_run", "cmd_tune"]

TUNING_SEEDS = (1001, 1002)
"""MECHANICS §17 tunes the baseline grid on these seeds only (never on 101-108)."""

POLICY_SUMMARIES = {
    "do-nothing": "only advances the clock: the zero line",
    "baseline": "the reference PI (MECHANICS §17): hires to a target, mentors evenly, climbs the venue "
    "ladder, proposes to every open call",
    "baseline-tuned": "the baseline with the config `pibench tune` picked",
    "hire-max": "hires and starts projects but never writes a proposal: shows how an unfunded lab collapses",
    "ambitious": "a big lab, heavy mentoring, top-tier projects on the hottest topic",
    "all-in": "the baseline with every project and proposal on the topic most in the news, top tier only",
    "oracle": "reads the hidden state (true abilities, future topic hotness): a ceiling to compare against",
}
"""What each policy of :data:`world.policies.ALL_NAMES` does, in a line (``--help``)."""

CALIBRATION_POLICIES = ("do-nothing", "hire-max", "baseline", "all-in", "oracle")
"""The policies ``pibench calibrate`` plays, in its report's order."""


# ------------------------------------------------------------------ parsers
class _SealedSeeds(list):
    """Seeds from a seal file (``--seeds @FILE``): tables show :attr:`labels` (commitment
    prefixes), files and run directories :attr:`commitments`, never the seeds."""

    labels: dict[int, str]
    commitments: dict[int, str]
    """seed -> its full commitment."""
    commitment: str
    """The seal file's commitment."""


def _seeds_arg(text: str) -> list[int]:
    from pibench_tui.cli.seeds import parse_seeds

    try:
        spec = parse_seeds(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not spec.sealed:
        return spec.seeds
    sealed = _SealedSeeds(spec.seeds)
    sealed.labels = {seed: spec.label(i) for i, seed in enumerate(spec.seeds)}
    sealed.commitments = dict(zip(spec.seeds, spec.commitments, strict=True))
    sealed.commitment = str(spec.commitment)
    return sealed


def _sealed(args: argparse.Namespace) -> dict[int, str] | None:
    """seed -> commitment of the command's sealed seeds (``--seeds @FILE``), else ``None``."""
    return getattr(getattr(args, "seeds", None), "commitments", None)


def _seeds_record(args: argparse.Namespace) -> dict[str, Any]:
    """The seeds as ``--json`` records them: ``{"seeds": [...]}``, or for sealed seeds
    ``{"seeds": null, "seed_commitments": [...], "seal_commitment": ...}`` (the rows then
    have ``seed`` null and ``seed_commitment``; ``pibench unseal`` reveals the seeds)."""
    sealed = _sealed(args)
    if sealed is None:
        return {"seeds": args.seeds}
    return {
        "seeds": None,
        "seed_commitments": [sealed[s] for s in args.seeds],
        "seal_commitment": args.seeds.commitment,
    }


#: Labels of the sealed seeds of this command (set by ``--seeds @FILE``).
_SEED_LABELS: dict[int, str] = {}


def _seed_label(seed: int) -> str:
    """How a seed is shown in tables: itself, or ``sealed:<commitment prefix>``."""
    return _SEED_LABELS.get(seed, str(seed))


_jobs_arg = positive_int


def _common(p: argparse.ArgumentParser, seeds_default: str, csv_rows: str) -> None:
    """``--scenario``, ``--seeds``, ``--jobs``, ``--cluster``, ``--json`` and ``--csv`` (whose
    lines are ``csv_rows``)."""
    from world.runner import MAX_SEEDS

    _scenario_arg(p, "; its own seed is ignored: --seeds decides")
    p.add_argument(
        "--seeds",
        type=_seeds_arg,
        default=_seeds_arg(seeds_default),
        metavar="LIST|RANGE|@FILE",
        help=f"the seeds, one career each: a list (101,102,103), a range (1-200) or a mix (1-5,9), at most "
        f"{MAX_SEEDS:,} (default {seeds_default}); or @FILE, sealed seeds from `pibench seal` (tables then "
        "show commitment prefixes, never the seeds)",
    )
    _executor_args(p)
    _json_arg(p, "the results (every career's row, the summaries)")
    p.add_argument(
        "--csv",
        metavar="FILE",
        dest="csv_file",
        help=f"also write {csv_rows} as CSV; resumable like --json",
    )


def _scenario_arg(p: argparse.ArgumentParser, more: str = "") -> None:
    p.add_argument(
        "--scenario",
        metavar="NAME|PATH",
        help=f"the world: a bundled scenario (`pibench scenarios` lists them) or a .toml file (default: the "
        f"default world){more}",
    )


def _json_arg(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--json",
        metavar="FILE",
        dest="json_file",
        help=f"also write {what} as JSON. Careers are kept in FILE.partial.jsonl as they finish: after "
        "an interruption, run the same command again to resume (the file goes when the sweep completes)",
    )


def _executor_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--jobs",
        type=_jobs_arg,
        default=1,
        metavar="N",
        help="play the careers in N worker processes on this machine (default 1: in this process); "
        "the results are the same whatever N",
    )
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the careers on a Dask cluster instead, e.g. tcp://HOST:8786 (needs pibench[cluster]; "
        "the README shows how to start one); the results are those of --jobs 1",
    )
    p.add_argument(
        "--send-seeds-to-cluster",
        action="store_true",
        help="with --cluster and sealed seeds (--seeds @FILE): send the seeds to the cluster's workers, which "
        "must know a seed to play its career (without it the combination is refused: a cluster may be "
        "remote and is outside this process)",
    )


class _NoSeeds(argparse.Action):
    """``pibench tune --seeds``: refused, saying why (argparse's own message named no reason)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None) -> None:
        seeds = ", ".join(map(str, TUNING_SEEDS))
        parser.error(
            f"tune takes no --seeds: it plays only the tuning seeds {seeds}, so that the evaluation seeds "
            "stay held out (MECHANICS §17); use `pibench run baseline-tuned --seeds ...` to evaluate its pick"
        )


def _help_width() -> int:
    """The width ``--help`` texts are wrapped to: argparse's (the terminal's less 2), at most 100."""
    import shutil

    return max(40, min(shutil.get_terminal_size().columns - 2, 100))


def _policies_epilog(width: int) -> str:
    """The ``policies:`` list of a ``--help``, ``width`` characters wide: each name of
    :data:`world.policies.ALL_NAMES` with its :data:`POLICY_SUMMARIES` line."""
    import textwrap

    from world.policies import ALL_NAMES

    column = max(map(len, ALL_NAMES)) + 4
    lines = ["policies:"]
    for name in ALL_NAMES:
        text = textwrap.wrap(POLICY_SUMMARIES[name], width - column)
        lines.append(f"  {name:<{column - 2}}{text[0]}")
        lines += [" " * column + more for more in text[1:]]
    return "\n".join(lines)


def add_parsers(sub: Any) -> None:
    """Register ``run``, ``compare``, ``ablate``, ``calibrate`` and ``tune`` on ``sub``
    (the ``add_subparsers`` object of the ``pibench`` parser). Their one-line helps are
    :data:`pibench_tui.cli.command.RUN_COMMANDS`; the texts format the policies, ablation variants,
    grid size and tuning seeds from their homes."""
    import textwrap

    from pibench_tui.cli.command import RUN_COMMANDS
    from world.policies import ALL_NAMES, grid
    from world.runner import ablation_configs

    width = _help_width()

    def parser(name: str, description: str, epilog: str | None = None) -> argparse.ArgumentParser:
        return sub.add_parser(
            name,
            help=RUN_COMMANDS[name],
            description=textwrap.fill(description, width),
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,  # keeps the policies' list
        )

    names = ", ".join(ALL_NAMES)
    epilog = _policies_epilog(width)
    p = parser(
        "run",
        "Play one career per seed with a scripted policy and print a line per seed (Impact, papers, "
        "grants, hires, quits, final budget, the month of a collapse) with summary statistics, then "
        "the capability axes pooled over the seeds.",
        epilog,
    )
    p.add_argument("policy", metavar="POLICY", help=f"the policy to play: {names}")
    _common(p, "101,102,103", "one line per career")
    p.add_argument(
        "--save-runs",
        metavar="DIR",
        dest="save_runs",
        help="also write one run directory per career under DIR (DIR/POLICY/SCENARIO-SEED/, or "
        "SCENARIO-sealed-PREFIX/ for a sealed seed: result.json, actions.jsonl, months.jsonl, eval.json) for "
        "pibench report, pibench replay and the replay viewer",
    )
    p.set_defaults(func=cmd_run)

    p = parser(
        "compare",
        "Play two or more policies on the same seeds and print their Impact side by side, with the "
        "paired ratio (Impact + 1) / (first policy's Impact + 1) per seed and its summaries.",
        epilog,
    )
    p.add_argument("policies", nargs="+", metavar="POLICY", help=f"two or more of: {names}")
    _common(p, "101,102,103", "one line per career (with its policy)")
    p.set_defaults(func=cmd_compare)

    variants = ", ".join(ablation_configs())
    p = parser(
        "ablate",
        "Play a policy in each ablation of MECHANICS §17 (the world with one thing changed): "
        f"{variants}; print mean and median Impact, collapses, papers and grants per variant. "
        "Unless the policy is ambitious, the ambitious policy is also played at the normal attention "
        "pool and with unlimited attention, for contrast.",
        epilog,
    )
    p.add_argument("--policy", default="baseline", metavar="POLICY", help=f"the policy (default baseline): {names}")
    _common(p, "101-108", "one line per career (with its variant)")
    p.set_defaults(func=cmd_ablate)

    p = parser(
        "calibrate",
        f"Play {', '.join(CALIBRATION_POLICIES)} on the same seeds and print the facts a "
        "benchmark user checks first: how often and when each collapses, the baseline's survival, "
        "final budgets and Impact spread, all-in's spread against the baseline's, and how far "
        "the oracle is ahead.",
    )
    _common(p, "1-50", "one line per career (with its policy)")
    p.set_defaults(func=cmd_calibrate)

    seeds = ", ".join(map(str, TUNING_SEEDS))
    p = parser(
        "tune",
        f"Play the baseline's {len(grid())} configs of MECHANICS §17 on the tuning seeds {seeds} only (the "
        "evaluation seeds stay held out) and rank them by mean Impact; the default config and the "
        "committed tuned one (policy baseline-tuned) are marked.",
    )
    _scenario_arg(p)
    p.add_argument("--seeds", nargs="?", action=_NoSeeds, help=argparse.SUPPRESS)
    _executor_args(p)
    _json_arg(p, "the ranking")
    p.set_defaults(func=cmd_tune)


# ------------------------------------------------------------------ shared helpers
class _Fail(Exception):
    """A runtime error for the user (exit 1)."""


class _Usage(Exception):
    """Options that do not go together (exit 2)."""


def _console(stderr: bool = False):
    from rich.console import Console

    con = Console(stderr=stderr, highlight=False)
    if not con.is_terminal:  # a pipe or a file: wide enough that no column is cut
        con = Console(stderr=stderr, highlight=False, width=200)
    return con


def _config(args: argparse.Namespace):
    from scenarios import DEFAULT_SCENARIO, ScenarioError, load_scenario

    name = getattr(args, "scenario", None) or DEFAULT_SCENARIO  # named as `play` and `agent` name it
    try:
        sc = load_scenario(name)
    except ScenarioError as exc:  # unknown name, missing or invalid file: the command line is wrong
        raise _Usage(str(exc)) from None
    return sc.config, sc.name


def _shown_scenario(name: str, cfg: Any) -> str:
    """The scenario as a table title names it (:func:`scenarios.scenario_title`: an edited
    copy of standard.toml is ``standard (modified ad3657df)``, never "standard")."""
    from scenarios import scenario_title

    return scenario_title(name, cfg)


def _check_policy(name: str) -> None:
    from world.policies import ALL_NAMES

    if name not in ALL_NAMES:
        raise _Usage(f"unknown policy {name!r}; policies: {', '.join(ALL_NAMES)}")


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any career is played, ``--json``/``--csv`` files that could not be
    written at the end (:func:`~pibench_tui.cli.argtypes.output_file_problem`), or the same file
    for both (the CSV would replace the JSON); and a ``--save-runs`` folder that is a file
    (or inside one).

    Raises:
        _Usage: what is wrong with which option.
    """
    given = [
        (opt, p)
        for opt, p in (("--json", getattr(args, "json_file", None)), ("--csv", getattr(args, "csv_file", None)))
        if p
    ]
    for opt, path in given:
        problem = output_file_problem(opt, path)
        if problem is not None:
            raise _Usage(problem)
    if len(given) == 2 and os.path.realpath(given[0][1]) == os.path.realpath(given[1][1]):
        raise _Usage(f"--json and --csv name the same file ({given[0][1]}); give two different files")
    runs = getattr(args, "save_runs", None)
    if runs:
        found = os.path.abspath(runs)  # the folder, or the nearest of its parents that exists
        while not os.path.exists(found) and os.path.dirname(found) != found:
            found = os.path.dirname(found)
        if not os.path.isdir(found):
            raise _Usage(
                f"--save-runs {runs}: {found} is a file, not a folder; give a folder for the run "
                "directories (created if missing)"
            )


class _Interrupted(Exception):
    """Ctrl-C during a sweep (exit 130); the journal, if any, keeps what finished."""


class _HeldInterrupt:
    """Ctrl-C once every career of a sweep has finished: the command finishes as usual.

    :meth:`hold` (from the moment the last career is in, on the main thread) makes a first
    SIGINT only noted, so the files are written and the tables printed (exit 0) instead of
    "interrupted" with nothing left to resume; a second SIGINT raises ``KeyboardInterrupt``
    as usual (writing the files can still be stopped). :meth:`release` restores the handler
    (:func:`_finishing_journal`) and says on stderr that the Ctrl-C came too late to stop.
    """

    def __init__(self) -> None:
        self.previous: Any = None
        self.held = False
        self.got = 0

    def hold(self) -> None:
        """Note SIGINT instead of raising it, from now until :meth:`release` (main thread only)."""
        import signal
        import threading

        if self.held or threading.current_thread() is not threading.main_thread():
            return

        def on_int(signum: int, frame: Any) -> None:
            self.got += 1
            if self.got > 1:
                raise KeyboardInterrupt

        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            return  # SIGINT is ignored (nohup, a background job): no Ctrl-C can reach the sweep
        self.previous = signal.signal(signal.SIGINT, on_int)
        self.held = True

    def release(self, command: str) -> None:
        """Restore the SIGINT handler; note a Ctrl-C that came after every career had finished."""
        import signal

        if not self.held:
            return
        signal.signal(signal.SIGINT, self.previous)
        self.held = False
        if self.got == 1:
            print(
                f"pibench {command}: Ctrl-C came after every career had finished: the sweep was completed",
                file=sys.stderr,
            )


def _run_many(
    jobs_list: list[tuple[str, str, Any, list[int], Any]],
    args: argparse.Namespace,
    scenario: str,
    axes: bool = False,
) -> dict[str, GroupRows]:
    """Run ``(key, policy, config, seeds, baseline_config)`` jobs with one progress bar.

    Careers run on ``--cluster`` or ``--jobs`` (identical rows), stream into the progress bar
    as they finish and, when ``--json``/``--csv`` is given, into the journal
    ``FILE.partial.jsonl`` (:func:`_journal_of`): run the same command again after an
    interruption and the finished careers are read back, not played again. The journal stays
    locked until :func:`_handle` removes it, once the command has written its files (from
    the journal's rows: :func:`_write_json`, :func:`_write_csv`). The rows come back as
    :class:`~pibench_tui.sweep.GroupRows` (a few numbers a career; ``axes``: with what their
    pooled capability axes need).
    """
    _SEED_LABELS.update(getattr(getattr(args, "seeds", None), "labels", {}))
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from pibench_tui.sweep import (
        ExecutorError,
        Group,
        JournalError,
        SweepJournal,
        make_executor,
        run_sweep,
        sweep_settings,
    )
    from pibench_tui.sweep.executors import sealed_cluster_problem

    cluster = getattr(args, "cluster", None)
    if cluster and getattr(args, "jobs", 1) > 1:
        raise _Usage("choose one of --jobs N (local processes) and --cluster ADDRESS (a Dask cluster)")
    refused = sealed_cluster_problem(cluster, _sealed(args) is not None, getattr(args, "send_seeds_to_cluster", False))
    if refused:
        raise _Usage(refused)
    groups = [Group(key, policy, cfg, tuple(seeds), bcfg) for key, policy, cfg, seeds, bcfg in jobs_list]
    save_runs = getattr(args, "save_runs", None)
    _check_outputs(args)
    err = _console(stderr=True)
    journal = None
    path = _journal_of(args)
    if path is not None:
        settings = {**sweep_settings(args.command, scenario, groups, _sealed(args)), "save_runs": save_runs}
        try:
            journal = SweepJournal(path, settings)
        except JournalError as exc:
            raise _Fail(str(exc)) from None
        except OSError as exc:
            raise _Fail(f"cannot write the sweep journal {path}: {exc}") from None
        args._journal = journal
        if journal.resumed:
            err.print(f"resuming: {journal.resumed:,} finished career(s) read back from {journal.path}")
    total = sum(len(g.seeds) for g in groups)
    holder = args._held_interrupt = _HeldInterrupt()
    try:
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
            transient=True,
            disable=not err.is_terminal,
        ) as bar:
            task = bar.add_task("careers", total=total)

            done = [0]

            def progress(key: str, row: dict) -> None:
                bar.update(task, description=key, advance=1)
                done[0] += 1
                if done[0] == total:  # the last career is in: a Ctrl-C now no longer stops the sweep
                    holder.hold()

            result = run_sweep(
                groups, make_executor(args.jobs, cluster), journal, progress, save_runs, scenario, axes, _sealed(args)
            )
            holder.hold()
            return result
    except ExecutorError as exc:
        raise _Fail(str(exc)) from None
    except OSError as exc:
        raise _Fail(f"cannot write the sweep's files: {exc}") from None
    except KeyboardInterrupt:
        if journal is not None:
            journal.close()
            raise _Interrupted(
                f"interrupted: {journal.count:,} of {total:,} careers kept in {journal.path}; "
                "run the same command again to resume"
            ) from None
        raise _Interrupted("interrupted (write --json or --csv to make a sweep resumable)") from None
    except BaseException:
        if journal is not None:
            journal.close()
        raise
    # A finished sweep's journal stays open and locked until its files are written: _handle
    # removes it then (or closes it if they could not be written).


def _journal_of(args: argparse.Namespace) -> Path | None:
    """Where the sweep's journal is: beside ``--json`` (else ``--csv``), or beside whichever
    of them already has one, so that a sweep interrupted with ``--csv F`` resumes when
    ``--json G`` is added (it used to start over and leave ``F.partial.jsonl`` behind).
    The journal stays beside the file it was made beside: a sweep begun with both (or with
    ``--json``) resumes with any command naming that ``--json`` file, not with ``--csv``
    alone; one begun with ``--csv`` alone resumes only with a command naming that ``--csv``
    file (with or without ``--json``).

    Returns:
        ``None`` without ``--json``/``--csv`` (nothing to resume).

    Raises:
        _Fail: both files have a journal beside them (two interrupted sweeps: which to resume
            is the user's choice).
    """
    from pibench_tui.sweep import journal_path

    outs = [p for p in (getattr(args, "json_file", None), getattr(args, "csv_file", None)) if p]
    if not outs:
        return None
    paths = [journal_path(p) for p in outs]
    found = [p for p in paths if p.exists()]
    if len(found) > 1:
        raise _Fail(
            f"{found[0]} and {found[1]} both hold an interrupted sweep, and this command would resume one "
            "of them; delete the one you do not want to resume (or both, to start over)"
        )
    return found[0] if found else paths[0]


def _print_table(title: str, table: Any) -> None:
    """Print a table under a one-line title: a rich table title wraps to the table's width
    (a narrow compare table made it four short lines) and is padded to the full width."""
    from rich.text import Text

    from pibench_tui.cli.fast_table import print_table

    con = _console()
    con.print(Text(title), soft_wrap=True)
    print_table(con, table)


def _money(x: float) -> str:
    return f"-${-x:,.0f}" if x < 0 else f"${x:,.0f}"


def _num(x: float, nd: int = 1) -> str:
    return f"{x:,.{nd}f}"


def _write_csv(path: str, rows: Iterable[dict], extra: dict[str, Any] | None = None, sealed: bool = False) -> None:
    """Write rows as CSV (atomically, a row at a time: pass the rows as they are read, e.g.
    :meth:`~pibench_tui.sweep.GroupRows.full_rows`): the ``extra`` columns (e.g. ``policy``)
    first, then :data:`ROW_FIELDS`; ``sealed``: with ``seed_commitment`` after ``seed``
    (which is then empty: sealed rows name no seed)."""
    from pibench_tui.sweep import atomic_text_writer
    from world.runner import ROW_FIELDS

    fields = list(extra or {}) + list(ROW_FIELDS)
    if sealed:
        fields.insert(fields.index("seed") + 1, "seed_commitment")
    try:
        with atomic_text_writer(path) as out:
            w = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore")
            w.writeheader()
            for r in rows:
                w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in fields})
    except OSError as exc:
        raise _Fail(f"cannot write {path}: {exc}") from None


def _write_outputs(
    args: argparse.Namespace,
    json_doc: Callable[[], Any],
    csv_rows: Callable[[], Iterable[dict]] | None = None,
    csv_extra: dict[str, Any] | None = None,
) -> None:
    """Write the files the command was asked for (``--json``: ``json_doc()``; ``--csv``:
    ``csv_rows()``, with ``csv_extra`` as in :func:`_write_csv`), then mark them written
    (``args._outputs_written``): :func:`_finishing_journal` removes the sweep's journal once
    the command returns. Called before the tables are printed, so a reader of the tables that
    goes away (``| head``) leaves the files written and nothing to resume."""
    if args.json_file:
        _write_json(args.json_file, json_doc())
    if csv_rows is not None and args.csv_file:
        _write_csv(args.csv_file, csv_rows(), csv_extra, _sealed(args) is not None)
    args._outputs_written = True


def _write_json(path: str, data: Any) -> None:
    """Write ``data`` as indented JSON (atomically); its
    :class:`~pibench_tui.sweep.GroupRows` as the lists of their full rows, read from the
    sweep's journal a row at a time (:func:`~pibench_tui.sweep.write_json`)."""
    from pibench_tui.sweep import write_json

    try:
        write_json(path, data)
    except OSError as exc:
        raise _Fail(f"cannot write {path}: {exc}") from None


def _handle(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A command's errors as messages and exit codes; and its sweep journal (held locked from
    the first career until the files are written) removed once the files are written, or
    closed for a later resume if they were not."""

    def wrapper(args: argparse.Namespace) -> int:
        try:
            return _finishing_journal(fn, args)
        except _Fail as exc:
            print(f"pibench {args.command}: error: {exc}", file=sys.stderr)
            return 1
        except _Usage as exc:
            print(f"pibench {args.command}: error: {exc}", file=sys.stderr)
            return 2
        except _Interrupted as exc:
            print(f"pibench {args.command}: {exc}", file=sys.stderr)
            return 130

    wrapper.__doc__ = fn.__doc__
    wrapper.__name__ = fn.__name__
    return wrapper


def _finishing_journal(fn: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``fn(args)``; then its journal (``args._journal``, set by :func:`_run_many`) is removed
    if the files are written (``args._outputs_written``, set by :func:`_write_outputs`), else
    closed.
    The lock is held until then: a second sweep on the same files cannot start in between."""
    try:
        code = fn(args)
    finally:
        journal = getattr(args, "_journal", None)
        if journal is not None:
            if getattr(args, "_outputs_written", False):
                journal.finish()
            else:
                journal.close()
        holder = getattr(args, "_held_interrupt", None)
        if holder is not None:
            holder.release(args.command)
    return code


# ------------------------------------------------------------------ tables
_COLS = (
    ("impact", "Impact"),
    ("earned", "earned"),
    ("projection", "projection"),
    ("collapse_month", "collapse"),
    ("papers", "papers"),
    ("top_papers", "top"),
    ("grant_dollars", "grant $"),
    ("hires", "hires"),
    ("quits", "quits"),
    ("graduates", "grads"),
    ("final_budget", "final budget"),
)


def _cell(key: str, value: Any) -> str:
    if key == "collapse_month":
        return "—" if value is None else str(value)
    if key in ("grant_dollars", "final_budget"):
        return _money(value)
    if key in ("impact", "earned", "projection"):
        return _num(value)
    if isinstance(value, float):
        return _num(value, 2)
    return str(value)


def stat_rows(rows: Sequence[dict]) -> list[tuple[str, dict[str, str]]]:
    """The summary rows of the per-seed table: mean, median, geomean, std, collapses."""
    from world.runner import summarize

    s = summarize(rows)
    keys = [key for key, _ in _COLS if key != "collapse_month"]
    columns = {key: array("d") for key in keys}  # the same floats as lists of them, 8 bytes each
    for r in rows:  # one pass: each row of a GroupRows is built from its arrays
        for key in keys:
            columns[key].append(float(r[key]))
    out = []
    for label, fn in (
        ("mean", statistics.fmean),
        ("median", statistics.median),
        ("std", lambda xs: statistics.stdev(xs) if len(xs) > 1 else 0.0),
    ):
        cells = {}
        for key, _ in _COLS:
            if key == "collapse_month":
                cells[key] = ""
                continue
            v = fn(columns[key])
            cells[key] = _money(v) if key in ("grant_dollars", "final_budget") else _num(v, 1)
        out.append((label, cells))
    out.insert(2, ("geomean(I+1)", {"impact": _num(s["geomean"], 1)}))
    out.append(("collapses", {"collapse_month": f"{s['collapses']}/{s['n']}"}))
    return out


_AXES_LABELS = {
    "mentoring_share": "mentoring to high-return researchers (share of hours)",
    "mentoring_excess": "  … above a random allocation (roster-matched)",
    "attrition": "attrition (quit PhDs / all PhDs)",
    "risk_calibration": "risk calibration (tier when affordable − otherwise)",
    "anticipation": "anticipation (topic hotness 12 months on − at start)",
    "attention_utilization": "attention utilization (used / pool)",
    "attention_at_ceiling": "months at the attention ceiling",
    "actions_per_month": "actions per month",
    "interviewed_offer_share": "offers made after an interview",
    "grant_hit_rate": "grant hit rate",
    "publications_per_student_year": "publications per student-year",
    "topic_hotness_rank": "true-hotness rank of chosen topics (1 = hottest)",
    "topic_herfindahl": "topic concentration (Herfindahl)",
}


def _axes_table(axes: dict):
    """A two-column table of pooled capability axes (— where undefined)."""
    from rich.table import Table

    t = Table()
    t.add_column("axis")
    t.add_column("value", justify="right")
    for key, label in _AXES_LABELS.items():
        v = axes.get(key)
        t.add_row(label, "—" if v is None else f"{v:.3f}")
    return t


def _per_seed_table(rows: Sequence[dict]):
    """One line per seed, then the summary rows: a :class:`~pibench_tui.cli.fast_table.FastTable`
    (a 10,000-seed table in rich's own ``Table`` took 22 s to print)."""
    from pibench_tui.cli.fast_table import FastTable

    t = FastTable([("seed", "right")] + [(label, "right") for _, label in _COLS])
    # the seed lines are made when the table is measured and again when printed, never kept
    t.add_rows(lambda: ((_seed_label(r["seed"]), *[_cell(k, r[k]) for k, _ in _COLS]) for r in rows), len(rows))
    t.add_section()
    for label, cells in stat_rows(rows):
        t.add_row(label, *[cells.get(k, "") for k, _ in _COLS])
    return t


# ------------------------------------------------------------------ commands
@_handle
def cmd_run(args: argparse.Namespace) -> int:
    """``pibench run POLICY``: per-seed table, summary rows, optional JSON/CSV."""
    from world.runner import summarize

    _check_policy(args.policy)
    cfg, scen = _config(args)
    rows = _run_many([(args.policy, args.policy, cfg, args.seeds, None)], args, scen, axes=True)[args.policy]
    axes = rows.pooled_axes()
    _write_outputs(
        args,
        lambda: {
            "policy": args.policy,
            "scenario": scen,
            "config_hash": cfg.content_hash(),
            **_seeds_record(args),
            "rows": rows,
            "summary": summarize(rows),
            "axes": axes,
        },
        rows.full_rows,
    )
    _print_table(f"{args.policy} on {_shown_scenario(scen, cfg)} ({len(rows)} seeds)", _per_seed_table(rows))
    con = _console()
    _print_table(
        "capability axes (MECHANICS §17, from the hidden evaluation log, pooled over seeds)",
        _axes_table(axes),
    )
    errors = sum(r["errors"] for r in rows)
    if errors:
        con.print(f"[bold]warning:[/] {errors} refused call(s) the policy did not expect")
    return 0


@_handle
def cmd_compare(args: argparse.Namespace) -> int:
    """``pibench compare A B ...``: Impact side by side and paired ratios against A."""
    from pibench_tui.cli.fast_table import FastTable
    from world.runner import paired_ratios, summarize

    names = list(dict.fromkeys(args.policies))
    if len(names) < 2:
        print(
            "usage: pibench compare POLICY_A POLICY_B [POLICY ...] [--seeds ...]\n"
            f"pibench compare: error: compare needs two or more different policies (got {', '.join(names)}); "
            f"to evaluate one policy use `pibench run {names[0]}`",
            file=sys.stderr,
        )
        return 2
    for p in args.policies:
        _check_policy(p)
    cfg, scen = _config(args)
    res = _run_many([(p, p, cfg, args.seeds, None) for p in names], args, scen)
    a = names[0]
    title = f"{' vs '.join(names)} on {_shown_scenario(scen, cfg)} ({len(args.seeds)} seeds); ratio = (Impact+1)/({a} Impact+1)"
    t = FastTable([("seed", "right")] + [(p, "right") for p in names] + [(f"{p}/{a}", "right") for p in names[1:]])
    ratios = {p: paired_ratios(res[a], res[p]) for p in names[1:]}

    def seed_lines() -> Iterator[list[str]]:  # made when the table is measured and again when printed
        for i, per_policy in enumerate(zip(*(res[p] for p in names), strict=True)):
            cells = [_seed_label(args.seeds[i])]
            for r in per_policy:
                cells.append(
                    _num(r["impact"]) + (f" (†{r['collapse_month']})" if r["collapse_month"] is not None else "")
                )
            cells += [f"{ratios[p][i]:.2f}" for p in names[1:]]
            yield cells

    t.add_rows(seed_lines, len(args.seeds))
    t.add_section()
    sums = {p: summarize(res[p]) for p in names}
    _compare_summary_rows(t, names, sums, ratios)
    _write_outputs(
        args,
        lambda: {
            "scenario": scen,
            "config_hash": cfg.content_hash(),
            **_seeds_record(args),
            "policies": names,
            "rows": res,
            "summary": sums,
            "paired_ratios": ratios,
        },
        lambda: ({"policy": p, **r} for p in names for r in res[p].full_rows()),
        {"policy": ""},
    )
    _print_table(title, t)
    return 0


def _ratio_statistic(key: str, rs: list[float]) -> str:
    """The ``key`` statistic (mean, median, geomean, std) of paired ratios ``rs``, to 2 dp."""
    if key == "mean":
        return f"{statistics.fmean(rs):.2f}"
    if key == "median":
        return f"{statistics.median(rs):.2f}"
    if key == "geomean":
        return f"{math.exp(statistics.fmean(math.log(x) for x in rs)):.2f}"
    return f"{statistics.stdev(rs):.2f}" if len(rs) > 1 else "0.00"


def _compare_summary_rows(t: Any, names: list[str], sums: dict[str, Any], ratios: dict[str, list[float]]) -> None:
    """The summary rows under ``pibench compare``'s seeds: mean, median, geomean, std of each
    policy's Impact and of its ratios to the first, then collapses and wins."""
    for label, key in (("mean", "mean"), ("median", "median"), ("geomean", "geomean"), ("std", "std")):
        cells = [_num(sums[p][key]) for p in names]
        cells += [_ratio_statistic(key, ratios[p]) for p in names[1:]]
        t.add_row(label, *cells)
    t.add_row(
        "collapses",
        *[f"{sums[p]['collapses']}/{sums[p]['n']}" for p in names],
        *[f"wins {sum(1 for x in ratios[p] if x > 1)}/{len(ratios[p])}" for p in names[1:]],
    )


@_handle
def cmd_ablate(args: argparse.Namespace) -> int:
    """``pibench ablate``: mean/median Impact, collapses, papers and grants per §17 variant."""
    from rich.table import Table

    from world.runner import ablation_configs, summarize

    _check_policy(args.policy)
    base, scen = _config(args)
    variants = ablation_configs(base)
    jobs = [(v, args.policy, cfg, args.seeds, None) for v, cfg in variants.items()]
    if args.policy != "ambitious":
        # §17 also contrasts the ambitious policy at the normal 100 h pool and with unlimited attention.
        extra = {
            f"ambitious, {base.attention_base:g} h": base,
            "ambitious, unlimited attention": variants["unlimited attention"],
        }
        jobs += [(v, "ambitious", cfg, args.seeds, None) for v, cfg in extra.items()]
        variants = {**variants, **extra}
    res = _run_many(jobs, args, scen)
    title = f"ablations of {args.policy} on {_shown_scenario(scen, base)} ({len(args.seeds)} seeds)"
    t = Table()
    for col in ("variant", "mean Impact", "median Impact", "collapses", "mean papers", "mean grants", "mean grant $"):
        t.add_column(col, justify="left" if col == "variant" else "right")
    sums = {}
    for v in variants:
        s = sums[v] = summarize(res[v])
        t.add_row(
            v,
            _num(s["mean"]),
            _num(s["median"]),
            f"{s['collapses']}/{s['n']}",
            _num(s["papers"], 2),
            _num(s["grants_won"], 2),
            _money(s["grant_dollars"]),
        )
    _write_outputs(
        args,
        lambda: {"policy": args.policy, "scenario": scen, **_seeds_record(args), "rows": res, "summary": sums},
        lambda: ({"variant": v, **r} for v in variants for r in res[v].full_rows()),
        {"variant": ""},
    )
    _print_table(title, t)
    return 0


def _quantiles(xs: list[float], fmt: Callable[[float], str] = _num) -> str:
    xs = sorted(xs)
    if len(xs) < 2:
        return ", ".join(fmt(x) for x in xs)
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return f"min {fmt(xs[0])}, q1 {fmt(q[0])}, median {fmt(q[1])}, q3 {fmt(q[2])}, max {fmt(xs[-1])}"


def calibration_report(res: Mapping[str, Sequence[dict]]) -> list[str]:
    """The lines of the calibration report from rows of do-nothing, hire-max, baseline,
    all-in and oracle over the same seeds."""
    from world.runner import paired_ratios, summarize

    n = len(res["baseline"])
    lines = []
    dn = res["do-nothing"]
    dsum = summarize(dn)
    lines.append(
        f"do-nothing: collapses {dsum['collapses']}/{n}; Impact mean {_num(dsum['mean'])}, max {_num(max(r['impact'] for r in dn))}; "
        f"final budget {_money(statistics.fmean(r['final_budget'] for r in dn))} (mean)"
    )
    hm = res["hire-max"]
    months = sorted(r["collapse_month"] for r in hm if r["collapse_month"] is not None)
    hsum = summarize(hm)
    if months:
        lines.append(
            f"hire-max: collapses {len(months)}/{n}; collapse month min {months[0]}, median {statistics.median(months):g}, "
            f"max {months[-1]}; Impact mean {_num(hsum['mean'])}"
        )
    else:
        lines.append(f"hire-max: collapses 0/{n}; Impact mean {_num(hsum['mean'])}")
    b = res["baseline"]
    bsum = summarize(b)
    survived = [r["final_budget"] for r in b if r["collapse_month"] is None]  # their final budgets
    bcm = sorted(r["collapse_month"] for r in b if r["collapse_month"] is not None)
    lines.append(
        f"baseline: survival {len(survived)}/{n} ({100.0 * len(survived) / n:.0f}%)"
        + (f"; collapse months median {statistics.median(bcm):g} (min {bcm[0]}, max {bcm[-1]})" if bcm else "")
    )
    if survived:
        lines.append(f"baseline final budgets (survivors): {_quantiles(survived, _money)}")
    lines.append(
        f"baseline Impact: mean {_num(bsum['mean'])}, geomean(Impact+1) {_num(bsum['geomean'])}, std {_num(bsum['std'])}; {_quantiles([r['impact'] for r in b])}"
    )
    lines.append(
        f"baseline papers mean {_num(bsum['papers'], 2)}, top papers mean {_num(bsum['top_papers'], 2)}, grants mean {_num(bsum['grants_won'], 2)} ({_money(bsum['grant_dollars'])})"
    )
    a = res["all-in"]
    asum = summarize(a)
    cv = lambda s: s["std"] / s["mean"] if s["mean"] else float("nan")  # noqa: E731
    lines.append(
        f"all-in: Impact mean {_num(asum['mean'])}, median {_num(asum['median'])}, std {_num(asum['std'])} "
        f"(CV {cv(asum):.2f} vs baseline CV {cv(bsum):.2f}), collapses {asum['collapses']}/{n}; {_quantiles([r['impact'] for r in a])}"
    )
    o = res["oracle"]
    osum = summarize(o)
    ratios = paired_ratios(b, o)
    lines.append(
        f"oracle: Impact mean {_num(osum['mean'])}, median {_num(osum['median'])}, collapses {osum['collapses']}/{n}; "
        f"oracle/baseline mean ratio {osum['mean'] / bsum['mean'] if bsum['mean'] else float('nan'):.2f}, "
        f"paired (Impact+1) ratio geomean {math.exp(statistics.fmean(math.log(x) for x in ratios)):.2f}, "
        f"oracle better on {sum(1 for x in ratios if x > 1)}/{n} seeds"
    )
    return lines


@_handle
def cmd_calibrate(args: argparse.Namespace) -> int:
    """``pibench calibrate``: the report a benchmark user checks first (see :func:`calibration_report`)."""
    from world.runner import summarize

    cfg, scen = _config(args)
    policies = list(CALIBRATION_POLICIES)
    res = _run_many([(p, p, cfg, args.seeds, None) for p in policies], args, scen)
    _write_outputs(
        args,
        lambda: {
            "scenario": scen,
            "config_hash": cfg.content_hash(),
            **_seeds_record(args),
            "rows": res,
            "summary": {p: summarize(res[p]) for p in policies},
        },
        lambda: ({"policy": p, **r} for p in policies for r in res[p].full_rows()),
        {"policy": ""},
    )
    con = _console()
    first, last = _seed_label(args.seeds[0]), _seed_label(args.seeds[-1])
    con.print(f"[bold]Calibration[/] on {_shown_scenario(scen, cfg)}, {len(args.seeds)} seeds ({first}..{last})")
    for line in calibration_report(res):
        con.print("  " + line)
    return 0


@_handle
def cmd_tune(args: argparse.Namespace) -> int:
    """``pibench tune``: the 16-config grid on seeds 1001, 1002, ranked by mean Impact."""
    from rich.table import Table

    from world.policies import DEFAULT_CONFIG, TUNED_CONFIG, grid
    from world.runner import summarize

    cfg, scen = _config(args)
    configs = grid()
    res = _run_many([(c.label(), "baseline", cfg, list(TUNING_SEEDS), c) for c in configs], args, scen)
    ranked = sorted(configs, key=lambda c: (-summarize(res[c.label()])["mean"], configs.index(c)))
    t = Table(title=f"baseline grid on {scen}, tuning seeds {', '.join(map(str, TUNING_SEEDS))}", title_justify="left")
    for col in ("rank", "config", "mean Impact", *[f"seed {s}" for s in TUNING_SEEDS], "collapses", ""):
        t.add_column(col, justify="left" if col in ("config", "") else "right")
    for i, c in enumerate(ranked, 1):
        rows = res[c.label()]
        s = summarize(rows)
        mark = " ".join(x for x, ok in (("default", c == DEFAULT_CONFIG), ("committed tuned", c == TUNED_CONFIG)) if ok)
        t.add_row(str(i), c.label(), _num(s["mean"]), *[_num(r["impact"]) for r in rows], str(s["collapses"]), mark)
    _write_outputs(
        args,
        lambda: {
            "scenario": scen,
            "seeds": list(TUNING_SEEDS),
            "ranking": [
                {
                    "config": c.label(),
                    "mean": summarize(res[c.label()])["mean"],
                    "impacts": [r["impact"] for r in res[c.label()]],
                }
                for c in ranked
            ],
        },
    )
    con = _console()
    con.print(t)
    best = ranked[0]
    con.print(
        f"best: {best.label()}"
        + ("" if best == TUNED_CONFIG else f"  (differs from the committed TUNED_CONFIG: {TUNED_CONFIG.label()})")
    )
    return 0
