"""The save store (saves/store.py): saving, listing, loading, autosaves, export/import,
refusal of bad files, recovery of a damaged index, the default location."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

from saves import (
    FORMAT_VERSION,
    SaveCorruptError,
    SaveError,
    SaveExistsError,
    SaveNotFoundError,
    SaveStore,
    SaveValueError,
    default_store_dir,
    read_save_file,
)
from saves.codec import SAVE_FORMAT, checksum
from saves.values import canonical_json


def folder_snapshot(path: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file() and p.name != ".lock"
    }


# -- round trips ---------------------------------------------------------------------------
def test_save_then_load_gives_back_the_identical_state(store, fake):
    """Everything a save holds comes back: state, scenario, seed, month, digest, times."""
    w = fake(seed=5, month=7, size=50)
    info = store.save("Ada's lab", w, scenario="standard")
    rec = store.load("Ada's lab")
    assert rec.state == w.to_state()
    assert (rec.info.seed, rec.info.month, rec.info.scenario, rec.info.digest) == (5, 7, "standard", w.digest())
    assert rec.scenario["config"] == w.config.to_dict()
    assert rec.info.checksum == info.checksum and info.checksum.startswith("sha256:")
    assert rec.info.created == rec.info.updated and rec.info.format_version == FORMAT_VERSION
    assert rec.meta["pibench_version"]


def test_loading_the_same_save_twice_gives_identical_records(store, fake):
    """Nothing re-rolls on load: two loads are equal, value for value."""
    store.save("a", fake(size=30))
    assert store.load("a").state == store.load("a").state


def test_unicode_names_and_numpy_nan_values_in_the_state(store, fake):
    """A unicode save name; numpy scalars, NaN and inf in the state; all come back."""
    w = fake()
    w.state.update({"np": np.float32(1.5), "n": np.int64(7), "nan": math.nan, "inf": -math.inf, "ids": {3: "S3"}})
    w.to_state = lambda: dict(w.state)  # the fake normally launders through json
    w.digest = lambda: "not-json-able-state"
    store.save("研究室 — 第1年 ✓", w)
    st = store.load("研究室 — 第1年 ✓").state
    assert st["np"] == 1.5 and st["n"] == 7 and math.isnan(st["nan"]) and st["inf"] == -math.inf
    assert st["ids"] == {3: "S3"} and st["memory"] == w.state["memory"]
    assert store.names() == ["研究室 — 第1年 ✓"]


def test_overwriting_keeps_created_and_updates_the_rest(store, fake):
    """Saving again under a name replaces it; 'created' is kept, 'updated' moves on."""
    first = store.save("lab", fake(month=3))
    second = store.save("lab", fake(month=9))
    assert second.created == first.created and second.updated > first.updated
    assert store.load("lab").info.month == 9 and len(store.list()) == 1


def test_overwrite_can_be_refused(store, fake):
    """Saving under a taken name with ``overwrite=False`` raises SaveExistsError."""
    store.save("lab", fake())
    with pytest.raises(SaveExistsError, match="exists already"):
        store.save("lab", fake(), overwrite=False)


@pytest.mark.parametrize("name", ["", " lead", "tail ", "a\nb", "x" * 121, "half \ud800"])
def test_bad_names_are_refused(store, fake, name):
    """Empty names, names with outer spaces or a newline, names over 120 characters and names with a
    lone surrogate are refused, and nothing is saved."""
    with pytest.raises(SaveError):
        store.save(name, fake())
    assert not store.path.exists() or store.list() == []


def test_missing_save_is_reported_with_the_existing_names(store, fake):
    """Loading a save that does not exist raises SaveNotFoundError listing the names that do;
    deleting it raises too."""
    store.save("alpha", fake())
    with pytest.raises(SaveNotFoundError, match="alpha"):
        store.load("beta")
    with pytest.raises(SaveNotFoundError):
        store.delete("beta")


def test_delete_removes_the_entry_and_its_file_eventually(store, fake):
    """Deleting removes the save; files nothing refers to are collected (only the files of
    the index on disk and of its backup, the previous version, are kept)."""
    for n in ("a", "b", "c"):
        store.save(n, fake())
    store.delete("a")
    store.delete("b")
    assert store.names() == ["c"]
    store.save("c", fake(month=2))
    store.save("c", fake(month=3))
    store.save("c", fake(month=4))
    files = {p.name for p in store.blob_dir.iterdir()}
    assert store.resolve("c").file in files and len(files) == 2


def test_empty_store_lists_nothing_and_creates_nothing(tmp_path):
    """Listing a store whose folder does not exist returns nothing and does not create the
    folder."""
    s = SaveStore(tmp_path / "nowhere")
    assert s.list() == [] and not (tmp_path / "nowhere").exists()


def test_store_files_are_private(store, fake):
    """Saves hold hidden state: the folder and files are readable by their owner only."""
    store.save("a", fake())
    assert (store.path.stat().st_mode & 0o077) == 0
    assert (store.resolve("a") and (store.blob_dir / store.resolve("a").file).stat().st_mode & 0o077) == 0


# -- autosaves -------------------------------------------------------------------------------
def test_autosave_keeps_the_last_few_per_career(store, fake):
    """After every month: '<career>@mMM' written, only the newest `keep` kept, other careers untouched."""
    store.save("other", fake())
    store.autosave("rival", fake(month=1))
    for m in range(1, 11):
        store.autosave("mine", fake(month=m), keep=3)
    mine = [i.name for i in store.list(career="mine")]
    assert mine == ["mine@m08", "mine@m09", "mine@m10"]
    assert {"other", "rival@m01"} <= set(store.names())
    assert store.resolve("mine").name == "mine@m10"
    assert store.load("mine").info.month == 10


def test_resolve_prefers_the_most_recent_of_name_and_career_autosaves(store, fake):
    """--load NAME resumes where NAME left off, whether that was a manual save or an autosave."""
    store.autosave("lab", fake(month=4))
    store.save("lab", fake(month=2))
    assert store.resolve("lab").name == "lab"
    store.autosave("lab", fake(month=5))
    assert store.resolve("lab").name == "lab@m05"


# -- export / import ---------------------------------------------------------------------------
def test_export_then_import_into_another_store(store, fake, tmp_path):
    """An exported save imports into another store as kind "import" with the same state; importing
    it again needs a new name, and exporting over an existing file is refused."""
    w = fake(size=20)
    store.save("lab", w, scenario="tutorial")
    out = store.export("lab", tmp_path / "lab.pibench.json")
    other = SaveStore(tmp_path / "other")
    info = other.import_file(out)
    assert info.name == "lab" and info.kind == "import" and info.scenario == "tutorial"
    assert other.load("lab").state == w.to_state()
    assert read_save_file(out).state == w.to_state()
    with pytest.raises(SaveExistsError):
        other.import_file(out)
    assert other.import_file(out, name="copy").name == "copy"
    with pytest.raises(SaveExistsError):
        store.export("lab", out)


def _write_variant(src: Path, dst: Path, how: str) -> None:
    raw = src.read_bytes()
    env = json.loads(raw)
    if how == "truncated":
        dst.write_bytes(raw[: len(raw) // 2])
    elif how == "empty":
        dst.write_bytes(b"")
    elif how == "corrupt":
        dst.write_bytes(raw[:10] + b"\x00garbage{{{" + raw[10:])
    elif how == "binary":
        dst.write_bytes(b"\xff\xfe\x00" + raw)
    elif how == "tampered":
        env["save"]["state"]["month"] = 99
        dst.write_text(json.dumps(env) + "\n")
    elif how == "tampered-meta":
        env["save"]["meta"]["seed"] = 12345
        dst.write_text(json.dumps(env) + "\n")
    elif how == "future-version":
        env["format_version"] = FORMAT_VERSION + 1
        env["checksum"] = checksum(SAVE_FORMAT, FORMAT_VERSION + 1, canonical_json(env["save"]))
        dst.write_text(json.dumps(env) + "\n")
    elif how == "not-a-save":
        dst.write_text(json.dumps({"hello": "world"}) + "\n")
    elif how == "no-state":
        del env["save"]["state"]
        env["checksum"] = checksum(SAVE_FORMAT, FORMAT_VERSION, canonical_json(env["save"]))
        dst.write_text(json.dumps(env) + "\n")


@pytest.mark.parametrize(
    "how, kind, words",
    [
        ("truncated", "truncated", "truncated"),
        ("empty", "truncated", "empty"),
        ("corrupt", "corrupt", "not valid JSON"),
        ("binary", "corrupt", "not UTF-8"),
        ("tampered", "tampered", "checksum"),
        ("tampered-meta", "tampered", "checksum"),
        ("future-version", "future-version", "newer pibench"),
        ("not-a-save", "not-a-save", "not a pibench save"),
        ("no-state", "corrupt", "missing"),
    ],
)
def test_bad_save_files_are_refused_saying_which_problem(store, fake, tmp_path, how, kind, words):
    """Corrupt, truncated, future-version and tampered files: refused, nothing imported."""
    store.save("lab", fake(size=40))
    good = store.export("lab", tmp_path / "good.json")
    bad = tmp_path / f"{how}.json"
    _write_variant(good, bad, how)
    other = SaveStore(tmp_path / "other")
    with pytest.raises(SaveCorruptError) as info:
        other.import_file(bad)
    assert info.value.kind == kind and words in str(info.value) and str(bad) in str(info.value)
    assert other.list() == []


@pytest.mark.parametrize("how", ["truncated", "tampered", "future-version", "corrupt"])
def test_a_damaged_file_inside_the_store_is_refused_on_load(store, fake, tmp_path, how):
    """The same checks guard loads from the store: never a half-loaded career."""
    store.save("lab", fake(size=40))
    path = store.file_of("lab")
    copy = tmp_path / "copy.json"
    copy.write_bytes(path.read_bytes())
    _write_variant(copy, path, how)
    with pytest.raises(SaveCorruptError) as info:
        store.load("lab")
    assert info.value.kind == how


def test_a_save_file_swapped_for_another_valid_one_is_detected(store, fake):
    """The index records each save's checksum; a different (even valid) file is refused."""
    store.save("a", fake(seed=1))
    store.save("b", fake(seed=2))
    store.file_of("a").write_bytes(store.file_of("b").read_bytes())
    with pytest.raises(SaveCorruptError) as info:
        store.load("a")
    assert info.value.kind == "mismatch"


# -- unsaveable values -----------------------------------------------------------------------------
def test_an_unsaveable_value_fails_before_any_file_is_touched(store, fake):
    """SaveValueError names the path; the store folder is byte-for-byte unchanged."""
    store.save("lab", fake())
    before = folder_snapshot(store.path)
    w = fake()
    w.to_state = lambda: {"people": [{"id": "S1", "tags": {"a", "b"}}]}
    with pytest.raises(SaveValueError, match=r"people\[0\]\.tags"):
        store.save("lab", w)
    with pytest.raises(SaveValueError):
        store.save("new", w)
    assert folder_snapshot(store.path) == before


def test_a_full_disk_is_a_clear_error_and_leaves_the_store_intact(store, fake, monkeypatch):
    """OSError while writing (no space, read-only) becomes a SaveError; old saves load."""
    import errno

    store.save("lab", fake(month=3))
    before = folder_snapshot(store.path)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("saves.store.atomic_write", full)
    with pytest.raises(SaveError, match="No space left on device"):
        store.save("lab", fake(month=4))
    monkeypatch.undo()
    assert folder_snapshot(store.path) == before
    assert store.load("lab").info.month == 3


# -- a damaged index ----------------------------------------------------------------------------
def test_damaged_index_falls_back_to_the_backup_with_a_warning(store, fake):
    """A truncated index falls back to its backup (one write behind) with a warning, its saves still
    load, and the next write repairs the main index."""
    store.save("a", fake())
    store.save("b", fake())
    store.index_path.write_bytes(store.index_path.read_bytes()[:-40])
    names = store.names()
    assert any("backup" in w for w in store.warnings)
    assert names == ["a"]  # the backup is one write behind
    assert any("backup" in w for w in store.warnings)
    assert store.load("a").state  # still loadable
    store.save("c", fake())  # the next write repairs the main file
    fresh = SaveStore(store.path)
    assert fresh.names() == ["a", "c"] and fresh.warnings == []


def test_the_backup_index_always_finds_its_save_files(store, fake):
    """After overwrites, deletes and autosaves, falling back to the backup index still
    loads every save it lists (garbage collection keeps what the backup needs)."""
    store.save("a", fake(month=1))
    store.autosave("c", fake(month=1), keep=1)
    store.save("a", fake(month=2))
    store.autosave("c", fake(month=2), keep=1)
    store.delete("a")
    store.index_path.write_bytes(b"{")
    infos = store.list()
    assert store.warnings
    assert [(i.name, i.month) for i in infos] == [("a", 2), ("c@m02", 2)]  # the index before the delete
    for i in infos:
        assert store.load(i.name).info.month == 2


def test_tampered_index_is_detected_by_its_checksum(store, fake):
    """An index edited behind the store's back fails its checksum: the store warns and reads the
    backup."""
    store.save("a", fake())
    store.save("b", fake())
    text = store.index_path.read_text().replace('"month":1', '"month":2')
    store.index_path.write_text(text)
    assert store.names() == ["a"]
    assert any("checksum" in w for w in store.warnings)


def test_index_and_backup_both_lost_are_rebuilt_from_the_save_files(store, fake):
    """If both index copies are unusable, the saves themselves are the truth (with a warning)."""
    for n in ("a", "b"):
        store.save(n, fake(month=2))
    store.index_path.write_bytes(b"{")
    store.index_path.with_name("index.json.bak").write_bytes(b"garbage")
    assert store.names() == ["a", "b"]
    assert any("save files" in w and "rebuilds the index" in w for w in store.warnings)
    store.save("c", fake())  # rebuilds the index, under the same warning (said once)
    assert len(store.warnings) == 1
    fresh = SaveStore(store.path, on_warning=None)
    assert fresh.names() == ["a", "b", "c"] and fresh.warnings == []
    assert store.load("a").info.month == 2


def test_future_version_index_is_refused_and_never_overwritten(store, fake):
    """An index of a newer format version is refused (kind "future-version") for reading and
    writing, and its file is left byte for byte as it was."""
    store.save("a", fake())
    env = json.loads(store.index_path.read_bytes())
    env["format_version"] = FORMAT_VERSION + 1
    store.index_path.write_text(json.dumps(env) + "\n")
    before = store.index_path.read_bytes()
    with pytest.raises(SaveCorruptError) as info:
        store.list()
    assert info.value.kind == "future-version"
    with pytest.raises(SaveCorruptError):
        store.save("b", fake())
    assert store.index_path.read_bytes() == before


def test_leftover_temporary_files_are_cleaned_on_the_next_write(store, fake):
    """Temporary files left by an interrupted write (index and blobs) are removed by the next
    save."""
    store.save("a", fake())
    (store.path / ".index.json.123.tmp").write_bytes(b"half")
    (store.blob_dir / ".x.json.9.tmp").write_bytes(b"half")
    store.save("b", fake())
    assert not list(store.path.rglob("*.tmp"))


def test_repair_rebuilds_the_index(store, fake):
    """``repair`` rebuilds the index from the save files, listing every save in write order."""
    store.save("a", fake())
    store.save("b", fake())
    assert [i.name for i in store.repair()] == ["a", "b"]


# -- where the store lives ---------------------------------------------------------------------------
def test_store_location_precedence(tmp_path, monkeypatch):
    """Explicit folder > $PIBENCH_HOME/saves > the platform's user data folder."""
    monkeypatch.delenv("PIBENCH_HOME", raising=False)
    default = default_store_dir()
    assert default.name == "saves" and "pibench" in str(default)
    monkeypatch.setenv("PIBENCH_HOME", str(tmp_path / "ph"))
    assert default_store_dir() == (tmp_path / "ph" / "saves").resolve()
    assert default_store_dir(tmp_path / "explicit") == (tmp_path / "explicit").resolve()
    assert SaveStore().path == (tmp_path / "ph" / "saves").resolve()


def test_pibench_home_is_used_by_a_store_without_a_folder(tmp_path, monkeypatch, fake):
    """A store made without a folder writes under ``$PIBENCH_HOME/saves`` and creates nothing else
    there."""
    monkeypatch.setenv("PIBENCH_HOME", str(tmp_path))
    SaveStore().save("x", fake())
    assert (tmp_path / "saves" / "index.json").exists()
    assert os.listdir(tmp_path) == ["saves"]
