"""Save names and careers: one career per name (a new career under a taken or look-alike
name is refused with the way out), the name rules, an unusable store found up front, and
``--force`` named in "exists" errors."""

from __future__ import annotations

import io
from argparse import Namespace

import pytest

from saves import SaveError, SaveStore
from saves.cli import cmd_export, cmd_import


def quiet(path) -> SaveStore:
    return SaveStore(path, on_warning=None)


# -- two careers under one name -------------------------------------------------------------
def test_a_new_career_under_a_taken_name_is_refused_with_the_way_out(tmp_path, fake):
    """A new career under the name of another saved career is refused, naming that career and the
    ways out (--load, saves delete, another name); resuming the career under its own name is not."""
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


# -- names, an unusable store, --force --------------------------------------------------------
@pytest.mark.parametrize(
    "name", ["a/b", "../../etc", "qa1@m05", "x@m99-end", "a\\b", "tab\there", "esc\x1b", "..", "a:b"]
)
def test_bad_save_names_are_refused_saying_what_is_valid(tmp_path, fake, name):
    """A bad save name is refused with a message saying what a valid name is."""
    store = quiet(tmp_path / "s")
    with pytest.raises(SaveError, match="letters, digits, spaces") as err:
        store.save(name, fake())
    if "@" in name:
        assert "reserved for autosaves" in str(err.value)
    with pytest.raises(SaveError):
        store.check_new_career(name)
    assert store.names() == []


def test_good_names_and_imported_autosaves_are_accepted(tmp_path, fake):
    """Ordinary names (unicode, spaces) and imported autosaves are accepted."""
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
    """A store folder that cannot be written is reported up front, before a career starts."""
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
    """Errors for an existing save or file name the --force option that overrides them."""
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


# -- look-alike names ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "lookalike", ["CAR1", "c\u0430r1", "Car1", "\uff43\uff41\uff52\uff11", "car\u200b1", "\u0441\u0430r1"]
)
def test_a_new_career_that_looks_like_an_existing_one_is_refused(tmp_path, fake, lookalike):
    """A name that differs from an existing career's only by case, look-alike letters, width or
    invisible characters is the same name: a new career under it is refused."""
    from saves.names import name_key

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
    """Importing a save under a look-alike of an existing career's name is refused."""
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
