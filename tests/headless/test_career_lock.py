"""One session per career: while a ``pibench headless`` session writes a career's saves, a
second session of that career (``--load``, or a new ``--save`` under the same or a look-alike
name) fails at once naming the holder; reading the career needs no lock; the lock is free
again when the holder ends, even by SIGKILL (real processes on one store)."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from saves import SaveStore
from tests.headless.conftest import pibench_command, run_pibench

WAIT_BOUND_S = 60.0
"""How long a test waits for a session to reach a state (a bound for a hung test, not a
timing: each wait ends as soon as its condition holds)."""


def _start(args: list[str], home) -> subprocess.Popen:
    """A ``pibench headless`` session that runs until its stdin is closed."""
    return subprocess.Popen(
        pibench_command() + ["headless", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PIBENCH_HOME=str(home)),
    )


def _wait(condition, what: str, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + WAIT_BOUND_S
    while not condition():
        assert proc.poll() is None, f"the session ended before {what}: {proc.communicate()}"
        assert time.monotonic() < deadline, f"no {what} within {WAIT_BOUND_S:g} s"
        time.sleep(0.05)


def _names(store) -> set[str]:
    return {i.name for i in SaveStore(store, on_warning=None).list()} if (store / "index.json").exists() else set()


def _holds(store, career: str, proc: subprocess.Popen) -> bool:
    """Whether the career's lock file names ``proc`` as its holder (written once it holds it)."""
    return f"pid {proc.pid} on" in SaveStore(store, on_warning=None).career_lock(career).holder()


def test_a_second_session_of_a_career_fails_at_once_and_the_first_keeps_its_lineage(tmp_path):
    """While session A (``--save c1``) runs: ``--load c1`` and a new career ``--save C1``
    (the same name to the store) exit 1 at once (A is still running and waiting for input,
    so they did not wait for it), naming the career, A's pid and what to do; ``saves
    list/show/export`` work. A's autosaves stay one continuous lineage, and after A ends
    a new session resumes c1."""
    store, home = tmp_path / "store", tmp_path / "home"
    a = _start(["--scenario", "short-12", "--seed", "3", "--save", "c1", "--saves", str(store)], home)
    try:
        a.stdin.write(b"time.next_month()\n1\n")  # a statement runs once the next one starts
        a.stdin.flush()
        _wait(lambda: "c1@m02" in _names(store), "autosave c1@m02", a)
        for args in (["--load", "c1"], ["--scenario", "short-12", "--save", "C1"]):
            b = run_pibench(["headless", *args, "--saves", str(store)], "time.next_month()\n", home=home)
            assert b.returncode == 1, b
            assert f"the career '{args[-1]}' is in use" in b.stderr, b.stderr  # as asked; the holder's is c1
            assert f"pibench headless of 'c1', pid {a.pid} on " in b.stderr and "since 20" in b.stderr
            assert "--save OTHER" in b.stderr and "pibench play --replay" in b.stderr
            assert "pibench saves show c1`" in b.stderr  # the career's name as saved, which works
            if args[0] == "--load":  # resuming c1: wait for A, or fork it under another name
                assert "Wait for that session to end" in b.stderr and "`--load c1 --save OTHER`" in b.stderr
            else:  # a new career: the name stays A's career's whatever happens, so no waiting
                assert "a new career cannot start under its name" in b.stderr, b.stderr
                assert "Wait for" not in b.stderr and "--load" not in b.stderr, b.stderr
            assert b.stdout == "", b.stdout  # nothing ran
        for args in (["list"], ["show", "c1"], ["export", "c1", str(tmp_path / "c1.json")]):
            ro = run_pibench(["saves", *args, "--saves", str(store)], home=home)
            assert ro.returncode == 0, ro.stderr
        assert a.poll() is None
        a.stdin.write(b"time.next_month()\n1\ntime.next_month()\n")
        out, err = a.communicate(timeout=WAIT_BOUND_S)
    finally:
        if a.poll() is None:
            a.kill()
            a.wait()
    assert a.returncode == 0, err
    infos = SaveStore(store, on_warning=None).list(career="c1")
    assert sorted(i.name for i in infos) == ["c1", "c1@m02", "c1@m03", "c1@m04"]
    assert len({(i.scenario, i.seed) for i in infos}) == 1  # one career: nothing of the refused sessions
    assert b"saved as 'c1' (month 4)" in out
    after = run_pibench(["headless", "--load", "c1", "--saves", str(store)], "time.next_month()['month']\n", home=home)
    assert after.returncode == 0, after.stderr
    assert after.stdout.startswith("5\n")
    assert "c1@m05" in _names(store)


def test_the_lock_of_a_killed_session_is_free_at_once(tmp_path):
    """A session killed with SIGKILL (no cleanup ran) leaves the career free: the OS dropped
    its lock, and the next session resumes the career from the dead one's last autosave."""
    store, home = tmp_path / "store", tmp_path / "home"
    first = run_pibench(
        ["headless", "--scenario", "short-12", "--seed", "4", "--save", "k", "--saves", str(store)],
        "time.next_month()\n",
        home=home,
    )
    assert first.returncode == 0, first.stderr
    victim = _start(["--load", "k", "--saves", str(store)], home)
    try:
        victim.stdin.write(b"time.next_month()\n1\n")
        victim.stdin.flush()
        _wait(lambda: "k@m03" in _names(store) and _holds(store, "k", victim), "autosave k@m03", victim)
        refused = run_pibench(["headless", "--load", "k", "--saves", str(store)], home=home)
        assert refused.returncode == 1 and f"pid {victim.pid} on" in refused.stderr, refused.stderr
    finally:
        victim.send_signal(signal.SIGKILL)
        victim.communicate(timeout=WAIT_BOUND_S)
    assert victim.returncode == -signal.SIGKILL
    again = run_pibench(["headless", "--load", "k", "--saves", str(store)], "time.next_month()['month']\n", home=home)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("4\n")
