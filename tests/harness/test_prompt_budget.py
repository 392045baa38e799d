"""The prompt a lab pays for (issue 26 §3): the system prompt within its token budget, byte-stable
across calls (provider prompt caching), every API call said once with a whole clause, every table
named with its columns one call away (help(query)), and a month report that names only the offers
the PI made."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

from pibench_tui.harness.core import LabCore, harness_system_prompt
from pibench_tui.harness.prompt import BRIEFS, month_message, report_for_agent
from scenarios import list_scenarios, load_scenario
from world.api import API_CALLS
from world.config import WorldConfig
from world.observe import SCHEMA
from world.report import pi_view

BENCH = Path(__file__).resolve().parents[2] / "bench" / "prompt_tokens.py"

#: Tokens of the standard scenario's system prompt (bench/prompt_tokens.py's count): the goal of
#: issue 26 §3. Before it, 3,261 (characters / 4); then 2,194 (columns once, whole sentences).
#: The goal, not a measurement: never raised to fit a longer prompt. Measured (characters / 4,
#: no offline tokenizer here): 1,595 once the goal was met, 5 tokens of headroom, so any
#: addition broke this test; trimmed to 1,580 (QA26 fix 12: no "e.g. help(papers.submit)",
#: applicants() no longer repeats offer()'s months, projects.list() "all ever"): 20 tokens of
#: headroom (80 characters) in every scenario. A change that needs more trims elsewhere first.
SYSTEM_BUDGET = 1_600

#: Mean prompt tokens a call over the bench's scripted baseline-like career (standard, seed 101):
#: 4,101 before issue 26 §3; its goal, 2,800.
MEAN_BUDGET = 2_800


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("_bench_prompt_tokens_under_test", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_system_prompt_is_within_its_token_budget():
    """Every scenario's system prompt counts at most SYSTEM_BUDGET tokens with the bench's own
    counter (standard: 3,261 at first, 2,194 before the goal was met: a call a line with its
    docstring's first sentence, every table's columns, the module list, the rules twice over;
    1,595 once the goal was met, 1,580 since QA26 fix 12)."""
    count, _name = _bench().tokenizer()
    for scen in list_scenarios():
        prompt = harness_system_prompt(scen.config)
        assert count(prompt) <= SYSTEM_BUDGET, (scen.name, count(prompt))


def test_system_prompt_is_byte_stable_and_the_conversation_prefix_too():
    """Two cores build byte-identical system prompts, and over a played career every call sends
    the same system prompt and extends the month's conversation without changing what was sent
    (what provider prompt caching needs)."""
    cfg = load_scenario("standard").config
    a = LabCore(cfg).system_prompt.encode("utf-8")
    b = LabCore(cfg).system_prompt.encode("utf-8")
    assert a == b
    m = _bench().measure(seed=101, scenario="short-12", months=3)
    assert m["calls"] >= 6
    assert m["system_stable"] and m["prefix_stable"]


def test_each_api_call_is_said_once_with_a_whole_clause_and_every_table_is_named():
    """Each registered call appears once, in its namespace's line, with a whole clause (no clause
    cut mid-sentence, no internal reference to MECHANICS or §); every table query() reads is named
    (its columns are help(query)'s, not the prompt's); each short clause (BRIEFS) names a registered
    call and says its rule numbers as this scenario's config has them."""
    text = harness_system_prompt(WorldConfig())
    assert "MECHANICS" not in text and "§" not in text
    lines = {ln.split(": ", 1)[0]: ln.split(": ", 1)[1] for ln in text.splitlines() if ": " in ln}
    for ns, calls in API_CALLS.items():
        items = {re.match(r"\*?([a-z_]+)\(", it).group(1): it for it in lines[ns].split(" | ")}  # type: ignore[union-attr]
        assert list(items) == list(calls), ns
        for item in items.values():
            assert not re.search(r"(,| the| or| per| a| an)$", item), item
    assert items["last_report"].endswith("the last closed month's report again")
    assert "answered at the tick of month 3, arrival in month 5" in lines["recruit"]
    for table in SCHEMA:
        assert re.search(rf"(-> |over the tables above and .*){table}\b", text), table
    assert "help(query): their columns" in text
    for key in BRIEFS:
        ns, name = key.split(".")
        assert name in API_CALLS[ns], key
    wide = dataclasses.replace(WorldConfig(), max_compute=12_345.0)
    assert "units/month, 0 to 12,345" in harness_system_prompt(wide)


def test_help_query_lists_every_table_with_its_columns():
    """What the prompt leaves to help(query) is there: in the agent process, help(query) lists every
    table query() reads with its columns (before, the help named no table)."""
    core = LabCore(load_scenario("short-12").config)
    try:
        core.reset(seed=101)
        obs, *_rest = core.step("help(query)")
    finally:
        core.close()
    for table, cols in SCHEMA.items():
        assert f"{table}({', '.join(cols)})" in obs, table


def _offers_shown(message: str) -> dict[str, Any]:
    block = message.split("LAST MONTH'S REPORT", 1)[1].split("\n", 2)[1]
    return json.loads(block)


def test_month_report_after_a_hiring_season_names_only_the_offers_made():
    """After the season's offers resolve, the month message's report lists the one offer the PI
    made (with its outcome) and counts the pool in applicant_pool; the applicants never offered
    are not listed (before: every applicant of the pool, most 'expired'). time.last_report() from
    agent code says the same (before: the whole pool as 'expired' offers), and the applicants stay
    reachable through query()."""
    core = LabCore(load_scenario("short-12").config)
    try:
        core.reset(seed=101)
        core.step(
            "apps = recruit.applicants()\na = apps[0]['id']\n_ = recruit.offer(a)\nprint(a, len(apps))\n"
            "_ = time.next_month()"
        )
        offered, pool = (core.last_result.stdout.split() if core.last_result else ["", "0"])[:2]
        for _ in range(2):
            obs, *_rest = core.step("time.next_month()")
        report = _offers_shown(obs)
        core.step(
            "import json\nr = time.last_report()\n"
            "print(json.dumps([r['offers'], r['applicant_pool'], query('select count(*) n from applicants')[0]['n']]))"
        )
        code_offers, code_pool, in_db = json.loads(core.last_result.stdout if core.last_result else "null")
    finally:
        core.close()
    assert report["month"] == 3
    assert [o["applicant_id"] for o in report["offers"]] == [offered]
    assert report["offers"][0]["outcome"] in ("accepted", "declined")
    assert report["applicant_pool"] == {"applicants": int(pool), "offered": 1, "never_offered": int(pool) - 1}
    assert [o["applicant_id"] for o in code_offers] == [offered] and code_pool == report["applicant_pool"]
    assert in_db >= int(pool) > 1


def test_report_for_agent_drops_empty_lists_and_lapsed_applicants():
    """The unit: lapsed applicants become the pool's counts, empty lists, nulls and false flags go,
    the rest is kept as it was; a report already in the PI's form (time.last_report()'s) is kept."""
    rep = {
        "month": 3,
        "offers": [
            {"applicant_id": "APP1", "outcome": "accepted"},
            {"applicant_id": "APP2", "outcome": "expired"},
            {"applicant_id": "APP3", "outcome": "expired"},
        ],
        "quits": [],
        "collapsed": False,
        "money": {"net": -5.0, "by_category": {}},
        "award_id": None,
    }
    out = report_for_agent(rep)
    assert out == {
        "month": 3,
        "offers": [{"applicant_id": "APP1", "outcome": "accepted"}],
        "applicant_pool": {"applicants": 3, "offered": 1, "never_offered": 2},
        "money": {"net": -5.0},
    }
    assert report_for_agent(pi_view(rep)) == out
    assert pi_view({"month": 4, "offers": []})["applicant_pool"] is None


def test_mean_prompt_per_call_over_a_baseline_like_career_is_within_budget():
    """Over the bench's scripted baseline-like 60-month career every call sends at most MEAN_BUDGET
    tokens on average (4,101 before issue 26 §3), with one system prompt for all calls."""
    m = _bench().measure(seed=101, scenario="standard")
    assert m["calls"] >= 100
    assert m["mean_prompt_tokens"] <= MEAN_BUDGET, m["mean_prompt_tokens"]
    assert m["system_stable"]


def test_month_message_says_each_thing_once_and_keeps_every_field_news_item():
    """The month message: the field-news headlines as one line with every count, topic and trend
    word; an arrived event that is pending shown whole only in the dashboard (the report names its
    id); month, label and horizon only in the header; whole floats as ints; nulls in list items gone."""
    report = {
        "month": 40,
        "label": "Y4M4",
        "headlines": [
            "Qi Costa joined the lab as a PhD student.",
            "1 item on sparse_models this month; the area is surging.",
            "2 items on ai4science this month; the area is gaining steam.",
        ],
        "money": {"net": -12600.0, "budget": 333000.0},
        "events": {"arrived": [{"id": "E034", "kind": "review_request", "details": {"hours": 6.0}}], "expired": []},
    }
    dashboard = {
        "month": 41,
        "label": "Y4M5",
        "months_total": 60,
        "budget": 333000,
        "students": [{"id": "S004", "stipend": 3200.0, "last_report_quality": None}],
        "pending_events": [{"id": "E034", "kind": "review_request", "details": {"hours": 6.0}}],
    }
    text = month_message(
        month=41, months=60, label="Y4M5", max_turns=8, memory="", memory_limit=6000, dashboard=dashboard, report=report
    )
    head, _notes, rep_block, dash_block = text.split("\n\n")
    assert "41" in head and "60" in head and "Y4M5" in head and "8 code turns" in head
    rep = json.loads(rep_block.split("\n", 1)[1])
    dash = json.loads(dash_block.split("\n", 1)[1])
    assert rep["headlines"] == [
        "Qi Costa joined the lab as a PhD student.",
        "Field news this month: sparse_models 1 item, surging; ai4science 2 items, gaining steam.",
    ]
    assert rep["events"] == {"arrived": ["E034"]} and "label" not in rep
    assert rep["money"] == {"net": -12600}
    assert dash == {
        "budget": 333000,
        "students": [{"id": "S004", "stipend": 3200}],
        "pending_events": [{"id": "E034", "kind": "review_request", "details": {"hours": 6}}],
    }
    assert isinstance(dash["students"][0]["stipend"], int)
