"""The kernel's bounds on a process that handles untrusted input, in one home.

Two processes of pibench run what an agent wrote: the **agent process**
(``pibench_tui/sandbox/child.py``, confined by ``pibench_tui/sandbox/confine.py``, which
reports what it proved) and the **query worker** (:mod:`world.sqlworker`, which runs agent
SQL on the observable database). Both take their bounds from the functions here, so a rule
is written once:

* :func:`no_new_privs` — ``PR_SET_NO_NEW_PRIVS``: no exec can gain privileges (needed by
  the seccomp filter and Landlock too).
* :func:`drop_to_nobody` — when started as root: no supplementary groups, then group and
  user ``nobody`` (:data:`NOBODY`), which clears every capability;
  :func:`drop_capabilities` clears what is left (ambient or file capabilities).
* :func:`landlock_restrict` — a Landlock ruleset that handles every filesystem right the
  kernel knows and grants only reading beneath the given folders (none: no file access at
  all); TCP bind/connect refused from ABI 4, signals and abstract UNIX sockets scoped from
  ABI 6.
* :func:`seccomp_filter` — the seccomp allow-list of the system calls a running Python
  needs (:data:`SECCOMP_ALLOWED`), the calls no confined process can make killed
  (:data:`SECCOMP_KILLED`), no executable memory, signals to itself only, no ``fcntl``
  route to signal another process; opens allowed only when Landlock confines them.
* :func:`parent_death` — ``PR_SET_PDEATHSIG`` (``SIGKILL``).

Each returns what it achieved (a bool, a user name, or why it failed) and never raises:
the caller decides what to report (the agent process reports each step in its handshake;
the query worker applies them best effort). Standard library only, loaded by path in both
processes (``python -S -s -P``): this module imports nothing of ours.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

#: The unprivileged user and group a process started as root becomes (the agent process
#: and the query worker alike).
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

#: System calls the confined agent process and query worker may make (names; unknown names on this
#: architecture are skipped). Conditional ones are added separately (see :func:`seccomp_filter`).
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
#: ``F_SETOWN_EX``, ``F_SETSIG``, ``O_ASYNC``) are killed the same way (see :func:`seccomp_filter`).
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


# --------------------------------------------------------------------------------------
# ctypes access (imported lazily; the agent process drops ctypes from sys.modules after)
# --------------------------------------------------------------------------------------


def libc() -> Any:
    """The C library through ctypes (``errno`` kept), ``syscall`` and ``prctl`` typed."""
    import ctypes

    lib = ctypes.CDLL(None, use_errno=True)
    lib.syscall.restype = ctypes.c_long
    lib.prctl.restype = ctypes.c_int
    return lib


def kernel_landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is missing or disabled."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        import ctypes

        lib_c = libc()
        abi = lib_c.syscall(
            ctypes.c_long(_SYS_LANDLOCK_CREATE_RULESET),
            None,
            ctypes.c_size_t(0),
            ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION),
        )
    except Exception:  # noqa: BLE001 - no ctypes, no libc: no Landlock
        return 0
    return int(abi) if abi > 0 else 0


def load_libseccomp() -> Any:
    """libseccomp through ctypes, its functions typed.

    Raises:
        OSError: ``libseccomp.so.2`` is not installed.
    """
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
        if libc().prctl(_PR_GET_SECCOMP, 0, 0, 0, 0) < 0:
            return False, "the kernel has no seccomp"
        load_libseccomp()
    except OSError:
        return False, "libseccomp.so.2 is not installed"
    except Exception as exc:  # noqa: BLE001 - no ctypes
        return False, f"seccomp unavailable: {exc}"
    return True, ""


def no_new_privs() -> bool:
    """Set ``PR_SET_NO_NEW_PRIVS``; whether it is set (``False`` off Linux or if refused)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return bool(libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
    except Exception:  # noqa: BLE001 - no ctypes, no libc
        return False


_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


def capabilities() -> str:
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


def drop_capabilities() -> str:
    """Clear every capability this process still has (ambient, inheritable, permitted,
    effective): after the drop from root they are normally gone already, but not under
    ``SECBIT_NO_SETUID_FIXUP`` nor for an ordinary user started with ambient or file
    capabilities. Returns what is left (:func:`capabilities`; ``""``: none)."""
    if not sys.platform.startswith("linux") or not capabilities():
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

        lib_c = libc()
        lib_c.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
        lib_c.capset(ctypes.byref(Header(_LINUX_CAPABILITY_VERSION_3, 0)), ctypes.byref((Data * 2)()))
    except Exception:  # noqa: BLE001 - no ctypes, no libc: what is left is reported
        pass
    return capabilities()


def parent_death(start_ppid: int) -> bool:
    """Have the kernel send ``SIGKILL`` to this process when its parent (the thread of
    pibench that started it) ends, however pibench ends (``kill -9`` included) and whatever
    agent code does (a C loop holding the GIL starves the in-process watchdog). Set after
    the privilege drop, which clears it. A parent that already ended before it was set (the
    parent is no longer ``start_ppid``, read when the process started): exit now."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        ok = bool(libc().prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0) == 0)
    except Exception:  # noqa: BLE001 - no ctypes, no libc
        return False
    if ok and os.getppid() != start_ppid:
        os._exit(0)  # pibench is gone already: nobody will ever read this process
    return ok


def drop_to_nobody() -> str:
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


def open_paths(paths: list[str]) -> list[tuple[int, bool]]:
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


def landlock_restrict(abi: int, fds: list[tuple[int, bool]]) -> str | None:
    """Restrict this process for good with a Landlock ruleset of ABI ``abi`` (from
    :func:`kernel_landlock_abi`, perhaps capped) that handles every filesystem right that ABI
    knows and grants reading files (and listing, for folders) beneath each of ``fds``
    (``O_PATH`` descriptors from :func:`open_paths`, left open); ``fds`` empty: no file
    access at all. ABI >= 4 also refuses TCP bind/connect, ABI >= 6 scopes signals and
    abstract UNIX sockets to the process. Returns ``None`` on success, else why not."""
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
    lib_c = libc()
    ruleset = lib_c.syscall(
        ctypes.c_long(_SYS_LANDLOCK_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
    )
    if ruleset < 0:
        return f"landlock_create_ruleset failed: {os.strerror(ctypes.get_errno())}"
    try:
        for fd, is_dir in fds:
            access = _FS_READ_FILE | (_FS_READ_DIR if is_dir else 0)
            rule = PathBeneathAttr(access, fd)
            if (
                lib_c.syscall(
                    ctypes.c_long(_SYS_LANDLOCK_ADD_RULE),
                    ctypes.c_int(ruleset),
                    ctypes.c_int(_LANDLOCK_RULE_PATH_BENEATH),
                    ctypes.byref(rule),
                    ctypes.c_uint32(0),
                )
                < 0
            ):
                return f"landlock_add_rule failed: {os.strerror(ctypes.get_errno())}"
        if lib_c.syscall(ctypes.c_long(_SYS_LANDLOCK_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)) < 0:
            return f"landlock_restrict_self failed: {os.strerror(ctypes.get_errno())}"
    finally:
        os.close(ruleset)
    return None


def seccomp_filter(lib: Any, allow_open: bool) -> str | None:
    """Install the allow-list (:data:`SECCOMP_ALLOWED`, the conditional rules, the killed
    calls of :data:`SECCOMP_KILLED`) on every thread of this process, for good; ``lib`` from
    :func:`load_libseccomp`. ``allow_open``: the file-opening calls are allowed (only when
    Landlock confines them); else they fail with ``EPERM``. Returns ``None`` on success,
    else why not."""
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


def rlimits(memory_limit: int, keep_fds: int) -> list[str]:
    """Lower this process's resource limits for good: address space ``memory_limit`` bytes
    (0: unchanged), no core dumps, no file growth (``RLIMIT_FSIZE`` 0), descriptors
    0 .. ``keep_fds`` - 1 only (``RLIMIT_NOFILE``), and no new processes (``RLIMIT_NPROC`` 0)
    once the process is not root. A limit already lower stays.

    Returns:
        The limits the system refused, one text each (empty: all set).
    """
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
