"""Property-based test of the store against a model: any sequence of saves, autosaves,
deletes, exports/imports and index damage leaves exactly the saves the model expects, each
loading with the state it was given."""

from __future__ import annotations

import shutil
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from saves import SaveExistsError, SaveNotFoundError, SaveStore, StoreWarning
from tests.saves.saves_fakeworld import FakeWorld

pytestmark = pytest.mark.filterwarnings("ignore::saves.errors.StoreWarning")  # damage is deliberate here

NAMES = st.sampled_from(["a", "b", "Zoë", "研究"])
CAREERS = st.sampled_from(["run", "ünï"])


class StoreMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp())
        self.store = SaveStore(self.dir / "store")
        self.model: dict[str, dict] = {}  # name -> state
        self.careers: dict[str, list[str]] = {}  # career -> autosave names, oldest first
        self.k = 0

    def teardown(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def world(self, month: int) -> FakeWorld:
        self.k += 1
        return FakeWorld(seed=self.k, month=month, size=self.k % 5)

    @rule(name=NAMES, month=st.integers(1, 60), overwrite=st.booleans())
    def save(self, name, month, overwrite):
        w = self.world(month)
        if name in self.model and not overwrite:
            try:
                self.store.save(name, w, overwrite=False)
            except SaveExistsError:
                return
            raise AssertionError("overwrite=False replaced a save")
        self.store.save(name, w, overwrite=overwrite)
        self.model[name] = w.to_state()
        for autos in self.careers.values():
            if name in autos:
                autos.remove(name)

    @rule(career=CAREERS, month=st.integers(1, 60), keep=st.integers(1, 3))
    def autosave(self, career, month, keep):
        self.k += 1  # a career's autosaves are of one world: its seed never changes
        w = FakeWorld(seed=1000 + sorted(["run", "ünï"]).index(career), month=month, size=self.k % 5)
        info = self.store.autosave(career, w, keep=keep)
        autos = self.careers.setdefault(career, [])
        if info.name in autos:
            autos.remove(info.name)
        autos.append(info.name)
        self.model[info.name] = w.to_state()
        for old in autos[:-keep]:
            self.model.pop(old, None)
        del autos[:-keep]

    @rule(name=NAMES)
    def delete(self, name):
        if name in self.model:
            self.store.delete(name)
            del self.model[name]
        else:
            try:
                self.store.delete(name)
            except SaveNotFoundError:
                return
            raise AssertionError("deleted a save that should not exist")

    @precondition(lambda self: self.model)
    @rule(data=st.data(), new=NAMES)
    def export_import(self, data, new):
        name = data.draw(st.sampled_from(sorted(self.model)))
        path = self.store.export(name, self.dir / "x.json", overwrite=True)
        self.store.import_file(path, name=new, overwrite=True)
        self.model[new] = self.model[name]
        for autos in self.careers.values():
            if new in autos:
                autos.remove(new)

    @rule()
    def damage_index(self):
        """Damage the main index: the backup is one write behind, so resync the model from
        what the backup says, then check every listed save still loads."""
        if not self.store.index_path.exists():
            return
        self.store.index_path.write_bytes(b"{damaged")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StoreWarning)
            names = set(self.store.names())
        # The backup is the whole index one write behind: its saves (and their versions)
        # come back from their kept files. The model follows it.
        self.model = {name: self.store.load(name).state for name in names}
        self.careers = {}
        for info in self.store.list(kind="autosave"):
            self.careers.setdefault(info.career, []).append(info.name)

    @invariant()
    def store_matches_model(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StoreWarning)
            assert set(self.store.names()) == set(self.model)
            for name, state in self.model.items():
                assert self.store.load(name).state == state


StoreMachine.TestCase.settings = settings(max_examples=25, stateful_step_count=12, deadline=None)
TestStoreModel = StoreMachine.TestCase
