"""Scenarios: TOML files that pick the seed, horizon, start budget and any world parameter.

``load_scenario("short-12")`` or ``load_scenario("my.toml", seed=7)`` returns a
:class:`Scenario` (name, description, seed, full ``WorldConfig``). The bundled files live
beside this module; see ``docs/saves.md`` for the file format.
"""

from __future__ import annotations

from scenarios.loader import (
    BUNDLED_ORDER,
    DEFAULT_SCENARIO,
    DEFAULT_SEED,
    MODIFIED_MARK,
    Scenario,
    ScenarioError,
    bundled_hash,
    bundled_names,
    list_scenarios,
    load_scenario,
    modified_name,
    modified_scenario,
    parse_scenario,
    read_scenario_file,
    read_scenario_text,
    scenario_title,
)

__all__ = [
    "BUNDLED_ORDER",
    "DEFAULT_SCENARIO",
    "DEFAULT_SEED",
    "Scenario",
    "ScenarioError",
    "bundled_hash",
    "bundled_names",
    "list_scenarios",
    "load_scenario",
    "MODIFIED_MARK",
    "modified_name",
    "modified_scenario",
    "scenario_title",
    "parse_scenario",
    "read_scenario_file",
    "read_scenario_text",
]
