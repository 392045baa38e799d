"""Co-scheduling of a block: pibench's serving thread and the agent process on one CPU.

A block is a strict ping-pong: the agent process runs agent code while pibench waits for
its next message, then pibench serves the call while the agent process waits for the
answer; the two never run at the same time. Left to the scheduler, each wakes the other on
whichever CPU is idle, and a wake-up across CPUs is slow, above all in a virtual machine
(an idle CPU must be woken by an interrupt). Measured on the 2-CPU machine of issue 9: a
bare pipe ping-pong between two processes took ~100-150 us a round trip on two CPUs and
~10 us with both on one CPU; the baseline career through headless mode (244 round trips)
took half the CPU time with the whole process tree on one CPU (``bench/headless.py``).

So for the length of a block, :class:`CoSchedule` restricts the serving thread (only it:
a TUI's other threads keep their CPUs) and the agent process's main thread to the CPU the
serving thread is running on; afterwards the serving thread gets its CPUs back. The agent
process keeps that CPU between blocks (it only waits then) and is moved again at the next
block, to wherever pibench then runs.

A block whose agent code computes instead of calling (no message for :data:`PATIENCE`
seconds) is let go (:meth:`CoSchedule.spread`): both get their CPU sets back for the rest
of the block. Otherwise several sessions (parallel ``pibench headless`` processes, the
careers of ``pibench agent --jobs``) whose blocks began on the same CPU would compute on
that one CPU while another sat idle, and a wall-clock block timeout could fire on a block
that would have finished in time. A wake-up saved is worth ~0.1 ms, nothing against a
computation that long.

It is an optimisation only and never fails a block: where the system has no
``sched_setaffinity`` (not Linux), a single usable CPU, or refuses the call (a container's
CPU set, a seccomp profile), nothing is changed.

Standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import TracebackType
from typing import NamedTuple

_getcpu = None
try:  # glibc's sched_getcpu (a vDSO call, ~50 ns); read from /proc otherwise
    import ctypes

    _getcpu = ctypes.CDLL(None, use_errno=True).sched_getcpu
    _getcpu.restype = ctypes.c_int
    _getcpu.argtypes = []
except (ImportError, OSError, AttributeError):  # pragma: no cover - not glibc
    _getcpu = None


PATIENCE = 0.05
"""Seconds without a message from the agent process after which a block is let go
(:meth:`CoSchedule.spread`): agent code that computes that long gains nothing from sharing
a CPU with pibench."""


class QuietHook(NamedTuple):
    """What the agent process's reader does when a block's agent code is quiet
    (:attr:`pibench_tui.sandbox.process.AgentProcess.quiet`): once it has sent no message
    for ``patience`` seconds, ``call()`` (once, then the hook is cleared). One value, so the
    wait and what ends it are set and cleared together."""

    patience: float
    call: Callable[[], None]


def current_cpu() -> int | None:
    """The CPU the calling thread runs on now, or ``None`` when it cannot be told."""
    if _getcpu is not None:
        cpu = int(_getcpu())
        return cpu if cpu >= 0 else None
    try:  # field 39 of /proc/thread-self/stat ("processor"), after the command's parentheses
        with open("/proc/thread-self/stat", "rb") as f:
            return int(f.read().rpartition(b")")[2].split()[36])
    except (OSError, ValueError, IndexError):
        return None


def available() -> bool:
    """Whether co-scheduling can do anything here: ``sched_setaffinity`` exists and the
    calling thread may run on more than one CPU."""
    if not hasattr(os, "sched_setaffinity") or not hasattr(os, "sched_getaffinity"):
        return False
    try:
        return len(os.sched_getaffinity(0)) > 1
    except OSError:
        return False


class CoSchedule:
    """Context manager: pin the calling thread and the process ``pid`` (its main thread)
    to the calling thread's current CPU; on exit, give the calling thread its former CPU
    set back (the process ``pid`` keeps the CPU: see the module's docstring).

    Args:
        pid: The agent process's id.
        enabled: ``False`` makes it do nothing (``Sandbox(coschedule=False)``).

    Never raises for a refused or unsupported affinity call: :attr:`pinned` says whether
    the two were put on one CPU (``cpu`` names it).
    """

    __slots__ = ("pid", "enabled", "cpu", "pinned", "_own")

    def __init__(self, pid: int, enabled: bool = True) -> None:
        self.pid = pid
        self.enabled = enabled
        self.cpu: int | None = None
        self.pinned = False
        self._own: set[int] | None = None

    def __enter__(self) -> CoSchedule:
        if not self.enabled or not available():
            return self
        try:
            own = os.sched_getaffinity(0)
            cpu = current_cpu()
            if cpu is None or cpu not in own:
                return self
            os.sched_setaffinity(0, {cpu})
            self._own = own
            os.sched_setaffinity(self.pid, {cpu})
        except OSError:  # refused (a container's CPU set, an exited process): run as before
            return self
        self.cpu, self.pinned = cpu, True
        return self

    def spread(self) -> None:
        """Give the calling thread and the process :attr:`pid` the calling thread's former CPU
        set for the rest of the block (its agent code computes rather than calls: see the
        module's docstring). Called from the thread that entered; does nothing if not pinned."""
        if self._own is None or not self.pinned:
            return
        self.pinned = False
        try:
            os.sched_setaffinity(0, self._own)
            os.sched_setaffinity(self.pid, self._own)
        except OSError:  # pragma: no cover - it exited already; __exit__ restores the thread
            pass

    def quiet_hook(self) -> QuietHook | None:
        """The hook that lets this block go once its agent code has computed for
        :data:`PATIENCE` seconds (:meth:`spread`), or ``None`` when nothing is pinned (nothing
        to let go); for :attr:`pibench_tui.sandbox.process.AgentProcess.quiet`."""
        return QuietHook(PATIENCE, self.spread) if self.pinned else None

    def release(self, pid: int) -> None:
        """Give the process ``pid`` the CPU set the calling thread had before
        :meth:`__enter__`: for an agent process started while pinned (a restart in the
        middle of a block inherits the one CPU), so that it boots anywhere."""
        if self._own is not None:
            try:
                os.sched_setaffinity(pid, self._own)
            except OSError:  # pragma: no cover - it exited already
                pass

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._own is not None:
            try:
                os.sched_setaffinity(0, self._own)
            except OSError:  # pragma: no cover - the CPU set shrank meanwhile; keep what we have
                pass
            self._own = None
