"""Second QA round of the save store: a hand-edited save is refused by replaying its action
log (finding 5), look-alike career names are one name (finding 7), and ``saves show`` never
prints a scenario description that contradicts an overridden seed (finding 8b)."""

from __future__ import annotations

import copy
import io
import json
from argparse import Namespace

import pytest

from saves import SaveCorruptError, SaveError, SaveStore, describe_world
from saves.cli import cmd_show
from saves.store import TAMPERED, verify_replay
from scenarios import load_scenario
from world.api import Api
from world.engine import World
from world.policies import make_policy


def quiet(path) -> SaveStore:
    return SaveStore(path, on_warning=None)


def played(months: int, *, seed: int = 101, policy: str = "ambitious", mid_month: bool = False) -> World:
    """A real world played by ``policy`` to the opening of ``months`` (and, with
    ``mid_month``, the policy's calls of that month made but the month not closed)."""
    scen = load_scenario("standard", seed=seed)
    w = World(scen.config, scen.seed)
    api = Api(w)
    pol = make_policy(policy)
    while w.month < months and not w.finished:
        m = w.month
        pol.act(api)
        if not w.finished and w.month == m:
            api.time.next_month()
    if mid_month:
        pol.act(api)
    api.memory.write("notes the action log does not carry")
    return w


def forged(world: World, **changes) -> tuple[dict, dict]:
    """(meta, state) of ``world`` edited as QA did: state fields changed, digest blanked."""
    meta, state = describe_world(world, "standard")
    state = copy.deepcopy(state)
    state["state"].update(changes)
    meta["digest"] = ""
    return meta, state


# -- 5. edited saves -------------------------------------------------------------------------------
def test_an_edited_save_with_a_blank_digest_is_refused_as_tampered(tmp_path):
    world = played(8)
    store = quiet(tmp_path / "s")
    meta, state = forged(world, budget=50_000_000.0)
    store.save_state("rich", meta, state)  # as if the store itself had been written by hand
    assert store.load("rich").state["state"]["budget"] == 50_000_000.0  # the checksum is fine
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("rich", exact=True)
    assert err.value.kind == "tampered" and TAMPERED in str(err.value)
    with pytest.raises(SaveCorruptError, match="tampered"):
        store.load_world("rich")  # no other save of that career to fall back to
    out, errs = io.StringIO(), io.StringIO()
    assert cmd_show(Namespace(saves=str(store.path), name="rich", json=False), out, errs) == 1
    assert "integrity" in out.getvalue() and "FAILED" in out.getvalue() and TAMPERED in errs.getvalue()


def test_an_edited_save_cannot_be_imported(tmp_path):
    world = played(8)
    src = quiet(tmp_path / "src")
    meta, state = forged(world, budget=50_000_000.0)
    src.save_state("rich", meta, state)
    path = src.export("rich", tmp_path / "forged.json")  # export only checks the file
    dest = quiet(tmp_path / "dest")
    with pytest.raises(SaveCorruptError) as err:
        dest.import_file(path, name="rich")
    assert err.value.kind == "tampered"
    assert dest.list() == []  # nothing entered the store


@pytest.mark.parametrize("edit", [
    lambda st: st["state"]["action_log"].pop(),                      # a call removed
    lambda st: st["state"]["action_log"].append([1, "nope.nope", {}]),  # a call that cannot replay
    lambda st: st["rng"].__setitem__("main", None) if "main" in st["rng"] else st.__setitem__("rng", {}),
])
def test_other_edits_are_refused_too(tmp_path, edit):
    world = played(6)
    store = quiet(tmp_path / "s")
    meta, state = describe_world(world, "standard")
    state = copy.deepcopy(state)
    edit(state)
    meta["digest"] = ""
    store.save_state("x", meta, state)
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("x", exact=True)
    assert err.value.kind in ("tampered", "corrupt")


@pytest.mark.parametrize("mid_month", [False, True])
def test_honest_saves_replay_including_mid_month_ones(tmp_path, mid_month):
    """A save taken after some of a month's calls replays too (the log holds them), and the
    agent's memory notes (not in the log) do not count as tampering."""
    world = played(14, mid_month=mid_month)
    store = quiet(tmp_path / "s")
    store.save("lab", world, scenario="standard")
    loaded, record = store.load_world("lab", exact=True)
    assert loaded.digest() == world.digest() == record.info.digest
    assert loaded.s.memory == "notes the action log does not carry"
    out = io.StringIO()
    assert cmd_show(Namespace(saves=str(store.path), name="lab", json=True), out, io.StringIO()) == 0
    assert json.loads(out.getvalue())["integrity"].startswith("ok (checksum, digest, replay")


def test_a_save_without_a_digest_is_still_replayed_and_accepted_when_honest(tmp_path):
    world = played(5)
    store = quiet(tmp_path / "s")
    meta, state = describe_world(world, "standard")
    meta["digest"] = ""
    store.save_state("old", meta, state)
    loaded, _ = store.load_world("old", exact=True)
    assert loaded.digest() == world.digest()


def test_a_whole_busy_career_replays():
    """The replay check accepts an honest finished 60-month busy career (its cost is printed
    by bench/saves.py, not asserted here)."""
    world = played(61)
    assert world.finished and len(world.s.action_log) > 50
    verify_replay(world, "busy", "busy.json")


# -- 7. look-alike names ----------------------------------------------------------------------------
@pytest.mark.parametrize("lookalike", ["CAR1", "c\u0430r1", "Car1", "\uff43\uff41\uff52\uff11", "car\u200b1", "\u0441\u0430r1"])
def test_a_new_career_that_looks_like_an_existing_one_is_refused(tmp_path, fake, lookalike):
    from saves.store import name_key

    store = quiet(tmp_path / "s")
    store.autosave("car1", fake(seed=3, month=4))
    assert name_key(lookalike) == name_key("car1")
    with pytest.raises(SaveError) as err:
        store.check_new_career(lookalike)
    msg = str(err.value)
    assert "looks like the existing save 'car1'" in msg and "seed 3" in msg and "--load car1" in msg
    with pytest.raises(SaveError):  # resuming car1 under a look-alike name is refused too
        store.check_new_career(lookalike, resuming="car1")
    store.check_new_career("car1", resuming="car1")
    store.check_new_career("car2")
    store.check_new_career("Zoë's lab")  # other unicode stays welcome


def test_an_import_under_a_lookalike_name_is_refused(tmp_path, fake):
    store = quiet(tmp_path / "s")
    store.save("car1", fake(seed=3))
    path = store.export("car1", tmp_path / "car1.json")
    with pytest.raises(SaveError, match="looks like the existing save 'car1'"):
        store.import_file(path, name="CAR1")
    other = quiet(tmp_path / "t")
    other.save("Lab", fake(seed=5))
    auto = store.autosave("lab", fake(seed=6, month=2))
    with pytest.raises(SaveError, match="looks like the existing save 'Lab'"):
        other.import_file(store.export(auto.name, tmp_path / "auto.json"))
    assert store.import_file(path, name="car1-copy").name == "car1-copy"


# -- 8b. an overridden seed ------------------------------------------------------------------------
def _show(store, name, as_json=False) -> str:
    out = io.StringIO()
    assert cmd_show(Namespace(saves=str(store.path), name=name, json=as_json), out, io.StringIO()) == 0
    return out.getvalue()


def test_show_marks_an_overridden_seed_and_drops_the_description_of_the_other_seed(tmp_path):
    store = quiet(tmp_path / "s")
    scen = load_scenario("standard", seed=101)
    world = World(scen.config, scen.seed)
    store.save("car101", world, scenario=scen)
    text = _show(store, "car101")
    assert "1001, a practice seed" not in text
    assert "101 (overridden; scenario standard itself uses seed 1001)" in text
    assert "The default world: 60 months, $600,000 startup money." in text
    data = json.loads(_show(store, "car101", as_json=True))
    assert (data["seed"], data["scenario seed"], data["seed overridden"]) == (101, 1001, True)
    assert "1001" not in data["description"]


def test_show_keeps_the_description_when_the_seed_is_the_scenarios_own(tmp_path):
    store = quiet(tmp_path / "s")
    scen = load_scenario("standard")
    store.save("car1001", World(scen.config, scen.seed), scenario=scen)
    text = _show(store, "car1001")
    assert "Seed 1001, a practice seed" in text and "overridden" not in text
    data = json.loads(_show(store, "car1001", as_json=True))
    assert (data["seed"], data["seed overridden"]) == (1001, False)
