"""QA fixes of the save store: careers kept apart, recovery from a damaged autosave, honest
index diagnoses, warnings printed once, rotated-out autosaves staying gone, save-name rules,
an unusable store found up front, and ``--force`` named in "exists" errors."""

from __future__ import annotations

import io
from argparse import Namespace

import pytest

from saves import SaveCorruptError, SaveError, SaveStore
from saves.cli import cmd_export, cmd_import, cmd_list
from saves.codec import SAVE_FORMAT, decode_envelope
from world.api import Api
from world.engine import World
from world.config import WorldConfig


def real_world(seed: int, months: int) -> World:
    """A real world advanced to ``months`` (load_world rebuilds real worlds)."""
    w = World(WorldConfig(months=12), seed)
    api = Api(w)
    for _ in range(months - 1):
        api.time.next_month()
    return w


def quiet(path) -> SaveStore:
    return SaveStore(path, on_warning=None)


# -- 1. two careers under one name -------------------------------------------------------------
def test_a_new_career_under_a_taken_name_is_refused_with_the_way_out(tmp_path, fake):
    store = quiet(tmp_path / "s")
    store.save("qa1", fake(seed=7, month=13))
    store.autosave("lab", fake(seed=9, month=2))
    with pytest.raises(SaveError) as err:
        store.check_new_career("qa1")
    msg = str(err.value)
    assert "scenario custom, seed 7, month 13" in msg
    assert "--load qa1" in msg and "pibench saves delete qa1" in msg and "another name" in msg
    with pytest.raises(SaveError, match="seed 9.*lab@m02"):  # a career of autosaves only
        store.check_new_career("lab")
    store.check_new_career("fresh")
    store.check_new_career("qa1", resuming="qa1")  # --load qa1 --save qa1 continues it
    with pytest.raises(SaveError):
        store.check_new_career("qa1", resuming="lab")  # a resumed career may not take another's name


def test_a_named_save_is_never_shadowed_by_another_worlds_autosaves(tmp_path, fake):
    """A store from before careers were kept apart: the manual 'qa1' (seed 7) and newer
    autosaves of a second world under career 'qa1' (seed 101)."""
    store = quiet(tmp_path / "s")
    for m in (1, 2, 3):
        store.autosave("qa1", fake(seed=7, month=m))
    store.save("qa1", fake(seed=7, month=13))
    for m in (11, 12):
        store.autosave("qa1", fake(seed=101, month=m))
    assert store.resolve("qa1").seed == 7 and store.resolve("qa1").month == 13
    assert store.load("qa1").info.seed == 7
    # pruning by the second world never touched the first one's autosaves
    assert {"qa1@m02", "qa1@m03"} <= set(store.names())
    store.autosave("qa1", fake(seed=101, month=13))
    store.autosave("qa1", fake(seed=101, month=14))
    names = set(store.names())
    assert {"qa1@m02", "qa1@m03"} <= names and "qa1@m11" not in names
    # a row picked from the list is loaded exactly
    assert store.resolve("qa1@m12", exact=True).name == "qa1@m12"
    assert store.load("qa1@m03", exact=True).info.seed == 7


# -- 2. a damaged newest autosave ---------------------------------------------------------------
@pytest.mark.parametrize("damage", ["truncate", "corrupt", "missing"])
def test_load_falls_back_to_the_newest_loadable_autosave(tmp_path, damage, capsys):
    store = SaveStore(tmp_path / "s")
    for m in (1, 2, 3):
        store.autosave("c", real_world(5, m))
    path = store.file_of("c@m03")
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[:200])
    elif damage == "corrupt":
        path.write_bytes(b"\xff\xfe")
    else:
        path.unlink()
    world, record = store.load_world("c")
    assert record.info.name == "c@m02" and world.month == 2
    warned = capsys.readouterr().err
    assert warned.count("skipped the damaged save 'c@m03'") == 1 and "Loaded 'c@m02'" in warned
    with pytest.raises(SaveCorruptError):  # an exact name is exact: no fallback
        store.load_world("c@m03", exact=True)


def test_when_nothing_loads_the_error_lists_every_save_tried(tmp_path):
    store = quiet(tmp_path / "s")
    for m in (1, 2):
        store.autosave("c", real_world(5, m))
    for name in ("c@m01", "c@m02"):
        store.file_of(name).write_bytes(b"garbage\n")
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("c")
    assert "'c@m02'" in str(err.value) and "'c@m01'" in str(err.value) and "none of the saves" in str(err.value)


# -- 3. the index: diagnosis, warnings once, no resurrected autosaves ---------------------------
def test_garbage_is_corrupt_and_a_cut_file_is_truncated(fake, tmp_path):
    with pytest.raises(SaveCorruptError) as err:
        decode_envelope(b"garbage\n", SAVE_FORMAT, "save", "x")
    assert err.value.kind == "corrupt"
    store = quiet(tmp_path / "s")
    store.save("a", fake())
    raw = store.file_of("a").read_bytes()
    with pytest.raises(SaveCorruptError) as err:
        decode_envelope(raw[: len(raw) // 2], SAVE_FORMAT, "save", "x")
    assert err.value.kind == "truncated"


def test_a_warning_is_printed_once_as_plain_text(tmp_path, fake, capsys):
    store = SaveStore(tmp_path / "s")
    store.save("a", fake())
    store.save("b", fake())
    store.index_path.write_bytes(b"garbage\n")
    assert store.names() == ["a"]
    err = capsys.readouterr().err
    assert err.count("Using the backup copy") == 1 and "corrupt" in err and "truncated" not in err
    assert "Warning" not in err and ".py:" not in err
    out, errs = io.StringIO(), io.StringIO()
    assert cmd_list(Namespace(saves=str(store.path)), out, errs) == 0
    assert errs.getvalue().count("Using the backup copy") == 1
    assert capsys.readouterr().err == ""  # the CLI prints it itself, once


def test_a_rebuilt_index_does_not_bring_back_rotated_out_autosaves(tmp_path, fake):
    store = quiet(tmp_path / "s")
    for m in range(1, 7):
        store.autosave("c", fake(seed=3, month=m))
    assert [i.name for i in store.list(kind="autosave")] == ["c@m04", "c@m05", "c@m06"]
    store.index_path.write_bytes(b"garbage\n")
    store.index_path.with_name("index.json.bak").write_bytes(b"garbage\n")
    assert [i.name for i in store.list(kind="autosave")] == ["c@m04", "c@m05", "c@m06"]
    store.save("x", fake())  # the write rebuilds the index
    assert sorted(store.names()) == ["c@m04", "c@m05", "c@m06", "x"]


# -- 4. names, an unusable store, --force --------------------------------------------------------
@pytest.mark.parametrize("name", ["a/b", "../../etc", "qa1@m05", "x@m99-end", "a\\b", "tab\there", "esc\x1b", "..", "a:b"])
def test_bad_save_names_are_refused_saying_what_is_valid(tmp_path, fake, name):
    store = quiet(tmp_path / "s")
    with pytest.raises(SaveError, match="letters, digits, spaces") as err:
        store.save(name, fake())
    if "@" in name:
        assert "reserved for autosaves" in str(err.value)
    with pytest.raises(SaveError):
        store.check_new_career(name)
    assert store.names() == []


def test_good_names_and_imported_autosaves_are_accepted(tmp_path, fake):
    store = quiet(tmp_path / "s")
    for name in ("Zoë's lab", "研究 2", "run-1.final (b)"):
        store.save(name, fake())
    info = store.autosave("c", fake())
    path = store.export(info.name, tmp_path / "auto.json")
    other = quiet(tmp_path / "t")
    assert other.import_file(path).name == "c@m01"  # the name inside an exported autosave
    with pytest.raises(SaveError, match="reserved"):
        other.import_file(path, name="d@m01")


def test_an_unusable_store_is_found_before_the_career_starts(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    store = SaveStore(blocker / "saves")
    with pytest.raises(SaveError, match="cannot be written.*--saves DIR"):
        store.check_new_career("lab")
    with pytest.raises(SaveError, match="cannot be written"):
        SaveStore(blocker).check_usable()
    SaveStore(tmp_path / "ok").check_usable()
    assert not list((tmp_path / "ok" / "blobs").iterdir())  # the probe is gone


def test_exists_errors_name_force(tmp_path, fake):
    store = quiet(tmp_path / "s")
    store.save("a", fake())
    dest = tmp_path / "a.json"
    dest.write_text("x")
    err = io.StringIO()
    assert cmd_export(Namespace(saves=str(store.path), name="a", file=str(dest)), io.StringIO(), err) == 1
    assert "--force" in err.getvalue()
    assert cmd_export(Namespace(saves=str(store.path), name="a", file=str(dest), force=True), io.StringIO(), err) == 0
    err = io.StringIO()
    assert cmd_import(Namespace(saves=str(store.path), file=str(dest)), io.StringIO(), err) == 1
    assert "--force" in err.getvalue() and "--as" in err.getvalue()
