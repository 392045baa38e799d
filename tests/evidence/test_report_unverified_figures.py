"""Figures nobody re-simulated are never shown as a career's (QA findings F6, F14 on issue
25): an unverified career shows no figures of its files, and with --trust-unverified every
aggregate it enters is marked; an invalid or unverified career has no archetype; a copy of a
career whose files were edited is named as an invalid copy, not "the same career". Through
the real ``pibench report`` command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pibench_tui.cli import main as pibench_main
from tests.evidence.test_report_evidence import _edit, _runs, _seal


def _report(paths: list[Path], out: Path, *extra: str) -> dict:
    assert pibench_main(["report", *map(str, paths), "--json", str(out), *extra]) == 0
    return json.loads(out.read_text())


def test_an_unverified_career_shows_no_figures_of_its_files_and_trusted_aggregates_are_marked(tmp_path, capsys):
    """Two sealed careers, one result.json edited to Impact 888 (earned 800, projection 88),
    reported without --seal: the careers table and --json show no earned, projection or
    archetype of theirs (before: ``unverified 800.0 88.0``); with --trust-unverified the mean
    (444.0) is counted, as the flag promises, but marked ‡ in the terminal and the HTML page
    with a note naming the careers (before: 444.0 with no mark)."""
    seal, rows = _seal(tmp_path, 2)
    runs = tmp_path / "runs"
    _runs(runs, "m", [int(r["seed"]) for r in rows], commitments=[r["commitment"] for r in rows])
    forged = runs / "m" / f"short-12-sealed-{rows[0]['commitment'][:12]}"
    _edit(forged, impact={"total": 888.0, "earned": 800.0, "projection": 88.0})
    capsys.readouterr()
    rep = _report([runs], tmp_path / "r.json")
    text = capsys.readouterr().out
    assert all(c["status"] == "unverified" for c in rep["careers"])
    assert all(c["earned"] == 0 and c["projection"] == 0 and c["archetype"] is None for c in rep["careers"])
    assert "800.0" not in text and "88.0" not in text, text
    html = tmp_path / "r.html"
    trusted = _report([runs], tmp_path / "t.json", "--trust-unverified", "--html", str(html))
    text = capsys.readouterr().out
    (row,) = trusted["leaderboard"]
    other = runs / "m" / f"short-12-sealed-{rows[1]['commitment'][:12]}"
    recorded = json.loads((other / "result.json").read_text())["impact"]["total"]
    assert row["mean"] == (888.0 + recorded) / 2 and row["unverified_seeds"], row
    mean = f"{row['mean']:,.1f}‡"
    assert mean in text and "‡ counts unverified careers" in text, text
    page = html.read_text()
    assert mean in page and "‡ counts unverified careers" in page
    assert all(c["archetype"] is None and c["earned"] == 0 for c in trusted["careers"])


def test_an_edited_copy_of_a_career_is_named_an_invalid_copy_and_invalid_careers_have_no_archetype(tmp_path, capsys):
    """The same runs given twice, the second copy's result.json edited to Impact 777: the
    stderr note calls that copy an invalid copy naming the recorded 777 (before: "the same
    career was already read; counted once", hiding the edit), the untouched copies are still
    "the same career", and the genuine career counts. Reported alone, the edited career is
    invalid with archetype — (before: "bankrupt"), and the census has a "not verified" column."""
    runs = tmp_path / "runs"
    _runs(runs, "m", [101, 102])
    copy = tmp_path / "copy"
    shutil.copytree(runs, copy)
    _edit(copy / "m" / "short-12-101", impact={"total": 777.0, "earned": 700.0, "projection": 77.0})
    capsys.readouterr()
    rep = _report([runs, copy], tmp_path / "r.json")
    err = capsys.readouterr().err
    notes = {line.split(": ")[2]: line for line in err.splitlines() if line.startswith("pibench report: note:")}
    assert str(copy / "m" / "short-12-101") in notes, err
    edited = notes[str(copy / "m" / "short-12-101")]
    assert "an invalid copy" in edited and "777" in edited and "the same career was already read" not in edited
    assert "the same career was already read" in notes[str(copy / "m" / "short-12-102")]
    assert {c["key"]: c["status"] for c in rep["careers"]} == {"101": "valid", "102": "valid"}
    alone = _report([copy], tmp_path / "a.json")
    text = capsys.readouterr().out
    by_key = {c["key"]: c for c in alone["careers"]}
    assert by_key["101"]["status"] == "invalid" and by_key["101"]["archetype"] is None
    assert "bankrupt" not in [line for line in text.splitlines() if line.lstrip().startswith("m ")][0]
    assert alone["census"]["table"]["m"]["not verified"] == 1 and alone["census"]["table"]["m"]["bankrupt"] == 0
