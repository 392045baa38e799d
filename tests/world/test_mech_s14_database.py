"""MECHANICS §14 (observable database) and §18 invariants 3-4."""

from __future__ import annotations

import json

import numpy as np
import pytest

from world.api import ActionError, Api
from world.config import TOPICS, VENUES, WorldConfig
from world.engine import World

TABLES = {
    "students": "id name role status arrived_month left_month months_in stipend mentoring_hours papers_accepted first_author_accepted contract_end",
    "student_reports": "student_id month report_quality meeting_sentiment",
    "applicants": "id season_year pool name transcript letter interview status",
    "projects": "id topic tier status started_month ended_month progress_pct monthly_compute members draft_id scooped_times",
    "drafts": "id project_id topic tier status created_month authors polish_hours revisions salvage collab",
    "submissions": "id draft_id venue status submitted_month decision_month decision_expected_month reviewer_scores",
    "publications": "id draft_id venue topic tier published_month citations authors collab",
    "citations_monthly": "publication_id month citations",
    "grant_calls": "id agency award duration_months open_month last_month_to_apply decision_delay_months",
    "proposals": "id call_id agency topic status hours submitted_month decision_month attached",
    "awards": "id agency total monthly start_month end_month",
    "ledger": "month category amount note",
    "news": "month kind topic text",
    "preprint_feed": "month topic preprint_count",
    "conference_reports": "month venue topic accepted_papers",
    "events": "id kind status arrived_month respond_by_month details",
    "lab_monthly": "month budget reputation_standing students active_projects publications citations_total attention_used",
    "venues": "name kind deadlines decision_delay",
    "topics": "name",
}
HIDDEN = {"q", "quality", "hotness", "crowding", "morale", "ability", "feasible", "novelty"}


def _columns(api):
    obs = api.observer
    names = [r[0] for r in obs.writer.execute("select name from sqlite_master where type = 'table'")]
    return {t: [r[1] for r in obs.writer.execute(f"pragma table_info({t})")] for t in names}


def test_s14_the_19_tables_and_columns_and_no_hidden_column():
    """§14: exactly the 19 tables with their columns; §18 inv. 3: no hidden column name."""
    api = Api(World(seed=1))
    api.query("select 1")
    cols = _columns(api)
    assert cols == {t: c.split() for t, c in TABLES.items()}
    for t, cs in cols.items():
        for c in cs:
            assert not c.startswith("h_") and c not in HIDDEN, (t, c)


def _random_career(seed: int, months: int, query_every: int) -> tuple[World, Api]:
    """A random but valid-ish PI: random calls each month, queries only now and then."""
    rng = np.random.default_rng(seed)
    w = World(seed=seed)
    api = Api(w)

    def attempt(fn, *a):
        try:
            fn(*a)
        except ActionError:
            pass

    while w.s.month <= months and not w.s.finished:
        d = api.lab.dashboard()
        for a in api.recruit.applicants()[: int(rng.integers(0, 4))]:
            attempt(api.recruit.interview, a["id"])
            attempt(api.recruit.offer, a["id"])
        if rng.random() < 0.1:
            attempt(api.recruit.post_postdoc)
        if rng.random() < 0.08:
            attempt(api.recruit.hire_ra)
        staff = [s["id"] for s in d["staff"]]
        if staff and rng.random() < 0.05:
            attempt(api.recruit.dismiss, staff[0])
        people = [s["id"] for s in d["students"]] + staff
        if people:
            attempt(api.students.set_mentoring, {people[int(rng.integers(len(people)))]: float(rng.integers(0, 8))})
            members = list(dict.fromkeys(people[int(rng.integers(len(people)))] for _ in range(2)))
            if rng.random() < 0.4:
                attempt(
                    api.projects.start,
                    TOPICS[int(rng.integers(8))],
                    int(rng.integers(1, 4)),
                    members,
                    float(rng.integers(0, 3000)),
                )
        for pj in d["active_projects"]:
            if rng.random() < 0.03:
                attempt(api.projects.kill, pj["id"])
        for dr in d["available_drafts"]:
            attempt(api.papers.polish, dr["id"], 2)
            attempt(api.papers.revise, dr["id"], 3)
            attempt(api.papers.submit, dr["id"], VENUES[int(rng.integers(4))])
        for sub in d["submissions_under_review"]:
            if rng.random() < 0.05:
                attempt(api.papers.withdraw, sub["id"])
        for c in d["open_grant_calls"]:
            if rng.random() < 0.3:
                pubs = [p["id"] for p in api.papers.publications()][:2]
                attempt(api.grants.propose, c["id"], TOPICS[int(rng.integers(8))], 10, pubs)
        for ev in d["pending_events"]:
            attempt(
                api.events.respond,
                ev["id"],
                "support" if ev["kind"] == "student_crisis" else ("accept" if rng.random() < 0.6 else "decline"),
            )
        if rng.random() < 0.2:
            attempt(api.field.attend_conference)
        if query_every and w.s.month % query_every == 0:
            api.query("select count(*) from ledger")
        if w.s.month == months:
            break
        api.time.next_month()
    return w, api


def _rebuild(w) -> dict[str, list]:
    """The whole observable database written from scratch from the state (§14 semantics)."""
    s, cfg, m = w.s, w.cfg, w.s.month
    j = json.dumps
    out = {
        "students": [
            (
                p.id,
                p.name,
                p.role,
                p.status,
                p.arrived_month,
                p.left_month,
                max(0, (p.left_month if p.left_month is not None else m) - p.arrived_month),
                p.stipend,
                p.mentoring,
                p.papers_accepted,
                p.first_author_accepted,
                p.contract_end,
            )
            for p in s.people.values()
        ],
        "student_reports": [tuple(r) for r in s.student_reports],
        "applicants": [
            (
                a.id,
                a.season_year,
                a.pool,
                a.name,
                a.transcript,
                a.letter,
                a.interview_score if a.interviewed else None,
                a.status,
            )
            for a in s.applicants.values()
        ],
        "projects": [
            (
                p.id,
                p.topic,
                p.tier,
                p.status,
                p.started_month,
                p.ended_month,
                round(min(100.0, 100.0 * p.progress / p.work), 1),
                p.compute,
                j(p.members),
                p.draft_id,
                p.scoops,
            )
            for p in s.projects.values()
        ],
        "drafts": [
            (
                d.id,
                d.project_id,
                d.topic,
                d.tier,
                d.status,
                d.created_month,
                j(d.authors),
                d.polish_hours,
                d.revisions,
                int(d.salvage),
                int(d.collab),
            )
            for d in s.drafts.values()
        ],
        "submissions": [
            (
                x.id,
                x.draft_id,
                x.venue,
                x.status,
                x.submitted_month,
                x.decided_month,
                x.decision_month,
                j(x.reviewer_scores) if x.reviewer_scores is not None else None,
            )
            for x in s.submissions.values()
        ],
        "publications": [
            (p.id, p.draft_id, p.venue, p.topic, p.tier, p.published_month, p.citations, j(p.authors), int(p.collab))
            for p in s.publications.values()
            if p.published_month <= m
        ],
        "citations_monthly": [tuple(r) for r in s.citations_monthly],
        "grant_calls": [
            (
                c.id,
                c.agency,
                cfg.agencies[c.agency]["award"],
                cfg.agencies[c.agency]["duration"],
                c.open_month,
                c.close_month,
                cfg.agencies[c.agency]["delay"],
            )
            for c in s.calls.values()
            if c.open_month <= m
        ],
        "proposals": [
            (p.id, p.call_id, p.agency, p.topic, p.status, p.hours, p.submitted_month, p.decision_month, j(p.attached))
            for p in s.proposals.values()
        ],
        "awards": [
            (a.id, a.agency, a.total, round(a.monthly, 2), a.start_month, a.end_month) for a in s.awards.values()
        ],
        "ledger": [tuple(r) for r in s.ledger],
        "news": [tuple(r) for r in s.news],
        "preprint_feed": [tuple(r) for r in s.preprints],
        "conference_reports": [tuple(r) for r in s.conference_reports],
        "events": [(e.id, e.kind, e.status, e.month, e.respond_by, j(e.details)) for e in s.events.values()],
        "lab_monthly": [
            (
                r["month"],
                r["budget"],
                r["reputation_standing"],
                r["students"],
                r["active_projects"],
                r["publications"],
                r["citations_total"],
                r["attention_used"],
            )
            for r in s.lab_monthly
        ],
        "venues": [
            (v, cfg.venues[v]["kind"], j([d if d else 12 for d in cfg.venues[v]["deadlines"]]), cfg.venues[v]["delay"])
            for v in VENUES
        ],
        "topics": [(t,) for t in TOPICS],
    }
    return out


def _mirror(api) -> dict[str, list]:
    obs = api.observer
    obs.sync()
    return {t: [tuple(r) for r in obs.writer.execute(f"select * from {t}")] for t in TABLES}


def _canon(rows):
    return sorted(rows, key=repr)


@pytest.mark.parametrize("seed,months,query_every", [(1, 40, 0), (2, 30, 7), (3, 26, 1), (4, 60, 13)])
def test_s14_incremental_mirror_equals_rebuild(seed, months, query_every):
    """§14: the incrementally kept mirror equals a from-scratch rebuild, however rarely it was
    queried (entities born and finished between two queries included)."""
    w, api = _random_career(seed, months, query_every)
    mirror, rebuilt = _mirror(api), _rebuild(w)
    for t in TABLES:
        assert _canon(mirror[t]) == _canon(rebuilt[t]), t
    assert len(rebuilt["students"]) > 0 and len(rebuilt["ledger"]) > 10


def test_s18_inv4_no_hidden_tokens_in_outputs_after_18_months():
    """§18 inv. 4: dashboard/list outputs after 18 months contain none of h_ability, h_morale,
    h_quality, novelty, h_feasible, nor a "q" key."""
    w, api = _random_career(5, 18, 3)
    outputs = [
        api.lab.dashboard(),
        api.lab.ledger(500),
        api.lab.attention(),
        api.recruit.applicants(),
        api.students.list(),
        api.projects.list(),
        api.papers.drafts(),
        api.papers.submissions(),
        api.papers.publications(),
        api.grants.calls(),
        api.grants.proposals(),
        api.grants.awards(),
        api.field.news(500),
        api.field.preprints(20),
        api.field.conference_report(),
        api.events.pending(),
    ]
    outputs += [api.students.reports(p["id"], 20) for p in api.students.list()]
    assert w.s.month >= 18

    def keys(x):
        if isinstance(x, dict):
            for k, v in x.items():
                yield k
                yield from keys(v)
        elif isinstance(x, list):
            for v in x:
                yield from keys(v)

    for out in outputs:
        text = json.dumps(out)
        for token in ("h_ability", "h_morale", "h_quality", "novelty", "h_feasible"):
            assert token not in text
        assert "q" not in set(keys(out))
        for hidden in ("ability", "morale", "quality", "feasible", "hotness", "crowding", "resilience", "independence"):
            assert hidden not in set(keys(out))


@pytest.mark.parametrize(
    "sql",
    [
        "PRAGMA table_info(students)",
        "pragma query_only = OFF",
        "ATTACH DATABASE ':memory:' AS x",
        "INSERT INTO topics VALUES ('x')",
        "update ledger set amount = 1e9",
        "DELETE FROM ledger",
        "CREATE TABLE t (x)",
        "DROP TABLE ledger",
        "select 1; select 2",
        "select 1; delete from ledger",
        "WITH x AS (SELECT 1) DELETE FROM ledger",
        "WITH x AS (SELECT 1) INSERT INTO topics VALUES ('y')",
        "SELECT load_extension('libc.so.6')",
        "select * from nosuchtable",
        "select",
        "",
        "   ",
        "VACUUM",
        "select 1 -- ok\n; drop table ledger",
        "select length(zeroblob(2000000000))",
        "select length(randomblob(500000000))",
        "select \x00 1",
        "select '\ud800'",
        "REINDEX",
        "ANALYZE",
    ],
)
def test_s14_query_refuses_everything_but_one_select(sql):
    """§14/§15 query: one read-only SELECT/WITH only; anything else is a clear ``sql_error``
    and changes nothing."""
    w = World(seed=1)
    api = Api(w)
    before = api.query("select count(*) n from ledger") + api.query("select count(*) n from topics")
    digest = w.digest()
    with pytest.raises(ActionError) as e:
        api.query(sql)
    assert e.value.code == "sql_error" and e.value.message
    assert api.query("select count(*) n from ledger") + api.query("select count(*) n from topics") == before
    assert w.digest() == digest


@pytest.mark.parametrize("bad", [None, 1, 2.5, b"select 1", ["select 1"], {"sql": "select 1"}])
def test_s14_query_non_strings(bad):
    """§15: query(sql) must be a string."""
    api = Api(World(seed=1))
    with pytest.raises(ActionError) as e:
        api.query(bad)
    assert e.value.code == "sql_error" and "string" in e.value.message


def test_s14_runaway_recursive_cte_is_stopped_and_rows_capped():
    """§14: a runaway recursive CTE is interrupted; results are capped with a ``_truncated`` note."""
    w = World(seed=1)
    api = Api(w)
    with pytest.raises(ActionError) as e:
        api.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
    assert e.value.code == "sql_error" and "too long" in e.value.message
    cap = w.cfg.query_max_rows
    rows = api.query(
        f"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT {cap + 50}) SELECT x FROM c"
    )
    assert len(rows) == cap + 1 and rows[-1] == {"_truncated": rows[-1]["_truncated"]}
    assert f"{cap + 50}" in rows[-1]["_truncated"]
    assert rows[0] == {"x": 1} and rows[cap - 1] == {"x": cap}
    rows = api.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c")
    assert len(rows) == cap + 1 and "_truncated" in rows[-1]
    assert api.query("with t as (select name from topics) select count(*) n from t") == [{"n": 8}]
    # no giant value from one function call (printf yields NULL past the length limit)
    assert api.query("select length(printf('%.*c', 200000000, 'x')) n") == [{"n": None}]


def test_s14_mirror_reflects_actions_within_the_month():
    """§14: rebuilt for every query, so actions taken earlier in the month show at once."""
    w = World(seed=3)
    api = Api(w)
    assert api.query("select count(*) n from students") == [{"n": 0}]
    rid = api.recruit.hire_ra()["staff_id"]
    assert api.query("select id, role, status from students") == [{"id": rid, "role": "ra", "status": "active"}]
    api.students.set_mentoring({rid: 3})
    assert api.query("select mentoring_hours from students") == [{"mentoring_hours": 3.0}]
    api.grants.propose("TIF-rolling", "theory", 5)
    assert api.query("select id, status from proposals") == [{"id": "PR001", "status": "pending"}]
    assert api.query("select category, amount from ledger") == [{"category": "proposal", "amount": -500.0}]


@pytest.mark.parametrize(
    "sql",
    [
        "select hex(fts3_tokenizer('simple'))",
        "select fts3_tokenizer('simple', x'00')",
        "select load_extension('libx')",
        "select sqlite_version()",
        "select sqlite_compileoption_get(0)",
        "select randomblob(100000000)",
        "select zeroblob(100000000)",
        "select sum(amount) from ledger where month > (select length(sqlite_source_id()))",
    ],
)
def test_s14_query_refuses_functions_outside_the_allow_list(sql):
    """Only core SQL functions may be called (no native pointers, no introspection, no blobs)."""
    api = Api(World(WorldConfig(), 3))
    with pytest.raises(ActionError) as err:
        api.query(sql)
    assert err.value.code == "sql_error"
    assert "not available" in err.value.message


def test_s14_query_allows_core_functions():
    """Aggregates, string, math, date, json and window functions work."""
    api = Api(World(WorldConfig(), 3))
    rows = api.query(
        "select upper(name) as u, row_number() over (order by name) as r, round(pi(), 2) as p, "
        "json_extract('{\"a\": 1}', '$.a') as j, length(name) as n from topics order by name limit 1"
    )
    assert rows == [{"u": "AI4SCIENCE", "r": 1, "p": 3.14, "j": 1, "n": 10}]


def test_s14_expensive_functions_are_bounded_by_wall_clock():
    """A query whose rows each call an expensive function (few VM steps, much time) is stopped
    by the wall-clock bound (the refusal names it), not left to run for minutes."""
    api = Api(World(WorldConfig(), 3))
    sql = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<100000) "
        "SELECT count(*) AS n FROM c WHERE length(printf('%.*c', 999990 + x % 7, 'x')) > 0"
    )
    with pytest.raises(ActionError) as err:
        api.query(sql)
    assert "ran too long" in err.value.message


def test_s14_result_size_is_capped_before_rows_are_built():
    """Sixty 1 MB strings exceed the total-result cap and are refused with a clear message."""
    api = Api(World(WorldConfig(), 3))
    sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<60) SELECT printf('%.*c', 999999, 'x') FROM c"
    with pytest.raises(ActionError) as err:
        api.query(sql)
    assert "larger than" in err.value.message


def test_s14_time_running_out_while_counting_extra_rows_still_returns_the_rows(monkeypatch):
    """§14: once the first ``query_max_rows`` rows are in hand, a budget that runs out while
    the rest are only being counted yields those rows and a truncation note with a lower
    bound ("N+ rows"), not a refusal (under load the same query must not flip to an error
    after its rows were read)."""
    import world.observe as observe

    monkeypatch.setattr(observe, "QUERY_SECONDS", 0.3)
    w = World(seed=1)
    api = Api(w)
    cap = w.cfg.query_max_rows
    rows = api.query(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) "
        # the first cap + 1 rows are cheap, each later one builds a fresh ~100 kB string
        f"SELECT x FROM c WHERE x <= {cap + 1} OR length(printf('%.*c', 100000 + x % 7, 'x')) > 0"
    )
    assert len(rows) == cap + 1 and rows[cap - 1] == {"x": cap}
    note = rows[-1]["_truncated"]
    assert f"showing {cap} of " in note and "+ rows" in note
    total = int(note.split(" of ")[1].split("+")[0].replace(",", ""))
    assert cap < total < cap + 100_000
