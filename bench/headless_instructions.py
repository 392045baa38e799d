"""Instructions of the baseline career through headless mode, counted by callgrind in the
pibench process and in the agent process, next to the same career in-process: a figure the
load of a shared machine does not disturb (issue 9 §3; prints figures, asserts nothing).

    python bench/headless_instructions.py [--against PATH ...] [--warm] [--trips N]

Run (a few minutes per tree under valgrind). For each checkout:

* the in-process career (``world.runner.run_career("baseline", 101)``, warm);
* the career as one block of a headless session (``examples/agents/baseline.py``, seed 101):
  the instructions of this process while it serves the block and those of the agent process
  while it runs it, each counted only inside libc's ``qsort`` (a two-element sort whose
  comparison runs the block: ``--collect-atstart=no --toggle-collect=qsort_r``), so start-up,
  imports and the first block are not counted. ``--warm``: a first session runs the block
  before the measured one (the parent's compiled blocks are kept: no parse, no check);
* ``--trips N``: a block of N refused calls (``events.respond`` of an unknown event, caught):
  the instructions of a bare round trip, both processes.

``--against`` may be given several times (e.g. main now and an old main): the trees are
measured in the order given, this one first, and a last table puts them side by side, each
as a ratio to the last tree named (the reference).

valgrind cannot run a confined agent process (Landlock keeps it from writing its output; the
seccomp filter refuses its executable mappings), so the agent process runs from a copy of
the sandbox's scripts without its confinement (measurement only; everything else is the
same code). ``PYTHONHASHSEED`` is fixed (0): string hashes move dict probing, which moves
the count by a few per cent from one run to the next.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))  # bench/, for _callgrind when loaded by path

from _callgrind import VALGRIND, callgrind, in_qsort  # noqa: E402

#: The agent process's confinement, as child.py applies it, and what the copy does instead.
CONFINE = """    status = confine.apply(
        readable,
        memory_limit=int(init.get("memory_limit", 1 << 30)),
        keep_fds=3,
        before_seccomp=lambda: _watchdog(runtime),  # the last thread: none can start after
    )"""
UNCONFINED = """    _watchdog(runtime)
    status = confine.Confinement.from_dict(None)"""
#: Appended to the copy of child.py (``{bench}``: this folder): block 2 (the first after the
#: session's "1") runs in qsort, through the one :func:`_callgrind.in_qsort_result`.
QSORT_HOOK = """
import sys as _bench_sys

_bench_sys.path.insert(0, {bench!r})
from _callgrind import in_qsort_result as _bench_in_qsort_result

_bench_run = _Runtime.run


def _bench_counted_run(self, msg):
    if msg.get("id") != 2:
        return _bench_run(self, msg)
    return _bench_in_qsort_result(_bench_run, self, msg)


_Runtime.run = _bench_counted_run
"""


def counted_child_script(tree: str, folder: Path) -> Path:
    """A copy of ``tree``'s sandbox scripts (and the ``world/osbound.py`` they load) in
    ``folder``, laid out as in the tree, whose child.py applies no
    confinement (valgrind cannot run a confined process) and runs block 2 inside ``qsort``
    (:data:`QSORT_HOOK`); the copied child.py.

    Raises:
        SystemExit: child.py no longer applies its confinement as :data:`CONFINE` says.
    """
    shutil.copytree(Path(tree) / "pibench_tui" / "sandbox", folder / "pibench_tui" / "sandbox")
    (folder / "world").mkdir()  # confine.py loads world/osbound.py two folders up from itself
    shutil.copy(Path(tree) / "world" / "osbound.py", folder / "world" / "osbound.py")
    script = folder / "pibench_tui" / "sandbox" / "child.py"
    text = script.read_text()
    if CONFINE not in text or '\nif __name__ == "__main__":' not in text:
        raise SystemExit("child.py no longer applies its confinement as this benchmark expects: update CONFINE")
    hook = QSORT_HOOK.format(bench=str(HERE.parent))
    text = text.replace(CONFINE, UNCONFINED).replace(
        '\nif __name__ == "__main__":', hook + '\nif __name__ == "__main__":'
    )
    script.write_text(text)
    return script


def child(tree: str, mode: str, code_path: str, agent_out: str, warm: bool) -> None:
    """In valgrind: the in-process career (``mode`` "inprocess") or a headless block, its
    agent process under valgrind too (its count written to ``agent_out``)."""
    sys.path.insert(0, tree)
    if mode == "inprocess":
        from world.runner import run_career

        run_career("baseline", 101)  # warm-up
        in_qsort(lambda: run_career("baseline", 101))
        return
    copy = Path(tempfile.mkdtemp(prefix="pibench-bench-sandbox-"))
    try:
        script = counted_child_script(tree, copy)
        from pibench_tui.sandbox import process

        process.CHILD_SCRIPT = script
        command = process.agent_command

        def under_valgrind() -> list[str]:
            return [*VALGRIND, f"--callgrind-out-file={agent_out}", *command()]

        process.agent_command = under_valgrind
        process.AgentProcess.handshake.__defaults__ = (900.0,)  # valgrind starts slowly
        from pibench_tui.headless.session import HeadlessOptions, HeadlessSession

        code = Path(code_path).read_text()
        options = HeadlessOptions(seed=101, block_timeout=1800)
        if warm:
            first = HeadlessSession(options)
            first.run_block("1")
            first.run_block(code)
            first.close()
        session = HeadlessSession(options)
        try:
            session.run_block("1")
            results: list = []
            in_qsort(lambda: results.append(session.run_block(code)))
            result = results[0]
            print(f"trips {result.calls} ok {result.ok} digest {session.world.digest()}")
        finally:
            session.close()
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def callgrind_total(path: str) -> int:
    """The instructions counted in a callgrind output file."""
    with open(path) as fh:
        for line in fh:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise SystemExit(f"no total in {path}")


def measure(tree: str, mode: str, code_path: str = "", warm: bool = False, keep: str = "") -> tuple[int, int, str]:
    """(instructions of this process, of the agent process (0 in-process), the child's output);
    ``keep``: a folder the callgrind files are copied to (``<mode>.parent.out``, ``<mode>.agent.out``)."""
    with tempfile.TemporaryDirectory() as tmp:
        out, agent_out = os.path.join(tmp, "parent.out"), os.path.join(tmp, "agent.out")
        proc = callgrind(
            [sys.executable, str(HERE), "--child", tree, mode, code_path or "-", agent_out, "warm" if warm else "cold"],
            out,
            env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": tree},
            cwd=tmp,
        )
        if proc.returncode != 0:
            raise SystemExit(f"the measured run failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
        agent = callgrind_total(agent_out) if mode == "block" else 0
        if keep:
            os.makedirs(keep, exist_ok=True)
            name = mode if not code_path or code_path.endswith("baseline.py") else "trips"
            shutil.copy(out, os.path.join(keep, f"{name}.parent.out"))
            if mode == "block":
                shutil.copy(agent_out, os.path.join(keep, f"{name}.agent.out"))
        return callgrind_total(out), agent, proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument(
        "--against",
        metavar="PATH",
        action="append",
        default=[],
        help="another pibench checkout, measured the same way (repeatable; the last is the reference of the side-by-side table)",
    )
    ap.add_argument("--warm", action="store_true", help="a first session runs the block before the measured one")
    ap.add_argument("--trips", type=int, default=0, metavar="N", help="also a block of N refused calls")
    ap.add_argument("--keep", metavar="DIR", default="", help="copy the callgrind files there (callgrind_annotate)")
    ap.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        tree, mode, code_path, agent_out, warm = args.child
        child(tree, mode, code_path, agent_out, warm == "warm")
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    trees = [str(HERE.parents[1]), *args.against]
    figures: list[tuple[str, int, int]] = []  # (tree, in-process, headless in all)
    for tree in trees:
        baseline = os.path.join(tree, "examples", "agents", "baseline.py")
        keep = os.path.join(args.keep, Path(tree).name) if args.keep else ""
        ip, _, _ = measure(tree, "inprocess", keep=keep)
        parent, agent, out = measure(tree, "block", baseline, args.warm, keep)
        found = re.search(r"trips (\d+)", out)
        if found is None:
            raise SystemExit(f"the block did not report its round trips:\n{out[-2000:]}")
        trips = int(found.group(1))
        total = parent + agent
        figures.append((tree, ip, total))
        how = "warm: the block compiled by a first session" if args.warm else "cold: the block compiled in the session"
        print(f"{tree}: baseline career, seed 101 ({how})")
        print(f"  in-process                 {ip / 1e6:8.1f} M instructions")
        print(
            f"  one headless block         {total / 1e6:8.1f} M = pibench {parent / 1e6:.1f} M + agent process "
            f"{agent / 1e6:.1f} M; {trips} round trips"
        )
        print(
            f"  ratio {total / ip:.2f}x (goal 2.5x); beyond in-process {(total - ip) / trips / 1e3:,.0f} k instructions "
            "per round trip"
        )
        if args.trips:
            with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
                fh.write(
                    f"for _ in range({args.trips}):\n    try:\n        events.respond('E999', 'accept')\n"
                    "    except ActionError:\n        pass\n"
                )
            try:
                parent, agent, _ = measure(tree, "block", fh.name, keep=keep)
            finally:
                os.unlink(fh.name)
            print(
                f"  a bare round trip (a refused call): {parent / args.trips / 1e3:,.0f} k pibench + "
                f"{agent / args.trips / 1e3:,.0f} k agent process instructions"
            )
    if len(figures) > 1:
        side_by_side(figures)


def side_by_side(figures: list[tuple[str, int, int]]) -> None:
    """The trees' careers in one table, each as a ratio to the last tree's (the reference)."""
    ref_tree, ref_ip, ref_total = figures[-1]
    print(f"side by side, M instructions (ratios to {ref_tree})")
    print(f"  {'tree':40s} {'in-process':>11s} {'ratio':>7s} {'headless':>9s} {'ratio':>7s}")
    for tree, ip, total in figures:
        print(f"  {tree[-40:]:40s} {ip / 1e6:11.1f} {ip / ref_ip:7.3f} {total / 1e6:9.1f} {total / ref_total:7.3f}")


if __name__ == "__main__":
    main()
