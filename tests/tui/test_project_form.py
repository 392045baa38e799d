"""The start-project form ticks an idle pair for the player (researchers first) and stays
clear when nobody is idle: nothing ticked, a hint saying why, and sending asks for a member."""

from __future__ import annotations

import pytest

from pibench_tui.tui.alerts import idle_people
from world.api import Api

from .conftest import build, new_world, press, screen_text


def _lab(n_ras: int, on_project: list[str]):
    w = new_world()
    api = Api(w)
    for _ in range(n_ras):
        api.recruit.hire_ra()
    if on_project:
        api.projects.start("reasoning", 1, on_project, 1000)
    return w


@pytest.mark.asyncio
async def test_start_project_ticks_the_idle_people_or_says_nobody_is_idle(tmp_path):
    """Three RAs, RA001 on a project:

    - s ticks RA002 and RA003 (the idle ones), the list says who is idle and who is on which
      project, and ctrl+o starts the project with them;
    - then everyone is on a project: s ticks nobody, the hint says nobody is idle and what a
      second project does to a member's effort, and sending asks for at least one member."""
    app = build(_lab(3, ["RA001"]), tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        await press(pilot, "s", to="ActionForm")
        assert type(app.screen).__name__ == "ActionForm"
        assert app.screen.values["members"] == ["RA002", "RA003"], "the idle pair is ticked"
        text = screen_text(app)
        assert "Ticked as the form opened: RA002, RA003, on no project" in text
        assert "· on PJ001" in text and "· idle" in text
        await press(pilot, "ctrl+o", to="LabScreen")
        assert type(app.screen).__name__ != "ActionForm"
        started = [p for p in app.game.call("projects.list") if p["id"] != "PJ001"]
        assert [p["members"] for p in started] == [["RA002", "RA003"]]

        # nobody idle now
        await press(pilot, "s", to="ActionForm")
        assert app.screen.values["members"] == [], "nobody is ticked"
        text = screen_text(app)
        assert "Nobody is idle: everyone is on a project already, so nobody is ticked" in text
        assert "no member yet: tick at least one" in text
        await press(pilot, "ctrl+o")
        assert type(app.screen).__name__ == "ActionForm", "a project needs a member"
        assert "Members: choose at least one" in screen_text(app)


def test_idle_people_puts_researchers_before_ras():
    """Idle researchers (future authors) come before idle RAs; managers and members of an
    active project are never idle."""
    dash = {
        "students": [{"id": "PHD001"}, {"id": "PD001"}, {"id": "PHD002"}],
        "staff": [{"id": "RA001", "role": "ra"}, {"id": "MGR001", "role": "manager"}],
        "active_projects": [{"id": "PJ001", "members": ["PHD001"]}],
    }
    assert idle_people(dash) == ["PD001", "PHD002", "RA001"]


@pytest.mark.asyncio
async def test_the_ticked_note_stays_true_after_unticking(tmp_path):
    """QA: after unticking RA001 the start form still said 'Ticked for you: S002, RA001', which
    read as the current choice; the note says what was ticked as the form opened, and the live
    summary line above names the members as they are now."""
    app = build(_lab(3, []), tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        await press(pilot, "s", to="ActionForm")
        assert app.screen.values["members"] == ["RA001", "RA002"]
        await press(pilot, "tab", "tab", focus="field-2")
        await press(pilot, "space", until=lambda: app.screen.values["members"] == ["RA002"])
        text = screen_text(app)
        assert "Ticked as the form opened: RA001, RA002" in text and "Ticked for you" not in text
        assert "1 member (RA002)" in text
