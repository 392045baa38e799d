"""Co-scheduling: during a block the serving thread and the agent process share one CPU."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from pibench_tui.sandbox import Sandbox, cosched

SPEC = {"lab": {"dashboard": {"params": [], "doc": "The dashboard.", "mutating": False}}}

needs_cpus = pytest.mark.skipif(not cosched.available(), reason="needs sched_setaffinity and two usable CPUs")


@pytest.fixture
def patient(monkeypatch):
    """Blocks are never let go for computing (:data:`cosched.PATIENCE`), however slowly a
    loaded machine runs the agent process: the pinning itself is under test."""
    monkeypatch.setattr(cosched, "PATIENCE", 3600.0)


class AffinityProbe:
    """A handler that records, at each call, the serving thread's CPU set and the agent
    process's (its main thread's), and the agent process's quiet hook."""

    def __init__(self) -> None:
        self.sandbox: Sandbox | None = None
        self.seen: list[tuple[set[int], set[int]]] = []
        self.hooks: list[cosched.QuietHook | None] = []

    def __call__(self, ns, method, args, kwargs):
        assert self.sandbox is not None and self.sandbox._process is not None
        pid = self.sandbox._process.proc.pid
        self.seen.append((os.sched_getaffinity(0), os.sched_getaffinity(pid)))
        self.hooks.append(self.sandbox._process.quiet)
        return {"month": 1}


def quiet_until_let_go(monkeypatch, sb: Sandbox) -> None:
    """Start ``sb``'s agent process and stop it (SIGSTOP) until its next block is let go
    (:meth:`cosched.CoSchedule.spread` continues it): the block's agent code sends nothing
    until pibench has found it quiet, however a loaded machine schedules the two (left to
    run, an agent process pinned to pibench's CPU may compute and send its call before
    pibench first looks: that call is not quiet, and the block is never let go)."""
    sb.start()
    assert sb._process is not None
    pid = sb._process.proc.pid
    spread = cosched.CoSchedule.spread

    def spread_and_continue(self: cosched.CoSchedule) -> None:
        spread(self)
        os.kill(pid, signal.SIGCONT)

    monkeypatch.setattr(cosched.CoSchedule, "spread", spread_and_continue)
    os.kill(pid, signal.SIGSTOP)


TWO_READS = "lab.dashboard()\nlab.dashboard()"


@contextmanager
def probed(block_timeout: float = 20, **kwargs) -> Iterator[tuple[AffinityProbe, Sandbox, set[int]]]:
    """A sandbox whose handler is an :class:`AffinityProbe`, with the calling thread's CPU
    set before any block; closed at the end."""
    probe = AffinityProbe()
    sb = Sandbox(probe, SPEC, block_timeout=block_timeout, seed=1, **kwargs)
    probe.sandbox = sb
    try:
        yield probe, sb, os.sched_getaffinity(0)
    finally:
        sb.close()


@needs_cpus
def test_block_runs_both_sides_on_one_cpu_and_gives_the_thread_its_cpus_back(patient):
    """While a block runs, pibench's serving thread and the agent process are each
    restricted to the same single CPU; after the block the thread has its CPU set again."""
    with probed() as (probe, sb, before):
        assert sb.run(TWO_READS).ok
        assert probe.seen, "the handler was never called"
        for thread_cpus, agent_cpus in probe.seen:
            assert len(thread_cpus) == 1
            assert thread_cpus == agent_cpus
            assert thread_cpus <= before
        assert os.sched_getaffinity(0) == before


@needs_cpus
def test_coschedule_off_changes_no_affinity():
    """``Sandbox(coschedule=False)`` leaves every CPU set as it was."""
    with probed(coschedule=False) as (probe, sb, before):
        assert sb.run(TWO_READS).ok
        assert probe.seen
        for thread_cpus, agent_cpus in probe.seen:
            assert thread_cpus == before
            assert len(agent_cpus) > 1
        assert os.sched_getaffinity(0) == before


@needs_cpus
def test_only_the_serving_thread_is_pinned(patient):
    """Another thread of pibench (a TUI's event loop) keeps its CPU set during a block."""
    probe = AffinityProbe()
    sb = Sandbox(probe, SPEC, block_timeout=20, seed=1)
    probe.sandbox = sb
    other_seen: list[set[int]] = []
    ready, done = threading.Event(), threading.Event()

    def other() -> None:
        ready.set()
        done.wait(30)
        other_seen.append(os.sched_getaffinity(0))

    t = threading.Thread(target=other)
    t.start()
    ready.wait(5)

    def handler(ns, method, args, kwargs):
        done.set()
        t.join(5)
        return probe(ns, method, args, kwargs)

    sb.handler = handler
    try:
        before = os.sched_getaffinity(0)
        assert sb.run("lab.dashboard()").ok
        assert other_seen == [before]
        assert len(probe.seen[0][0]) == 1
    finally:
        done.set()
        t.join(5)
        sb.close()


def test_refused_affinity_changes_nothing(monkeypatch):
    """Where the system refuses the affinity call, the block runs as before and the
    serving thread's CPU set is unchanged (an optimisation never fails a block)."""

    def refuse(pid, cpus):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "sched_setaffinity", refuse)
    with cosched.CoSchedule(os.getpid()) as co:
        assert not co.pinned
    assert co.cpu is None


def test_current_cpu_is_a_usable_cpu():
    """The CPU reported for the calling thread is one it may run on."""
    cpu = cosched.current_cpu()
    if cpu is None:
        pytest.skip("this system cannot tell the current CPU")
    assert cpu in os.sched_getaffinity(0)


@needs_cpus
def test_agent_process_restarted_mid_block_boots_on_every_cpu():
    """A block that times out restarts the agent process while the thread is pinned: the
    replacement gets the thread's former CPU set, not the one CPU it inherited."""
    with probed(block_timeout=1) as (_, sb, before):
        result = sb.run("while True:\n    pass")
        assert result.error is not None and result.error["type"] == "BlockTimeout"
        assert sb._process is not None
        assert os.sched_getaffinity(sb._process.proc.pid) == before
        assert os.sched_getaffinity(0) == before


@needs_cpus
def test_block_that_computes_is_let_go(monkeypatch):
    """Agent code that sends nothing for :data:`cosched.PATIENCE` seconds (it computes) is
    let go for the rest of the block: at its next call the agent process and the serving
    thread have their whole CPU sets again, so parallel sessions whose blocks began on one
    CPU do not compute on it together while another CPU is idle."""
    monkeypatch.setattr(cosched, "PATIENCE", 0.0)
    # Left to run, the agent process (pinned to the serving thread's CPU) may compute and
    # send its call before the serving thread's first wait on a loaded machine: that call
    # is not quiet. Stopped until let go, it is quiet when pibench looks, however scheduled.
    with probed() as (probe, sb, before):
        quiet_until_let_go(monkeypatch, sb)
        result = sb.run("n = sum(range(200000))\nlab.dashboard()")
        assert result.ok, result.error
        assert probe.seen == [(before, before)]
        assert os.sched_getaffinity(0) == before


@needs_cpus
@pytest.mark.parametrize("patience", [3600.0, 0.0])
def test_quiet_hook_is_one_value_set_for_a_pinned_block_and_cleared_after(monkeypatch, patience):
    """A pinned block gives the agent process one :class:`cosched.QuietHook` (the patience
    and the call that lets the block go, together); once it has fired (agent code that
    computed) the process holds none for the rest of the block, and after the block none at
    all; an unpinned block never has one."""
    monkeypatch.setattr(cosched, "PATIENCE", patience)
    with probed() as (probe, sb, _):
        if not patience:
            quiet_until_let_go(monkeypatch, sb)
        assert sb.run("n = sum(range(200000))\nlab.dashboard()").ok
        if patience:
            (hook,) = probe.hooks
            assert isinstance(hook, cosched.QuietHook) and hook.patience == patience
            assert len(probe.seen[0][0]) == 1  # still pinned: the hook never fired
        else:
            assert probe.hooks == [None]  # fired before the call, and cleared
        assert sb._process is not None and sb._process.quiet is None
    with probed(coschedule=False) as (probe, sb, _):
        assert sb.run("lab.dashboard()").ok
        assert probe.hooks == [None]
