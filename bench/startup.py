"""Start-up figures of issue 9 §3 (prints figures, asserts nothing).

Run: ``python bench/startup.py [--repeat N]``. Each figure is the median over ``N`` fresh
processes, as wall time and as CPU time (user + system of the process and its children,
which is steadier on a shared machine):

* ``python -c pass`` and ``python -c "import numpy"``: the floor any start-up pays here;
* ``pibench --help`` (goal: at most 120 ms);
* ``pibench headless --jsonl``: from the process start to the reply to a first trivial block
  (world built, agent process started; goal: at most 120 ms), and what the headless parent
  imports (``-X importtime``: the heaviest top-level modules, and that textual, rich and
  tinydb are not among them);
* the agent process alone, from its start to its ``ready`` (:func:`agent_ready`): with the
  bytecode cached, the longer of the two starts of ``pibench headless`` (docs/headless.md),
  so the floor of its first reply, set by what agent code may import (numpy and the
  allowed modules).

Two conditions, because they differ by a factor: **bytecode cached** (how an installed
pibench starts: ``pip install`` compiles every module; here ``PYTHONDONTWRITEBYTECODE`` is
dropped and ``PYTHONPYCACHEPREFIX`` points at a temporary folder, warmed first by
``compileall`` of pibench's packages and one run; the agent process reads its own modules'
bytecode from the same folder),
and, when the calling environment sets ``PYTHONDONTWRITEBYTECODE`` (as some sandboxes and
CI machines do), **no bytecode cache** as well: then every module of an editable checkout
is compiled from source at every start.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_MS = 120


def pibench() -> list[str]:
    script = Path(sys.executable).parent / "pibench"
    return [str(script)] if script.exists() else [sys.executable, "-m", "pibench_tui"]


def package_dirs(root: str | Path | None = None) -> list[str]:
    """The folders of pibench's packages as this interpreter imports them, or those of the
    checkout at ``root``."""
    import importlib.util

    if root is not None:
        return [
            str(Path(root) / n) for n in ("pibench_tui", "world", "scenarios", "saves") if (Path(root) / n).is_dir()
        ]
    found = []
    for name in ("pibench_tui", "world", "scenarios", "saves"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found.extend(spec.submodule_search_locations)
    return found


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_cmd(cmd: list[str], repeat: int, env: dict[str, str]) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(repeat):
        c0, t0 = children_cpu(), time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
        walls.append(time.perf_counter() - t0)
        cpus.append(children_cpu() - c0)
    return statistics.median(walls), statistics.median(cpus)


def _medians_of(code: str, repeat: int, env: dict[str, str]) -> tuple[float, float]:
    """Median (wall, CPU) of ``repeat`` fresh interpreters running ``code``, which prints its
    own two figures (seconds) on one line."""
    walls, cpus = [], []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        wall, cpu = (float(x) for x in out.stdout.split())
        walls.append(wall)
        cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus)


def import_time(module: str, repeat: int, env: dict[str, str]) -> tuple[float, float]:
    """Median (wall, CPU) seconds of ``import module`` in ``repeat`` fresh interpreters (timed
    inside the process, around the import alone: the interpreter's own start is not counted),
    with the modules ``env`` makes importable (its ``PYTHONPATH``, say)."""
    code = (
        "import time; w0, c0 = time.perf_counter(), time.process_time(); import " + module + "; "
        "print(time.perf_counter() - w0, time.process_time() - c0)"
    )
    return _medians_of(code, repeat, env)


def headless_first_reply(repeat: int, env: dict[str, str], command: list[str] | None = None) -> tuple[float, float]:
    """Median (wall, CPU) seconds from starting ``pibench headless --jsonl --seed 101`` (the
    command ``command``, default :func:`pibench`) to its reply to a first trivial block, over
    ``repeat`` fresh processes; CPU: the parent's and the agent process's, whole run."""
    walls, cpus = [], []
    for _ in range(repeat):
        c0, t0 = children_cpu(), time.perf_counter()
        proc = subprocess.Popen(
            (command or pibench()) + ["headless", "--jsonl", "--seed", "101"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"code": "pass"}) + "\n")
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        walls.append(time.perf_counter() - t0)
        proc.stdin.close()
        proc.stdout.read()
        proc.wait()
        cpus.append(children_cpu() - c0)  # parent and agent process, whole run (one block)
        if not reply.get("ok"):
            raise RuntimeError(f"headless failed: {reply}")
    return statistics.median(walls), statistics.median(cpus)


def agent_ready(repeat: int, env: dict[str, str]) -> tuple[float, float]:
    """Median (wall, CPU) seconds of an agent process alone, from its start (the ``boot``
    message sent with it, the handshake's ``init`` right after) to its ``ready``, over
    ``repeat`` fresh interpreters that import the sandbox package first (not timed); CPU:
    the agent process's whole run (start, imports, confinement, exit)."""
    code = (
        "import resource, time\n"
        "from pibench_tui.sandbox import Sandbox\n"
        "sandbox = Sandbox(lambda *a: None, {}, block_timeout=10)\n"
        "c0 = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "t0 = time.perf_counter()\n"
        "sandbox.start()\n"
        "wall = time.perf_counter() - t0\n"
        "sandbox.close()\n"
        "c1 = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(wall, c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime)\n"
    )
    return _medians_of(code, repeat, env)


def heaviest_imports(env: dict[str, str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pibench_tui", "headless", "--jsonl", "--seed", "101"],
        input=json.dumps({"code": "pass"}) + "\n",
        capture_output=True,
        text=True,
        env=env,
    )
    rows = []
    names = set()
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, total, name = line[len("import time:") :].split("|")
        names.add(name.strip())
        if not name.startswith("  "):  # top level: imported by the program itself
            rows.append((int(total), name.strip()))
    rows.sort(reverse=True)
    print(
        "    heaviest top-level imports of `pibench headless` (cumulative, one run):",
        ", ".join(f"{n} {t / 1000:.0f} ms" for t, n in rows[:8]),
    )
    absent = [m for m in ("textual", "rich", "tinydb", "sqlite3") if m not in names]
    print(f"    not imported: {', '.join(absent) or '-'}")


def figures(env: dict[str, str], repeat: int) -> None:
    for label, cmd in (
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("python -c 'import numpy'", [sys.executable, "-c", "import numpy"]),
        ("pibench --help", pibench() + ["--help"]),
    ):
        wall, cpu = run_cmd(cmd, repeat, env)
        goal = f" (goal <= {GOAL_MS} ms)" if "pibench" in label else ""
        print(f"  {label:28s} wall {wall * 1e3:6.0f} ms  cpu {cpu * 1e3:6.0f} ms{goal}")
    wall, cpu = import_time("world.runner", repeat, env)
    print(
        f"  {'import world.runner':28s} wall {wall * 1e3:6.0f} ms  cpu {cpu * 1e3:6.0f} ms (in the process, its start excluded)"
    )
    wall, cpu = headless_first_reply(repeat, env)
    print(
        f"  {'pibench headless, 1st reply':28s} wall {wall * 1e3:6.0f} ms  cpu {cpu * 1e3:6.0f} ms "
        f"(parent + agent process; goal <= {GOAL_MS} ms)"
    )
    wall, cpu = agent_ready(repeat, env)
    print(
        f"  {'agent process, start->ready':28s} wall {wall * 1e3:6.0f} ms  cpu {cpu * 1e3:6.0f} ms "
        "(alone; bytecode cached, the longer start of the two: the first reply's floor)"
    )
    heaviest_imports(env)


def cached_env(env: dict[str, str], cache: str, dirs: list[str]) -> dict[str, str]:
    """``env`` with bytecode cached under the folder ``cache`` (``PYTHONPYCACHEPREFIX``;
    ``PYTHONDONTWRITEBYTECODE`` dropped), warmed by compiling every module under ``dirs`` as
    ``pip install`` does (the agent process's script too, which no import compiles). What the
    standard library and numpy add is cached by the first run, so run each command once
    before timing it."""
    cached = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cached["PYTHONPYCACHEPREFIX"] = cache
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *dirs], env=cached, stdout=subprocess.DEVNULL, check=False
    )
    return cached


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9, help="processes per figure (default 9)")
    args = ap.parse_args()
    env = dict(os.environ, PIBENCH_HOME=os.environ.get("PIBENCH_HOME", "/tmp/pibench-bench-home"))
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; medians of {args.repeat} processes; "
        f"load average {os.getloadavg()[0]:.1f} (wall times stretch with it, CPU times much less)"
    )
    with tempfile.TemporaryDirectory(prefix="pibench-pycache-") as cache:
        cached = cached_env(env, cache, package_dirs())
        run_cmd(pibench() + ["--help"], 1, cached)
        headless_first_reply(1, cached)
        print("bytecode cached (as installed):")
        figures(cached, args.repeat)
    if env.get("PYTHONDONTWRITEBYTECODE"):
        print("no bytecode cache (PYTHONDONTWRITEBYTECODE is set here; every start compiles pibench's modules):")
        figures(env, args.repeat)


if __name__ == "__main__":
    main()
