"""One validator of world parameters (WorldConfig): every bad value at once, each with its valid range."""

from __future__ import annotations

import pytest

from world.config import SEED_MAX, ConfigError, WorldConfig, seed_problem


def test_every_bad_value_is_reported_at_once_with_its_range():
    """Bad scalars, table cells, list items, unknown keys and the cross-field rule are all named in one error."""
    with pytest.raises(ConfigError) as info:
        WorldConfig.from_dict(
            {
                "months": 0,
                "boom_p": 1.5,
                "hot_max": float("nan"),
                "pay_phd": "lots",
                "zzz": 1,
                "pools": {"elite": {"volume": -1, "volum": 2}},
                "venues": {"NAIC": {"deadlines": [3, 44]}},
                "initial_hotness": {"reasoning": -1.0},
            }
        )
    problems = info.value.problems
    assert len(problems) == 9, problems
    by_key = {p.split(":")[0]: p for p in problems}
    assert "between 1 and 240" in by_key["months"]
    assert "between 0 and 1" in by_key["boom_p"]
    assert "finite" in by_key["hot_max"]
    assert "must be a number" in by_key["pay_phd"]
    assert "unknown parameter" in by_key["zzz"]
    assert "between 0 and 100" in by_key["pools.elite.volume"]
    assert "did you mean 'volume'" in by_key["pools.elite.volum"]
    assert "between 0 and 11" in by_key["venues.NAIC.deadlines[1]"]
    assert "positive" in by_key["initial_hotness.reasoning"]
    assert str(info.value).startswith("9 problems")


def test_validate_reports_every_out_of_range_value_of_a_built_config():
    """``validate()`` on a config built around the checks names each bad value, not only the first."""
    import dataclasses

    cfg = dataclasses.replace(WorldConfig(), months=0, researcher_cap=-3)
    with pytest.raises(ConfigError) as info:
        cfg.validate()
    assert [p.split(":")[0] for p in info.value.problems] == ["months", "researcher_cap"]


def test_good_data_round_trips_and_tables_merge():
    """A full config round-trips exactly; a partial table merges into the defaults as floats."""
    cfg = WorldConfig()
    assert WorldConfig.from_dict(cfg.to_dict()) == cfg
    part = WorldConfig.from_dict({"pools": {"elite": {"volume": 3}}, "start_budget": 5})
    assert part.pools["elite"]["volume"] == 3.0 and isinstance(part.pools["elite"]["volume"], float)
    assert part.pools["elite"]["ability_mean"] == cfg.pools["elite"]["ability_mean"]
    assert part.pools is not WorldConfig().pools


def test_paths_name_keys_as_the_caller_wrote_them():
    """A caller (the scenario loader) names keys as written in its file."""
    with pytest.raises(ConfigError) as info:
        WorldConfig.from_dict({"boom_p": 2.0}, {"boom_p": "world.boom_p"})
    assert info.value.problems[0].startswith("world.boom_p:")


@pytest.mark.parametrize(
    "seed, ok",
    [(0, True), (SEED_MAX, True), (-1, False), (SEED_MAX + 1, False), (1.5, False), (True, False), ("7", False)],
)
def test_seed_problem(seed, ok):
    """Seeds are integers in 0..2**63-1; the CLI's --seed and scenario files use this one check."""
    assert (seed_problem(seed) is None) == ok


def test_cli_seed_uses_the_one_validator():
    """``pibench ... --seed`` refuses an out-of-range seed with the validator's message."""
    import argparse

    from pibench_tui.cli.command import _seed

    with pytest.raises(argparse.ArgumentTypeError, match="out of range"):
        _seed(str(SEED_MAX + 1))
    assert _seed("101") == 101


def test_from_dict_shares_no_table_with_its_data_or_another_config():
    """A config built from data keeps tables of its own, down to the rows and lists: changing
    the data afterwards (a row's number, a venue's deadline list) or another config built
    from the same data changes nothing in it."""
    data = WorldConfig().to_dict()
    data["venues"]["NAIC"]["deadlines"] = [2, 8]
    a, b = WorldConfig.from_dict(data), WorldConfig.from_dict(data)
    data["pools"]["elite"]["volume"] = 9.0
    data["venues"]["NAIC"]["deadlines"].append(11)
    b.pools["elite"]["volume"] = 7.0
    b.venues["NAIC"]["deadlines"].append(12)
    assert a.pools["elite"]["volume"] == WorldConfig().pools["elite"]["volume"]
    assert a.venues["NAIC"]["deadlines"] == [2, 8]
    assert WorldConfig().pools["elite"]["volume"] != 7.0


def test_a_config_given_whole_as_its_defaults_builds_exactly_and_odd_types_are_still_checked():
    """A config given whole with every value its default (as a save holds it, read back from
    JSON) builds exactly the default config (same values, types and order), sharing no table
    with the data; a value equal to its default but of another type is still checked as any
    other: an int for a float parameter becomes a float, a bool for an integer one is refused,
    a numpy float becomes a plain float."""
    import json
    import marshal

    import numpy as np

    data = json.loads(json.dumps(WorldConfig().to_dict()))
    cfg = WorldConfig.from_dict(data)
    assert marshal.dumps(cfg.to_dict(), 2) == marshal.dumps(WorldConfig().to_dict(), 2)
    data["pools"]["elite"]["volume"] = 9.0
    assert cfg.pools["elite"]["volume"] == WorldConfig().pools["elite"]["volume"]

    default = WorldConfig()
    assert type(default.start_budget) is float and default.collab_expiry == 1
    odd = WorldConfig.from_dict({"start_budget": int(default.start_budget), "compute_unit_cost": np.float64(1.0)})
    assert type(odd.start_budget) is float and type(odd.compute_unit_cost) is float
    with pytest.raises(ConfigError) as info:
        WorldConfig.from_dict({"collab_expiry": True})
    assert "collab_expiry: must be an integer" in str(info.value)


def test_validate_checks_every_cell_of_a_table_that_only_looks_like_the_default():
    """A table equal to its default (``==``) but holding a bool where the default has the int 1
    is still checked cell by cell (and refused), as is one holding a nan; the default tables,
    and copies of them, pass."""
    import copy
    import dataclasses
    import math

    WorldConfig().validate()  # the defaults, exactly: no problem
    copy.copy(WorldConfig()).validate()
    dataclasses.replace(WorldConfig(), agencies=copy.deepcopy(WorldConfig().agencies)).validate()
    for cell, bad in (("max_concurrent", True), ("award", math.nan)):
        agencies = copy.deepcopy(WorldConfig().agencies)
        agencies["AMP"][cell] = bad
        assert (agencies == WorldConfig().agencies) is (bad is True)  # True == 1: equal to the default
        cfg = dataclasses.replace(WorldConfig(), agencies=agencies)
        with pytest.raises(ConfigError) as info:
            cfg.validate()
        assert [p.split(":")[0] for p in info.value.problems] == [f"agencies.AMP.{cell}"]
