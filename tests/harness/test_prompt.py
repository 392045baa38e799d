"""The §16 system prompt is generated: every API call from the registry, every number
from this scenario's lab.rules(), no hidden parameter (MECHANICS §16, Decisions 11)."""

from __future__ import annotations

import dataclasses

from pibench_tui.harness.core import LabCore
from world.api import API_CALLS
from world.config import WorldConfig


def test_prompt_lists_every_api_call_and_follows_the_scenario():
    """A changed PhD stipend, horizon, memory cap, overload threshold and interview hours (a number of
    a call's short clause) show in the prompt; every registered call is listed in its namespace's
    line with its parameters; hidden parameters (venue bars) are not."""
    cfg = dataclasses.replace(
        WorldConfig(), pay_phd=4321.0, months=24, memory_max_chars=3000, overload_projects=3, interview_hours=4.5
    )
    core = LabCore(cfg, max_turns=5)
    text = core.system_prompt
    lines = {ln.split(": ", 1)[0]: ln for ln in text.splitlines()}
    for ns, calls in API_CALLS.items():
        for name in calls:
            assert f" {name}(" in lines[ns] or f"*{name}(" in lines[ns], (ns, name)
    assert "$4,321" in text and "calls its API: 24 months" in text
    assert "more than 3 active projects each" in text
    assert "*interview(ids): an id or a list; 4.5 h per new candidate" in text
    assert "at most 3,000 characters" in text and "OUTPUT (turn t/5)" in text
    assert "bar" not in text.lower().replace("barely", "")
    assert "6.3" not in text  # NAIC's hidden acceptance bar


def test_prompt_of_a_career_shorter_than_an_agency_first_call_says_so():
    """In a 1-month career the agencies with calls only later say "no call within this
    career" instead of an empty list ("in months , decision in 5")."""
    text = LabCore(dataclasses.replace(WorldConfig(), months=1), max_turns=2).system_prompt
    grants = next(ln for ln in text.splitlines() if ln.startswith("- Grants"))
    assert "in months ," not in grants and "no call within this career" in grants
