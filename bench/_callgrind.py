"""The callgrind runner the instruction-counting benchmarks share (``act_instructions.py``,
``pivots_rollout_instructions.py``, ``headless_parts.py``, ``headless_instructions.py``,
``heads_instructions.py``, ``regions.py``; prints nothing itself).

What is counted is what runs inside libc's ``qsort``: a benchmark runs its measured part as
the comparison of a two-element sort (:func:`in_qsort`), and :func:`callgrind` starts
valgrind with collection off and toggled on for ``qsort_r`` only, so the start-up, the
warm-up and everything around the part are not counted. ``PYTHONHASHSEED`` is fixed (0) by
:func:`counted`: string hashes move dict probing, which moves a count by a few per cent from
one run to the next.
"""

from __future__ import annotations

import ctypes
import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from typing import Any

__all__ = ["VALGRIND", "callgrind", "counted", "in_qsort", "in_qsort_result"]

#: The valgrind command line that counts only inside libc's ``qsort`` (:func:`in_qsort`); the
#: output file and the measured command follow it.
VALGRIND = ("valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=qsort_r")


def in_qsort(job: Callable[[], object]) -> None:
    """Call ``job()`` from inside libc's ``qsort`` (what ``callgrind(..., toggle="qsort_r")`` counts)."""
    compare = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
    pair = (ctypes.c_int * 2)(1, 2)

    def run_job(_a: object, _b: object) -> int:
        job()
        return 0

    run = compare(run_job)
    ctypes.CDLL(None).qsort(pair, 2, ctypes.sizeof(ctypes.c_int), run)


def in_qsort_result(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` run inside ``qsort`` (counted, :func:`in_qsort`): its result, or
    its exception raised again here, outside the C callback (which cannot pass one on)."""
    box: list[tuple[bool, Any]] = []

    def job() -> None:
        try:
            box.append((True, fn(*args, **kwargs)))
        except BaseException as exc:  # noqa: BLE001 - raised again below, outside qsort
            box.append((False, exc))

    in_qsort(job)
    ok, value = box[0]
    if not ok:
        raise value
    return value


def callgrind(argv: list[str], out: str, *, env: dict[str, str], cwd: str) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` under callgrind, counting only inside libc's ``qsort`` (see :func:`in_qsort`),
    its counts written to ``out``; output captured as text."""
    return subprocess.run(
        [*VALGRIND, f"--callgrind-out-file={out}", *argv], capture_output=True, text=True, env=env, cwd=cwd
    )


def counted(argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    """``argv`` run under :func:`callgrind` in a scratch folder (``PYTHONHASHSEED=0``, plus
    ``env``): (the instructions it counted inside ``qsort``, its standard output). Exits with
    the run's and valgrind's output when the run fails or reports no total."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        proc = callgrind(argv, out, env={**os.environ, "PYTHONHASHSEED": "0", **(env or {})}, cwd=tmp)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or not found:
        raise SystemExit(f"the measured run failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return int(found.group(1)), proc.stdout
