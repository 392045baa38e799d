"""QA: the end screen of a career that hired two RAs read "0 researchers hired": the count was
the world summary's ``hires`` (PhD students and postdocs only, MECHANICS §12). The end screen
now counts everyone the lab hired, by role."""

from __future__ import annotations

import pytest

from pibench_tui.tui.screens.end import hired_line
from world.api import Api

from .conftest import build, close_month, new_world, screen_ready, wait_for


def test_hired_line_counts_every_role():
    """Hand-checked: roles in a fixed order, plural words, nobody as such."""
    assert hired_line([]) == "nobody hired"
    assert hired_line(["ra", "ra"]) == "2 hired (2 RAs)"
    assert hired_line(["ra", "phd", "manager", "postdoc", "phd"]) == (
        "5 hired (2 PhD students, 1 postdoc, 1 RA, 1 lab manager)"
    )


@pytest.mark.asyncio
async def test_the_end_screen_counts_the_ras_hired(tmp_path):
    """short-12, two RAs and a lab manager hired in month 1 and nobody else: at the end the
    summary says 3 hired (2 RAs, 1 lab manager), not "0 researchers hired"."""
    w = new_world("short-12")
    api = Api(w)
    api.recruit.hire_ra()
    api.recruit.hire_ra()
    api.recruit.hire_manager()
    for _ in range(11):
        api.time.next_month()
    app = build(w, tmp_path=tmp_path, show_digest=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await close_month(pilot, app)
        await wait_for(pilot, lambda: screen_ready(app, "EndScreen"), "the end screen")
        text = " ".join(str(app.screen.query_one("#end-impact").render()).split())
    assert "3 hired (2 RAs, 1 lab manager)" in text, text
    assert "researcher" not in text, text
