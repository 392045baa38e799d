"""MECHANICS §15 (agent API): every call, its arguments, results and errors."""

from __future__ import annotations

import pytest

from world.api import API_CALLS, REQUIRED, ActionError, Api, replay
from world.config import TOPICS
from world.engine import World

from .test_mech_s14_database import _random_career

R = REQUIRED
EXPECTED = {
    "lab": {
        "dashboard": (),
        "ledger": (("n", 20),),
        "attention": (),
        "rules": (),
        "explain": (("kind", R), ("id", "")),
    },
    "recruit": {
        "applicants": (),
        "interview": (("ids", R),),
        "offer": (("applicant_id", R),),
        "post_postdoc": (),
        "renew_postdoc": (("postdoc_id", R),),
        "hire_ra": (),
        "hire_manager": (),
        "dismiss": (("staff_id", R),),
    },
    "students": {"list": (), "set_mentoring": (("hours", R),), "reports": (("student_id", R), ("n", 6))},
    "projects": {
        "list": (),
        "start": (("topic", R), ("tier", R), ("members", R), ("monthly_compute", 0)),
        "set_compute": (("project_id", R), ("monthly_compute", R)),
        "assign": (("project_id", R), ("student_id", R)),
        "unassign": (("project_id", R), ("student_id", R)),
        "kill": (("project_id", R),),
    },
    "papers": {
        "drafts": (),
        "polish": (("draft_id", R), ("hours", R)),
        "submit": (("draft_id", R), ("venue", R)),
        "revise": (("draft_id", R), ("hours", R)),
        "withdraw": (("submission_id", R),),
        "submissions": (),
        "publications": (),
    },
    "grants": {
        "calls": (),
        "propose": (("call_id", R), ("topic", R), ("hours", R), ("attach", None)),
        "proposals": (),
        "awards": (),
    },
    "field": {
        "news": (("n", 20),),
        "preprints": (("n_months", 3),),
        "conference_report": (),
        "attend_conference": (),
        "topics": (),
    },
    "events": {"pending": (), "respond": (("event_id", R), ("action", R))},
    "time": {"next_month": (), "last_report": ()},
}
READS = {
    ("lab", "dashboard"),
    ("lab", "ledger"),
    ("lab", "attention"),
    ("lab", "explain"),
    ("recruit", "applicants"),
    ("students", "list"),
    ("students", "reports"),
    ("projects", "list"),
    ("papers", "drafts"),
    ("papers", "submissions"),
    ("papers", "publications"),
    ("grants", "calls"),
    ("grants", "proposals"),
    ("grants", "awards"),
    ("field", "news"),
    ("field", "preprints"),
    ("field", "conference_report"),
    ("field", "topics"),
    ("events", "pending"),
    ("time", "last_report"),
    ("lab", "rules"),
}


def test_s15_every_call_with_its_parameters():
    """§15: the 39 engine calls (plus query), Decisions 8's ``time.last_report``, issue 9's
    ``lab.rules`` and issue 27's ``lab.explain`` (a read), with the documented parameters and
    defaults."""
    got = {ns: {m: spec.params for m, spec in calls.items()} for ns, calls in API_CALLS.items()}
    assert got == EXPECTED
    assert sum(len(c) for c in got.values()) == 39 + 3
    for ns, calls in API_CALLS.items():
        for m, spec in calls.items():
            assert spec.mutating == ((ns, m) not in READS), (ns, m)
            assert spec.doc


def test_s15_result_shapes():
    """§15 result fields of the reading calls and of the dashboard."""
    w, api = _random_career(11, 20, 5)
    d = api.lab.dashboard()
    for k in (
        "month",
        "label",
        "months_total",
        "budget",
        "est_monthly_burn",
        "runway_months",
        "attention",
        "staff",
        "lab_standing",
        "students",
        "active_projects",
        "available_drafts",
        "submissions_under_review",
        "proposals_pending",
        "active_awards",
        "pending_events",
        "venue_deadlines_this_month",
        "open_grant_calls",
        "notes",
    ):
        assert k in d
    assert d["label"] == f"Y{(w.s.month - 1) // 12 + 1}M{(w.s.month - 1) % 12 + 1}"
    assert set(d["attention"]) >= {"base", "oversight_tax", "pool", "mentoring_reserved", "oneoff_used", "left"}
    assert set(api.lab.attention()) >= {"pool", "mentoring_reserved", "oneoff_used", "left"}
    shapes = {
        "students": {
            "id",
            "name",
            "role",
            "months_in",
            "stipend",
            "mentoring_hours",
            "papers_accepted",
            "last_report_quality",
            "last_meeting_sentiment",
            "contract_end",
        },
        "active_projects": {"id", "topic", "tier", "progress_pct", "members", "monthly_compute"},
        "available_drafts": {"id", "topic", "tier", "created", "salvage", "collab", "polish_hours", "revisions"},
        "submissions_under_review": {"id", "draft_id", "venue", "decision_expected_month"},
        "proposals_pending": {"id", "agency", "topic", "decision_expected_month"},
        "active_awards": {"id", "agency", "monthly_income", "ends_month"},
        "pending_events": {"id", "kind", "respond_by_month", "details"},
        "open_grant_calls": {"id", "agency", "award", "duration_months", "last_month_to_apply"},
        "staff": {"id", "name", "role", "monthly_cost"},
    }
    for key, fields in shapes.items():
        for row in d[key]:
            assert set(row) >= fields, key
    for row in api.lab.ledger(5):
        assert set(row) == {"month", "category", "amount", "note"}
    for row in api.students.list():
        assert set(row) >= {
            "id",
            "name",
            "role",
            "status",
            "arrived_month",
            "months_in",
            "mentoring_hours",
            "papers_accepted",
            "first_author_accepted",
            "contract_end",
        }
    for row in api.projects.list():
        assert set(row) >= {
            "id",
            "topic",
            "tier",
            "status",
            "progress_pct",
            "members",
            "monthly_compute",
            "started_month",
            "draft_id",
        }
    for row in api.papers.drafts():
        assert set(row) >= {
            "id",
            "topic",
            "tier",
            "status",
            "created_month",
            "authors",
            "polish_hours",
            "revisions",
            "salvage",
            "collab",
        }
    for row in api.papers.submissions():
        assert set(row) >= {
            "id",
            "draft_id",
            "venue",
            "status",
            "submitted_month",
            "decision_month",
            "decision_expected_month",
            "reviewer_scores",
        }
        assert (row["decision_month"] is None) == (row["status"] == "under_review")
    for row in api.papers.publications():
        assert set(row) >= {"id", "venue", "topic", "tier", "published_month", "citations", "authors", "collab"}
        assert row["published_month"] <= w.s.month
    for row in api.grants.proposals():
        assert set(row) >= {"id", "call_id", "agency", "topic", "status", "submitted_month", "decision_month"}
    for row in api.grants.awards():
        assert set(row) >= {"id", "agency", "total", "monthly", "start_month", "end_month"}
    for row in api.field.news(5):
        assert set(row) == {"month", "kind", "topic", "text"}
    assert {r["month"] for r in api.field.preprints(2)} == {w.s.month, w.s.month - 1}
    assert len(api.field.conference_report()) <= 32
    assert api.field.topics() == list(TOPICS)
    for row in api.events.pending():
        assert set(row) == {"id", "kind", "arrived_month", "respond_by_month", "details"}
    assert isinstance(api.query("select * from ledger limit 3"), list)


def test_s15_action_log_replays_the_career():
    """§15: every accepted mutating call is logged (month, call, args); the log replays the career."""
    w, api = _random_career(12, 24, 4)
    assert w.s.action_log and all(isinstance(r[1], str) and "." in r[1] for r in w.s.action_log)
    assert not any(r[1].split(".")[1] in {m for _, m in READS} for r in w.s.action_log)
    again = replay(w.cfg, w.seed, w.s.action_log)
    assert again.digest() == w.digest()


def test_s15_after_the_end_only_reading_works():
    """§1/§15: after the horizon every mutating call is refused (career_over) and changes nothing;
    reading calls and query still work."""
    w = World(seed=3)
    api = Api(w)
    while not w.s.finished:
        out = api.time.next_month()
    assert out["simulation_over"] is True and "impact" in out
    before = w.digest()
    for ns, calls in API_CALLS.items():
        for m, spec in calls.items():
            if not spec.mutating:
                continue
            args = [x if x is not R else "S001" for _, x in spec.params if x is R]
            with pytest.raises(ActionError) as e:
                getattr(getattr(api, ns), m)(*args)
            assert e.value.code == "career_over" and "simulation is over" in e.value.message
    assert w.digest() == before
    api.lab.dashboard()
    api.query("select count(*) from news")
    assert w.digest() == before


def test_s15_wrong_arity_and_unknown_calls_are_action_errors():
    """§15: a wrong call shape is refused with one error type naming the usage."""
    api = Api(World(seed=1))
    cases = [
        ("lab", "dashboard", [1], {}),
        ("papers", "polish", [], {}),
        ("papers", "polish", [], {"bogus": 1}),
        ("nope", "x", [], {}),
        ("lab", "nope", [], {}),
        ("query", "query", [], {}),
        ("query", "query", ["select 1", 2], {}),
        ("lab", "dashboard", [], {3: 4}),
        (None, "x", [], {}),
        ("lab", ["dashboard"], [], {}),
        ("memory", "write", [], {}),
        ("lab", "ledger", "ab", {}),
    ]
    for ns, m, a, k in cases:
        with pytest.raises(ActionError):
            api.call(ns, m, a, k)
    with pytest.raises(ActionError) as e:
        api.papers.polish()
    assert "usage" in e.value.message
