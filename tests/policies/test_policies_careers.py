"""Every reference policy plays full careers without refusals it did not expect (MECHANICS §17)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from policies_helpers import StrictView

import world.policies as policies_pkg
from world.api import Api
from world.config import WorldConfig
from world.engine import World
from world.policies import (
    ALL_NAMES,
    DEFAULT_CONFIG,
    POLICIES,
    TUNED_CONFIG,
    Baseline,
    BaselineConfig,
    grid,
    make_policy,
)
from world.runner import build_policy, play, result_row, run_career

SEEDS = (101, 102, 103)


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_api_policies_play_full_careers_through_the_public_api_only(name):
    """Against a view exposing only the public calls of each namespace (no ``world``, no
    ``_api``), each API-only policy finishes its careers with no unexpected refusal."""
    for seed in SEEDS:
        w = World(WorldConfig(), seed)
        api = Api(w)
        view = StrictView(api)
        pol = make_policy(name)
        while not w.s.finished:
            m = w.s.month
            pol.act(view)  # an unexpected ActionError or an AttributeError fails the test
            if not w.s.finished and w.s.month == m:
                api.time.next_month()
        assert w.s.finished


#: Seeds of the baseline's no-refusal search: the default suite plays the first ones, ``-m slow`` all.
NO_REFUSAL_SEEDS = (101, 102, 103, 104, 105, 106, 1001, 1002, *range(1, 31))
NO_REFUSAL_DEFAULT = 12


@pytest.mark.parametrize(
    "seeds",
    [
        pytest.param(NO_REFUSAL_SEEDS[:NO_REFUSAL_DEFAULT], id="default"),
        pytest.param(NO_REFUSAL_SEEDS[NO_REFUSAL_DEFAULT:], id="more-seeds", marks=pytest.mark.slow),
    ],
)
def test_baseline_makes_no_refused_call_at_all(seeds):
    """The baseline never has a call refused, over full careers on several seeds (twelve in
    the default suite; the other 26 of the search under ``-m slow``)."""
    for seed in seeds:
        w = World(WorldConfig(), seed)
        pol = Baseline()
        play(w, pol)
        assert pol.refused == [] and pol.errors == [], (seed, pol.refused, pol.errors)
        assert w.s.finished


def test_baseline_makes_no_refused_call_under_the_ablations():
    """Short horizons, a frozen field, unlimited attention, no scooping, and every grid config."""
    from world.runner import ablation_configs

    for cfg in ablation_configs().values():
        for seed in (101, 102):
            w = World(cfg, seed)
            pol = Baseline()
            play(w, pol)
            assert pol.refused == [] and pol.errors == []
    for bc in grid():
        w = World(WorldConfig(), 103)
        pol = Baseline(bc)
        play(w, pol)
        assert pol.refused == [] and pol.errors == [], bc


@pytest.mark.parametrize("name", ALL_NAMES)
def test_every_policy_has_no_unexpected_refusal(name):
    """All policies, the oracle included: ``errors`` (unexpected refusals) stays empty."""
    for seed in SEEDS:
        row = run_career(name, seed)
        assert row["errors"] == 0, (name, seed)
        assert row["months"] >= 1


def test_expected_refusals_are_only_attention():
    """The ambitious policy's caught refusals are all 'no_attention' (its literal "accept every event")."""
    for seed in SEEDS:
        w = World(WorldConfig(), seed)
        pol = make_policy("ambitious")
        play(w, pol)
        assert all(code == "no_attention" for _, _, code in pol.refused)


def test_do_nothing_never_collapses_and_scores_zero():
    """The do-nothing policy survives every evaluation seed with zero Impact and its starting budget
    untouched."""
    for seed in SEEDS:
        row = run_career("do-nothing", seed)
        assert row["collapse_month"] is None and row["impact"] == 0.0 and row["final_budget"] == 600000.0


def test_hire_max_spends_without_grants():
    """The hire-max policy hires people on every evaluation seed and, never proposing, wins no
    grant."""
    for seed in SEEDS:
        row = run_career("hire-max", seed)
        assert row["grants_won"] == 0 and row["hires"] > 0


def test_same_seed_same_row():
    """Playing the same policy on the same seed twice gives the same result row (baseline and
    oracle)."""
    assert run_career("baseline", 104) == run_career("baseline", 104)
    assert run_career("oracle", 104) == run_career("oracle", 104)


def test_baseline_default_config_is_mechanics_s17():
    """§17 defaults: target 4, ≤ 2 hires/season, interview on, tier 2, 1,500 compute, 5 h
    mentoring, 25 h proposals, 8 h polish, topic rule news (fallback reasoning), no hiring
    at runway < 18."""
    c = DEFAULT_CONFIG
    assert (c.target, c.max_hires, c.interview, c.tier, c.compute, c.mentoring) == (4, 2, True, 2, 1500.0, 5.0)
    assert (c.proposal_hours, c.polish_hours, c.topic_rule, c.fallback_topic, c.min_hire_runway) == (
        25.0,
        8.0,
        "news",
        "reasoning",
        18.0,
    )
    assert Baseline().config == BaselineConfig()


def test_grid_has_sixteen_configs_including_default_and_tuned():
    """The tuning grid is 16 distinct baseline configurations, the full product of target size,
    tier, interviewing and topic rule, and holds both the default and the tuned configuration."""
    g = grid()
    assert len(g) == 16 and len(set(g)) == 16
    assert DEFAULT_CONFIG in g and TUNED_CONFIG in g
    assert {c.target for c in g} == {4, 6} and {c.tier for c in g} == {2, 3}
    assert {c.interview for c in g} == {True, False} and {c.topic_rule for c in g} == {"news", "fixed"}


def test_all_in_is_tier_three_on_one_topic():
    """The all-in policy only ever starts tier-3 projects."""
    w = World(WorldConfig(), 101)
    play(w, make_policy("all-in"))
    tiers = {pj.tier for pj in w.s.projects.values()}
    assert tiers <= {3}


def test_oracle_is_kept_apart():
    """The oracle is not an API-only policy: not in POLICIES, built only with the World."""
    assert "oracle" not in POLICIES
    with pytest.raises(KeyError):
        make_policy("oracle")
    w = World(WorldConfig(), 101)
    assert build_policy("oracle", w).world is w


API_ONLY_FILES = ("base.py", "baseline.py", "simple.py", "ambitious.py", "__init__.py")


@pytest.mark.parametrize("fname", API_ONLY_FILES)
def test_api_only_policy_sources_never_reach_past_the_api(fname):
    """Static check: no attribute ``world``/``s``/``_api``/``_w``/``cfg``/``rng`` on anything,
    and no import of world internals other than the API's ActionError."""
    src = Path(policies_pkg.__file__).with_name(fname).read_text()
    tree = ast.parse(src)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            assert node.attr not in ("world", "s", "_api", "_w", "cfg", "rng"), (fname, node.lineno, node.attr)
        if isinstance(node, ast.ImportFrom) and node.level >= 2:
            assert node.module == "api" and [a.name for a in node.names] == ["ActionError"], (fname, node.lineno)
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            assert node.module != "oracle" and node.module not in (
                "engine",
                "state",
                "field",
                "grants",
                "papers",
                "people",
                "projects",
            ), fname


def test_result_row_has_every_column():
    """A result row starts with exactly the runner's ROW_FIELDS, in order, and carries the §17
    capability axes alongside."""
    w = World(WorldConfig(months=6), 5)
    pol = make_policy("baseline")
    play(w, pol)
    row = result_row(w, pol)
    from world.runner import ROW_FIELDS

    assert tuple(row)[: len(ROW_FIELDS)] == ROW_FIELDS
    assert set(row["axes"]) == {"axes", "pool"}  # the §17 capability axes ride along (not a CSV column)
