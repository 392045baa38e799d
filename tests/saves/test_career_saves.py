"""The save writer of a Career (issue 23 §3): what a store keeps of a live world between its
saves (the text caches, the whole autosave that deltas build on) is held by the career's
writer (``saves.CareerSaves``), not by module-level dictionaries keyed by the world; headless
mode and the TUI autosave through their career's writer."""

from __future__ import annotations

import json

import saves.store as store_mod
from saves import CareerSaves, SaveStore
from saves.deltas import is_delta
from world.career import Career
from world.config import WorldConfig


def _state(store: SaveStore, name: str) -> dict:
    return json.loads(store.file_of(name).read_text())["save"]["state"]


def _kinds(store: SaveStore, career: str) -> list[bool]:
    """Whether each autosave of ``career`` on disk is a delta, oldest first."""
    infos = sorted(store.list(career=career), key=lambda i: i.month)
    return [is_delta(_state(store, i.name)) for i in infos if i.kind == "autosave"]


def test_the_store_keeps_nothing_of_a_world_between_saves(tmp_path):
    """No module-level dictionary keyed by worlds is left in saves.store; autosaves made
    without the career's writer are whole every month, through it they are deltas between
    whole ones, and each loads to the world saved."""
    for gone in ("_BASES", "_TEXT_CACHES", "_META_CACHES"):
        assert not hasattr(store_mod, gone), gone
    store = SaveStore(tmp_path / "s", on_warning=None)
    bare = Career.new(WorldConfig(), 3)
    held = Career.new(WorldConfig(), 3, saves=CareerSaves(store))
    for _ in range(3):
        bare.api.time.next_month()
        held.api.time.next_month()
        store.autosave("bare", bare.world, keep=10)
        held.autosave("held", keep=10)
    assert _kinds(store, "bare") == [False, False, False]
    assert _kinds(store, "held") == [False, True, True]
    assert store.load_world("held")[0].digest() == held.world.digest() == bare.world.digest()


def test_headless_autosaves_through_its_careers_writer(tmp_path):
    """A headless session with --save autosaves each month through its Career's writer: one
    whole autosave, then deltas of it; the final save loads to the session's world."""
    from pibench_tui.headless.session import HeadlessOptions, HeadlessSession

    session = HeadlessSession(HeadlessOptions(scenario="short-12", save="lab", saves_dir=str(tmp_path / "s")))
    try:
        assert isinstance(session.career.saves, CareerSaves) and session.career.saves.store is session.store
        for _ in range(3):
            session.api.time.next_month()
            session.autosave()
        assert _kinds(session.store, "lab") == [False, True, True]
        session.final_save()
        assert session.store.load_world("lab", exact=True)[0].digest() == session.world.digest()
    finally:
        session.close()


def test_the_tui_game_autosaves_through_its_careers_writer(tmp_path):
    """The TUI's Game autosaves through its Career's writer (deltas between whole ones) and
    keeps one writer per store."""
    from pibench_tui.tui.game import Game

    store = SaveStore(tmp_path / "s", on_warning=None)
    game = Game(Career.new(WorldConfig(), 5).world, scenario="standard")
    for _ in range(3):
        game.next_month()
        game.autosave("run", store)
    writer = game.held.saves
    assert isinstance(writer, CareerSaves) and writer.store is store
    game.save("run", store)
    assert game.held.saves is writer and not game.unsaved
    assert _kinds(store, "run") == [False, True, True]
