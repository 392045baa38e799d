"""Headless agents get the horizon notes the TUI gives (issue 27): a project started, or a
paper submitted, too late to count says so in the call's reply, in the words of the one world
function the TUI's warnings use (``world.explain``)."""

from __future__ import annotations

import json

from scenarios import load_scenario
from world import explain
from world.papers import last_useful_draft_month


def test_a_late_project_start_and_a_late_submission_say_what_the_horizon_does(pibench):
    """Seed 3, standard: an RA's tier-1 project made D001 (month 20); it was kept. A project
    started in month 1 has no horizon note (only the note that an RA cannot author); one
    started in month 59 (after the last month whose draft can still be decided by month 60)
    says it adds nothing, then the RA's; D001 submitted to W-SHOP in month 60 says it is never
    decided. Through the real ``pibench headless --jsonl``."""
    cfg = load_scenario("standard", seed=3).config
    late = last_useful_draft_month(cfg) + 1
    codes = [
        "_ = recruit.hire_ra()\nr = projects.start('theory', 1, ['RA001'], 0)\nprint(sorted(r), r['note'])",
        f"while time.next_month()['month'] < {late}:\n    pass",
        "print(projects.start('theory', 1, ['RA001'], 0)['note'])",
        f"while time.next_month()['month'] < {cfg.months}:\n    pass",
        "d = lab.dashboard()['available_drafts'][0]['id']\nr = papers.submit(d, 'W-SHOP')\n"
        "print(d, r['decision_expected_month'], r['note'])",
    ]
    run = pibench(["headless", "--jsonl", "--seed", "3"], "".join(json.dumps({"code": c}) + "\n" for c in codes))
    assert run.returncode == 0, run.stderr
    replies = run.replies()
    assert [r["ok"] for r in replies] == [True] * 5, replies
    authorless = explain.authorless_team_note({"RA001": "ra"}, ["RA001"])
    assert replies[0]["stdout"] == f"['est_months_note', 'note', 'ok', 'project_id'] {authorless}\n"
    assert replies[2]["month"] == late
    note = explain.project_start_note(cfg, late)
    assert note and "adds nothing to Impact" in note
    assert replies[2]["stdout"] == f"{note}; {authorless}\n"
    decided = cfg.months + 1  # W-SHOP decides a month later
    never = explain.submission_horizon_note(cfg, "W-SHOP", decided)
    assert never.startswith(f"never decided: month {decided} is after the horizon")
    assert replies[4]["month"] == cfg.months and replies[4]["stdout"] == f"D001 {decided} {never}\n"
