"""A scripted, deterministic PI for the month-report tests (MECHANICS Decisions 8).

It exercises every kind of month-report fact: offers, postdoc searches, projects (and so
drafts, dead ends and scoops), submissions and publications, proposals, events answered
or left to expire, conference trips. It reads only the dashboard, so it is stable under
refactors of the API's other reads.
"""

from __future__ import annotations

from world.api import ActionError, Api
from world.config import WorldConfig
from world.engine import World


def scripted_month(api: Api) -> None:
    """One month of a busy PI who leaves every other event unanswered (so some expire)."""
    d = api.lab.dashboard()
    m = d["month"]
    if m % 12 == 1:
        apps = sorted(api.recruit.applicants(), key=lambda a: -(a["transcript"] + a["letter"]))
        for a in apps[:4]:
            try:
                api.recruit.offer(a["id"])
            except ActionError:
                pass
    if m in (2, 9, 26):
        try:
            api.recruit.post_postdoc()
        except ActionError:
            pass
    studs = [s["id"] for s in d["students"]]
    if studs:
        try:
            api.students.set_mentoring({s: (5.0 if i % 2 else 1.0) for i, s in enumerate(studs)})
        except ActionError:
            pass
    busy = {x for p in d["active_projects"] for x in p["members"]}
    idle = [s for s in studs if s not in busy]
    while idle:
        team = idle[:2]
        try:
            api.projects.start(("reasoning", "ai4science", "sparse_models")[m % 3], 1 + (m % 3), team, 800)
        except ActionError:
            break
        idle = idle[2:]
    for dr in d["available_drafts"]:
        try:
            api.papers.polish(dr["id"], 3)
        except ActionError:
            pass
        for v in ("NAIC", "CLAR", "JMR", "W-SHOP"):
            try:
                api.papers.submit(dr["id"], v)
                break
            except ActionError:
                pass
    pubs = [p["id"] for p in api.papers.publications()][-3:]
    for c in d["open_grant_calls"]:
        try:
            api.grants.propose(c["id"], "reasoning", 25, pubs)
        except ActionError:
            pass
    for i, e in enumerate(d["pending_events"]):
        if (m + i) % 2:
            continue
        try:
            api.events.respond(e["id"], "support" if e["kind"] == "student_crisis" else "accept")
        except ActionError:
            pass
    if m % 9 == 0:
        try:
            api.field.attend_conference()
        except ActionError:
            pass


def play(seed: int, months: int | None = None, config: WorldConfig | None = None) -> tuple[World, list[dict]]:
    """Play the scripted PI through ``time.next_month()``; returns the world and every
    ``"report"`` the API returned, in order."""
    w = World(config if config is not None else WorldConfig(), seed)
    api = Api(w)
    reports: list[dict] = []
    while not w.finished and (months is None or w.month < months):
        scripted_month(api)
        out = api.time.next_month()
        if isinstance(out, dict) and "report" in out:
            reports.append(out["report"])
    return w, reports
