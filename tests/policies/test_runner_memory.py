"""A sweep's memory stays flat: a finished career leaves nothing for the cyclic collector."""

from __future__ import annotations

import gc

import pytest

from world.runner import run_career


@pytest.mark.parametrize("policy", ["baseline", "oracle"])
def test_a_finished_career_leaves_no_cyclic_garbage(policy):
    """Everything a career built (its world, API, policy, random streams) is freed by reference
    counting once :func:`run_career` returns its row: with the collector paused, a collection
    afterwards finds none of the world's objects (a reference cycle through the API kept whole
    worlds alive until the collector's next full pass, thousands of objects a career)."""
    run_career(policy, 1)  # first-use caches, imports
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        row = run_career(policy, 2)
        gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    assert row["seed"] == 2 and row["months"] > 0
    ours = sorted(
        {type(o).__module__ + "." + type(o).__name__ for o in garbage if type(o).__module__.startswith("world")}
    )
    assert not ours, f"a career's objects were left to the cyclic collector: {ours}"
    assert len(garbage) < 100, f"{len(garbage)} objects left in reference cycles by one career"
