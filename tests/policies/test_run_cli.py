"""`pibench run | compare | ablate | calibrate | tune` end to end, in-process (issue 4)."""

from __future__ import annotations

import csv
import json

import pytest

from pibench_tui.cli.command import main
from pibench_tui.cli.run_cmds import TUNING_SEEDS
from world.runner import run_seeds


def test_run_prints_table_and_writes_json_and_csv(tmp_path, capsys):
    """The JSON rows equal the runner's; the CSV has one row per seed; summary rows printed."""
    jf, cf = tmp_path / "r.json", tmp_path / "r.csv"
    assert main(["run", "baseline", "--seeds", "101,102", "--jobs", "2", "--json", str(jf), "--csv", str(cf)]) == 0
    out = capsys.readouterr().out
    for word in ("Impact", "mean", "median", "geomean", "std", "collapses", "101", "102"):
        assert word in out
    data = json.loads(jf.read_text())
    assert data["rows"] == run_seeds("baseline", [101, 102])
    rows = list(csv.DictReader(cf.open()))
    assert [r["seed"] for r in rows] == ["101", "102"]


def test_run_with_a_scenario(capsys):
    """``pibench run --scenario short-12`` plays that scenario and names it in the output."""
    assert main(["run", "do-nothing", "--scenario", "short-12", "--seeds", "1"]) == 0
    assert "short-12" in capsys.readouterr().out


def test_run_refuses_unknown_policy_and_bad_seeds(capsys):
    """An unknown policy or scenario and a malformed seed list are usage errors (exit 2) with
    a message."""
    assert main(["run", "nope", "--seeds", "1"]) == 2
    assert "unknown policy" in capsys.readouterr().err
    assert main(["run", "baseline", "--seeds", "x-y"]) == 2
    assert main(["run", "baseline", "--scenario", "no-such-scenario", "--seeds", "1"]) == 2


def test_compare_side_by_side_with_ratio(tmp_path, capsys):
    """``pibench compare`` prints the policies side by side and writes each seed's paired ratio
    (baseline Impact + 1)/(do-nothing Impact + 1) to its JSON (do-nothing scores 0)."""
    jf = tmp_path / "c.json"
    assert main(["compare", "do-nothing", "baseline", "--seeds", "101,102", "--json", str(jf)]) == 0
    out = capsys.readouterr().out
    assert "baseline/do-nothing" in out
    data = json.loads(jf.read_text())
    b = data["rows"]["baseline"]
    assert data["paired_ratios"]["baseline"] == [r["impact"] + 1.0 for r in b]


def test_ablate_lists_every_variant(capsys):
    """``pibench ablate`` runs and names every ablation variant (horizons, frozen field, unlimited
    attention, no scooping, the ambitious ones)."""
    assert main(["ablate", "--seeds", "101"]) == 0
    out = capsys.readouterr().out
    for v in (
        "default",
        "horizon 12",
        "horizon 30",
        "frozen field",
        "unlimited attention",
        "no scooping",
        "ambitious, 100 h",
        "ambitious, unlimited attention",
    ):
        assert v in out


def test_calibrate_reports_each_fact(capsys):
    """``pibench calibrate`` reports each calibration fact: do-nothing, hire-max, baseline survival,
    all-in and the oracle/baseline ratio."""
    assert main(["calibrate", "--seeds", "1-2"]) == 0
    out = capsys.readouterr().out
    for word in ("do-nothing", "hire-max", "baseline: survival", "all-in", "oracle/baseline"):
        assert word in out


def test_tune_uses_only_the_tuning_seeds_and_picks_the_committed_tuned_config(tmp_path, capsys):
    """``pibench tune`` ranks all 16 grid configurations on the tuning seeds 1001 and 1002 only,
    never on the evaluation seeds, by mean Impact (earliest config in grid order on a tie);
    its winner is the committed TUNED_CONFIG (MECHANICS §17)."""
    from statistics import fmean

    from world.policies import TUNED_CONFIG, grid

    assert TUNING_SEEDS == (1001, 1002)
    jf = tmp_path / "t.json"
    assert main(["tune", "--json", str(jf)]) == 0
    data = json.loads(jf.read_text())
    assert data["seeds"] == [1001, 1002] and len(data["ranking"]) == 16
    assert "default" in capsys.readouterr().out
    order = [c.label() for c in grid()]
    ranking = data["ranking"]
    assert sorted(r["config"] for r in ranking) == sorted(order)
    for r in ranking:
        assert len(r["impacts"]) == 2 and r["mean"] == pytest.approx(fmean(r["impacts"])), r
    keys = [(-r["mean"], order.index(r["config"])) for r in ranking]
    assert keys == sorted(keys), "not ranked by mean Impact, then grid order"
    assert ranking[0]["config"] == TUNED_CONFIG.label(), (ranking[0], TUNED_CONFIG.label())


def test_run_prints_the_capability_axes(capsys):
    """`pibench run` ends with the §17 capability axes pooled over seeds; the baseline's even
    mentoring shows no excess over a random allocation."""
    assert main(["run", "baseline", "--seeds", "101"]) == 0
    out = capsys.readouterr().out
    assert "capability axes" in out and "grant hit rate" in out
    line = next(ln for ln in out.splitlines() if "above a random allocation" in ln)
    assert "0.000" in line
