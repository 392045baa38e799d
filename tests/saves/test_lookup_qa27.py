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
