"""The key footer (KeysFooter): rebuilt once per key press, only when its keys change, and it
shows the active screen's keys."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from pibench_tui.tui.widgets.footer import KeysFooter

from .conftest import build, press

pytestmark = pytest.mark.asyncio


async def test_the_footer_is_rebuilt_once_per_key_and_only_when_its_keys_change(tmp_path):
    """Between two panels already shown once, a switch publishes several binding changes (the
    focus leaves one table and reaches another) and rebuilds the footer once, showing the new
    panel's keys; showing the same panel again changes no key and rebuilds nothing."""
    app = build(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "5", panel="grants")  # its first show composes the panel
        await press(pilot, "1", panel="people")
        footer = app.screen.query_one(KeysFooter)
        rebuilds: list[str] = []
        recompose = footer.recompose

        async def counted() -> None:
            rebuilds.append(app.tabs.active)
            await recompose()

        footer.recompose = counted  # type: ignore[method-assign]

        def shown() -> list[str]:
            return [k.key for k in footer.query(FooterKey) if "-command-palette" not in k.classes]

        def expected() -> list[str]:
            keys: list[str] = []
            for _node, binding, _enabled, _tooltip in app.screen.active_bindings.values():
                if binding.show and binding.key != app.COMMAND_PALETTE_BINDING and binding.key not in keys:
                    keys.append(binding.key)
            return keys

        await press(pilot, "5", panel="grants")
        assert rebuilds == ["grants"], f"one rebuild for a panel switch, not {len(rebuilds)}"
        assert shown() == expected() and "g" in shown(), "the footer shows the Grants panel's keys"
        await press(pilot, "5", panel="grants")
        assert rebuilds == ["grants"], "the same keys: no rebuild"
        await press(pilot, "1", panel="people")
        assert rebuilds == ["grants", "people"] and "R" in shown() and "g" not in shown()
