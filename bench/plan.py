"""A plan over two fake models with shared endpoint limits; prints what the endpoint saw.

    python bench/plan.py [--seeds 101-103] [--jobs 6] [--max-concurrent 3] [--rpm 60] [--latency 0.05]

Starts the harness tests' local chat-completions server (``tests/harness/fakellm.py``: it
answers ``time.next_month()`` after ``--latency`` seconds and counts the requests in flight),
writes a plan of two models (labels ``m1-t0`` and ``m2``) on one endpoint with
``max_concurrent`` and ``requests_per_minute`` over the short-12 scenario, and runs the real
``pibench agent --plan`` in a subprocess (stderr not a terminal: plain progress lines). Prints
the careers, the wall time, the most requests the server had in flight at once, the most
requests started in any 60 s, and ``pibench report``'s leaderboard labels.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.harness.fakellm import FakeLLM, Reply  # noqa: E402

NEXT = "```python\ntime.next_month()\n```"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="101-103")
    ap.add_argument("--jobs", type=int, default=6)
    ap.add_argument("--max-concurrent", type=int, default=3)
    ap.add_argument("--rpm", type=int, default=60)
    ap.add_argument("--latency", type=float, default=0.05, help="seconds the fake server takes per reply")
    args = ap.parse_args()
    lock = threading.Lock()
    seen = {"now": 0, "max": 0}
    starts: list[float] = []
    hold = threading.Event()

    def brain(req: dict, i: int) -> Reply:
        with lock:
            starts.append(time.monotonic())
            seen["now"] += 1
            seen["max"] = max(seen["max"], seen["now"])
        hold.wait(args.latency)
        with lock:
            seen["now"] -= 1
        return Reply(NEXT)

    with tempfile.TemporaryDirectory() as tmp, FakeLLM(brain) as srv:
        plan = Path(tmp) / "plan.toml"
        plan.write_text(
            f'out = "runs"\nseeds = "{args.seeds}"\nscenarios = ["short-12"]\njobs = {args.jobs}\n\n'
            f'[endpoints.fake]\nbase_url = "{srv.base_url}"\napi_key_env = "PIBENCH_BENCH_NO_KEY"\n'
            f"max_concurrent = {args.max_concurrent}\nrequests_per_minute = {args.rpm}\n\n"
            '[[models]]\nlabel = "m1-t0"\nendpoint = "fake"\nmodel = "m1"\ntemperature = 0.0\n\n'
            '[[models]]\nlabel = "m2"\nendpoint = "fake"\nmodel = "m2"\n'
        )
        t0 = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "pibench_tui", "agent", "--plan", str(plan)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        wall = time.monotonic() - t0
        out = Path(tmp) / "runs"
        results = sorted(out.glob("*/*/result.json"))
        report = Path(tmp) / "report.json"
        subprocess.run(
            [sys.executable, "-m", "pibench_tui", "report", str(out), "--json", str(report)],
            capture_output=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        labels = [r["label"] for r in json.loads(report.read_text())["leaderboard"]] if report.exists() else []
    window = max((sum(1 for u in starts if t <= u < t + 60.0) for t in starts), default=0)
    print(f"exit status                      {proc.returncode}")
    print(f"careers finished                 {len(results)}")
    print(f"requests answered                {len(starts)}")
    print(f"wall time                        {wall:.1f} s")
    print(f"max in flight (server, limit {args.max_concurrent})  {seen['max']}")
    print(f"max started in any 60 s (limit {args.rpm})  {window}")
    print(f"report labels                    {', '.join(labels)}")
    print("stderr (last lines):")
    for line in proc.stderr.strip().splitlines()[-4:]:
        print("  " + line)


if __name__ == "__main__":
    main()
