"""The careers table in a terminal (QA pass 6 F1): with long labels rich dropped the label
column to blank (two rows "short-12 101" of different labels looked the same), with short
ones it wrapped "basemodel" over three lines, and headings and cells were cut ("earne",
"log unchecke"). Now one table per leaderboard row, titled with its label, whose columns
fit the width with each career on one line (columns left out are named)."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console

from pibench_tui.cli.command import main as pibench_main
from pibench_tui.report.analysis import build_report
from pibench_tui.report.render import render_terminal
from tests.report.test_recorded_numbers import _career as _run
from tests.report.test_report import _career

LONG = "a-rather-long-model-label-from-a-lab-sweep-v2-temperature-0.7"


def _careers_part(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("Careers"))
    end = next(i for i, ln in enumerate(lines) if i > start and ln.startswith("Capability"))
    return lines[start:end]


def _check(lines: list[str], width: int, labels: list[str], seeds: list[int]) -> None:
    assert max(len(ln) for ln in lines) <= width, "\n".join(lines)
    flat = " ".join(" ".join(lines).split())
    for label in labels:  # the label whole, in its table's title
        assert f"Careers: {label}" in flat, "\n".join(lines)
    rows = [ln for ln in lines if re.match(r"^ \d+ ", ln)]
    assert len(rows) == len(labels) * len(seeds), "\n".join(lines)  # one line per career
    headings = [ln for ln in lines if ln.lstrip().startswith("seed ")]
    assert headings and all(" Impact" in h for h in headings), "\n".join(lines)
    for h in headings:  # no heading cut: each word is a whole column name
        assert set(h.split()) <= {"seed", "Impact", "earned", "proj.", "collapse", "papers", "hires", "tokens", "$",
                                  "archetype"}, h  # fmt: skip


def test_the_careers_table_shows_every_label_whole_at_80_and_100_columns():
    """In memory, a long label, ``basemodel`` and ``x`` over three seeds: at 80 and 100
    columns every label is shown whole as a table title, each career on one line, no heading
    cut."""
    labels = [LONG, "basemodel", "x"]
    careers = [_career(label=label, seed=s, tokens=12_345) for label in labels for s in (101, 102, 103)]
    for width in (80, 100):
        out = io.StringIO()
        render_terminal(build_report(careers), Console(file=out, width=width))
        _check(_careers_part(out.getvalue()), width, labels, [101, 102, 103])


def test_pibench_report_to_a_pipe_shows_the_careers_labels(tmp_path: Path, capsys):
    """Through `pibench report` over run folders (a pipe: 100 columns), two labels' careers
    on the same seed are told apart by their tables' titles; before, the label column was
    blank."""
    runs = tmp_path / "runs"
    for label in (LONG, "basemodel"):
        _run(runs, label)
    capsys.readouterr()
    assert pibench_main(["report", str(runs)]) == 0
    _check(_careers_part(capsys.readouterr().out), 100, [LONG, "basemodel"], [101])


def test_a_stray_folder_is_listed_in_its_own_row_and_no_other_label_misses_it(tmp_path: Path, capsys):
    """QA pass 6 F7 a: a copy of a run in a folder not named ``<scenario>-<seed>``
    (``a/short-12-101x``) is listed under its label as ``folder:short-12-101x``; before, every
    other label was counted as missing that pseudo-seed."""
    import json
    import shutil

    runs = tmp_path / "runs"
    for label in ("a", "b"):
        _run(runs, label)
    shutil.copytree(runs / "a" / "short-12-101", runs / "a" / "short-12-101x")
    out = tmp_path / "report.json"
    assert pibench_main(["report", str(runs), "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    rows = {r["label"]: r for r in rep["leaderboard"]}
    assert rows["b"]["missing"] == 0 and rows["b"]["absent_seeds"] == [], rows["b"]
    assert any(c["key"] == "folder:short-12-101x" and c["label"] == "a" for c in rep["careers"]), rep["careers"]
    assert "no run folder for seed folder:" not in capsys.readouterr().out


def test_a_label_too_long_for_the_leaderboard_folds_and_no_column_is_cut():
    """QA7 F16: at 80 columns a 61-character label kept whole pushed the interval (cut to
    "95"), invalid and missing columns out of the leaderboard, and a 122-character one left
    only the label column; now such a label folds over lines in the width the other columns
    leave, and every column that is always shown is there, whole, on the label's first line."""
    for labels in ([LONG, "x"], [LONG * 2, "x"]):
        careers = [_career(label=label, seed=s, tokens=12_345) for label in labels for s in (101, 102, 103)]
        out = io.StringIO()
        render_terminal(build_report(careers), Console(file=out, width=80))
        board = out.getvalue().split("Not shown")[0].splitlines()
        assert max(len(ln) for ln in board) <= 80, "\n".join(board)
        head = next(ln for ln in board if ln.lstrip().startswith("label"))
        assert head.split() == ["label", "n", "mean", "95%", "CI", "flags", "invalid", "missing"], head
        rows = [ln for ln in board if re.search(r" 3 +100\.0", ln)]
        assert len(rows) == 2 and all(ln.split()[-3:] == ["0", "0", "0"] for ln in rows), "\n".join(board)
        rule = next(i for i, ln in enumerate(board) if "───" in ln)
        body = [ln.split() for ln in board[rule + 1 :] if ln.strip()]
        assert "".join(words[0] for words in body).startswith(labels[0]), "\n".join(board)
