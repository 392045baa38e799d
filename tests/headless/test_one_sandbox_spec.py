"""One sandbox factory (issue 23 §3): every front end that starts an agent process hands it
the same spec -- the scenario's numbers in the help and its harness limits -- so
``help(lab.attention)`` under ``unlimited-attention`` shows the scenario's attention base
in ``pibench headless``, ``pibench agent``, the Gymnasium environment and the TUI console."""

from __future__ import annotations

import json

import pytest

from pibench_tui.sandbox.factory import agent_spec
from scenarios import load_scenario
from tests.tui.conftest import build, press, run_console_line

SCENARIO = "unlimited-attention"
#: What help(lab.attention) says of this scenario's base (1e6 hours, formatted from lab.rules()).
SCENARIO_BASE = "base 1,000,000 h/month"
#: What it says of the default world's (the number the harness used to show).
DEFAULT_BASE = "base 100 h/month"


def _expected():
    return agent_spec(load_scenario(SCENARIO).config)


def test_the_spec_carries_the_scenario_numbers_not_the_defaults():
    """The factory's spec under unlimited-attention documents its attention base and
    differs from the default world's: a spec built from the registry alone would not."""
    from world.config import WorldConfig

    spec = _expected()
    doc = spec.calls["lab"]["attention"]["doc"]
    assert SCENARIO_BASE in doc and DEFAULT_BASE not in doc
    assert DEFAULT_BASE in agent_spec(WorldConfig()).calls["lab"]["attention"]["doc"]
    assert spec.limits == {"memory_max_chars": 6000, "query_max_rows": 2000}


def test_every_front_end_hands_the_agent_process_the_same_spec(tmp_path):
    """Headless mode, the harness's LabCore (``pibench agent``) and the Gymnasium environment
    build their sandbox with exactly the factory's spec and limits for the scenario (what the
    agent process receives at its handshake)."""
    from pibench_tui.harness.core import LabCore
    from pibench_tui.harness.gym_env import LabEnv
    from pibench_tui.headless.session import HeadlessOptions, HeadlessSession

    want = _expected()
    session = HeadlessSession(HeadlessOptions(scenario=SCENARIO))
    core = LabCore(load_scenario(SCENARIO).config, seed=101)
    core.reset()
    env = LabEnv(SCENARIO)
    env.reset()
    try:
        for name, sandbox in (("headless", session.sandbox), ("agent", core.sandbox), ("gym", env.core.sandbox)):
            assert sandbox.spec == want.calls, name
            assert sandbox.limits == want.limits, name
    finally:
        session.close()
        core.close()
        env.close()


def test_help_shows_the_scenario_attention_in_pibench_headless(pibench):
    """``pibench headless --scenario unlimited-attention``: help(lab.attention) names the
    scenario's million-hour base."""
    run = pibench(["headless", "--scenario", SCENARIO], "help(lab.attention)\n")
    assert run.returncode == 0, run.stderr
    assert SCENARIO_BASE in run.stdout and DEFAULT_BASE not in run.stdout


def test_help_shows_the_scenario_attention_in_pibench_agent(tmp_path):
    """``pibench agent --scenario unlimited-attention`` (against the local fake server): the
    block's help(lab.attention) output in the transcript names the scenario's million-hour
    base, as headless mode does (the harness used to show the default world's 100 h)."""
    from pibench_tui.cli.command import main as pibench_main
    from pibench_tui.harness.rundir import read_jsonl
    from tests.harness.fakellm import FakeLLM, Reply

    def brain(req, i):
        return Reply("```python\nhelp(lab.attention)\ntime.next_month()\n```")

    with FakeLLM(brain) as srv:
        rc = pibench_main(
            ["agent", "--model", "fake", "--base-url", srv.base_url, "--api-key-env", "PIBENCH_NO_SUCH_KEY"]
            + ["--scenario", SCENARIO, "--out", str(tmp_path), "--max-turns", "1"]
        )
    assert rc == 0
    [run] = list((tmp_path / "fake").iterdir())
    blocks = [e for e in read_jsonl(run / "transcript.jsonl") if e["event"] == "block"]
    assert blocks, json.dumps(read_jsonl(run / "transcript.jsonl")[:3])
    assert SCENARIO_BASE in blocks[0]["output"] and DEFAULT_BASE not in blocks[0]["output"]


@pytest.mark.asyncio
async def test_the_tui_console_hands_the_agent_process_the_same_spec():
    """The TUI console's sandbox (``:`` in a career of unlimited-attention) gets the factory's
    spec, and help(lab.attention) there names the scenario's base."""
    scen = load_scenario(SCENARIO)
    from world.engine import World

    app = build(World(scen.config, scen.seed))
    async with app.run_test(size=(160, 50)) as pilot:
        await press(pilot, "colon", focus="console-input")
        app.console_panel.input.value = "help(lab.attention)"
        await run_console_line(pilot, app)
        log = "\n".join(str(x.text) for x in app.console_panel.query_one("#console-log").lines)
        sandbox = app.console_panel.sandbox
        want = _expected()
        assert sandbox is not None and sandbox.spec == want.calls and sandbox.limits == want.limits
        assert SCENARIO_BASE in log and DEFAULT_BASE not in log
