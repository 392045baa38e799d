"""Table parameters are range-checked like scalars (Decisions §2; a bad scenario must not crash a run)."""

from __future__ import annotations

import pytest

from world.config import WorldConfig


@pytest.mark.parametrize(
    "override, key",
    [
        ({"pools": {"elite": {"volume": -1}}}, "pools.elite.volume"),
        ({"pools": {"local": {"ability_sd": -0.5}}}, "pools.local.ability_sd"),
        ({"pools": {"elite": {"accept_base": 1.5}}}, "pools.elite.accept_base"),
        ({"tiers": {"3": {"p_infeasible": 2}}}, "tiers.3.p_infeasible"),
        ({"tiers": {"1": {"work": 0}}}, "tiers.1.work"),
        ({"venues": {"NAIC": {"deadlines": [3, 12]}}}, "venues.NAIC.deadlines"),
        ({"venues": {"JMR": {"half_life": 0}}}, "venues.JMR.half_life"),
        ({"agencies": {"BSF": {"duration": 0}}}, "agencies.BSF.duration"),
        ({"agencies": {"AMP": {"call_months": [0]}}}, "agencies.AMP.call_months"),
    ],
)
def test_out_of_range_table_values_are_refused_with_their_key(override, key):
    """Each bad table value is refused with a ValueError naming ``table.row.key``."""
    with pytest.raises(ValueError) as err:
        WorldConfig.from_dict(override)
    assert key in str(err.value)


def test_in_range_table_override_is_accepted():
    """A sensible partial table override merges into the defaults."""
    cfg = WorldConfig.from_dict({"pools": {"elite": {"volume": 3.0}}, "venues": {"NAIC": {"deadlines": [4, 10]}}})
    assert cfg.pools["elite"]["volume"] == 3.0 and cfg.pools["local"]["volume"] == 2.0
    assert cfg.venues["NAIC"]["deadlines"] == [4, 10]
