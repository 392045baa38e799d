"""The clock, the digest, help, console, saves, quitting, size and terminal checks."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import pytest

from pibench_tui.tui import app as app_mod
from world.api import Api

from .conftest import build, close_month, drain, new_world, press, run_console_line, screen_ready, settle, wait_for

pytestmark = pytest.mark.asyncio


async def test_next_month_confirms_then_advances_and_shows_digest(tmp_path):
    """n lists unused attention and unanswered events; escape stays; enter closes the month and
    the digest follows; the header shows the new month."""
    w = new_world()
    Api(w).time.next_month()  # month 2 has a review request waiting
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "n", to="ConfirmNextMonth")
        text = str(app.screen.query_one("#confirm-warnings").render())
        assert "100 h of attention unused" in text and "E001 review request" in text
        await press(pilot, "escape", to="LabScreen")
        assert w.month == 2
        await close_month(pilot, app)
        assert w.month == 3
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the digest")
        assert "Month 2 closed" in str(app.screen.query_one(".dialog-title").render())
        await press(pilot, "enter")
        assert "Month 3/60" in str(app.header.render())


async def test_clock_help_console_save_load_and_quit_of_one_career(tmp_path):
    """One new career (no digest), step by step, each step's premise set by the steps before it:

    - while a month is being closed, another start is refused and n is disabled;
    - ? shows the help; the command palette offers every action and "Next month";
    - : opens the console; code runs against the same API (in the sandbox) and the panels
      follow (the header's burn counts the RA it hired);
    - q with unsaved months asks (save / quit / stay); escape stays;
    - ctrl+s saves under the given name (nothing unsaved after); l resumes it, with the same
      world digest, after another month was played."""
    from pibench_tui.tui.actions import ACTIONS

    app = build(tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(120, 40)) as pilot:
        # a second month cannot start while one runs
        assert app.start_month() is True
        assert app.start_month() is False, "a second start is refused"
        assert app.check_action("next_month", ()) is None, "n is disabled while a month closes"
        await settle(pilot, app)
        assert app.game.world.month == 2

        # help and command palette list every action
        await press(pilot, "question_mark", to="HelpScreen")
        assert type(app.screen).__name__ == "HelpScreen"
        await press(pilot, "escape", to="LabScreen")
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {a.title for a in ACTIONS} <= titles and "Next month" in titles, "the palette offers every action"

        # the console runs code in the sandbox and the panels refresh
        await press(pilot, "colon", focus="console-input")
        await press(pilot, *"recruit.hire_ra()['staff_id']")
        await run_console_line(pilot, app)
        log = "\n".join(str(line.text) for line in app.console_panel.query_one("#console-log").lines)
        assert "RA001" in log, "the console printed the call's result"
        assert app.game.world.s.people["RA001"].role == "ra"
        assert "$1,800/mo" in str(app.header.render()) or "burn $1,800" in str(app.header.render())
        await press(pilot, "escape", until=lambda: app.focused is not app.console_panel.input, what="the console left")
        await press(pilot, "1", panel="people")

        # quit asks when months are unsaved (the career has no save yet)
        await press(pilot, "q", to="QuitDialog")
        assert type(app.screen).__name__ == "QuitDialog"
        await press(pilot, "escape", to="LabScreen")
        assert app.is_running

        # save, then load resumes the same world
        await press(pilot, "R", to="ActionForm")
        await press(pilot, "enter", to="LabScreen")
        await close_month(pilot, app)
        saved_month, digest = app.game.world.month, app.game.world.digest()
        await press(pilot, "ctrl+s", to="SaveDialog")
        await press(pilot, "enter", to="LabScreen")
        assert app.toasts[-1][0].startswith("saved as")
        assert not app.game.unsaved, "nothing is unsaved after ctrl+s"
        await close_month(pilot, app)
        assert app.game.world.month == saved_month + 1
        await press(pilot, "l", to="LoadDialog")
        await press(pilot, "enter", until=lambda: app.game.world.month == saved_month, what="the save loaded")
        assert app.game.world.digest() == digest, "the loaded world is the saved one"


async def test_too_small_terminal_says_so(tmp_path):
    """Below 80x24 the panels give way to a message naming the minimum size."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(70, 20)) as pilot:
        await drain(pilot)
        assert app.query_one("#too-small").display
        assert "80×24" in str(app.query_one("#too-small").render())
        assert not app.query_one("#main").display


async def test_hidden_state_is_not_read_outside_the_end_screen():
    """Only screens/end.py, of every module of the game (the tui package), touches the world's
    hidden state (``world.s`` / ``.s.``)."""
    root = Path(app_mod.__file__).parent  # the tui package: every module of the game, at any depth
    offenders = []
    tui = [*sorted(root.rglob("*.py")), root.parent / "cli" / "interrupts.py"]
    for path in tui:  # the TUI's own modules (the harness, headless mode and the runners are front ends of their own)
        if path.name == "end.py":
            continue
        text = path.read_text()
        text = text.replace("world.s.action_log", "")  # the public action log, for "unsaved"
        text = text.replace("world.s.memory", "")  # the agent's own notes (memory.read()), for the replay's digest
        for bad in (
            "world.s.",
            ".s.people",
            ".s.applicants",
            ".trajectory",
            ".ability",
            "hotness_now",
            "citation_rate",
        ):
            if bad in text:
                offenders.append(f"{path.name}: {bad}")
    assert offenders == []


async def test_play_refuses_a_non_terminal_stdin():
    """``pibench play`` with stdin from /dev/null exits 1 and points to ``pibench headless``."""
    r = subprocess.run(
        [sys.executable, "-m", "pibench_tui", "play"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1
    assert "pibench headless" in r.stderr
    code = app_mod.run_play(types.SimpleNamespace(scenario=None, seed=None, load=None, save=None, saves_dir=None))
    assert code == 1
