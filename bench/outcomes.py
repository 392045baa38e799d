"""Careers' outcomes as one JSON file, for a byte comparison before and after a speed change
(prints nothing but the file's name; asserts nothing).

Run: ``python bench/outcomes.py TREE OUT.json [--seeds N]`` with ``TREE`` a pibench checkout
(its ``world`` package is the one imported), then ``cmp`` two such files. For seeds 1..N
(default 12) of every policy (:data:`world.policies.ALL_NAMES`), played as the runner plays
them: the result row, the final world digest, a SHA-256 over every month's report dict and
world digest in order, the action log's SHA-256 and the last dashboard's; plus 30 baseline
``run_career`` rows and sweeps of 40 baseline and 20 ambitious seeds over two worker
processes. A speed change must leave the file byte for byte the same.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any


def sha(x: Any) -> str:
    """SHA-256 of ``x`` as sorted-key JSON (floats by repr: exact)."""
    return hashlib.sha256(json.dumps(x, sort_keys=True, default=str).encode()).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", help="a pibench checkout")
    ap.add_argument("out", help="the JSON file to write")
    ap.add_argument("--seeds", type=int, default=12, help="seeds 1..N of every policy (default 12)")
    args = ap.parse_args()
    tree = str(Path(args.tree).resolve())
    sys.path.insert(0, tree)
    import world

    if not str(Path(world.__file__).resolve()).startswith(tree):
        sys.exit(f"world was imported from {world.__file__}, not from {tree}")
    from world import runner
    from world.api import Api
    from world.config import WorldConfig
    from world.engine import World
    from world.policies import ALL_NAMES

    traces: dict[int, list[Any]] = {}
    tick = World.next_month

    def next_month(self: Any) -> Any:
        rep = tick(self)
        traces.setdefault(id(self), []).append([rep.to_dict(), self.digest()])
        return rep

    World.next_month = next_month  # type: ignore[method-assign]
    out: dict[str, Any] = {}
    try:
        for policy in ALL_NAMES:
            for seed in range(1, args.seeds + 1):
                w = World(WorldConfig(), seed)
                pol = runner.build_policy(policy, w)
                api = _runner_api(Api, w)
                runner.play(w, pol, api)
                out[f"{policy}/{seed}"] = {
                    "row": runner.result_row(w, pol),
                    "digest": w.digest(),
                    "months": sha(traces.pop(id(w), [])),
                    "log": sha(w.s.action_log),
                    "dashboard": sha(api.lab.dashboard()),
                }
                vars(api).clear()
    finally:
        World.next_month = tick  # type: ignore[method-assign]
    out["career_rows"] = [runner.run_career("baseline", s) for s in range(1, 31)]
    out["sweep_baseline"] = runner.run_seeds("baseline", range(1, 41), jobs=2)
    out["sweep_ambitious"] = runner.run_seeds("ambitious", range(1, 21), jobs=2)
    with open(args.out, "w") as fh:
        json.dump(out, fh, sort_keys=True, indent=0)
    print(args.out)


def _runner_api(api_cls: Any, world: Any) -> Any:
    """The API the runner plays policies through, in this tree or an older one (main before
    the read cache became a wrapper: ``Api(world, shared_results=True)``)."""
    try:
        from world.api.cached import CachedApi
    except ImportError:
        return api_cls(world, shared_results=True)
    return CachedApi(api_cls(world))


if __name__ == "__main__":
    main()
