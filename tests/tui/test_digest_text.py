"""The digest's text widget (:class:`DigestText`, issue 27 §5): a month's digest shows on a box of
fixed size, so a new month repaints it without laying the screen out, and the text loses nothing
to the scrollbar, which always shows."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from pibench_tui.tui.widgets.digest_text import DigestText
from tests.careers import play_to

from .conftest import build, close_month, drain, new_world, press, screen_ready, screen_text, wait_for

pytestmark = pytest.mark.asyncio

LONG = "\n".join(
    [f"line {i:02d} " + " ".join(f"word{i:02d}_{j}" for j in range(12)) for i in range(40)] + ["the very last line"]
)
"""40 long lines (each wraps at 60 columns) and a last one."""


class OneText(App[None]):
    """A screen holding one DigestText of a fixed height."""

    CSS = "DigestText { height: 10; width: 60; }"

    def compose(self) -> ComposeResult:
        yield DigestText(LONG, id="text")


async def test_the_text_wraps_to_the_width_left_by_the_scrollbar_and_scrolls_to_its_last_line():
    """Every word of a long text shows once wrapped (none hidden under the scrollbar, which
    always shows), the widget scrolls down to the last line with end, and back with home."""
    app = OneText()
    async with app.run_test(size=(80, 20)) as pilot:
        text = app.query_one(DigestText)
        text.focus()
        await drain(pilot)
        assert text.show_vertical_scrollbar
        lines = text.virtual_size.height
        assert lines > 41, "the long lines wrap"
        shown = screen_text(app)
        assert "word00_11" in shown and "the very last line" not in shown
        await press(pilot, "end")
        await drain(pilot)
        assert "the very last line" in screen_text(app)
        await press(pilot, "home")
        await drain(pilot)
        assert "line 00" in screen_text(app)
        seen = ""
        for top in range(0, lines, 10):  # every wrapped line, a page at a time
            text.scroll_to(y=top, animate=False)
            await drain(pilot)
            seen += screen_text(app)
        for i in range(40):
            for j in range(12):
                assert f"word{i:02d}_{j}" in seen, f"word{i:02d}_{j} is drawn"


async def test_a_new_text_repaints_without_a_layout_and_wraps_once():
    """Showing another text on a laid-out DigestText of fixed height lays nothing out: the text
    is wrapped once, at once, to the width it has, and shows at the next repaint."""
    app = OneText()
    async with app.run_test(size=(80, 20)) as pilot:
        text = app.query_one(DigestText)
        await drain(pilot)
        layouts = []
        original = app.screen._refresh_layout

        def counted(*args, **kwargs):
            layouts.append(1)
            return original(*args, **kwargs)

        app.screen._refresh_layout = counted  # type: ignore[method-assign]
        wraps = text.wraps
        text.update("[b]a new month[/]\nits second line")
        await drain(pilot)
        assert text.wraps == wraps + 1
        assert text.virtual_size.height == 2
        assert "a new month" in screen_text(app) and "its second line" in screen_text(app)
        assert layouts == [], "a repaint, not a layout"


async def test_a_month_digest_shows_on_the_same_box_without_laying_the_digest_out():
    """The second month closed shows its digest on the digest screen kept from the first, in a
    box of the same size, without laying the digest screen out; its text is the new month's."""
    w = new_world()
    play_to(w, 14)
    app = build(w)
    async with app.run_test(size=(120, 40)) as pilot:
        await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the first digest")
        digest = app.screen
        box = digest.query_one("#digest-box").region
        await press(pilot, "enter", to="LabScreen")
        layouts = []
        original = digest._refresh_layout

        def counted(*args, **kwargs):
            layouts.append(1)
            return original(*args, **kwargs)

        digest._refresh_layout = counted  # type: ignore[method-assign]
        month = app.game.world.month
        await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the second digest")
        assert app.screen is digest
        assert f"Month {month} closed" in screen_text(app)
        assert digest.query_one("#digest-box").region == box
        assert layouts == [], "the digest screen was repainted, not laid out"
