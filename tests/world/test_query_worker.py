"""MECHANICS §14 / Decisions 9: agent queries in the query worker process see every version
of the observable database, however often the world changes between them."""

from __future__ import annotations

import sqlite3

import pytest

from world import sqlworker
from world.api import Api
from world.engine import World
from world.errors import ActionError
from world.observe import ALLOWED_FUNCTIONS


def test_the_worker_answers_after_every_new_copy_of_the_mirror():
    """A worker that has loaded one copy of the mirror loads the next and answers from it:
    a second copy once killed the worker (its read-only authorizer refused the reload), so
    every other query after a change failed with a false 'used more than 768 MiB'."""
    source = sqlite3.connect(":memory:")
    source.execute("create table t (id)")
    worker = sqlworker.QueryWorker(ALLOWED_FUNCTIONS)
    try:
        for version in range(4):
            source.execute("insert into t values (?)", (version,))
            source.commit()
            res = worker.query("select count(*) from t", 100, 5.0, version, source.serialize)
            assert res["rows"] == [[version + 1]]
        assert worker.starts == 1 and worker.kills == 0
    finally:
        worker.stop()


def test_isolated_queries_before_and_after_month_advances_all_succeed():
    """Headless and the harness isolate a world's queries in the worker: a query, an action,
    a month advance and a query again, three months running, each answer current."""
    world = World(seed=101)
    api = Api(world)
    api.observer.isolate()
    try:
        for month in range(1, 4):
            rows = api.query("select month from lab_monthly order by month desc limit 1")
            assert rows == ([] if month == 1 else [{"month": month - 1}])
            api.call("time", "next_month", [], {})
            assert api.query("select count(*) as n from lab_monthly") == [{"n": month}]
    finally:
        api.observer.close()


def test_a_table_valued_function_is_refused_with_a_way_out():
    """json_each/json_tree (table-valued functions) are refused by the read-only reader, in the
    worker and in-process alike, with a message naming what to do instead (select the JSON
    column and parse it) rather than SQLite's bare 'vtable constructor failed'."""
    world = World(seed=1)
    api = Api(world)
    for isolated in (False, True):
        if isolated:
            api.observer.isolate()
        try:
            with pytest.raises(ActionError, match=r"json_each.*json\.loads"):
                api.query("select value from json_each('[1, 2]')")
        finally:
            if isolated:
                api.observer.close()


def _status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        return dict(line.rstrip("\n").split(":\t", 1) for line in fh if ":\t" in line)


@pytest.mark.skipif(not sqlworker.sys.platform.startswith("linux"), reason="reads /proc/PID/status (Linux)")
def test_the_worker_reads_agent_sql_without_privileges():
    """The query worker parses agent-written SQL: by the time it answers a query it has
    ``NoNewPrivs 1`` and no effective, permitted or bounding-relevant capability
    (``CapEff``/``CapPrm`` 0), and when pibench runs as root it is user and group ``nobody``
    (65534) with no supplementary groups, and still answers. Before, as root it was uid 0
    with ``CapEff 000001ffffffffff`` and ``NoNewPrivs 0`` (QA4 F7)."""
    import os

    source = sqlite3.connect(":memory:")
    source.execute("create table t (id)")
    source.execute("insert into t values (1)")
    source.commit()
    worker = sqlworker.QueryWorker(ALLOWED_FUNCTIONS)
    try:
        assert worker.query("select count(*) from t", 100, 5.0, 0, source.serialize)["rows"] == [[1]]
        assert worker.proc is not None
        status = _status(worker.proc.pid)
        assert status["NoNewPrivs"].strip() == "1", status
        assert int(status["CapEff"], 16) == 0 and int(status["CapPrm"], 16) == 0, status
        if os.geteuid() == 0:
            assert status["Uid"].split() == ["65534"] * 4, status
            assert status["Gid"].split() == ["65534"] * 4, status
            assert status["Groups"].strip() == "", status
        assert worker.query("select id + 1 from t", 100, 5.0, 0, source.serialize)["rows"] == [[2]]
    finally:
        worker.stop()


@pytest.mark.skipif(not sqlworker.sys.platform.startswith("linux"), reason="reads /proc/PID/status (Linux)")
def test_the_worker_answers_under_the_agent_processs_seccomp_filter():
    """The query worker takes the agent process's seccomp allow-list (``world.osbound``, one
    home for both) before it reads agent SQL: ``Seccomp: 2`` (a filter) in its
    ``/proc/PID/status``, and it still answers reads, a deserialized new copy, a window
    function and a sort. Before, it had no filter (``Seccomp: 0``)."""
    from pibench_tui.sandbox.confine import seccomp_available

    assert seccomp_available()[0], "this machine has seccomp and libseccomp (the sandbox's own tests need it)"
    source = sqlite3.connect(":memory:")
    source.execute("create table t (id, name)")
    source.executemany("insert into t values (?, ?)", [(i, f"n{i % 7}") for i in range(2000)])
    source.commit()
    worker = sqlworker.QueryWorker(ALLOWED_FUNCTIONS)
    try:
        assert worker.query("select count(*) from t", 100, 5.0, 0, source.serialize)["rows"] == [[2000]]
        assert worker.proc is not None
        status = _status(worker.proc.pid)
        assert status["Seccomp"].strip() == "2", status
        assert status["NoNewPrivs"].strip() == "1", status
        source.execute("insert into t values (2000, 'x')")
        source.commit()
        res = worker.query(
            "select name, count(*) over (partition by name) as k from t order by name desc, id limit 3",
            100,
            5.0,
            1,
            source.serialize,
        )
        assert res["rows"][0][0] == "x" and res["cols"] == ["name", "k"]
        assert worker.starts == 1 and worker.kills == 0
    finally:
        worker.stop()


#: Runs world/sqlworker.py's confinement the way the worker's script does (loaded by path,
#: ``-S -s -P``), then tries what a memory-safety exploit in SQLite would try.
CONFINED_WORKER_PROBE = r"""
import importlib.util, json, os, socket, sqlite3, sys
spec = importlib.util.spec_from_file_location("sqlworker_probe", sys.argv[1])
worker = importlib.util.module_from_spec(spec)
sys.modules["sqlworker_probe"] = worker
spec.loader.exec_module(worker)
secret = sys.argv[2]
status = worker.confine_worker(512 << 20)
out = {"status": status}
def attempt(name, fn):
    try:
        fn()
        out[name] = "ALLOWED"
    except OSError as exc:
        out[name] = "refused"
attempt("read-secret", lambda: open(secret, "rb").read())
attempt("read-etc-passwd", lambda: open("/etc/passwd", "rb").read())
attempt("list-root", lambda: os.listdir("/"))
attempt("write-tmp", lambda: open("/tmp/pibench-worker-probe-%d" % os.getpid(), "w"))
attempt("socket", lambda: socket.socket())
attempt("fork", lambda: os._exit(0) if os.fork() == 0 else None)
conn = sqlite3.connect(":memory:")
out["sql"] = conn.execute("select sum(value) from (select 1 as value union all select 2)").fetchone()[0]
print(json.dumps(out))
"""


@pytest.mark.skipif(not sqlworker.sys.platform.startswith("linux"), reason="Landlock and seccomp are Linux's")
def test_a_confined_worker_can_open_no_file_and_reach_no_one(tmp_path):
    """:func:`world.sqlworker.confine_worker` leaves the worker nothing but its pipes: a file
    its user owns (a stand-in for the evaluator's seal file), ``/etc/passwd``, a listing of
    ``/``, a write, a socket and a fork are all refused, while SQLite still computes. Before,
    a memory-safety bug in SQLite reached by agent SQL ran with the file access and network
    of pibench's user (or ``nobody``)."""
    import json
    import os
    import subprocess
    import sys

    secret = tmp_path / "seal.json"
    secret.write_text('{"seeds": [1]}')
    os.chmod(secret, 0o644)
    os.chmod(tmp_path, 0o755)
    proc = subprocess.run(
        [sys.executable, "-S", "-s", "-P", "-B", "-c", CONFINED_WORKER_PROBE, sqlworker.__file__, str(secret)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    status = out.pop("status")
    assert status["no_new_privs"] and status["landlock"] and status["seccomp"] and status["rlimits"], status
    assert status["user"] in ("nobody", "unprivileged"), status
    assert out.pop("sql") == 3
    assert out == dict.fromkeys(
        ["read-secret", "read-etc-passwd", "list-root", "write-tmp", "socket", "fork"], "refused"
    ), out


def test_a_worker_killed_by_its_filter_is_named_so():
    """A worker the kernel kills with ``SIGSYS`` (its seccomp filter's answer to a call no
    query makes: what an exploit would do) is reported as that, not as a query that used too
    much memory; the next query gets a new worker. (The signal is sent here by the test.)"""
    import os
    import signal
    import threading

    source = sqlite3.connect(":memory:")
    source.execute("create table t (id)")
    source.commit()
    worker = sqlworker.QueryWorker(ALLOWED_FUNCTIONS)
    try:
        assert worker.query("select 1", 10, 5.0, 0, source.serialize)["rows"] == [[1]]
        pid = worker.proc.pid
        threading.Timer(0.3, os.kill, (pid, signal.SIGSYS)).start()
        slow = "with recursive c(n) as (select 1 union all select n + 1 from c) select count(*) from c"
        with pytest.raises(sqlworker.QueryRefused, match="seccomp filter"):
            worker.query(slow, 10, 5.0, 0, source.serialize)
        assert worker.query("select 2", 10, 5.0, 0, source.serialize)["rows"] == [[2]]
        assert worker.starts == 2
    finally:
        worker.stop()
