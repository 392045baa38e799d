"""The Projects panel's Scooped column counts a scoop from the month its news is out (§6: the
news comes a month after the scoop; ``projects.scooped_times`` counts it from then too)."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from tests.world.mechanics_helpers import add_person, make_world
from world.api import Api

from .conftest import build, close_month, press

pytestmark = pytest.mark.asyncio


async def test_the_scooped_column_waits_for_the_scoop_news():
    """A world where every project past a quarter of its work is scooped (``scoop_rate`` 1):
    PJ001 is scooped at the tick of month 3, its news is dated month 4. Acting in month 4 the
    world holds the scoop but no news has told of it: the panel shows 0; once the news is
    out (month 5) it shows 1."""
    w = make_world(seed=3, scoop_rate=1.0)
    api = Api(w)
    pid = api.projects.start("theory", 1, [add_person(w).id, add_person(w).id], 0)["project_id"]
    for _ in range(3):
        api.time.next_month()
    assert w.month == 4 and w.s.projects[pid].scoops == 1
    assert api.query("select month from news where kind = 'scoop'") == []
    app = build(w)
    async with app.run_test(size=(160, 40)) as pilot:
        await press(pilot, "3", panel="projects")
        table = app.screen.query_one("#projects-table", DataTable)

        def scooped() -> str:
            row = table.get_row_at(0)
            assert str(row[0]) == pid
            return str(row[[str(c.label) for c in table.ordered_columns].index("Scooped")])

        assert scooped() == "0"
        await close_month(pilot, app)
        await press(pilot, "enter", to="LabScreen")  # the digest
        await press(pilot, "3", panel="projects")
        assert api.query("select month from news where kind = 'scoop'") == [{"month": 4}]
        assert scooped() == "1"
