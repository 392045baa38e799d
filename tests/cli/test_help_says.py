"""What `--help` says that the QA tester looked for and did not find: what Ctrl-C does in
`pibench play` and `pibench headless` (stated from the code: the app's ctrl+c binding and
cli/interrupts.py's exit statuses), and the folder count above which `pibench report` folds
folders of other things into one line (formatted from its constant)."""

from __future__ import annotations

import signal

from pibench_tui.cli.interrupts import Terminated, signal_exit_code
from pibench_tui.harness.runcheck import PLAIN_LISTED
from tests.cli.conftest import pibench


def _help(command: str) -> str:
    proc = pibench(command, "--help")
    assert proc.returncode == 0, proc.stderr
    return " ".join(proc.stdout.split())


def test_play_help_says_what_ctrl_c_does():
    """A key in the game (copy a selection, else quit as q, asking when play is unsaved); a
    SIGINT from outside saves and exits with the status interrupts.py gives it."""
    text = _help("play")
    assert "Ctrl-C:" in text and "it quits as q does" in text and "asks (save, quit, or back)" in text
    statuses = [
        signal_exit_code(e) for e in (KeyboardInterrupt(), Terminated(signal.SIGTERM), Terminated(signal.SIGHUP))
    ]
    assert f"exit with status {statuses[0]}, {statuses[1]} and {statuses[2]}" in text


def test_headless_help_says_what_ctrl_c_does():
    """The REPL goes on after Ctrl-C; console and JSON lines end, save and exit with its status."""
    text = _help("headless")
    assert "REPL: cancels the line being typed, or stops the running block" in text
    assert '"interrupted": "SIGINT"' in text and f"exit status {signal_exit_code(KeyboardInterrupt())}." in text


def test_report_help_says_the_folder_count_it_folds_above():
    """The threshold of runcheck.PLAIN_LISTED, not a number typed into the help."""
    assert f"more than {PLAIN_LISTED:,} folders of other things" in _help("report")
