"""Resume is exact: a career saved at any month (before or after acting) and resumed in a
NEW process ends, at its horizon, in the very world of the uninterrupted career; loading a
save twice gives identical draws; saving changes nothing (issue 6, PRODUCT "Determinism")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from saves import SaveStore
from scenarios import load_scenario
from tests.saves.saves_resume_helper import step
from world.api import Api
from world.engine import World
from world.policies import make_policy

ROOT = Path(__file__).resolve().parents[2]


def resume_in_new_process(
    store: SaveStore, policy: str, names: list[str], *, once: bool = False
) -> dict[str, dict[str, str]]:
    flags = ["--once"] if once else []
    proc = subprocess.run(
        [sys.executable, "-m", "tests.saves.saves_resume_helper", *flags, str(store.path), policy, *names],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def career_with_saves(
    store: SaveStore, scenario: str, seed: int, policy: str, save_at: set[int], *, every_month: bool = False
) -> tuple[str, list[str]]:
    """Play an uninterrupted career, saving at the opening of each month in ``save_at`` and
    again after the policy acted; return the final digest and the save names."""
    scen = load_scenario(scenario, seed=seed)
    world = World(scen.config, scen.seed)
    api = Api(world)
    pol = make_policy(policy)
    names: list[str] = []
    while not world.finished:
        m = world.month
        if every_month or m in save_at:
            before = world.digest()
            names.append(store.save(f"{scenario}-{seed}-m{m:02d}", world, scenario=scen).name)
            assert world.digest() == before, "saving changed the world"
        pol.act(api)
        if m in save_at:
            names.append(store.save(f"{scenario}-{seed}-m{m:02d}-acted", world, scenario=scen).name)
        if not world.finished and world.month == m:
            api.time.next_month()
    names.append(store.save(f"{scenario}-{seed}-end", world, scenario=scen).name)
    return world.digest(), names


@pytest.mark.parametrize(
    "scenario, seed, policy, months",
    [
        ("standard", 101, "baseline", {1, 2, 13, 30, 59, 60}),
        # The default rules again, another seed and other months: under -m slow.
        pytest.param("eval-102", 102, "baseline", {1, 4, 25, 48}, marks=pytest.mark.slow),
        ("tutorial", 7, "ambitious", {3, 19, 44}),
        ("short-12", 103, "hire-max", {1, 6, 12}),
        ("frozen-field", 5, "baseline", {2, 31}),
    ],
)
def test_resume_in_a_new_process_reaches_the_same_world(tmp_path, scenario, seed, policy, months):
    """For several scenarios, seeds, policies and save months (opening and mid-month)."""
    store = SaveStore(tmp_path / "store")
    final, names = career_with_saves(store, scenario, seed, policy, months)
    results = resume_in_new_process(store, policy, names)
    assert set(results) == set(names)
    for name, r in results.items():
        assert r["loaded"] == r["record_digest"], f"{name}: the load did not rebuild the saved world"
        assert r["final"] == final, f"{name}: the resumed career ended in a different world"


@pytest.mark.slow
def test_a_save_after_every_month_resumes_identically(tmp_path):
    """Save at the opening of every month 1..60; each, resumed in a new process, ends identically."""
    store = SaveStore(tmp_path / "store")
    final, names = career_with_saves(store, "eval-101", 101, "baseline", set(), every_month=True)
    assert len(names) == 61
    results = resume_in_new_process(store, "baseline", names, once=True)  # double loads: tested above
    assert {r["final"] for r in results.values()} == {final}


def test_autosaves_resume_like_the_career_they_come_from(tmp_path):
    """The autosave helper (kept per career) gives the same resumable points."""
    store = SaveStore(tmp_path / "store")
    scen = load_scenario("eval-103")
    world = World(scen.config, scen.seed)
    api = Api(world)
    pol = make_policy("baseline")
    while not world.finished:
        step(world, api, pol)
        store.autosave("lab", world, scenario=scen, keep=4)
    names = [i.name for i in store.list(career="lab")]
    end = f"lab@m{world.month:02d}-end"  # month 60, or the month of a collapse
    assert len(names) == 4 and names[-1] == end
    results = resume_in_new_process(store, "baseline", names)
    assert {r["final"] for r in results.values()} == {world.digest()}
    assert store.resolve("lab").name == end


def test_loading_twice_in_process_gives_identical_pending_events_and_draws(tmp_path):
    """Nothing re-rolls on load: the same dashboard, pending events and next month."""
    store = SaveStore(tmp_path / "store")
    scen = load_scenario("standard")
    world = World(scen.config, scen.seed)
    api = Api(world)
    pol = make_policy("baseline")
    for _ in range(14):
        step(world, api, pol)
    api.memory.write("hypothesis: reasoning is cooling — ✓")
    store.save("mid", world, scenario=scen)
    a, _ = store.load_world("mid")
    b, _ = store.load_world("mid")
    api_a, api_b = Api(a), Api(b)
    assert api_a.lab.dashboard() == api_b.lab.dashboard() == api.lab.dashboard()
    assert api_a.events.pending() == api_b.events.pending() == api.events.pending()
    assert api_a.memory.read() == "hypothesis: reasoning is cooling — ✓"
    for w, ap in ((a, api_a), (b, api_b), (world, api)):
        step(w, ap, make_policy("baseline"))
    assert a.digest() == b.digest() == world.digest()
    assert a.to_state()["state"]["action_log"] == world.to_state()["state"]["action_log"]


def test_save_load_save_is_byte_identical(tmp_path):
    """A loaded career saved again yields the same state text (nothing drifts through a round trip)."""
    store = SaveStore(tmp_path / "store")
    scen = load_scenario("eval-101")
    world = World(scen.config, scen.seed)
    api = Api(world)
    pol = make_policy("ambitious")
    for _ in range(20):
        step(world, api, pol)
    first = store.save("a", world, scenario=scen)
    again, _ = store.load_world("a")
    second = store.save("b", again, scenario=scen)
    ra, rb = store.load("a"), store.load("b")
    assert ra.state == rb.state and first.digest == second.digest


def test_a_save_that_does_not_rebuild_its_recorded_world_is_refused(tmp_path):
    """If the rules changed since the save was written, loading says so instead of
    silently resuming a different career."""
    from saves import SaveCorruptError, describe_world

    store = SaveStore(tmp_path / "store")
    scen = load_scenario("short-12")
    world = World(scen.config, scen.seed)
    Api(world).time.next_month()
    meta, state = describe_world(world, scen)
    meta["digest"] = "0" * 64  # as if written by other rules
    store.save_state("old-rules", meta, state)
    assert store.load("old-rules").state == state  # the file itself is intact
    with pytest.raises(SaveCorruptError) as info:
        store.load_world("old-rules")
    assert info.value.kind == "mismatch" and "incompatible" in str(info.value)


def test_finished_and_collapsed_careers_are_saved_as_such(tmp_path):
    """A career played to its end saves as finished (or collapsed) at its last month and loads back
    finished with the same world digest."""
    store = SaveStore(tmp_path / "store")
    scen = load_scenario("short-12")
    world = World(scen.config, scen.seed)
    api = Api(world)
    while not world.finished:
        api.time.next_month()
    info = store.save("done", world, scenario=scen)
    assert info.finished and info.status in ("finished", "collapsed") and info.month == world.month
    again, _ = store.load_world("done")
    assert again.finished and again.digest() == world.digest()
