"""The fast paths of saving and loading (issue 9 §3: autosave within 4 ms a month, save and
load of a busy month-60 career within 15 ms): each gives exactly what the slow path gives,
and refuses exactly what it refuses."""

from __future__ import annotations

import json

import pytest

import saves.codec as codec_mod
from saves import CareerSaves, SaveCorruptError, SaveStore, describe_world, values
from saves.deltas import is_delta
from world.api import Api
from world.engine import World
from world.policies import make_policy


def step(world: World, api: Api, pol) -> None:
    m = world.month
    pol.act(api)
    if not world.finished and world.month == m:
        api.time.next_month()


def played(months: int) -> tuple[World, Api, object]:
    world = World(seed=101)
    api, pol = Api(world), make_policy("ambitious")
    while world.month < months and not world.finished:
        step(world, api, pol)
    return world, api, pol


def test_the_cached_save_text_is_the_one_shot_text():
    """Month after month, encode_text with a cache gives encode()'s text, untagged; a NaN, a
    tuple or an integer key anywhere in the state still gives encode()'s (tagged) result."""
    world, api, pol = played(2)
    cache = values.text_cache()
    for _ in range(14):
        step(world, api, pol)
        state = world.state_view()
        _, tagged, text = values.encode(state)
        assert values.encode_text(state, cache) == (tagged, text) and not tagged
    world.s.news[0] = tuple(world.s.news[0])
    world.s.ledger[0][2] = float("nan")
    world.s.eval_log["odd"] = {1: "one"}
    state = world.state_view()
    _, tagged, text = values.encode(state)
    assert tagged and values.encode_text(state, cache) == (True, text)


def test_a_file_as_written_is_verified_without_serialising_its_payload_again(tmp_path, monkeypatch):
    """A save file exactly as pibench wrote it is checked by hashing its payload bytes (no
    re-serialisation); the same file reformatted by hand still loads, through the full check;
    and a changed byte in the payload is still refused as tampered."""
    world, _, _ = played(6)
    store = SaveStore(tmp_path / "s", on_warning=None)
    store.save("lab", world, scenario="standard")
    calls = []
    real = codec_mod.canonical_json
    monkeypatch.setattr(codec_mod, "canonical_json", lambda doc: calls.append(1) or real(doc))
    expected = store.load("lab").state
    assert calls == []
    path = store.file_of("lab")
    path.write_text(json.dumps(json.loads(path.read_text()), indent=1) + "\n")
    assert store.load("lab").state == expected and len(calls) == 1
    raw = path.read_bytes().replace(b'"budget": ', b'"budget": 1', 1)
    path.write_bytes(raw)
    with pytest.raises(SaveCorruptError) as info:
        store.load("lab")
    assert info.value.kind == "tampered"


def test_a_sealed_save_that_does_not_rebuild_its_state_is_refused(tmp_path):
    """A sealed save whose state the world does not rebuild exactly (here a person's field
    missing, as in a save of another layout) is refused as a mismatch, like a digest
    mismatch, although the seal spares it the replay."""
    world, _, _ = played(6)
    store = SaveStore(tmp_path / "s", on_warning=None)
    meta, state = describe_world(world, "standard")
    people = state["state"]["people"]
    assert people
    del people[0]["impulse"]
    store.save_state("old-layout", meta, state, sealed=True)
    record = store.load("old-layout")
    assert record.sealed
    with pytest.raises(SaveCorruptError) as info:
        record.world()
    assert info.value.kind == "mismatch" and "incompatible" in str(info.value)


def test_a_loaded_world_takes_the_parsed_state_over_once_and_plays_on_exactly(tmp_path):
    """The first world of a loaded record uses the parsed state without a copy and continues
    exactly as the saved world does; a second world of the same record is a separate copy."""
    world, api, pol = played(10)
    store = SaveStore(tmp_path / "s", on_warning=None)
    store.save("lab", world, scenario="standard")
    record = store.load("lab")
    first = record.world()
    assert first.s.ledger is record.state["state"]["ledger"]
    saved_people = record.state["state"]["people"]
    assert [p.view() for p in first.s.people.values()] == saved_people
    assert all(p.view() is d for p, d in zip(first.s.people.values(), saved_people, strict=True))  # taken over
    second = record.world()
    assert second.s.ledger is not first.s.ledger
    api1, pol1 = Api(first), make_policy("ambitious")
    for _ in range(4):
        step(world, api, pol)
        step(first, api1, pol1)
    assert first.digest() == world.digest()
    assert second.digest() == record.info.digest != world.digest()


def test_saves_written_in_one_pass_hold_what_the_plain_path_writes(tmp_path):
    """save() and autosave() (digest and text from one pass of the world's cache) write the
    same state text and digest as save_state() of describe_world() (no cache), month after
    month of one career; an autosave written as a delta (no digest, no state text) reads
    back as that very state."""
    world, api, pol = played(3)
    store = SaveStore(tmp_path / "s", on_warning=None)
    writer = CareerSaves(store)  # the career's save writer: it keeps the caches and the deltas' base

    def saved(name: str) -> object:
        return json.loads(store.file_of(name).read_text())["save"]["state"]

    def text(state: object) -> str:
        return json.dumps(state, separators=(",", ":"))

    kinds = []
    for _ in range(6):
        step(world, api, pol)
        fast = writer.save("fast", world, scenario="standard")
        auto = writer.autosave("lab", world, scenario="standard")
        plain = store.save_state("plain", *describe_world(world, "standard"))
        assert fast.digest == plain.digest == world.digest()
        assert text(saved("fast")) == text(saved("plain"))
        delta = is_delta(saved(auto.name))
        kinds.append(delta)
        if not delta:
            assert auto.digest == world.digest() and text(saved(auto.name)) == text(saved("plain"))
        else:
            assert auto.digest == ""
        assert text(store.load(auto.name, exact=True).state) == text(saved("plain"))
    assert kinds == [False] + [True] * 5  # one whole autosave, then deltas of it


def test_the_saves_commands_load_neither_numpy_nor_package_metadata():
    """Importing the saves package and its command (as `pibench saves list` does) loads
    neither numpy (no value can be a numpy object before numpy is loaded) nor
    importlib.metadata (the version is looked up at the first save); saving still records
    the installed version."""
    import subprocess
    import sys
    from pathlib import Path

    code = "import sys, saves, saves.cli; print(sorted({'numpy', 'importlib.metadata'} & set(sys.modules)))"
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
    from saves.records import pibench_version

    assert pibench_version() and pibench_version() == pibench_version()
