"""QA (issue 27, seed 2718): the start form created PJ002 with only RA002 and said nothing about
authorship, while the header warned about a project left with only RAs after a student quit;
PJ008's draft came out with authors "—". A project started with no member who can author now
says so, in the world's words (``world.explain.authorless_team_note``), in the reply to
``projects.start`` and in the start form's summary before OK; one with a PhD student or
postdoc says nothing of it."""

from __future__ import annotations

import pytest

from tests.careers import play_to
from world import explain
from world.api import Api

from .conftest import build, new_world, press
from .test_published_after_the_horizon import _shown


def test_the_note_names_who_cannot_author_and_what_the_draft_would_be():
    """Only RAs: effort but no author (reputation only if accepted); only a manager: no
    progress; an RA and a manager: both said; any PhD student or postdoc, or no member: none.
    The note reads only the roles given (public: the students table), no hidden value."""
    ra = explain.authorless_team_note({"RA001": "ra", "RA002": "ra"}, ["RA001", "RA002"])
    assert ra.startswith("no member can author (only RA001, RA002: an RA adds effort, never an author): ")
    assert "its draft would have no author: reputation if accepted" in ra and ra.endswith("to give it one")
    manager = explain.authorless_team_note({"MGR001": "manager"}, ["MGR001"])
    assert "(only MGR001: a manager adds no effort and never authors): no progress;" in manager
    both = explain.authorless_team_note({"RA001": "ra", "MGR001": "manager"}, ["RA001", "MGR001"])
    assert "an RA adds effort, never an author; a manager adds no effort" in both
    for role in ("phd", "postdoc"):
        assert explain.authorless_team_note({"RA001": "ra", "S001": role}, ["RA001", "S001"]) == ""
    assert explain.authorless_team_note({}, []) == ""


def test_projects_start_replies_with_the_note_only_without_an_author():
    """The API's reply to starting a project with only an RA carries the note; with a PhD
    student among the members, no note (month 14 of a played career, before the horizon)."""
    w = new_world()
    api, _ = play_to(w, 14)
    ra = api.recruit.hire_ra()["staff_id"]
    reply = api.projects.start("reasoning", 1, [ra], 0)
    assert reply["note"] == explain.authorless_team_note({ra: "ra"}, [ra])
    phd = next(s["id"] for s in api.lab.dashboard()["students"] if s["role"] == "phd")
    busy = {m for p in api.lab.dashboard()["active_projects"] for m in p["members"]}
    if phd in busy:  # a member of a running project: free them for the new one
        pj = next(p["id"] for p in api.lab.dashboard()["active_projects"] if phd in p["members"])
        api.projects.unassign(pj, phd)
    api.projects.kill(reply["project_id"])
    ra2 = api.recruit.hire_ra()["staff_id"]
    assert "note" not in api.projects.start("reasoning", 1, [ra2, phd], 0)


@pytest.mark.asyncio
async def test_the_start_form_says_a_team_of_ras_cannot_author_before_ok(tmp_path):
    """Month 1 with one RA (the form ticks the idle RA): the summary ends with the world's note
    on the team, whole at 80x24; the reply after OK says it too."""
    w = new_world()
    ra = Api(w).recruit.hire_ra()["staff_id"]
    note = explain.authorless_team_note({ra: "ra"}, [ra])
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "3", panel="projects")
        await press(pilot, "s", to="ActionForm")
        assert note in _shown(app, "#form-summary"), _shown(app, "#form-summary")
