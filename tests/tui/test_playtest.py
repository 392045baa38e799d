"""A new player's first game: what a first-time player meets (help, forms, refusals, the
month's end), each with the behaviour it must have."""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll
from textual.widgets import DataTable

from pibench_tui.cli.command import main as cli_main
from pibench_tui.tui.actions import ACTIONS_BY_ID, event_details, open_venues, plural
from pibench_tui.tui.game import Game
from pibench_tui.tui.screens.digest import digest_lines
from pibench_tui.tui.widgets.footer import KeyLine
from pibench_tui.tui.widgets.panels import past_offers_note
from pibench_tui.tui.widgets.plots import LinePlot, month_ticks
from world.api import Api

from .conftest import build, drain, new_world, press, screen_text, settle

pytestmark = pytest.mark.asyncio


# ---------------------------------------------------------------------------- offers
async def test_digest_says_offers_are_waiting_until_they_are_answered():
    """Offers made in month 1 are "waiting for an answer" in the digests of months 1-2 and
    "answered" (accepted/declined) only at the end of month 3."""
    game = Game(new_world())
    first = game.call("recruit.applicants")[0]["id"]
    game.call("recruit.offer", first)
    text = "\n".join(digest_lines(game.next_month(), game))
    assert "Offers answered" not in text
    assert "Offers waiting for an answer" in text and "end of month 3" in text
    game.next_month()
    text = "\n".join(digest_lines(game.next_month(), game))
    assert "Offers answered" in text and "waiting" not in text
    assert any(w in text for w in (f"({first}): [green]accepted", f"({first}): [red]declined"))


async def test_past_offers_count_only_offers_made(tmp_path):
    """After a season with 2 offers, the Applicants panel counts 2 offers made and the other
    applicants as never offered (not as expired offers)."""
    assert past_offers_note({"accepted": 1, "joined": 0, "declined": 2, "expired": 6}) == (
        " Past offers: 3 made, 1 accepted, 2 declined. 6 other applicants never received an offer."
    )
    w = new_world()
    api = Api(w)
    ids = [a["id"] for a in api.recruit.applicants()]
    api.recruit.offer(ids[0])
    api.recruit.offer(ids[1])
    for _ in range(4):
        api.time.next_month()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "2")
        note = str(app.query_one("#applicants-note").render())
        assert "Past offers: 2 made" in note
        assert f"{len(ids) - 2} other applicants never received an offer" in note
        assert "expired" not in note


# ---------------------------------------------------------------------------- console and size
async def test_escape_leaves_the_console(tmp_path):
    """In the console, escape clears a typed line; on an empty line it moves the focus out, so
    digits switch panels again; the intro says so and keeps every word at 80x24."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "colon", "1", "+", "1")
        inp = app.console_panel.input
        assert inp.value == "1+1"
        await press(pilot, "escape")
        assert inp.value == "" and app.focused is inp
        await press(pilot, "escape")
        assert app.focused is not inp
        await press(pilot, "2")
        assert app.tabs.active == "applicants"
        await press(pilot, "colon")
        assert app.focused is inp
        text = " ".join(screen_text(app).split())
        assert "['budget']. A line ending in ':' starts a block" in text
        assert "on an empty line it leaves the console" in text


async def test_a_burst_typed_after_escape_stays_in_the_console_line(tmp_path):
    """QA round 2: after Escape on an empty console line, typing ``x = 12345`` quickly gave
    ``x = ``: the burst reached the console before its line had the focus, so the digits
    switched panels, and later letters went to the app's keys (an ``n`` opened the month's end,
    and Enter closed the month). Once a key has typed into the line, digits are text too; on
    an empty line 1-9 still switch panels."""
    from .conftest import _key_event, drain

    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "colon")
        await press(pilot, "escape")
        inp = app.console_panel.input
        assert app.focused is not inp and inp.value == ""
        for key in ("x", "space", "equals_sign", "space", "1", "2", "3", "n"):  # one burst, no pause
            event = _key_event(key)
            event.set_sender(app)
            app.post_message(event)
        await drain(pilot)
        assert inp.value == "x = 123n"
        assert app.tabs.active == "console" and type(app.screen).__name__ == "LabScreen"


async def test_the_footer_in_the_console_lists_only_keys_that_work_there(tmp_path):
    """In the console, typed or after escape, the footer does not offer n, ?, q, d or ! (those
    keys are typed into the line there): pressing n after escape types 'n', closes no month, and
    ctrl+s and escape are still listed. QA: after escape it listed "d Reports" (and "!
    Warnings"), which were typed into the line like n."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await press(pilot, "colon")
        for leave in (False, True):
            if leave:
                await press(pilot, "escape")
                assert app.focused is not app.console_panel.input
            await drain(pilot)
            shown = {k.key for k in app.screen.query_one(KeyLine).keys}
            assert not shown & {"n", "question_mark", "q", "d", "exclamation_mark"}, shown
            assert {"ctrl+s", "escape"} <= shown, shown
        await press(pilot, "n")
        assert app.console_panel.input.value == "n" and app.game.world.month == 1
        assert type(app.screen).__name__ == "LabScreen"
        await press(pilot, "escape", "escape")  # the line emptied, then left again
        await press(pilot, "d", "!")  # QA: listed as "d Reports" and "! Warnings" there, but typed
        assert app.console_panel.input.value == "d!" and type(app.screen).__name__ == "LabScreen"


async def test_too_small_terminal_blocks_keys_and_q_quits(tmp_path):
    """While the terminal is too small, keys do nothing (no confirm, no panel switch, nothing typed
    into the hidden console); q quits at once when nothing is unsaved."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "colon")
        await pilot.resize_terminal(60, 15)
        await drain(pilot)
        assert app.too_small
        await press(pilot, "x", "n", "2", "enter")
        assert app.console_panel.input.value == ""
        assert type(app.screen).__name__ == "LabScreen" and app.tabs.active == "console"
        assert app.game.world.month == 1
        await press(pilot, "q")
    assert app.return_code == 0


async def test_too_small_quit_with_unsaved_months_asks_once_the_size_is_back(tmp_path):
    """q while too small with unsaved months does not quit silently: the message says so, and the
    save-or-quit question opens when the window is large enough again."""
    w = new_world()
    Api(w).time.next_month()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(60, 15)) as pilot:
        await drain(pilot)
        await press(pilot, "q")
        assert app.is_running
        assert "are not saved" in str(app.query_one("#too-small").render())
        await pilot.resize_terminal(120, 40)
        await drain(pilot)
        await drain(pilot)
        assert type(app.screen).__name__ == "QuitDialog"
        await press(pilot, "escape")
        assert app.is_running and type(app.screen).__name__ == "LabScreen"


# ---------------------------------------------------------------------------- CLI
@pytest.mark.parametrize("flags", [["--scenario", "standard"], ["--seed", "5"]])
async def test_play_refuses_load_with_scenario_or_seed(flags, capsys):
    """``pibench play --load X`` with ``--scenario`` or ``--seed`` exits 2 and says why, like headless."""
    assert cli_main(["play", "--load", "x", *flags]) == 2
    err = capsys.readouterr().err
    assert "pibench play: error: --load resumes a saved career" in err


async def test_play_help_names_the_scenarios_list_command(capsys):
    """``play --help`` points to ``pibench scenarios list`` (``pibench scenarios`` alone needs a subcommand)."""
    assert cli_main(["play", "--help"]) == 0
    assert "pibench scenarios list" in " ".join(capsys.readouterr().out.split())


# ---------------------------------------------------------------------------- cosmetics
async def test_counts_are_pluralised_and_event_details_read_as_text(tmp_path):
    """ "1 month" not "1 months"; an event's details are a sentence, not a dump of its fields."""
    assert plural(1, "month") == "1 month" and plural(3, "month") == "3 months"
    game = Game(new_world())
    assert "W-SHOP (workshop): decision 2, published 2" in [label for label, _ in open_venues(game)]
    assert not any(
        "1 months" in label
        for f in ACTIONS_BY_ID["propose"].fields(game)
        if not callable(f.options)
        for label, _ in f.options
    )
    w = new_world()
    Api(w).time.next_month()  # month 2 has a review request waiting
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "7")
        row = app.query_one("#events-table", DataTable).get_row_at(0)
        assert str(row[4]) == "A journal asks you to review a manuscript. (6 h)"
    assert event_details({"details": {"hours": 8.0, "cost_usd": 1500.0, "text": "A talk."}}) == "A talk. (8 h, $1,500)"


# ---------------------------------------------------------------------------- a new career: footer, help, forms, month close


async def test_a_new_career_footer_help_refused_call_ticks_and_month_close(tmp_path):
    """A new career at 120×40, step by step (each step's premise set by the steps before it):

    - panel by panel, every footer key is on screen, left of the palette hint;
    - before any month closes the ledger's charts say "no data yet" (no −1..1 axes); month
      ticks are integers;
    - ? opens the help with its scrolling box focused; page down, space and end reach the key
      table's end;
    - a proposal the API refuses (200 h of writing, 100 h left) leaves the form open with the
      API's message under the fields and the typed value intact (and a notification);
      correcting it sends it; escape still cancels;
    - in a checklist the ticked option's box holds an X and the others are blank (the
      start-project form ticks the idle pair; space unticks RA001);
    - enter on the month-end confirmation keeps it up ("closing…") until the digest replaces
      it; the panel under the digest is redrawn when the digest closes (the ledger gains the
      month's pay)."""
    assert month_ticks(1, 1) == [1]
    assert month_ticks(1, 4) == [1, 2, 3, 4]
    assert all(isinstance(t, int) for t in month_ticks(1, 47)) and len(month_ticks(1, 47)) <= 8
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        # the footer on every panel, the empty charts, the help's scrolling
        for key in "12345678":
            await press(pilot, key)
            row = screen_text(app).splitlines()[-1]
            for k in app.screen.query_one(KeyLine).keys:  # each key whole on the footer's row
                assert f"{k.display} {k.description}" in row, (key, k, row)
        # panel 8, the ledger, is showing
        plot = app.query_one("#budget-plot", LinePlot)
        assert plot.empty and "no data yet" in str(plot.render())
        assert "no data yet" in screen_text(app) and "-1.00" not in screen_text(app)

        await press(pilot, "question_mark", to="HelpScreen")
        body = app.screen.query_one("#help-scroll", VerticalScroll)
        assert app.focused is body and body.max_scroll_y > 0
        await press(pilot, "pagedown")
        first = body.scroll_y
        assert first > 0, "page down scrolls the help"
        await press(pilot, "space")
        assert body.scroll_y > first or body.scroll_y == body.max_scroll_y, "space scrolls the help"
        await press(pilot, "end")
        assert body.scroll_y == body.max_scroll_y, "end reaches the help's end"
        assert "Answer an event" in screen_text(app)  # the key table's last row
        await press(pilot, "escape", to="LabScreen")

        # a refused call keeps the form open with the reason
        await press(pilot, "5", panel="grants")
        await press(pilot, "g", to="ActionForm")
        await press(pilot, "tab", "tab", "backspace", "backspace", "2", "0", "0", "ctrl+o")
        assert type(app.screen).__name__ == "ActionForm", "the refused form stays open"
        problems = str(app.screen.query_one("#form-problems").render())
        assert "grants.propose refused" in problems and "200 h" in problems
        assert app.screen.values["hours"] == "200"
        assert app.toasts[-1][1] == "error"
        assert app.game.call("grants.proposals") == []
        assert app.focused is None, "the refused form lets go of the focus: hotkeys do not land in its fields"
        for _ in range(8):  # tab walks back to the hours
            await press(pilot, "tab")
            if app.focused is not None and app.focused.id == "field-2":
                break
        assert app.focused is not None and app.focused.id == "field-2"
        await press(pilot, "end", "backspace", "ctrl+o", to="LabScreen")  # 20 h: accepted, the form closes
        assert type(app.screen).__name__ == "LabScreen"
        assert [p["hours"] for p in app.game.call("grants.proposals")] == [20]
        await press(pilot, "g", "escape", to="LabScreen")  # escape still cancels
        assert type(app.screen).__name__ == "LabScreen" and len(app.game.call("grants.proposals")) == 1

        # a checklist shows its ticks without colour
        await press(pilot, "1", panel="people")
        await press(pilot, "R", "enter", "R", "enter", to="LabScreen")
        await press(pilot, "3", panel="projects")
        await press(pilot, "s", to="ActionForm")
        await press(pilot, "tab", "tab", "space")
        lines = [ln for ln in screen_text(app).splitlines() if "RA00" in ln]
        assert any("▐ ▌ RA001" in ln for ln in lines) and any("▐X▌ RA002" in ln for ln in lines)
        await press(pilot, "escape", to="LabScreen")

        # the month's close: the confirmation, then the digest, then the panel redrawn
        await press(pilot, "1", panel="people")
        await press(pilot, "R", "enter", to="LabScreen")
        await press(pilot, "8", panel="ledger")
        table = app.query_one("#ledger-table", DataTable)
        before = table.row_count
        await press(pilot, "n", to="ConfirmNextMonth")
        await press(pilot, "enter")
        assert type(app.screen).__name__ in ("ConfirmNextMonth", "DigestScreen")
        await settle(pilot, app)
        assert [type(s).__name__ for s in app.screen_stack] == ["LabScreen", "DigestScreen"]
        await press(pilot, "enter", to="LabScreen")
        assert table.row_count > before, "the ledger gained the month's pay"
        assert not app.query_one("#budget-plot", LinePlot).empty


async def test_digest_counts_the_applicants_never_offered_from_the_reports_pool_counts():
    """The report the TUI gets (time.next_month()["report"]) counts the season's applicants never
    offered in applicant_pool instead of listing them as 'expired' offers: the digest still says how
    many applications lapsed, beside the offer made; a recorded report that lists them says the same."""
    from world.report import pi_view

    offers = [{"applicant_id": "A1", "name": "Ada", "pool": "top", "outcome": "accepted"}]
    offers += [{"applicant_id": f"A{i}", "name": "X", "pool": "mid", "outcome": "expired"} for i in range(2, 6)]
    raw = {"month": 3, "offers": offers}
    for report in (pi_view(raw), raw):
        text = "\n".join(digest_lines(report))
        assert "Ada (A1)" in text and "4 applicant(s) never offered a place" in text
