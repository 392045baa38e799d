"""OS confinement of the agent process (MECHANICS Decisions 9): the sandbox's boundary.

The agent process confines itself after it has imported what it needs and before it runs
any agent code, with the kernel's own mechanisms, whoever runs pibench (root or an
ordinary user):

1. ``PR_SET_NO_NEW_PRIVS``: no exec can ever gain privileges (needed for 3 and 4 too).
2. When started as root: no supplementary groups, group and user ``nobody`` (65534),
   which also clears every capability.
3. **Landlock** (the filesystem, and TCP and signals where the kernel's ABI has them):
   every filesystem right the kernel knows is handled, and the only rule grants reading
   files and listing folders beneath the Python installation (the standard library, and
   numpy's folders). Nothing can be written, created, removed or renamed anywhere;
   nothing else can be read. ABI >= 4 also refuses TCP bind/connect, ABI >= 6 refuses
   signals to processes outside the sandbox and abstract UNIX sockets.
4. Resource limits: address space, no core dumps, no file growth (``RLIMIT_FSIZE`` 0),
   three descriptors (``RLIMIT_NOFILE`` 3), no new processes (``RLIMIT_NPROC`` 0 once
   the process is not root).
5. **seccomp**, last, on every thread (``TSYNC``): an *allow-list* of the system calls a
   running Python needs (read/write on its descriptors, memory, clocks, futexes, signals
   to itself ...). ``fcntl`` only with commands that cannot make the kernel signal another
   process (no ``F_SETOWN``/``F_SETOWN_EX``/``F_SETSIG``, no ``O_ASYNC`` through
   ``F_SETFL``): on kernels whose Landlock has no signal scoping (ABI < 6, Linux < 6.12)
   this rule is what keeps signals in. Everything else fails with ``EPERM``: ``socket``, ``connect``,
   ``fork``/``clone``/``vfork``, ``execve`` ... and every system call added to future
   kernels; the calls no confined agent code can make (``kill`` of any other process, the
   ``fcntl`` signal route, ``ptrace``, ``process_vm_readv``, ``io_uring_setup``, ``bpf``,
   ``mount``, ``setuid``, namespaces ...: :data:`SECCOMP_KILLED`) kill the process
   (``SIGSYS``), a death pibench sees and records as a ``sandbox_violation``. ``mmap``/``mprotect`` may not map executable
   memory (no new native code). File opens are allowed only when Landlock confines them;
   without Landlock the filter refuses every open.

Why an allow-list: a deny-list fails open (a system call it forgot, or one added later,
such as ``io_uring``, passes); the allow-list fails closed, and a Python interpreter that
has finished importing needs few calls. Why Landlock for files: seccomp cannot see the
path an ``openat`` names, Landlock can, and it needs no privilege, so an ordinary user
gets the same boundary as root.

6. ``PR_SET_PDEATHSIG`` (``SIGKILL``), after the privilege drop: the agent process dies
   with pibench, however pibench ends, whatever agent code does.

Each step is best effort and reported in a :class:`Confinement` built from what the agent
process itself did and checked (its ids after the drop, each system call's answer), not
from what pibench expects; a missing mechanism (an old kernel, no ``libseccomp``, a user
namespace where root cannot become ``nobody``) is said at start and in the report, and a
sealed evaluation refuses to run unless told otherwise (:attr:`Confinement.complete`).

The kernel primitives themselves (``prctl``, the drop to ``nobody``, Landlock, the seccomp
filter and its lists, the resource limits) have one home, :mod:`world.osbound`, shared with
the query worker (:func:`world.sqlworker.confine_worker`); this module decides the agent
process's order and reports what each step proved. Standard library only, and
``world/osbound.py`` loaded by path (in the agent process, ``python -S -s -P``).
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any


def _load_osbound() -> types.ModuleType:
    """``world/osbound.py``, the one home of the kernel's bounds (shared with the query
    worker), loaded by path when this module runs in the agent process (``python -S -s
    -P``: ``world`` is not importable there, and nothing else of it is loaded)."""
    key = "_pibench_world_osbound"
    module = sys.modules.get(key)
    if module is None:
        import importlib.util

        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        path = os.path.join(root, "world", "osbound.py")
        spec = importlib.util.spec_from_file_location(key, path)
        if spec is None or spec.loader is None:  # pragma: no cover - a broken install
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return module


if TYPE_CHECKING or __package__:
    from world import osbound
else:  # the agent process's copy, loaded by path
    osbound = _load_osbound()

#: The unprivileged user and group the agent process becomes when started as root.
NOBODY = osbound.NOBODY
#: What the seccomp filter kills the process for (:data:`world.osbound.SECCOMP_KILLED`).
SECCOMP_KILLED = osbound.SECCOMP_KILLED

#: A hidden test option (environment variable): the highest Landlock ABI the agent process
#: may use, so the behaviour of an older kernel can be tested on a newer one (e.g. ``5``:
#: Linux 6.10-6.11, no signal scoping). pibench passes it on to the agent process's
#: otherwise empty environment (:func:`pibench_tui.agent_launch.clean_env`); it can only
#: lower what the kernel offers, and the report names the ABI used.
LANDLOCK_ABI_CAP_ENV = "PIBENCH_TEST_LANDLOCK_ABI_MAX"

#: Exit statuses the agent process's runtime (``sandbox/child.py``) ends itself with.
EXIT_NO_INIT = 3
EXIT_UNEXPECTED_MESSAGE = 4
EXIT_UNREADABLE_MESSAGE = 5
EXIT_OUT_OF_MEMORY = 6
#: What each of them means, as pibench reports a death (``AgentProcess.death_cause``).
EXIT_MEANINGS: dict[int, str] = {
    EXIT_NO_INIT: "its runtime got no start message from pibench",
    EXIT_UNEXPECTED_MESSAGE: (
        "its runtime stopped at a message from pibench out of protocol order; code that got past the "
        "first layer and wrote to pibench's channel itself can cause this"
    ),
    EXIT_UNREADABLE_MESSAGE: "its runtime could not read a message from pibench",
    EXIT_OUT_OF_MEMORY: "its runtime ran out of memory (a MemoryError outside agent code's blocks)",
}

# The parent at the moment this module was imported: in the agent process that is at its
# start, so a later change means pibench is gone (see apply()).
_START_PPID = os.getppid() if hasattr(os, "getppid") else 0


@dataclass(frozen=True)
class Confinement:
    """What confines the agent process (applied, or what this kernel supports).

    Attributes:
        no_new_privs: ``PR_SET_NO_NEW_PRIVS`` is set.
        user: ``"nobody"`` (dropped from root), ``"unprivileged"`` (pibench is not root:
            nothing to drop) or ``"root"`` (root could not be dropped).
        landlock_abi: The kernel's Landlock ABI version (0: no Landlock).
        landlock: The Landlock ruleset is enforced (reads confined to the Python
            installation, no writes anywhere).
        seccomp: The seccomp allow-list is enforced.
        signal_filter: The seccomp filter holds the signal rules (``kill``/``tgkill`` to
            itself only; ``fcntl`` without ``F_SETOWN``/``F_SETOWN_EX``/``F_SETSIG`` and
            ``F_SETFL`` without ``O_ASYNC``): signals to other processes are refused on
            every kernel, also where Landlock has no signal scoping (ABI < 6).
        parent_death: The kernel kills the agent process (``PR_SET_PDEATHSIG``,
            ``SIGKILL``) when pibench's launching thread ends (pibench killed included),
            whatever agent code does; set after the privilege drop, which clears it.
        rlimits: The resource limits are set.
        notes: Why a mechanism is missing, one short text each.
    """

    no_new_privs: bool = False
    user: str = "unprivileged"
    landlock_abi: int = 0
    landlock: bool = False
    seccomp: bool = False
    rlimits: bool = False
    notes: tuple[str, ...] = field(default=())
    signal_filter: bool = False
    parent_death: bool = False

    @property
    def signals_isolated(self) -> bool:
        """Signals to other processes are refused: by the seccomp signal rules (every
        kernel), with Landlock's signal scoping on top where its ABI is >= 6."""
        return self.seccomp and self.signal_filter

    @property
    def missing(self) -> tuple[str, ...]:
        """Names of the mechanisms that are not in force (empty when complete)."""
        out = []
        if not self.no_new_privs:
            out.append("no_new_privs")
        if self.user == "root":
            out.append("privilege drop")
        if not self.landlock:
            out.append("landlock")
        if not self.seccomp:
            out.append("seccomp")
        elif not self.signal_filter:
            out.append("signal filter")
        if not self.rlimits:
            out.append("rlimits")
        if not self.parent_death:
            out.append("parent-death signal")
        return tuple(out)

    @property
    def complete(self) -> bool:
        """Whether the OS boundary is whole (a sealed evaluation requires it)."""
        return not self.missing

    def describe(self) -> str:
        """One line for people: ``"OS confinement: complete (landlock ABI 7, seccomp
        allow-list, signals to itself only, no_new_privs, rlimits, dies with pibench, user
        nobody)"`` or what is missing."""
        parts = []
        if self.landlock:
            parts.append(f"landlock ABI {self.landlock_abi}")
        if self.seccomp:
            parts.append("seccomp allow-list")
        if self.signals_isolated:
            parts.append("signals to itself only")
        if self.no_new_privs:
            parts.append("no_new_privs")
        if self.rlimits:
            parts.append("rlimits")
        if self.parent_death:
            parts.append("dies with pibench")
        parts.append(f"user {self.user}")
        head = "complete" if self.complete else "INCOMPLETE, missing " + ", ".join(self.missing)
        text = f"OS confinement: {head} ({', '.join(parts)})"
        if self.notes and not self.complete:
            text += "; " + "; ".join(self.notes)
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (also the agent process's report in its ``ready`` message)."""
        return {
            "no_new_privs": self.no_new_privs,
            "user": self.user,
            "landlock_abi": self.landlock_abi,
            "landlock": self.landlock,
            "seccomp": self.seccomp,
            "rlimits": self.rlimits,
            "signal_filter": self.signal_filter,
            "parent_death": self.parent_death,
            "notes": list(self.notes),
            "complete": self.complete,
            "missing": list(self.missing),
        }

    @classmethod
    def from_dict(cls, data: object) -> Confinement:
        """Read :meth:`to_dict`'s form back (unknown or malformed fields read as absent)."""
        if not isinstance(data, dict):
            return cls(notes=("the agent process did not report its confinement",))
        user = data.get("user")
        abi = data.get("landlock_abi")
        notes = data.get("notes")
        return cls(
            no_new_privs=data.get("no_new_privs") is True,
            user=user if user in ("nobody", "unprivileged", "root") else "root",
            landlock_abi=abi if type(abi) is int and abi >= 0 else 0,
            landlock=data.get("landlock") is True,
            seccomp=data.get("seccomp") is True,
            rlimits=data.get("rlimits") is True,
            notes=tuple(str(n)[:200] for n in notes[:10]) if isinstance(notes, list) else (),
            signal_filter=data.get("signal_filter") is True,
            parent_death=data.get("parent_death") is True,
        )


def landlock_abi_cap() -> int | None:
    """The highest Landlock ABI the test option :data:`LANDLOCK_ABI_CAP_ENV` allows, or
    ``None`` (unset or not a whole number >= 0: no cap)."""
    text = os.environ.get(LANDLOCK_ABI_CAP_ENV, "").strip()
    return int(text) if text.isdigit() else None


def landlock_abi() -> int:
    """The Landlock ABI version the agent process uses: the kernel's (0 when Landlock is
    missing or disabled), at most :func:`landlock_abi_cap`."""
    abi = osbound.kernel_landlock_abi()
    cap = landlock_abi_cap()
    return abi if cap is None else min(abi, cap)


def seccomp_available() -> tuple[bool, str]:
    """Whether a seccomp filter can be installed here: ``(ok, why not)``."""
    return osbound.seccomp_available()


_PROBED: Confinement | None = None


def _id_mapped(which: str, ident: int) -> bool:
    """Whether ``ident`` is mapped in this process's user namespace (``/proc/self/uid_map``
    or ``gid_map``: lines ``inside outside count``); ``True`` when the map cannot be read."""
    try:
        with open(f"/proc/self/{which}", "rb") as fh:
            rows = [line.split() for line in fh.read().decode("ascii", "replace").splitlines()]
    except OSError:
        return True
    return any(len(r) == 3 and int(r[0]) <= ident < int(r[0]) + int(r[2]) for r in rows if all(x.isdigit() for x in r))


def confinement_status() -> Confinement:
    """What the OS confinement of agent processes will be on this machine, probed without
    starting one (cached): Landlock's ABI, whether seccomp and libseccomp are there, and
    whether the agent process will drop root. An agent process reports what it actually
    applied (``Sandbox.confinement``); the two agree unless the system refuses a step.

    Returns:
        A :class:`Confinement`; its :attr:`~Confinement.complete` says whether a sealed
        evaluation may run, :meth:`~Confinement.describe` says it in one line.
    """
    global _PROBED
    if _PROBED is None:
        linux = sys.platform.startswith("linux")
        abi = landlock_abi()
        sec_ok, sec_why = seccomp_available()
        notes = []
        if not abi:
            notes.append("the kernel has no Landlock (Linux >= 5.13 with landlock in the LSM list)")
        if not sec_ok:
            notes.append(sec_why)
        try:
            import resource  # noqa: F401

            rlimits = True
        except ImportError:
            rlimits = False
            notes.append("no POSIX resource limits")
        root = hasattr(os, "geteuid") and os.geteuid() == 0
        user = "nobody" if root else "unprivileged"
        if root and linux and not (_id_mapped("uid_map", NOBODY) and _id_mapped("gid_map", NOBODY)):
            user = "root"
            notes.append(f"a user namespace without id {NOBODY} mapped: root cannot become nobody")
        _PROBED = Confinement(
            no_new_privs=linux,
            user=user,
            landlock_abi=abi,
            landlock=abi > 0,
            seccomp=sec_ok,
            rlimits=rlimits,
            notes=tuple(notes),
            signal_filter=sec_ok,
            parent_death=linux,
        )
    return _PROBED


# --------------------------------------------------------------------------------------
# Applying it (in the agent process)
# --------------------------------------------------------------------------------------


def _rlimits(memory_limit: int, keep_fds: int) -> list[str]:
    """Set the agent process's limits (:func:`world.osbound.rlimits`); return the ones the
    system refused (empty: all set)."""
    return osbound.rlimits(memory_limit, keep_fds)


def _preload() -> Any:
    """Load what the later steps need (libseccomp, ``resource``) while their files are
    still readable: after the privilege drop and Landlock they are out of reach. Returns
    libseccomp, or ``None`` when it is not installed."""
    try:
        libseccomp = osbound.load_libseccomp()
    except OSError:
        libseccomp = None
    try:
        import resource  # noqa: F401 - used by _rlimits
    except ImportError:  # not POSIX
        pass
    return libseccomp


def _drop_to_nobody(notes: list[str]) -> str:
    """Drop root to ``nobody`` and every capability; return the user the process now is
    (``"root"`` when a uid or gid of 0, or a capability, is left), noting what was kept."""
    user = osbound.drop_to_nobody()
    if user != "root" and hasattr(os, "getresuid") and 0 in (*os.getresuid(), *os.getresgid()):
        user = "root"  # what the process is, not what it asked for
    kept = osbound.drop_capabilities()
    if kept:
        user = "root"  # a uid other than 0 with capabilities is not a dropped privilege
        notes.append(f"capabilities kept after the drop: {kept}")
    return user


def _apply_landlock(abi: int, fds: list[tuple[int, bool]], nnp: bool, notes: list[str]) -> bool:
    """Restrict the process with Landlock to the folders ``fds`` (opened before the drop;
    closed here); whether it is in force, noting why not."""
    landlock = False
    if abi:
        why = osbound.landlock_restrict(abi, fds)
        landlock = why is None
        if why:
            notes.append(why)
    elif nnp:
        notes.append("the kernel has no Landlock")
    for fd, _is_dir in fds:
        os.close(fd)
    return landlock


def _apply_seccomp(libseccomp: Any, nnp: bool, landlock: bool, notes: list[str]) -> bool:
    """Install the seccomp allow-list (``open`` allowed only under Landlock); whether it is
    in force, noting why not."""
    if not nnp:
        return False
    if libseccomp is None:
        notes.append("libseccomp.so.2 is not installed")
        return False
    why = osbound.seccomp_filter(libseccomp, allow_open=landlock)
    if why:
        notes.append(why)
    return why is None


def apply(
    read_paths: list[str],
    *,
    memory_limit: int,
    keep_fds: int = 3,
    before_seccomp: Callable[[], None] | None = None,
) -> Confinement:
    """Confine the calling process for good (the agent process, once, before agent code).

    Args:
        read_paths: Files and folders that stay readable (the Python installation).
        memory_limit: Address-space limit in bytes (0: none).
        keep_fds: ``RLIMIT_NOFILE``: descriptors 0 .. keep_fds - 1 stay usable.
        before_seccomp: Called after Landlock and before the limits and the seccomp
            filter, to start the threads the process needs (none can start after).

    Returns:
        What is in force (:class:`Confinement`); a step the system refuses is skipped and
        named in ``notes``.
    """
    notes: list[str] = []
    libseccomp = _preload()
    nnp = osbound.no_new_privs()
    if not nnp:
        notes.append("PR_SET_NO_NEW_PRIVS refused")
    abi = landlock_abi() if nnp else 0
    fds = osbound.open_paths(read_paths) if abi else []
    user = _drop_to_nobody(notes)
    parent_death = osbound.parent_death(_START_PPID)
    if not parent_death:
        notes.append("PR_SET_PDEATHSIG refused")
    landlock = _apply_landlock(abi, fds, nnp, notes)
    if before_seccomp is not None:
        before_seccomp()  # threads start before RLIMIT_NPROC and seccomp forbid them
    refused = _rlimits(memory_limit, keep_fds)
    rlimits = not refused
    notes.extend(refused)
    seccomp = _apply_seccomp(libseccomp, nnp, landlock, notes)
    for name in [m for m in sys.modules if m in ("ctypes", "_ctypes") or m.startswith("ctypes.")]:
        del sys.modules[name]  # leave nothing of ctypes importable by name
    return Confinement(
        no_new_privs=nnp,
        user=user,
        landlock_abi=abi,
        landlock=landlock,
        seccomp=seccomp,
        rlimits=rlimits,
        notes=tuple(notes),
        signal_filter=seccomp,
        parent_death=parent_death,
    )
