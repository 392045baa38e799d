"""argparse value types shared by every ``pibench`` command (one home for their messages)."""

from __future__ import annotations

import argparse
import os


def _int_at_least(text: str, low: int, wording: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"{wording}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An integer ≥ 1 (``--jobs``, ``--max-turns`` ...); argparse error otherwise."""
    return _int_at_least(text, 1, "must be at least 1")


def non_negative_int(text: str) -> int:
    """An integer ≥ 0; argparse error otherwise."""
    return _int_at_least(text, 0, "must be 0 or more")


def save_name(text: str) -> str:
    """A name ``--save NAME`` may give a career (``saves.names.check_name``: no ``@ / \\ :``
    ..., no blanks around it, at most 120 characters); an argparse error (exit status 2, a
    usage error) naming the rule otherwise. Whether the name is free is the store's to say."""
    from saves.errors import SaveError  # imported only when --save is given
    from saves.names import check_name

    try:
        return check_name(text)
    except SaveError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: Bounds of ``--check-budget`` (``pibench replay``, ``pibench report``), in seconds.
CHECK_BUDGET_RANGE = (1.0, 1e7)


def check_budget(text: str) -> float:
    """``--check-budget SECONDS``: a number within :data:`CHECK_BUDGET_RANGE` (NaN and inf refused)."""
    lo, hi = CHECK_BUDGET_RANGE
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--check-budget is seconds (a number), got {text!r}") from None
    if not lo <= value <= hi:
        raise argparse.ArgumentTypeError(f"--check-budget must be between {lo:g} and {hi:g} seconds, got {text!r}")
    return value


def output_file_problem(option: str, path: str) -> str | None:
    """Why ``OPTION PATH`` (a file a command writes at its end: ``--json``, ``--csv``,
    ``--html``) could not be written, said before any work is done; ``None`` when it can be:
    a folder, a file in a folder that does not exist, or in one this process cannot write to
    (a read-only folder or file system)."""
    if os.path.isdir(path):
        return f"{option} {path} is a folder; give the path of a file to write"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"{option} {path}: there is no folder {folder}; create it first or give another path"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{option} {path}: the folder {folder} is not writable; give a path in a folder you can write to"
    return None


def input_file_problem(what: str, path: str, wanted: str) -> str | None:
    """Why ``path`` (given as ``what``: an option such as ``--seal``, or an argument's name)
    is not a file to read: missing or a folder, with ``wanted`` (what to give instead);
    ``None`` when it is a file. Commands exit 2 on it (a usage error), before any work."""
    if not os.path.lexists(path):
        return f"{what} {path}: no such file; give {wanted}"
    if os.path.isdir(path):
        return f"{what} {path} is a folder; give {wanted}"
    return None
