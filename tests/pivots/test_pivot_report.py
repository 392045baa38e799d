"""Pivot runs in `pibench report` (issue 24 part 5): one row per run re-scored from its answers
and key, per-kind accuracy, both intervals, a run without a usable key listed unscored."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.pivots.casesets import make_set


def pibench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pibench_tui", *args], capture_output=True, text=True, timeout=300, check=False
    )


def test_report_shows_pivot_runs_beside_careers_and_rescores_them(tmp_path: Path) -> None:
    """`pibench report` over a folder of pivot runs and a career run prints the pivot table
    and puts it in --json and --html; accuracy comes from the answers and the key (an edited
    run.json cannot raise it); a run whose case set changed is listed as not scored."""
    cases = make_set(tmp_path / "set", careers=2, per_career=2)
    runs = tmp_path / "runs"
    for cond in ("record", "plans"):
        r = pibench("pivots", "eval", "--cases", str(cases), "--judge", "first", "--condition", cond,
                    "--out", str(runs / f"first-{cond}"))  # fmt: skip
        assert r.returncode == 0, r.stderr
    meta = json.loads((runs / "first-plans" / "run.json").read_text())
    meta["accuracy"] = 1.0  # a claim in a file is never read
    (runs / "first-plans" / "run.json").write_text(json.dumps(meta))
    r = pibench("run", "baseline", "--scenario", "short-12", "--seeds", "1", "--save-runs", str(tmp_path / "careers"))
    assert r.returncode == 0, r.stderr
    out = tmp_path / "r.json"
    page = tmp_path / "r.html"
    r = pibench("report", str(runs), str(tmp_path / "careers"), "--json", str(out), "--html", str(page))
    assert r.returncode == 0, r.stderr
    assert "Pivot cases (2 runs)" in r.stdout and "Leaderboard" in r.stdout
    rows = json.loads(out.read_text())["pivots"]["rows"]
    assert [(x["label"], x["condition"], x["overall"]["accuracy"]) for x in rows] == [
        ("first", "plans", 0.5),
        ("first", "record", 0.5),
    ]
    assert "<h2>Pivot cases</h2>" in page.read_text()
    (cases / "cases.jsonl").write_text((cases / "cases.jsonl").read_text().replace("Question", "Edited question"))
    r = pibench("report", str(runs), "--json", str(out))
    assert r.returncode == 0, r.stderr
    rows = json.loads(out.read_text())["pivots"]["rows"]
    assert all("changed since this run" in x["error"] for x in rows)
