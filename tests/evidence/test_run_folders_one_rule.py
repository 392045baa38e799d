"""`pibench report` and `pibench replay` judge a run folder by one rule
(pibench_tui.harness.runcheck; QA findings F4, F13 on issue 25): a result.json of odd types is
an invalid career named for its field, never a crash that leaves the folders after it
unchecked; a copied run folder is invalid in both. Mounted through the real ``pibench``
command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.headless.conftest import run_pibench


def _policy_runs(out: Path, seeds: str = "101,102") -> Path:
    """Oracle careers on short-12 saved as run folders (``out/oracle/short-12-<seed>``)."""
    rc = run_pibench(["run", "oracle", "--scenario", "short-12", "--seeds", seeds, "--save-runs", str(out)])
    assert rc.returncode == 0, rc.stderr
    return out / "oracle"


def _edit(run: Path, **changes) -> None:
    res = json.loads((run / "result.json").read_text())
    res.update(changes)
    (run / "result.json").write_text(json.dumps(res))


def _report(paths: list[Path], tmp_path: Path, *extra: str) -> tuple[dict, str]:
    out = tmp_path / "report.json"
    rep = run_pibench(["report", *map(str, paths), "--json", str(out), *extra], home=tmp_path / "home")
    assert rep.returncode == 0 and "Traceback" not in rep.stderr, rep.stderr
    return json.loads(out.read_text()), rep.stdout + rep.stderr


def test_replay_names_a_result_of_odd_types_and_checks_the_folders_after_it(tmp_path):
    """A result.json with ``"impact": "abc"`` (seed 101), one with a string seed (102) and one
    with a NaN Impact (103): `pibench replay` prints each INVALID naming the field, still
    checks seed 104 (valid), exits 1 and never shows a traceback (before: AttributeError on
    101 and nothing after it; the string seed replayed as valid); `pibench report` gives the
    same reasons."""
    pol = _policy_runs(tmp_path / "runs", "101-104")
    _edit(pol / "short-12-101", impact="abc")
    _edit(pol / "short-12-102", seed="102")
    text = (pol / "short-12-103" / "result.json").read_text()
    (pol / "short-12-103" / "result.json").write_text(text.replace('"total":', '"total": NaN, "was":', 1))
    rp = run_pibench(["replay", str(tmp_path / "runs")], home=tmp_path / "home")
    assert rp.returncode == 1 and "Traceback" not in rp.stderr, rp.stdout + rp.stderr
    lines = {line.split()[1].rsplit("/", 1)[-1].rstrip(":"): line for line in rp.stdout.splitlines()}
    assert lines["short-12-101"].startswith("INVALID") and "impact 'abc'" in lines["short-12-101"], rp.stdout
    assert lines["short-12-102"].startswith("INVALID") and "seed '102' is not an integer" in lines["short-12-102"]
    assert lines["short-12-103"].startswith("INVALID") and "nan" in lines["short-12-103"], rp.stdout
    assert lines["short-12-104"].startswith("valid"), rp.stdout
    rep, _ = _report([tmp_path / "runs"], tmp_path)
    reasons = {c["key"]: (c["status"], c["invalid_reason"]) for c in rep["careers"]}
    assert reasons["101"][0] == "invalid" and "impact 'abc'" in reasons["101"][1]
    assert reasons["102"][0] == "invalid" and "seed '102' is not an integer" in reasons["102"][1]
    assert reasons["103"][0] == "invalid" and "nan" in reasons["103"][1]
    assert reasons["104"] == ("valid", None)


def test_replay_and_report_both_call_a_copied_run_folder_invalid(tmp_path):
    """Seed 101's folder copied over seed 102's, and again to a folder ``short-12-102x``:
    `pibench replay` prints both INVALID as copied run folders (before: "valid" for each,
    while the report called them copies) and `pibench report` says the same."""
    pol = _policy_runs(tmp_path / "runs")
    shutil.rmtree(pol / "short-12-102")
    shutil.copytree(pol / "short-12-101", pol / "short-12-102")
    shutil.copytree(pol / "short-12-101", pol / "short-12-102x")
    for name in ("short-12-102", "short-12-102x"):
        rp = run_pibench(["replay", str(pol / name)], home=tmp_path / "home")
        assert rp.returncode == 1, rp.stdout + rp.stderr
        assert rp.stdout.startswith("INVALID") and "a copied run folder" in rp.stdout, rp.stdout
    rep, _ = _report([tmp_path / "runs"], tmp_path)
    copies = [c for c in rep["careers"] if c["source"].endswith(("short-12-102", "short-12-102x"))]
    assert len(copies) == 2 and all("a copied run folder" in (c["invalid_reason"] or "") for c in copies), copies
