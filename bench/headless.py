"""Benchmark headless mode and its sandbox; prints figures (no assertions).

    python bench/headless.py [--quick]

Figures (medians):

* start-up of ``pibench headless --jsonl`` to its first reply (process start, world
  built, agent process started, one trivial block answered);
* round trip of a trivial block (``pass``) in JSON-lines mode;
* round trip of a block making 100 API calls (``lab.attention()``, then ``lab.dashboard()``);
* wall time of the baseline career (``examples/agents/baseline.py``, seed 101) through
  headless console mode (whole process) and as one JSON-lines block in a warm session,
  versus the same policy in-process; the ratios are the sandbox's cost;
* the same career as one block of a headless session in this process, with CPU time
  (pibench and the agent process, read from ``/proc``) next to wall time, the round trips
  it took and the cost per round trip: on a shared machine CPU time is the steadier
  figure (issue 9 §3's goal: within 2.5x of in-process).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pibench_command() -> list[str]:
    script = Path(sys.executable).parent / "pibench"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "pibench_tui"]


class JsonlSession:
    """A running ``pibench headless --jsonl`` process."""

    def __init__(self, env: dict[str, str]) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            pibench_command() + ["headless", "--jsonl", "--seed", "101"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
            bufsize=1,
        )

    def ask(self, code: str) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"code": code}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def timed(self, code: str) -> float:
        t0 = time.perf_counter()
        reply = self.ask(code)
        elapsed = time.perf_counter() - t0
        if not reply["ok"]:
            raise RuntimeError(f"block failed: {reply['error']}")
        return elapsed

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def process_cpu(pid: int) -> float | None:
    """CPU seconds of process ``pid`` so far, from ``/proc`` (``schedstat``: nanoseconds,
    where the kernel keeps it; else ``stat``: clock ticks), or None without ``/proc``."""
    try:
        with open(f"/proc/{pid}/schedstat") as fh:
            ns = int(fh.read().split()[0])
        if ns:  # 0 where the kernel keeps no scheduler statistics
            return ns / 1e9
    except (OSError, IndexError, ValueError):
        pass
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def career_in_session_figures(code: str, runs: int) -> dict[str, list[float]]:
    """The baseline career in-process and as one block ``code`` of a HeadlessSession here,
    alternately, ``runs`` times each (seed 101): lists of seconds per run, ``"ip_wall"``,
    ``"ip_cpu"`` (in-process), ``"wall"``, ``"cpu"`` (the block: this process's CPU plus the
    agent process's, read from ``/proc``), ``"agent_cpu"`` (the agent process's share) and
    ``"trips"`` (the block's API round trips)."""
    from pibench_tui.headless.session import HeadlessOptions, HeadlessSession
    from world.runner import run_career

    ip_wall: list[float] = []
    ip_cpu: list[float] = []
    wall: list[float] = []
    cpu: list[float] = []
    trips: list[float] = []
    agent_cpu: list[float] = []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        run_career("baseline", 101)
        ip_wall.append(time.perf_counter() - t0)
        ip_cpu.append(time.process_time() - c0)
        session = HeadlessSession(HeadlessOptions(seed=101))
        try:
            session.run_block("1")  # the agent process started
            proc = session.sandbox._process
            pid = proc.proc.pid if proc is not None else 0
            a0 = process_cpu(pid)
            t0, c0 = time.perf_counter(), time.process_time()
            result = session.run_block(code)
            wall.append(time.perf_counter() - t0)
            a1 = process_cpu(pid)
            agent = a1 - a0 if a0 is not None and a1 is not None else 0.0
            cpu.append(time.process_time() - c0 + agent)
            agent_cpu.append(agent)
            trips.append(result.calls)
            if not result.ok:
                raise RuntimeError(f"baseline block failed: {result.error}")
        finally:
            session.close()
    return {"ip_wall": ip_wall, "ip_cpu": ip_cpu, "wall": wall, "cpu": cpu, "agent_cpu": agent_cpu, "trips": trips}


def career_in_session(code: str, runs: int) -> None:
    """The baseline career as one block of a HeadlessSession here: wall and CPU medians."""
    f = career_in_session_figures(code, runs)
    ip_wall, ip_cpu, wall, cpu, agent_cpu = f["ip_wall"], f["ip_cpu"], f["wall"], f["cpu"], f["agent_cpu"]
    n = statistics.median(f["trips"])
    for name, pick in (("median", statistics.median), ("fastest", min)):
        # On a shared machine the fastest run is the one least disturbed by other work.
        print(
            f"baseline career in-process, {name:7s}           {ms(pick(ip_wall))} wall, {ms(pick(ip_cpu)).strip()} CPU  (n={runs})"
        )
        print(
            f"baseline career, one block in a session, {name:7s} {ms(pick(wall))} wall, {ms(pick(cpu)).strip()} CPU "
            f"(pibench + agent process), {n:.0f} round trips"
        )
        if name == "median":
            print(f"  of which the agent process      {ms(statistics.median(agent_cpu))} CPU (median)")
        print(
            f"  ratio to in-process ({name}): {pick(wall) / pick(ip_wall):.2f}x wall, {pick(cpu) / pick(ip_cpu):.2f}x CPU "
            f"(goal 2.5x); beyond in-process: {(pick(wall) - pick(ip_wall)) / n * 1e6:.0f} us wall, "
            f"{(pick(cpu) - pick(ip_cpu)) / n * 1e6:.0f} us CPU per round trip"
        )


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    opts = parser.parse_args()
    starts, trivial, calls = (3, 50, 5) if opts.quick else (10, 300, 30)

    home = tempfile.mkdtemp(prefix="pibench-bench-")
    env = dict(os.environ, PIBENCH_HOME=home)
    try:
        print(
            f"pibench headless benchmark (python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
            f"load average {os.getloadavg()[0]:.1f})"
        )

        times = []
        for _ in range(starts):
            s = JsonlSession(env)
            s.ask("1")
            times.append(time.perf_counter() - s.started)
            s.close()
        print(
            f"start-up to first reply (jsonl)        median {ms(statistics.median(times))}  (n={starts}, min {ms(min(times)).strip()})"
        )

        s = JsonlSession(env)
        s.ask("1")
        t = [s.timed("pass") for _ in range(trivial)]
        print(f"trivial block round trip (jsonl)       median {ms(statistics.median(t))}  (n={trivial})")
        t = [s.timed("for _ in range(100):\n    lab.attention()") for _ in range(calls)]
        med = statistics.median(t)
        print(f"block of 100 API calls (lab.attention) median {ms(med)}  ({med * 10:.3f} ms per call, n={calls})")
        t = [s.timed("for _ in range(100):\n    lab.dashboard()") for _ in range(calls)]
        med = statistics.median(t)
        print(f"block of 100 API calls (lab.dashboard) median {ms(med)}  ({med * 10:.3f} ms per call, n={calls})")
        s.close()

        baseline = ROOT / "examples" / "agents" / "baseline.py"
        if baseline.exists():
            from world.runner import run_career

            inproc = []
            for _ in range(3):
                t0 = time.perf_counter()
                row = run_career("baseline", 101)
                inproc.append(time.perf_counter() - t0)
            headless = []
            for _ in range(3):
                t0 = time.perf_counter()
                with open(baseline, "rb") as fh:
                    proc = subprocess.run(
                        pibench_command() + ["headless", "--seed", "101"], stdin=fh, capture_output=True, env=env
                    )
                headless.append(time.perf_counter() - t0)
                if proc.returncode != 0:
                    raise RuntimeError(proc.stderr.decode())
            impact = next(
                (line.split()[1] for line in proc.stdout.decode().splitlines() if line.startswith("Impact ")), "?"
            )
            # The same career as one JSON-lines block in a warm session: the sandbox's cost
            # on the career itself, without the process start-up.
            block = []
            for _ in range(3):
                sess = JsonlSession(env)
                sess.ask("1")
                t0 = time.perf_counter()
                reply = sess.ask(baseline.read_text())
                block.append(time.perf_counter() - t0)
                sess.close()
                if not reply["ok"] or not reply["done"]:
                    raise RuntimeError(f"baseline block failed: {reply['error']}")
            hi, ip = statistics.median(headless), statistics.median(inproc)
            print(f"baseline career, seed 101, in-process  median {ms(ip)}  (Impact {row.get('impact')})")
            print(
                f"baseline career, seed 101, headless    median {ms(hi)}  (Impact {impact}; whole process, start-up included)"
            )
            bl = statistics.median(block)
            print(f"baseline career, seed 101, one jsonl block median {ms(bl)}  (warm session, start-up excluded)")
            print(
                f"sandbox cost ratio (headless / in-process)   {hi / ip:6.1f}x whole process, {bl / ip:5.1f}x career only"
            )
            career_in_session(baseline.read_text(), 3 if opts.quick else 7)
        else:
            print("baseline career: examples/agents/baseline.py not found; skipped")
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
