"""The ``pibench`` command: --help everywhere, exit codes 0 ok / 1 runtime error / 2 usage."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pibench_tui.cli.command import build_parser, main
from tests.headless.conftest import Run


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["headless", "--help"],
        ["play", "--help"],
        ["run", "--help"],
        ["saves", "--help"],
        ["saves", "list", "--help"],
        ["scenarios", "--help"],
        ["scenarios", "show", "--help"],
    ],
)
def test_every_subcommand_has_help(args, capsys):
    """--help exits 0 and prints a usage line for the command and each subcommand."""
    assert main(args) == 0
    assert "usage: pibench" in capsys.readouterr().out


def test_help_lists_every_subcommand(capsys):
    """The top-level help names play, headless, run, saves and scenarios."""
    main(["--help"])
    out = capsys.readouterr().out
    for name in ("play", "headless", "run", "compare", "ablate", "calibrate", "tune", "saves", "scenarios"):
        assert name in out


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["nonsense"],
        ["headless", "--seed", "abc"],
        ["headless", "--seed", "-4"],
        ["headless", "--block-timeout", "0"],
        ["headless", "--block-timeout", "nan"],
        ["headless", "--max-output", "0"],
        ["headless", "--memory-limit", "-1"],
        ["headless", "--bogus"],
        ["headless", "--load", "x", "--seed", "3"],
        ["headless", "--load", "x", "--scenario", "standard"],
    ],
)
def test_usage_errors_exit_2(args, capsys):
    """Bad usage exits 2 with a message on stderr."""
    assert main(args) == 2
    assert capsys.readouterr().err


def test_policy_commands_are_wired(capsys):
    """`run` (and the other policy commands) parse their own options: a missing policy is a
    usage error."""
    assert main(["run"]) == 2
    assert main(["compare", "--help"]) == 0


def test_play_without_app_or_with_app_is_wired():
    """`play` imports pibench_tui.tui.app lazily: without it, it says so and exits 1."""
    import importlib.util

    if importlib.util.find_spec("pibench_tui.tui.app") is None:
        assert main(["play"]) == 1
    else:  # the TUI exists: its parser at least accepts the world options
        args = build_parser(["play"]).parse_args(["play", "--seed", "3"])
        assert args.seed == 3


def test_unknown_scenario_exits_2(pibench):
    """A usage error (unknown scenario) exits 2 and names the bundled scenarios."""
    run = pibench(["headless", "--scenario", "no-such-scenario"])
    assert run.returncode == 2
    assert "standard" in run.stderr
    assert run.stdout == ""


def test_bad_scenario_file_exits_2(pibench, tmp_path):
    """An invalid scenario file (a bad --scenario) exits 2 with the loader's message."""
    path = tmp_path / "bad.toml"
    path.write_text('name = "bad"\nmonths = -5\nbogus_key = 1\n')
    run = pibench(["headless", "--scenario", str(path)])
    assert run.returncode == 2
    assert "bogus_key" in run.stderr


def test_missing_save_exits_2(pibench, tmp_path):
    """--load of a save that does not exist exits 2 (a usage error)."""
    run = pibench(["headless", "--load", "nothere", "--saves", str(tmp_path / "store")])
    assert run.returncode == 2
    assert "nothere" in run.stderr


def test_python_dash_m_works_and_scenario_and_seed_choose_the_world(tmp_path):
    """`python -m pibench_tui` is the same command; --scenario short-12 sets a 12-month
    horizon; --seed is reported."""
    proc = subprocess.run(
        [sys.executable, "-m", "pibench_tui", "headless", "--scenario", "short-12", "--seed", "42"],
        input=b"1 + 1\nlab.dashboard()['months_total']\n",
        capture_output=True,
        timeout=120,
        env={**os.environ, "PIBENCH_HOME": str(tmp_path / "home")},
    )
    assert proc.returncode == 0, proc.stderr
    run = Run(proc.returncode, proc.stdout.decode(), proc.stderr.decode())
    assert run.stdout.startswith("2\n12\n"), run.stdout
    assert run.report()["scenario"] == "short-12 (seed 42)"


def test_docs_show_the_digest_the_baseline_prints(pibench):
    """The report example in docs/headless.md (digest, Impact) is what
    `pibench headless --seed 101 < examples/agents/baseline.py` prints now."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    run = pibench(["headless", "--seed", "101"], (root / "examples/agents/baseline.py").read_text())
    assert run.returncode == 0, run.stderr
    report = run.report()
    docs = (root / "docs/headless.md").read_text()
    assert f"state digest    {report['state digest']}\n" in docs
    assert f'"digest": "{report["state digest"]}"' in docs
    assert f"Impact          {report['Impact']}\n" in docs


def test_a_memory_limit_too_small_for_the_agent_process_is_refused_at_start(capsys):
    """``--memory-limit`` under the agent process's own needs (Python and numpy) is a usage
    error naming the minimum (``MIN_MEMORY_LIMIT``); 0 (none) and the minimum are accepted;
    a Sandbox made with too small a limit is refused the same way."""
    from pibench_tui.agent_limits import MIN_MEMORY_LIMIT
    from pibench_tui.cli.command import build_parser
    from pibench_tui.sandbox import Sandbox

    low = (MIN_MEMORY_LIMIT >> 20) - 1
    assert main(["headless", "--memory-limit", str(low)]) == 2
    err = capsys.readouterr().err
    assert f"at least {MIN_MEMORY_LIMIT >> 20} MiB" in err and "no room" in err and f"{low} MiB" in err
    parser = build_parser(["headless"])
    for ok in (0, MIN_MEMORY_LIMIT >> 20):
        assert parser.parse_args(["headless", "--memory-limit", str(ok)]).memory_limit == ok
    with pytest.raises(ValueError, match=f"at least {MIN_MEMORY_LIMIT >> 20} MiB"):
        Sandbox(lambda *a: None, {}, memory_limit=100 << 20)


def _parsers(parser, path=("pibench",)):
    """``(command path, parser)`` for a parser and every subcommand below it."""
    import argparse

    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


def test_no_help_text_shows_a_literal_percent_pair_or_an_old_set_name():
    """Every command's and subcommand's --help (each command's parser is built in full only
    when named) shows no literal `%%` (a description or epilog is not %-formatted, so an
    escaped percent shows doubled) and names the shipped pivot set as `dev`, never
    `pivots/dev`."""
    top = build_parser([])
    names = [n for path, _ in _parsers(top) if len(path) == 2 for n in [path[1]]]
    assert "pivots" in names and "agent" in names
    seen = 0
    for name in names:
        for path, parser in _parsers(build_parser([name])):
            if len(path) < 2 or path[1] != name:
                continue
            text = parser.format_help()
            seen += 1
            assert "%%" not in text, f"{' '.join(path)} --help shows %%"
            assert "pivots/dev" not in text, f"{' '.join(path)} --help names pivots/dev"
    assert seen > len(names)  # the subcommands (pivots build, saves list ...) were formatted too
