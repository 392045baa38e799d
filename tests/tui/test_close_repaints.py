"""A month close computes each thing once and repaints rather than lays out (issue 27 §5): the
digest's warnings are the header's (computed once), a change of the lab under the opaque digest
repaints nothing of the digest, and a note or header whose height stays the same is repainted
without a layout."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Static

import pibench_tui.tui.lab_app as lab_app
import pibench_tui.tui.screens.digest as digest_module
from pibench_tui.tui.alerts import alerts
from pibench_tui.tui.widgets.text_update import update_text
from tests.careers import play_to

from .conftest import build, close_month, drain, new_world, screen_ready, screen_text, wait_for

pytestmark = pytest.mark.asyncio


def count_layouts(screen) -> list[int]:
    """A list that grows by one at each layout of ``screen``."""
    layouts: list[int] = []
    original = screen._refresh_layout

    def counted(*args, **kwargs):
        layouts.append(1)
        return original(*args, **kwargs)

    screen._refresh_layout = counted
    return layouts


async def test_the_digest_shows_the_headers_warnings_computed_once_per_close(monkeypatch):
    """At a month close the warnings for the new month are computed once (for the header) and
    the digest lists those same warnings, each with its panel and key."""
    w = new_world()
    play_to(w, 14)
    app = build(w)
    calls: list[int] = []

    def counted(game, dash=None):
        calls.append(1)
        return alerts(game, dash)

    monkeypatch.setattr(lab_app, "alerts", counted)
    monkeypatch.setattr(digest_module, "alerts", counted)
    async with app.run_test(size=(160, 50)) as pilot:
        await drain(pilot)
        calls.clear()
        await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the digest")
        assert len(calls) == 1, "the warnings are computed once per close"
        found = alerts(app.game)
        assert found, "a month with warnings"
        assert app.header.view is not None and [a.text for a in app.header.view.warnings] == [a.text for a in found]
        shown = app.screen.query_one("#digest-body").text
        assert f"Warnings for month {app.game.world.month}" in shown
        for a in found:
            assert a.text in shown


async def test_a_change_of_the_lab_under_the_digest_repaints_nothing_of_the_digest():
    """While the digest shows, the header under it is drawn again (the lab changed): the opaque
    digest is not repainted (nothing of the lab shows through), and still shows its month."""
    app = build(new_world())
    async with app.run_test(size=(120, 40)) as pilot:
        await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "DigestScreen"), "the digest")
        await drain(pilot)
        digest = app.screen
        paints: list[int] = []
        original = digest._compositor_refresh

        def counted():
            paints.append(1)
            return original()

        digest._compositor_refresh = counted  # type: ignore[method-assign]
        drawn = app.header.renders
        app.busy = True  # a different header: drawn again
        app.refresh_header()
        await drain(pilot)
        app.busy = False
        assert app.header.renders > drawn, "the header under the digest was drawn again"
        assert paints == [], "the digest was not repainted"
        assert "Month 1 closed" in screen_text(app)


class Notes(App[None]):
    """One note of a fixed width."""

    CSS = "Static { width: 40; height: auto; }"

    def compose(self) -> ComposeResult:
        yield Static(Text("first line\nsecond line"), id="note")


async def test_a_note_of_the_same_height_is_repainted_and_one_of_another_height_laid_out():
    """update_text: a new text with as many lines, none wider than the note, is repainted with
    no layout; one more line, or a line that wraps, lays the screen out, and the note grows."""
    app = Notes()
    async with app.run_test(size=(80, 20)) as pilot:
        await drain(pilot)
        note = app.query_one("#note", Static)
        layouts = count_layouts(app.screen)
        update_text(note, Text("line one, new\nline two, new"))
        await drain(pilot)
        assert layouts == [] and note.size.height == 2
        assert "line one, new" in screen_text(app)
        update_text(note, Text("one\ntwo\nthree"))
        await drain(pilot)
        assert layouts and note.size.height == 3
        layouts.clear()
        update_text(note, Text("a\n" + "wraps " * 10))  # 60 columns in 40: it wraps
        await drain(pilot)
        assert layouts and note.size.height == 3


async def test_the_header_is_repainted_without_a_layout_while_its_height_stays():
    """The header drawn again with as many lines is repainted (no layout); a header that gains
    its warnings line is laid out and shows three lines."""
    app = build(new_world())
    async with app.run_test(size=(120, 40)) as pilot:
        await drain(pilot)
        header = app.header
        assert header.view is not None and not header.view.warnings and header.size.height == 2
        layouts = count_layouts(app.screen)
        app.busy = True  # the calendar line says the month is closing: same height
        app.refresh_header()
        await drain(pilot)
        assert layouts == [] and "closing the month" in screen_text(app)
        app.busy = False
        view = header.view
        app.header_view = type(view)(
            view.dash, view.citations, view.rolling, warnings=tuple(alerts(app.game)) or (_warning(),)
        )
        await drain(pilot)
        assert layouts and header.size.height == 3


def _warning():
    """A warning for the header (the new career has none yet)."""
    from pibench_tui.tui.alerts import Alert

    return Alert("idle", "a test warning", "A test warning.", "people", "a")
