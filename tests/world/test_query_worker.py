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
