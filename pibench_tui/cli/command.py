"""The ``pibench`` command: ``play | headless | run | compare | ablate | calibrate | tune | agent | replay | report | saves | scenarios``.

Exit codes (every subcommand): 0 ok, 1 a runtime error (a damaged save, a failed write ...),
2 a usage error (argparse's convention: an unknown option or value, an unknown scenario,
policy or save, a file given as an argument that is not there; README, Design notes). Every subcommand has ``--help``.

Each subcommand imports its front end only when it runs: ``pibench headless`` never
imports textual, and ``--help`` imports no UI library and nothing of the world but
:mod:`world.horizon` (the default career length the description names; no numpy).
"""

from __future__ import annotations

import argparse
import os
import sys

TYPE_CHECKING = False  # not `from typing import ...`: importing typing costs start-up time
if TYPE_CHECKING:  # annotations are strings here (from __future__ import annotations)
    import subprocess
    from collections.abc import Sequence
    from typing import Any


__all__ = ["build_parser", "main"]

_DESCRIPTION = (
    "pibench: run an academic research lab for {months} simulated months — a terminal game and an agent benchmark."
)
"""``{months}``: :data:`world.horizon.DEFAULT_HORIZON_MONTHS`, filled in by :func:`build_parser`
(imported there, after ``pibench headless`` has started its agent process)."""

_HEADLESS_EPILOG = """\
modes:
  console (default, stdin is a pipe or a file): the piped Python runs
  statement by statement; bare expressions print their repr; errors name the
  type, message and line and the next statement still runs; a career report is
  printed at EOF.
  --jsonl: each input line is {"code": "..."}; each reply is one JSON line
  {"ok", "stdout", "error", "truncated", "month", "done", "impact"}.
  REPL (stdin is a terminal): history, tab completion, multi-line input,
  Ctrl-D ends.

Ctrl-C:
  REPL: cancels the line being typed, or stops the running block (its agent
  process is restarted: variables are gone); the session goes on.
  console and --jsonl: ends the session, mid-block or between blocks: the
  running block is stopped (in --jsonl it gets no reply, and the end event
  says "interrupted": "SIGINT"), the save NAME is written (--save NAME);
  exit status {sigint}.
  SIGTERM and SIGHUP end any mode so (exit status {sigterm} and {sighup}).

examples:
  pibench headless --seed 101 < examples/agents/baseline.py
  echo '{"code": "lab.dashboard()"}' | pibench headless --jsonl
"""


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text!r}")
    return value


def _memory_limit_mib(text: str) -> int:
    """``--memory-limit MIB``: 0 (none) or at least ``MIN_MEMORY_LIMIT`` (:mod:`~pibench_tui.agent_limits`)."""
    from pibench_tui.agent_limits import memory_limit_problem

    value = _non_negative_int(text)
    problem = memory_limit_problem(value << 20)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text!r}")
    return value


def _seed(text: str) -> int:
    from world.config import seed_problem  # the one validator of world parameters

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    problem = seed_problem(value)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value


def _add_world_options(p: argparse.ArgumentParser) -> None:
    from pibench_tui.cli.argtypes import save_name

    p.add_argument(
        "--scenario",
        metavar="NAME|PATH",
        help="a bundled scenario (see `pibench scenarios list`) or a .toml file (default: standard)",
    )
    p.add_argument("--seed", type=_seed, metavar="N", help="world seed (replaces the scenario's seed)")
    p.add_argument(
        "--save",
        type=save_name,
        metavar="NAME",
        help="save the career as NAME when the session ends (at quit, the career over or not), "
        "and autosave it each month as NAME@mMM",
    )
    p.add_argument("--load", metavar="NAME", help="resume the save (or career) NAME")
    p.add_argument(
        "--saves",
        metavar="DIR",
        dest="saves_dir",
        help="save store folder (default: $PIBENCH_HOME/saves or the user data dir)",
    )


#: The policy commands of :mod:`pibench_tui.cli.run_cmds` and their one-line help.
RUN_COMMANDS = {
    "run": "play a scripted policy over many seeds: a line per seed, then statistics",
    "compare": "play several policies on the same seeds, side by side with paired ratios",
    "ablate": "play a policy in worlds with one thing changed (shorter horizon, frozen field, ...)",
    "calibrate": "the calibration report: the facts a benchmark user checks first",
    "tune": "rank the baseline's configs on the tuning seeds (never on the evaluation seeds)",
}


def _command_of(argv: Sequence[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg
    return None


class _VersionAction(argparse.Action):
    """``--version``: the installed distribution's version, read only when asked."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        kwargs.setdefault("help", "print the version and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        import pibench_tui

        parser.exit(message=f"pibench {pibench_tui.__version__}\n")


def _terminal_columns() -> int:
    """Terminal width as ``shutil.get_terminal_size`` computes it (``$COLUMNS``, the
    terminal, else 80), without importing shutil (which pulls in bz2 and lzma)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter with the width found without shutil (argparse builds one for
    every ``add_argument``, so every start-up would import shutil otherwise)."""

    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ) -> None:
        super().__init__(
            prog, indent_increment, max_help_position, width if width is not None else _terminal_columns() - 2
        )


class _RawDescriptionHelpFormatter(_HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """:class:`_HelpFormatter` keeping the description's and epilog's line breaks."""


_HEADLESS_HELP = "play a career from stdin: agent Python, JSON lines, or a REPL"

_PLAY_EPILOG = """\
Ctrl-C:
  in the game it is a key, not a signal: it copies the selected text of a
  focused input field; otherwise it quits as q does, over any dialog too: at
  once when nothing is unsaved, else it first asks (save, quit, or back). In
  the replay viewer (--replay) it quits at once.
  SIGINT sent from outside (kill -INT), SIGTERM and SIGHUP (the terminal was
  closed) end the session once any month being closed has finished, write
  the career's save (with --save or --load NAME) and exit with status
  {sigint}, {sigterm} and {sighup}.
"""


def _signal_text(text: str) -> str:
    """``text`` with ``{sigint}``, ``{sigterm}`` and ``{sighup}`` replaced by the exit status
    after that signal (:func:`~pibench_tui.cli.interrupts.signal_exit_code`)."""
    import signal

    from pibench_tui.cli.interrupts import Terminated, signal_exit_code

    for field, exc in (
        ("{sigint}", KeyboardInterrupt()),
        ("{sigterm}", Terminated(signal.SIGTERM)),
        ("{sighup}", Terminated(signal.SIGHUP)),
    ):
        text = text.replace(field, str(signal_exit_code(exc)))
    return text


def _add_headless_parser(sub: Any) -> None:
    """The full ``headless`` subcommand parser (its default limits come from
    :mod:`pibench_tui.agent_limits`, not from the sandbox package: ``--help`` stays light)."""
    from pibench_tui.agent_limits import (
        DEFAULT_BLOCK_TIMEOUT,
        DEFAULT_MAX_OUTPUT,
        DEFAULT_MEMORY_LIMIT,
        MIN_MEMORY_LIMIT,
    )

    headless = sub.add_parser(
        "headless",
        help=_HEADLESS_HELP,
        description=(
            "Play a career by sending Python to stdin. Agent code runs in a sandboxed\n"
            "process and reaches the world only through the API (lab, recruit, students,\n"
            "projects, papers, grants, field, events, time, query, memory)."
        ),
        epilog=_signal_text(_HEADLESS_EPILOG),
        formatter_class=_RawDescriptionHelpFormatter,
    )
    _add_world_options(headless)
    headless.add_argument("--jsonl", action="store_true", help="JSON-lines protocol for harnesses")
    headless.add_argument(
        "--seeds",
        metavar="SEED|@FILE",
        help="the world seed as a number, or @FILE: a sealed-seed file from `pibench seal` (the seed stays "
        "secret: only its commitment is shown); with several seeds in FILE, --seed-index picks one",
    )
    headless.add_argument(
        "--seed-index", type=int, default=0, metavar="K", help="which seed of --seeds to play (0-based, default 0)"
    )
    headless.add_argument(
        "--allow-incomplete-confinement",
        action="store_true",
        help="play a sealed seed even when the agent process cannot prove complete OS confinement "
        "(the report still names what is missing; an evaluation run so is not sealed against a determined agent)",
    )
    headless.add_argument(
        "--report-json",
        metavar="FILE",
        help="write the final career report as JSON to FILE (written by pibench itself, out of the agent's reach)",
    )
    headless.add_argument(
        "--block-timeout",
        type=_positive_float,
        default=DEFAULT_BLOCK_TIMEOUT,
        metavar="S",
        help=f"wall-clock limit per block in seconds (default {DEFAULT_BLOCK_TIMEOUT:g}); "
        "the agent process is restarted when it is hit",
    )
    headless.add_argument(
        "--max-output",
        type=_positive_int,
        default=DEFAULT_MAX_OUTPUT,
        metavar="CHARS",
        help=f"output cap per block in characters, head and tail kept (default {DEFAULT_MAX_OUTPUT:,})",
    )
    headless.add_argument(
        "--memory-limit",
        type=_memory_limit_mib,
        default=DEFAULT_MEMORY_LIMIT >> 20,
        metavar="MIB",
        help=f"address-space limit of the agent process in MiB, 0 for none, else at least "
        f"{MIN_MEMORY_LIMIT >> 20} (default {DEFAULT_MEMORY_LIMIT >> 20})",
    )


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The argument parser of the ``pibench`` command (subcommands and their options).

    Args:
        argv: The arguments about to be parsed; only the subcommand named there gets its
            full parser when that parser is costly to build (``saves``, ``scenarios``).
    """
    command = _command_of(argv)
    from world.horizon import DEFAULT_HORIZON_MONTHS  # imports nothing (see _DESCRIPTION)

    parser = argparse.ArgumentParser(
        prog="pibench", description=_DESCRIPTION.format(months=DEFAULT_HORIZON_MONTHS), formatter_class=_HelpFormatter
    )
    parser.add_argument("--version", action=_VersionAction, help="print pibench's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser(
        "play",
        help="play a career in the terminal UI (Textual)",
        description="Play a career in the terminal UI.",
        epilog=_signal_text(_PLAY_EPILOG),
        formatter_class=_RawDescriptionHelpFormatter,
    )
    _add_world_options(play)
    play.add_argument(
        "--pivots",
        metavar="CASES",
        help="answer pivot cases (a case set folder, or 'dev' for the shipped set): the panels at each fork read-only, the two plans, "
        "Plan 1 or Plan 2 to choose (keys 1/a, 2/b), then the futures revealed; answers are saved like `pibench pivots eval`",
    )
    play.add_argument(
        "--key",
        dest="pivots_key",
        metavar="FILE",
        help="with --pivots: the answer key (default: key.jsonl beside the cases)",
    )
    play.add_argument(
        "--answers",
        dest="pivots_out",
        metavar="RUN_DIR",
        help="with --pivots: where the answers go (default ./pivots-human-<set hash>; resumed if it exists)",
    )
    play.add_argument(
        "--seal",
        dest="pivots_seal",
        metavar="FILE",
        help="with --pivots of a sealed set: the seal file of its seeds (pibench seal), kept by the evaluator; "
        "each career is replayed from it and shown as sealed:<prefix>, the seed never",
    )
    play.add_argument(
        "--replay",
        metavar="SAVE|RUN_DIR",
        help="watch a saved career or a run directory (pibench agent / run --save-runs) read-only: "
        "←/→ step through months, j jumps, r the month's report, x the agent's transcript",
    )

    # The headless options' full parser is built only when `pibench headless` is asked for,
    # so `pibench --help` stays light.
    if command == "headless":
        _add_headless_parser(sub)
    else:
        sub.add_parser("headless", help=_HEADLESS_HELP, add_help=False)

    # The policy commands, ``saves`` and ``scenarios`` build parsers that import the world
    # (numpy), tinydb or rich; they are built only when that command is asked for, so
    # `pibench headless` starts its agent process before the world is imported.
    if command in RUN_COMMANDS:
        from pibench_tui.cli.run_cmds import add_parsers as add_run_parsers

        add_run_parsers(sub)
    else:
        for name, text in RUN_COMMANDS.items():
            sub.add_parser(name, help=text, add_help=False)
    if command == "saves":
        from saves.cli import add_saves_parser

        add_saves_parser(sub)
    else:
        sub.add_parser("saves", help="list, show, delete, export and import saved careers", add_help=False)
    # LLM harness and reports (issue 11): parsers built only when asked for.
    if command == "agent":
        from pibench_tui.harness.cli import add_agent_parser

        add_agent_parser(sub)
    else:
        sub.add_parser(
            "agent", help="an LLM plays careers (OpenAI-compatible endpoint or a local command)", add_help=False
        )
    if command == "replay":
        from pibench_tui.harness.cli import add_replay_parser

        add_replay_parser(sub)
    else:
        sub.add_parser(
            "replay", help="re-simulate run directories and confirm their Impact and state digest", add_help=False
        )
    if command == "report":
        from pibench_tui.report.cli import add_report_parser

        add_report_parser(sub)
    else:
        sub.add_parser(
            "report", help="leaderboard, census, legibility and figures from runs (HTML, JSON)", add_help=False
        )
    if command == "pivots":
        from pibench_tui.pivots.cli import add_pivots_parser

        add_pivots_parser(sub)
    else:
        sub.add_parser(
            "pivots", help="pivot cases: judgment at decision points, graded by simulated futures", add_help=False
        )
    seal = sub.add_parser(
        "seal",
        help="draw secret evaluation seeds; print their public commitment",
        description="Draw N secret seeds (secrets module) into FILE (owner-only, never overwritten) and print "
        "their public commitments. Play them with --seeds @FILE; reveal them with `pibench unseal FILE`.",
    )
    seal.add_argument("--count", type=_seal_count, required=True, metavar="N", help="how many seeds")
    seal.add_argument("--out", required=True, metavar="FILE", help="the seal file to create (keep it secret)")
    seal.set_defaults(func=_cmd_seal)
    unseal = sub.add_parser(
        "unseal",
        help="reveal the seeds of a seal file and check their commitments",
        description="Print every seed of a seal file with its salt and commitment after checking each, "
        "so anyone can replay each career and verify the commitment shown during the run.",
    )
    unseal.add_argument("file", metavar="FILE")
    unseal.set_defaults(func=_cmd_unseal)
    if command == "scenarios":
        from scenarios.cli import add_scenarios_parser

        add_scenarios_parser(sub)
    else:
        sub.add_parser("scenarios", help="list and show scenarios (world rules, seed, horizon)", add_help=False)
    return parser


def _load_conflict(command: str, args: argparse.Namespace) -> int | None:
    """Exit code 2 (with a message) when ``--load`` is combined with ``--scenario``/``--seed``."""
    if args.load is not None and (args.scenario is not None or args.seed is not None):
        print(
            f"pibench {command}: error: --load resumes a saved career with its own scenario and "
            "seed; do not combine it with --scenario or --seed",
            file=sys.stderr,
        )
        return 2
    return None


def _early_agent_process(argv: Sequence[str]) -> subprocess.Popen[bytes] | None:
    """For ``pibench headless`` (not its ``--help``): start the agent process now, before
    the arguments are parsed and before the sandbox package is imported, so that its imports
    (numpy and what agent code may use, about as long as this process's own start) begin as
    early as they can (:mod:`pibench_tui.agent_launch`); ``None`` otherwise, or when it
    cannot start (:func:`_cmd_headless` then tries again and reports why). Nothing the
    arguments say changes how it starts (its limits come with the handshake)."""
    if _command_of(argv) != "headless" or any(a in ("-h", "--help") for a in argv):
        return None
    from pibench_tui import agent_launch

    try:
        return agent_launch.launch()
    except OSError:
        return None


def _cmd_headless(
    args: argparse.Namespace, parser: argparse.ArgumentParser, early: subprocess.Popen[bytes] | None = None
) -> int:
    """``pibench headless``; ``early`` is the agent process :func:`_early_agent_process`
    started (this function owns it: it is used or discarded on every way out)."""
    checked: tuple[int | None, str | None] | int = 1
    try:
        refused = _report_json_refused(args.report_json)
        checked = refused if refused is not None else _headless_seed(args)
    finally:
        if isinstance(checked, int) and early is not None:  # refused (reported) or an exception
            from pibench_tui.agent_launch import discard

            discard(early)
    if isinstance(checked, int):
        return checked
    seed, sealed = checked
    from pibench_tui.sandbox import AgentProcess, SandboxStartError

    try:  # started first: it imports numpy while this process imports headless mode and the world
        process = AgentProcess(early)
    except SandboxStartError as exc:
        print(f"pibench headless: {exc}", file=sys.stderr)
        return 1
    from pibench_tui.cli.blas import import_numpy_one_thread

    import_numpy_one_thread()  # this process runs the world only: no BLAS threads busy-waiting
    from pibench_tui.headless import HeadlessOptions
    from pibench_tui.headless import main as headless_main

    options = HeadlessOptions(
        scenario=args.scenario,
        seed=seed,
        sealed=sealed,
        report_json=args.report_json,
        jsonl=args.jsonl,
        block_timeout=args.block_timeout,
        max_output=args.max_output,
        memory_limit=args.memory_limit << 20,
        save=args.save,
        load=args.load,
        saves_dir=args.saves_dir,
        allow_incomplete_confinement=args.allow_incomplete_confinement,
    )
    return headless_main(options, process=process)


def _report_json_refused(path: str | None) -> int | None:
    """Exit status 2 after saying why ``--report-json PATH`` cannot be written (a folder, a
    folder that does not exist or cannot be written), or ``None``: checked before the career,
    not found out when it is over."""
    if path is None:
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        why = f"{path} is a folder; give the path of a file to write"
    elif not os.path.isdir(folder):
        why = f"the folder {folder} does not exist; create it or give another path"
    elif not os.access(folder, os.W_OK):
        why = f"the folder {folder} cannot be written; give another path"
    else:
        return None
    print(f"pibench headless: error: --report-json: {why}", file=sys.stderr)
    return 2


def _headless_seed(args: argparse.Namespace) -> tuple[int | None, str | None] | int:
    """``(seed, sealed commitment or None)`` of ``pibench headless``'s options, or the exit
    status after reporting a usage error (2) or a refused sealed evaluation (1)."""
    refused = _load_conflict("headless", args)
    if refused is not None:
        return refused
    seed, sealed = args.seed, None
    if args.seeds is not None:
        from pibench_tui.cli.seeds import parse_seeds, require_confinement

        if args.seed is not None or args.load is not None:
            print("pibench headless: error: give --seeds or --seed (not both), and not with --load", file=sys.stderr)
            return 2
        try:
            spec = parse_seeds(args.seeds)
        except ValueError as exc:
            print(f"pibench headless: error: --seeds: {exc}", file=sys.stderr)
            return 2
        if not 0 <= args.seed_index < len(spec.seeds):
            print(f"pibench headless: error: --seed-index must be 0..{len(spec.seeds) - 1}", file=sys.stderr)
            return 2
        seed = spec.seeds[args.seed_index]
        if spec.sealed:
            refusal = require_confinement(allow_incomplete=args.allow_incomplete_confinement)
            if refusal is not None:
                print(f"pibench headless: a sealed evaluation is refused: {refusal}", file=sys.stderr)
                return 1
            sealed = spec.commitments[args.seed_index]
    return seed, sealed


def _seal_count(text: str) -> int:
    """``--count``'s type: :func:`pibench_tui.cli.seeds.seal_count`, imported only when
    ``seal`` runs (seeds imports the world's config; ``--help`` stays light)."""
    from pibench_tui.cli.seeds import seal_count

    return seal_count(text)


def _cmd_seal(args: argparse.Namespace) -> int:
    from pibench_tui.cli.seeds import SealError, seal, write_seal

    try:
        data = seal(args.count)
        write_seal(data, args.out)
    except SealError as exc:
        print(f"pibench seal: error: {exc}", file=sys.stderr)
        return 1
    print(f"sealed {len(data['seeds'])} seeds in {args.out} (keep this file secret until the evaluation is over)")
    for i, row in enumerate(data["seeds"]):
        print(f"seed #{i}  commitment {row['commitment']}")
    print(f"file commitment {data['commitment']}")
    return 0


def _cmd_unseal(args: argparse.Namespace) -> int:
    from pibench_tui.cli.argtypes import input_file_problem
    from pibench_tui.cli.seeds import SealError, read_seal

    problem = input_file_problem("FILE", args.file, "the seal file `pibench seal --out FILE` wrote")
    if problem is not None:
        print(f"pibench unseal: error: {problem}", file=sys.stderr)
        return 2
    try:
        data = read_seal(args.file)
    except SealError as exc:
        print(f"pibench unseal: error: {exc}", file=sys.stderr)
        return 1
    for i, row in enumerate(data["seeds"]):
        print(f"seed #{i}  {row['seed']}  salt {row['salt']}  commitment {row['commitment']} (verified)")
    print(f"file commitment {data['commitment']} (verified: SHA-256 of the seed commitments joined by ',')")
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    import importlib.util

    refused = _load_conflict("play", args)
    if refused is not None:
        return refused
    if getattr(args, "replay", None) is not None and any(
        getattr(args, k, None) is not None for k in ("scenario", "seed", "save", "load")
    ):
        print(
            "pibench play: error: --replay watches a career read-only; do not combine it with "
            "--scenario, --seed, --save or --load",
            file=sys.stderr,
        )
        return 2

    pivots = getattr(args, "pivots", None)
    if pivots is None and any(getattr(args, k, None) for k in ("pivots_key", "pivots_out", "pivots_seal")):
        print("pibench play: error: --key, --answers and --seal go with --pivots CASES", file=sys.stderr)
        return 2
    if pivots is not None:
        if any(getattr(args, k, None) is not None for k in ("scenario", "seed", "save", "load", "replay")):
            print(
                "pibench play: error: --pivots shows each case's own career; do not combine it with "
                "--scenario, --seed, --save, --load or --replay",
                file=sys.stderr,
            )
            return 2
        from pibench_tui.pivots.play import run_pivots

        return run_pivots(args)

    if importlib.util.find_spec("pibench_tui.tui.app") is None:
        print("pibench play: the terminal UI is not yet available; use `pibench headless`", file=sys.stderr)
        return 1
    from pibench_tui.tui import app

    return int(app.run_play(args) or 0)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``pibench`` command.

    Args:
        argv: Arguments after the program name (default ``sys.argv[1:]``).

    Returns:
        The exit status: 0 ok, 1 runtime error, 2 usage error.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    early = [_early_agent_process(argv)]  # `pibench headless`: its agent process starts first
    try:
        return _main(argv, early)
    finally:
        if early[0] is not None:  # never handed over (a usage error): it ran nothing
            from pibench_tui.agent_launch import discard

            discard(early[0])


def _tag_subparsers(parser: argparse.ArgumentParser) -> None:
    """Give every (nested) subcommand parser the default ``_cli_parser`` = itself, so that after
    parsing ``args._cli_parser`` is the innermost command's parser (argparse copies a
    subparser's values over its parent's): an unknown option is reported with that command's
    usage (``pibench headless --bogus``), not the top level's."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.set_defaults(_cli_parser=sub)
                _tag_subparsers(sub)


def _main(argv: list[str], early: list[subprocess.Popen[bytes] | None]) -> int:
    """:func:`main` once the agent process of ``pibench headless`` is started (``early[0]``,
    or ``None``; taken out of the list when handed over to the command, which closes it)."""
    parser = build_parser(argv)
    _tag_subparsers(parser)
    try:
        args, extras = parser.parse_known_args(argv)
        if extras:  # named by the (sub)command's own parser: its usage, not the top level's
            getattr(args, "_cli_parser", parser).error(f"unrecognized arguments: {' '.join(extras)}")
    except SystemExit as exc:  # --help / --version (0) and usage errors (2)
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        if args.command == "headless":
            handed, early[0] = early[0], None
            return _cmd_headless(args, parser, handed)
        if args.command == "play":
            return _cmd_play(args)
        return int(args.func(args) or 0)  # every other command sets its handler
    except KeyboardInterrupt:
        print(f"pibench {args.command}: interrupted", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, without a traceback at exit.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
