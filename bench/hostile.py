"""Benchmark: what hostile agent input costs the pibench process (issue 10 §1).

Each attack runs through the real ``pibench headless`` command (console mode, or JSON
lines where the attack is a JSON-lines one). For each it prints the wall time of the whole
session and the peak resident memory (VmHWM) of the *pibench* process itself, sampled from
``/proc`` while it runs (the agent process is a separate process and not counted).

Run: ``python bench/hostile.py [attack ...]`` (default: all). Figures, not assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

PIBENCH = os.environ.get("PIBENCH_CMD", str(Path(sys.executable).parent / "pibench")).split()


def _q(sql: str) -> str:
    return f"r = query({sql})\nprint(str(r)[:200])\n"


ATTACKS: dict[str, tuple[list[str], str]] = {
    # One straight-line SELECT of many ~1 MB printf terms (no loop point for the progress
    # handler): before the fix it ran ~110 s inside pibench.
    "printf-straight-line": (
        [],
        _q("'SELECT ' + ', '.join([\"length(printf('%.*c', 999999, 'x'))\"] * 2000)"),
    ),
    # One row of 2,000 columns of ~1 MB strings: before the fix, GBs in pibench.
    "wide-row": (
        [],
        _q("'SELECT ' + ', '.join([\"printf('%.*c', 999999, 'x')\"] * 2000)"),
    ),
    # The same within the SQL-length and column limits: 99 columns of ~1 MB each.
    "wide-row-in-limits": (
        [],
        _q("'SELECT ' + ', '.join([\"printf('%.*c', 999999, 'x')\"] * 99)"),
    ),
    # Many 1 MB terms in one column, within the SQL-length limit (about 500 terms).
    "printf-in-limits": (
        [],
        _q(
            "'SELECT ' + ' + '.join([\"length(printf('%.*c',999999,'x'))\"] * 99) + ', ' + ', '.join([\"length(printf('%.*c',999999,'x'))\"] * 90)"
        ),
    ),
    # A big sort that SQLite would spill to a temporary file.
    "sort-spill": (
        [],
        _q(
            '"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 3000000) '
            "SELECT x, printf('%.*c', 100, 'y') AS pad FROM c ORDER BY random() LIMIT 1\""
        ),
    ),
    # instr() of two long strings: quadratic work inside one VM instruction.
    "instr-quadratic": (
        [],
        _q("\"SELECT instr(printf('%.*c', 999990, 'a'), printf('%.*c', 400000, 'a') || 'b')\""),
    ),
    # A query loop: 200 expensive queries in one block (the block's wall clock counts them).
    "query-loop": (
        [],
        "for i in range(200):\n    query(\"SELECT length(printf('%.*c', 999999, 'x'))\")\nprint('done')\n",
    ),
    # A 12 MB console statement (one giant literal list).
    "console-12mb": ([], "x = [" + "1," * 6_000_000 + "]\nprint(len(x))\n"),
    # A 12 MB JSON-lines request.
    "jsonl-12mb": (["--jsonl"], json.dumps({"code": "x = '" + "a" * 12_000_000 + "'"}) + "\n"),
}


def _peak_rss(pid: int, out: list[int], stop: threading.Event) -> None:
    """Sample VmHWM of ``pid`` (kB) until it exits."""
    path = f"/proc/{pid}/status"
    while not stop.is_set():
        try:
            with open(path) as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        out[0] = max(out[0], int(line.split()[1]))
        except OSError:
            return
        time.sleep(0.02)


def run_attack(name: str, timeout: float = 300.0) -> dict:
    """Run one attack; return wall seconds, pibench's peak RSS (MiB), exit status, tail."""
    args, script = ATTACKS[name]
    env = dict(os.environ, PIBENCH_HOME=str(Path("/tmp") / f"pibench-bench-{os.getpid()}"))
    start = time.monotonic()
    proc = subprocess.Popen(
        [*PIBENCH, "headless", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    peak = [0]
    stop = threading.Event()
    watcher = threading.Thread(target=_peak_rss, args=(proc.pid, peak, stop), daemon=True)
    watcher.start()
    try:
        out, err = proc.communicate(script.encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    stop.set()
    wall = time.monotonic() - start
    text = out.decode("utf-8", "replace")
    errors = [line for line in text.splitlines() if "Error" in line or '"error"' in line]
    return {
        "attack": name,
        "wall_s": round(wall, 2),
        "peak_rss_mib": round(peak[0] / 1024, 1),
        "exit": proc.returncode,
        "report": "=== pibench career report ===" in text or '"event": "end"' in text,
        "first_error": (errors[0][:160] if errors else ""),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # no choices=: argparse rejects an empty list of them (the default, every attack)
    ap.add_argument("attack", nargs="*", help=f"attacks to run (default: all): {', '.join(ATTACKS)}")
    args = ap.parse_args()
    unknown = [name for name in args.attack if name not in ATTACKS]
    if unknown:
        ap.error(f"unknown attack {', '.join(unknown)}; attacks: {', '.join(ATTACKS)}")
    for name in args.attack or list(ATTACKS):
        print(json.dumps(run_attack(name)), flush=True)


if __name__ == "__main__":
    main()
