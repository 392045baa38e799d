"""The cost of forking a world (MECHANICS Decisions 12; issue 24's goal: ≤ 2 ms at month 40 of
a busy career). Prints figures; asserts nothing.

Run: ``python bench/fork.py [--month 40] [--policy hire-max] [--seed 101] [--repeat 200]``.
Prints the best and median wall time of ``World.fork`` and, beside it, of the plain copy
through the saved state (``World.from_state(world.to_state())`` plus the forked randomness),
with their ratio measured side by side.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from world.api import Api  # noqa: E402
from world.engine import World  # noqa: E402
from world.policies import make_policy  # noqa: E402
from world.runner import AgentView  # noqa: E402


def played(seed: int, month: int, policy: str) -> World:
    world = World(seed=seed)
    api = Api(world)
    view = AgentView(api)
    pol = make_policy(policy)
    while world.s.month < month and not world.s.finished:
        m = world.s.month
        pol.act(view)
        if world.s.month == m and not world.s.finished:
            api.call("time", "next_month", [], {})
    return world


def timed(fn, repeat: int) -> list[float]:  # noqa: ANN001
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--month", type=int, default=40)
    ap.add_argument("--policy", default="hire-max")
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args()
    world = played(args.seed, args.month, args.policy)
    s = world.s.to_dict()
    size = {k: len(v) for k, v in s.items() if isinstance(v, (list, dict)) and len(v) > 20}
    print(f"{args.policy} seed {args.seed} at month {world.s.month}: {size}")

    def plain() -> World:
        w = World.from_state(world.to_state())
        w.rng = world.rng.fork(1, world.s.month)
        return w

    fork = timed(lambda: world.fork(1), args.repeat)
    slow = timed(plain, args.repeat)
    print(f"World.fork:             best {min(fork):6.3f} ms   median {statistics.median(fork):6.3f} ms")
    print(f"to_state/from_state:    best {min(slow):6.3f} ms   median {statistics.median(slow):6.3f} ms")
    print(f"ratio (median): {statistics.median(slow) / statistics.median(fork):.2f}x")


if __name__ == "__main__":
    main()
