"""Warnings before losses, from observable data only: each one fires on its condition and
names the panel and key that address it."""

from __future__ import annotations

import pytest

from pibench_tui.tui import alerts as alerts_mod
from pibench_tui.tui.alerts import alerts
from pibench_tui.tui.game import Game
from world import explain
from world.api import Api

from .conftest import new_world


def _kinds(game: Game) -> dict[str, object]:
    return {a.kind: a for a in alerts(game)}


def test_idle_people_and_offer_deadline_and_call_closing():
    """Two idle RAs are named (3, s); in month 2 offers close next month (2, o)."""
    w = new_world()
    api = Api(w)
    api.recruit.hire_ra()
    api.recruit.hire_ra()
    game = Game(w)
    k = _kinds(game)
    assert "RA001" in k["idle"].text and k["idle"].key == "s" and k["idle"].tab == "projects"
    api.projects.start("reasoning", 1, ["RA001", "RA002"], 1000)
    assert "idle" not in _kinds(game)
    api.time.next_month()
    k = _kinds(game)
    assert k["offers"].key == "o" and "month 3" in k["offers"].text


def test_offer_warnings_follow_the_seasons_calendar():
    """The offer warnings come from the season's offer months in ``lab.rules()`` (nothing typed
    in): with offers in months 1-3 month 2 warns that they close next month and month 3 that it
    is the last; with a calendar whose offers end in month 2, month 1 and month 2 do."""
    w = new_world()
    api = Api(w)
    game = Game(w)
    seen = []
    for _ in range(3):
        seen.append(_kinds(game).get("offers"))
        api.time.next_month()
    assert seen[0] is None and "close at the end of month 3" in seen[1].text and "Month 3 is the last" in seen[2].text
    w = new_world()
    api = Api(w)
    game = Game(w)
    game.rules["season"]["offer_months"] = [1, 2]
    assert "close at the end of month 2" in _kinds(game)["offers"].text
    api.time.next_month()
    assert "Month 2 is the last" in _kinds(game)["offers"].text


def test_runway_shorter_than_the_months_left_is_an_error():
    """Six RAs and heavy compute on the standard budget: the runway is shorter than the months
    left, and the warning says around which month the lab would collapse."""
    w = new_world()
    api = Api(w)
    for _ in range(6):
        api.recruit.hire_ra()
    api.projects.start("reasoning", 3, [f"RA00{i}" for i in range(1, 7)], 40000)
    game = Game(w)
    runway = _kinds(game)["runway"]
    assert runway.key == "g" and "collapses" in runway.text
    dash = game.dashboard()
    assert dash["runway_months"] < dash["months_total"]


def test_the_runway_warning_counts_the_pay_of_accepted_students_not_arrived_yet():
    """QA (issue 27): the header said "run 60 mo" in month 4 with accepted PhD students arriving
    next month; the dashboard's runway counts only the people in the lab (§2). With a runway
    longer than the months left now but shorter once their pay (``pay.phd`` each) is added, the
    warning names them, the month they arrive and the runway then; with no arrivals, none; with
    a runway already short, the warning adds what their pay does to it."""
    from .test_late_qa import accepted_offers_world

    w, api, accepted = accepted_offers_world()
    game = Game(w)
    coming = alerts_mod.arrivals(game, w.month)
    assert coming is not None and coming.names == accepted and coming.month == 5
    assert coming.pay == len(accepted) * game.rules["pay"]["phd"]
    burn = 1000
    dash = game.dashboard()
    left = dash["months_total"] - dash["month"] + 1
    dash = {**dash, "budget": (left + 3) * burn, "est_monthly_burn": burn, "runway_months": left + 3.0}
    later = dash["budget"] / (burn + coming.pay)
    assert later < left
    (alert,) = alerts_mod.runway_alerts(game, dash)
    assert alert.short == f"runway {later:.0f} < {left} mo left after arrivals", alert
    assert f"Runway {left + 3.0:.1f} months now, but the pay of " in alert.text
    assert f"arriving in month 5 (${coming.pay:,.0f} a month), cuts it to about {later:.1f} months" in alert.text
    assert all(name in alert.text for name in accepted)
    assert f"around month {4 + int(later)}" in alert.text
    (short,) = alerts_mod.runway_alerts(game, {**dash, "runway_months": 10.0, "budget": 10 * burn})
    assert short.short == f"runway 10 < {left} mo left" and "cuts it to about" in short.text, short
    while w.month < 5:
        api.time.next_month()
    assert alerts_mod.arrivals(game, w.month) is None  # arrived: the dashboard's burn counts them
    assert not alerts_mod.runway_alerts(game, dash)


def test_deadline_next_month_only_with_a_draft_and_last_month_for_an_event():
    """NAIC's deadline next month is flagged only once a draft is available (month 8 of the
    standard seed, deadline in month 9: 4, p); an event at its last month is flagged (7, e)."""
    from .test_actions import _world_with_draft

    w = new_world()
    api = Api(w)
    api.time.next_month()
    assert "deadline" not in _kinds(Game(w))  # month 2: NAIC's deadline is next month, but no draft
    api.time.next_month()
    api.time.next_month()
    game = Game(w)
    pending = [e for e in game.dashboard()["pending_events"] if e["respond_by_month"] <= w.month]
    assert pending, "the standard seed has an event at its last month in month 4"
    assert _kinds(game)["event"].key == "e"
    w, _ = _world_with_draft()
    assert w.month == 8
    k = _kinds(Game(w))
    assert "NAIC" in k["deadline"].short and k["deadline"].key == "p" and "1 draft(s)" in k["deadline"].text


def test_mood_warning_comes_from_the_observable_reports():
    """The mood warning (world.explain.quit_warning, the one the header and the digest show)
    reads the student_reports rows: S001's two low moods (0.45, 0.40) warn, S002's fine ones
    (0.8, 0.7) do not, and a lab without researchers has no mood warning."""
    w = new_world()
    Api(w).recruit.hire_ra()
    assert "mood" not in _kinds(Game(w))
    cfg = w.cfg
    rows = {"S001": [(3, 0.45), (4, 0.40)], "S002": [(3, 0.8), (4, 0.7)]}

    def query_for(pid: str):
        def query(sql: str) -> list[dict]:
            if "from student_reports" in sql:
                return [{"month": m, "q": 0.5, "s": x} for m, x in rows[pid]]
            if "from students where id" in sql:
                return [{"id": pid, "name": pid, "role": "phd", "status": "active", "mentoring_hours": 5.0}]
            return []

        return query

    assert "(0.45, 0.40)" in (explain.quit_warning(query_for("S001"), cfg, "S001", 5) or "")
    assert explain.quit_warning(query_for("S002"), cfg, "S002", 5) is None


@pytest.mark.asyncio
async def test_exclamation_mark_goes_to_the_most_urgent_warning(tmp_path):
    """With two idle RAs, ! shows the Projects panel and names the key that starts a project."""

    from .conftest import build, press

    w = new_world()
    api = Api(w)
    api.recruit.hire_ra()
    api.recruit.hire_ra()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "exclamation_mark")
        assert app.tabs.active == "projects"
        assert any("Start a project (s)" in t for t, _ in app.toasts)


def test_call_closing_is_not_flagged_once_the_lab_has_a_proposal_in_it():
    """A BSF call in its last month is flagged (5, g) until the lab proposes to it; with a
    proposal pending in that call the warning is gone (nothing is about to be lost)."""
    w = new_world()
    api = Api(w)
    game = Game(w)
    for _ in range(12):
        closing = [
            c
            for c in game.dashboard()["open_grant_calls"]
            if c["last_month_to_apply"] == w.month and c["agency"] != "TIF"
        ]
        if closing:
            break
        api.time.next_month()
    assert closing, "no non-rolling call closes in the first year of the standard scenario"
    call = _kinds(game)["call"]
    assert call.key == "g" and closing[0]["id"] in call.text
    api.grants.propose(closing[0]["id"], "reasoning", 5)
    assert all(closing[0]["id"] not in a.text for a in alerts(game) if a.kind == "call")


def test_mood_warning_and_postdoc_search_name_the_scenarios_numbers():
    """A PhD student (the baseline's S001 at month 12) left without mentoring and put on one
    project more than the scenario's overload count is warned about with the scenario's
    numbers: "more than 2" and "at most 2 projects" in the default world, 3 under a scenario
    that allows 3; the postdoc search's description names the scenario's search time (2
    months, 4 months): nothing typed in. The warning is the real one (world.explain), read
    from the career's observable database."""
    import dataclasses

    from pibench_tui.tui.actions import ACTIONS_BY_ID
    from tests.careers import play_to
    from world.engine import World

    w = new_world()
    for overload, months in ((2, "2 months"), (3, "4 months")):
        cfg = dataclasses.replace(w.cfg, overload_projects=overload, postdoc_search_months=int(months[0]))
        world = World(cfg, w.seed)
        api, _ = play_to(world, 12, "baseline")
        api.students.set_mentoring({"S001": 0})
        for _ in range(overload):  # with the baseline's project: one more than the overload count
            api.projects.start("theory", 1, ["S001"], 0)
        api.time.next_month()
        api.time.next_month()
        game = Game(world)
        mood = next(a for a in alerts(game) if a.kind == "mood" and a.short == "S001 may quit")
        assert mood.key == "m"
        assert f"on {overload + 1} active projects (more than {overload} weighs on morale)" in mood.text
        assert f"keep them on at most {overload} projects (unassign, u)" in mood.text
        assert f"under {cfg.neglect_hours:g} h weighs on morale" in mood.text
        assert f"the search resolves {months} later" in ACTIONS_BY_ID["post_postdoc"].describe(game)


def test_the_always_open_call_is_the_scenarios_rolling_agency_not_tif_by_name():
    """The header's calendar leaves out, and the call-closing warning never flags, the calls of
    the agencies ``lab.rules()`` marks rolling: TIF in the standard scenario; under a scenario
    where BSF is rolling and TIF calls in month 1 only, the header names TIF's call and not
    BSF's, and TIF's call is flagged in its last month (2)."""
    import copy
    import dataclasses

    from pibench_tui.tui.widgets.header import calendar_label
    from world.engine import World

    w = new_world()
    game = Game(w)
    assert game.rolling_agencies == {"TIF"}
    assert "TIF" not in calendar_label(game.dashboard(), game.rolling_agencies)
    agencies = copy.deepcopy(w.cfg.agencies)
    agencies["TIF"].update(rolling=False, call_months=[1])
    agencies["BSF"].update(rolling=True, call_months=[])
    other = Game(World(dataclasses.replace(w.cfg, agencies=agencies), w.seed))
    assert other.rolling_agencies == {"BSF"}
    dash = other.dashboard()
    assert {c["agency"] for c in dash["open_grant_calls"]} == {"BSF", "TIF"}
    label = calendar_label(dash, other.rolling_agencies)
    assert "calls: TIF" in label and "BSF" not in label
    other.call("time.next_month")
    closing = [a for a in alerts(other) if a.kind == "call"]
    assert [a.short for a in closing] == ["TIF call closes"]


def test_mood_warning_waits_for_two_low_moods_in_a_row():
    """A recovering mood (0.23 then 0.69) is not "reports turned bad"; two low ones are
    (the live rule, world.explain.quit_warning, that the header and the digest show)."""
    cfg = new_world().cfg

    def query_of(moods: list[float]):
        def query(sql: str) -> list[dict]:
            if "from student_reports" in sql:
                return [{"month": i + 1, "q": 0.5, "s": m} for i, m in enumerate(moods)]
            if "from students where id" in sql:
                return [{"id": "S001", "name": "A", "role": "phd", "status": "active", "mentoring_hours": 5.0}]
            return []

        return query

    assert explain.quit_warning(query_of([0.23, 0.69]), cfg, "S001", 3) is None
    assert "meeting mood low two months running (0.45, 0.30)" in (
        explain.quit_warning(query_of([0.45, 0.3]), cfg, "S001", 3) or ""
    )


def test_a_departure_names_what_it_leaves_behind_then_the_orphan_stays_flagged():
    """Seed 1001's baseline: S001 quits in month 19. In month 20 one alert (the header's short
    form too) names the project left with no member as still billed and the draft with no
    author left, with the digest's sentences; from month 21 the project is flagged on its own
    with its monthly bill."""
    from tests.careers import play_to

    w = new_world(seed=1001)
    api, _ = play_to(w, 20, "baseline")
    game = Game(w)
    left = _kinds(game)["departure"]
    assert left.short == "S001 left: PJ002 billed, D001 no author" and left.key == "a"
    assert "left in month 19, leaving behind: project PJ002" in left.text and "still billed" in left.text
    assert "draft D001 has no author left" in left.text
    assert "orphan" not in _kinds(game)
    api.time.next_month()
    k = _kinds(game)
    assert "departure" not in k and k["orphan"].short == "PJ002 no member, billed $1,500/mo"


def test_standing_unknown_for_two_years_is_explained_with_the_record_and_what_moves_it():
    """A lab that does nothing stays at standing "unknown": after 23 closed months no alert,
    after 24 one naming the months, the lab's record (no paper, no grant, no talk) and the
    largest steps of the public table (from the config), addressed on the Papers panel (b):
    the header's text is the short form, the first digest shows the full explanation."""
    from world import explain

    w = new_world()
    api = Api(w)
    game = Game(w)
    for _ in range(explain.STANDING_STUCK_MONTHS - 1):
        api.time.next_month()
    assert "standing" not in _kinds(game)
    api.time.next_month()
    standing = _kinds(game)["standing"]
    assert standing.short == f"standing unknown {explain.STANDING_STUCK_MONTHS} mo" and standing.key == "b"
    naic = w.cfg.venues["NAIC"]["reputation"]
    assert "0 papers accepted, 0 grants funded, 0 invited talks given" in standing.digest
    assert f"an acceptance at NAIC (+{naic:.2f} in the public table)" in standing.digest
    assert standing.digest == api.lab.explain("standing")[0].upper() + api.lab.explain("standing")[1:] + "."
    assert f"a NAIC acceptance (+{naic:.2f})" in standing.text


def test_standing_unknown_is_explained_in_full_once_then_one_line_in_later_digests():
    """QA10 play: from month 25 the standing paragraph repeated in every month's digest. The
    digest of the month it first applies explains it in full; the next ones show one line
    with the lab's record (so a change to it shows) and where the full text was; the header's
    warning keeps its short form and lab.explain the full text."""
    from pibench_tui.tui.screens.digest import digest_lines

    w = new_world()
    game = Game(w)
    for _ in range(explain.STANDING_STUCK_MONTHS - 1):
        game.next_month()
    first = game.next_month()
    full = "\n".join(digest_lines(first, game))
    assert "the largest steps are an acceptance at" in full
    record = "the lab's record: 0 papers accepted, 0 grants funded, 0 invited talks given"
    for n in (1, 2):
        later = "\n".join(digest_lines(game.next_month(), game))
        assert "the largest steps" not in later and "drifts back slowly" not in later
        line = f"Standing still unknown ({explain.STANDING_STUCK_MONTHS + n} months); {record}"
        assert f"{line} (what moves it: month {first['month']}'s digest, or lab.explain('standing'))." in later
        assert "largest steps up" in _kinds(game)["standing"].text


def test_standing_leaving_unknown_after_the_warning_is_said_once():
    """The standing warning goes away when standing leaves "unknown": the digest of that month
    says so once ("Standing now low, after 30 months at unknown."); the next month, or after a
    run too short to have warned, nothing."""
    from pibench_tui.tui.alerts import standing_resolved

    stuck = explain.STANDING_STUCK_MONTHS

    def query_of(standings: list[str]):
        rows = [{"month": m + 1, "s": s} for m, s in enumerate(standings)]
        return lambda sql: rows

    run = ["unknown"] * (stuck + 6)
    assert (
        standing_resolved(query_of(run + ["low"]), stuck + 7)
        == f"Standing now low, after {stuck + 6} months at unknown."
    )
    assert standing_resolved(query_of(run + ["low", "low"]), stuck + 8) == ""
    assert standing_resolved(query_of(run), stuck + 6) == ""
    assert standing_resolved(query_of(["unknown"] * (stuck - 1) + ["low"]), stuck) == ""


def test_a_declined_offer_has_one_line_of_record_and_why_in_the_digest():
    """QA10 play: under a declined offer two ↳ lines said the same record twice (the pool's
    answers and the standing, then the why with the same answers and standing). A declined
    offer has one line, the why, holding both; an accepted one keeps its record line."""
    from pibench_tui.tui.screens.digest import digest_lines

    game = Game(new_world())
    for a in game.call("recruit.applicants")[:8]:
        game.call("recruit.offer", a["id"])
    game.next_month()
    game.next_month()
    lines = digest_lines(game.next_month(), game)
    answered = [i for i, line in enumerate(lines) if "[red]declined" in line or "[green]accepted" in line]
    declined = [i for i in answered if "[red]declined" in lines[i]]
    assert declined and len(declined) < len(answered)
    for i in answered:
        under = [line for line in lines[i + 1 : i + 3] if "↳" in line]
        assert len(under) == 1, lines[i : i + 3]
        if i in declined:
            assert "↳ why:" in under[0] and " accepted" in under[0] and "standing" in under[0]


@pytest.mark.asyncio
async def test_exclamation_mark_goes_through_every_warning_of_the_header(tmp_path):
    """QA: the header says '+3 more (!)' but ! showed the most urgent warning again at every
    press, so the others could not be read before the month closed. Each press shows the next
    warning (its panel, its text), most urgent first, and after the last the first again."""

    from .conftest import build, press

    w = new_world()
    api = Api(w)
    api.time.next_month()  # month 2: offers close next month
    api.recruit.hire_ra()
    api.recruit.hire_ra()  # two idle RAs
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        found = alerts(app.game)
        assert len(found) >= 2 and len({a.tab for a in found}) >= 2
        for i in range(len(found) + 1):
            told = len(app.toasts)
            await press(pilot, "exclamation_mark", until=lambda n=told: len(app.toasts) > n)
            want = found[i % len(found)]
            assert app.tabs.active == want.tab and app.toasts[-1][0] == want.text


@pytest.mark.asyncio
async def test_going_through_the_warnings_shows_one_toast_at_a_time(tmp_path):
    """QA at 80x24: five presses of ! stacked five toasts over the panel. The next warning of a
    cycle replaces the toasts shown: one shows at a time."""

    from .conftest import build, press, wait_for

    w = new_world()
    api = Api(w)
    api.time.next_month()
    api.recruit.hire_ra()
    api.recruit.hire_ra()
    app = build(w, tmp_path=tmp_path)
    app.NOTIFICATION_TIMEOUT = 3600
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        found = alerts(app.game)
        assert len(found) >= 2
        for i in range(len(found)):
            told = len(app.toasts)
            await press(pilot, "exclamation_mark", until=lambda n=told: len(app.toasts) > n)
            want = found[i].text
            await wait_for(pilot, lambda w=want: any(n.message == w for n in app._notifications), "its toast")
            assert len(app._notifications) == 1  # the warning toasts live 10 s: none expired since


def test_a_dead_end_alone_warns_in_the_header_and_the_help_lists_each_blow():
    """Issue 27 (quit warning on every blow): in seed 3's baseline career S001's project PJ004
    dead-ended at the close of month 30; in month 31 the header warns that S001 may quit and
    names it, though no mood or report reads low (before, only a rejection warned alone). The help's columns text lists every blow of world.explain, largest
    first as the scenario's impulses size them (a scenario that makes rejections the largest
    lists them first)."""
    import dataclasses

    from pibench_tui.tui.screens.help import columns_markdown
    from scenarios import load_scenario
    from world.api.cached import CachedApi
    from world.engine import World
    from world.policies import make_policy
    from world.runner import AgentView

    sc = load_scenario("standard", seed=3)
    w = World(sc.config, sc.seed)
    view, policy = AgentView(CachedApi(Api(w))), make_policy("baseline")
    while w.s.month < 31:
        m = w.s.month
        policy.act(view)
        if w.s.month == m:
            Api(w).time.next_month()
    moods = [a for a in alerts(Game(w)) if a.kind == "mood" and "S001" in a.short]
    assert moods and "project PJ004 dead-ended in month 30" in moods[0].text
    assert not any(sign in moods[0].text for sign in explain.READ_SIGNS)
    text = " ".join(columns_markdown(w.cfg).split())
    kinds = explain.blow_kinds(w.cfg)
    assert len(kinds) == len(explain.BLOWS) and "; ".join(kinds) in text
    assert kinds[0] == "a crisis of theirs left unanswered"
    swapped = dataclasses.replace(w.cfg, impulse_reject=w.cfg.impulse_crisis_ignored * 2)
    assert "largest first: a rejection of their draft;" in " ".join(columns_markdown(swapped).split())


def test_a_departure_names_a_project_left_with_only_an_ra_as_no_author_left():
    """QA: a student quit and her project was left with only an RA, who adds effort but never
    authors (MECHANICS §5 Staff, §6 draft authors); the departure note named nothing. Seed 1001's
    baseline with RA001 put on PJ002 in month 19 (S001 quits at its close): the digest's "left
    behind" line and the header's departure alert name PJ002 as having no member who can author,
    what that means (it still progresses, its draft would have no author) and the remedy (a or
    k); from the month after, the project is flagged on its own."""
    from pibench_tui.tui.screens.digest import digest_lines
    from tests.careers import play_to

    w = new_world(seed=1001)
    api, _ = play_to(w, 19, "baseline")
    assert api.recruit.hire_ra()["ok"] and api.projects.assign("PJ002", "RA001")["ok"]
    game = Game(w)
    digest = "\n".join(digest_lines(game.next_month(), game))
    line = "left behind: project PJ002 (sparse_models, "
    assert line in digest and "has no member who can author left (only RA001" in digest
    assert "its draft would have no author" in digest and "assign an author (a) or stop it (k)" in digest
    left = _kinds(game)["departure"]
    assert left.short.startswith("S001 left: PJ002 no author") and left.key == "a" and left.tab == "projects"
    assert "project PJ002 (sparse_models, " in left.text and "no member who can author left" in left.text
    api.time.next_month()
    k = _kinds(game)
    assert k["orphan"].short == "PJ002 no author, billed $1,500/mo" and k["orphan"].key == "a"


def _left_with_drafts(statuses: list[str]):
    """A quiet hand-made lab whose only student (S001) wrote one draft per entry of ``statuses``
    (``"under_review"``, ``"rejected"``: available after a rejection, ``"available"``: never
    submitted) and quit in month 1; returned at the open of month 2 with its Game."""
    from tests.world.mechanics_helpers import add_person, make_world
    from world.state import Draft, Submission

    w = make_world()
    s = w.s
    p = add_person(w)
    for n, status in enumerate(statuses):
        d = Draft(id=s.next_id("D"), project_id=None, topic="reasoning", tier=2, q=0.5, created_month=1, authors=[p.id])
        d.status = "under_review" if status == "under_review" else "available"
        s.drafts[d.id] = d
        if status != "available":
            sub = Submission(id=s.next_id("SUB"), draft_id=d.id, venue="JMR", submitted_month=1, decision_month=30 + n)
            sub.status = "under_review" if status == "under_review" else "reject"
            s.submissions[sub.id] = sub
    p.status, p.left_month = "quit", 1
    Api(w).time.next_month()
    return w, Game(w)


def test_a_departure_offers_revise_only_when_a_draft_left_behind_can_be_revised():
    """QA (issue 27): after a student left, the header read "S002 left: D005 no author, D006 no
    author, D008 no author [v]" while all three were under review, so revise (v) could not act.
    With every draft under review the warning names no key and no "revise"; with one rejected
    and available it offers v (the world's check, ``papers.revise_refusal``) and says revise
    for that draft only; with one never submitted it offers submit (b), "polish and submit"."""
    w, game = _left_with_drafts(["under_review"] * 3)
    left = _kinds(game)["departure"]
    assert left.short == "S001 left: D001 no author, D002 no author, D003 no author", left
    assert left.key == "" and "revise" not in left.text, left
    assert "draft D001 has no author left in the lab: it is under review and stays the lab's" in left.text
    w, game = _left_with_drafts(["under_review", "rejected"])
    left = _kinds(game)["departure"]
    assert left.key == "v", left
    assert "D001 has no author left in the lab: it is under review" in left.text
    assert "D002 has no author left in the lab: you can still polish, revise and submit it" in left.text
    assert Api(w).papers.revise("D002", 5)["revisions"] == 1  # v acts on it
    assert _kinds(game)["departure"].key == "b"  # revised this month: submit is what acts now
    w, game = _left_with_drafts(["available"])
    left = _kinds(game)["departure"]
    assert left.key == "b" and "D001 has no author left in the lab: you can still polish and submit it" in left.text


def test_the_digest_says_when_an_award_paid_its_last_installment():
    """QA (issue 27, seed 2718): grant income fell from $15,000 to $7,500 in month 16 with no
    line saying an award ended. The ambitious policy's A001 (TIF, $7,500 a month) ends in month
    21: that month's digest says its last installment came and by how much the burn rises
    (installment less the overhead of ``lab.rules()``); month 20's says nothing of it."""
    from pibench_tui.tui.screens.digest import digest_lines
    from tests.careers import play_to

    w = new_world()
    api, _ = play_to(w, 20)
    (award,) = api.query("select id, agency, monthly, end_month from awards")
    assert award["end_month"] == 21
    game = Game(w)
    assert not any("last installment" in line for line in digest_lines(game.next_month(), game))
    overhead = game.rules["costs"]["award_overhead"]
    lines = "\n".join(digest_lines(game.next_month(), game))
    assert (
        f"award {award['id']} ({award['agency']}) paid its last installment: from month 22 the burn rises by "
        f"${award['monthly'] - overhead:,.0f} a month (its ${award['monthly']:,.0f} installment less its "
        f"${overhead:,.0f} overhead)" in lines
    ), lines


def test_an_earlier_report_points_at_todays_warnings_only_when_there_are_some():
    """QA round 2: month 59's report of a finished career said "the warnings above the newest one
    are for today" with no warning today. An earlier report read in the digest says so only
    when the newest report shows warnings: none once the career is over, none when there are
    none today."""
    from pibench_tui.tui.alerts import Alert
    from pibench_tui.tui.screens.digest import DigestScreen

    game = Game(new_world())
    first, second = game.next_month(), game.next_month()
    warning = Alert("runway", "runway 3 < 58 mo left", "Runway …", "grants", "g", "error")

    def head(newest: dict, warnings: list[Alert]) -> str:
        screen = DigestScreen(newest, game, history=[first, newest], warnings=warnings)
        screen.index = 0
        return screen._body().splitlines()[0]

    assert head(second, [warning]) == (
        "[dim]An earlier month's report; the warnings above the newest one are for today.[/]"
    )
    assert head(second, []) == "[dim]An earlier month's report.[/]"
    assert head({**second, "finished": True}, [warning]) == "[dim]An earlier month's report.[/]"
