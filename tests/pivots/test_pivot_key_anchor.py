"""Which answer key a pivot run is scored with (issue 25 §1 for pivot runs): ``run.json``
names the case set's folder, and the key beside it was believed. A copy of a case set with
its key rewritten consistently (answers, deltas, intervals and branches swapped, so the
key's own checks pass) scored a coin-flip model against the forged answers, in the same
table as runs scored on the real key and with no word."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pibench_tui.pivots
from tests.pivots.casesets import make_set


def pibench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pibench_tui", *args], capture_output=True, text=True, timeout=600, check=False
    )


def _flip(line: dict) -> dict:
    """A key line answering the other plan, consistent with itself (the key's checks pass)."""
    k = json.loads(json.dumps(line))
    k["impact"]["A"], k["impact"]["B"] = k["impact"]["B"], k["impact"]["A"]
    k["collapse"]["A"], k["collapse"]["B"] = k["collapse"]["B"], k["collapse"]["A"]
    k["delta"], k["ci"] = -k["delta"], [-k["ci"][1], -k["ci"][0]]
    k["better"] = "B" if k["better"] == "A" else "A"
    k.pop("stability", None)
    return k


def _forge_key(folder: Path, flip_if) -> None:
    lines = [json.loads(x) for x in (folder / "key.jsonl").read_text().splitlines()]
    out = [_flip(k) if flip_if(k) else k for k in lines]
    (folder / "key.jsonl").write_text("".join(json.dumps(k) + "\n" for k in out))


def test_a_copy_of_a_bundled_set_is_scored_with_the_bundled_key(tmp_path: Path) -> None:
    """The judge `first` evaluated on a copy of the bundled `dev` set, whose key is then
    rewritten (every answer flipped, consistently): `pivots score` and `pibench report`
    refuse the run, naming the key and the bundled set (before: scored with the rewritten
    key as if it were the set's, exit 0; a QA tester's key tuned to a coin-flip model's
    answers scored it 0.80 instead of 0.51). The unedited copy is scored as `dev`."""
    copy = tmp_path / "devcopy"
    shutil.copytree(Path(pibench_tui.pivots.__file__).parent / "sets" / "dev", copy)
    good = tmp_path / "good"
    r = pibench("pivots", "eval", "--cases", str(copy), "--judge", "first", "--out", str(good))
    assert r.returncode == 0, r.stderr
    rep = tmp_path / "good.json"
    r = pibench("report", str(good), "--json", str(rep))
    assert r.returncode == 0, r.stderr
    (genuine,) = json.loads(rep.read_text())["pivots"]["rows"]
    assert genuine["overall"]["accuracy"] == 0.5, genuine
    _forge_key(copy, lambda k: True)
    r = pibench("pivots", "score", str(good))
    assert r.returncode == 1, r.stdout
    assert f"{copy / 'key.jsonl'} is not the answer key of the bundled case set 'dev'" in r.stderr, r.stderr
    r = pibench("report", str(good), "--json", str(rep))
    (row,) = json.loads(rep.read_text())["pivots"]["rows"]
    assert "is not the answer key of the bundled case set 'dev'" in row.get("error", ""), row
    assert genuine["cases"] == "dev", genuine


def test_runs_of_one_set_scored_with_different_keys_conflict(tmp_path: Path) -> None:
    """A set that is not bundled: two labels' runs, one pointing (in its run.json) at a copy
    of the set whose key answers otherwise. `pibench report` scores neither, naming both runs
    and their keys' digests, and a note says each run's key is only its builder's word;
    `pivots score` marks both as conflicting (before: both scored, each on its own key)."""
    real = make_set(tmp_path / "set")
    forged = tmp_path / "forged"
    shutil.copytree(real, forged)
    _forge_key(forged, lambda k: True)
    runs = []
    for label in ("judge1", "judge2"):
        out = tmp_path / label
        r = pibench("pivots", "eval", "--cases", str(real), "--judge", "first", "--label", label, "--out", str(out))
        assert r.returncode == 0, r.stderr
        runs.append(out)
    meta = json.loads((runs[1] / "run.json").read_text())
    meta["cases"] = str(forged)
    (runs[1] / "run.json").write_text(json.dumps(meta))
    rep = tmp_path / "r.json"
    r = pibench("report", *map(str, runs), "--json", str(rep))
    assert r.returncode == 0, r.stderr
    rows = json.loads(rep.read_text())["pivots"]["rows"]
    assert len(rows) == 2 and all("scored with different answer keys" in x.get("error", "") for x in rows), rows
    assert f"{runs[0]}: its case set {real} is not bundled with pibench" in r.stderr, r.stderr
    s = tmp_path / "s.json"
    r = pibench("pivots", "score", *map(str, runs), "--json", str(s))
    assert all("different answer keys" in x["conflict"] for x in json.loads(s.read_text())["runs"])
