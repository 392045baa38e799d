"""Autosave deltas (issue 9 §3: autosave within 4 ms a month): between two whole autosaves of
a live world, an autosave writes only the calls logged since the last whole one; loading it
rebuilds exactly the world that was saved, and anything that does not rebuild exactly (a
damaged or replaced base, an edited delta, a world changed behind the API's back) is refused,
never half-loaded."""

from __future__ import annotations

import io
import json
import shutil
from argparse import Namespace

import pytest
from tinydb import Query

from saves import CareerSaves, SaveCorruptError, SaveStore
from saves import seal as seal_mod
from saves import store as store_mod
from saves.cli import cmd_export, cmd_show
from saves.codec import SAVE_FORMAT, checksum, encode_envelope
from saves.deltas import DELTA_MONTHS, is_delta
from saves.seal import read_key
from saves.values import canonical_json
from world.api import Api
from world.engine import World
from world.policies import make_policy


def step(world: World, api: Api, pol) -> None:
    m = world.month
    pol.act(api)
    if not world.finished and world.month == m:
        api.time.next_month()


def career(seed: int = 101):
    world = World(seed=seed)
    return world, Api(world), make_policy("ambitious")


def saved_state(store: SaveStore, name: str) -> dict:
    return json.loads(store.file_of(name).read_text())["save"]["state"]


def autosaved(
    store: SaveStore, months: int, seed: int = 101, keep: int = 3, writer: CareerSaves | None = None
) -> World:
    """Play ``months`` months of the ambitious lab, autosaving each one as career ``c`` through
    the career's save writer (``writer``, else a new one for ``store``): it keeps the base
    the deltas build on."""
    writer = writer or CareerSaves(store)
    world, api, pol = career(seed)
    for _ in range(months):
        step(world, api, pol)
        writer.autosave("c", world, scenario="standard", keep=keep)
    return world


def test_deltas_between_whole_autosaves_rebuild_the_saved_world(tmp_path, count_replays):
    """Autosaving every month writes one whole autosave, then deltas, and a whole one again
    every DELTA_MONTHS months; every autosave loads (without a replay from the seed) to the
    very world saved: same digest, same month, same agent notes."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    writer = CareerSaves(store)
    world, api, pol = career()
    kinds = []
    for _ in range(2 * DELTA_MONTHS + 1):
        step(world, api, pol)
        api.memory.write(f"notes of month {world.month}")
        info = writer.autosave("c", world, scenario="standard", keep=60)
        kinds.append(is_delta(saved_state(store, info.name)))
        assert (info.digest == "") is kinds[-1]
        loaded, record = store.load_world(info.name, exact=True)
        assert record.sealed and loaded.digest() == world.digest() and loaded.month == world.month
        assert loaded.s.memory == f"notes of month {world.month}"
    whole = [False] + [True] * (DELTA_MONTHS - 1)
    assert kinds == whole + whole + [False]
    assert count_replays == []  # the seal and the base stand in for a replay from the seed


def test_a_career_resumed_from_a_delta_ends_as_the_uninterrupted_one(tmp_path):
    """Resuming from a delta autosave and playing on gives the world of the career that was
    never interrupted, month after month, to the end."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    world = autosaved(store, 9)
    assert is_delta(saved_state(store, "c@m10"))
    resumed, _ = store.load_world("c")
    api, pol = Api(world), make_policy("ambitious")
    api2, pol2 = Api(resumed), make_policy("ambitious")
    while not world.finished:
        step(world, api, pol)
        step(resumed, api2, pol2)
        assert resumed.digest() == world.digest()


def test_the_base_of_deltas_is_kept_until_no_delta_needs_it(tmp_path):
    """The whole autosave deltas build on stays on disk after it is rotated out of the list
    (keep 2), and is collected once a newer whole autosave has replaced every delta on it."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    writer = CareerSaves(store)
    world, api, pol = career()
    step(world, api, pol)
    base = writer.autosave("c", world, scenario="standard", keep=2)
    for _ in range(3):
        step(world, api, pol)
        writer.autosave("c", world, scenario="standard", keep=2)
    assert base.name not in store.names() and (store.blob_dir / base.file).is_file()
    assert store.load_world("c")[0].digest() == world.digest()
    for _ in range(DELTA_MONTHS + 2):
        step(world, api, pol)
        writer.autosave("c", world, scenario="standard", keep=2)
    assert not (store.blob_dir / base.file).exists()
    assert store.load_world("c")[0].digest() == world.digest()


@pytest.mark.parametrize("damage", ["missing", "garbage", "replaced"])
def test_a_delta_whose_base_is_damaged_is_refused(tmp_path, damage):
    """A delta whose base file is missing, damaged or replaced by another valid save is
    refused with a clear error (never half-loaded); the career's loader then says every
    autosave it tried."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    autosaved(store, 4)
    base = saved_state(store, "c@m05")["base"]["file"]
    path = store.blob_dir / base
    if damage == "missing":
        path.unlink()
    elif damage == "garbage":
        path.write_bytes(b"garbage\n")
    else:
        other = SaveStore(tmp_path / "other", on_warning=None)
        w, api, pol = career(seed=7)
        step(w, api, pol)
        other.save("x", w, scenario="standard")
        path.write_bytes(other.file_of("x").read_bytes())
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("c@m05", exact=True)
    assert err.value.kind in {"unreadable", "corrupt", "mismatch"}
    assert base in str(err.value) or "builds on" in str(err.value)
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("c")
    assert "none of the saves" in str(err.value) and "'c@m05'" in str(err.value)


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_a_damaged_base_is_named_in_the_career_loaders_message(tmp_path, damage):
    """When the base file of a career's deltas is truncated or corrupt, the message of
    `--load CAREER` says, for every autosave it tried, that the autosave builds on that file
    and what is wrong with it (not as if the autosave's own file were damaged)."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    autosaved(store, 4)
    base = saved_state(store, "c@m05")["base"]["file"]
    path = store.blob_dir / base
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2] if damage == "truncated" else raw.replace(b'"month"', b'"month" x', 1))
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("c")
    tried = [name for name in ("c@m03", "c@m04", "c@m05") if f"'{name}' (month" in err.value.detail]
    assert tried == ["c@m03", "c@m04", "c@m05"], err.value.detail
    for name in tried:
        assert f"the autosave {name!r} builds on the file {base}, which cannot be used: " in err.value.detail
    assert ("truncated" if damage == "truncated" else "corrupt") in err.value.detail


def test_an_index_pointing_at_another_careers_delta_is_refused(tmp_path):
    """Index entries of two careers whose files were swapped (the index rewritten with a valid
    checksum, each entry taking the other's file, checksum and base) never load the other
    career's world under the wrong name: the exact load is refused as a mismatch naming the
    save the file holds, and the career's loader falls back to its previous autosave."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    autosaved(store, 3)
    d_world, api, pol = career(seed=7)
    d_writer = CareerSaves(store)
    for _ in range(3):
        step(d_world, api, pol)
        d_writer.autosave("d", d_world, scenario="standard")
    c, d = store.resolve("c@m04", exact=True), store.resolve("d@m04", exact=True)
    c_doc = {"file": c.file, "checksum": c.checksum}
    with store._writing() as table:
        table.update({"file": d.file, "checksum": d.checksum}, Query().name == "c@m04")
        table.update(c_doc, Query().name == "d@m04")
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("d@m04", exact=True)
    assert err.value.kind == "mismatch" and "holds the save 'c@m04' (seed 101)" in str(err.value)
    loaded, record = store.load_world("d")
    assert record.info.name == "d@m03" and loaded.seed == 7


def test_a_store_copied_without_its_seal_key_says_so(tmp_path):
    """A store copied without its hidden seal key (``cp -r DIR/* COPY``) refuses its deltas
    as unsealed, and the message names the missing key file and how to copy a store."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    autosaved(store, 3)
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(store.index_path, copy / "index.json")
    shutil.copytree(store.blob_dir, copy / "blobs")
    with pytest.raises(SaveCorruptError) as err:
        SaveStore(copy, on_warning=None).load_world("c@m04", exact=True)
    assert err.value.kind == "tampered" and ".seal-key" in str(err.value) and "cp -a" in str(err.value)
    shutil.copy(store.path / ".seal-key", copy / ".seal-key")
    assert SaveStore(copy, on_warning=None).load_world("c@m04", exact=True)[1].info.name == "c@m04"


def test_the_whole_autosave_deltas_build_on_reaches_the_disk_first(tmp_path, monkeypatch):
    """Autosaves skip the fsync, except the whole one: its deltas build on it, so a power cut
    must not lose it while leaving them. The seal key, which every delta's seal needs, is
    fsync'd when the store makes it."""
    writes: list[tuple[str, bool]] = []
    real = store_mod.atomic_write

    def recorded(path, data, **kw):
        writes.append((path.name, kw.get("durable", True)))
        return real(path, data, **kw)

    monkeypatch.setattr(store_mod, "atomic_write", recorded)
    store = SaveStore(tmp_path / "s", on_warning=None)
    autosaved(store, 3)
    durable = dict(writes)
    files = {name: store.resolve(name, exact=True).file for name in ("c@m02", "c@m03", "c@m04")}
    assert not is_delta(saved_state(store, "c@m02")) and is_delta(saved_state(store, "c@m04"))
    assert [durable[files[n]] for n in ("c@m02", "c@m03", "c@m04")] == [True, False, False]

    synced: list[int] = []
    real_fsync = seal_mod.os.fsync
    monkeypatch.setattr(seal_mod.os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    (tmp_path / "k").mkdir()
    assert seal_mod.make_key(tmp_path / "k") is not None and len(synced) == 1


def reseal(store: SaveStore, name: str, edit) -> None:
    """Edit a delta's state with ``edit``, then rewrite it as the store would (checksum and
    seal from the store's key), so that only the delta's own checks can refuse it."""
    info = store.resolve(name, exact=True)
    path = store.blob_dir / info.file
    env = json.loads(path.read_text())
    edit(env["save"]["state"])
    payload = canonical_json(env["save"])
    blob, digest = encode_envelope(SAVE_FORMAT, "save", payload, tagged=False, seal_key=read_key(store.path))
    path.write_bytes(blob)
    with store._writing() as table:
        table.update({"checksum": digest}, Query().name == name)


def test_an_edited_delta_is_refused_as_tampered(tmp_path):
    """Editing a delta (checksum recomputed, index updated) breaks the store's seal: it is
    refused as tampered, whatever the edit."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    autosaved(store, 3)
    path = store.file_of("c@m04")
    env = json.loads(path.read_text())
    env["save"]["state"]["log"] = []
    env["checksum"] = checksum(SAVE_FORMAT, env["format_version"], canonical_json(env["save"]))
    path.write_text(json.dumps(env, separators=(",", ":")) + "\n")
    with store._writing() as table:
        table.update({"checksum": env["checksum"]}, Query().name == "c@m04")
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("c@m04", exact=True)
    assert err.value.kind == "tampered" and "seal" in str(err.value)


@pytest.mark.parametrize("edit", ["check", "log", "actions"])
def test_a_delta_that_rebuilds_another_world_is_refused(tmp_path, edit):
    """Even under a valid seal (as if the rules had changed since it was written), a delta
    whose replay fails or ends in another world than the one it recorded is refused as a
    mismatch."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    autosaved(store, 3)

    def change(delta: dict) -> None:
        if edit == "check":
            delta["check"] = "sha256:" + "0" * 64
        elif edit == "log":
            delta["log"] = delta["log"][:-1]
        else:
            delta["base"]["actions"] += 1

    reseal(store, "c@m04", change)
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("c@m04", exact=True)
    assert err.value.kind == "mismatch" and "does not rebuild" in str(err.value)


def test_a_world_changed_behind_the_api_is_not_resumed_wrong(tmp_path):
    """A state change the action log does not hold (here the budget, edited directly between
    two autosaves) makes the delta refuse to load rather than resume another world; the
    career's loader falls back to the previous autosave, with a warning."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    writer = CareerSaves(store)
    world = autosaved(store, 2, writer=writer)
    world.s.budget += 1.0
    writer.autosave("c", world, scenario="standard")
    assert is_delta(saved_state(store, "c@m03"))
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("c@m03", exact=True)
    assert err.value.kind == "mismatch"
    loaded, record = store.load_world("c")
    assert record.info.name == "c@m02" and loaded.month == 2
    assert any("skipped the damaged save 'c@m03'" in w for w in store.warnings)


def test_a_delta_is_exported_whole_and_a_raw_copy_cannot_be_imported(tmp_path):
    """`saves export` of a delta writes a self-contained save of the rebuilt world (its digest
    recorded) that another store imports after a full replay; a delta file copied out of the
    store by hand is refused by import with a message saying what to do."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    world = autosaved(store, 4)
    out, err = io.StringIO(), io.StringIO()
    assert cmd_export(Namespace(saves=str(store.path), name="c@m05", file=str(tmp_path / "c.json")), out, err) == 0
    exported = json.loads((tmp_path / "c.json").read_text())
    assert exported["save"]["state"]["format"] != "pibench-delta"
    assert exported["save"]["meta"]["digest"] == world.digest()
    other = SaveStore(tmp_path / "o", on_warning=None)
    info = other.import_file(tmp_path / "c.json")
    assert info.digest == world.digest() and other.load_world(info.name)[0].digest() == world.digest()
    raw = tmp_path / "raw.json"
    raw.write_bytes(store.file_of("c@m05").read_bytes())
    with pytest.raises(SaveCorruptError) as e:
        other.import_file(raw, name="raw")
    assert "autosave delta" in str(e.value) and "saves export" in str(e.value)


def test_show_checks_a_delta_completely(tmp_path, count_replays):
    """`saves show` of a delta replays the whole career from the seed as for any save and
    prints the rebuilt world's digest."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    world = autosaved(store, 3)
    out, err = io.StringIO(), io.StringIO()
    assert cmd_show(Namespace(saves=str(store.path), name="c@m04", json=True), out, err) == 0, err.getvalue()
    details = json.loads(out.getvalue())
    assert details["world digest"] == world.digest() and details["integrity"].startswith("ok (checksum, digest, replay")
    assert count_replays == ["c@m04"]


def test_a_rebuilt_index_keeps_deltas_loadable(tmp_path):
    """When the index is lost, repair() rebuilds it from the files: deltas keep their base
    and load to the saved world."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    world = autosaved(store, 4)
    store.index_path.write_bytes(b"garbage\n")
    store.index_path.with_name("index.json.bak").write_bytes(b"garbage\n")
    store.repair()
    assert store.load_world("c")[0].digest() == world.digest()


def test_old_saves_of_format_1_still_load(tmp_path):
    """A save file written in format version 1 (before deltas) loads as before."""
    store = SaveStore(tmp_path / "s", on_warning=None)
    world, api, pol = career()
    step(world, api, pol)
    info = store.save("lab", world, scenario="standard")
    path = store.blob_dir / info.file
    env = json.loads(path.read_text())
    payload = canonical_json(env["save"])
    text = json.dumps(
        {"format": SAVE_FORMAT, "format_version": 1, "checksum": checksum(SAVE_FORMAT, 1, payload), "tagged": False},
        separators=(",", ":"),
    )
    path.write_text(text[:-1] + ',"save":' + payload + "}\n")
    with store._writing() as table:
        table.update({"checksum": checksum(SAVE_FORMAT, 1, payload)}, Query().name == "lab")
    loaded, record = store.load_world("lab", exact=True)
    assert loaded.digest() == world.digest() and record.meta["format_version"] == 1
