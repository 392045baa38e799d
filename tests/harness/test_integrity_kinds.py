"""The integrity audit's kinds are documented where the harness contract is (docs/agent.md),
and the `after_month_closed` hook records what the docs say it records."""

from __future__ import annotations

from pathlib import Path

from pibench_tui.harness.core import LabCore
from pibench_tui.harness.integrity import BENIGN_KINDS, FLAG_KINDS
from scenarios import load_scenario

DOCS = Path(__file__).resolve().parents[2] / "docs" / "agent.md"


def test_every_integrity_kind_is_documented_in_docs_agent():
    """Each kind integrity.json can hold (the flagging ones and the benign
    `after_month_closed`) is named in docs/agent.md, and the benign one is explained: when
    it is recorded, what the agent gets, and its fields."""
    text = DOCS.read_text(encoding="utf-8")
    for kind in (*FLAG_KINDS, *sorted(BENIGN_KINDS)):
        assert f"`{kind}`" in text, kind
    section = text[text.index("**`after_month_closed`**") :][:1500]
    for words in ("time.next_month()", '"month_closed"', "`month`", "`turn`", "`message`", "never flags"):
        assert words in section, words


def test_after_month_closed_refuses_the_call_and_records_month_turn_and_call():
    """A block that closes the month and then starts a project: the call is refused with
    ActionError code month_closed (the world does not change), one after_month_closed
    incident names the month, the turn and the call, and the run is not flagged."""
    core = LabCore(load_scenario("short-12").config, seed=101)
    try:
        core.reset()
        code = (
            "time.next_month()\n"
            "try:\n"
            "    projects.start('reasoning', 1, ['nobody'], 0)\n"
            "except ActionError as e:\n"
            "    print('refused', e.code)\n"
        )
        _obs, _r, _t, _tr, info = core.step(code)
        assert "refused month_closed" in info["output"]
        assert core.month == 2 and core.api.call("projects", "list") == []
        log = core.integrity.to_dict()
        assert log["by_kind"] == {"after_month_closed": 1}
        assert log["incidents"] == [{"month": 1, "turn": 1, "kind": "after_month_closed", "message": "projects.start"}]
        assert log["flags"] == 0 and log["flagged"] is False
    finally:
        core.close()
