"""WorldConfig as a dataclass: each config owns its table parameters."""

from __future__ import annotations

from world.config import WorldConfig


def test_tables_are_fresh_per_instance():
    """Each config gets its own table dicts from the default factories (never shared)."""
    a, b = WorldConfig(), WorldConfig()
    assert a.pools == b.pools and a.pools is not b.pools
    given = {"sparse_models": 1.0}
    assert WorldConfig(initial_hotness=given).initial_hotness is given  # a given value is taken as is
