"""One session per career in ``pibench play``: a play session holds its career's lock from
start to end; a second session of that career, a load of a career another session writes,
and a ctrl+s save into it are refused naming the holder; a load moves the lock to the loaded
career; read-only uses take no lock (a store where no lock can be made still replays)."""

from __future__ import annotations

import os

import pytest

from pibench_tui.tui.app import make_app
from pibench_tui.tui.replay import open_save
from saves import CareerLockedError, SaveError, SaveStore
from saves.lock import CareerLock
from tests.tui.conftest import build, close_month, new_world, settle


def _store(tmp_path) -> SaveStore:
    return SaveStore(tmp_path / "saves", on_warning=None)


@pytest.mark.asyncio
async def test_a_play_session_holds_its_career_until_it_ends(tmp_path):
    """``play --save c1`` holds c1: a second ``play --save C1`` (one name to the store) or
    ``--load c1`` fails at once naming c1, this pid and what to do, and the first session's
    autosaves go on; when the app has ended, ``--load c1`` works."""
    saves = str(tmp_path / "saves")
    app = make_app(
        scenario="short-12", seed=3, save="c1", saves_dir=saves, test_mode=True, run_baseline=False, show_digest=False
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await close_month(pilot, app)
        for kw in ({"scenario": "short-12", "save": "C1"}, {"load": "c1"}):
            with pytest.raises(CareerLockedError) as refused:
                make_app(saves_dir=saves, test_mode=True, **kw)
            text = str(refused.value)
            assert "is in use" in text and f"pibench play of 'c1', pid {os.getpid()} on " in text
            assert "--save OTHER" in text and "pibench play --replay" in text
            # a new career under a running one's name: another name, not waiting, helps
            assert ("a new career cannot start under its name" in text) == ("save" in kw), text
            assert ("Wait for that session to end" in text) == ("load" in kw), text
        await close_month(pilot, app)
    assert {"c1@m02", "c1@m03"} <= {i.name for i in _store(tmp_path).list(career="c1")}
    resumed = make_app(load="c1", saves_dir=saves, test_mode=True, run_baseline=False)
    assert resumed.game.world.month == 3 and resumed.career_lock.held
    resumed.release_career()


@pytest.mark.asyncio
async def test_a_load_takes_the_loaded_careers_lock_and_ctrl_s_respects_others(tmp_path):
    """In a running app, loading a career another session writes is refused (the app keeps
    its own career), a ctrl+s save into that career too; once free, the load takes it, and
    loading another career lets the first one go."""
    store = _store(tmp_path)
    store.save("c1", new_world("short-12"), scenario="short-12")
    store.save("c2", new_world("short-12", seed=9), scenario="short-12")
    other = store.hold_career("c1", "pibench headless")  # another session writes c1
    app = build(tmp_path=tmp_path, show_digest=False)
    app.store = store
    async with app.run_test(size=(120, 40)) as pilot:
        app._load_named("c1")
        await settle(pilot, app)
        assert app.career is None and app.career_lock is None
        app._save_named("c1")
        await settle(pilot, app)
        refusals = [text for text, severity in app.toasts if severity == "error"]
        assert len(refusals) == 2 and all(
            "'c1' is in use" in t and "pibench headless of 'c1', pid" in t for t in refusals
        )
        other.release()
        app._load_named("c1")
        await settle(pilot, app)
        assert app.career == "c1" and app.career_lock.held
        with pytest.raises(CareerLockedError):
            store.hold_career("c1")
        app._load_named("c2")
        await settle(pilot, app)
        assert app.career == "c2"
        store.hold_career("c1").release()  # c1 is free again
        await close_month(pilot, app)
    assert "c2@m02" in {i.name for i in store.list()}
    store.hold_career("c2").release()  # the ended app let c2 go


def test_a_store_where_no_lock_can_be_made_still_replays_but_is_not_played(tmp_path, monkeypatch):
    """Reading needs no lock: with lock files impossible (a read-only store; here the lock
    file's creation is made to fail, as root ignores permissions) a save still opens for
    replay and is listed, while ``play --load`` fails before the career with the store's
    "cannot be written" error, which points to the read-only ways."""
    store = _store(tmp_path)
    store.save("c", new_world("short-12"), scenario="short-12")

    def refuse(self):
        raise PermissionError(13, "Permission denied", str(self.path))

    monkeypatch.setattr(CareerLock, "acquire", refuse)
    monkeypatch.setattr(SaveStore, "check_usable", lambda self: None)  # only the lock fails (else this fails first)
    assert open_save("c", store.path.as_posix()).label == "c"
    assert [i.name for i in store.list()] == ["c"]
    with pytest.raises(SaveError, match=r"cannot be written \(Permission denied\).*needs no writing.*--replay"):
        make_app(load="c", saves_dir=str(store.path), test_mode=True)
