"""The console panel: history, completion of the API, pretty-printed results."""

from __future__ import annotations

import pytest
from rich.pretty import Pretty

from pibench_tui.tui.widgets.console import pretty_output

from .conftest import build, drain, press, run_console_line, wait_for

pytestmark = pytest.mark.asyncio


async def test_console_history_and_completion(tmp_path):
    """tab completes ``lab.atte`` to ``lab.attention(``; ↑ recalls the earlier line, ↓ clears again."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "colon", focus="console-input")
        console = app.console_panel
        await press(pilot, *"lab.atte")
        await press(pilot, "tab")
        assert console.input.value == "lab.attention("
        await press(pilot, "backspace")
        await run_console_line(pilot, app)
        await press(pilot, *"1 + 1")
        await run_console_line(pilot, app)
        await press(pilot, "up")
        assert console.input.value == "1 + 1"
        await press(pilot, "up")
        assert console.input.value == "lab.attention"
        await press(pilot, "down", "down")
        assert console.input.value == ""


async def test_long_results_are_pretty_printed():
    """A long dict printed on one line becomes a pretty-printed structure; short lines stay text."""
    long = str({f"key{i}": list(range(10)) for i in range(8)})
    assert isinstance(pretty_output(long, 80), Pretty)
    assert not isinstance(pretty_output("42", 80), Pretty)
    assert not isinstance(pretty_output("[not python " + "x" * 100, 80), Pretty)


async def test_a_month_closed_from_the_console_shows_its_digest_as_n_does(tmp_path):
    """``time.next_month()`` typed in the console brings the same digest as ``n``'s close ("Month 1
    closed", the month's report); a block that closes two months shows the last one's digest and
    says both were closed; enter returns to the console with the header in the new month."""
    from .conftest import screen_ready, wait_for

    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "colon", focus="console-input")
        await press(pilot, *"time.next_month()['month']")
        await run_console_line(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the digest")
        assert "Month 1 closed" in str(app.screen.query_one(".dialog-title").render())
        assert app.months_advanced == 1
        await press(pilot, "enter", to="LabScreen")
        assert "Month 2/60" in str(app.header.render())
        assert app.console_panel.input.has_focus  # back where the player typed
        await press(pilot, *"time.next_month(); time.next_month()")
        await run_console_line(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the digest")
        title = str(app.screen.query_one(".dialog-title").render())
        assert "Months 2-3 closed from the console: month 3's digest" in title
        assert app.screen.report == app.game.call("time.last_report") and app.screen.report["month"] == 3
        await press(pilot, "enter", to="LabScreen")
        assert "Month 4/60" in str(app.header.render()) and app.months_advanced == 3


async def test_console_output_wraps_inside_the_log_at_80x24(tmp_path):
    """QA at 80x24: lab.explain(...) printed lines cut at the log's right edge ('... proje',
    '... few'): the log rendered 78 columns (RichLog's default minimum) in a narrower box. A
    long line wraps inside the log: nothing is wider than what it shows."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "colon", focus="console-input")
        await press(pilot, *'print("abcdefghij " * 30)')
        await run_console_line(pilot, app)
        log = app.console_panel.log_view
        await wait_for(pilot, lambda: len(log.lines) >= 2, "the wrapped output")
        assert max(line.cell_length for line in log.lines) <= log.scrollable_content_region.width


async def test_output_that_arrives_while_the_console_is_hidden_reads_right_when_shown(tmp_path):
    """QA: a block left running (``while True: pass``, Escape, 3) ended while the console was
    hidden; back in it (:) the time-out message stood one character per line ("o / m / p / l /
    e / t / e / d"): the log wrapped at the width a hidden widget has (none). What is written
    while the console is hidden is written once it is shown, at the log's width."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "colon", focus="console-input")
        console = app.console_panel
        await press(pilot, *"1")
        await run_console_line(pilot, app)  # the sandbox is open: its limit can be shortened
        console.sandbox.block_timeout = 1.0
        await press(pilot, *"while True: pass")
        await press(pilot, "enter")
        assert console.running
        await press(pilot, "escape")
        await press(pilot, "3", panel="projects")
        await wait_for(pilot, lambda: not console.running, "the block's time-out")
        await press(pilot, "colon", focus="console-input")
        await drain(pilot)  # the panel is laid out at its width
        log = console.log_view
        text = [line.text.rstrip() for line in log.lines]
        start = next((i for i, line in enumerate(text) if line.startswith("BlockTimeout")), 0)
        said = " ".join(text[start:])
        assert "the block ran longer than 1 s and was stopped" in said, text
        assert max(line.cell_length for line in log.lines) <= log.scrollable_content_region.width
        assert len(text) - start <= 4, text  # a few lines at 78 columns, not one per character


async def test_a_block_that_ends_after_the_player_left_keeps_the_focus_where_the_player_is(tmp_path):
    """QA suspected the console takes the focus back when a block left running ends. It does
    not: after Escape the focus stays on the log (where printable keys, n too, are typed into
    the line by design: a burst typed after Escape must not open dialogs), and on another panel
    it stays there, so n asks to close the month; the result waits in the console's log."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "colon", focus="console-input")
        console = app.console_panel
        await press(pilot, *"1")
        await run_console_line(pilot, app)
        console.sandbox.block_timeout = 1.0
        for leave in (("escape",), ("escape", "3")):
            if not console.input.has_focus:
                await press(pilot, "colon", focus="console-input")
            await press(pilot, *"while True: pass")
            await press(pilot, "enter")
            assert console.running
            await press(pilot, *leave)
            focused = app.focused
            assert focused is not console.input
            await wait_for(pilot, lambda: not console.running, "the block's time-out")
            assert app.focused is focused and console.input.value == ""
        await press(pilot, "n", to="ConfirmNextMonth")
        await press(pilot, "escape", to="LabScreen")
        await press(pilot, "colon", focus="console-input")
        assert app.game.world.month == 1
        assert sum(line.text.startswith("BlockTimeout") for line in console.log_view.lines) == 2
