"""One view per public row: the API's list calls and the SQL mirror agree (world/views.py, §14, §15)."""

from __future__ import annotations

import json

import pytest

from world import views
from world.api import Api
from world.config import WorldConfig
from world.engine import World
from world.observe import SCHEMA
from world.runner import AgentView, build_policy


def _career(months: int, seed: int = 5) -> tuple[World, Api]:
    w = World(WorldConfig(), seed)
    api = Api(w)
    policy = build_policy("baseline", w)
    view = AgentView(api)
    while w.s.month <= months and not w.s.finished:
        m = w.s.month
        policy.act(view)
        if w.s.month == m and not w.s.finished:
            api.time.next_month()
    return w, api


def _sql(api: Api, table: str, where: str = "") -> dict[str, dict]:
    rows = api.query(f"select * from {table} {where}")
    assert not any("_truncated" in r for r in rows)
    out = {}
    for r in rows:
        for k in ("members", "authors", "attached", "reviewer_scores", "details"):
            if isinstance(r.get(k), str):
                r[k] = json.loads(r[k])
        for k in ("salvage", "collab"):
            if k in r:
                r[k] = bool(r[k])
        out[r["id"]] = r
    return out


@pytest.fixture(scope="module")
def busy():
    return _career(30)


def test_entity_tables_take_their_columns_from_the_views():
    """Every entity table of the SQL mirror has exactly the view's column names, in order."""
    for table, cols in views.COLUMNS.items():
        assert tuple(SCHEMA[table]) == cols, table


@pytest.mark.parametrize(
    "table,call,where",
    [
        ("students", "students.list", ""),
        ("projects", "projects.list", ""),
        ("drafts", "papers.drafts", ""),
        ("submissions", "papers.submissions", ""),
        ("publications", "papers.publications", ""),
        ("proposals", "grants.proposals", ""),
        ("awards", "grants.awards", ""),
        ("events", "events.pending", "where status = 'pending'"),
        ("grant_calls", "grants.calls", ""),
    ],
)
def test_api_rows_equal_sql_rows(busy, table, call, where):
    """After 30 months of a baseline career, each API list row equals the SQL mirror's row of the same id:
    same keys, same values (lists and dicts decoded from their JSON text)."""
    w, api = busy
    ns, method = call.split(".")
    api_rows = {r["id"]: r for r in getattr(getattr(api, ns), method)()}
    sql_rows = _sql(api, table, where)
    assert api_rows, f"{call} returned nothing to compare"
    if table == "grant_calls":  # the mirror keeps every call opened so far; the API lists the open ones
        sql_rows = {k: v for k, v in sql_rows.items() if k in api_rows}
    assert set(api_rows) == set(sql_rows)
    for eid, row in api_rows.items():
        assert list(row) == list(views.COLUMNS[table]), call
        assert row == sql_rows[eid], (call, eid)


def test_applicant_rows_equal_sql_rows():
    """In a recruiting month, ``recruit.applicants()`` rows equal the mirror's applicant rows, interview scores included."""
    w, api = _career(12, seed=7)
    assert w.s.month == 13
    apps = api.recruit.applicants()
    assert apps
    api.recruit.interview(apps[0]["id"])
    api_rows = {r["id"]: r for r in api.recruit.applicants()}
    sql_rows = _sql(api, "applicants", f"where season_year = {(w.s.month - 1) // 12}")
    for eid, row in api_rows.items():
        assert row == sql_rows[eid]
    assert api_rows[apps[0]["id"]]["interview"] is not None


def test_returned_dashboards_share_nothing_with_the_cache():
    """Mutating a dashboard (or time.next_month()'s result) changes neither the world nor the
    next dashboard: the cached dashboard is copied for each caller, nested rows included."""
    w, api = _career(14, seed=5)
    first = api.lab.dashboard()
    assert first["active_projects"] and first["students"]
    first["budget"] = -1
    first["students"].clear()
    first["active_projects"][0]["members"].append("X")
    first["attention"]["left"] = 1e9
    again = api.lab.dashboard()
    assert again["budget"] != -1 and again["students"] and "X" not in again["active_projects"][0]["members"]
    assert again["attention"]["left"] < 1e9
    moved = api.time.next_month()
    moved["active_projects"].clear()
    moved["notes"].append("junk")
    after = api.lab.dashboard()
    assert after["active_projects"] and "junk" not in after["notes"]
    assert {k: v for k, v in moved.items() if k not in ("report", "active_projects", "notes")} == {
        k: v for k, v in after.items() if k not in ("active_projects", "notes")
    }


def test_next_month_unread_ticks_and_logs_like_next_month():
    """The runner's ``Api.next_month_unread()`` closes the month exactly as ``time.next_month()``
    (same action-log entry, same world), returning only the month; the report stays available
    through ``time.last_report()``."""
    a, b = World(WorldConfig(), 11), World(WorldConfig(), 11)
    api_a, api_b = Api(a), Api(b)
    for _ in range(14):
        full = api_a.time.next_month()
        short = api_b.next_month_unread()
        assert short == {"month": full["month"]}
        assert api_b.time.last_report() == full["report"]
    assert a.s.action_log == b.s.action_log and a.digest() == b.digest()
    assert api_b.lab.dashboard() == api_a.lab.dashboard()


def _containers(x, out):
    """Every list and dict inside ``x`` (``x`` included), innermost first."""
    if isinstance(x, dict):
        for v in x.values():
            _containers(v, out)
        out.append(x)
    elif isinstance(x, list):
        for v in x:
            _containers(v, out)
        out.append(x)
    return out


def test_wrecking_every_container_of_returned_results_changes_neither_world_nor_next_reads():
    """Clearing every list and dict inside a dashboard, a time.next_month() reply and the list
    calls' rows leaves the world's digest as it was, and the next dashboard and list rows
    equal those built afresh from the world (nothing returned is shared with the API's caches)."""
    w, api = _career(20, seed=3)
    digest = w.digest()
    calls = [("lab", "dashboard"), ("grants", "proposals"), ("papers", "drafts"), ("events", "pending")]
    before = {c: getattr(getattr(api, c[0]), c[1])() for c in calls}
    for c in calls:
        for box in _containers(getattr(getattr(api, c[0]), c[1])(), []):
            box.clear()
    assert w.digest() == digest
    for c in calls:
        assert getattr(getattr(api, c[0]), c[1])() == before[c], c
    assert api.lab.dashboard() == views.dashboard(w)
    moved = api.time.next_month()
    after_tick = api.lab.dashboard()
    for box in _containers(moved, []):
        box.clear()
    assert api.lab.dashboard() == after_tick == views.dashboard(w)
