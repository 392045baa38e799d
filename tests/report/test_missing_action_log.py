"""A run folder whose ``actions.jsonl`` was deleted: ``pibench replay`` and ``pibench
report`` name the missing file (its path), not a state-digest difference; a real digest
difference is still reported as one (QA leftover: the missing log was read as an empty one,
re-simulated to month 1 and reported as "the state digest differs")."""

from __future__ import annotations

import json

import pytest

from tests.headless.conftest import run_pibench


@pytest.fixture
def runs(tmp_path):
    """One finished baseline career on short-12 seed 7, written as a run folder."""
    out = tmp_path / "runs"
    played = run_pibench(
        ["run", "baseline", "--scenario", "short-12", "--seeds", "7", "--save-runs", str(out)], home=tmp_path / "home"
    )
    assert played.returncode == 0, played.stderr
    return out, out / "baseline" / "short-12-7"


def test_a_deleted_action_log_is_named_as_missing(runs, tmp_path):
    """``pibench replay`` and ``pibench report`` of a run folder without ``actions.jsonl``
    name that path as missing; neither speaks of a digest or of a log holding 0 calls."""
    out, run = runs
    (run / "actions.jsonl").unlink()
    replayed = run_pibench(["replay", str(run)], home=tmp_path / "home")
    assert replayed.returncode == 1
    assert f"{run / 'actions.jsonl'} is missing" in replayed.stdout
    assert "digest" not in replayed.stdout and "stops in month" not in replayed.stdout
    reported = run_pibench(["report", str(out)], home=tmp_path / "home")
    text = (reported.stdout + reported.stderr).replace("\n", "")  # rich cuts the long path
    assert f"{run / 'actions.jsonl'} is missing" in text
    assert "the log holds 0" not in text and "digest" not in text


def test_a_real_digest_difference_is_still_one(runs, tmp_path):
    """A result.json whose digest was changed is still reported as a digest difference, not as
    a missing file."""
    _, run = runs
    res = json.loads((run / "result.json").read_text())
    res["digest"] = "0" * 64
    (run / "result.json").write_text(json.dumps(res))
    replayed = run_pibench(["replay", str(run)], home=tmp_path / "home")
    assert replayed.returncode == 1
    assert "the state digest differs" in replayed.stdout and "missing" not in replayed.stdout
