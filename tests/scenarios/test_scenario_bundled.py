"""The bundled scenarios (scenarios/*.toml): all present, valid, and what their names say."""

from __future__ import annotations

import dataclasses
from importlib import resources

import pytest

from scenarios import (
    BUNDLED_ORDER,
    DEFAULT_SCENARIO,
    ScenarioError,
    bundled_names,
    list_scenarios,
    load_scenario,
)
from world.config import WorldConfig

EXPECTED = [
    "standard",
    "eval-101",
    "eval-102",
    "eval-103",
    "short-12",
    "mid-30",
    "frozen-field",
    "unlimited-attention",
    "no-scooping",
    "tutorial",
]


def test_every_required_scenario_is_bundled_and_listed_in_order():
    """Every required scenario is bundled, the listing starts in the documented order, and
    ``list_scenarios`` agrees with the bundled names."""
    names = bundled_names()
    assert set(EXPECTED) <= set(names)
    assert names[: len(BUNDLED_ORDER)] == list(BUNDLED_ORDER)
    assert [s.name for s in list_scenarios()] == names


@pytest.mark.parametrize("name", EXPECTED)
def test_bundled_file_name_matches_its_name_and_it_has_a_description(name):
    """Each bundled scenario loads from the file named after it, says it is bundled and has a real
    description."""
    scen = load_scenario(name)
    assert scen.name == name and scen.source == "bundled"
    assert len(scen.description) > 20
    assert resources.files("scenarios").joinpath(f"{name}.toml").is_file()


def test_standard_is_the_default_world_on_a_practice_seed():
    """standard = every default parameter; seed 1001 keeps eval seeds 101-103 held out."""
    scen = load_scenario(None)
    assert scen.name == DEFAULT_SCENARIO == "standard"
    assert scen.config == WorldConfig() and scen.seed == 1001 and scen.changes() == {}


@pytest.mark.parametrize("seed", [101, 102, 103])
def test_eval_scenarios_use_the_evaluation_seeds_and_default_rules(seed):
    """The eval-101..103 scenarios use their evaluation seed and exactly the default world rules."""
    scen = load_scenario(f"eval-{seed}")
    assert scen.seed == seed and scen.config == WorldConfig()


@pytest.mark.parametrize(
    "name, changes",
    [
        ("short-12", {"months": (60, 12)}),
        ("mid-30", {"months": (60, 30)}),
        ("frozen-field", {"frozen_field": (False, True)}),
        ("no-scooping", {"no_scooping": (False, True)}),
    ],
)
def test_ablation_scenarios_change_exactly_one_thing(name, changes):
    """MECHANICS §17 ablations: horizon 12, horizon 30, frozen field, no scooping."""
    scen = load_scenario(name)
    assert scen.changes() == changes and scen.seed == 101


def test_unlimited_attention_has_a_million_hours_and_no_service_tax():
    """The unlimited-attention scenario turns the flag on with a million-hour base and no service
    tax."""
    cfg = load_scenario("unlimited-attention").config
    assert cfg.unlimited_attention is True and cfg.attention_unlimited_base == 1e6 and cfg.service_tax_hours == 0


def test_tutorial_is_gentler_and_says_so():
    """The tutorial starts with more money and a lower quit ceiling than the default, and its
    description says so."""
    scen = load_scenario("tutorial")
    default = WorldConfig()
    assert scen.config.start_budget > default.start_budget
    assert scen.config.quit_p_max < default.quit_p_max
    assert "$900,000" in scen.description and "gentler" in scen.description


def test_seed_override():
    """--seed replaces the scenario's seed and nothing else."""
    base = load_scenario("short-12")
    other = load_scenario("short-12", seed=7)
    assert other.seed == 7 and other.config == base.config
    assert dataclasses.replace(other, seed=101) == base
    for bad in (-1, 2**63, 1.5, True, "7"):
        with pytest.raises(ScenarioError, match="--seed"):
            load_scenario("short-12", seed=bad)


def test_scenario_to_dict_is_plain_data():
    """``Scenario.to_dict`` gives plain data whose config rebuilds an equal WorldConfig."""
    d = load_scenario("mid-30").to_dict()
    assert d["name"] == "mid-30" and d["seed"] == 101 and d["config"]["months"] == 30
    assert WorldConfig.from_dict(d["config"]) == load_scenario("mid-30").config
