"""The console panel: history, completion of the API, pretty-printed results."""

from __future__ import annotations

import pytest
from rich.pretty import Pretty

from pibench_tui.widgets.console import pretty_output

from .conftest import build, press, run_console_line

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
