"""Recovery from damage: a damaged newest autosave falls back to the newest loadable one,
the index diagnoses garbage and truncation, warnings are printed once, and a rebuilt index
never brings back rotated-out autosaves."""

from __future__ import annotations

import io
from argparse import Namespace

import pytest

from saves import SaveCorruptError, SaveStore
from saves.cli import cmd_list
from saves.codec import INDEX_FORMAT, SAVE_FORMAT, decode_envelope
from tests.headless.conftest import run_pibench
from world.api import Api
from world.config import WorldConfig
from world.engine import World


def real_world(seed: int, months: int) -> World:
    """A real world advanced to ``months`` (load_world rebuilds real worlds)."""
    w = World(WorldConfig(months=12), seed)
    api = Api(w)
    for _ in range(months - 1):
        api.time.next_month()
    return w


def quiet(path) -> SaveStore:
    return SaveStore(path, on_warning=None)


# -- a damaged newest autosave ---------------------------------------------------------------
@pytest.mark.parametrize("damage", ["truncate", "corrupt", "missing"])
def test_load_falls_back_to_the_newest_loadable_autosave(tmp_path, damage, capsys):
    """Loading a career whose newest autosave is damaged resumes from the newest loadable one, with
    a warning naming what was skipped."""
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
    """When no save of a career loads, the error lists every save tried and why."""
    store = quiet(tmp_path / "s")
    for m in (1, 2):
        store.autosave("c", real_world(5, m))
    for name in ("c@m01", "c@m02"):
        store.file_of(name).write_bytes(b"garbage\n")
    with pytest.raises(SaveCorruptError) as err:
        store.load_world("c")
    assert "'c@m02'" in str(err.value) and "'c@m01'" in str(err.value) and "none of the saves" in str(err.value)


# -- the index: diagnosis, warnings once, no resurrected autosaves ---------------------------
def test_garbage_is_corrupt_and_a_cut_file_is_truncated(fake, tmp_path):
    """The diagnosis tells garbage (corrupt) from a file cut short (truncated)."""
    with pytest.raises(SaveCorruptError) as err:
        decode_envelope(b"garbage\n", SAVE_FORMAT, "save", "x")
    assert err.value.kind == "corrupt"
    store = quiet(tmp_path / "s")
    store.save("a", fake())
    raw = store.file_of("a").read_bytes()
    with pytest.raises(SaveCorruptError) as err:
        decode_envelope(raw[: len(raw) // 2], SAVE_FORMAT, "save", "x")
    assert err.value.kind == "truncated"


def test_every_cut_of_a_file_is_truncated_and_garbage_starting_with_a_brace_is_corrupt(tmp_path):
    """A save file or index cut at any byte is diagnosed ``truncated`` (the parser ran out of
    text, a character or token split included); garbage that merely starts with ``{``, or
    junk after a whole object, is ``corrupt``: never "a write was cut short"."""
    store = quiet(tmp_path / "s")
    store.save("Ada ✓", real_world(5, 1))
    for raw, fmt, key, step in (
        (store.index_path.read_bytes(), INDEX_FORMAT, "tables", 1),
        (store.file_of("Ada ✓").read_bytes(), SAVE_FORMAT, "save", 13),
    ):
        kinds = set()
        for cut in range(1, len(raw) - 1, step):
            with pytest.raises(SaveCorruptError) as err:
                decode_envelope(raw[:cut], fmt, key, "x")
            kinds.add(err.value.kind)
        assert kinds == {"truncated"}
    for garbage in (b"{garbage", b"{garbage\n", b'{"a": 1} junk', b"{\x00}"):
        with pytest.raises(SaveCorruptError) as err:
            decode_envelope(garbage, INDEX_FORMAT, "tables", "x")
        assert err.value.kind == "corrupt" and "cut short" not in err.value.detail


@pytest.mark.parametrize("garbage", [b"{garbage", b"[1, 2]\n", b"not json at all"])
def test_a_garbage_index_is_named_once_and_no_save_is_lost(tmp_path, garbage):
    """The real ``pibench``: with a garbage index (no backup), ``saves list`` and a
    ``headless --load`` that then writes (rebuilding the index) each say once what is wrong
    with which file and that no save is lost (before: "truncated ... a write was cut short"
    for ``{garbage``, and the load printed its warning four times)."""
    store = quiet(tmp_path / "s")
    store.save("lab", real_world(5, 1))
    store.index_path.with_name("index.json.bak").unlink(missing_ok=True)
    store.index_path.write_bytes(garbage)
    listed = run_pibench(["saves", "--saves", str(store.path), "list"], home=tmp_path / "home")
    assert listed.returncode == 0 and "lab " in listed.stdout
    warned = [line for line in listed.stderr.splitlines() if line.startswith("warning:")]
    assert len(warned) == 1 and str(store.index_path) in warned[0] and "No save is lost" in warned[0]
    assert "truncated" not in warned[0] and "cut short" not in warned[0]
    loaded = run_pibench(
        ["headless", "--saves", str(store.path), "--load", "lab"],
        "print(6 * 7)\ntime.next_month()\n",  # a change: the session writes (a look writes nothing)
        home=tmp_path / "home",
    )
    assert loaded.returncode == 0 and "42" in loaded.stdout
    assert [line for line in loaded.stderr.splitlines() if "index" in line] == warned
    again = run_pibench(["saves", "--saves", str(store.path), "list"], home=tmp_path / "home")
    assert again.returncode == 0 and again.stderr == "" and "lab " in again.stdout  # the index was rebuilt


def test_a_warning_is_printed_once_as_plain_text(tmp_path, fake, capsys):
    """A store warning is printed once, as plain text, however often the store is read."""
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
    """Rebuilding a damaged index never brings back autosaves already rotated out."""
    store = quiet(tmp_path / "s")
    for m in range(1, 7):
        store.autosave("c", fake(seed=3, month=m))
    assert [i.name for i in store.list(kind="autosave")] == ["c@m04", "c@m05", "c@m06"]
    store.index_path.write_bytes(b"garbage\n")
    store.index_path.with_name("index.json.bak").write_bytes(b"garbage\n")
    assert [i.name for i in store.list(kind="autosave")] == ["c@m04", "c@m05", "c@m06"]
    store.save("x", fake())  # the write rebuilds the index
    assert sorted(store.names()) == ["c@m04", "c@m05", "c@m06", "x"]
