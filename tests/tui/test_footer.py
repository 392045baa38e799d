"""The key footer (KeysFooter): updated once per key press, only when its keys change, in place
(its key widgets are kept, not remounted), and it shows the active screen's keys."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from pibench_tui.tui.widgets.footer import KeysFooter

from .conftest import build, drain, press

pytestmark = pytest.mark.asyncio


async def test_the_footer_is_updated_in_place_once_per_key_and_only_when_its_keys_change(tmp_path):
    """Between two panels already shown once, a switch publishes several binding changes (the
    focus leaves one table and reaches another) and updates the footer once, showing the new
    panel's keys with the key widgets it had (the fixed keys n ? : are the same widgets; none is
    recomposed); showing the same panel again changes no key and updates nothing."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "5", panel="grants")  # its first show composes the panel
        await press(pilot, "1", panel="people")
        footer = app.screen.query_one(KeysFooter)
        recomposed: list[str] = []
        recompose = footer.recompose

        async def counted() -> None:
            recomposed.append(app.tabs.active)
            await recompose()

        footer.recompose = counted  # type: ignore[method-assign]

        def widgets() -> list[FooterKey]:
            return [k for k in footer.query(FooterKey) if "-command-palette" not in k.classes and k.display]

        def shown() -> list[str]:
            return [k.key for k in widgets()]

        def expected() -> list[str]:
            keys: list[str] = []
            for _node, binding, _enabled, _tooltip in app.screen.active_bindings.values():
                if binding.show and binding.key != app.COMMAND_PALETTE_BINDING and binding.key not in keys:
                    keys.append(binding.key)
            return keys

        before, kept = footer.updates, widgets()[:3]
        await press(pilot, "5", panel="grants")
        assert footer.updates == before + 1, f"one update for a panel switch, not {footer.updates - before}"
        assert shown() == expected() and "g" in shown(), "the footer shows the Grants panel's keys"
        assert widgets()[:3] == kept and not recomposed, "the fixed keys' widgets are kept, nothing recomposed"
        await press(pilot, "5", panel="grants")
        assert footer.updates == before + 1, "the same keys: no update"
        await press(pilot, "1", panel="people")
        assert footer.updates == before + 2 and "R" in shown() and "g" not in shown()
        assert shown() == expected() and not recomposed
        bound = {b.key: b.description for _n, b, _e, _t in app.screen.active_bindings.values()}
        assert all(k.description == bound[k.key] for k in widgets()), "each key shows its own label after the update"


async def test_at_80_columns_every_panel_footer_shows_whole_keys_and_its_actions(tmp_path):
    """At 80x24, on each panel 1-9 (and at 120 columns for comparison): no footer key is drawn
    past the footer's right edge (none cut mid-word), every key of the panel's own actions is
    shown with its label, and n (next month) and ? show on every panel but the console. Where
    keys had to be left out (the Lab panel's six actions), ? reads "More" and the keys left out
    are the console, quit and save, which stay bound; at 120 columns nothing is left out."""
    from pibench_tui.tui.actions import ACTIONS, SHORT
    from pibench_tui.tui.app import TABS

    for width in (80, 120):
        app = build(tmp_path=tmp_path)
        async with app.run_test(size=(width, 24)) as pilot:
            for i, (tab, _title) in enumerate(TABS):
                await press(pilot, str(i + 1), panel=tab)
                await drain(pilot)
                footer = app.screen.query_one(KeysFooter)
                keys = [k for k in footer.query(FooterKey) if k.display]
                assert all(k.region.right <= footer.region.right for k in keys), (width, tab)
                assert footer.max_scroll_x == 0, (width, tab, "the footer would scroll: a key is cut")
                shown = {k.key: k.description for k in keys}
                wanted = {a.key: SHORT.get(a.id, a.title) for a in ACTIONS if a.tab == tab}
                assert wanted.items() <= shown.items(), (width, tab, shown)
                if tab == "console":
                    continue
                assert "n" in shown and "question_mark" in shown, (width, tab, shown)
                left_out = {"colon", "q", "ctrl+s"} - set(shown)
                assert (shown["question_mark"] == "More") == bool(left_out), (width, tab, shown)
                if width == 120:
                    assert not left_out, (tab, shown)
                elif tab == "people":
                    assert left_out == {"colon", "q", "ctrl+s"}, shown
                bound = {b.key for _n, b, _e, _t in app.screen.active_bindings.values()}
                assert left_out <= bound, "the keys left out still work"
