"""Crash safety and locking: writers killed with SIGKILL at random points never leave a
half-written or unloadable store; a second writer waits briefly or fails clearly; the lock
of a killed process is recovered at once."""

from __future__ import annotations

import hashlib
import os
import signal
import sys
import threading
import time

import numpy as np
import pytest

from saves import SaveStore, StoreLockedError
from saves.storage import atomic_write

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork and SIGKILL")


class CheckedWorld:
    """A world whose state carries a checksum of itself, so any mix-up shows on load."""

    def __init__(self, k: int, rng: np.random.Generator) -> None:
        payload = rng.normal(size=int(rng.integers(200, 3000))).tolist()
        self.state = {
            "k": k,
            "payload": payload,
            "note": "ünïcödé ✓",
            "check": hashlib.sha256(repr(payload).encode()).hexdigest(),
        }
        self.month = k % 60 + 1
        self.seed = k
        self.finished = self.collapsed = False
        self.cfg = None

    def to_state(self) -> dict:
        return self.state

    def digest(self) -> str:
        return self.state["check"]


def _churn(path: str, seed: int, ready_w: int) -> None:
    """Child body: write to the store as fast as possible until killed (``r`` on the pipe
    when it starts, ``w`` once its first operation is done)."""
    rng = np.random.default_rng(seed)
    store = SaveStore(path, lock_timeout=30)
    os.write(ready_w, b"r")
    k = 0
    while True:
        if k == 1:
            os.write(ready_w, b"w")
        k += 1
        w = CheckedWorld(k, rng)
        op = rng.integers(0, 10)
        name = f"slot-{rng.integers(0, 4)}"
        if op < 5:
            store.save(name, w)
        elif op < 8:
            store.autosave("career", w, keep=2)
        elif op < 9 and name in store.names():
            store.delete(name)
        else:
            store.save(f"ünï-{k % 3}", w)


def _fork(target, *args) -> tuple[int, int]:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never return into pytest
        code = 0
        try:
            os.close(r)
            target(*args, w)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    return pid, r


def _verify(path) -> int:
    """Every listed save loads and is self-consistent; no recovery was needed."""
    store = SaveStore(path, lock_timeout=0.5)
    infos = store.list()
    for info in infos:
        rec = store.load(info.name)
        st = rec.state
        assert st["check"] == hashlib.sha256(repr(st["payload"]).encode()).hexdigest()
        assert rec.info.digest == st["check"] and rec.info.name == info.name
    assert store.warnings == []  # the main index was never damaged: no backup needed
    # The killed writer's lock is free at once: a store that never waits (timeout 0) can write.
    store = SaveStore(path, lock_timeout=0)
    store.save("probe", CheckedWorld(0, np.random.default_rng(0)))
    store.delete("probe")
    assert not list(store.path.rglob("*.tmp"))  # leftovers were cleaned under the lock
    return len(infos)


def test_writers_killed_at_random_points_never_leave_a_broken_store(tmp_path):
    """SIGKILL a busy writer 60 times at random moments; after each, the store is whole.
    Every other writer is killed only after its first operation is done, so the store holds
    saves however slowly a loaded machine runs the writers."""
    rng = np.random.default_rng(2024)
    path = tmp_path / "store"
    seen = 0
    for i in range(60):
        pid, ready = _fork(_churn, str(path), i)
        assert os.read(ready, 1) == b"r"
        if i % 2:
            assert os.read(ready, 1) == b"w"
        time.sleep(float(rng.uniform(0.0, 0.03)))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(ready)  # only now: the writer's "w" never meets a closed pipe
        assert os.WIFSIGNALED(status), "the writer died on its own: it hit an error"
        seen += _verify(path)
    assert seen > 0


def _careers(path: str, seed: int, ready_w: int) -> None:
    """Child body: play real careers (12 months each), autosaving every month (whole
    autosaves and the deltas between them) and deleting one now and then, until killed."""
    from saves import CareerSaves
    from world.career import Career
    from world.config import WorldConfig

    store = SaveStore(path, lock_timeout=30)
    os.write(ready_w, b"r")
    k = 0
    while True:
        held = Career.new(WorldConfig(months=12), seed % 3, saves=CareerSaves(store))
        world, api = held.world, held.api
        career = f"c{(seed + k) % 2}"
        while not world.finished:
            api.time.next_month()
            held.autosave(career, keep=2)
            if k == 0 and world.month == 2:
                os.write(ready_w, b"w")
            if world.month == 7 and (seed + k) % 4 == 0:
                store.delete(store.list(career=career)[0].name)
        k += 1


def test_autosave_deltas_survive_writers_killed_at_random_points(tmp_path):
    """SIGKILL a writer of real careers (whole autosaves and deltas) 16 times at random
    moments; after each, every listed autosave loads to a world of its month, with no
    recovery needed: a delta's base is never collected while a delta needs it."""
    rng = np.random.default_rng(7)
    path = tmp_path / "store"
    loaded = deltas = 0
    for i in range(16):
        pid, ready = _fork(_careers, str(path), i)
        assert os.read(ready, 1) == b"r"
        assert os.read(ready, 1) == b"w"
        time.sleep(float(rng.uniform(0.0, 0.05)))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(ready)
        assert os.WIFSIGNALED(status), "the writer died on its own: it hit an error"
        store = SaveStore(path, lock_timeout=0.5, on_warning=None)
        for info in store.list():
            world, _ = store.load_world(info.name, exact=True)
            assert world.month == info.month
            loaded += 1
            deltas += not info.digest  # a delta records no digest
        assert store.warnings == []
    assert loaded > 0 and deltas > 0


@pytest.mark.parametrize("stage", ["write", "fsync", "backup", "replace"])
def test_a_crash_inside_an_atomic_write_leaves_the_old_file(tmp_path, monkeypatch, stage):
    """Deterministic fault injection at each step of the write: the old file survives intact."""
    target = tmp_path / "f.json"
    target.write_bytes(b"old\n")

    class Crash(BaseException):
        pass

    def boom(*a, **k):
        raise Crash()

    if stage == "write":
        monkeypatch.setattr(os, "fdopen", boom)
    elif stage == "fsync":
        monkeypatch.setattr(os, "fsync", boom)
    elif stage == "backup":
        monkeypatch.setattr("saves.storage._keep_backup", boom)
    else:
        monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(Crash):
        atomic_write(target, b"new\n", backup=tmp_path / "f.json.bak")
    monkeypatch.undo()
    assert target.read_bytes() == b"old\n"
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def _hold(path: str, release_r: int, ready_w: int) -> None:
    """Child body: hold the store's lock (``r`` on the pipe once held) until a byte arrives on
    ``release_r`` (or the child is killed)."""
    store = SaveStore(path)
    with store.lock:
        os.write(ready_w, b"r")
        os.read(release_r, 1)


def test_second_writer_fails_clearly_when_the_lock_stays_busy(tmp_path):
    """A second writer waits `lock_timeout` seconds, then says who holds the store."""
    path = tmp_path / "store"
    SaveStore(path).save("a", CheckedWorld(1, np.random.default_rng(1)))
    release_r, release_w = os.pipe()
    pid, ready = _fork(_hold, str(path), release_r)
    try:
        assert os.read(ready, 1) == b"r"
        store = SaveStore(path, lock_timeout=0.3)
        t0 = time.monotonic()
        with pytest.raises(StoreLockedError) as info:
            store.save("b", CheckedWorld(2, np.random.default_rng(2)))
        assert time.monotonic() - t0 >= 0.3
        msg = str(info.value)
        assert "busy" in msg and f"pid {pid}" in msg and "--saves" in msg
        assert store.names() == ["a"]  # reading never needs the lock
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(release_r)
        os.close(release_w)
    # The holder was killed: its lock is recovered at once (a store that never waits can write),
    # and the pid in the file replaced.
    SaveStore(path, lock_timeout=0).save("b", CheckedWorld(2, np.random.default_rng(2)))
    assert store.names() == ["a", "b"]
    assert (path / ".lock").read_text().split()[0] != str(pid)


def test_second_writer_waits_briefly_for_a_short_write(tmp_path):
    """If the other writer finishes within the timeout, the second one waits for it and proceeds
    (the holder's lock is busy when the second writer starts; it lets go a moment later,
    however long the machine takes to get there)."""
    path = tmp_path / "store"
    SaveStore(path).save("a", CheckedWorld(1, np.random.default_rng(1)))
    release_r, release_w = os.pipe()
    pid, ready = _fork(_hold, str(path), release_r)
    release = threading.Timer(0.3, os.write, (release_w, b"g"))
    try:
        assert os.read(ready, 1) == b"r"
        with pytest.raises(StoreLockedError):  # the holder still has it: a writer that never waits fails
            SaveStore(path, lock_timeout=0).save("c", CheckedWorld(3, np.random.default_rng(3)))
        release.start()
        SaveStore(path, lock_timeout=120).save("b", CheckedWorld(2, np.random.default_rng(2)))
    finally:
        if release.ident is None:  # failed before the release was scheduled
            os.write(release_w, b"g")
        else:
            release.join()
        os.waitpid(pid, 0)
        os.close(release_r)
        os.close(release_w)
    assert SaveStore(path).names() == ["a", "b"]


def test_lock_is_reentrant_within_one_store(tmp_path):
    """A store can save while its own lock is already held (no self-deadlock), and the lock is
    released after the outer block."""
    store = SaveStore(tmp_path / "s")
    store.path.mkdir()
    with store.lock:
        store.save("x", CheckedWorld(1, np.random.default_rng(1)))  # takes it again inside
    assert not store.lock.held


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


def test_threads_sharing_a_store_take_turns(tmp_path):
    """A TUI worker autosaving while the UI thread saves: both succeed, nothing is lost."""
    import threading

    store = SaveStore(tmp_path / "s", lock_timeout=10)
    errors: list[BaseException] = []

    def work(tag: str) -> None:
        rng = np.random.default_rng(len(tag))
        try:
            for i in range(15):
                if tag == "auto":
                    store.autosave("career", CheckedWorld(i, rng), keep=20)
                else:
                    store.save(f"{tag}-{i}", CheckedWorld(i, rng))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in ("auto", "ui", "other")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(store.list()) == 15 + 15 + 15
    assert _verify(store.path) == 45
