"""Instructions per simulated month of the baseline's ``act`` (its reads and changes through
the API), counted by callgrind: a figure the load of a shared machine does not disturb
(prints figures, asserts nothing).

Run (about a minute per tree under valgrind):

    python bench/act_instructions.py [--careers N] [--against PATH]

Each tree is run as ``valgrind --tool=callgrind --collect-atstart=no --toggle-collect=qsort_r``
(``bench/_callgrind.py``) over this script in ``--child`` mode, which plays ``N`` baseline careers (seeds 101...) as
:func:`world.runner.play` does and calls each month's ``act`` from inside libc's ``qsort``
(a two-element sort whose comparison runs the month): only what runs inside is counted, the
tick and the start-up are not. ``PYTHONHASHSEED`` is fixed (0): string hashes move dict
probing, which moves the count by a few per cent from one run to the next.
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))  # bench/, for _callgrind when loaded by path

from _callgrind import counted, in_qsort  # noqa: E402


def child(tree: str, careers: int) -> None:
    """Play the careers, each month's act inside qsort; print the months played."""
    sys.path.insert(0, tree)
    from world.api import Api
    from world.config import WorldConfig
    from world.engine import World
    from world.policies import Baseline
    from world.runner import AgentView, run_career

    run_career("baseline", 100)  # warm-up
    months = 0
    for seed in range(101, 101 + careers):
        w = World(WorldConfig(), seed)
        pol = Baseline()
        try:  # as the runner plays policies
            from world.api.cached import CachedApi

            api = CachedApi(Api(w))
        except ImportError:  # a tree from before the read cache became a wrapper
            api = Api(w, shared_results=True)
        view = AgentView(api)
        while not w.s.finished:
            m = w.s.month
            in_qsort(functools.partial(pol.act, view))
            if not w.s.finished and w.s.month == m:
                api.next_month_unread()
            months += 1
    print(months)


def measure(tree: str, careers: int) -> tuple[int, int]:
    """(instructions inside act, months) for the checkout at ``tree``."""
    total, stdout = counted([sys.executable, str(HERE), "--child", tree, "--careers", str(careers)])
    return total, int(stdout.split()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--careers", type=int, default=2, help="baseline careers per tree (default 2)")
    ap.add_argument("--against", metavar="PATH", help="another pibench checkout, measured the same way")
    ap.add_argument("--child", metavar="TREE", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.careers)
        return
    trees = [str(HERE.parents[1])] + ([args.against] if args.against else [])
    for tree in trees:
        ir, months = measure(tree, args.careers)
        print(f"{tree}: baseline act {ir / months:,.0f} instructions/month over {months} months")


if __name__ == "__main__":
    main()
