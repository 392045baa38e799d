"""The agent process's confinement as the agent process proved it, on every kernel (issue 28).

Mounted through the real ``pibench`` command where an attacker can reach it that way:

* in a user namespace (``unshare -Ur``) root cannot become ``nobody``: the agent process
  says so, pibench reports it (not its own forecast "user nobody, complete"), and a sealed
  run refuses to start unless ``--allow-incomplete-confinement`` is given;
* on an older kernel (the test option ``PIBENCH_TEST_LANDLOCK_ABI_MAX`` caps the agent
  process's Landlock ABI at 5, Linux 6.10-6.11: no signal scoping) the ``fcntl`` route to
  signal another process (``F_SETOWN`` + ``F_SETSIG`` + ``O_ASYNC``) is closed by seccomp;
* the agent process dies with pibench (``kill -9``) even while agent code holds the GIL in
  one C call, which starves the agent process's own watchdog.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pibench_tui.sandbox as sandbox_module
from pibench_tui.sandbox import confinement_status
from tests.headless.conftest import pibench_command

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the OS confinement is Linux's")

CONFINE_PY = Path(sandbox_module.__file__).with_name("confine.py")
CAP = "PIBENCH_TEST_LANDLOCK_ABI_MAX"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != CAP}
    env.update(PIBENCH_HOME=str(tmp_path / "home"), **extra)
    return env


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    try:
        return subprocess.run(["unshare", "-Ur", "true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _seal(tmp_path: Path) -> Path:
    path = tmp_path / "seal.json"
    subprocess.run(
        [*pibench_command(), "seal", "--count", "1", "--out", str(path)], check=True, capture_output=True, timeout=60
    )
    return path


@pytest.mark.skipif(not _unshare_works(), reason="needs unprivileged user namespaces (unshare -Ur)")
def test_user_namespace_root_is_reported_as_proved_and_a_sealed_run_refuses_it(tmp_path):
    """Under ``unshare -Ur`` the agent process stays (namespaced) root: pibench headless says
    "INCOMPLETE, missing privilege drop ... user root" at start and in its report (before:
    "complete ... user nobody", pibench's own forecast); ``--seeds @FILE`` then refuses to
    run any block (exit 1, the reason named: pibench's forecast now sees the namespace too)
    and ``pibench agent --seeds @FILE`` refuses too, while ``--allow-incomplete-confinement``
    runs the block and still reports what was missing."""
    env = _env(tmp_path)
    ns = ["unshare", "-Ur", *pibench_command()]
    public = subprocess.run(
        [*ns, "headless", "--seed", "3"], input="print('RAN')\n", capture_output=True, text=True, env=env, timeout=120
    )
    assert public.returncode == 0, public.stderr
    assert "INCOMPLETE, missing privilege drop" in public.stderr and "user root" in public.stderr
    assert "user nobody" not in public.stderr + public.stdout
    report = [line for line in public.stdout.splitlines() if line.startswith("confinement")]
    assert report and "INCOMPLETE, missing privilege drop" in report[0], public.stdout

    seal = _seal(tmp_path)
    sealed = subprocess.run(
        [*ns, "headless", "--seeds", f"@{seal}"],
        input="print('RAN')\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert sealed.returncode == 1
    assert "sealed evaluation is refused" in sealed.stderr and "privilege drop" in sealed.stderr
    assert "--allow-incomplete-confinement" in sealed.stderr
    assert "RAN" not in sealed.stdout

    allowed = subprocess.run(
        [*ns, "headless", "--seeds", f"@{seal}", "--allow-incomplete-confinement"],
        input="print('RAN')\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert allowed.returncode == 0, allowed.stderr
    assert "RAN" in allowed.stdout and "INCOMPLETE, missing privilege drop" in allowed.stdout

    out = tmp_path / "runs"
    agent = subprocess.run(
        [*ns, "agent", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--api-key-env", "PIBENCH_NO_SUCH_KEY"]
        + ["--scenario", "short-12", "--seeds", f"@{seal}", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert agent.returncode == 1
    assert "sealed evaluation is refused" in agent.stderr and "privilege drop" in agent.stderr
    assert not out.exists()


@pytest.mark.skipif(not _unshare_works(), reason="needs unprivileged user namespaces (unshare -Ur)")
def test_a_sealed_sandbox_refuses_an_agent_process_that_proves_less_than_forecast(monkeypatch):
    """pibench's forecast says complete, but the agent process alone runs in a user
    namespace (``unshare -Ur``): it proves ``user root``. A sandbox that requires complete
    confinement (a sealed run) kills it before it runs any code and says what is missing;
    without the requirement the block runs and :attr:`Sandbox.confinement` is the proof."""
    import pibench_tui.sandbox.process as process_module
    from pibench_tui.sandbox import Sandbox, SandboxStartError

    if not confinement_status().complete:
        pytest.skip("needs a machine whose forecast is complete")
    command = ["unshare", "-Ur", *process_module.agent_launch.agent_command(process_module.CHILD_SCRIPT)]
    monkeypatch.setattr(process_module, "agent_command", lambda: list(command))
    with Sandbox(lambda *call: None, {}, block_timeout=30, require_complete=True) as sandbox:
        with pytest.raises(SandboxStartError, match="proved its OS confinement incomplete.*privilege drop"):
            sandbox.run("print('RAN')")
        assert sandbox.proved is not None and sandbox.proved.user == "root"
    with Sandbox(lambda *call: None, {}, block_timeout=30) as sandbox:
        result = sandbox.run("print('RAN')")
        assert result.ok and result.stdout == "RAN\n"
        assert sandbox.confinement.user == "root" and "privilege drop" in sandbox.confinement.missing


def test_the_landlock_abi_cap_reaches_the_agent_process_and_its_report(tmp_path):
    """The test option caps the Landlock ABI the agent process uses, and the report is what
    that process proved: at ABI 5 (no signal scoping) it is complete because the seccomp
    signal filter is in force (``signal_filter``); at ABI 0 (no Landlock) it is incomplete
    and a sealed run is refused."""
    kernel = confinement_status()
    if kernel.landlock_abi < 5 or not kernel.complete:
        pytest.skip("needs a kernel with Landlock ABI >= 5 and complete confinement")
    for cap, complete in (("5", True), ("0", False)):
        run = subprocess.run(
            [*pibench_command(), "headless", "--jsonl", "--seed", "3"],
            input=json.dumps({"code": "x = 1"}) + "\n",
            capture_output=True,
            text=True,
            env=_env(tmp_path, **{CAP: cap}),
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        first = json.loads(run.stdout.splitlines()[0])["confinement"]
        assert first["landlock_abi"] == int(cap) and first["complete"] is complete, first
        assert first["signal_filter"] is True and first["parent_death"] is True
    seal = _seal(tmp_path)
    refused = subprocess.run(
        [*pibench_command(), "headless", "--seeds", f"@{seal}"],
        input="print('RAN')\n",
        capture_output=True,
        text=True,
        env=_env(tmp_path, **{CAP: "0"}),
        timeout=120,
    )
    assert refused.returncode == 1 and "RAN" not in refused.stdout
    assert "landlock" in refused.stderr


#: A process confines itself with confine.apply (its Landlock capped by the environment),
#: checks ordinary fcntl, then tries one step (argv[3]) of the fcntl route to signal the
#: victim (argv[2]): F_SETOWN, F_SETOWN_EX, F_SETSIG SIGKILL, O_ASYNC, then a write that makes
#: the pipe readable. Prints {attempt: errno}; the seccomp filter kills it at the step.
FCNTL_PROBE = r"""
import fcntl, json, os, signal, sys, importlib.util
spec = importlib.util.spec_from_file_location("confine_probe", sys.argv[1])
confine = importlib.util.module_from_spec(spec)
sys.modules["confine_probe"] = confine
spec.loader.exec_module(confine)
victim = int(sys.argv[2])
r, w = os.pipe()
status = confine.apply([os.path.dirname(os.__file__)], memory_limit=0, keep_fds=64)
out = {"status": status.to_dict()}

def attempt(name, fn):
    try:
        fn()
        out[name] = 0
    except OSError as exc:
        out[name] = exc.errno

attempt("control-F_SETFL", lambda: fcntl.fcntl(w, fcntl.F_SETFL, os.O_NONBLOCK))
attempt("control-F_GETFD", lambda: fcntl.fcntl(w, fcntl.F_GETFD))
print(json.dumps(out), flush=True)
steps = {
    "F_SETOWN": lambda: fcntl.fcntl(r, fcntl.F_SETOWN, victim),
    "F_SETOWN_EX": lambda: fcntl.fcntl(r, 15, bytes(8)),
    "F_SETSIG": lambda: fcntl.fcntl(r, 10, signal.SIGKILL),
    "F_SETFL-O_ASYNC": lambda: fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC),
}
for name, step in steps.items():
    if name == sys.argv[3]:
        step()
    else:
        attempt(name, step)
os.write(w, b"x")  # the pipe is readable now: with the route open, the victim gets SIGKILL
print("survived", flush=True)
"""


def test_fcntl_cannot_signal_another_process_under_landlock_abi_5(tmp_path):
    """With the agent process's Landlock capped at ABI 5 (no signal scoping), a confined
    process of the same user as its victim (``nobody`` when the tests run as root) cannot
    aim SIGIO/SIGKILL at it through ``F_SETOWN``/``F_SETOWN_EX``/``F_SETSIG``/``O_ASYNC``:
    each step kills the confined process (SIGSYS, seen by its parent) and the victim lives;
    ordinary ``fcntl`` still works. Before, the filter let every fcntl through and the
    victim was killed."""
    if not confinement_status().seccomp or confinement_status().landlock_abi < 5:
        pytest.skip("needs seccomp and Landlock ABI >= 5")
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
    if as_nobody and shutil.which("setpriv") is None:
        pytest.skip("needs setpriv to run the victim as nobody")
    victim = subprocess.Popen([*as_nobody, "sleep", "600"], cwd="/")
    try:
        for step in ("F_SETOWN", "F_SETOWN_EX", "F_SETSIG", "F_SETFL-O_ASYNC"):
            probe = subprocess.run(
                [sys.executable, "-c", FCNTL_PROBE, str(CONFINE_PY), str(victim.pid), step],
                capture_output=True,
                text=True,
                timeout=60,
                cwd="/",
                stdin=subprocess.DEVNULL,
                env=dict(os.environ, **{CAP: "5"}),
            )
            assert probe.returncode == -signal.SIGSYS, (step, probe.returncode, probe.stdout, probe.stderr)
            out = json.loads(probe.stdout.splitlines()[0])
            status = out.pop("status")
            assert status["landlock_abi"] == 5 and status["complete"], status
            assert out == {"control-F_SETFL": 0, "control-F_GETFD": 0}, out
            assert "survived" not in probe.stdout
            assert victim.poll() is None, "the victim was signalled"
    finally:
        victim.kill()
        victim.wait()


def _children(pid: int) -> list[int]:
    """Children of every thread of ``pid`` (the launcher thread starts some)."""
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_the_agent_process_dies_with_pibench_even_holding_the_gil(tmp_path):
    """Agent code stuck in one C call (``sum(range(10**15))`` holds the GIL, so the agent
    process's own watchdog never runs) outlives nothing: ``kill -9`` of pibench headless
    ends it (PR_SET_PDEATHSIG). Before, it spun on at 100 % CPU, re-parented to init."""
    if not confinement_status().parent_death:
        pytest.skip("no PR_SET_PDEATHSIG here")
    proc = subprocess.Popen(
        [*pibench_command(), "headless", "--jsonl", "--seed", "3", "--block-timeout", "600"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
    )
    agents: list[int] = []
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"code": "x = 1"}) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["ok"]
        agents = _children(proc.pid)
        assert len(agents) == 1
        proc.stdin.write(json.dumps({"code": "sum(range(10**15))"}) + "\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 30
        while Path(f"/proc/{agents[0]}/stat").read_text().rsplit(")", 1)[1].split()[0] != "R":
            assert time.monotonic() < deadline, "the block never started"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while not _gone(agents[0]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(agents[0]), "the agent process outlived pibench"
    finally:
        for pid in agents:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {k: v.strip() for k, _, v in (line.partition(":") for line in lines)}


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root and setpriv (securebits)",
)
def test_capabilities_kept_through_the_drop_are_cleared_or_reported(tmp_path):
    """pibench started as root with ``SECBIT_NO_SETUID_FIXUP`` (``setpriv --securebits
    +no_setuid_fixup``): the change to ``nobody`` no longer clears capabilities, so the
    agent process clears them itself; it ends with none (``CapEff``/``CapPrm``/``CapAmb`` 0)
    and reports complete. Before, it kept every capability of root while the report said
    "user nobody, complete"."""
    proc = subprocess.Popen(
        ["setpriv", "--securebits", "+no_setuid_fixup", "--", *pibench_command(), "headless", "--jsonl", "--seed", "3"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"code": "x = 1"}) + "\n")
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        (agent,) = _children(proc.pid)
        status = _status(agent)
        assert status["Uid"].split()[0] == "65534"
        assert {status[k].strip("0") for k in ("CapEff", "CapPrm", "CapAmb", "CapInh")} == {""}, status
        conf = reply["confinement"]
        assert conf["user"] == "nobody" and conf["complete"] is confinement_status().complete, conf
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=60)


#: A --command backend whose every reply is agent code that holds the GIL for hours.
SPINNER = r"""#!{python}
import json, sys
json.load(sys.stdin)
print(json.dumps({{"content": "```python\nsum(range(10**15))\n```"}}))
"""


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        kids = _children(todo.pop())
        out += kids
        todo += kids
    return out


def _spinning_agent(pid: int) -> bool:
    """Whether ``pid`` is an agent process running (state R)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return "child.py" in cmdline and state == "R"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_agent_processes_of_parallel_careers_die_with_pibench_agent(tmp_path):
    """``pibench agent --jobs 2``: each career runs in a thread of its own and its agent
    process is started through pibench's launcher thread; with both agent processes stuck
    in one C call, ``kill -9`` of pibench ends them both (before, both spun on)."""
    if not confinement_status().parent_death:
        pytest.skip("no PR_SET_PDEATHSIG here")
    backend = tmp_path / "spinner.py"
    backend.write_text(SPINNER.format(python=sys.executable))
    backend.chmod(0o755)
    proc = subprocess.Popen(
        [*pibench_command(), "agent", "--model", "m", "--command", str(backend), "--scenario", "short-12"]
        + ["--seeds", "1,2", "--jobs", "2", "--out", str(tmp_path / "runs"), "--block-timeout", "600"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env=_env(tmp_path),
    )
    agents: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while len(agents) < 2:
            assert time.monotonic() < deadline, "the agent processes never started their blocks"
            agents = [pid for pid in _descendants(proc.pid) if _spinning_agent(pid)]
            time.sleep(0.1)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while not all(_gone(pid) for pid in agents) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(_gone(pid) for pid in agents), "an agent process outlived pibench"
    finally:
        for pid in agents:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_an_agent_process_started_from_a_thread_that_ends_lives_on():
    """The parent-death signal is tied to the thread that started the agent process: one
    started while a short-lived thread (a TUI console worker) runs a block must not die when
    that thread ends. Its variables are still there for a block run from another thread."""
    import threading

    from pibench_tui.sandbox import Sandbox

    with Sandbox(lambda *call: None, {}, block_timeout=30) as sandbox:
        first: list = []
        worker = threading.Thread(target=lambda: first.append(sandbox.run("x = 41")))
        worker.start()
        worker.join()
        assert first and first[0].ok, first
        time.sleep(0.5)  # the kernel signals at once when the starting thread ends
        second = sandbox.run("print(x + 1)")
        assert second.ok and second.stdout == "42\n" and not second.restarted, second


#: A parent (argv[2]: "spawn") starts a child that confines itself with confine.apply and
#: then spins in one C call; the parent prints the child's pid and waits to be killed.
ORPHAN_PROBE = r"""
import os, subprocess, sys, time
if sys.argv[2] == "spawn":
    child = subprocess.Popen([sys.executable, "-c", sys.argv[3], sys.argv[1], "child", ""])
    print(child.pid, flush=True)
    time.sleep(600)
else:
    import importlib.util
    spec = importlib.util.spec_from_file_location("confine_probe", sys.argv[1])
    confine = importlib.util.module_from_spec(spec)
    sys.modules["confine_probe"] = confine
    spec.loader.exec_module(confine)
    status = confine.apply([os.path.dirname(os.__file__)], memory_limit=0, keep_fds=64)
    assert status.parent_death, status
    sum(range(10**15))
"""


def test_the_parent_death_signal_holds_for_an_ordinary_user(tmp_path):
    """PR_SET_PDEATHSIG needs no privilege: a process of an ordinary user (uid 65534 when the
    tests run as root, else the tests' own user) confined by confine.apply and stuck in one
    C call dies when its parent is killed with SIGKILL."""
    from tests.headless.test_confinement import NOBODY

    prefix, python = (NOBODY, "/usr/bin/python3") if os.geteuid() == 0 else ([], sys.executable)
    probe = [*prefix, python, "-c", f"import ctypes; open({str(CONFINE_PY)!r}).close()"]
    if not os.access(python, os.X_OK) or subprocess.run(probe, cwd="/", capture_output=True).returncode != 0:
        pytest.skip("needs an interpreter with ctypes and a checkout the ordinary user can run and read")
    parent = subprocess.Popen(
        [*prefix, python, "-c", ORPHAN_PROBE, str(CONFINE_PY), "spawn", ORPHAN_PROBE],
        stdout=subprocess.PIPE,
        text=True,
        cwd="/",
    )
    child = 0
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        deadline = time.monotonic() + 30
        while not _spinning(child):
            assert time.monotonic() < deadline and not _gone(child), "the child never confined itself and spun"
            time.sleep(0.05)
        parent.kill()
        parent.wait(timeout=30)
        deadline = time.monotonic() + 30
        while not _gone(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(child), "the confined child outlived its parent"
    finally:
        if child and not _gone(child):
            os.kill(child, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def _spinning(pid: int) -> bool:
    """Whether ``pid`` is running (state R) with the seccomp filter on (confined)."""
    try:
        status = _status(pid)
    except OSError:
        return False
    return status.get("State", "").startswith("R") and status.get("Seccomp") == "2"


def test_a_forked_worker_starts_processes_from_threads_through_a_launcher_of_its_own():
    """A process forked after the launcher thread started (a fork-context worker pool) has
    the launcher's queue but not its thread: a start from one of its threads gets a launcher
    of its own instead of waiting forever on the inherited queue."""
    import threading

    from pibench_tui import agent_launch

    def start(out: list) -> None:
        proc = agent_launch._spawn(["true"])
        out.append(proc.wait())

    first: list = []
    thread = threading.Thread(target=start, args=(first,))
    thread.start()
    thread.join(30)
    assert first == [0]
    pid = os.fork()
    if pid == 0:  # the forked worker
        done: list = []
        worker = threading.Thread(target=start, args=(done,), daemon=True)
        worker.start()
        worker.join(30)
        os._exit(0 if done == [0] else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
