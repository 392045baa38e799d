"""The key footer (KeyLine): one line, drawn again once per key press and only when its keys
change, with no layout; it fits 80 columns (LEAVE_OUT, "More"), shows no key under a dialog,
dims a disabled key, and a click or a hover on a key acts on that key."""

from __future__ import annotations

import pytest

from pibench_tui.tui.widgets.footer import KeyLine
from world.api import Api

from .conftest import build, drain, new_world, press, screen_text, wait_for

pytestmark = pytest.mark.asyncio


def _expected(app) -> list[str]:
    """The keys the screen's bindings show, one per action, in order (the palette key aside)."""
    keys: list[str] = []
    actions: set[str] = set()
    for _node, binding, _enabled, _tooltip in app.screen.active_bindings.values():
        if binding.show and binding.action not in actions:
            actions.add(binding.action)
            keys.append(binding.key)
    return keys


def _row(app) -> str:
    return screen_text(app).splitlines()[-1]


async def test_the_footer_is_drawn_once_per_key_and_only_when_its_keys_change(tmp_path):
    """A panel switch publishes several binding changes (the focus leaves one table and reaches
    another) and draws the footer once, with the new panel's keys; showing the same panel again
    changes no key and draws nothing."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:  # wide enough for all the Lab panel's keys
        await press(pilot, "5", panel="grants")  # its first show composes the panel
        await press(pilot, "1", panel="people")
        await drain(pilot)
        footer = app.screen.query_one(KeyLine)

        def shown() -> list[str]:
            return [k.key for k in footer.keys if k.description != "palette"]

        before = footer.renders
        await press(pilot, "5", panel="grants")
        await drain(pilot)
        assert footer.renders == before + 1, f"drawn once for a panel switch, not {footer.renders - before} times"
        assert shown() == _expected(app) and "g" in shown(), "the footer shows the Grants panel's keys"
        await press(pilot, "5", panel="grants")
        await drain(pilot)
        assert footer.renders == before + 1, "the same keys: not drawn again"
        await press(pilot, "1", panel="people")
        await drain(pilot)
        assert footer.renders == before + 2 and "R" in shown() and "g" not in shown()
        assert shown() == _expected(app)
        bound = {b.key: b.description for _n, b, _e, _t in app.screen.active_bindings.values()}
        assert all(k.description == bound[k.key] for k in footer.keys), "each key shows its own label"
        assert f"R {bound['R']}" in _row(app) and "g Propose" not in _row(app)


async def test_at_80_columns_every_panel_footer_shows_whole_keys_and_its_actions(tmp_path):
    """At 80x24, on each panel 1-9 (and at 120 columns for comparison): every key drawn is
    whole on the footer's row, every key of the panel's own actions is shown with its label,
    and n (next month) and ? show on every panel but the console. Where keys had to be left out
    (the Lab panel's six actions), ? reads "More" and the keys left out are among LEAVE_OUT's
    (the console, quit, save, d, !), which stay bound; at 120 columns the Lab panel leaves out
    only q and !, and the Grants panel nothing."""
    from pibench_tui.tui.actions import ACTIONS, SHORT
    from pibench_tui.tui.app import TABS

    optional = {"colon", "q", "ctrl+s", "d", "exclamation_mark"}

    for width in (80, 120):
        app = build(tmp_path=tmp_path)
        async with app.run_test(size=(width, 24)) as pilot:
            for i, (tab, _title) in enumerate(TABS):
                await press(pilot, str(i + 1), panel=tab)
                await drain(pilot)
                footer = app.screen.query_one(KeyLine)
                row = _row(app)
                assert len(row) == width
                x = 0
                for key in footer.keys:  # each whole, in order, none overlapping the next
                    drawn = f"{key.display} {key.description}"
                    at = row.find(drawn, x)
                    assert at >= x, (width, tab, drawn, row)
                    x = at + len(drawn)
                shown = {k.key: k.description for k in footer.keys}
                wanted = {a.key: SHORT.get(a.id, a.title) for a in ACTIONS if a.tab == tab}
                assert wanted.items() <= shown.items(), (width, tab, shown)
                if tab == "console":
                    continue
                assert "n" in shown and "question_mark" in shown, (width, tab, shown)
                left_out = optional - set(shown)
                more = bool(left_out) or "^p palette" not in row
                assert (shown["question_mark"] == "More") == more, (width, tab, shown)
                if width == 120 and tab == "people":
                    assert left_out == {"q", "exclamation_mark"} and "^p palette" in row, (tab, shown)
                elif width == 120 and tab == "grants":
                    assert not left_out and "^p palette" in row, (tab, shown)
                elif tab == "people":
                    assert left_out == optional and "^p" not in row, shown
                bound = {b.key for _n, b, _e, _t in app.screen.active_bindings.values()}
                assert left_out <= bound, "the keys left out still work"
            await press(pilot, "escape")


async def test_a_footer_keeps_keys_whole_when_even_the_leave_out_keys_are_not_enough():
    """Narrower than its keys once the LEAVE_OUT keys are gone, the footer leaves out keys from
    the end, keeps the help key ("More") to the last, and never draws a key cut."""
    app = build(new_world())
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "1", panel="people")
        await drain(pilot)
        footer = app.screen.query_one(KeyLine)
        keys = footer._read_keys()[0]
        ids = [k.id for k in keys]
        for room in (60, 30, 14, 8, 3):
            kept, palette = footer._fit(keys, room, 12)
            assert sum(map(footer._width, kept)) <= room or len(kept) <= 1, room
            assert not palette and not set(KeyLine.LEAVE_OUT) & {k.id for k in kept}
            assert [k.id for k in kept] == [i for i in ids if i in {k.id for k in kept}], "order kept"
            if kept:
                assert any(k.id == "help" and k.description == "More" for k in kept), (room, kept)
        assert footer._fit(keys, 200, 12) == (list(keys), True), "all fit: nothing left out, ? says Help"


async def test_a_dialog_hides_the_footer_keys_and_closing_it_shows_them_again():
    """The month-end confirmation turns every lab key off: the footer's row under the dialog
    shows none of the lab's keys (only the palette key stays), and escape shows the same keys
    again."""
    app = build(new_world())
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "1", panel="people")
        await drain(pilot)
        footer = app.query_one(KeyLine)
        before = footer.keys
        row = _row(app)
        assert "Next month" in row and "palette" in row
        await press(pilot, "n", to="ConfirmNextMonth")
        await drain(pilot)
        row = _row(app)
        assert "Next month" not in row and "Help" not in row, "no lab key is drawn under the dialog"
        assert "palette" in row, "the palette key stays"
        assert [k.description for k in footer.keys] == ["palette"]
        await press(pilot, "escape", to="LabScreen")
        await drain(pilot)
        assert "Next month" in _row(app)
        assert footer.keys == before


async def test_a_disabled_key_is_dim_and_a_change_of_keys_lays_nothing_out():
    """While a month closes (``busy``), n is disabled: after the bindings' change the footer is
    drawn once, with n dim and the other keys not, and nothing on the screen is laid out."""
    app = build(new_world())
    async with app.run_test(size=(140, 40)) as pilot:  # ? reads Help: nothing is left out
        await press(pilot, "1", panel="people")
        await drain(pilot)
        footer = app.query_one(KeyLine)
        screen = app.screen
        laid_out: list[object] = []
        original = screen._refresh_layout

        def layout(*args, **kwargs):
            laid_out.append(args)
            original(*args, **kwargs)

        screen._refresh_layout = layout  # type: ignore[method-assign]
        before = footer.renders
        app.busy = True
        screen.refresh_bindings()
        await drain(pilot)
        assert footer.renders == before + 1 and not laid_out
        enabled = {k.key: k.enabled for k in footer.keys}
        assert enabled["n"] is False and enabled["question_mark"] is True
        line = footer.render()
        dim = {
            line.plain[s.start : s.end].strip(): bool(s.style.dim) for s in line.spans if not isinstance(s.style, str)
        }
        assert dim["n"] and dim["Next month"], dim
        assert not dim["?"] and not dim["Help"], dim
        app.busy = False


async def test_clicking_a_key_runs_its_action_and_hovering_shows_its_tooltip():
    """A click on the footer's "n Next month" opens the month-end confirmation and one on
    "? Help" the help; the mouse over a Lab action key shows its binding's tooltip (the
    action's title), over the next key that key's, and over the space between keys none."""
    app = build(new_world())
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "1", panel="people")
        await drain(pilot)
        footer = app.query_one(KeyLine)
        row = _row(app)
        at = {k.key: row.index(f"{k.display} {k.description}") for k in footer.keys}
        bound = {b.key: b for _n, b, _e, _t in app.screen.active_bindings.values()}
        assert bound["R"].tooltip and bound["M"].tooltip and bound["R"].tooltip != bound["M"].tooltip
        await pilot.hover(KeyLine, offset=(at["R"] + 3, 0))
        await drain(pilot)
        assert footer.tooltip == bound["R"].tooltip
        await pilot.hover(KeyLine, offset=(at["M"], 0))
        await drain(pilot)
        assert footer.tooltip == bound["M"].tooltip
        await pilot.hover(KeyLine, offset=(at["M"] - 1, 0))  # the space before M
        await drain(pilot)
        assert footer.tooltip is None
        await pilot.click(KeyLine, offset=(at["n"] + 2, 0))
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmNextMonth", "the confirmation")
        await press(pilot, "escape", to="LabScreen")
        await drain(pilot)
        await pilot.click(KeyLine, offset=(at["question_mark"], 0))
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "the help")


async def test_the_replay_viewer_footer_shows_no_key_under_its_jump_dialog(tmp_path):
    """In the replay viewer, the jump dialog leaves q (quit) enabled in the viewer's bindings,
    but under the dialog q does nothing (the dialog has the keys): the footer's row under it
    shows no key of the viewer, and the viewer's keys again once the dialog closes."""
    from pibench_tui.tui.replay_app import make_replay_app

    from .rundir import write_run_dir

    app = make_replay_app(str(write_run_dir(tmp_path, months=3)), test_mode=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await drain(pilot)
        footer = app.query_one(KeyLine)
        assert {"j", "q", "question_mark"} <= {k.key for k in footer.keys}
        await press(pilot, "j")
        await wait_for(pilot, lambda: app.screen is not footer.screen, "the jump dialog")
        await drain(pilot)
        assert footer.screen.active_bindings["q"].enabled, "q is still enabled under the dialog"
        assert [k.description for k in footer.keys] == ["palette"]
        assert "Quit" not in _row(app) and "Jump" not in _row(app)
        await press(pilot, "escape")
        await wait_for(pilot, lambda: app.screen is footer.screen, "the viewer again")
        await drain(pilot)
        assert "q Quit" in _row(app) and "j Jump" in _row(app)


async def test_the_footer_leaves_out_by_one_ranking_and_keeps_the_console_key_longest():
    """QA: between 110 and 116 columns the Lab panel's footer hid ": Console" to keep the
    palette hint (a fixed width hid the palette below 110). Now at 110, 113 and 116 columns
    ": Console" shows on every panel with a console key, and at every width from 80 to 140
    what is left out follows KeyLine.LEAVE_OUT's order: whenever anything of it shows, all
    that ranks after it shows too (the palette hint never stays while the console goes)."""
    from pibench_tui.tui.app import TABS

    ranking = {"warning": "! Warnings", "quit": "q Quit", "save": "^s Save", KeyLine.PALETTE: "^p palette"}
    ranking |= {"reports": "d Reports", "console": ": Console"}
    assert tuple(ranking) == KeyLine.LEAVE_OUT
    for width in (80, 96, 104, 110, 113, 116, 124, 132, 140):
        app = build(new_world())
        async with app.run_test(size=(width, 24)) as pilot:
            for i, (tab, _title) in enumerate(TABS[:-1]):
                await press(pilot, str(i + 1), panel=tab)
                await drain(pilot)
                row = _row(app)
                shown = [key in row for key in ranking.values()]
                first = shown.index(True) if True in shown else len(shown)
                assert all(shown[first:]), (width, tab, row)
                if width in (110, 113, 116):
                    assert ": Console" in row, (width, tab, row)


async def test_d_and_bang_are_in_the_footer_when_there_is_room_the_help_and_the_palette(tmp_path):
    """d (the month reports) and ! (the next warning) were bound but shown nowhere but the help.
    At 120 columns on the Grants panel the footer shows "d Reports" and "! Warnings"; at 80 on
    the Lab panel (six actions) they are left out and still work; the help lists both keys; the
    command palette has both (ctrl+p, "next warning", enter goes to the warning's panel)."""
    from pibench_tui.tui.screens.help import keys_markdown

    w = new_world()
    Api(w).time.next_month()  # month 2: the PhD offers close next month (a warning, panel 2)
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "5", panel="grants")
        await drain(pilot)
        assert "d Reports" in _row(app) and "! Warnings" in _row(app), _row(app)
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert "(key d)" in commands["Month reports"] and "(key !)" in commands["Next warning"], commands
        await press(pilot, "ctrl+p", to="CommandPalette")
        await press(pilot, *"next warning")
        palette = app.screen
        await wait_for(
            pilot,
            lambda: (
                palette.query_one("CommandList").option_count > 0
                and "Next warning" in str(palette.query_one("CommandList").get_option_at_index(0).prompt)
            ),
            "the palette's first hit",
        )
        await press(pilot, "enter", panel="applicants")
        assert any("offers" in text.lower() for text, _severity in app.toasts), app.toasts
    rows = keys_markdown().splitlines()
    assert any(r.startswith("| d |") for r in rows) and any(r.startswith("| ! |") for r in rows)
    app = build(new_world(), tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "1", panel="people")
        await drain(pilot)
        assert "d Reports" not in _row(app) and "! Warnings" not in _row(app)
        await press(pilot, "d")
        assert any("no month has been closed yet" in text for text, _severity in app.toasts), app.toasts
