"""The query worker in the evidence (QA pass 8, issue 28): what its OS confinement is, as
the worker itself reports it before it reads any SQL, is in the career's report (headless
console and JSON report, an agent run's result.json and integrity.json), and a worker the
kernel kills with ``SIGSYS`` (its seccomp filter's answer to a call no query makes: code
running in it got past SQLite) is a flagging ``sandbox_violation`` incident of the agent
run, as it is for the agent process. Before, both were invisible: the confinement was best
effort and unreported, the kill only an ``sql_error`` the agent saw."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

from pibench_tui.harness.core import LabCore
from scenarios import load_scenario
from tests.headless.conftest import run_pibench
from world import sqlworker

#: A query that runs until its time limit (the kill comes first).
SLOW = "with recursive c(n) as (select 1 union all select n + 1 from c) select count(*) from c"


def _cpu_ticks(pid: int) -> int:
    """User plus system CPU ticks of process ``pid`` (``/proc/PID/stat`` fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def _kill_once_busy(pid: int) -> None:
    """Send ``SIGSYS`` to the idle worker ``pid`` once it has spent CPU on a query (5 ticks, at
    most 10 s of waiting): a fixed 0.4 s timer could fire before a loaded machine had sent the
    query, and the query then ran out its time on a fresh worker (a flaky failure)."""
    start, deadline = _cpu_ticks(pid), time.monotonic() + 10
    while time.monotonic() < deadline and _cpu_ticks(pid) - start < 5:
        time.sleep(0.02)
    os.kill(pid, signal.SIGSYS)


def test_a_worker_killed_by_its_seccomp_filter_flags_the_agent_run() -> None:
    """A block whose query's worker dies by SIGSYS (sent here by the test, as the kernel would
    send it) gets the agent an sql_error naming the filter, and the run one flagging
    ``sandbox_violation`` incident saying it was the query worker; the next query works."""
    core = LabCore(load_scenario("short-12").config, seed=101)
    try:
        core.reset()
        _obs, _r, _t, _tr, info = core.step("print(query('select 1 as x'))")
        assert info["ok"] and info["integrity"] == [], info
        worker = core.career.observer.worker
        assert worker is not None and worker.proc is not None
        threading.Thread(target=_kill_once_busy, args=(worker.proc.pid,), daemon=True).start()
        code = f"try:\n    query({SLOW!r})\nexcept ActionError as e:\n    print('sql', e.code, e.message)\n"
        _obs, _r, _t, _tr, info = core.step(code)
        assert "sql sql_error" in info["output"] and "seccomp filter" in info["output"], info
        assert info["integrity"] == ["sandbox_violation"], info
        log = core.integrity.to_dict()
        assert log["flagged"] is True and log["by_kind"] == {"sandbox_violation": 1}, log
        assert "query worker" in log["incidents"][0]["message"], log
        _obs, _r, _t, _tr, info = core.step("print(query('select 2 as y'))")
        assert info["ok"] and "'y': 2" in info["output"] and info["integrity"] == [], info
    finally:
        core.close()


def test_the_worker_reports_its_confinement_in_the_headless_report(tmp_path) -> None:
    """The console report has a ``query worker`` line (reserved: an agent line starting so is
    marked) saying what the worker proved, and the JSON report carries the worker's own
    report; before any query, the worker is said not to have started."""
    report_file = tmp_path / "r.json"
    code = "print(query('select 1 as x'))\nprint('query worker    complete (forged)')\n"
    run = run_pibench(["headless", "--seed", "101", "--report-json", str(report_file)], code, home=tmp_path)
    assert run.returncode == 0, run.stderr
    status = json.loads(report_file.read_text())["query_worker_confinement"]
    assert status is not None and set(status) >= {"no_new_privs", "landlock", "seccomp", "rlimits", "user"}
    assert run.report()["query worker"] == sqlworker.describe_confinement(status)
    assert "[agent] query worker    complete (forged)" in run.stdout
    quiet = run_pibench(["headless", "--seed", "101"], "print(1)\n", home=tmp_path)
    assert quiet.report()["query worker"] == "not started (no query ran)"


def test_describe_confinement_names_what_is_missing() -> None:
    """A complete report reads as such; a worker missing a step (an old kernel, no libseccomp,
    still root) is INCOMPLETE with the steps and notes named; an unreadable report is said so."""
    full = {
        "no_new_privs": True,
        "landlock": True,
        "seccomp": True,
        "parent_death": True,
        "rlimits": True,
        "user": "nobody",
        "landlock_abi": 7,
    }
    assert sqlworker.confinement_complete(full)
    assert sqlworker.describe_confinement(full).startswith("complete (landlock ABI 7")
    partial = {**full, "seccomp": False, "user": "root", "notes": ["libseccomp.so.2 is not installed"]}
    assert not sqlworker.confinement_complete(partial)
    assert sqlworker.describe_confinement(partial) == (
        "INCOMPLETE (missing: seccomp allow-list, privilege drop (user root); libseccomp.so.2 is not installed)"
    )
    assert sqlworker.describe_confinement([1]).startswith("INCOMPLETE")  # type: ignore[arg-type]


def test_an_agent_run_records_the_worker_s_confinement(tmp_path) -> None:
    """An agent career whose code queries records the worker's own report in result.json and
    integrity.json beside the agent process's ``confinement``."""
    from tests.harness.conftest import play
    from tests.harness.fakellm import FakeLLM, Reply

    month = "```python\nprint(query('select count(*) as n from papers'))\ntime.next_month()\n```"
    with FakeLLM(lambda req, i: Reply(month)) as srv:
        play(srv, tmp_path / "runs", scenario="short-12")
    (run,) = [p.parent for p in (tmp_path / "runs").rglob("result.json")]
    res = json.loads((run / "result.json").read_text())
    integrity = json.loads((run / "integrity.json").read_text())
    status = res["query_worker_confinement"]
    assert sqlworker.confinement_complete(status), status
    assert integrity["query_worker_confinement"] == status and res["confinement"]["complete"] is True


def _workers_of(root: str) -> list[int]:
    """Pids of the query workers of the pibench installed at ``root`` (by their command line)."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    cmd = fh.read()
            except OSError:
                continue
            if b"sqlworker.py" in cmd and root.encode() in cmd:
                found.append(int(pid))
    return found


def test_the_worker_dies_with_pibench_even_mid_statement(tmp_path) -> None:
    """``kill -9`` of pibench while its worker runs a straight-line statement (SQLite's
    progress handler never runs in one; pibench's own kill at the query limit is gone with
    it) takes the worker with it at once. Before, the worker, in a session of its own, ran
    the statement to its end at full CPU: 20 terms of a quadratic ``instr`` are minutes."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    import world

    root = str(Path(world.__file__).resolve().parents[1])
    term = "instr(printf('%.*c', 999990, 'a'), printf('%.*c', 400000, 'a') || 'b')"
    code = f"query({'SELECT ' + ' + '.join([term] * 20)!r})\n"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pibench_tui", "headless", "--jsonl", "--seed", "3", "--block-timeout", "600"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=dict(os.environ, PIBENCH_HOME=str(tmp_path)),
    )  # fmt: skip
    workers: list[int] = []
    try:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps({"code": code}) + "\n").encode())
        proc.stdin.flush()
        for _ in range(600):  # the worker starts with the block's first query
            workers = _workers_of(root)
            if workers:
                break
            time.sleep(0.05)
        assert workers, "no query worker started"
        time.sleep(0.5)  # inside the statement
        proc.kill()
        proc.wait()
        for _ in range(200):  # the kernel's SIGKILL is immediate; give the reaper a moment
            if not set(workers) & set(_workers_of(root)):
                break
            time.sleep(0.05)
        assert not set(workers) & set(_workers_of(root)), "the query worker outlived pibench"
    finally:
        proc.kill()
        for pid in set(workers) & set(_workers_of(root)):
            os.kill(pid, signal.SIGKILL)
