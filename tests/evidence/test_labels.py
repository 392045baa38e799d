"""Labels are safe and never pass for a reference policy (issue 28, smaller): an agent run
labelled ``baseline``, a Cyrillic ``bаseline`` or ``baseline`` with an escape character or
a zero-width space in it is its own row in ``pibench report`` (marked as an agent run), never the
policy's row nor the default reference; ``pibench agent`` refuses such labels before any
career."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pibench_tui.cli import main as pibench_main
from pibench_tui.harness.backends import Completion
from pibench_tui.harness.loop import run_careers
from tests.harness.conftest import settings_for

IDLE = "```python\ntime.next_month()\n```"

#: Labels a reader may take for the baseline policy's name.
CONFUSABLE = ["baseline", "bаseline", "ba\x1bseline", "base\u200bline", "Baseline · short-12"]
#: The QA tester's spellings (F8): the name with only punctuation or the word "policy" beside it.
DRESSED = ["baseline (policy)", "policy:baseline", "baseline_", "baseline."]
#: Labels that name a model or a setup: a policy's name among other words.
ORDINARY = ["gpt-baseline-v2", "my baseline", "baseline 2", "oracle-distill-7b"]


class _Instant:
    def __init__(self) -> None:
        self.name = "instant"

    def describe(self):
        return {"backend": "instant"}

    def complete(self, messages):
        return Completion(text=IDLE, prompt_tokens=100, completion_tokens=10)


def test_an_agent_run_never_passes_for_the_reference_policy_in_the_report(tmp_path: Path) -> None:
    """The baseline policy on seed 101 and five agent runs whose labels read as 'baseline':
    the report's reference is the policy's row, which holds the policy's career only; each
    agent run has a row of its own, marked '(agent run)', none equal to 'baseline' once
    escapes and invisible characters are dropped (before: the agent labelled 'baseline'
    shared the policy's row, and the reference was whatever row came first)."""
    runs = tmp_path / "runs"
    for label in CONFUSABLE:
        res = run_careers(settings_for("short-12", label=label), _Instant, [101], runs, log=lambda _t: None)
        assert all(isinstance(r, dict) for r in res), res
    pol = tmp_path / "pol.json"
    assert pibench_main(["run", "baseline", "--scenario", "short-12", "--seeds", "101", "--json", str(pol)]) == 0
    out = tmp_path / "report.json"
    assert pibench_main(["report", str(runs), str(pol), "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    rows = {r["label"]: r for r in rep["leaderboard"]}
    assert rep["reference"] == "baseline" and rows["baseline"]["kind"] == "policy" and rows["baseline"]["n"] == 1
    agent_rows = [k for k, r in rows.items() if r["kind"] == "agent"]
    assert len(agent_rows) == len(CONFUSABLE)
    assert all(k.endswith(" (agent run)") for k in agent_rows), agent_rows


@pytest.mark.parametrize("label", CONFUSABLE)
def test_pibench_agent_refuses_a_label_that_passes_for_a_policy(label, tmp_path, capsys) -> None:
    """Each such --label is a usage error (exit 2) naming the policy, before any career or
    backend: nothing is written under --out, and the label is printed with its escapes
    visible. (Other labels, escapes included, run and are shown safely:
    tests/evidence/test_text_safety.py.)"""
    out = tmp_path / "out"
    rc = pibench_main(
        ["agent", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--label", label, "--out", str(out)]
    )
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "reads as the reference policy 'baseline'" in err
    assert "\x1b" not in err and "\u200b" not in err
    assert not out.exists()


@pytest.mark.parametrize("label", DRESSED)
def test_pibench_agent_refuses_a_policy_name_dressed_in_punctuation_or_the_word_policy(label, tmp_path, capsys):
    """`pibench agent --label` refuses what a reader sees as the baseline's row, whatever the
    punctuation or the word "policy" beside the name (before: "baseline (policy)",
    "policy:baseline", "baseline_" and "baseline." ran, and the report showed them unmarked)."""
    out = tmp_path / "out"
    rc = pibench_main(
        ["agent", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--label", label, "--out", str(out)]
    )
    err = capsys.readouterr().err
    assert rc == 2 and "reads as the reference policy 'baseline'" in err, err
    assert not out.exists()


def test_dressed_policy_names_are_marked_in_the_report_and_ordinary_labels_are_not(tmp_path: Path) -> None:
    """Agent runs whose folders carry the dressed labels (written past `pibench agent`, as an
    older pibench or a hand would) each get a row marked '(agent run)'; labels that merely
    contain a policy's name among other words ("gpt-baseline-v2") are model names, kept
    unmarked, and `pibench agent` accepts them (the rule: docs/agent.md)."""
    from pibench_tui.harness.cli import _label_problem

    runs = tmp_path / "runs"
    for label in DRESSED + ORDINARY[:1]:
        res = run_careers(settings_for("short-12", label=label), _Instant, [101], runs, log=lambda _t: None)
        assert all(isinstance(r, dict) for r in res), res
    out = tmp_path / "report.json"
    assert pibench_main(["report", str(runs), "--json", str(out)]) == 0
    rows = {r["label"] for r in json.loads(out.read_text())["leaderboard"]}
    assert rows == {f"{label} (agent run)" for label in DRESSED} | {ORDINARY[0]}, rows
    assert all(_label_problem(label) is None for label in ORDINARY)
