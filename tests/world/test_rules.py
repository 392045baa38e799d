"""``lab.rules()``: this scenario's player-facing constants, the one home of every rule
number in API help and messages (issue 9 §2, MECHANICS Decisions §2)."""

from __future__ import annotations

import json

import pytest

from world.api import API_CALLS, ActionError, Api, call_docs
from world.config import WorldConfig
from world.engine import World
from world.rules import RULES_DOC, leaf_keys, render, rule_text, rules

SCENARIO = WorldConfig(pay_phd=4100.0, attention_base=140.0, polish_cap_hours=9.0)
"""A scenario that changes PhD pay, the attention base budget and the polish saturation."""

HIDDEN = (
    "bar",
    "visibility",
    "half_life",
    "hotness",
    "quality",
    "ability",
    "feasible",
    "novelty",
    "crowding",
    "climate",
    "morale",
    "reputation",
    "noise",
    "p_infeasible",
    "prefs",
)


def test_rules_are_documented_json_and_from_the_config():
    """Every key of lab.rules() is documented in RULES_DOC and every documented key exists;
    the values are the config's (months of the year as 1-12)."""
    cfg = WorldConfig()
    r = Api(World(cfg, 1)).lab.rules()
    assert json.loads(json.dumps(r)) == r
    assert leaf_keys(r) == sorted(RULES_DOC)
    for unit, meaning in RULES_DOC.values():
        assert unit and meaning
    assert r["pay"] == {"phd": cfg.pay_phd, "postdoc": cfg.pay_postdoc, "ra": cfg.pay_ra, "manager": cfg.pay_manager}
    assert r["hours"]["polish_saturation"] == cfg.polish_cap_hours
    assert r["attention"]["base"] == cfg.attention_base
    assert r["venues"]["CLAR"]["deadline_months"] == [6, 12]  # the config's month 0 is December
    assert r["agencies"]["BSF"]["call_months"] == [m for m in cfg.agencies["BSF"]["call_months"] if m <= cfg.months]
    assert r["agencies"]["TIF"]["cooldown_months"] == cfg.tif_cooldown
    assert r["projects"]["overload_per_person"] == cfg.overload_projects == 2
    assert r["horizon_months"] == cfg.months and r["start_budget"] == cfg.start_budget


def test_rules_hold_nothing_hidden():
    """No key of lab.rules() names a hidden quantity (acceptance bars, hotness, quality, ...)."""

    def keys(x):
        if isinstance(x, dict):
            for k, v in x.items():
                yield str(k)
                yield from keys(v)

    for k in keys(rules(WorldConfig())):
        assert not any(h in k for h in HIDDEN), k


def test_rules_follow_the_scenario():
    """Under a scenario with other PhD pay, attention base and polish saturation, lab.rules()
    shows the scenario's numbers; a shorter horizon trims the call calendar."""
    r = Api(World(SCENARIO, 1)).lab.rules()
    assert r["pay"]["phd"] == 4100.0 and r["attention"]["base"] == 140.0 and r["hours"]["polish_saturation"] == 9.0
    assert rules(WorldConfig(overload_projects=3))["projects"]["overload_per_person"] == 3
    short = rules(WorldConfig(months=12))
    assert short["horizon_months"] == 12 and short["agencies"]["BSF"]["call_months"] == [2, 8]


def test_api_help_shows_the_scenario_numbers_not_the_defaults():
    """call_docs(config) fills the help of every call from that scenario's rules; the registry's
    docs show the defaults and no placeholder is left anywhere."""
    docs = call_docs(SCENARIO)
    assert "$4,100/month" in docs["recruit"]["offer"] and "$3,200" not in docs["recruit"]["offer"]
    assert "140 h/month" in docs["lab"]["attention"] and "100 h" not in docs["lab"]["attention"]
    assert "9 h" in docs["papers"]["polish"] and "12 h" not in docs["papers"]["polish"]
    assert "$3,200/month" in API_CALLS["recruit"]["offer"].doc
    assert "12 h" in API_CALLS["papers"]["polish"].doc
    for ns, calls in docs.items():
        for name, doc in calls.items():
            assert "{rules." not in doc and "{rules." not in API_CALLS[ns][name].doc, (ns, name)


def test_api_messages_use_the_scenario_numbers():
    """Refusals and notes of the API quote the scenario's numbers: the polish note its saturation,
    a refused action the attention pool built from its base budget."""
    w = World(SCENARIO, 1)
    api = Api(w)
    with pytest.raises(ActionError) as err:
        api.grants.propose("TIF-rolling", "reasoning", 500)
    assert err.value.code == "no_attention" and "pool 140.00 h" in err.value.message
    from world.projects import _new_draft

    d = _new_draft(w, None, "reasoning", 1, 3.0, [])
    assert api.papers.polish(d.id, 10)["note"] == "polish beyond 9 h adds nothing"
    assert "12 h" not in api.papers.polish(d.id, 1)["note"]


def test_render_formats_by_unit_and_refuses_unknown_keys():
    """Placeholders render as money, hours, months and month spans; an unknown key is a KeyError."""
    r = rules(WorldConfig())
    assert (
        render(
            "{rules.pay.ra}; {rules.hours.conference}; {rules.postdoc.search_months}; "
            "{rules.season.offer_months}; {rules.venues.NAIC.deadline_months}",
            r,
        )
        == "$1,800/month; 15 h; 2 months; 1-3; 3, 9"
    )
    assert rule_text(r, "collaboration.months") == "3 months"
    assert rule_text(r, "agencies.AMP.award") == "$850,000"
    with pytest.raises(KeyError):
        render("{rules.pay.professor}", r)
