"""Saves in ``pibench play``: a taken ``--save`` name is refused, a picked row
loads exactly that save, a damaged newest autosave falls back with a visible note, and a
signal ends the app with a final save."""

from __future__ import annotations

import asyncio
import os
import signal
import types

import pytest

from pibench_tui.cli.interrupts import run_app_with_signals
from pibench_tui.tui import app as app_mod
from pibench_tui.tui.app import make_app
from saves import SaveError, SaveStore
from tests.tui.conftest import new_world, settle


def test_play_refuses_a_new_career_under_a_taken_name(tmp_path):
    """``play`` refuses to start a new career under another career's save name (pointing to
    ``--load``) or a name with '@', but resuming that save under its own name works."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    store.save("qa1", new_world("tutorial"), scenario="tutorial")
    with pytest.raises(SaveError, match="scenario tutorial, seed 7.*--load qa1"):
        make_app(scenario="short-12", save="qa1", saves_dir=str(store.path), test_mode=True)
    with pytest.raises(SaveError, match="contains '@'"):
        make_app(scenario="short-12", save="x@m02", saves_dir=str(store.path), test_mode=True)
    app = make_app(load="qa1", save="qa1", saves_dir=str(store.path), test_mode=True)  # resuming it is fine
    assert app.game.world.seed == 7


def test_play_load_refuses_a_store_it_could_not_autosave_to(tmp_path, monkeypatch):
    """``play --load c`` checks at start that the store can be written, as ``--save`` and
    ``headless --load`` do: a resumed career keeps autosaving, and on a read-only store every
    autosave and ctrl+s used to fail one by one after the player had started (here the probe
    write is made to fail: as root, permissions cannot make a folder read-only)."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    store.save("c", new_world("short-12"), scenario="short-12")

    def unusable(self):
        raise SaveError(f"the save store {self.path} cannot be written (Read-only file system)")

    monkeypatch.setattr(SaveStore, "check_usable", unusable)
    with pytest.raises(SaveError, match="cannot be written"):
        make_app(load="c", saves_dir=str(store.path), test_mode=True)


@pytest.mark.asyncio
async def test_a_row_picked_in_the_load_dialog_loads_exactly_that_save(tmp_path):
    """A store from before careers were kept apart: 'qa1' (tutorial) and newer autosaves of
    another world under career 'qa1'."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    store.save("qa1", new_world("tutorial"), scenario="tutorial")
    store.autosave("qa1", new_world("short-12"), scenario="short-12")
    app = make_app(
        world=new_world(), scenario="standard", saves_dir=str(store.path), test_mode=True, run_baseline=False
    )
    async with app.run_test(size=(120, 40)) as pilot:
        app._load_named("qa1")
        await settle(pilot, app)
        assert app.game.world.seed == 7 and app.game.scenario_name == "tutorial"
        app._load_named("qa1@m01")
        await settle(pilot, app)
        assert app.game.world.seed == 101


@pytest.mark.asyncio
async def test_a_damaged_newest_autosave_is_skipped_with_a_note(tmp_path):
    """Loading a career whose newest autosave is damaged resumes from the previous one and tells the
    player which save was skipped."""
    store = SaveStore(tmp_path / "saves", on_warning=None)
    from world.api import Api

    w = new_world("short-12")
    store.autosave("c", w, scenario="short-12")
    Api(w).time.next_month()
    store.autosave("c", w, scenario="short-12")
    store.file_of("c@m02").write_bytes(b"garbage\n")
    app = make_app(load="c", saves_dir=str(store.path), test_mode=True, run_baseline=False)
    assert app.game.world.month == 1
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        texts = [str(n.message) for n in app._notifications]
        assert any("skipped the damaged save 'c@m02'" in t for t in texts)


class _FakeApp:
    """Stands in for the Textual app: runs until asked to exit; sends itself a signal."""

    def __init__(self, sig: int, busy_for: float = 0.0) -> None:
        self.sig, self.busy, self.busy_for = sig, busy_for > 0, busy_for
        self.return_code = None
        self.done: asyncio.Event | None = None
        self.saved_while_busy = None

    def exit(self, code: int = 0) -> None:
        self.return_code = code
        self.done.set()

    def run(self, loop) -> None:
        async def main() -> None:
            self.done = asyncio.Event()
            os.kill(os.getpid(), self.sig)
            if self.busy:
                await asyncio.sleep(self.busy_for)
                assert not self.done.is_set()  # the exit waited for the month to close
                self.busy = False
            await asyncio.wait_for(self.done.wait(), 60)  # a cap, not a timing: ends as soon as done

        loop.run_until_complete(main())


@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, 143), (signal.SIGINT, 1)])
def test_a_signal_stops_play_after_the_month_and_saves(sig, code, capsys):
    """SIGTERM (exit 143) or SIGINT (exit 1) during a running month stops play only after the month,
    saves once and says where."""
    app = _FakeApp(sig, busy_for=0.2)
    calls = []
    assert run_app_with_signals(app, lambda: calls.append(1) or "saved as 'lab' (month 3) in DIR") == code
    assert calls == [1]
    err = capsys.readouterr().err
    assert "saved as 'lab' (month 3)" in err
    assert signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None) or callable(signal.getsignal(signal.SIGTERM))


def test_run_play_saves_the_career_on_sigterm(tmp_path, monkeypatch, capsys):
    """run_play's final save is the career's save NAME, with the world as it stands."""
    monkeypatch.setattr(app_mod.sys, "stdin", types.SimpleNamespace(isatty=lambda: True))
    monkeypatch.setattr(app_mod.sys, "stdout", types.SimpleNamespace(isatty=lambda: True))

    def fake_run(self, loop=None, **kw):
        async def main():
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(0.05)

        loop.run_until_complete(main())
        pass

    monkeypatch.setattr(app_mod.PibenchApp, "run", fake_run)
    args = types.SimpleNamespace(scenario="short-12", seed=None, load=None, save="lab", saves_dir=str(tmp_path / "s"))
    assert app_mod.run_play(args) == 143
    assert "saved as 'lab' (month 1)" in capsys.readouterr().err
    assert SaveStore(tmp_path / "s").load("lab", exact=True).info.seed == 101
