"""QA (the month-35 report read again from the end screen): its offer and search lines said
"lab standing now renowned … rises: publish, win grants" while the header in month 35 said
established, and the advice to raise the standing cannot act at the highest one. A report read
later speaks of the standing its month ended with ("in month 35"); the month just closed still
says "now"; at the highest standing the advice no longer asks to raise it."""

from __future__ import annotations

from pibench_tui.tui.game import Game
from pibench_tui.tui.record import standing_at, standing_note
from pibench_tui.tui.screens.digest import digest_lines
from world import explain as ex
from world.api import Api
from world.config import STANDING_WORDS

from .test_published_after_the_horizon import _late_world


def _changed_standing(api: Api) -> tuple[int, str]:
    """A closed month whose recorded standing differs from the standing now, and that standing."""
    now = api.lab.dashboard()["lab_standing"]
    rows = api.query("select month, reputation_standing as s from lab_monthly order by month")
    month, standing = next((r["month"], r["s"]) for r in reversed(rows) if r["s"] != now)
    return month, standing


def test_a_report_read_later_names_the_standing_of_its_month():
    """Seed 1001 at month 50: for an earlier month whose standing differs from today's, the
    standing note and the search and offer advice of that month's report name its standing
    "in month N"; the month just closed names today's "now"."""
    w = _late_world(50)
    api, game = Api(w), Game(w)
    month, then = _changed_standing(api)
    now = api.lab.dashboard()["lab_standing"]
    assert standing_at(game, month) == (then, f"in month {month}")
    assert standing_at(game, w.month - 1) == (now, "now")
    assert standing_note(game, month).startswith(f"lab standing in month {month}: {then};")
    assert standing_note(game, w.month - 1).startswith(f"lab standing now: {now};")
    report = {
        "month": month,
        "offers": [{"applicant_id": "APP999", "name": "A Test", "outcome": "declined", "pool": "elite"}],
        "postdoc_searches": [{"posting_id": "PD-X", "outcome": "unfilled"}],
    }
    text = "\n".join(digest_lines(report, game, warn=False))
    assert f"(the lab's: {then} in month {month}, " in text and f"{now} now" not in text, text


def test_at_the_highest_standing_the_advice_does_not_ask_to_raise_it():
    """The search and offer advice at the highest standing say it is the highest and what
    still helps (post again, offer to more applicants), not "as the standing rises: publish"."""
    top = STANDING_WORDS[-1]
    search = ex.explain_search(top, "unfilled", "in month 35")
    assert "highest standing" in search and "post again" in search and "publish" not in search
    assert "more often at a higher standing" in ex.explain_search(STANDING_WORDS[1], "unfilled")
    w = _late_world(50)
    offer = ex.explain_offer(Api(w).query, w.cfg, "elite", top)
    assert f"{top} now, the highest)" in offer and "offer to more applicants" in offer


def test_the_standing_is_named_not_read_as_a_verb():
    """QA: "the lab's standing (rising now) rises" read as nonsense at "rising". Every standing
    word is named with where it stands ("the lab's: rising now, the next one up established"),
    and no sentence says the standing "rises" next to it."""
    w = _late_world(50)
    for i, standing in enumerate(STANDING_WORDS):
        for when in ("now", "in month 35"):
            offer = ex.explain_offer(Api(w).query, w.cfg, "elite", standing, when)
            search = ex.explain_search(standing, "unfilled", when)
            for text in (offer, search):
                assert f"(the lab's: {standing} {when}, " in text, text
                assert "rises" not in text and "rising) " not in text, text
                if i + 1 < len(STANDING_WORDS):
                    assert f"the next one up {STANDING_WORDS[i + 1]})" in text, text
                else:
                    assert f"{standing} {when}, the highest)" in text, text
    assert ex.explain_search("rising", "unfilled") == (
        "searches fill more often at a higher standing (the lab's: rising now, the next one up established): "
        "publish, win grants, give talks"
    )
