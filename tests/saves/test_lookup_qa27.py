"""QA round 2 (issue 27): ``--load c1@m2`` failed with "no save called 'c1@m2'" though
``c1@m02`` was listed, and the "no save called" error listed the first 20 saves of 49 without
saying the list was cut. An autosave's month may be written with fewer digits; the error says
how many saves it left out and where to see them all."""

from __future__ import annotations

import pytest

from saves import SaveStore
from saves.errors import SaveNotFoundError
from saves.names import canonical_autosave
from saves.store import NAMES_SHOWN
from tests.tui.conftest import new_world
from world.api import Api


def test_an_autosave_month_written_with_fewer_digits_finds_the_autosave(tmp_path):
    """``c1@m2`` and ``c1@m002`` name the autosave ``c1@m02`` (resolve and exact resolve, as
    ``--load`` and the load dialog use them); ``canonical_autosave`` leaves other names alone."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    w = new_world("short-12")
    store.save("c1", w, scenario="short-12")
    Api(w).time.next_month()
    store.autosave("c1", w, scenario="short-12")
    for asked in ("c1@m2", "c1@m002"):
        assert store.resolve(asked).name == "c1@m02"
        assert store.resolve(asked, exact=True).name == "c1@m02"
    assert canonical_autosave("c1@m7-end") == "c1@m07-end" and canonical_autosave("a b") == "a b"
    with pytest.raises(SaveNotFoundError):
        store.resolve("c1@m3")


def test_no_save_called_says_how_many_saves_it_did_not_list(tmp_path):
    """With more saves than it names, the error counts the rest and points at ``saves list``;
    with few, it lists them all and adds nothing."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    w = new_world("short-12")
    for n in range(NAMES_SHOWN + 3):
        store.save(f"s{n:02d}", w, scenario="short-12")
    with pytest.raises(SaveNotFoundError) as err:
        store.resolve("nosuch")
    assert str(err.value).endswith(f"s{NAMES_SHOWN - 1:02d}, and 3 more: pibench saves list)"), err.value
    with pytest.raises(SaveNotFoundError) as err:
        store.delete("nosuch")
    assert "and 3 more: pibench saves list" in str(err.value)
    few = SaveStore(tmp_path / "few", on_warning=None)
    few.save("only", w, scenario="short-12")
    with pytest.raises(SaveNotFoundError) as err:
        few.resolve("nosuch")
    assert str(err.value).endswith("(saves: only)")


def test_an_older_autosave_named_with_fewer_digits_still_branches_and_a_finished_one_never(tmp_path):
    """``--load c1@m2`` with a newer save of career c1 plays on as the new career
    ``c1-from-m02`` (as ``c1@m02`` does), not over c1; loading an older save of a career that is
    over (``bl@m12-end`` beside ``bl``, QA round 2: "saved as the new career 'bl-from-m12'" and
    nothing was) makes no branch: nothing can be played on from it."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    w = new_world("short-12")
    api = Api(w)
    store.save("c1", w, scenario="short-12")
    api.time.next_month()
    store.autosave("c1", w, scenario="short-12")
    api.time.next_month()
    store.save("c1", w, scenario="short-12")
    assert store.branch_name("c1@m02") == store.branch_name("c1@m2") == "c1-from-m02"
    assert store.branch_name("c1") is None
    done = new_world("short-12")
    while not done.finished:
        Api(done).time.next_month()
    store.autosave("bl", done, scenario="short-12")
    store.save("bl", done, scenario="short-12")
    ended = next(i.name for i in store.list() if i.career == "bl" and i.kind == "autosave")
    assert store.resolve("bl").name == "bl" and store.branch_name(ended) is None
