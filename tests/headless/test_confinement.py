"""The operating system is the sandbox's boundary (issue 10 section 3, MECHANICS Decisions 9).

Layer by layer: with the static check switched off (the test-only ``static_check=False``)
agent code walks the object graph to the real ``os`` and ``builtins`` and tries to read,
write, spawn, signal and connect; the OS confinement alone refuses each, whether the agent
process runs for root (dropped to ``nobody``) or for an ordinary user. A second probe
confines a plain process the same way with ``socket`` and ``ctypes`` already loaded, so
that raw system calls (``socket``, ``ptrace``, ``process_vm_readv``, ``io_uring_setup``,
executable memory) meet the seccomp filter itself.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import pibench_tui.sandbox as sandbox_module
import pibench_tui.sandbox.process as process_module
from pibench_tui.sandbox import Sandbox, confinement_status

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the OS confinement is Linux's")

CONFINE_PY = Path(sandbox_module.__file__).with_name("confine.py")
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _python_for_nobody() -> str | None:
    """An interpreter the unprivileged user 65534 can run with ctypes and socket (this
    one, or the system's), or None; None too when 65534 cannot read this checkout's agent
    process scripts (a checkout inside a private folder, e.g. under ``mktemp -d``): an
    ordinary user always can read their own."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    scripts = [str(sandbox_module.CHILD_SCRIPT), str(CONFINE_PY)]
    probe = f"import ctypes, socket, mmap\nfor p in {scripts!r}:\n    open(p).close()"
    for python in (sys.executable, "/usr/bin/python3"):
        try:
            ok = (
                subprocess.run(
                    [*NOBODY, python, "-c", probe],
                    capture_output=True,
                    timeout=30,
                    cwd="/",
                ).returncode
                == 0
            )
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if ok:
            return python
    return None


NOBODY_PYTHON = _python_for_nobody()

#: Who runs the agent process: pibench's own user (root here: dropped to nobody), and an
#: ordinary user (the agent process started as uid 65534 directly, so it confines itself
#: without any privilege). When the tests run as an ordinary user, the first is that case.
USERS = [
    pytest.param("pibench-user", id="pibench-user"),
    pytest.param(
        "ordinary-user",
        id="ordinary-user",
        marks=pytest.mark.skipif(
            NOBODY_PYTHON is None,
            reason="needs root with setpriv, an interpreter uid 65534 can run and a checkout it can read "
            "(as an ordinary user the pibench-user case is this case)",
        ),
    ),
]


@pytest.fixture(scope="module")
def victim():
    """World-readable files outside the installation (so that only Landlock, not file
    permissions, can refuse an unprivileged reader): a secret, a save store, a folder
    for writes."""
    root = Path(tempfile.mkdtemp(prefix="pibench-victim-", dir="/tmp"))
    root.chmod(0o755)
    allowed = root / "allowed"
    allowed.mkdir()
    (allowed / "public.txt").write_text("public\n")
    (allowed / "public.txt").chmod(0o644)
    allowed.chmod(0o755)
    secret = root / "home-secret.txt"
    secret.write_text("SECRET-HOME-FILE\n")
    saves = root / "saves"
    saves.mkdir()
    (saves / "index.json").write_text('{"SECRET": "SAVE-STORE"}\n')
    for path in (secret, saves / "index.json"):
        path.chmod(0o644)
    saves.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _readable_by_agent_user(path: str) -> bool:
    """Whether the agent process's user (65534 when the tests run as root, else this user)
    may read ``path`` by the file permissions alone (folders on the way included)."""
    if os.geteuid() != 0:
        return os.access(path, os.R_OK)
    return subprocess.run([*NOBODY, "test", "-r", path], cwd="/", timeout=30).returncode == 0


def _sandbox(user: str, monkeypatch) -> Sandbox:
    if user == "ordinary-user":
        command = [*NOBODY, NOBODY_PYTHON, "-S", "-s", "-P", "-B", str(sandbox_module.CHILD_SCRIPT)]
        monkeypatch.setattr(process_module, "agent_command", lambda: list(command))
    return Sandbox(lambda ns, m, a, k: {"month": 1}, {}, block_timeout=10, static_check=False)


#: Agent code that escapes every Python-level layer (possible only because the static
#: check is off) and frees a descriptor, so the resource limits are not what refuses.
ESCAPE = (
    "def _real(name):\n"
    "    for c in ().__class__.__base__.__subclasses__():\n"
    "        if c.__name__ == '_wrap_close':\n"
    "            g = c.__init__.__globals__\n"
    "            return g['__builtins__'] if name == 'builtins' else g['sys'].modules[name]\n"
    "os = _real('os')\n"
    "bi = _real('builtins')\n"
    "real_open = bi['open']\n"
    "os.close(2)\n"
    "print('escaped', os.getuid())\n"
)

#: A raw system call through ctypes (reachable when the agent process may read ctypes
#: from the installation, e.g. for an ordinary user): it must fail, with errno.
RAW = (
    "ct = bi['__import__']('ctypes')\n"
    "libc = ct.CDLL(None, use_errno=True)\n"
    "rc = {call}\n"
    "assert rc < 0, rc\n"
    "raise OSError(ct.get_errno(), 'refused')\n"
)
RAW_REFUSED = ("PermissionError", "ModuleNotFoundError", "ImportError")

#: (id, agent code, exception types that count as the OS refusing). ``VICTIM`` is the
#: victim folder, ``PARENT`` the pibench (here: test) process.
ATTACKS = [
    ("read-etc-passwd", "print(real_open('/etc/passwd').read())", ("PermissionError",)),
    ("read-home-file", "print(real_open(VICTIM + '/home-secret.txt').read())", ("PermissionError",)),
    ("read-save-store", "print(real_open(VICTIM + '/saves/index.json').read())", ("PermissionError",)),
    ("list-folder", "print(os.listdir(VICTIM))", ("PermissionError",)),
    ("write-tmp", "real_open('/tmp/pibench-pwned-' + str(os.getpid()), 'w').write('x')", ("PermissionError",)),
    ("write-victim", "real_open(VICTIM + '/pwned', 'w').write('x')", ("PermissionError",)),
    ("mkdir-tmp", "os.mkdir(VICTIM + '/pwned-dir')", ("PermissionError",)),
    ("remove-file", "os.remove(VICTIM + '/home-secret.txt')", ("PermissionError",)),
    ("fork", "print('child' if os.fork() == 0 else 'parent')", ("PermissionError",)),
    ("exec", "os.execv('/bin/sh', ['/bin/sh', '-c', 'touch ' + VICTIM + '/pwned'])", ("PermissionError",)),
    ("posix-spawn", "os.posix_spawn('/bin/true', ['/bin/true'], {})", ("PermissionError",)),
    # socket and ctypes are extension modules: not preloaded, so unreachable here
    # (a new native library cannot even be mapped); the raw calls are proven below.
    ("socket", "bi['__import__']('socket').socket()", ("PermissionError", "ModuleNotFoundError", "ImportError")),
    ("ctypes-raw-socket", RAW.format(call="libc.socket(2, 1, 0)"), RAW_REFUSED),
    ("ctypes-ptrace-parent", RAW.format(call="libc.ptrace(16, PARENT, None, None)"), RAW_REFUSED),
]

#: (id, agent code) of attempts the seccomp filter answers by killing the agent process
#: (``SIGSYS``: pibench sees it, :data:`pibench_tui.sandbox.confine.SECCOMP_KILLED`).
KILLED = [
    ("kill-parent", "os.kill(PARENT, 9)"),
    ("kill-init", "os.kill(1, 0)"),
    ("kill-everyone", "os.kill(-1, 9)"),
    ("setuid-root", "os.setuid(0)"),
]


@pytest.mark.parametrize("user", USERS)
def test_os_layer_alone_refuses_every_attack(user, victim, monkeypatch):
    """With the static check off, each attack escapes the Python layers (the block prints
    'escaped') and is then refused by the OS confinement alone; no secret leaks, nothing
    is written, the pibench process is untouched, and the agent process is still there
    for the next attack. Signals to other processes and ``setuid`` kill the agent process
    instead (a ``sandbox_violation`` pibench sees); it is restarted."""
    sb = _sandbox(user, monkeypatch)
    try:
        conf = sb.confinement
        assert conf.complete, conf.describe()
        prelude = ESCAPE + f"VICTIM = {str(victim)!r}\nPARENT = {os.getpid()}\n"
        result = sb.run(prelude)
        assert result.ok, result.error
        assert result.stdout == "escaped 65534\n"
        for attack_id, code, refused_by in ATTACKS:
            result = sb.run(code)
            assert not result.ok, f"{attack_id}: not refused: {result.stdout!r}"
            assert result.error["type"] in refused_by, (attack_id, result.error)
            assert not result.restarted, attack_id
            assert "SECRET" not in result.stdout and "root:x:0" not in result.stdout, attack_id
        for attack_id, code in KILLED:
            result = sb.run(code)
            assert not result.ok and result.restarted, (attack_id, result)
            assert result.error["type"] == "AgentProcessDied", (attack_id, result.error)
            assert result.error.get("code") == "sandbox_violation", (attack_id, result.error)
            assert sb.run(prelude).ok  # a new agent process: escape again
        # Landlock grants reading the installation; the file permissions may still refuse
        # user 65534 (a Python installed under root's 0700 home): then PermissionError.
        installed = sb.run("print(bi['__import__']('json').__file__)").stdout.strip()
        control = sb.run(f"print(real_open({installed!r}).read(5))")
        if _readable_by_agent_user(installed):
            assert control.ok and control.stdout == 'r"""J\n', control
        else:
            assert not control.ok and control.error["type"] == "PermissionError", control
    finally:
        sb.close()
    assert sorted(p.name for p in victim.iterdir()) == ["allowed", "home-secret.txt", "saves"]
    assert (victim / "home-secret.txt").read_text() == "SECRET-HOME-FILE\n"


def test_status_says_what_is_in_force():
    """confinement_status() (probed without a process) and the agent process's own report
    agree on every mechanism; on this kernel the boundary is complete, and the one-line
    description says so."""
    probe = confinement_status()
    with Sandbox(lambda *a: None, {}, block_timeout=10) as sb:
        applied = sb.confinement
    assert (applied.landlock, applied.seccomp, applied.no_new_privs, applied.rlimits) == (
        probe.landlock,
        probe.seccomp,
        probe.no_new_privs,
        probe.rlimits,
    )
    assert applied.landlock_abi == probe.landlock_abi
    assert applied.user == ("nobody" if os.geteuid() == 0 else "unprivileged")
    if probe.complete:
        assert applied.complete and applied.missing == ()
        assert applied.describe().startswith("OS confinement: complete (")
    else:  # a kernel without a mechanism: it is named
        assert "INCOMPLETE, missing" in applied.describe()
    assert applied.to_dict()["complete"] is applied.complete


#: A plain process confines itself with confine.apply (socket, ctypes and mmap loaded
#: first) and tries raw system calls; it prints {attack: errno (0 = it worked)}.
PROBE = r"""
import ctypes, errno, json, mmap, os, socket, sys, importlib.util
spec = importlib.util.spec_from_file_location("confine_probe", sys.argv[1])
confine = importlib.util.module_from_spec(spec)
sys.modules["confine_probe"] = confine
spec.loader.exec_module(confine)
victim = sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
parent = os.getppid()
stdlib = os.path.dirname(os.__file__)
status = confine.apply([stdlib, victim + "/allowed"], memory_limit=0, keep_fds=64)
out = {"status": status.to_dict()}

def attempt(name, fn):
    try:
        fn()
        out[name] = 0
    except OSError as exc:
        out[name] = exc.errno

def raw(name, rc):
    out[name] = ctypes.get_errno() if rc < 0 else 0

attempt("socket-inet", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
attempt("socket-unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
attempt("socketpair", lambda: socket.socketpair())
raw("raw-socket", libc.socket(2, 1, 0))
attempt("fork", os.fork)
attempt("exec", lambda: os.execv("/bin/true", ["/bin/true"]))
attempt("exec-memory", lambda: mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC))
attempt("read-etc-passwd", lambda: open("/etc/passwd").read())
attempt("read-victim", lambda: open(victim + "/home-secret.txt").read())
attempt("write-tmp", lambda: open("/tmp/pibench-probe-%d" % os.getpid(), "w"))
attempt("control-read-allowed", lambda: open(victim + "/allowed/public.txt").read())
attempt("control-signal-self", lambda: os.kill(os.getpid(), 0))
print(json.dumps(out))
"""

REFUSED = {errno.EPERM, errno.EACCES}


@pytest.mark.parametrize("user", USERS)
def test_raw_system_calls_meet_seccomp_and_landlock(user, victim):
    """Native code (ctypes) in a confined process: sockets, fork, exec, executable memory,
    reading /etc/passwd or a world-readable file, writing /tmp: each fails with EPERM or
    EACCES; reading a folder it was allowed to read and signalling itself still work.
    (Signals to others, ptrace, process_vm_readv, io_uring, setuid: see
    :func:`test_forbidden_system_calls_kill_the_confined_process`.)"""
    python = sys.executable if user == "pibench-user" else NOBODY_PYTHON
    prefix = [] if user == "pibench-user" else NOBODY
    proc = subprocess.run(
        [*prefix, python, "-c", PROBE, str(CONFINE_PY), str(victim)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    status = out.pop("status")
    assert status["complete"], status
    assert out.pop("control-read-allowed") == 0
    assert out.pop("control-signal-self") == 0
    refused = {name: code for name, code in out.items() if code in REFUSED}
    assert refused == out, {name: code for name, code in out.items() if code not in REFUSED}
    assert len(out) == 10


#: A plain process confines itself (ctypes loaded first) and makes one raw system call
#: (argv[2]) that no confined agent code can make; it prints "survived" if it lives.
KILL_PROBE = r"""
import ctypes, os, sys, importlib.util
spec = importlib.util.spec_from_file_location("confine_probe", sys.argv[1])
confine = importlib.util.module_from_spec(spec)
sys.modules["confine_probe"] = confine
spec.loader.exec_module(confine)
libc = ctypes.CDLL(None, use_errno=True)
parent = os.getppid()
r, w = os.pipe()
status = confine.apply([os.path.dirname(os.__file__)], memory_limit=0, keep_fds=64)
assert status.complete, status
print("confined", flush=True)
calls = {
    "kill-parent": lambda: libc.kill(parent, 0),
    "tgkill-parent": lambda: libc.syscall(234, parent, parent, 0),
    "ptrace-attach": lambda: libc.ptrace(16, parent, None, None),
    "process-vm-readv": lambda: libc.syscall(310, parent, None, 0, None, 0, 0),
    "io-uring-setup": lambda: libc.syscall(425, 1, None),
    "bpf": lambda: libc.syscall(321, 0, None, 0),
    "perf-event-open": lambda: libc.syscall(298, None, 0, -1, -1, 0),
    "unshare-user": lambda: libc.unshare(0x10000000),
    "clone-newuser": lambda: libc.syscall(56, 0x10000000 | 17, None, None, None, None),
    "setuid-0": lambda: libc.setuid(0),
    "fcntl-setown": lambda: libc.fcntl(r, 8, parent),
    "fcntl-setsig": lambda: libc.fcntl(r, 10, 9),
    "fcntl-async": lambda: libc.fcntl(r, 4, os.O_ASYNC),
}
calls[sys.argv[2]]()
print("survived", flush=True)
"""

KILL_CALLS = [
    "kill-parent",
    "tgkill-parent",
    "ptrace-attach",
    "process-vm-readv",
    "io-uring-setup",
    "bpf",
    "perf-event-open",
    "unshare-user",
    "clone-newuser",
    "setuid-0",
    "fcntl-setown",
    "fcntl-setsig",
    "fcntl-async",
]


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the raw system call numbers are x86_64's")
@pytest.mark.skipif(not confinement_status().complete, reason="needs complete confinement")
def test_forbidden_system_calls_kill_the_confined_process():
    """Each system call no confined agent code can make (signals to another process, the
    fcntl signal route, ptrace, process_vm_readv, io_uring, bpf, perf events, a user
    namespace by unshare or clone, setuid) kills the confined process with SIGSYS, a death
    its parent sees (before: EPERM, seen by no one but the caller)."""
    import signal

    for name in KILL_CALLS:
        proc = subprocess.run(
            [sys.executable, "-c", KILL_PROBE, str(CONFINE_PY), name],
            capture_output=True,
            text=True,
            timeout=60,
            cwd="/",
            stdin=subprocess.DEVNULL,
        )
        assert proc.stdout == "confined\n", (name, proc.stdout, proc.stderr)
        assert proc.returncode == -signal.SIGSYS, (name, proc.returncode, proc.stderr)


#: seccomp alone, as on a kernel without Landlock: the filter then refuses every open.
SECCOMP_ONLY = r"""
import errno, json, os, socket, sys, importlib.util
spec = importlib.util.spec_from_file_location("confine_probe", sys.argv[1])
confine = importlib.util.module_from_spec(spec)
sys.modules["confine_probe"] = confine
spec.loader.exec_module(confine)
lib = confine.osbound.load_libseccomp()
assert confine.osbound.no_new_privs()
assert confine.osbound.seccomp_filter(lib, allow_open=False) is None
out = {}
for name, fn in [
    ("read-etc-passwd", lambda: open("/etc/passwd")),
    ("read-stdlib", lambda: open(os.__file__)),
    ("write-tmp", lambda: open("/tmp/pibench-probe-%d" % os.getpid(), "w")),
    ("socket", lambda: socket.socket()),
    ("fork", os.fork),
]:
    try:
        fn()
        out[name] = 0
    except OSError as exc:
        out[name] = exc.errno
print(json.dumps(out))
"""


@pytest.mark.skipif(not confinement_status().seccomp, reason="needs seccomp and libseccomp")
def test_without_landlock_seccomp_refuses_every_open():
    """The fallback for kernels without Landlock: the seccomp filter alone refuses every
    file open (even of the standard library), sockets and fork, with EPERM."""
    proc = subprocess.run(
        [sys.executable, "-c", SECCOMP_ONLY, str(CONFINE_PY)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out == dict.fromkeys(("read-etc-passwd", "read-stdlib", "write-tmp", "socket", "fork"), errno.EPERM)


def test_a_missing_mechanism_is_named():
    """A report without Landlock or seccomp (an old kernel, no libseccomp) is incomplete
    and names what is missing; garbage from the agent process reads as nothing in force."""
    from pibench_tui.sandbox import Confinement

    partial = Confinement(
        no_new_privs=True,
        user="unprivileged",
        landlock_abi=0,
        landlock=False,
        seccomp=True,
        rlimits=True,
        notes=("the kernel has no Landlock",),
        signal_filter=True,
        parent_death=True,
    )
    assert not partial.complete and partial.missing == ("landlock",)
    assert partial.describe().startswith("OS confinement: INCOMPLETE, missing landlock (")
    assert "the kernel has no Landlock" in partial.describe()
    assert Confinement.from_dict(partial.to_dict()) == partial
    for junk in (None, "ready", {"landlock": "yes", "seccomp": 1, "user": "admin"}):
        assert Confinement.from_dict(junk).missing[:1] == ("no_new_privs",)
        assert not Confinement.from_dict(junk).complete
