"""``pibench pivots ...``: the parsers and commands of pivot cases (imported only when run).

``eval`` asks a model every case in both plan orders; ``score`` grades a run directory
against the answer key. (``build`` makes case sets.)
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from pibench_tui.cli.argtypes import input_file_problem, non_negative_int, positive_int

__all__ = ["add_pivots_parser", "cmd_build", "cmd_eval", "cmd_score"]

#: Exit statuses: 0 every session answered; 1 an error (bad file, conflicting run
#: directory, the endpoint failed for some sessions: run the same command again); 2 usage.
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

SCRIPTED_JUDGES = ("first", "baseline", "lookahead")
"""Judges played without an LLM: ``--judge NAME``."""

_EVAL_EPILOG = """\
Each case is asked twice, in fresh conversations with the plan order swapped.
The model must end its reply with the line `ANSWER: 1` or `ANSWER: 2`;
anything else is scored wrong. A killed evaluation resumes when the same
command is run again; a call that fails after its retries is asked again then
(exit 1 names them).

examples:
  pibench pivots eval --cases dev --model qwen2.5 \\
      --base-url http://localhost:11434/v1 --out runs/pv-qwen
  pibench pivots eval --cases dev --judge first --out runs/pv-first
  pibench pivots score runs/pv-qwen runs/pv-first
"""


def add_pivots_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``pivots`` (with ``eval`` and ``score``) to the ``pibench`` subparsers; returns the
    ``pivots`` parser's subparsers holder so ``build`` can be added beside them."""
    from ..harness import defaults

    p = sub.add_parser(
        "pivots",
        help="pivot cases: judgment at decision points, graded by simulated futures",
        description="Pivot cases (docs/pivots.md): build case sets, evaluate a model on them, score the answers.",
    )
    psub = p.add_subparsers(dest="pivots_command", metavar="SUBCOMMAND", required=True)

    ev = psub.add_parser(
        "eval",
        help="ask a model (or a scripted judge) every case in both plan orders",
        description="Ask every case of a set in two fresh conversations (plan order swapped).",
        epilog=_EVAL_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument(
        "--cases", required=True, metavar="DIR", help="a case set folder (or its cases.jsonl), or 'dev' (shipped)"
    )
    ev.add_argument("--out", required=True, metavar="RUN_DIR", help="the run directory (created; resumed if it exists)")
    who = ev.add_mutually_exclusive_group(required=True)
    who.add_argument("--model", help="the model name sent to the endpoint")
    who.add_argument("--judge", choices=SCRIPTED_JUDGES, help="a scripted judge instead of a model")
    ev.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: OpenAI's)")
    ev.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="VAR", help="the key's environment variable")
    ev.add_argument("--command", dest="backend_command", metavar="CMD", help="a local command that answers instead")
    ev.add_argument("--label", help="the row name in scores and reports (default: the model or judge)")
    ev.add_argument(
        "--condition",
        choices=("record", "plans"),
        default="record",
        help="record: the rules, month reports and dashboard at the fork, then the plans; plans: the plans only",
    )
    ev.add_argument("--reconsider", action="store_true", help="one more turn: 'look again', then answer again")
    ev.add_argument("--temperature", type=float, default=defaults.TEMPERATURE, help="sampling temperature")
    ev.add_argument("--max-tokens", type=positive_int, default=1000, help="most output tokens per reply")
    ev.add_argument("--retries", type=non_negative_int, default=defaults.RETRIES, help="retries of a failed call")
    ev.add_argument("--request-timeout", type=float, default=defaults.REQUEST_TIMEOUT, help="seconds per attempt")
    ev.add_argument("--jobs", type=positive_int, default=1, help="sessions asked at once")
    ev.set_defaults(func=cmd_eval)

    from .build import BuildSettings

    d = BuildSettings()
    bd = psub.add_parser(
        "build",
        help="play careers, find decision points, keep the cases the simulated futures decide",
        description="Build a pivot case set: reference-policy careers over --seeds, decision points of each kind "
        "at the candidate months, each pair of plans screened on S branches and confirmed on C fresh ones "
        "(kept when the paired 95 % interval of the Impact difference excludes 0 and the difference is "
        "material). Resumable: run the same command again after an interruption (Ctrl-C keeps every finished "
        "task).",
    )
    bd.add_argument("--out", required=True, metavar="DIR", help="the case set folder (created; resumed if it exists)")
    bd.add_argument(
        "--preset",
        choices=("dev", "smoke"),
        help="named settings (dev: the public development set, docs/pivots.md; smoke: a seconds-long check)",
    )
    bd.add_argument(
        "--seeds",
        metavar="SPEC",
        help="seeds, e.g. 1-40 or 1,5,9, or @FILE (sealed seeds from pibench seal; needs --seal) "
        f"(default: the preset's, else {_spec(d.seeds)})",
    )
    bd.add_argument(
        "--runs",
        action="append",
        metavar="DIR",
        help="also fork along recorded agent runs (run directories of pibench agent, or folders of them; "
        "repeatable): the career up to each fork is the agent's, the continuation the reference policy's",
    )
    bd.add_argument(
        "--seal",
        metavar="DIR",
        help="a sealed build's private folder: the answer key and the journal go here, cases and a public "
        "build.json (the key's SHA-256 as its commitment) into --out",
    )
    bd.add_argument("--scenario", help=f"a bundled scenario (default: {d.scenario})")
    bd.add_argument("--policy", help=f"the reference policy playing to the fork and after it (default: {d.policy})")
    bd.add_argument("--kinds", metavar="K,K", help=f"decision kinds (default: all, {','.join(d.kinds)})")
    bd.add_argument(
        "--branches", metavar="S,C", help=f"screening and confirmation branches (default: {d.screen},{d.confirm})"
    )
    bd.add_argument(
        "--min-effect",
        type=float,
        metavar="SHARE",
        help=f"keep rule: |delta| >= SHARE of mean Impact (default: {d.min_share})",
    )
    bd.add_argument(
        "--min-se",
        type=float,
        metavar="Z",
        help=f"keep rule, stricter: |delta| >= Z standard errors of the paired differences (0: off; "
        f"default: the preset's, else {d.min_se})",
    )
    bd.add_argument(
        "--confirm-stop",
        type=float,
        metavar="Z",
        help="stop a confirmation after half its branches when |delta| there is below Z standard errors "
        f"(0: off; default: the preset's, else {d.confirm_stop})",
    )
    bd.add_argument(
        "--months",
        metavar="SPEC",
        help=f"candidate fork months, e.g. 2-50 or 6,14,30 (default: {_spec(d.months)})",
    )
    bd.add_argument(
        "--per-kind",
        type=int,
        metavar="K",
        help="survey each career first, then screen at most K decisions of each kind per career, at months "
        f"spread over those where the kind is open (0: every decision at every month; default: {d.per_kind})",
    )
    bd.add_argument(
        "--per-career", type=positive_int, metavar="K", help=f"at most K cases per career (default: {d.per_career})"
    )
    bd.add_argument(
        "--cases", type=positive_int, metavar="N", help="at most N cases, round-robin over kinds (default: no limit)"
    )
    bd.add_argument(
        "--finders",
        type=int,
        metavar="N",
        help=f"the finder generation that pairs the plans (docs/pivots.md; default: the preset's, else {d.finders})",
    )
    bd.add_argument("--no-stability", action="store_true", help="skip the re-check on disjoint branches")
    bd.add_argument("--jobs", type=positive_int, default=1, help="worker processes (default: %(default)s)")
    bd.add_argument(
        "--cluster", metavar="ADDRESS", help="run on a Dask cluster instead (tcp://HOST:8786; needs pibench[cluster])"
    )
    bd.add_argument(
        "--send-seeds-to-cluster",
        action="store_true",
        help="with --cluster and sealed seeds (--seeds @FILE): send the seeds to the cluster's workers, which "
        "must know a seed to play its careers (without it the combination is refused)",
    )
    bd.set_defaults(func=cmd_build)

    sc = psub.add_parser(
        "score",
        help="grade pivot evaluation runs against the answer key",
        description="Accuracy per run (both orders averaged per case), 95 % intervals from case and "
        "career-cluster bootstraps, per kind and capability, regret, and record-vs-plans differences.",
    )
    sc.add_argument("runs", nargs="+", metavar="RUN_DIR", help="pivot evaluation run directories")
    sc.add_argument("--key", metavar="FILE", help="the answer key (default: key.jsonl beside the run's cases)")
    sc.add_argument("--json", metavar="FILE", help="also write the scores as JSON")
    sc.set_defaults(func=cmd_score)
    return psub


def _spec(numbers: tuple[int, ...]) -> str:
    """``1-3`` for a run of consecutive numbers, else ``2,6,10``."""
    if numbers and list(numbers) == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 2:
        return f"{numbers[0]}-{numbers[-1]}"
    return ",".join(str(n) for n in numbers)


def _careers_given(args: argparse.Namespace) -> dict[str, Any]:
    """The settings ``--seeds`` and ``--runs`` give (only runs when no seeds are named)."""
    change: dict[str, Any] = {}
    if args.seeds:
        from pibench_tui.cli.seeds import parse_seeds

        spec = parse_seeds(args.seeds)
        change.update(seeds=tuple(spec.seeds), commitments=tuple(spec.commitments))
    if args.runs:
        from .build import find_runs

        change["runs"] = find_runs(args.runs)
        if not args.seeds and not args.preset:
            change["seeds"] = ()
    return change


def _kinds_given(text: str) -> tuple[str, ...]:
    """``--kinds K,K``, each a known kind."""
    from world.pivots import KINDS

    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise ValueError(f"--kinds: unknown {', '.join(bad)}; valid: {', '.join(KINDS)}")
    return kinds


def _branches_given(text: str) -> dict[str, int]:
    """``--branches S,C``: two whole numbers, each 2 or more."""
    try:
        screen, confirm = (int(x) for x in text.split(","))
    except ValueError:
        raise ValueError(f"--branches wants S,C (two whole numbers), got {text!r}") from None
    if screen < 2 or confirm < 2:
        raise ValueError("--branches: S and C must each be 2 or more")
    return {"screen": screen, "confirm": confirm}


def _numbers_given(args: argparse.Namespace) -> dict[str, Any]:
    """The settings of the numeric options given (--min-effect, --months, --per-kind ...)."""
    change: dict[str, Any] = {}
    if args.min_effect is not None:
        if not 0.0 <= args.min_effect < 1.0:
            raise ValueError(f"--min-effect is a share between 0 and 1, got {args.min_effect}")
        change["min_share"] = args.min_effect
    for option, name in ((args.min_se, "min_se"), (args.confirm_stop, "confirm_stop")):
        if option is not None:
            if not 0.0 <= option < 10.0:
                raise ValueError(
                    f"--{name.replace('_', '-')} is a number of standard errors from 0 to 10, got {option}"
                )
            change[name] = option
    if args.months:
        from world.runner import parse_seeds as parse_numbers

        change["months"] = tuple(parse_numbers(args.months))
    if args.per_kind is not None:
        if args.per_kind < 0:
            raise ValueError(f"--per-kind is 0 or more, got {args.per_kind}")
        change["per_kind"] = args.per_kind
    if args.per_career:
        change["per_career"] = args.per_career
    if args.cases:
        change["cases"] = args.cases
    return change


def _build_settings(args: argparse.Namespace) -> Any:
    """The build's settings: the preset's (or the defaults), then each option given.

    Raises:
        ValueError: An option's value is not valid (the message names it and what is).
    """
    import dataclasses

    from .build import PRESETS, BuildSettings

    base = PRESETS[args.preset] if args.preset else BuildSettings()
    change = _careers_given(args) | _numbers_given(args)
    if args.branches:
        change.update(_branches_given(args.branches))
    if args.kinds:
        change["kinds"] = _kinds_given(args.kinds)
    for option, name in ((args.scenario, "scenario"), (args.policy, "policy")):
        if option:
            change[name] = option
    if args.policy:
        from world.policies import POLICIES

        if args.policy not in POLICIES:  # the oracle reads hidden state: no reference for a case
            raise ValueError(f"--policy {args.policy!r} is no reference policy; policies: {', '.join(POLICIES)}")
    if args.no_stability:
        change["stability"] = False
    if args.finders is not None:
        from world.pivots import FINDER_GENERATIONS

        if args.finders not in FINDER_GENERATIONS:
            valid = ", ".join(map(str, sorted(FINDER_GENERATIONS)))
            raise ValueError(f"--finders is a finder generation ({valid}), got {args.finders}")
        change["finders"] = args.finders
    return dataclasses.replace(base, **change)


def cmd_build(args: argparse.Namespace) -> int:
    """Run ``pibench pivots build`` (exit 0, 1 with a message, 2 usage)."""
    from .build import build

    try:
        settings = _build_settings(args)
    except ValueError as exc:
        print(f"pibench pivots build: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        from scenarios import ScenarioError, load_scenario

        horizon = load_scenario(settings.scenario).config.months
    except ScenarioError as exc:  # --scenario names no scenario: the command line is wrong
        print(f"pibench pivots build: --scenario {exc}", file=sys.stderr)
        return EXIT_USAGE
    if any(not 1 <= m < horizon for m in settings.months):
        print(f"pibench pivots build: --months: each fork month must be 1-{horizon - 1} ({settings.scenario} "
              f"lasts {horizon} months)", file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    if args.cluster and args.jobs > 1:
        print("pibench pivots build: choose one of --jobs N and --cluster ADDRESS", file=sys.stderr)
        return EXIT_USAGE
    from ..sweep.executors import sealed_cluster_problem

    refused = sealed_cluster_problem(args.cluster, bool(settings.commitments), args.send_seeds_to_cluster)
    if refused:
        print(f"pibench pivots build: {refused}", file=sys.stderr)
        return EXIT_USAGE
    from ..sweep.executors import ExecutorError

    journal = Path(args.seal or args.out) / "journal.jsonl"
    show = BuildProgress()
    try:
        with show:
            summary = build(settings, args.out, jobs=args.jobs, cluster=args.cluster, progress=show, seal=args.seal)
    except (ValueError, ExecutorError) as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        print(
            f"pibench pivots build: interrupted; {show.done_this_run} task(s) finished in this run are kept in "
            f"{journal}. Run the same command again to resume: finished tasks are not recomputed.",
            file=sys.stderr,
        )
        return EXIT_FAILED
    stab = summary["stability"]
    print(
        f"pibench pivots build: {_count(summary['cases'], 'case')} in {args.out} from "
        f"{_count(summary['tasks'], '(seed, month) task')} "
        f"({summary['candidates']} decisions found, {summary['screened']} passed screening); by kind "
        f"{summary['by_kind']}; stability {stab['agree']}/{stab['checked']} signs agree; "
        f"{summary['seconds_this_run']} s"
    )
    return EXIT_OK


class BuildProgress:
    """The build's progress on stderr: on a terminal a bar with done/total, elapsed time and
    the time left; otherwise (a log, CI) a plain line at every 10 % and at least every
    ``every`` seconds. Called as ``progress(done, of, what)`` (:func:`~.build.build`)."""

    def __init__(self, every: float = 30.0, *, tty: bool | None = None) -> None:
        self.tty = sys.stderr.isatty() if tty is None else tty
        self.every = every
        self.done_this_run = 0
        self._what = ""
        self._last_done = -1
        self._started = 0.0
        self._phase_from = 0.0
        self._first = 0
        self._shown_at = 0.0
        self._shown_tenth = -1
        self._bar: Any = None
        self._job: Any = None
        if self.tty:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                TextColumn("pivots build: {task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("·"),
                TimeElapsedColumn(),
                TextColumn("elapsed · left"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )

    def __enter__(self) -> BuildProgress:
        import time

        self._phase_from = time.monotonic()
        if self._bar is not None:
            self._bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)

    def __call__(self, done: int, of: int, what: str = "tasks") -> None:
        import time

        now = time.monotonic()
        if what != self._what:  # a new phase (the survey, then the tasks)
            self._what, self._started, self._shown_at, self._shown_tenth = what, self._phase_from, now, -1
            self._first = done - 1
            if self._bar is not None:
                self._job = self._bar.add_task(what, total=of, completed=max(0, done - 1))
        self.done_this_run += 1
        self._phase_from = now  # the next phase starts when this task ends
        if self._bar is not None:
            self._bar.update(self._job, completed=done, total=of)
            return
        tenth = 10 * done // max(1, of)
        if tenth == self._shown_tenth and now - self._shown_at < self.every and done < of:
            return
        self._shown_tenth, self._shown_at = tenth, now
        print(f"pivots build: {done}/{of} {what} ({100 * done // max(1, of)} %), {self._times(done, of, now)}",
              file=sys.stderr, flush=True)  # fmt: skip

    def _times(self, done: int, of: int, now: float) -> str:
        """``elapsed 0:01:05, about 0:04:10 left`` (the rate of this run's tasks so far)."""
        import datetime

        spent = now - self._started
        text = f"elapsed {datetime.timedelta(seconds=round(spent))}"
        ran = done - self._first
        if 0 < ran and done < of:
            text += f", about {datetime.timedelta(seconds=round(spent / ran * (of - done)))} left"
        return text


def _count(n: int, noun: str) -> str:
    """``1 case``, ``2 cases``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _fail(text: str) -> int:
    print(f"pibench pivots: {text}", file=sys.stderr)
    return EXIT_FAILED


def cmd_eval(args: argparse.Namespace) -> int:
    """Run ``pibench pivots eval`` (exit 0 all answered, 1 an error or failed calls, 2 usage)."""
    from ..harness.backends import CommandBackend, OpenAIBackend, RetryPolicy
    from .cases import PivotFileError, cases_hash, load_cases, resolve_set
    from .evaluate import BaselineJudge, EvalSettings, FirstJudge, Judge, LookaheadJudge, RunConflict, evaluate

    args.cases = resolve_set(args.cases)
    if not os.path.lexists(args.cases):
        print(
            f"pibench pivots eval: --cases {args.cases}: no such folder or file; give a case set folder "
            "(`pibench pivots build --out DIR`), its cases.jsonl, or a shipped set's name",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        cases = load_cases(args.cases)
    except PivotFileError as exc:
        return _fail(str(exc))
    policy = RetryPolicy(retries=args.retries, timeout=args.request_timeout)

    def make() -> Judge:
        if args.judge == "first":
            return FirstJudge()
        if args.judge == "baseline":
            return BaselineJudge()
        if args.judge == "lookahead":
            return LookaheadJudge()
        if args.backend_command is not None:
            return CommandBackend(
                args.backend_command,
                model=args.model,
                temperature=args.temperature,
                max_tokens=args.max_tokens,
                policy=policy,
            )
        return OpenAIBackend(
            args.model,
            base_url=args.base_url,
            api_key_env=args.api_key_env,
            temperature=args.temperature,
            max_tokens=args.max_tokens,
            policy=policy,
        )

    if args.judge in ("baseline", "lookahead"):
        sealed = [c.id for c in cases if c.raw.get("seed") is None]
        if sealed:
            return _fail(
                f"the {args.judge} judge replays each case's career from its seed, and {len(sealed)} case(s) are "
                f"sealed (e.g. {sealed[0]}); use it on a public set"
            )
    try:
        probe = make()
    except ValueError as exc:
        return _fail(str(exc))
    name = args.judge or args.model
    settings = EvalSettings(
        label=args.label or name,
        model=name,
        condition=args.condition,
        reconsider=bool(args.reconsider),
        cases=str(Path(args.cases).resolve()),
        cases_hash=cases_hash(cases),
        backend={k: v for k, v in probe.describe().items() if k not in ("retries",)},
    )
    total = 2 * len(cases)
    bar = _progress(total)
    try:
        summary = evaluate(cases, make, settings, args.out, jobs=args.jobs, progress=bar)
    except (RunConflict, PivotFileError) as exc:
        return _fail(
            f"{exc} (the answers so far are kept in {args.out})" if isinstance(exc, PivotFileError) else str(exc)
        )
    finally:
        print(file=sys.stderr)
    failed = summary["failed"]
    print(
        f"pibench pivots: {summary['done']} of {total} sessions answered in {args.out} ({summary['asked']} asked now)",
        file=sys.stderr,
    )
    if failed:
        for f in failed[:10]:
            print(f"  {f['id']} order {f['order']}: {f['kind']}: {f['message']}", file=sys.stderr)
        return _fail(f"{len(failed)} session(s) failed after retries; run the same command again to ask them")
    return EXIT_OK


def _progress(total: int) -> Any:
    def show(done: int, of: int) -> None:
        if sys.stderr.isatty():
            print(f"\rpivots: {done}/{of} sessions", end="", file=sys.stderr, flush=True)

    return show


def cmd_score(args: argparse.Namespace) -> int:
    """Run ``pibench pivots score`` (exit 0, or 1 naming each run that could not be scored;
    the other runs are scored all the same)."""
    from pibench_tui.textsafe import visible

    from .cases import PivotFileError
    from .evaluate import PivotRun, load_run, sort_out_runs
    from .score import case_scores, check_answers, paired_difference, score_run

    missing = [run for run in args.runs if not os.path.lexists(run)]
    problem = input_file_problem("--key", args.key, "an answer key (key.jsonl)") if args.key else None
    if missing or problem is not None:
        said = problem or f"{missing[0]}: no such folder; give pivot evaluation run directories (`pivots eval --out`)"
        print(visible(f"pibench pivots score: {said}", newlines=True), file=sys.stderr)
        return EXIT_USAGE
    loaded: list[PivotRun] = []
    errors: list[str] = []
    for run in args.runs:
        try:
            loaded.append(load_run(run, args.key))
        except PivotFileError as exc:
            errors.append(str(exc))
    kept, notes, conflicts = sort_out_runs(loaded)
    notes = [*notes, *(_torn_note(pr.path) for pr in loaded if pr.torn)]
    results: list[dict[str, Any]] = []
    per_run: dict[str, Any] = {}
    for pr in kept:
        checked = check_answers(pr.cases, pr.answers, pr.sessions_per_case, pr.condition, pr.reference_reply())
        scored = score_run(pr.cases, pr.key, pr.answers, pr.sessions_per_case, checked=checked)
        row = {"run": str(pr.path), "label": pr.meta.get("label"), "condition": pr.meta.get("condition"), **scored}
        if pr.path in conflicts:
            row["conflict"] = conflicts[pr.path]
        else:
            per_run[str(pr.path)] = (
                pr.meta,
                case_scores(pr.cases, pr.key, pr.answers, pr.sessions_per_case, checked=checked[0]),
            )
        results.append(row)
    if results:
        _print_table(results)
    pairs = _condition_pairs(per_run, paired_difference)
    for p in pairs:
        lo, hi = p["ci"] or (float("nan"), float("nan"))
        print(visible(
            f"{p['label']}: record − plans = {p['difference']:+.3f} [{lo:+.3f}, {hi:+.3f}] over {_count(p['cases'], 'case')}"
        ))  # fmt: skip
    for note in [*notes, *sorted(set(conflicts.values()))]:
        print(visible(f"pibench pivots score: note: {note}", newlines=True), file=sys.stderr)
    if args.json:
        from ..harness.rundir import atomic_write_json

        atomic_write_json(
            args.json,
            {"runs": results, "record_vs_plans": pairs, "notes": [*notes, *sorted(set(conflicts.values()))],
             "errors": errors},
        )  # fmt: skip
    for e in errors:
        print(visible(f"pibench pivots score: {e}", newlines=True), file=sys.stderr)
    return EXIT_FAILED if errors else EXIT_OK


def _torn_note(run: Path) -> str:
    """The note for a run whose ``answers.jsonl`` ends in a cut line (a killed evaluation)."""
    return (
        f"{run / 'answers.jsonl'} ends in a cut line (the evaluation was stopped mid-write): that "
        "answer is scored as missing; run the same `pibench pivots eval` again to resume the run and answer it"
    )


def _condition_pairs(per_run: dict[str, Any], paired: Any) -> list[dict[str, Any]]:
    by_label: dict[str, dict[str, Any]] = {}
    for meta, scores in per_run.values():
        by_label.setdefault(str(meta.get("label")), {})[str(meta.get("condition"))] = scores
    out = []
    for label, conds in sorted(by_label.items()):
        if "record" in conds and "plans" in conds:
            out.append({"label": label, **paired(conds["record"], conds["plans"])})
    return out


def _print_table(results: list[dict[str, Any]]) -> None:
    """Per run its overall row and folder, what its records held (sessions answered,
    missing, invalid, duplicates: :func:`~pibench_tui.pivots.score.check_answers`), then a
    row per decision kind and a row per capability it tests (PIVOTS.md "Decision kinds"),
    each with both intervals and the regret."""
    from pibench_tui.textsafe import visible

    from .score import integrity_lines

    head = f"{'label':<20} {'cond':<7} {'cases':>5} {'acc':>6} {'95% CI cases':>16} {'95% CI careers':>16} {'regret':>7} {'1st%':>5}"
    print(head)
    for r in results:
        o = r["overall"]
        print(visible(
            f"{str(r['label'])[:20]:<20} {str(r['condition'])[:7]:<7} {o['cases']:>5} {o['accuracy']:>6.3f} "
            f"{_ci(o['ci_cases']):>16} {_ci(o['ci_careers']):>16} {o['regret']:>7.1f} {100 * o['first_plan_share']:>5.0f}"
        ))  # fmt: skip
        print(visible(f"  run folder: {r['run']}"))
        for line in integrity_lines(r["integrity"]):
            print(visible(f"  {line}"))
        if "conflict" in r:
            print(visible(f"  CONFLICT: {r['conflict']}"))
        for title, rows in (("by kind", r["by_kind"]), ("by capability", r.get("by_capability") or {})):
            print(f"  {title}:")
            for name, s in rows.items():
                if len(name) > 24:  # a long capability: its name on a line of its own
                    print(f"    {name}")
                    name = ""
                print(
                    f"    {name:<24} {s['cases']:>5} {s['accuracy']:>6.3f} {_ci(s['ci_cases']):>16} "
                    f"{_ci(s['ci_careers']):>16} {s['regret']:>7.1f}"
                )
        if "reconsidered" in o:
            rc = o["reconsidered"]
            print(
                f"  reconsidered: accuracy {rc['accuracy']:.3f}, repaired {rc['repaired']}, "
                f"introduced {rc['introduced']}"
            )


def _ci(ci: list[float]) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"
