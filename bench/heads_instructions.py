"""Instructions per person per month against head count, counted by callgrind: the head-count
exponent of issue 9 §3 as a figure the load of a shared machine does not disturb (prints
figures, asserts nothing).

Run (about a minute per size and tree under valgrind, more on a loaded machine):

    python bench/heads_instructions.py [--sizes 10,200,500,1000,2000] [--months N] [--against PATH]

For each size ``n`` and each tree, ``valgrind --tool=callgrind`` runs this script in
``--child`` mode: the month of ``bench/speed.py``'s head-count figure (:func:`speed.crowded_lab`
of ``n`` researchers, then :func:`speed.api_month` and the engine tick), built with *this*
checkout's bench code and the tree's ``world`` (:func:`speed.lab_kit`), two months unmeasured,
then ``N`` months (default 3) counted inside libc's ``qsort``
(:func:`_callgrind.in_qsort`). ``PYTHONHASHSEED`` is fixed. The cyclic garbage
collector is off in the child: its full collections fall on one size's counted months and
not another's (their cost over a career grows with the allocations, as the rest does), and
they would make the fit depend on where they fell. Prints instructions per person per month
for each size and the exponent ``b`` of ``instructions ~ n^b`` fitted over all sizes and over
``n >= 200`` (:data:`speed.UPPER_SIZES`; 1: linear; :func:`speed.fit_exponent`).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))  # bench/, for _callgrind

import _callgrind  # noqa: E402


def _speed() -> Any:
    """This checkout's ``bench/speed.py`` as a module (``bench`` is no package)."""
    spec = importlib.util.spec_from_file_location("_heads_speed", HERE.parent / "speed.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def child(tree: str, n: int, months: int) -> None:
    """Play the crowded lab of ``n`` of ``tree``: two months, then ``months`` months inside qsort."""
    speed = _speed()
    t = speed.Tree(tree)
    kit = speed.lab_kit(t)
    with t:
        w = speed.crowded_lab(n, kit=kit)
        api = kit.Api(w)
        ids = [p.id for p in w.s.people.values() if p.status == "active"]

        def month() -> None:
            speed.api_month(api, ids, kit.max_dict_items)
            w.next_month()
            ids[:] = [pid for pid in ids if w.s.people[pid].status == "active"]

        month()
        month()
        gc.collect()
        gc.disable()
        for _ in range(months):
            _callgrind.in_qsort(month)


def measure(tree: str, n: int, months: int) -> int:
    """Instructions of ``months`` counted months of the crowded lab of ``n`` in ``tree``."""
    argv = [sys.executable, str(HERE), "--child", tree, "--sizes", str(n), "--months", str(months)]
    return _callgrind.counted(argv)[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument(
        "--sizes", default="10,200,500,1000,2000", help="head counts, comma-separated (default 10,200,500,1000,2000)"
    )
    ap.add_argument("--months", type=int, default=3, help="counted months per size (default 3)")
    ap.add_argument("--against", metavar="PATH", help="another pibench checkout, measured the same way")
    ap.add_argument("--child", metavar="TREE", help=argparse.SUPPRESS)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    if args.child:
        child(args.child, sizes[0], args.months)
        return
    speed = _speed()
    trees = [str(HERE.parents[1])] + ([args.against] if args.against else [])
    for tree in trees:
        counts = [measure(tree, n, args.months) for n in sizes]
        per = ", ".join(f"n={n}: {c / n / args.months / 1e3:,.1f}k" for n, c in zip(sizes, counts, strict=True))
        upper = [i for i, n in enumerate(sizes) if n >= speed.UPPER_SIZES]
        top = ""
        if len(upper) > 1:
            b = speed.fit_exponent([sizes[i] for i in upper], [counts[i] for i in upper])
            top = f", over n >= {speed.UPPER_SIZES} {b:.3f}"
        print(
            f"{tree}: instructions per person per month (API month + tick) {per}; "
            f"exponent over n = {sizes[0]}..{sizes[-1]} {speed.fit_exponent(sizes, counts):.3f}{top}"
        )


if __name__ == "__main__":
    main()
