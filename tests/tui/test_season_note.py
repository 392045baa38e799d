"""The Applicants panel's recruiting-season note, formatted from the scenario's rules."""

from __future__ import annotations

import copy
import dataclasses

from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.applicants_panel import season_note
from world.engine import World

from .conftest import new_world


def test_season_note_names_this_years_months_and_the_scenarios_numbers():
    """In the default world the note names the season's last offer month, the answers and the
    arrivals as career months of the current year (3 and 5 in year 1, 15 and 17 in year 2);
    under a scenario with other PhD pay and interview hours it shows those; and a calendar
    whose answers come after the last offer month names that month (nothing is typed in)."""
    game = Game(new_world())
    note = season_note(game.rules, 2)
    assert note.startswith("Recruiting season: offers until the end of month 3; answers then, arrivals in month 5.")
    assert "(i, 3 h each)" in note and "$3,200/month" in note
    assert "offers until the end of month 15; answers then, arrivals in month 17." in season_note(game.rules, 13)
    w = new_world()
    other = Game(World(dataclasses.replace(w.cfg, pay_phd=4100.0, interview_hours=4.5), w.seed))
    note = season_note(other.rules, 14)
    assert "(i, 4.5 h each)" in note and "$4,100/month" in note
    moved = copy.deepcopy(game.rules)
    moved["season"].update(offer_months=[1, 2], offers_resolve=3, arrival=6)
    assert "offers until the end of month 14; answers at the end of month 15, arrivals in month 18." in season_note(
        moved, 13
    )


def test_season_months_feed_the_digest_and_the_offer_form():
    """season_months reads the season's calendar from ``lab.rules()`` for the year of a career
    month; the digest's "answers come at the end of month" line and the offer form's arrival
    month follow a calendar whose answers and arrivals come later (months 4 and 7 of the
    year), not the default's 3 and 5."""
    from pibench_tui.tui.actions import ACTIONS_BY_ID
    from pibench_tui.tui.record import SeasonMonths, season_months
    from pibench_tui.tui.screens.digest import digest_lines

    game = Game(new_world())
    assert season_months(game.rules, 1) == SeasonMonths(3, 3, 5)
    assert season_months(game.rules, 26) == SeasonMonths(27, 27, 29)
    first = game.call("recruit.applicants")[0]["id"]
    spec = ACTIONS_BY_ID["offer"]
    assert spec.summary is not None
    assert "(month 5)" in spec.summary(game, {"applicant": first})
    game.rules["season"].update(offers_resolve=4, arrival=7)
    assert season_months(game.rules, 2) == SeasonMonths(3, 4, 7)
    assert "(month 7)" in spec.summary(game, {"applicant": first})
    game.call("recruit.offer", first)
    text = "\n".join(digest_lines(game.next_month(), game))
    assert "answers come at the end of month 4" in text


def test_header_calls_the_offer_months_the_recruiting_season():
    """The header's calendar says "recruiting season" in the months the world's dashboard notes
    call the season (open, or an offer deadline): months 1-3 and 13 of a career, not 4-12."""
    from pibench_tui.tui.widgets.header import calendar_label
    from world.api import Api

    api = Api(new_world())
    seen = []
    for _ in range(13):
        seen.append("recruiting season" in calendar_label(api.lab.dashboard(), {"TIF"}))
        assert ("recruiting" in calendar_label(api.lab.dashboard(), {"TIF"}, short=True)) == seen[-1]
        api.time.next_month()
    assert seen == [True] * 3 + [False] * 9 + [True]
