"""The replay viewer offers only keys that work in it: the footer, the help, the command
palette and the header's warnings name no action, clock, save, console or tutorial key,
and 9 does not open the (hidden) console."""

from __future__ import annotations

import pytest

from pibench_tui.tui.actions import ACTIONS
from pibench_tui.tui.replay_app import make_replay_app

from .conftest import drain, press, screen_text
from .rundir import write_run_dir

VIEWER_ACTIONS = {"step", "goto", "jump", "report", "transcript", "help", "quit_game", "app.help", "app.quit_game"}


def _shown_actions(app) -> set[str]:
    """The actions of the enabled bindings the footer shows on the current screen."""
    out = set()
    for active in app.screen.active_bindings.values():
        if active.binding.show and active.enabled:
            out.add(active.binding.action.split("(")[0])
    return out


@pytest.mark.asyncio
async def test_the_viewer_footer_help_and_palette_offer_only_its_own_keys(tmp_path):
    """At 200 columns, on every panel, the footer shows only the viewer's keys (months,
    jump, report, transcript, help, quit); ? shows the viewer's key table (no action, n,
    ctrl+s, console or tutorial) and its footer offers no tutorial; the palette lists no
    game action, save or load; 9 leaves the console closed; header warnings carry no keys."""
    run = write_run_dir(tmp_path, months=8)
    app = make_replay_app(str(run), test_mode=True)
    async with app.run_test(size=(200, 40)) as pilot:
        await drain(pilot)
        for tab in "12345678":
            await press(pilot, tab)
            assert _shown_actions(app) <= VIEWER_ACTIONS, (tab, _shown_actions(app))
        await press(pilot, "9")
        assert app.tabs.active != "console"
        assert _shown_actions(app) <= VIEWER_ACTIONS
        await press(pilot, "question_mark")
        assert type(app.screen).__name__ == "HelpScreen"
        keys = app.screen.keys
        assert "Keys of the replay viewer" in keys and "| x |" in keys and "| j |" in keys
        for absent in ("ctrl+s", "| n |", "| : |", "tutorial", *(a.title for a in ACTIONS)):
            assert absent not in keys, absent
        assert "tutorial" not in _shown_actions(app)
        await press(pilot, "t")
        assert type(app.screen).__name__ == "HelpScreen"  # t does nothing here
        await press(pilot, "escape")
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Previous month", "Next month", "Jump to a month", "Month report", "Transcript"} <= titles
        assert not titles & ({"Save", "Load", "Show Console"} | {a.title for a in ACTIONS})
        await press(pilot, "end")
        header = str(app.header.render())
        if "⚠" in header:
            assert "[" not in header.split("⚠", 1)[1]


@pytest.mark.asyncio
async def test_the_game_help_still_lists_every_key(tmp_path):
    """Outside the viewer the help keeps the game's whole key table and its t."""
    from .conftest import build

    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "question_mark")
        keys = app.screen.keys
        assert "| n |" in keys and "ctrl+s" in keys and all(f"| {a.key} |" in keys for a in ACTIONS)
        assert "tutorial" in _shown_actions(app)
        assert "pibench — help" in screen_text(app)


@pytest.mark.asyncio
async def test_the_viewer_composes_the_shared_panels_without_the_game_app(tmp_path):
    """The viewer is a LabApp (the shared read-only panels), not the game app: panels 1-8 are
    there and each draws the month shown, there is no console, tutorial, action, clock, save or
    load in it at all, and each panel's action keys (and n, :, ctrl+s, l, t) open nothing and
    change nothing (r, j and x are the viewer's own keys)."""
    from textual.widgets import DataTable

    from pibench_tui.tui.app import PibenchApp
    from pibench_tui.tui.lab_app import TABS, LabApp

    run = write_run_dir(tmp_path, months=6)
    app = make_replay_app(str(run), test_mode=True)
    assert isinstance(app, LabApp) and not isinstance(app, PibenchApp)
    for name in ("act", "next_month", "save", "load", "console", "toggle_tutorial", "reports"):
        assert not hasattr(app, f"action_{name}"), name
    async with app.run_test(size=(120, 40)) as pilot:
        last = app.replayer.last_month
        await press(pilot, "end", until=lambda: app.replayer.month == last, what="the last month")
        assert [p.id for p in app.panels()] == [tab for tab, _ in TABS if tab != "console"]
        assert not app.query("ConsolePanel") and not app.query("#tutorial")
        before = app.game.world.digest()
        for i, (tab, _title) in enumerate(TABS[:-1]):
            await press(pilot, str(i + 1), panel=tab)
            panel = app.query_one(f"#{tab}")
            assert panel.shown_version == app.version, f"{tab} drew the month shown"
            assert panel.composed and panel.query(DataTable), f"{tab} shows its tables"
            viewer = {"r", "j", "x"}  # the viewer's own keys (r on the Lab panel is the month report here)
            keys = [a.key for a in ACTIONS if a.tab == tab and a.key not in viewer] + ["n", "colon", "ctrl+s", "l", "t"]
            await press(pilot, *keys)
            assert type(app.screen).__name__ == "LabScreen" and app.tabs.active == tab, (tab, app.screen)
            assert _shown_actions(app) <= VIEWER_ACTIONS, (tab, _shown_actions(app))
        assert app.game.world.digest() == before and app.replayer.month == last


@pytest.mark.asyncio
async def test_the_viewer_empty_lab_and_projects_hints_name_only_keys_that_work_there(tmp_path):
    """In the replay of a career where nobody was hired (no project either) the Lab and Projects
    panels say so and name the viewer's month keys (→, j), not the game's actions (P, R, s,
    which do nothing in the viewer); the game app's empty Lab still names its actions."""
    from .conftest import build, new_world

    run = write_run_dir(tmp_path, months=3, hire=False)
    app = make_replay_app(str(run), test_mode=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await drain(pilot)
        assert not app.game.dashboard()["students"] and not app.game.dashboard()["staff"]
        lab = screen_text(app)
        assert "Nobody in the lab yet (→ shows the next month, j jumps to one)." in lab
        for game_key in ("(P)", "(R)", "hire an RA", "postdoc search"):
            assert game_key not in lab, game_key
        await press(pilot, "3")
        projects = screen_text(app)
        assert "No projects yet (→ shows the next month, j jumps to one)." in projects
        assert "start one with s" not in projects
    game = build(new_world())
    async with game.run_test(size=(120, 40)) as pilot:
        await drain(pilot)
        assert "hire an RA (R)" in screen_text(game)
