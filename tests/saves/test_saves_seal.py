"""Seals (issue 9 §3: loads within 15 ms): a save the store wrote from a live world carries an
HMAC of its checksum under the store's key and loads without replaying its action log;
anything else, including an edited sealed file, is still replayed and refused if tampered."""

from __future__ import annotations

import json
import os
import stat

import pytest
from tinydb import Query

import saves.deltas as deltas_mod
import saves.records as records_mod
from saves import SaveCorruptError, SaveStore
from saves.codec import checksum
from saves.seal import KEY_NAME
from saves.values import canonical_json
from tests.careers import play_to
from world.engine import World


def played(months: int, seed: int = 101) -> World:
    w = World(seed=seed)
    play_to(w, months)
    return w


def test_a_sealed_save_loads_without_a_replay(tmp_path, count_replays):
    """save() and autosave() seal the file; loading them rebuilds the same world (digest checked)
    and replays nothing; the key is readable by its owner only."""
    w = played(8)
    store = SaveStore(tmp_path / "s", on_warning=None)
    store.save("lab", w, scenario="standard")
    store.autosave("lab", w, scenario="standard")
    for name in ("lab", store.list(kind="autosave")[0].name):
        loaded, record = store.load_world(name, exact=True)
        assert record.sealed and loaded.digest() == w.digest()
    assert count_replays == []
    mode = stat.S_IMODE(os.stat(tmp_path / "s" / KEY_NAME).st_mode)
    assert mode & 0o077 == 0


def test_a_save_from_raw_data_or_another_store_is_replayed(tmp_path, count_replays):
    """save_state() of raw data carries no seal, and a seal made with another store's key does
    not verify: both loads replay the action log."""
    w = played(5)
    a = SaveStore(tmp_path / "a", on_warning=None)
    a.save_state("raw", *deltas_mod.describe_world(w, "standard"))
    _, record = a.load_world("raw", exact=True)
    assert not record.sealed and count_replays == ["raw"]
    a.save("lab", w, scenario="standard")
    b = SaveStore(tmp_path / "b", on_warning=None)
    b.save("other", w, scenario="standard")  # b gets its own key
    os.replace(a.path / KEY_NAME, tmp_path / "a-key")
    (a.path / KEY_NAME).write_text((b.path / KEY_NAME).read_text())
    _, record = a.load_world("lab", exact=True)
    assert not record.sealed and count_replays == ["raw", "lab"]


def test_an_edited_sealed_save_is_replayed_and_refused(tmp_path, count_replays):
    """Editing a sealed file's state (checksum recomputed, index updated, old seal kept) breaks
    the seal: the load replays the action log and refuses the save as tampered."""
    w = played(8)
    store = SaveStore(tmp_path / "s", on_warning=None)
    info = store.save("lab", w, scenario="standard")
    path = store.blob_dir / info.file
    env = json.loads(path.read_text())
    assert env["seal"].startswith("hmac-sha256:")
    env["save"]["state"]["state"]["budget"] = 50_000_000.0
    env["save"]["meta"]["digest"] = ""
    env["checksum"] = checksum("pibench-save", env["format_version"], canonical_json(env["save"]))
    path.write_text(json.dumps(env, separators=(",", ":")) + "\n")
    with store._writing() as table:
        table.update({"checksum": env["checksum"], "digest": ""}, Query().name == "lab")
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("lab", exact=True)
    assert err.value.kind == "tampered"
    assert count_replays == ["lab"]


def test_an_unreadable_seal_key_is_never_replaced(tmp_path, count_replays):
    """A seal key file that exists but reads as malformed (a passing read error, a damaged
    disk block) is left as it is: the store writes its saves unsealed (whole, loaded by
    replay) instead of creating a new key over it, which would void every save sealed with
    the old one."""
    w = played(4)
    store = SaveStore(tmp_path / "s", on_warning=None)
    store.save("first", w, scenario="standard")
    key_path = tmp_path / "s" / KEY_NAME
    good = key_path.read_bytes()
    key_path.write_bytes(b"not a key\n")
    store.save("second", w, scenario="standard")
    assert key_path.read_bytes() == b"not a key\n"
    loaded, record = store.load_world("second", exact=True)
    assert not record.sealed and loaded.digest() == w.digest() and count_replays == ["second"]
    key_path.write_bytes(good)  # the key readable again: the first save is still sealed
    _, record = store.load_world("first", exact=True)
    assert record.sealed


def test_an_unsealed_save_that_passed_the_replay_check_loads_without_one_next_time(tmp_path, count_replays):
    """A save written from raw data is replayed on its first load; having passed, its index
    entry gets the store's mark and the next loads (by name or career) replay nothing and
    rebuild the same world; `saves list --json` does not show the mark."""
    w = played(6)
    store = SaveStore(tmp_path / "s", on_warning=None)
    store.save_state("raw", *deltas_mod.describe_world(w, "standard"))
    assert store.resolve("raw").verified == ""
    loaded, record = store.load_world("raw", exact=True)
    assert not record.sealed and record.replayed and count_replays == ["raw"]
    assert store.resolve("raw").verified.startswith("hmac-sha256:")
    for exact in (True, False):
        again, record = store.load_world("raw", exact=exact)
        assert record.sealed and not record.replayed and again.digest() == w.digest()
    assert count_replays == ["raw"]
    assert "verified" not in json.loads(records_mod.dumps_info(store.resolve("raw")))


def test_a_tampered_unsealed_save_is_refused_and_never_marked(tmp_path, count_replays):
    """An edited save without a seal is refused on its first load (and on every later one):
    a failed check leaves its index entry unmarked."""
    w = played(6)
    store = SaveStore(tmp_path / "s", on_warning=None)
    meta, state = deltas_mod.describe_world(w, "standard")
    state = json.loads(json.dumps(state))
    state["state"]["budget"] = 50_000_000.0
    meta["digest"] = ""
    store.save_state("forged", meta, state)
    for _ in range(2):
        with pytest.raises(SaveCorruptError) as err:
            store.load_world("forged", exact=True)
        assert err.value.kind == "tampered"
    assert count_replays == ["forged", "forged"] and store.resolve("forged").verified == ""


def _edit_file(store: SaveStore, name: str, change) -> None:
    """Edit save ``name``'s file by hand (checksum recomputed) and point the index at it, as
    someone without the seal key could, keeping the entry's mark."""
    info = store.resolve(name)
    path = store.blob_dir / info.file
    env = json.loads(path.read_text())
    change(env["save"])
    env["checksum"] = checksum("pibench-save", env["format_version"], canonical_json(env["save"]))
    path.write_text(json.dumps(env, separators=(",", ":")) + "\n")
    with store._writing() as table:
        table.update({"checksum": env["checksum"], "digest": env["save"]["meta"]["digest"]}, Query().name == name)


def test_a_marked_save_edited_afterwards_is_replayed_and_refused(tmp_path, count_replays):
    """The mark vouches for one file and digest: a marked save whose file is then edited
    (budget changed, digest blanked, checksum recomputed, mark kept) is replayed again and
    refused as tampered; one whose recorded digest alone is changed in the index is checked
    as unsealed again and refused (the rebuilt world's digest differs)."""
    w = played(6)
    store = SaveStore(tmp_path / "s", on_warning=None)
    for name in ("file-edit", "digest-edit"):
        store.save_state(name, *deltas_mod.describe_world(w, "standard"))
        store.load_world(name, exact=True)  # replayed and marked
    assert count_replays == ["file-edit", "digest-edit"]

    def richer(save):
        save["state"]["state"]["budget"] = 50_000_000.0
        save["meta"]["digest"] = ""

    _edit_file(store, "file-edit", richer)
    with store._writing() as table:
        table.update({"digest": "0" * 64}, Query().name == "digest-edit")
    assert store.resolve("file-edit").verified and store.resolve("digest-edit").verified  # marks kept
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("file-edit", exact=True)
    assert err.value.kind == "tampered"
    assert count_replays == ["file-edit", "digest-edit", "file-edit"]
    with pytest.raises(SaveCorruptError) as err:  # unsealed again: its digest is compared (and differs)
        store.load_world("digest-edit", exact=True)
    assert err.value.kind == "mismatch" and "digest" in str(err.value)


def test_a_load_marks_nothing_while_another_writer_holds_the_lock(tmp_path, count_replays):
    """A load never waits for the store's lock to mark a save: while another process holds
    it, the load replays, succeeds and leaves the entry unmarked; the next load marks it."""
    w = played(5)
    store = SaveStore(tmp_path / "s", on_warning=None, lock_timeout=3600)
    store.save_state("raw", *deltas_mod.describe_world(w, "standard"))
    waits: list[float | None] = []
    acquire = store.lock.acquire
    store.lock.acquire = lambda timeout=None: (waits.append(timeout), acquire(timeout))[1]  # type: ignore[method-assign]
    other = SaveStore(tmp_path / "s", on_warning=None)  # its own lock file handle: another writer
    other.lock.acquire()
    try:
        loaded, _ = store.load_world("raw", exact=True)
    finally:
        other.lock.release()
    assert waits == [0]  # tried once, without waiting (the store's own timeout is an hour)
    assert loaded.digest() == w.digest() and store.resolve("raw").verified == ""
    store.load_world("raw", exact=True)
    store.load_world("raw", exact=True)
    assert count_replays == ["raw", "raw"]


def test_writing_a_marked_save_again_drops_its_mark(tmp_path, count_replays):
    """Saving raw data again under a marked name leaves the new entry unmarked (the old
    file's mark is removed, not merely left unverifiable): the new file is replayed."""
    w = played(5)
    store = SaveStore(tmp_path / "s", on_warning=None)
    store.save_state("raw", *deltas_mod.describe_world(w, "standard"))
    store.load_world("raw", exact=True)
    assert store.resolve("raw").verified
    play_to(w, 6)
    store.save_state("raw", *deltas_mod.describe_world(w, "standard"))
    doc = store._docs()[0]
    assert "verified" not in doc
    loaded, record = store.load_world("raw", exact=True)
    assert record.replayed and loaded.month == 6 and count_replays == ["raw", "raw"]


def test_a_mark_that_cannot_be_written_leaves_the_store_as_it_was(tmp_path, count_replays, monkeypatch):
    """When the index write of the mark fails (the disk refuses, a crash mid-write), the load
    still returns the verified world, the index is unchanged and loads as before, and the
    next load replays and marks it."""
    import saves.storage as storage_mod

    w = played(5)
    store = SaveStore(tmp_path / "s", on_warning=None)
    store.save_state("raw", *deltas_mod.describe_world(w, "standard"))
    index = (store.path / "index.json").read_bytes()
    real = storage_mod.atomic_write

    def refused(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(storage_mod, "atomic_write", refused)
    loaded, _ = store.load_world("raw", exact=True)
    assert loaded.digest() == w.digest()
    assert (store.path / "index.json").read_bytes() == index and store.resolve("raw").verified == ""
    monkeypatch.setattr(storage_mod, "atomic_write", real)
    store.load_world("raw", exact=True)
    assert store.resolve("raw").verified and count_replays == ["raw", "raw"]


@pytest.mark.parametrize("how", ["mark", "seal"])
def test_a_verified_save_whose_listed_month_was_edited_is_refused(tmp_path, how):
    """A save that loads without a replay (its index entry's mark, or its file's seal) is
    still the world its index entry lists: an index edited afterwards to show another month
    is refused as tampered, as the replayed load of an unmarked save refuses it."""
    w = played(8)
    store = SaveStore(tmp_path / "s", on_warning=None)
    if how == "mark":
        store.save_state("lab", *deltas_mod.describe_world(w, "standard"))
        store.load_world("lab", exact=True)  # replayed, then marked
        assert store.resolve("lab", exact=True).verified
    else:
        store.save("lab", w, scenario="standard")
    with store._writing() as table:
        table.update({"month": 3}, Query().name == "lab")
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("lab", exact=True)
    assert err.value.kind == "tampered"
    assert "month 3" in str(err.value)
