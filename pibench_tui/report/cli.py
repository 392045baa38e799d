"""``pibench report DIR... [--html out.html] [--json out.json]``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pibench_tui.cli.argtypes import check_budget, input_file_problem, output_file_problem
from pibench_tui.harness.defaults import CHECK_BUDGET
from pibench_tui.harness.runcheck import PLAIN_LISTED
from pibench_tui.pricing import Price, parse_price
from pibench_tui.textsafe import visible

__all__ = ["add_report_parser", "cmd_report"]

_EPILOG = """\
Inputs: run directories written by `pibench agent` or `pibench run
--save-runs`, folders holding them, and JSON files written by `pibench run
--json` / `pibench compare --json`. The report re-derives, it never believes: a
career's Impact is valid only when this command re-simulated it from its
action log and the full config its run recorded (sealed careers with --seal
FILE). A result that does not reproduce, a damaged file or a copied run folder
is invalid, listed with its reason, and counts as Impact 0 in every aggregate.
Careers that could not be re-simulated (unverified), and unfinished or crashed
ones, are listed in rows of their own and counted in the "missing" column,
never in a mean (unverified ones are with --trust-unverified, marked ‡ wherever
they enter a figure), as are seeds other labels of the scenario played that a
label has no run folder for. Invalid and unverified careers show no figures of
their files. A folder among the runs that is not one (a link to a folder, a
folder of other things) is listed as "not a run" (more than {plain_listed} folders
of other things below one path, as in /tmp, as one line with their count). On
a terminal a progress bar on stderr follows a long walk or read. A scenario is
its content: "standard" only when the config's hash is the bundled scenario's;
pairs of labels are of one scenario. Tokens and integrity flags come from
transcript.jsonl.

examples:
  pibench report runs/ --html report.html
  pibench report runs/ baseline.json --reference baseline --price gpt-4.1=2,8
"""


def _price(text: str) -> tuple[str, Price]:
    try:
        return parse_price(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_report_parser(sub: Any) -> None:
    """Register ``report`` on the ``pibench`` subparsers."""
    p = sub.add_parser(
        "report",
        help="leaderboard, census, legibility and figures from runs (HTML, JSON)",
        description="Turn runs (models and policies) into a leaderboard with per-seed spread,\n"
        "confidence intervals, capability axes, the census and legibility; figures\nin HTML.",
        epilog=_EPILOG.replace("{plain_listed}", f"{PLAIN_LISTED:,}"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="DIR|FILE", help="run directories, folders of them, or run --json files")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML page (figures embedded)")
    p.add_argument("--json", dest="json_file", metavar="FILE", help="write the report as JSON")
    p.add_argument("--reference", metavar="LABEL", help="label for paired differences (default: baseline if present)")
    p.add_argument(
        "--price",
        type=_price,
        action="append",
        default=[],
        metavar="LABEL=IN,OUT[,CACHED]",
        help="USD per million prompt, completion and (optional) cached prompt tokens for LABEL (or model), for "
        "the cost per career (abandoned attempts' tokens included); repeatable",
    )
    p.add_argument(
        "--no-simulate",
        action="store_true",
        help="no re-simulation (faster): every career is unverified, counted only with --trust-unverified",
    )
    p.add_argument(
        "--seal",
        metavar="FILE",
        help="the seal file of `pibench seal`: re-simulates sealed careers (after the evaluation); "
        "without it they are unverified",
    )
    p.add_argument(
        "--trust-unverified",
        action="store_true",
        help="count careers that were not re-simulated (sealed without --seal, --no-simulate, unknown "
        "policies) with the Impact their result.json records; every figure they enter is marked ‡ (they "
        "are not evidence), and their other figures are not shown",
    )
    p.add_argument(
        "--check-transcripts",
        action="store_true",
        help="re-run each agent career's recorded code in a fresh agent process and require exactly the "
        "logged calls (slow; agent code must be deterministic)",
    )
    p.add_argument(
        "--check-budget",
        type=check_budget,
        default=CHECK_BUDGET,
        metavar="SECONDS",
        help="with --check-transcripts: wall-clock budget of each career's check (default %(default)g s); a check it "
        "cuts short ('log unchecked (budget exhausted after N of M blocks)') makes that career unverified: kept out "
        "of every figure unless --trust-unverified",
    )
    p.set_defaults(func=cmd_report)


class _Progress:
    """``pibench report``'s progress on stderr, on a terminal only (:class:`LoadProgress`): a
    transient rich bar, shown once the walk has looked at :data:`WALK_SHOWN` folders (a path
    such as /tmp) or finds :data:`READ_SHOWN` run folders to read; a small report shows none."""

    WALK_SHOWN = 500
    READ_SHOWN = 20

    def __init__(self) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)
        self.bar: Any = None
        self.task: Any = None

    def _show(self, description: str, total: int | None) -> None:
        if not self.console.is_terminal:
            return
        if self.bar is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=self.console,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(description, total=total)
        else:
            self.bar.reset(self.task, description=description, total=total)

    def walked(self, path: str, folders: int) -> None:
        if self.bar is None and folders < self.WALK_SHOWN:
            return
        self._show(f"looking for run folders in {visible(path)}: {folders:,} folders", None)

    def reading(self, path: str, runs: int) -> None:
        if self.bar is None and runs < self.READ_SHOWN:
            return
        self._show(f"reading the run folders in {visible(path)}", runs)

    def read(self) -> None:
        if self.bar is not None:
            self.bar.advance(self.task)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def cmd_report(args: argparse.Namespace) -> int:
    """Run ``pibench report``: 0 ok, 1 nothing readable or a write failed, 2 a ``--price``
    for a name no run has (:func:`_price_problem`), or a path that is not there or could not be
    written (checked before any run is read: :func:`_output_problem`)."""
    problem = _output_problem(args)
    if problem is not None:
        print(visible(f"pibench report: error: {problem}", newlines=True), file=sys.stderr)
        return 2
    if args.html:
        try:
            import pibench_tui.report.figures  # noqa: F401 - before the work: --html needs matplotlib
        except ImportError:
            print("pibench report: --html needs matplotlib: pip install 'pibench[report]'", file=sys.stderr)
            return 1
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.load import LoadError, drop_duplicates, load_careers
    from pibench_tui.report.pivots import career_paths, find_pivot_runs, pivot_section
    from pibench_tui.report.render import render_terminal

    pivot_runs = find_pivot_runs(args.paths)
    pivots = pivot_section(pivot_runs, dict(args.price)) if pivot_runs else None
    for note in (pivots or {}).get("notes", []):
        print(visible(f"pibench report: note: {note}", newlines=True), file=sys.stderr)
    paths = career_paths(args.paths) if pivot_runs else args.paths
    if pivots is not None and not paths:
        problem = _price_problem(args.price, [], pivots)
        if problem is not None:
            print(visible(f"pibench report: {problem}", newlines=True), file=sys.stderr)
            return 2
        return _pivots_only(args, pivots)
    progress = _Progress()
    try:
        careers = load_careers(
            paths,
            simulate=not args.no_simulate,
            seal=args.seal,
            check_transcripts=args.check_transcripts,
            check_budget=args.check_budget,
            progress=progress,
        )
    except LoadError as exc:
        progress.close()  # before the message
        print(visible(f"pibench report: {exc}", newlines=True), file=sys.stderr)
        return 1
    finally:
        progress.close()
    careers, dropped = drop_duplicates(careers)
    for c in dropped:
        said = c.dropped_as or "the same career was already read; counted once"
        print(
            visible(f"pibench report: note: {c.source}: {c.label} · {c.scenario} {c.key}: {said}", newlines=True),
            file=sys.stderr,
        )
    try:
        report = build_report(
            careers, reference=args.reference, prices=dict(args.price), trust_unverified=args.trust_unverified
        )
    except ValueError as exc:
        print(visible(f"pibench report: {exc}", newlines=True), file=sys.stderr)
        return 1
    problem = _price_problem(args.price, careers, pivots, [r["label"] for r in report["leaderboard"]])
    if problem is not None:
        print(visible(f"pibench report: {problem}", newlines=True), file=sys.stderr)
        return 2
    render_terminal(report)
    if pivots is not None:
        from pibench_tui.report.pivots import print_pivots

        print_pivots(pivots)
        report["pivots"] = pivots
    if args.json_file:
        try:
            _write(args.json_file, json.dumps(_nan_free(report), indent=1, allow_nan=False) + "\n")
        except OSError as exc:
            print(
                visible(f"pibench report: cannot write --json {args.json_file}: {exc.strerror or exc}", newlines=True),
                file=sys.stderr,
            )
            return 1
        print(visible(f"wrote {args.json_file}", newlines=True), file=sys.stderr)
    if args.html:
        from pibench_tui.report.figures import all_figures
        from pibench_tui.report.render import render_html

        page = render_html(report, all_figures(report))
        if pivots is not None:
            from pibench_tui.report.pivots import pivot_html, pivots_figure

            page = page.replace("</body></html>", pivot_html(pivots, pivots_figure(pivots)) + "\n</body></html>", 1)
        try:
            _write(args.html, page)
        except OSError as exc:
            print(
                visible(f"pibench report: cannot write --html {args.html}: {exc.strerror or exc}", newlines=True),
                file=sys.stderr,
            )
            return 1
        print(visible(f"wrote {args.html}", newlines=True), file=sys.stderr)
    return 0


def _output_problem(args: argparse.Namespace) -> str | None:
    """Why the command line cannot be run, said before the runs are read (so no report is
    printed for nothing): a path to read that is not there, a ``--seal`` that is no file, or
    ``--json``/``--html`` that could not be written at the end (a missing or read-only folder,
    a folder given as the file, one file for both)."""
    for path in args.paths:
        if not os.path.lexists(path):
            return (
                f"{path}: no such file or folder; give run directories, folders holding them, or the "
                "--json files of `pibench run`/`compare`"
            )
    if args.seal:
        problem = input_file_problem("--seal", args.seal, "the seal file `pibench seal --out FILE` wrote")
        if problem is not None:
            return problem
    for option, path in (("--json", args.json_file), ("--html", args.html)):
        problem = output_file_problem(option, path) if path else None
        if problem is not None:
            return problem
    if args.json_file and args.html and Path(args.json_file).resolve() == Path(args.html).resolve():
        return f"--json and --html name the same file ({args.json_file}); give two different files"
    return None


def _write(path: str, text: str) -> None:
    """Write a report file whole or not at all (a temporary file replaced into place)."""
    from pibench_tui.harness.rundir import atomic_write_text

    atomic_write_text(path, text)


def _price_problem(
    prices: list[tuple[str, Price]], careers: list[Any], pivots: dict[str, Any] | None, rows: Sequence[str] = ()
) -> str | None:
    """Why ``--price`` cannot be used: a name that is no label, leaderboard row (``rows``) or
    model of the runs read (a typo was ignored and the cost column stayed blank; QA7 F9), with
    the valid names; ``None`` when every name is one."""
    from pibench_tui.report.analysis import row_label

    names: set[str] = set(rows)
    for c in careers:
        if c.status == "foreign":
            continue
        names.update(str(n) for n in (c.label, row_label(c), c.model) if n)
    for row in (pivots or {}).get("rows", ()):
        names.update(str(row[k]) for k in ("label", "model") if row.get(k))
    unknown = [name for name, _price in prices if name not in names]
    if not unknown:
        return None
    shown = ", ".join(repr(n) for n in sorted(names)[:20]) + (f" (+{len(names) - 20} more)" if len(names) > 20 else "")
    return f"--price {', '.join(repr(n) for n in unknown)}: no label or model of these runs is called so; " + (
        f"the names a price can be given for: {shown}" if names else "these runs have no label or model"
    )


def _pivots_only(args: argparse.Namespace, pivots: dict[str, Any]) -> int:
    """The report of pivot runs alone (no career among the paths)."""
    from pibench_tui.report.pivots import pivot_page, print_pivots

    print_pivots(pivots)
    try:
        if args.json_file:
            _write(args.json_file, json.dumps(_nan_free({"pivots": pivots}), indent=1, allow_nan=False) + "\n")
            print(visible(f"wrote {args.json_file}", newlines=True), file=sys.stderr)
        if args.html:
            _write(args.html, pivot_page(pivots))
            print(visible(f"wrote {args.html}", newlines=True), file=sys.stderr)
    except OSError as exc:
        print(
            visible(f"pibench report: cannot write the report: {exc.strerror or exc}", newlines=True), file=sys.stderr
        )
        return 1
    return 0


def _nan_free(obj: Any) -> Any:
    """``obj`` with every NaN or infinity replaced by ``None`` (valid JSON)."""
    if isinstance(obj, float) and (obj != obj or obj in (float("inf"), float("-inf"))):
        return None
    if isinstance(obj, dict):
        return {k: _nan_free(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_nan_free(v) for v in obj]
    return obj
