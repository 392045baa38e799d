"""A career counts for the row that names it only when it is that row's (QA findings F4, F5
and the invalid career's figures, issue 25 §1): a policy career's action log must be what
the named policy plays on the seed; two different careers under one label and seed conflict,
whatever the order of the paths; an invalid career shows no figures from its files. Mounted
through the real ``pibench`` command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.evidence.test_report_evidence import IDLE, MENTOR, _report, _runs
from tests.headless.conftest import run_pibench


def _save_runs(policy: str, out: Path, seeds: str = "101,102") -> None:
    r = run_pibench(["run", policy, "--seeds", seeds, "--save-runs", str(out)])
    assert r.returncode == 0, r.stderr


def _set(run: Path, **changes) -> None:
    res = json.loads((run / "result.json").read_text())
    res.update(changes)
    (run / "result.json").write_text(json.dumps(res))


def test_a_policy_career_must_be_what_its_policy_plays(tmp_path):
    """The oracle's run folders relabelled ``policy: baseline, label: baseline`` (the tester's
    attack), and one relabelled ``label: baseline`` keeping ``policy: oracle``: `pibench
    report` (with and without --check-transcripts) counts each as invalid (Impact 0, the first
    differing call or the mismatch named, no figures shown), never as a baseline at the
    oracle's Impact (before: a valid 'baseline' row at the oracle's mean, the default
    reference). A genuine baseline folder stays valid at the Impact `pibench run` printed."""
    pol, real = tmp_path / "pol", tmp_path / "real"
    _save_runs("oracle", pol)
    _save_runs("baseline", real)
    fake = tmp_path / "polfake" / "baseline"
    fake.mkdir(parents=True)
    for seed in (101, 102):
        shutil.copytree(pol / "oracle" / f"standard-{seed}", fake / f"standard-{seed}")
    _set(fake / "standard-101", policy="baseline", label="baseline")
    _set(fake / "standard-102", label="baseline")  # the oracle's own log, under the baseline's name
    for extra in ((), ("--check-transcripts",)):
        rep = _report([tmp_path / "polfake"], tmp_path, *extra)
        (row,) = rep["leaderboard"]
        assert row["label"] == "baseline" and row["invalid"] == 2 and row["mean"] == 0.0, row
        reasons = " ".join(row["invalid_reasons"])
        assert "not what the policy 'baseline' plays" in reasons and "names the policy 'baseline'" in reasons
        for c in rep["careers"]:
            assert c["publications"] == 0 and c["earned"] == 0.0 and c["axes"] is None, c
    shown = run_pibench(["report", str(tmp_path / "polfake")])
    forged = json.loads((pol / "oracle" / "standard-101" / "result.json").read_text())["impact"]
    assert shown.returncode == 0 and forged["earned"] > 0, shown.stderr
    for figure in (forged["total"], forged["earned"], forged["projection"]):
        assert f"{figure:,.1f}" not in shown.stdout, shown.stdout
    genuine = _report([real], tmp_path)
    (row,) = genuine["leaderboard"]
    recorded = [json.loads((real / "baseline" / f"standard-{s}" / "result.json").read_text()) for s in (101, 102)]
    assert row["invalid"] == 0 and row["seeds"] == {str(r["seed"]): r["impact"]["total"] for r in recorded}


def test_two_different_careers_of_one_label_and_seed_conflict_whatever_the_order(tmp_path):
    """dA and dB each hold a career of label m on seed 101, played differently: `pibench report
    dA dB` and `report dB dA` give the same leaderboard, seed 101 invalid (counted as 0) with a
    reason naming both folders, and the note on stderr says they conflict (before: whichever
    came first was counted, and the note read "already read; counted once"). The same career
    given twice (one folder twice, or a byte-identical copy in another folder) still counts
    once, valid."""
    da, db = tmp_path / "dA", tmp_path / "dB"
    _runs(da, "m", [101, 102], reply=IDLE)
    _runs(db, "m", [101], reply=MENTOR)
    reps = [_report(paths, tmp_path) for paths in ([da, db], [db, da])]
    for rep in reps:
        (row,) = rep["leaderboard"]
        assert row["n"] == 2 and row["invalid_seeds"] == ["101"] and row["seeds"]["101"] == 0.0, row
        (reason,) = row["invalid_reasons"]
        assert "conflicting careers" in reason and str(da / "m" / "short-12-101") in reason, reason
        assert str(db / "m" / "short-12-101") in reason
    assert reps[0]["leaderboard"][0]["seeds"] == reps[1]["leaderboard"][0]["seeds"]
    note = run_pibench(["report", str(db), str(da)])
    assert note.returncode == 0 and "conflicting careers" in note.stderr and "counted once" not in note.stderr
    dc = tmp_path / "dC"
    shutil.copytree(da, dc)
    for paths in ([da, dc], [da, da / "m" / "short-12-101"]):
        (row,) = _report(paths, tmp_path)["leaderboard"]
        assert row["n"] == 2 and row["invalid"] == 0, row


def test_the_report_names_harness_settings_that_differ_between_labels(tmp_path):
    """Two labels played with different max turns and temperature (result.json's `harness`):
    `pibench report` prints a note under the leaderboard naming each differing setting with
    every label's value, and --json keeps it (before: nothing said the labels were played
    differently). Settings both labels share (max tokens) are not named."""
    from pibench_tui.harness.loop import run_careers
    from tests.evidence.test_report_evidence import _Instant
    from tests.harness.conftest import settings_for

    runs = tmp_path / "runs"
    for model, turns, temp in (("a", 8, 0.0), ("b", 3, 0.7)):
        settings = settings_for("short-12", model=model, max_turns=turns, temperature=temp)
        res = run_careers(settings, lambda: _Instant(IDLE), [101], runs, log=lambda _t: None)
        assert all(isinstance(r, dict) for r in res), res
    rep = _report([runs], tmp_path)
    notes = rep["harness_differences"]
    assert any(n.startswith("max turns:") and "a 8" in n and "b 3" in n for n in notes), notes
    assert any(n.startswith("temperature:") and "a 0" in n and "b 0.7" in n for n in notes), notes
    assert not any(n.startswith("max tokens") for n in notes), notes
    shown = run_pibench(["report", str(runs)])
    assert shown.returncode == 0 and "harness settings differ between labels" in shown.stdout, shown.stdout
