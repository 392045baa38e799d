"""What makes a folder a run folder and its ``result.json`` a career's result: one rule, in
one place, for ``pibench report`` and ``pibench replay`` (a QA tester found the two
disagreeing: replay called a copied folder valid that the report called invalid, and a
result.json with ``"impact": "abc"`` crashed replay while the report named it).

* :func:`result_problem` -- the shape of a run result: format, an integer seed or a seed
  commitment (never both), a config, an Impact split of finite numbers.
* :func:`find_run_folders` -- the run folders at or below a path, and the folders under it
  that cannot be read as one: a symbolic link to a folder is listed, never followed; a
  folder named as a run folder is (:data:`RUN_NAME`) that holds none of a run's files is
  listed with that reason, never taken for a seed that was not played.
* :func:`folder_problem` -- a run folder holds the career its names say
  (``<label>/<scenario>-<seed>``, :func:`~pibench_tui.harness.rundir.career_dir`): a good
  seed's folder copied over a bad seed's, or another label's copied into this label's, is
  not that career.

What a career's files may hold is judged here; whether it re-simulates to them is each
command's own work (``world.api.replay``).
"""

from __future__ import annotations

import math
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pibench_tui.harness.rundir import RUN_FORMAT, career_dir
from pibench_tui.words import count

__all__ = [
    "IMPACT_KEYS",
    "PLAIN_LISTED",
    "RUN_FILES",
    "RUN_NAME",
    "Found",
    "find_run_folders",
    "folder_problem",
    "result_problem",
]

#: Files whose presence makes a folder a run folder (a career that crashed before its first
#: checkpoint still leaves its transcript or action log); present means any kind of file
#: (a FIFO named result.json is a damaged run, not a folder without a result).
RUN_FILES = ("result.json", "checkpoint.json", "transcript.jsonl", "actions.jsonl")


#: The name of a run folder (:func:`~pibench_tui.harness.rundir.career_dir`):
#: ``<scenario>-<seed>`` or ``<scenario>-sealed-<commitment prefix>``.
RUN_NAME = re.compile(r"^(?P<scenario>.+)-(?:sealed-(?P<commit>[0-9a-fA-F]+)|(?P<seed>-?\d+))$")


@dataclass(frozen=True)
class Found:
    """A folder :func:`find_run_folders` found: ``problem`` says why it cannot be read as a
    run folder (``None``: read it); ``foreign``: it is no career's folder whatever its name
    (a folder inside a run folder), listed as not a run."""

    path: Path
    problem: str | None = None
    foreign: bool = False


def _holds_run_files(path: Path) -> bool:
    return any(os.path.lexists(path / f) for f in RUN_FILES)


def _empty_run_folder(path: Path, dirnames: list[str], filenames: list[str]) -> str | None:
    """Why ``path`` (no run file in it) is a broken run folder: a folder with no folder in it,
    named as a run folder is, holds none of a run's files; a folder with no folder in it whose
    name is not a run folder's and that holds no run file (``standard-abc``, an empty
    ``standard-103x``) is said to be no run folder (listed, never silently skipped; a hidden
    one, ``.name``, is skipped); else ``None``."""
    if dirnames:
        return None
    shown = ", ".join(sorted(filenames)[:3]) + (" ..." if len(filenames) > 3 else "")
    holds = f"it holds only {shown}" if filenames else "it is empty"
    if not RUN_NAME.match(path.name):
        if path.name.startswith("."):
            return None
        return f"{path} holds none of a run's files ({', '.join(RUN_FILES)}): {holds}"
    return (
        f"{path} is named as a run folder but holds none of a run's files ({', '.join(RUN_FILES)}): {holds} "
        "(a run folder emptied, or never written)"
    )


def _not_folder_problem(path: Path) -> str | None:
    """Why ``path``, an entry that is not a folder (a plain file, a FIFO, a socket) but is
    named as a run folder is (:data:`RUN_NAME`), is listed: a run folder is a folder."""
    if not RUN_NAME.match(path.name):
        return None
    if os.path.islink(path):
        return f"{path} is a symbolic link, not followed (pibench never follows a link below a folder it reads)"
    try:
        what = "a FIFO" if stat.S_ISFIFO(os.lstat(path).st_mode) else "a file"
    except OSError:
        what = "an entry that cannot be read"
    return f"{path} is named as a run folder but is {what}, not a folder: no career can be read from it"


PLAIN_LISTED = 10
"""Folders of other things (:func:`find_run_folders`' last kind) listed one by one; more
than this below one root (``pibench report /tmp``: thousands) are one line with their count."""


def _folded(root: Path, plain: list[Found], noun: str, what: str) -> list[Found]:
    """``plain`` (entries below ``root`` not named as run folders, of one kind: ``noun``, and
    ``what`` says of them) as they are when there are at most :data:`PLAIN_LISTED`, else one
    entry for ``root`` with their count and a few of them, as not a run."""
    if len(plain) <= PLAIN_LISTED:
        return plain
    shown = ", ".join(str(f.path) for f in plain[:3])
    return [Found(root, f"{count(len(plain), noun)} below {root} {what}: skipped (for instance {shown})", foreign=True)]


def find_run_folders(root: str | Path, seen: Callable[[int], None] | None = None) -> list[Found]:
    """The run folders at or below ``root`` (a folder holding any of :data:`RUN_FILES`, not
    looked into further), in path order, and the folders that cannot be read as one, each
    with its problem:

    * every symbolic link to a folder below ``root``: listed, never followed (a link planted
      among run folders could point anywhere; a QA tester's linked run folder vanished from
      the report and from replay without a word). ``root`` itself, named by the user, may
      be a link;
    * every folder without subfolders named as a run folder is (:data:`RUN_NAME`) that holds
      none of :data:`RUN_FILES` (empty, or only other files): a broken run folder of the seed
      its name says, not a seed nobody played (the report counted it as a missing seed);
    * every folder inside a run folder (a run folder holds none: a bad seed's folder moved
      into a good one vanished from the report);
    * every entry named as a run folder that is not a folder (a plain file, a FIFO, a link to
      a file) and every folder below ``root`` without subfolders that holds no run file and
      is not named as a run folder (``standard-abc``; hidden ``.name`` folders aside): listed
      with its reason, never silently skipped; more than :data:`PLAIN_LISTED` of the last
      kind (folders of other things, as in /tmp), or of links not named as run folders, are
      one entry for ``root`` counting them.

    ``seen``, when given, is called with the number of folders walked so far (every 100 and at
    the end), for a progress display."""
    root = Path(root)
    if _holds_run_files(root):
        return [Found(root)]
    found: list[Found] = []
    plain: list[Found] = []  # folders of other things, and links, not named as run folders
    links: list[Found] = []
    walked = 0
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        walked += 1
        if seen is not None and walked % 100 == 0:
            seen(walked)
        if any(f in filenames or f in dirnames for f in RUN_FILES):
            found.append(Found(here))
            found.extend(
                Found(
                    here / name,
                    f"{here / name} is a folder inside the run folder {here}: a run folder holds no "
                    "folders, so it is not read (move it out to have it read as a run)",
                    foreign=True,
                )  # fmt: skip
                for name in sorted(dirnames)
                if name not in RUN_FILES
            )
            dirnames[:] = []
            continue
        empty = _empty_run_folder(here, dirnames, filenames)
        if here == root and not RUN_NAME.match(here.name):  # the folder named holds no runs: the caller says so
            empty = None
        if empty is not None:
            (found if RUN_NAME.match(here.name) else plain).append(Found(here, empty))
            continue
        for name in sorted(filenames):
            odd = _not_folder_problem(here / name)
            if odd is not None:
                found.append(Found(here / name, odd))
        for name in sorted(dirnames):
            if os.path.islink(here / name):
                (found if RUN_NAME.match(name) else links).append(
                    Found(
                        here / name,
                        f"{here / name} is a symbolic link, not followed (pibench never follows a link below "
                        "a folder it reads: copy the run folder itself)",
                    )
                )
        dirnames[:] = sorted(d for d in dirnames if not os.path.islink(here / d))
    if seen is not None:
        seen(walked)
    files = ", ".join(RUN_FILES)
    found.extend(
        _folded(
            root,
            plain,
            "folder",
            f"hold none of a run's files ({files}) and are not named as run folders (<scenario>-<seed>)",
        )
    )
    found.extend(_folded(root, links, "symbolic link", "are not named as run folders (and never followed)"))
    return sorted(found, key=lambda f: f.path.parts)


#: The Impact split a run result records (MECHANICS §12): ``total`` always, ``earned`` and
#: ``projection`` when present (a result of every pibench writes all three).
IMPACT_KEYS = ("total", "earned", "projection")


def finite_number(v: Any) -> bool:
    """Whether a value read from a run file is a finite number (an int or a float, not a bool,
    not NaN or infinity, and an int a float can hold: JSON's 400-digit integer made
    ``math.isfinite`` raise ``OverflowError`` and crashed the report and replay)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


def _brief(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def result_problem(res: Any, where: str | Path = "result.json") -> str | None:
    """Why ``res`` (a parsed ``result.json``, from the file ``where``) is not a run result a
    career can be judged by, or ``None``: it must be a dict of :data:`RUN_FORMAT` with an
    integer seed (not a bool) or, for a sealed career, ``seed: null`` and a seed commitment
    (never both), a ``config`` object and an ``impact`` object whose ``total`` (and
    ``earned``, ``projection`` when present) are finite numbers. The message names the field
    and the value found."""
    if not isinstance(res, dict) or res.get("format") != RUN_FORMAT:
        return f"{where} is not a pibench run result"
    seed, commitment = res.get("seed"), res.get("seed_commitment")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        return f"result.json's seed {_brief(seed)} is not an integer"
    if seed is not None and commitment:
        return "result.json has both a public seed and a seed commitment"
    if seed is None and (not isinstance(commitment, str) or not commitment):
        return "result.json has neither a seed nor a seed commitment"
    if not isinstance(res.get("config"), dict):
        return "result.json has no config: the career cannot be re-simulated"
    imp = res.get("impact")
    if (
        not isinstance(imp, dict)
        or not finite_number(imp.get("total"))
        or any(k in imp and not finite_number(imp[k]) for k in IMPACT_KEYS)
    ):
        return f"result.json's impact {_brief(imp)} is not an Impact split (finite numbers: {', '.join(IMPACT_KEYS)})"
    return None


def folder_problem(path: str | Path, res: dict[str, Any]) -> str | None:
    """Why the run folder ``path`` does not hold the career its names say, or ``None``: its
    last two components must be the ones ``pibench agent`` / ``pibench run --save-runs``
    give ``res``'s label, scenario and seed (or commitment). Call it on a result that passed
    :func:`result_problem`."""
    path = Path(path)
    seed, commitment = res.get("seed"), res.get("seed_commitment")
    want = career_dir(
        path.parent.parent,
        str(res.get("label") or ""),
        str(res.get("scenario") or ""),
        seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
        commitment if isinstance(commitment, str) else None,
    )
    here, there = f"{path.parent.name}/{path.name}", f"{want.parent.name}/{want.name}"
    if here != there:
        return f"the folder {here!r} holds the result of {there!r} (a copied run folder)"
    return None
