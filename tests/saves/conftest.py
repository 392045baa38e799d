"""Fixtures for the save-store tests: a store in a temporary folder and small fake worlds."""

from __future__ import annotations

import pytest

import saves.records as records_mod
from saves import SaveStore
from tests.saves.saves_fakeworld import FakeWorld


@pytest.fixture
def store(tmp_path, monkeypatch) -> SaveStore:
    """An empty store in its own temporary folder (PIBENCH_HOME points elsewhere, unused)."""
    monkeypatch.setenv("PIBENCH_HOME", str(tmp_path / "home"))
    return SaveStore(tmp_path / "store", lock_timeout=1.0)


@pytest.fixture
def fake():
    """Factory of fake worlds: ``fake(seed=1, month=1, size=10)``."""
    return FakeWorld


@pytest.fixture
def count_replays(monkeypatch) -> list[str]:
    """The names of the saves whose action log ``verify_replay`` replayed, in order (the
    real check still runs): a test can tell a load that replayed from one that did not."""
    calls: list[str] = []
    real = records_mod.verify_replay

    def counted(*a, **k):
        calls.append(a[1])
        return real(*a, **k)

    monkeypatch.setattr(records_mod, "verify_replay", counted)  # SaveRecord.world calls it
    return calls
