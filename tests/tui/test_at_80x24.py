"""Issue 27 §4: at 80x24 no line of the main screen loses its decisive word: what a widget
draws (its strips, as the terminal shows them) is read back and checked for a cut ("…")."""

from __future__ import annotations

import pytest
from textual.geometry import Region

from world.api import Api

from .conftest import build, drain, new_world, press


def shown_lines(widget) -> list[str]:
    """The lines ``widget`` draws, as text (what the terminal shows of it)."""
    width, height = widget.outer_size
    return [strip.text for strip in widget.render_lines(Region(0, 0, width, height))]


@pytest.mark.asyncio
async def test_tutorial_checklist_keeps_each_steps_end_at_80_columns():
    """The tutorial's steps at 80x24, in month 1 and in month 9 with two RAs hired: each line
    is drawn whole (no "…"), a step too long for the width shows its short form, which keeps
    the step's decisive facts (the season's months, the idle pair, the open calls)."""
    from pibench_tui.tui.tutorial import SHORT_CHARS, steps

    w = new_world("tutorial")
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        app.show_tutorial()
        await drain(pilot)
        lines = shown_lines(app.tutorial)
        assert not any("…" in line for line in lines), lines
        assert any("(months 1-3): interview, then offer" in line for line in lines)
        assert any("(open now: TIF)" in line for line in lines)
        # the keys read as a panel and its keys, not as a step number ("2: i, o")
        steps_shown = [line.strip() for line in lines if line.strip().startswith("[ ]")]
        assert len(steps_shown) == 5 and all(line[4:].startswith("panel ") for line in steps_shown), lines
        assert any(line.startswith("[ ] panel 2: i, o  Recruit PhD students") for line in steps_shown), lines
    api = Api(w)
    api.recruit.hire_ra()
    api.recruit.hire_ra()
    for _ in range(8):
        api.time.next_month()
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        app.show_tutorial()
        await drain(pilot)
        lines = shown_lines(app.tutorial)
        assert not any("…" in line for line in lines), lines
        assert any("idle pair (RA001, RA002)" in line for line in lines)
        assert all(len(s.short) <= SHORT_CHARS for s in steps(app.game))
    async with build(w).run_test(size=(160, 40)) as pilot:  # wide: the full sentences
        pilot.app.show_tutorial()
        await drain(pilot)
        assert any("spares morale the neglect penalty" in line for line in shown_lines(pilot.app.tutorial)), (
            shown_lines(pilot.app.tutorial)
        )


@pytest.mark.asyncio
async def test_field_news_and_grants_schedule_end_whole_at_80_columns(tmp_path):
    """At 80x24 the Field panel's news rows end with the area's word ("the area is surging."),
    the topic being in its own column; the Grants panel's call schedule shows its last
    column whole ("open now (TIF-rolling)")."""
    w = new_world()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "6", panel="field")
        news = app.screen.query_one("#news-table")
        words = [n["text"].rsplit(" ", 1)[-1] for n in app.game.call("field.news", 60) if n["topic"]]
        lines = shown_lines(news)
        assert words and all(any(line.rstrip().endswith(word) for line in lines) for word in words), lines
        await press(pilot, "5", panel="grants")
        lines = shown_lines(app.screen.query_one("#schedule-table"))
        assert any("open now (TIF-rolling)" in line for line in lines), lines


def test_header_warnings_are_whole_or_counted_never_cut():
    """At 78 columns four warnings do not fit: the header shows the first ones whole, each
    with its key, and counts the rest ("+2 more (!)") instead of cutting a word with "…"; at
    200 columns all four show."""
    from pibench_tui.tui.alerts import Alert
    from pibench_tui.tui.widgets.header import warnings_line

    warnings = [
        Alert("runway", "runway 39 < 43 mo left", "", "grants", "g", "error"),
        Alert("event", "E010 expires", "", "events", "e"),
        Alert("orphan", "PJ002 no member, billed $1,500/mo", "", "projects", "a"),
        Alert("call", "BSF call closes", "", "grants", "g"),
    ]
    narrow = warnings_line(warnings, 78).plain
    assert len(narrow) <= 78 and "…" not in narrow
    assert narrow == "⚠ ! runway 39 < 43 mo left [g] · E010 expires [e] · +2 more (!)"
    wide = warnings_line(warnings, 200).plain
    assert all(f"{w.short} [{w.key}]" in wide for w in warnings) and "more" not in wide


@pytest.mark.asyncio
async def test_header_at_80_columns_shows_warnings_whole(tmp_path):
    """A career with six idle RAs and heavy compute at 80x24: the header's warning line is
    drawn whole (no "…")."""
    w = new_world()
    api = Api(w)
    for _ in range(8):
        api.recruit.hire_ra()
    api.projects.start("reasoning", 3, ["RA001"], 40000)
    api.time.next_month()
    app = build(w, tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await drain(pilot)
        lines = shown_lines(app.screen.query_one("LabHeader"))
        assert len(lines) == 3 and lines[2].lstrip().startswith("⚠ !"), lines
        assert not any("…" in line for line in lines), lines


@pytest.mark.asyncio
async def test_tab_titles_shorten_at_80_columns_and_lengthen_again():
    """Panel 2's tab reads "2 Applicants" at 120 columns, "2 Apps" once the terminal is
    narrowed to 80 (every title still whole, its number first), and "2 Applicants" again at 120."""
    app = build(new_world())
    async with app.run_test(size=(120, 40)) as pilot:
        await drain(pilot)

        def bar() -> str:
            return shown_lines(app.tabs)[0]

        assert "2 Applicants" in bar() and "9 Console" in bar()
        await pilot.resize_terminal(80, 24)
        await drain(pilot)
        assert "2 Apps " in bar() and "2 Applicants" not in bar(), bar()
        assert all(f"{i} " in bar() for i in range(1, 10)) and "9 Console" in bar() and "…" not in bar(), bar()
        await pilot.resize_terminal(120, 40)
        await drain(pilot)
        assert "2 Applicants" in bar()


@pytest.mark.asyncio
async def test_applicants_status_shows_whole_at_80_columns_with_the_longest_name():
    """QA10 play: at 80x24 the Applicants table cut its last column mid-word ("pendin") when
    a name and a pool were long. With the longest name the world can draw, the longest pool
    and an offer made, every column shows whole (vertical scrollbar included) and
    each row ends with its whole status."""
    from pibench_tui.tui.widgets.panel import hidden_columns
    from world.people import _FIRST, _LAST

    w = new_world()
    apps = list(w.s.applicants.values())
    apps[0].name = f"{max(_FIRST, key=len)} {max(_LAST, key=len)}"
    apps[0].pool = "nontraditional"
    apps[1].status = "offered"
    app = build(w)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "2", panel="applicants")
        table = app.screen.query_one("#applicants-table")
        assert table.show_vertical_scrollbar
        assert hidden_columns(table) == []
        lines = shown_lines(table)
        for status in ("pending", "offered"):
            assert any(line.rstrip().endswith(f" {status}") for line in lines), lines


@pytest.mark.asyncio
async def test_the_shown_panel_keeps_the_focus_and_its_keys_after_the_terminal_was_too_small():
    """Keyline QA: shrinking the terminal below the minimum hides the panels, which drops the
    focus; once the size is back, the shown panel's table has the focus again and the key line
    shows that panel's action keys (before, they were gone until a tab key was pressed)."""
    from pibench_tui.tui.widgets.footer import KeyLine

    app = build(new_world())
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "2")
        table = app.focused
        assert table is not None and table.id == "applicants-table"
        keys = shown_lines(app.query_one(KeyLine))[0]
        assert "Interview" in keys, keys
        await pilot.resize_terminal(60, 20)
        await drain(pilot)
        assert app.too_small
        await pilot.resize_terminal(120, 40)
        await drain(pilot)
        assert app.focused is table
        assert "Interview" in shown_lines(app.query_one(KeyLine))[0]
        await press(pilot, "i")  # the interview form, left open while the window shrinks
        form = app.screen
        assert form is not app.default_screen and app.focused is not None
        await pilot.resize_terminal(60, 20)
        await drain(pilot)
        await pilot.resize_terminal(120, 40)
        await drain(pilot)
        assert app.screen is form and app.focused is not None and app.focused.screen is form
        await press(pilot, "escape")
        assert app.focused is table
