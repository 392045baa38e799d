"""`pibench run` names the standard world by the scenario's own name, ``standard``, as
`play`, `agent`, `headless` and `scenarios list` do (it called it ``default`` in its table
title, its ``--json`` file and its ``--save-runs`` folders)."""

from __future__ import annotations

import json

from scenarios import DEFAULT_SCENARIO
from tests.cli.conftest import pibench


def test_run_without_scenario_names_the_standard_scenario(tmp_path):
    """Without --scenario, the table title, the --json file, the run folder and its
    result.json all say ``standard``, and nothing says ``default``."""
    out, runs = tmp_path / "o.json", tmp_path / "runs"
    proc = pibench("run", "do-nothing", "--seeds", "101", "--json", str(out), "--save-runs", str(runs))
    assert proc.returncode == 0, proc.stderr
    assert f"do-nothing on {DEFAULT_SCENARIO} (1 seeds)" in proc.stdout
    assert " on default" not in proc.stdout
    assert json.loads(out.read_text())["scenario"] == DEFAULT_SCENARIO
    (folder,) = (runs / "do-nothing").iterdir()
    assert folder.name == f"{DEFAULT_SCENARIO}-101"
    assert json.loads((folder / "result.json").read_text())["scenario"] == DEFAULT_SCENARIO
