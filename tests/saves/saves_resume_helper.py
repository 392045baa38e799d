"""Play careers with a scripted policy, saving along the way; resume saves in a new process.

Run as ``python -m tests.saves.saves_resume_helper [--once] STORE POLICY NAME...``: for every
save name, load it (twice, checking both loads agree and play the next month alike, unless
``--once``), play it to the horizon with a fresh policy, and print one JSON object
``{name: {"final": digest, "loaded": digest, "next": digest after one more month}}``.

A save whose name ends in ``"-acted"`` was made after the policy had acted in that month, so
the resumed career only advances the clock for its first month.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from saves import SaveStore
from world.api import Api
from world.engine import World
from world.policies import make_policy


def step(world: World, api: Api, policy: Any, *, act: bool = True) -> None:
    """One month: the policy acts (unless ``act`` is false), then the clock moves if it has not."""
    m = world.month
    if act:
        policy.act(api)
    if not world.finished and world.month == m:
        api.time.next_month()


def play_to_end(world: World, policy_name: str, *, acted_first: bool = False) -> str:
    """Finish a career with a fresh policy; return the final digest."""
    api = Api(world)
    policy = make_policy(policy_name)
    first = True
    while not world.finished:
        step(world, api, policy, act=not (first and acted_first))
        first = False
    return world.digest()


def resume_all(store_dir: str, policy_name: str, names: list[str], *, twice: bool = True) -> dict[str, dict[str, str]]:
    """Resume each save from ``store_dir`` and play it out (see the module docstring)."""
    store = SaveStore(store_dir)
    out: dict[str, dict[str, str]] = {}
    for name in names:
        acted = name.endswith("-acted")
        world, record = store.load_world(name)
        loaded = world.digest()
        worlds = [world]
        if twice:
            twin, _ = store.load_world(name)
            assert twin.to_state() == world.to_state(), "two loads of one save differ"
            worlds.append(twin)
        # Loading twice: the same next month, draw for draw.
        nxt = []
        for w in worlds:
            if not w.finished:
                step(w, Api(w), make_policy(policy_name), act=not acted)
            nxt.append(w.digest())
        assert len(set(nxt)) == 1, "two loads of one save played the next month differently"
        final = play_to_end(world, policy_name) if not world.finished else world.digest()
        out[name] = {"final": final, "loaded": loaded, "next": nxt[0], "record_digest": record.info.digest}
    return out


if __name__ == "__main__":
    argv = sys.argv[1:]
    once = "--once" in argv
    store_dir, policy_name, *names = [a for a in argv if a != "--once"]
    json.dump(resume_all(store_dir, policy_name, names, twice=not once), sys.stdout)
