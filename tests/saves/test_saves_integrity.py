"""Edited saves: a hand-edited save (state changed, digest blanked or not) is refused by
replaying its action log, on load and on import; honest saves, mid-month ones included,
replay and are accepted."""

from __future__ import annotations

import copy
import io
import json
from argparse import Namespace
from pathlib import Path

import pytest

from saves import SaveCorruptError, SaveStore, describe_world
from saves.cli import cmd_show
from saves.verify import TAMPERED, same_world, verify_replay
from scenarios import load_scenario
from tests.careers import play_to
from world.api import replay
from world.engine import World


def quiet(path) -> SaveStore:
    return SaveStore(path, on_warning=None)


def played(months: int, *, seed: int = 101, policy: str = "ambitious", mid_month: bool = False) -> World:
    """A real world played by ``policy`` to the opening of ``months`` (and, with
    ``mid_month``, the policy's calls of that month made but the month not closed)."""
    scen = load_scenario("standard", seed=seed)
    w = World(scen.config, scen.seed)
    api, pol = play_to(w, months, policy)
    if mid_month:
        pol.act(api)
    api.memory.write("notes the action log does not carry")
    return w


def forged(world: World, **changes) -> tuple[dict, dict]:
    """(meta, state) of ``world`` hand-edited: state fields changed, digest blanked."""
    meta, state = describe_world(world, "standard")
    state = copy.deepcopy(state)
    state["state"].update(changes)
    meta["digest"] = ""
    return meta, state


# -- edited saves -------------------------------------------------------------------------------
def test_an_edited_save_with_a_blank_digest_is_refused_as_tampered(tmp_path):
    """A save whose state was edited and digest blanked is refused as tampered: replaying its action
    log does not give its state."""
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
    """An edited save cannot be imported into a store either."""
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


@pytest.mark.parametrize("field,value", [("month", 33), ("seed", 555)])
def test_a_save_whose_details_were_edited_is_refused(tmp_path, field, value):
    """A save whose state is honest but whose details (the month or seed that `saves list`
    shows) were edited is refused on load and on import: a list never shows one world and
    loads another."""
    world = played(6)
    src = quiet(tmp_path / "src")
    meta, state = describe_world(world, "standard")
    meta[field] = value
    src.save_state("liar", meta, state)  # as if written by hand, checksum recomputed
    with pytest.raises(SaveCorruptError) as err:
        src.load_world("liar", exact=True)
    assert err.value.kind == "tampered" and "its details were edited" in str(err.value)
    path = src.export("liar", tmp_path / "liar.json")
    dest = quiet(tmp_path / "dest")
    with pytest.raises(SaveCorruptError, match="its details were edited"):
        dest.import_file(path)
    assert dest.list() == []


@pytest.mark.parametrize(
    "edit",
    [
        lambda st: st["state"]["action_log"].pop(),  # a call removed
        lambda st: st["state"]["action_log"].append([1, "nope.nope", {}]),  # a call that cannot replay
        lambda st: st["rng"].__setitem__("main", None) if "main" in st["rng"] else st.__setitem__("rng", {}),
    ],
)
def test_other_edits_are_refused_too(tmp_path, edit):
    """Other state edits (with the digest blanked) are refused the same way."""
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
    """An honest save without a digest is replayed and accepted."""
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


def test_a_forged_month_end_with_arguments_is_refused_on_replay(tmp_path):
    """A logged ``time.next_month`` row given arguments (which the call refuses in play) is
    refused on replay too: the replay's shortcut for month ends (no dashboard built) takes
    only rows exactly as the API logs them."""
    world = played(5)
    store = quiet(tmp_path / "s")
    meta, state = describe_world(world, "standard")
    state = copy.deepcopy(state)
    row = next(r for r in state["state"]["action_log"] if r[1] == "time.next_month")
    row[2] = {"months": 3}
    meta["digest"] = ""
    store.save_state("skip", meta, state)
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("skip", exact=True)
    assert err.value.kind == "tampered" and "unexpected keyword argument 'months'" in str(err.value)


def test_an_honest_save_with_its_dicts_in_another_order_still_loads(tmp_path):
    """The replay check compares the replayed world with the saved one exactly first, and by
    digest (sorted keys) when that fails: an honest save whose dicts were written in another
    order (as an older writer may have) is accepted, and a forged one still refused."""
    world = played(6)
    store = quiet(tmp_path / "s")
    meta, state = describe_world(world, "standard")
    state = copy.deepcopy(state)
    counters = state["state"]["counters"]
    assert len(counters) > 1
    state["state"]["counters"] = dict(reversed(counters.items()))
    store.save_state("reordered", meta, state)
    loaded, _ = store.load_world("reordered", exact=True)
    assert not same_world(loaded, world)  # not the same order: the digests decided
    assert loaded.digest() == world.digest()
    meta, state = forged(world, counters=dict(reversed(counters.items())), budget=1e9)
    store.save_state("reordered-rich", meta, state)
    with pytest.raises(SaveCorruptError, match="tampered"):
        store.load_world("reordered-rich", exact=True)


def test_same_world_tells_a_replayed_world_from_a_changed_one():
    """``same_world`` is true for a career and its replay, false once one of them differs in
    any digested value (here one dollar of budget, or the type of a number)."""
    world = played(7)
    twin = replay(world.cfg, world.seed, world.s.action_log)
    twin.s.memory = world.s.memory
    assert same_world(twin, world) and twin.digest() == world.digest()
    twin.s.budget += 1.0
    assert not same_world(twin, world)
    twin.s.budget -= 1.0
    assert same_world(twin, world)
    twin.s.counters = {k: float(v) for k, v in twin.s.counters.items()}  # 2 -> 2.0: == alone would pass
    assert not same_world(twin, world)


def test_an_edited_save_that_keeps_its_digest_is_refused_as_tampered(tmp_path):
    """A save whose budget was edited by hand, its checksum recomputed and its recorded digest
    left as it was, is refused as tampered (its action log replays to the recorded digest, so
    the state changed after the save), not as a save of another version of the rules."""
    world = played(8)
    store = quiet(tmp_path / "s")
    meta, state = describe_world(world, "standard")
    state = copy.deepcopy(state)
    state["state"]["budget"] = 50_000_000.0
    assert meta["digest"] == world.digest()
    store.save_state("rich", meta, state)
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("rich", exact=True)
    assert err.value.kind == "tampered" and TAMPERED in str(err.value) and "edited after" in str(err.value)


def test_an_import_reads_no_more_than_a_save_can_be(tmp_path, monkeypatch):
    """`saves import` of a file bigger than any save (MAX_IMPORT_BYTES), or of something that
    is not a file (a device such as /dev/zero, a pipe, a folder), is refused before it is read,
    naming the limit or what it is: `pibench saves import /dev/zero` read until the OOM killer
    stopped it (53 s, 48 s of system time), taking the machine's memory with it."""
    import os

    from saves import SaveError
    from saves import files as files_mod

    src = quiet(tmp_path / "src")
    meta, state = describe_world(played(2), "standard")
    src.save_state("small", meta, state)
    path = src.export("small", tmp_path / "small.json")
    dest = quiet(tmp_path / "dest")
    monkeypatch.setattr(files_mod, "MAX_IMPORT_BYTES", path.stat().st_size - 1)
    with pytest.raises(SaveError, match=r"bytes; a save file is at most [\d,]+ bytes"):
        dest.import_file(path)
    with pytest.raises(SaveError, match=r"bytes; a save file is at most"):
        files_mod.read_save_file(path)
    monkeypatch.undo()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer
    for special in ([Path("/dev/zero")] if Path("/dev/zero").exists() else []) + [fifo, tmp_path]:
        with pytest.raises(SaveError, match="not a file"):
            dest.import_file(special, name="x")
    assert dest.list() == []
    assert dest.import_file(path).name == "small"  # an ordinary save still comes in
