"""QA of the saves a ``play`` session leaves (issue 27 §6): the save dialog's blank name."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from tests.tui.conftest import build, new_world, press, send_keys


@pytest.mark.asyncio
async def test_a_blank_name_in_the_save_dialog_replaces_the_old_error(tmp_path):
    """ctrl+s, '..' enter: refused as only dots; then the field cleared and a space typed,
    enter: the dialog stays open and says the name is blank (the dots error used to stay,
    and enter did nothing). A good name then saves."""
    app = build(new_world("short-12"), tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "ctrl+s", to="SaveDialog")
        inp = app.screen.query_one("#save-name", Input)
        inp.value = ""
        await send_keys(pilot, "full_stop", "full_stop", "enter")
        error = app.screen.query_one("#save-error", Static)
        assert "only dots" in str(error.render())
        inp.value = ""
        await send_keys(pilot, "space", "enter")
        assert app.screen.__class__.__name__ == "SaveDialog"  # kept open
        text = str(error.render())
        assert "blank" in text and "only dots" not in text, text
        inp.value = ""
        await send_keys(pilot, "b", "enter")
        await press(pilot, to="LabScreen")
    assert "b" in {i.name for i in app.store.list()}
