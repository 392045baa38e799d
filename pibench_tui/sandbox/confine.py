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

Standard library only (loaded by the agent process, ``python -S -s -P``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: The unprivileged user and group the agent process becomes when started as root.
NOBODY = 65534

# Landlock (include/uapi/linux/landlock.h); the system call numbers are the same on every
# architecture (generic table).
_SYS_LANDLOCK_CREATE_RULESET = 444
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_RULE_PATH_BENEATH = 1
_FS_EXECUTE = 1 << 0
_FS_READ_FILE = 1 << 2
_FS_READ_DIR = 1 << 3
_FS_ABI1 = (1 << 13) - 1  # execute ... make_sym
_FS_REFER = 1 << 13  # ABI 2
_FS_TRUNCATE = 1 << 14  # ABI 3
_FS_IOCTL_DEV = 1 << 15  # ABI 5
_NET_BIND_TCP = 1 << 0  # ABI 4
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
_SCOPE_SIGNAL = 1 << 1

_PR_SET_NO_NEW_PRIVS = 38
_PR_GET_SECCOMP = 21
_PR_SET_PDEATHSIG = 1
_SIGKILL = 9

#: A hidden test option (environment variable): the highest Landlock ABI the agent process
#: may use, so the behaviour of an older kernel can be tested on a newer one (e.g. ``5``:
#: Linux 6.10-6.11, no signal scoping). pibench passes it on to the agent process's
#: otherwise empty environment (:func:`pibench_tui.agent_launch.clean_env`); it can only
#: lower what the kernel offers, and the report names the ABI used.
LANDLOCK_ABI_CAP_ENV = "PIBENCH_TEST_LANDLOCK_ABI_MAX"

# The parent at the moment this module was imported: in the agent process that is at its
# start, so a later change means pibench is gone (see apply()).
_START_PPID = os.getppid() if hasattr(os, "getppid") else 0

# fcntl (include/uapi/asm-generic/fcntl.h, linux/fcntl.h): the commands the agent process
# may use. Not F_SETOWN (8), F_SETSIG (10), F_SETOWN_EX (15): with O_ASYNC they make the
# kernel signal any process of the same user (SIGIO, or any signal F_SETSIG names) when the
# descriptor is ready, around the "signals only to itself" rule, on kernels whose Landlock
# has no signal scoping (ABI < 6). Not F_SETLEASE/F_NOTIFY (signals too) nor the locks.
_F_DUPFD, _F_GETFD, _F_SETFD, _F_GETFL, _F_SETFL, _F_GETOWN = 0, 1, 2, 3, 4, 9
_F_DUPFD_CLOEXEC, _F_GETPIPE_SZ = 1030, 1032
_O_ASYNC = getattr(os, "O_ASYNC", 0o20000)

# libseccomp (seccomp.h)
_SCMP_ACT_ALLOW = 0x7FFF0000
_SCMP_ACT_KILL_PROCESS = 0x80000000
_SCMP_CMP_NE = 1
_F_SETOWN, _F_SETSIG, _F_SETOWN_EX = 8, 10, 15
_SCMP_FLTATR_CTL_TSYNC = 4
_SCMP_CMP_EQ = 4
_SCMP_CMP_MASKED_EQ = 7
_EPERM = 1
_PROT_EXEC = 4

#: System calls the confined agent process may make (names; unknown names on this
#: architecture are skipped). Conditional ones are added separately (see :func:`_seccomp`).
SECCOMP_ALLOWED: tuple[str, ...] = (
    # descriptors it already holds, and (under Landlock) reading the installation
    "read",
    "readv",
    "pread64",
    "preadv",
    "preadv2",
    "write",
    "writev",
    "close",
    "lseek",
    "fstat",
    "stat",
    "lstat",
    "newfstatat",
    "statx",
    "getdents64",
    "getdents",
    "readlink",
    "readlinkat",
    "access",
    "faccessat",
    "faccessat2",
    "getcwd",
    "poll",
    "ppoll",
    "select",
    "pselect6",
    # memory
    "brk",
    "munmap",
    "mremap",
    "madvise",
    # threads already running, signals to itself, time
    "futex",
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "sigaltstack",
    "restart_syscall",
    "sched_yield",
    "sched_getaffinity",
    "getcpu",
    "rseq",
    "clock_gettime",
    "clock_getres",
    "clock_nanosleep",
    "nanosleep",
    "gettimeofday",
    "time",
    "getrandom",
    # identity
    "getpid",
    "gettid",
    "getppid",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "getresuid",
    "getresgid",
    "getgroups",
    "uname",
    "getrlimit",
    "exit",
    "exit_group",
)

#: System calls that agent code confined by the Python layer can never make (no ``os``,
#: ``signal``, ``ctypes`` or ``socket`` reaches it) and that CPython's own runtime never
#: makes once the agent process has started: ptrace and reading or writing another
#: process's memory, BPF, perf events, io_uring, namespaces, signals through pidfds or
#: queues, identity changes, mounts, modules, keys. The seccomp filter answers each with
#: ``SECCOMP_RET_KILL_PROCESS`` instead of ``EPERM``: the kernel kills the agent process
#: with ``SIGSYS``, which pibench sees, restarts it and records a ``sandbox_violation``
#: incident (an ``EPERM`` is seen by no one but the caller). ``kill``/``tgkill`` of another
#: process, ``clone`` with a namespace flag and the ``fcntl`` signal route (``F_SETOWN``,
#: ``F_SETOWN_EX``, ``F_SETSIG``, ``O_ASYNC``) are killed the same way (see :func:`_seccomp`).
#: Unknown names on this architecture are skipped.
SECCOMP_KILLED: tuple[str, ...] = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "bpf",
    "perf_event_open",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "unshare",
    "setns",
    "tkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "pidfd_open",
    "pidfd_send_signal",
    "pidfd_getfd",
    "userfaultfd",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setgroups",
    "setfsuid",
    "setfsgid",
    "capset",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "keyctl",
    "add_key",
    "request_key",
    "iopl",
    "ioperm",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "sethostname",
    "setdomainname",
    "open_by_handle_at",
    "name_to_handle_at",
    "fanotify_init",
)

#: ``clone`` flags that make new namespaces (``CLONE_NEWNS``, ``NEWCGROUP``, ``NEWUTS``,
#: ``NEWIPC``, ``NEWUSER``, ``NEWPID``, ``NEWNET``, ``NEWTIME``): a ``clone`` with any of
#: them is killed, any other ``clone`` is refused (``EPERM``: a thread an allowed module
#: tries to start is an ordinary error).
CLONE_NAMESPACE_FLAGS: tuple[int, ...] = (
    0x00020000,
    0x02000000,
    0x04000000,
    0x08000000,
    0x10000000,
    0x20000000,
    0x40000000,
    0x00000080,
)

#: File-opening system calls: allowed only when Landlock confines them.
SECCOMP_OPEN_CALLS: tuple[str, ...] = ("open", "openat", "openat2")

#: ``fcntl`` commands allowed as they are (``F_SETFL`` too, without ``O_ASYNC``); never
#: ``F_SETOWN``, ``F_SETOWN_EX``, ``F_SETSIG``, ``F_SETLEASE``, ``F_NOTIFY`` or the locks.
SECCOMP_FCNTLS: tuple[int, ...] = (_F_DUPFD, _F_GETFD, _F_SETFD, _F_GETFL, _F_GETOWN, _F_DUPFD_CLOEXEC, _F_GETPIPE_SZ)

#: ``ioctl`` requests allowed (terminal query, bytes readable, close-on-exec flags).
SECCOMP_IOCTLS: tuple[int, ...] = (0x5401, 0x541B, 0x5450, 0x5451)  # TCGETS FIONREAD FIONCLEX FIOCLEX


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


# --------------------------------------------------------------------------------------
# ctypes access (imported lazily; the agent process drops ctypes from sys.modules after)
# --------------------------------------------------------------------------------------


def _libc() -> Any:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.prctl.restype = ctypes.c_int
    return libc


def landlock_abi_cap() -> int | None:
    """The highest Landlock ABI the test option :data:`LANDLOCK_ABI_CAP_ENV` allows, or
    ``None`` (unset or not a whole number >= 0: no cap)."""
    text = os.environ.get(LANDLOCK_ABI_CAP_ENV, "").strip()
    return int(text) if text.isdigit() else None


def landlock_abi() -> int:
    """The Landlock ABI version the agent process uses: the kernel's (0 when Landlock is
    missing or disabled), at most :func:`landlock_abi_cap`."""
    abi = _kernel_landlock_abi()
    cap = landlock_abi_cap()
    return abi if cap is None else min(abi, cap)


def _kernel_landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is missing or disabled."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        import ctypes

        libc = _libc()
        abi = libc.syscall(
            ctypes.c_long(_SYS_LANDLOCK_CREATE_RULESET),
            None,
            ctypes.c_size_t(0),
            ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION),
        )
    except Exception:  # noqa: BLE001 - no ctypes, no libc: no Landlock
        return 0
    return int(abi) if abi > 0 else 0


def _load_libseccomp() -> Any:
    import ctypes

    lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.restype = ctypes.c_int
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.c_void_p,
    ]
    lib.seccomp_attr_set.restype = ctypes.c_int
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_load.restype = ctypes.c_int
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.restype = None
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    return lib


def seccomp_available() -> tuple[bool, str]:
    """Whether a seccomp filter can be installed here: ``(ok, why not)``."""
    if not sys.platform.startswith("linux"):
        return False, "seccomp needs Linux"
    try:
        if _libc().prctl(_PR_GET_SECCOMP, 0, 0, 0, 0) < 0:
            return False, "the kernel has no seccomp"
        _load_libseccomp()
    except OSError:
        return False, "libseccomp.so.2 is not installed"
    except Exception as exc:  # noqa: BLE001 - no ctypes
        return False, f"seccomp unavailable: {exc}"
    return True, ""


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


def _no_new_privs() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        return bool(_libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
    except Exception:  # noqa: BLE001 - no ctypes, no libc
        return False


_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


def _capabilities() -> str:
    """This process's capabilities as ``/proc/self/status`` shows them: the non-zero ones
    of ``CapInh``, ``CapPrm``, ``CapEff`` and ``CapAmb`` (``"CapEff 1fffeffffff"``), or ``""``
    when there are none or the file cannot be read (not Linux)."""
    try:  # bytes, decoded by the codec built into str (no codec module to import now)
        fd = os.open("/proc/self/status", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            lines = os.read(fd, 1 << 16).decode("ascii", "replace").splitlines()
        finally:
            os.close(fd)
    except OSError:
        return ""
    kept = []
    for line in lines:
        name, _, value = line.partition(":")
        if name in ("CapInh", "CapPrm", "CapEff", "CapAmb") and value.strip().strip("0"):
            kept.append(f"{name} {value.strip().lstrip('0')}")
    return ", ".join(kept)


def _drop_capabilities() -> str:
    """Clear every capability this process still has (ambient, inheritable, permitted,
    effective): after the drop from root they are normally gone already, but not under
    ``SECBIT_NO_SETUID_FIXUP`` nor for an ordinary user started with ambient or file
    capabilities. Returns what is left (:func:`_capabilities`; ``""``: none)."""
    if not sys.platform.startswith("linux") or not _capabilities():
        return ""
    try:
        import ctypes

        class Header(ctypes.Structure):
            _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

        class Data(ctypes.Structure):
            _fields_ = [
                ("effective", ctypes.c_uint32),
                ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32),
            ]

        libc = _libc()
        libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
        libc.capset(ctypes.byref(Header(_LINUX_CAPABILITY_VERSION_3, 0)), ctypes.byref((Data * 2)()))
    except Exception:  # noqa: BLE001 - no ctypes, no libc: what is left is reported
        pass
    return _capabilities()


def _parent_death() -> bool:
    """Have the kernel send ``SIGKILL`` to this process when its parent (the thread of
    pibench that started it) ends, however pibench ends (``kill -9`` included) and whatever
    agent code does (a C loop holding the GIL starves the in-process watchdog). Set after
    the privilege drop, which clears it. A parent that already ended before it was set (this
    process was re-parented since this module was imported): exit now."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        ok = bool(_libc().prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0) == 0)
    except Exception:  # noqa: BLE001 - no ctypes, no libc
        return False
    if ok and os.getppid() != _START_PPID:
        os._exit(0)  # pibench is gone already: nobody will ever read this process
    return ok


def drop_privileges() -> str:
    """When running as root: no supplementary groups, then group and user ``nobody``
    (65534), which also clears every capability.

    Returns:
        ``"nobody"`` (dropped), ``"unprivileged"`` (not root: nothing to drop) or
        ``"root"`` (the system refused, e.g. a user namespace without 65534 mapped).
    """
    if not hasattr(os, "setresuid") or (os.getuid() != 0 and os.geteuid() != 0):
        return "unprivileged"
    try:
        os.setgroups([])
    except OSError:
        pass  # refused in some user namespaces; the gid/uid change still counts
    try:
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)
    except OSError:
        return "root"
    return "nobody" if os.getuid() != 0 and os.geteuid() != 0 else "root"


def _open_paths(paths: list[str]) -> list[tuple[int, bool]]:
    """``O_PATH`` descriptors of the existing ``paths`` (and whether each is a folder),
    opened before the privilege drop so that root's installation folders count."""
    out = []
    for path in dict.fromkeys(paths):
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except (OSError, AttributeError):
            continue
        try:
            is_dir = os.path.isdir(f"/proc/self/fd/{fd}") or os.path.isdir(path)
        except OSError:
            is_dir = False
        out.append((fd, is_dir))
    return out


def _landlock(abi: int, fds: list[tuple[int, bool]]) -> str | None:
    """Enforce the ruleset; return ``None`` on success, else why not."""
    import ctypes

    class RulesetAttr(ctypes.Structure):
        _fields_ = [
            ("handled_access_fs", ctypes.c_uint64),
            ("handled_access_net", ctypes.c_uint64),
            ("scoped", ctypes.c_uint64),
        ]

    class PathBeneathAttr(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    fs = _FS_ABI1
    if abi >= 2:
        fs |= _FS_REFER
    if abi >= 3:
        fs |= _FS_TRUNCATE
    if abi >= 5:
        fs |= _FS_IOCTL_DEV
    attr = RulesetAttr(fs, 0, 0)
    size = 8
    if abi >= 4:
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL
        size = 24
    libc = _libc()
    ruleset = libc.syscall(
        ctypes.c_long(_SYS_LANDLOCK_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
    )
    if ruleset < 0:
        return f"landlock_create_ruleset failed: {os.strerror(ctypes.get_errno())}"
    try:
        for fd, is_dir in fds:
            access = _FS_READ_FILE | (_FS_READ_DIR if is_dir else 0)
            rule = PathBeneathAttr(access, fd)
            if (
                libc.syscall(
                    ctypes.c_long(_SYS_LANDLOCK_ADD_RULE),
                    ctypes.c_int(ruleset),
                    ctypes.c_int(_LANDLOCK_RULE_PATH_BENEATH),
                    ctypes.byref(rule),
                    ctypes.c_uint32(0),
                )
                < 0
            ):
                return f"landlock_add_rule failed: {os.strerror(ctypes.get_errno())}"
        if libc.syscall(ctypes.c_long(_SYS_LANDLOCK_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)) < 0:
            return f"landlock_restrict_self failed: {os.strerror(ctypes.get_errno())}"
    finally:
        os.close(ruleset)
    return None


def _seccomp(lib: Any, allow_open: bool) -> str | None:
    """Install the allow-list on every thread; return ``None`` on success, else why not."""
    import ctypes

    class ArgCmp(ctypes.Structure):
        _fields_ = [
            ("arg", ctypes.c_uint),
            ("op", ctypes.c_int),
            ("datum_a", ctypes.c_uint64),
            ("datum_b", ctypes.c_uint64),
        ]

    ctx = lib.seccomp_init(0x00050000 | _EPERM)  # SCMP_ACT_ERRNO(EPERM) by default
    if not ctx:
        return "seccomp_init failed"
    try:

        def nr(name: str) -> int:
            return int(lib.seccomp_syscall_resolve_name(name.encode()))

        def allow(name: str, *conds: tuple[int, int, int, int]) -> None:
            number = nr(name)
            if number < 0:
                return  # not a system call of this architecture
            array = (ArgCmp * max(1, len(conds)))(*[ArgCmp(*c) for c in conds])
            rc = lib.seccomp_rule_add_array(ctx, _SCMP_ACT_ALLOW, number, len(conds), array if conds else None)
            if rc < 0:
                raise OSError(-rc, f"seccomp_rule_add({name}) failed: {os.strerror(-rc)}")

        killing = _KillRules(lib, ctx, nr, ArgCmp)
        names = SECCOMP_ALLOWED + (SECCOMP_OPEN_CALLS if allow_open else ())
        for name in names:
            allow(name)
        no_exec = (2, _SCMP_CMP_MASKED_EQ, _PROT_EXEC, 0)  # prot & PROT_EXEC == 0
        allow("mmap", no_exec)
        allow("mprotect", no_exec)
        allow("pkey_mprotect", no_exec)
        pid = os.getpid()
        allow("kill", (0, _SCMP_CMP_EQ, pid, 0))  # signals to itself only
        allow("tgkill", (0, _SCMP_CMP_EQ, pid, 0))
        killing.add("kill", (0, _SCMP_CMP_NE, pid, 0))  # to anyone else: SIGSYS
        killing.add("tgkill", (0, _SCMP_CMP_NE, pid, 0))
        # fcntl: no command that makes the kernel signal another process (see _F_DUPFD)
        for name in ("fcntl", "fcntl64"):
            for cmd in SECCOMP_FCNTLS:
                allow(name, (1, _SCMP_CMP_EQ, cmd, 0))
            allow(name, (1, _SCMP_CMP_EQ, _F_SETFL, 0), (2, _SCMP_CMP_MASKED_EQ, _O_ASYNC, 0))
            for cmd in (_F_SETOWN, _F_SETSIG, _F_SETOWN_EX):
                killing.add(name, (1, _SCMP_CMP_EQ, cmd, 0))
            killing.add(name, (1, _SCMP_CMP_EQ, _F_SETFL, 0), (2, _SCMP_CMP_MASKED_EQ, _O_ASYNC, _O_ASYNC))
        for name in SECCOMP_KILLED:
            killing.add(name)
        for flag in CLONE_NAMESPACE_FLAGS:
            killing.add("clone", (0, _SCMP_CMP_MASKED_EQ, flag, flag))
        for request in SECCOMP_IOCTLS:
            allow("ioctl", (1, _SCMP_CMP_EQ, request, 0))
        allow("prlimit64", (0, _SCMP_CMP_EQ, 0, 0), (2, _SCMP_CMP_EQ, 0, 0))  # read own limits
        rc = lib.seccomp_attr_set(ctx, _SCMP_FLTATR_CTL_TSYNC, 1)
        if rc < 0:
            return f"seccomp TSYNC refused: {os.strerror(-rc)}"
        rc = lib.seccomp_load(ctx)
        if rc < 0:
            return f"seccomp_load failed: {os.strerror(-rc)}"
    except OSError as exc:
        return str(exc)
    finally:
        lib.seccomp_release(ctx)
    return None


class _KillRules:
    """Adds ``SECCOMP_RET_KILL_PROCESS`` rules to a libseccomp filter (:data:`SECCOMP_KILLED`).

    On a kernel or libseccomp without that action (Linux < 4.14, libseccomp < 2.4) the
    first rule is refused: no further ones are tried and those calls keep the filter's
    default answer, ``EPERM`` (the boundary is the same; only the trace is lost)."""

    def __init__(self, lib: Any, ctx: Any, nr: Callable[[str], int], argcmp: Any) -> None:
        self.lib, self.ctx, self.nr, self.argcmp = lib, ctx, nr, argcmp
        self.available = True

    def add(self, name: str, *conds: tuple[int, int, int, int]) -> None:
        """Kill the process when it makes ``name`` with ``conds`` (all of them) holding."""
        number = self.nr(name)
        if number < 0 or not self.available:
            return
        array = (self.argcmp * max(1, len(conds)))(*[self.argcmp(*c) for c in conds])
        rc = self.lib.seccomp_rule_add_array(
            self.ctx, _SCMP_ACT_KILL_PROCESS, number, len(conds), array if conds else None
        )
        if rc < 0:
            self.available = False


def _rlimits(memory_limit: int, keep_fds: int) -> list[str]:
    """Set the limits; return the ones the system refused (empty: all set)."""
    try:
        import resource
    except ImportError:  # not POSIX: the parent's wall clock still applies
        return ["no POSIX resource limits"]
    failed: list[str] = []

    def lower(which: int, value: int) -> None:
        try:
            _soft, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError) as exc:
            failed.append(f"setrlimit({which}) refused: {exc}")

    if memory_limit > 0 and hasattr(resource, "RLIMIT_AS"):
        lower(resource.RLIMIT_AS, memory_limit)
    lower(resource.RLIMIT_CORE, 0)
    lower(resource.RLIMIT_FSIZE, 0)
    lower(resource.RLIMIT_NOFILE, keep_fds)
    if hasattr(resource, "RLIMIT_NPROC") and os.getuid() != 0:
        lower(resource.RLIMIT_NPROC, 0)
    return failed


def _preload() -> Any:
    """Load what the later steps need (libseccomp, ``resource``) while their files are
    still readable: after the privilege drop and Landlock they are out of reach. Returns
    libseccomp, or ``None`` when it is not installed."""
    try:
        libseccomp = _load_libseccomp()
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
    user = drop_privileges()
    if user != "root" and hasattr(os, "getresuid") and 0 in (*os.getresuid(), *os.getresgid()):
        user = "root"  # what the process is, not what it asked for
    kept = _drop_capabilities()
    if kept:
        user = "root"  # a uid other than 0 with capabilities is not a dropped privilege
        notes.append(f"capabilities kept after the drop: {kept}")
    return user


def _apply_landlock(abi: int, fds: list[tuple[int, bool]], nnp: bool, notes: list[str]) -> bool:
    """Restrict the process with Landlock to the folders ``fds`` (opened before the drop;
    closed here); whether it is in force, noting why not."""
    landlock = False
    if abi:
        why = _landlock(abi, fds)
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
    why = _seccomp(libseccomp, allow_open=landlock)
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
    nnp = _no_new_privs()
    if not nnp:
        notes.append("PR_SET_NO_NEW_PRIVS refused")
    abi = landlock_abi() if nnp else 0
    fds = _open_paths(read_paths) if abi else []
    user = _drop_to_nobody(notes)
    parent_death = _parent_death()
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
