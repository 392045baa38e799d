"""QA: the month-60 digest said "the career is over" and then advised, under a rejection,
"revise it, or send it to a venue with a lower bar". Once the career has ended no
explanation asks the PI to act (world.explain.CAREER_OVER instead), in the digest and in
``lab.explain``."""

from __future__ import annotations

from pibench_tui.tui.game import Game
from pibench_tui.tui.screens.digest import digest_lines
from world import explain as ex
from world.api import Api
from world.api.cached import CachedApi
from world.policies import make_policy
from world.runner import AgentView

from .conftest import new_world

ADVICE = ("next:", "lower bar", "revise it", "polish it", "post again", "offer to more applicants", "keep drafts")


def _ended() -> tuple[Api, Game]:
    """Seed 1001: the baseline policy until month 18 (whose close rejects SUB001 at NAIC), then
    months closed with no action to the end of the career (the draft is never sent again)."""
    w = new_world(seed=1001)
    api = CachedApi(Api(w))
    view, policy = AgentView(api), make_policy("baseline")
    while not w.s.finished:
        m = w.s.month
        if m <= 18:
            policy.act(view)
        if w.s.month == m and not w.s.finished:
            api.next_month_unread()
    return Api(w), Game(w)


def test_the_last_digest_gives_no_advice_under_a_rejection():
    """A rejection whose explanation advised "next: …" while the career ran reads, in the
    finished career's month-60 digest and in lab.explain, without any advice to act."""
    api, game = _ended()
    assert game.finished
    rejected = [r["id"] for r in api.query("select id from submissions where status = 'reject'")]
    advised = [s for s in rejected if "next:" in ex.explain_decision(api.query, game.world.cfg, s)]
    assert advised, rejected
    sub = api.query(f"select * from submissions where id = '{advised[0]}'")[0]
    report = {
        "month": 60,
        "finished": True,
        "decisions": [
            {
                "submission_id": sub["id"],
                "draft_id": sub["draft_id"],
                "venue": sub["venue"],
                "outcome": "reject",
                "reviewer_scores": [4.0, 4.5],
            }
        ],
        "postdoc_searches": [{"posting_id": "PD-X", "outcome": "unfilled"}],
    }
    text = "\n".join(digest_lines(report, game, warn=False))
    assert ex.CAREER_OVER in text, text
    assert not any(a in text for a in ADVICE), text
    told = api.lab.explain("decision", sub["id"])
    assert ex.CAREER_OVER in told and not any(a in told for a in ADVICE), told


def test_the_explanations_keep_their_advice_while_the_career_runs():
    """``over`` off (the default): the search, offer and dead-end advice are still there."""
    assert "post again" in ex.explain_search("renowned", "unfilled")
    assert "publish" in ex.explain_search("rising", "unfilled")
    assert ex.CAREER_OVER in ex.explain_search("rising", "unfilled", over=True)
    assert "post only with a free place" in ex.explain_search("rising", "paused")
    assert "post" not in ex.explain_search("rising", "paused", over=True)
