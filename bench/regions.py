"""Where a warm baseline month goes, function by function: the inclusive instructions per
simulated month of chosen functions over whole baseline careers, counted by callgrind in one
run (prints figures, asserts nothing).

Run (a minute or two per tree under valgrind; needs a C compiler, ``cc``):

    python bench/regions.py [--careers N] [--against PATH] TARGET [TARGET ...]

A TARGET is ``module:function`` or ``module:Class.method`` of the tree's ``world`` package,
e.g. ``world.field:generate_observables`` or ``world.api:Api._dashboard``.

Callgrind sees C functions only (every Python function is the interpreter's eval loop), so
each target is called through a C function of its own: a small library of trampolines
(``region_K(callback)``, compiled into a scratch folder) is loaded with ``ctypes``, and target
K is replaced, in its module or class and wherever a ``world`` module imported it by name, by
a wrapper that calls it from inside ``region_K``. The careers (``world.runner.run_career``,
seeds 101..., after one warm-up career) run inside ``region_0`` inside libc's ``qsort``
(:func:`_callgrind.in_qsort`, counted as ``bench/act_instructions.py`` counts), and the
inclusive cost of each ``region_K`` is the target's, nested targets included.

Each wrapped call adds about 3,000 instructions of ``ctypes`` round trip to its own figure and
to every target that encloses it (the calls a month are printed beside each figure): wrap a
few targets at a time, and read small figures with that in mind. ``PYTHONHASHSEED`` is fixed.
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import importlib
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))  # bench/, for _callgrind

import _callgrind  # noqa: E402

_TRAMPOLINE = """
__attribute__((noinline)) long region_{k}(long (*cb)(void)) {{ long r = cb(); __asm__ volatile(""); return r; }}
long tramp_{k}(long (*cb)(void)) {{ long r = region_{k}(cb); __asm__ volatile(""); return r; }}
"""
"""Target K's C functions: ``tramp_K`` is what ``ctypes`` calls (callgrind does not see
libffi's jump into it as a call), ``region_K`` a real C call whose inclusive cost is read."""


def build_library(n: int, folder: str) -> str:
    """Compile ``n`` trampolines into ``folder``; the library's path."""
    src = os.path.join(folder, "regions.c")
    lib = os.path.join(folder, "libregions.so")
    with open(src, "w", encoding="utf-8") as fh:
        fh.write("".join(_TRAMPOLINE.format(k=k) for k in range(n)))
    subprocess.run(["cc", "-O1", "-g", "-shared", "-fPIC", "-o", lib, src], check=True)
    return lib


def _wrap(target: str, tramp: Any, counts: list[int], k: int) -> None:
    """Replace ``target`` by a wrapper calling it from inside ``tramp`` (counting its calls)."""
    modname, _, attr = target.partition(":")
    owner: Any = importlib.import_module(modname)
    *path, name = attr.split(".")
    for part in path:
        owner = getattr(owner, part)
    orig = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
    if isinstance(orig, (staticmethod, classmethod)) or not callable(orig):
        raise SystemExit(f"{target}: not a plain function or method")
    stack: list[Any] = []

    def call() -> int:
        fn, args, kwargs = stack.pop()
        stack.append(fn(*args, **kwargs))
        return 0

    callback = ctypes.CFUNCTYPE(ctypes.c_long)(call)

    @functools.wraps(orig)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        counts[k] += 1
        stack.append((orig, args, kwargs))
        tramp(callback)
        return stack.pop()

    wrapped._regions_keep = callback  # type: ignore[attr-defined]  # the callback lives as long as the wrapper
    setattr(owner, name, wrapped)
    if not isinstance(owner, type):  # names imported by other world modules (from .field import hotness)
        for mod in list(sys.modules.values()):
            if (
                getattr(mod, "__name__", "").startswith("world")
                and mod is not owner
                and getattr(mod, name, None) is orig
            ):
                setattr(mod, name, wrapped)


def child(tree: str, library: str, careers: int, targets: list[str]) -> None:
    """Play the careers with the targets wrapped; print the months, then each target's calls."""
    sys.path.insert(0, tree)
    lib = ctypes.CDLL(library)
    trampolines: list[Callable[..., Any]] = []
    for k in range(len(targets) + 1):
        fn = getattr(lib, f"tramp_{k}")
        fn.restype = ctypes.c_long
        fn.argtypes = [ctypes.CFUNCTYPE(ctypes.c_long)]
        trampolines.append(fn)
    importlib.import_module("world.runner")  # every world module the careers use, before wrapping
    importlib.import_module("world.policies.baseline")
    counts = [0] * (len(targets) + 1)
    for k, target in enumerate(targets, start=1):
        _wrap(target, trampolines[k], counts, k)
    from world.runner import run_career

    run_career("baseline", 100)  # warm-up
    counts[:] = [0] * len(counts)
    months = [0]

    def play() -> int:
        for seed in range(101, 101 + careers):
            months[0] += run_career("baseline", seed)["months"]
        return 0

    whole = ctypes.CFUNCTYPE(ctypes.c_long)(play)
    _callgrind.in_qsort(lambda: trampolines[0](whole))
    print(months[0], *counts[1:])


def measure(tree: str, careers: int, targets: list[str]) -> list[str]:
    """Lines of figures for the checkout at ``tree``."""
    with tempfile.TemporaryDirectory() as tmp:
        library = build_library(len(targets) + 1, tmp)
        out = os.path.join(tmp, "callgrind.out")
        argv = [sys.executable, str(HERE), "--child", tree, "--library", library, "--careers", str(careers), *targets]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        proc = _callgrind.callgrind(argv, out, env=env, cwd=tmp)
        if proc.returncode != 0:
            raise SystemExit(f"the measured run failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
        annotated = subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", "--threshold=100", out], capture_output=True, text=True
        ).stdout
    inclusive: dict[int, int] = {}
    for line in annotated.splitlines():
        found = re.match(r"\s*([\d,]+)\s.*:region_(\d+)\b", line)
        if found:  # a function may be listed twice (with and without its object file): the larger
            k, ir = int(found.group(2)), int(found.group(1).replace(",", ""))
            inclusive[k] = max(inclusive.get(k, 0), ir)
    months, *calls = (int(x) for x in proc.stdout.split()[-len(targets) - 1 :])
    lines = [f"{tree}: {months} months; instructions a month (inclusive), calls a month"]
    lines.append(f"  {'whole career':58s} {inclusive.get(0, 0) / months:>12,.0f}")
    for k, target in enumerate(targets, start=1):
        lines.append(f"  {target:58s} {inclusive.get(k, 0) / months:>12,.0f} {calls[k - 1] / months:8.2f}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("targets", nargs="*", metavar="TARGET", help="module:function or module:Class.method")
    ap.add_argument("--careers", type=int, default=3, help="baseline careers per tree (default 3: seeds 101-103)")
    ap.add_argument("--against", metavar="PATH", help="another pibench checkout, measured the same way")
    ap.add_argument("--child", metavar="TREE", help=argparse.SUPPRESS)
    ap.add_argument("--library", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.library, args.careers, args.targets)
        return
    if not args.targets:
        ap.error("name at least one TARGET (module:function or module:Class.method)")
    for tree in [str(HERE.parents[1])] + ([args.against] if args.against else []):
        print("\n".join(measure(tree, args.careers, args.targets)), flush=True)


if __name__ == "__main__":
    main()
