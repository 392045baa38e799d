"""A sweep's memory stays flat: a finished career leaves nothing for the cyclic collector."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_CAREER_GARBAGE = """
import gc, json, sys
from world.runner import run_career
policy = sys.argv[1]
run_career(policy, 1)  # first-use caches, imports
gc.collect()
gc.disable()
gc.set_debug(gc.DEBUG_SAVEALL)
row = run_career(policy, 2)
gc.collect()
garbage = list(gc.garbage)
gc.set_debug(0)
ours = sorted({type(o).__module__ + "." + type(o).__name__ for o in garbage if type(o).__module__.startswith("world")})
print(json.dumps({"seed": row["seed"], "months": row["months"], "ours": ours, "garbage": len(garbage)}))
"""
"""What the garbage test runs in a fresh interpreter: a first career (first-use caches,
imports), a full collection, then a second career with the collector paused; prints the
row's seed and months, the world's types among what a collection then finds (sorted) and
how many objects it finds. Its own process: a collection finds every unreachable cycle of
the process, and in a pytest worker an earlier test's objects (released by a thread of its
that ends, ...) became cyclic garbage in the same window."""


@pytest.mark.parametrize("policy", ["baseline", "oracle"])
def test_a_finished_career_leaves_no_cyclic_garbage(policy):
    """Everything a career built (its world, API, policy, random streams) is freed by reference
    counting once :func:`run_career` returns its row: with the collector paused, a collection
    afterwards finds none of the world's objects (a reference cycle through the API kept whole
    worlds alive until the collector's next full pass, thousands of objects a career).
    Measured in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-c", _CAREER_GARBAGE, policy], capture_output=True, text=True, check=True, timeout=300
    )
    got = json.loads(done.stdout.splitlines()[-1])
    assert got["seed"] == 2 and got["months"] > 0
    assert not got["ours"], f"a career's objects were left to the cyclic collector: {got['ours']}"
    assert got["garbage"] < 100, f"{got['garbage']} objects left in reference cycles by one career"
