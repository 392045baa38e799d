"""The §16 system prompt is generated: every API call from the registry, every number
from this scenario's lab.rules(), no hidden parameter (MECHANICS §16, Decisions 11)."""

from __future__ import annotations

import dataclasses

from pibench_tui.harness.core import LabCore
from world.api import API_CALLS
from world.config import WorldConfig


def test_prompt_lists_every_api_call_and_follows_the_scenario():
    """A changed PhD stipend, horizon, memory cap and overload threshold show in the prompt; every registered
    call is listed with its parameters; hidden parameters (venue bars) are not."""
    cfg = dataclasses.replace(WorldConfig(), pay_phd=4321.0, months=24, memory_max_chars=3000, overload_projects=3)
    core = LabCore(cfg, max_turns=5)
    text = core.system_prompt
    for ns, calls in API_CALLS.items():
        for name in calls:
            assert f"{ns}.{name}(" in text
    assert "$4,321" in text and "You run the lab for 24 months" in text
    assert "more than 3 active projects each" in text
    assert "at most 3,000 characters" in text and "OUTPUT (turn t/5)" in text
    assert "bar" not in text.lower().replace("barely", "")
    assert "6.3" not in text  # NAIC's hidden acceptance bar
