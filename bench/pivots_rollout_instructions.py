"""Instructions of pivot rollouts, counted by callgrind: the repeatable companion of
``bench/pivots_rollout.py`` (CPU seconds on the shared machine move by tens of per cent with
its load; instruction counts do not). Prints figures; asserts nothing.

Run (a few minutes per tree and part under valgrind):

    python bench/pivots_rollout_instructions.py [--part all|act|tick] [--against PATH]

Each tree is run under ``valgrind --tool=callgrind`` (``bench/_callgrind.py``: only what
runs inside libc's ``qsort`` is counted). The child replays seed 1's baseline career
to months 2 and 30, finds the decisions open there (at most one a kind, as
``bench/pivots_rollout.py``) and plays both plans of each on branches 1-2 (after one
unmeasured warm-up rollout a plan). ``--part all`` counts the rollouts whole (fork, plan,
continuation, score), ``act`` only the continuation policy's ``act`` calls, ``tick`` only
``World.next_month``. The last column is a SHA-256 prefix of every rollout's (Impact,
collapsed): equal before and after a change that must not alter outcomes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))  # bench/, for _callgrind (this checkout's, whatever tree is measured)

from _callgrind import counted, in_qsort_result  # noqa: E402


def child(tree: str, part: str) -> None:
    """Play the rollouts with ``part`` counted; print rollouts, months and the outcomes' digest."""
    sys.path[:0] = [tree, str(Path(tree) / "bench")]
    import pivots_rollout as bench

    from world import engine
    from world.policies.baseline import Baseline

    forks = bench._forks([1], [2, 30])
    bench._play(forks, 1)  # warm-up
    if part == "act":
        act = Baseline.act
        Baseline.act = lambda self, api: in_qsort_result(act, self, api)  # type: ignore[method-assign]
    elif part == "tick":
        tick = engine.World.next_month
        engine.World.next_month = lambda self: in_qsort_result(tick, self)  # type: ignore[method-assign]
    if part == "all":
        _, n, months, outcomes = in_qsort_result(bench._play, forks, 2)
    else:
        _, n, months, outcomes = bench._play(forks, 2)
    print(n, months, hashlib.sha256(json.dumps(outcomes).encode()).hexdigest()[:16])


def main() -> None:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--part", default="all", choices=("all", "act", "tick"), help="what is counted (default all)")
    ap.add_argument("--against", metavar="PATH", help="another pibench checkout, measured the same way")
    ap.add_argument("--child", metavar="TREE", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.part)
        return
    for tree in [str(HERE.parents[1])] + ([args.against] if args.against else []):
        total, stdout = counted([sys.executable, str(HERE), "--child", tree, "--part", args.part], {"PYTHONPATH": tree})
        n, months, digest = stdout.split()[-3:]
        print(
            f"{tree}: {args.part}: {total / int(n) / 1e6:.2f} M instructions a rollout, "
            f"{total / int(months) / 1e3:,.0f} k a career month ({n} rollouts, {months} months; outcomes {digest})"
        )


if __name__ == "__main__":
    main()
