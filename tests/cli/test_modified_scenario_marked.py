"""A scenario file that calls itself ``standard`` with other rules is marked the same way by
every command that plays it: ``standard (modified HASH8)`` (:func:`scenarios.modified_name`),
in `pibench run`'s title, `pibench headless`'s report and `pibench agent`'s lines (`agent`
printed plain ``standard``; `headless` said ``standard (modified scenario)`` and `run`
``modified standard (hash …)``)."""

from __future__ import annotations

import json

from scenarios import load_scenario, modified_name
from tests.cli.conftest import pibench

#: A command backend that ends the career in its first block.
BACKEND = """#!/usr/bin/python3
import json, sys
json.load(sys.stdin)
sys.stdout.write(json.dumps({"content": "```python\\nwhile not time.next_month()['done']:\\n    pass\\n```"}))
"""


def test_every_command_marks_an_edited_standard_the_same_way(tmp_path):
    """An edited copy of standard.toml (12 months, still named "standard"): run, headless
    and agent all name it ``standard (modified HASH8)`` with its config's hash; run's --json
    file and the agent's result.json keep the name beside that ``config_hash``, from which
    `pibench report` marks it the same way (a `run --json` file of it was re-simulated with the
    standard config and, for do-nothing, counted as "standard")."""
    shown = pibench("scenarios", "show", "standard", "--toml")
    assert shown.returncode == 0 and "[" not in shown.stdout.split("\n", 1)[0], shown.stderr
    toml = tmp_path / "edited.toml"
    toml.write_text(shown.stdout + "months = 12\n")  # standard.toml keeps every default
    config = load_scenario(str(toml)).config
    assert config.months == 12
    mark = modified_name("standard", config.content_hash())
    assert mark.startswith("standard (modified ") and mark != "standard"

    policy_json = tmp_path / "policy.json"
    run = pibench("run", "do-nothing", "--seeds", "101", "--scenario", str(toml), "--json", str(policy_json))
    assert run.returncode == 0, run.stderr
    assert f"do-nothing on {mark} (1 seeds)" in run.stdout
    assert json.loads(policy_json.read_text())["config_hash"] == config.content_hash()
    report = pibench("report", str(policy_json), "--json", str(tmp_path / "p.json"))
    assert report.returncode == 0, report.stderr
    (row,) = json.loads((tmp_path / "p.json").read_text())["leaderboard"]
    assert row["scenario"] == mark and row["n"] == 0, row  # never counted as the standard scenario

    headless = pibench("headless", "--scenario", str(toml), "--seed", "101", "--jsonl", home=tmp_path / "home")
    assert headless.returncode == 0, headless.stderr
    end = json.loads(headless.stdout.splitlines()[-1])
    assert end["report"]["scenario"] == mark, end["report"]

    backend = tmp_path / "backend.py"
    backend.write_text(BACKEND)
    backend.chmod(0o755)
    out = tmp_path / "runs"
    agent = pibench(
        "agent", "--command", str(backend), "--model", "fake", "--scenario", str(toml), "--seeds", "101",
        "--out", str(out), home=tmp_path / "home",
    )  # fmt: skip
    assert agent.returncode == 0, agent.stderr
    assert f"[fake {mark} seed 101]" in agent.stdout + agent.stderr
    (result,) = out.glob("fake/*/result.json")
    recorded = json.loads(result.read_text())
    assert recorded["scenario"] == "standard" and recorded["config_hash"] == config.content_hash()
    report = pibench("report", str(out), "--no-simulate", "--json", str(tmp_path / "r.json"))
    assert report.returncode == 0, report.stderr
    assert json.loads((tmp_path / "r.json").read_text())["leaderboard"][0]["scenario"] == mark
