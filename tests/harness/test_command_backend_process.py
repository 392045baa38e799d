"""The ``--command`` backend's process (a QA pass on the harness): it dies with pibench
(``kill -9`` and SIGTERM of ``pibench agent`` during a request), and so does every process it
started, it may not run as the agent
processes' user, and run as another user it gets a minimal environment, not pibench's.
Each through the real ``pibench agent`` command."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.harness.test_sealed_command_backend import backend_user
from tests.headless.conftest import pibench_command

ROOT_ONLY = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="--command-user needs root")

#: A backend that writes its pid to ``$HOLD_PID_FILE`` (or, run as another user, to
#: ``/tmp``: the file named by ``$HOLD_PID_NAME`` in the folder of the script) and then
#: never answers.
HOLD = r"""#!/usr/bin/python3
import os, sys, time
sys.stdin.read()
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pid")
with open(path + ".tmp", "w") as fh:
    fh.write(str(os.getpid()))
os.rename(path + ".tmp", path)
time.sleep(600)
"""

#: A backend that answers with its own environment (as a comment) and ends the month.
ENV_REPLY = r"""#!/usr/bin/python3
import json, os, sys
sys.stdin.read()
reply = "# ENV " + json.dumps(dict(os.environ)) + "\n```python\ntime.next_month()\n```"
print(json.dumps({"content": reply}))
"""


@pytest.fixture
def script_folder():
    """A folder every user may enter and write (the backend may run as another user)."""
    if not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("needs /usr/bin/python3")
    folder = Path(tempfile.mkdtemp(prefix="pibench-backend-", dir="/tmp"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _script(folder: Path, text: str) -> Path:
    path = folder / "backend.py"
    path.write_text(text)
    path.chmod(0o755)
    return path


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a process that is not a zombie (a container's init may not reap)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def _start_agent(out: Path, script: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*pibench_command(), "agent", "--model", "m", "--command", str(script), "--scenario", "short-12"]
        + ["--seeds", "5", "--out", str(out), "--no-endpoint-check", *extra],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PIBENCH_HOME": str(out.parent / "home")},
    )


@pytest.mark.slow
def test_a_command_backend_dies_with_pibench_agent(tmp_path, script_folder):
    """``kill -9`` (and SIGTERM) of a real ``pibench agent`` while its ``--command`` backend
    is answering a request: the backend dies too (before, it was re-parented to init and
    kept running). As root, again with the backend run as another user (the change of user
    would clear a parent-death signal set before it)."""
    script = _script(script_folder, HOLD)
    pidfile = script_folder / "pid"
    cases = [("SIGKILL", signal.SIGKILL, ())]
    cases.append(("SIGTERM", signal.SIGTERM, ()))
    if os.geteuid() == 0:
        cases.append(("SIGKILL as another user", signal.SIGKILL, ("--command-user", backend_user())))
    for name, sig, extra in cases:
        pidfile.unlink(missing_ok=True)
        agent = _start_agent(tmp_path / name.replace(" ", "-") / "runs", script, *extra)
        try:
            assert _wait_for(lambda a=agent: pidfile.exists() or a.poll() is not None, 300), name
            assert agent.poll() is None, (name, agent.stderr.read() if agent.stderr else "")
            backend = int(pidfile.read_text())
            assert _alive(backend), name
            agent.send_signal(sig)
            agent.wait(60)
            assert _wait_for(lambda b=backend: not _alive(b), 30), f"{name}: the backend {backend} outlived pibench"
        finally:
            if agent.poll() is None:
                agent.kill()
                agent.wait()
            if pidfile.exists():
                with contextlib.suppress(OSError, ValueError):
                    os.kill(int(pidfile.read_text()), signal.SIGKILL)


#: A backend that leaves a child running (its pid appended to ``pids`` beside the script)
#: and answers at once.
LEAVES_A_CHILD = r"""#!/usr/bin/python3
import json, os, subprocess, sys
sys.stdin.read()
child = subprocess.Popen(["/usr/bin/python3", "-c", "import time; time.sleep(600)"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pids"), "a") as fh:
    fh.write("%d\n" % child.pid)
print(json.dumps({"content": "```python\ntime.next_month()\n```"}))
"""


def test_what_a_command_backend_leaves_running_ends_with_its_attempt(tmp_path, script_folder):
    """A backend that starts a child and answers: when each attempt ends its process group
    is killed, so after ``pibench agent`` ends no child of any attempt is alive (before,
    every one kept running under init)."""
    script = _script(script_folder, LEAVES_A_CHILD)
    out = tmp_path / "runs"
    run = subprocess.run(
        [*pibench_command(), "agent", "--model", "m", "--command", str(script), "--scenario", "short-12"]
        + ["--seeds", "5", "--out", str(out), "--max-turns", "1", "--no-endpoint-check"],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PIBENCH_HOME": str(tmp_path / "home")},
    )
    pids = [int(p) for p in (script_folder / "pids").read_text().split()]
    try:
        assert run.returncode == 0, run.stderr
        assert len(pids) == 12
        assert _wait_for(lambda: not any(_alive(p) for p in pids), 30), [p for p in pids if _alive(p)]
    finally:
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def test_the_agent_processes_user_is_refused_as_command_user(tmp_path, script_folder):
    """``--command-user nobody`` (or its uid 65534), the user every agent process runs as
    when pibench is root: a backend of that user killed another root session's agent
    process. Refused before anything runs (exit 1), naming the reason, as root or not; the
    backend never ran."""
    marker = script_folder / "ran"
    script = _script(script_folder, ENV_REPLY.replace("sys.stdin.read()", f"open({str(marker)!r}, 'w')"))
    for user in ("nobody", "65534"):
        out = tmp_path / user / "runs"
        run = subprocess.run(
            [*pibench_command(), "agent", "--model", "m", "--command", str(script), "--scenario", "short-12"]
            + ["--seeds", "5", "--out", str(out), "--no-endpoint-check", "--command-user", user],
            capture_output=True,
            text=True,
            timeout=600,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "PIBENCH_HOME": str(tmp_path / "home")},
        )
        assert run.returncode == 1, run.stderr
        assert "the user pibench's agent processes run as" in run.stderr, run.stderr
        assert not (out / "m").exists() and not marker.exists()


@ROOT_ONLY
def test_a_command_backend_of_another_user_gets_a_minimal_environment(tmp_path, script_folder):
    """Run as another user (``--command-user``), the backend's environment is PATH, the
    locale and that user's HOME/USER/LOGNAME: pibench's HOME (/root), an API key and any
    other variable of pibench's environment do not reach it (before, all did)."""
    script = _script(script_folder, ENV_REPLY)
    out = tmp_path / "runs"
    run = subprocess.run(
        [*pibench_command(), "agent", "--model", "m", "--command", str(script), "--scenario", "short-12"]
        + ["--seeds", "5", "--out", str(out), "--max-turns", "1", "--command-user", backend_user()],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env={
            **os.environ,
            "PIBENCH_HOME": str(tmp_path / "home"),
            "OPENAI_API_KEY": "sk-secret-of-the-evaluator",
            "LC_ALL": "C.UTF-8",
        },
    )
    assert run.returncode == 0, run.stderr
    (career,) = (out / "m").iterdir()
    replies = [json.loads(line) for line in (career / "transcript.jsonl").read_text().splitlines()]
    texts = [e["reply"] for e in replies if e.get("event") == "llm" and "# ENV " in e.get("reply", "")]
    assert texts, "no reply carried the environment"
    env = json.loads(texts[0].split("# ENV ", 1)[1].split("\n", 1)[0])
    import pwd

    home = pwd.getpwnam(backend_user()).pw_dir
    assert env.get("HOME") == home and env.get("USER") == backend_user() and env.get("LC_ALL") == "C.UTF-8"
    assert "PATH" in env
    assert set(env) <= {"PATH", "LANG", "LANGUAGE", "TZ", "HOME", "USER", "LOGNAME"} | {
        k for k in env if k.startswith("LC_")
    }, sorted(env)
    assert "sk-secret-of-the-evaluator" not in texts[0]


#: A backend that starts a child (writing the child's pid, then its own, to ``pids`` beside
#: the script) and then never answers.
HOLD_WITH_A_CHILD = r"""#!/usr/bin/python3
import os, subprocess, sys, time
sys.stdin.read()
child = subprocess.Popen(["/usr/bin/python3", "-c", "import time; time.sleep(600)"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pids")
with open(path + ".tmp", "w") as fh:
    fh.write("%d %d" % (child.pid, os.getpid()))
os.rename(path + ".tmp", path)
time.sleep(600)
"""


@pytest.mark.slow
def test_what_a_command_backend_started_dies_with_pibench_agent(tmp_path, script_folder):
    """``kill -9`` of a real ``pibench agent`` while its ``--command`` backend, which started a
    child of its own, is answering: the backend and its child both die (before, the
    parent-death signal ended the backend only, and its child kept running under init)."""
    script = _script(script_folder, HOLD_WITH_A_CHILD)
    pidfile = script_folder / "pids"
    agent = _start_agent(tmp_path / "runs", script)
    pids: list[int] = []
    try:
        assert _wait_for(lambda: pidfile.exists() or agent.poll() is not None, 300)
        assert agent.poll() is None, agent.stderr.read() if agent.stderr else ""
        pids = [int(p) for p in pidfile.read_text().split()]
        assert all(_alive(p) for p in pids)
        agent.kill()
        agent.wait(60)
        assert _wait_for(lambda: not any(_alive(p) for p in pids), 30), [p for p in pids if _alive(p)]
    finally:
        if agent.poll() is None:
            agent.kill()
            agent.wait()
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
