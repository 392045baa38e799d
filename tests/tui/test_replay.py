"""The replay viewer (``pibench play --replay SAVE|RUN_DIR``): read-only, month by month."""

from __future__ import annotations

import json

import pytest

from pibench_tui.tui.replay import Replayer, ReplayError, open_run_dir, open_source
from pibench_tui.tui.replay_app import make_replay_app
from saves import SaveStore
from scenarios import load_scenario
from world.api import Api
from world.api.cached import CachedApi
from world.engine import World
from world.policies import make_policy
from world.runner import AgentView

from .conftest import drain, new_world, press, screen_text
from .rundir import write_run_dir


def test_replayer_rebuilds_each_month_and_the_final_digest(tmp_path):
    """Forward, back and forward again give the same world at each month; the re-simulated
    end matches the recorded digest; each month's report comes from months.jsonl."""
    run = write_run_dir(tmp_path, months=12)
    r = Replayer(open_run_dir(run))
    assert r.last_month == 12 and r.ended
    seen = {m: r.goto(m).world.digest() for m in (1, 4, 7)}
    assert r.goto(4).world.digest() == seen[4]
    assert r.goto(7).world.digest() == seen[7]
    assert r.goto(1).world.month == 1 and len(r.game.world.s.action_log) == 3  # month 1's actions, not its close
    assert r.check_digest() is None
    assert r.goto(12).world.finished
    recorded = json.loads((run / "months.jsonl").read_text().splitlines()[2])["report"]
    assert recorded["month"] == 3 and r.report(3) == recorded == r.reports[3]


def test_bad_run_dirs_are_refused_with_the_reason(tmp_path):
    """A folder without result.json, a sealed seed, or a log that does not fit are refused clearly."""
    with pytest.raises(ReplayError, match="no result.json"):
        open_run_dir(tmp_path)
    run = write_run_dir(tmp_path, months=3)
    result = json.loads((run / "result.json").read_text())
    (run / "result.json").write_text(json.dumps({**result, "seed": None, "seed_commitment": "ab12"}))
    with pytest.raises(ReplayError, match="sealed"):
        open_run_dir(run)
    (run / "result.json").write_text(json.dumps({**result, "seed": result["seed"] + 1}))
    r = Replayer(open_run_dir(run))  # another seed: the same calls fit, the world differs
    assert "differs from the recorded" in (r.check_digest() or "")


def test_a_file_given_to_replay_is_named_as_not_a_run_directory(tmp_path):
    """`pibench play --replay F` with F a file (say a run's result.json): before, only "no save
    called 'F'"; now the message also says F is a file, not a run directory (a folder with
    result.json), and a name that is neither still gets the save store's message alone."""
    store = SaveStore(tmp_path / "saves")
    f = tmp_path / "result.json"
    f.write_text("{}")
    with pytest.raises(ReplayError, match=r"no save called .*is a file, not a run directory"):
        open_source(str(f), saves_dir=str(store.path))
    with pytest.raises(ReplayError) as info:
        open_source("nosuch", saves_dir=str(store.path))
    assert "no save called 'nosuch'" in str(info.value) and "not a run directory" not in str(info.value)


@pytest.mark.asyncio
async def test_viewer_steps_through_an_agent_run_read_only(tmp_path):
    """→ and ← move one month, j jumps, r shows the month's close, x the agent's code and output;
    n, action keys and ctrl+s do nothing; the console tab is gone."""
    run = write_run_dir(tmp_path, months=8)
    app = make_replay_app(str(run), test_mode=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await drain(pilot)
        assert app.replayer.month == 1 and "REPLAY" in str(app.header.render())
        await press(pilot, "right", "right")
        assert app.replayer.month == 3 and app.game.world.month == 3
        await press(pilot, "left")
        assert app.replayer.month == 2
        await press(pilot, "j", "6", "enter")
        assert app.replayer.month == 6
        await press(pilot, "x")
        assert type(app.screen).__name__ == "TranscriptScreen"
        assert "time.next_month()" in screen_text(app) and "month 6 closed" in screen_text(app)
        await press(pilot, "escape", "r")
        assert type(app.screen).__name__ == "DigestScreen" and "Month 6" in screen_text(app)
        await press(pilot, "escape")
        before = app.game.world.digest()
        await press(pilot, "n", "R", "ctrl+s", "colon")
        assert app.game.world.digest() == before and type(app.screen).__name__ == "LabScreen"
        assert app.replayer.month == 6


def test_final_digest_check_counts_the_agents_notes(tmp_path):
    """The agent's notes are in the world's state but not in its action log: a run directory
    whose result records them (``memory_final``), and a save with notes, replay to their
    digest, with no false "differs" warning."""
    run = write_run_dir(tmp_path, months=3)
    result = json.loads((run / "result.json").read_text())
    replayer = Replayer(open_run_dir(run))
    ended = replayer.goto(replayer.last_month).world
    ended.s.memory = "notes of month 3"
    (run / "result.json").write_text(
        json.dumps({**result, "digest": ended.digest(), "memory_final": "notes of month 3"})
    )
    assert Replayer(open_run_dir(run)).check_digest() is None
    store = SaveStore(tmp_path / "saves", on_warning=None)
    w = new_world("short-12")
    api = Api(w)
    api.memory.write("hire in month 2")
    api.time.next_month()
    store.save("noted", w, scenario="short-12")
    assert Replayer(open_source("noted", saves_dir=str(store.path))).check_digest() is None


@pytest.mark.asyncio
async def test_viewer_opens_a_save(tmp_path):
    """A save name opens the saved career from month 1 to the month it was saved in."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    w = new_world("short-12")
    api = Api(w)
    api.recruit.hire_ra()
    api.time.next_month()
    api.time.next_month()
    store.save("mine", w, scenario="short-12")
    src = open_source("mine", saves_dir=str(store.path))
    assert src.kind == "save"
    app = make_replay_app("mine", saves_dir=str(store.path), test_mode=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await drain(pilot)
        assert app.replayer.last_month == 3
        await press(pilot, "end")
        assert app.game.world.month == 3 and app.game.world.digest() == w.digest()
        await press(pilot, "q")
    assert app.return_code == 0


@pytest.mark.asyncio
async def test_viewer_column_hint_does_not_offer_the_month_keys(tmp_path):
    """At 80×24 the Lab table is cut; in the viewer ← → step months, so the hint under the
    table names shift+wheel for the columns and says what ← → do here."""
    run = write_run_dir(tmp_path, months=4)
    app = make_replay_app(str(run), test_mode=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await drain(pilot)
        await drain(pilot)
        text = screen_text(app)
        assert "more columns (shift+wheel scroll; ← → step months here)" in text
        await press(pilot, "right")
        assert app.replayer.month == 2


def _baseline_1001(months: int) -> World:
    """The baseline policy's career on seed 1001 of the standard scenario, up to ``months``."""
    sc = load_scenario("standard", seed=1001)
    w = World(sc.config, sc.seed)
    view, policy = AgentView(CachedApi(Api(w))), make_policy("baseline")
    while w.month <= months:
        m = w.month
        policy.act(view)
        if w.month == m:
            Api(w).time.next_month()
    return w


@pytest.mark.asyncio
async def test_viewer_report_of_a_quit_month_names_the_month_and_the_signs(tmp_path):
    """QA: in the viewer, r on month 19 of a career where S001 quit that month said 'Ivo
    Rossi (S001, phd) quit in month 0 with no visible warning sign': the report was read
    against the world of month 19's actions, before the close (S001 not gone yet). It is read
    against the world after the close, as the live digest was: the quit month and its signs."""
    w = _baseline_1001(20)  # both PhD students quit in months 18 and 19
    quits = {
        r["id"]: r["left_month"] for r in Api(w).query("select id, left_month from students where status = 'quit'")
    }
    assert quits
    pid, left = next(iter(quits.items()))
    store = SaveStore(tmp_path / "saves", on_warning=None)
    store.save("quits", w, scenario="standard")
    app = make_replay_app("quits", saves_dir=str(store.path), test_mode=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await drain(pilot)
        app._show(left)
        await press(pilot, "r", to="DigestScreen")
        text = screen_text(app)
        assert f"quit in month {left}" in text and "quit in month 0" not in text


@pytest.mark.asyncio
async def test_viewer_column_hint_names_whole_columns_and_counts_the_rest_at_80x24(tmp_path):
    """QA: at 80x24 the viewer's hint read '→ more columns (shift+wheel scroll; ← → step months
    here): Pay/mo, Papers, Co…' (a column cut mid-word). Names that do not fit are counted."""
    run = write_run_dir(tmp_path, months=4)
    app = make_replay_app(str(run), test_mode=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await drain(pilot)
        await drain(pilot)
        line = next(x for x in screen_text(app).splitlines() if "more columns" in x)
        assert "…" not in line and line.rstrip().endswith(" more")


@pytest.mark.asyncio
async def test_viewer_exclamation_mark_goes_through_the_months_warnings(tmp_path):
    """QA: the viewer's header says '+2 more (!)', but ! showed the first warning at every
    press. Each press shows the next one, as the PI read it, then the first again."""
    from pibench_tui.tui.alerts import alerts

    store = SaveStore(tmp_path / "saves", on_warning=None)
    store.save("b", _baseline_1001(20), scenario="standard")
    app = make_replay_app("b", saves_dir=str(store.path), test_mode=True)
    app.toasts = []  # type: ignore[attr-defined]
    shown = app.notify

    def notify(message, *args, **kwargs):
        app.toasts.append(str(message))  # type: ignore[attr-defined]
        return shown(message, *args, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await drain(pilot)
        month = next(m for m in range(2, 20) if len(alerts(app.replayer.goto(m))) >= 2)
        app._show(month)
        found = alerts(app.game)
        for i in range(len(found) + 1):
            told = len(app.toasts)
            await press(pilot, "exclamation_mark", until=lambda n=told: len(app.toasts) > n)
            assert app.toasts[-1] == found[i % len(found)].text and app.tabs.active == found[i % len(found)].tab
