"""A pivot rollout leaves no cyclic garbage: its world is freed by reference counting as it
ends, without waiting for the cyclic collector."""

from __future__ import annotations

import json
import subprocess
import sys

_ROLLOUT_GARBAGE = """
import gc, json
from world.api import Api
from world.api.cached import CachedApi
from world.config import WorldConfig
from world.engine import World
from world.pivots import find_decisions, rollout_calls
from world.runner import AgentView, build_policy
w = World(WorldConfig(), 3)
pol = build_policy("baseline", w)
api = CachedApi(Api(w))
view = AgentView(api)
while w.s.month < 14:
    pol.act(view)
    api.next_month_unread()
d = find_decisions(w)[0]
rollout_calls(w, d.a, d.kind, 1)  # first-use caches, imports
gc.collect()
gc.disable()
gc.set_debug(gc.DEBUG_SAVEALL)
impact, collapsed, _ = rollout_calls(w, d.a, d.kind, 2)
gc.collect()
garbage = list(gc.garbage)
gc.set_debug(0)
ours = sorted({type(o).__module__ + "." + type(o).__name__ for o in garbage if type(o).__module__.startswith("world")})
print(json.dumps({"impact": impact, "ours": ours, "garbage": len(garbage)}))
"""
"""Run in a fresh interpreter: a baseline career to month 14, a first rollout of the first
decision open there (first-use caches, imports), a full collection, then a second rollout with
the collector paused; prints its Impact, the world's types among what a collection then finds
and how many objects it finds (its own process, as tests/policies/test_runner_memory.py)."""


def test_a_rollout_leaves_no_cyclic_garbage():
    """Everything a rollout built (the forked world, its APIs, the policy, the skipping view)
    is freed by reference counting once it returns: a collection afterwards finds none of the
    world's objects. (The API and its namespaces once referred to each other, and each
    rollout's whole world waited for the collector.)"""
    done = subprocess.run(
        [sys.executable, "-c", _ROLLOUT_GARBAGE], capture_output=True, text=True, check=True, timeout=300
    )
    got = json.loads(done.stdout.splitlines()[-1])
    assert got["impact"] >= 0
    assert not got["ours"], f"a rollout's objects were left to the cyclic collector: {got['ours']}"
    assert got["garbage"] < 100, f"{got['garbage']} objects left in reference cycles by one rollout"
