"""Shared fixtures of the harness tests: scenarios, settings and a runner over a fake server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pibench_tui.harness.backends import OpenAIBackend, RetryPolicy
from pibench_tui.harness.loop import AgentSettings, run_career
from scenarios import load_scenario


def settings_for(
    scenario: str = "short-12", *, model: str = "fake", label: str | None = None, **kw: Any
) -> AgentSettings:
    """Harness settings for a bundled scenario (the §16 defaults unless overridden)."""
    scen = load_scenario(scenario)
    return AgentSettings(model=model, label=label or model, scenario=scen.name, config=scen.config, **kw)


def fast_policy(**kw: Any) -> RetryPolicy:
    """Retries with millisecond backoff (the tests never wait for real)."""
    base = {"retries": 5, "base": 0.001, "cap": 0.01, "timeout": 5.0}
    base.update(kw)
    return RetryPolicy(**base)


def play(
    server: Any,
    out: Path,
    *,
    scenario: str = "short-12",
    seed: int = 101,
    policy: RetryPolicy | None = None,
    **settings: Any,
) -> dict:
    """One career against ``server`` (a :class:`FakeLLM`) through the real openai client."""
    s = settings_for(scenario, **settings)
    backend = OpenAIBackend(
        s.model,
        base_url=server.base_url,
        api_key_env="PIBENCH_TEST_NO_KEY",
        temperature=s.temperature,
        max_tokens=s.max_tokens,
        policy=policy or fast_policy(),
    )
    return run_career(s, backend, seed, out, log=lambda _t: None)


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """A fresh output folder."""
    return tmp_path / "runs"
