"""Start-up of ``pibench headless``: the agent process starts before the arguments are
parsed (and is closed when they are refused), and the parent's numpy runs its BLAS at one
thread without changing the environment later processes see or any world outcome."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pibench_tui.cli import command as cli

_ONE_THREAD = """
import json, os, sys
before = {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
from pibench_tui.cli.blas import import_numpy_one_thread
import_numpy_one_thread()
after = {k: os.environ.get(k) for k in before}
threads = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None
from world.config import WorldConfig
from world.engine import World
from world.runner import build_policy, play
w = World(WorldConfig(), 7)
play(w, build_policy("baseline", w))
print(json.dumps({"before": before, "after": after, "threads": threads, "digest": w.digest()}))
"""


def _one_thread_run(env_extra: dict[str, str]) -> dict:
    import os

    env = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    }
    env.update(env_extra)
    proc = subprocess.run(
        [sys.executable, "-c", _ONE_THREAD], capture_output=True, text=True, env=env, timeout=120, cwd="/"
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_numpy_one_thread_leaves_the_environment_and_the_world_as_they_were():
    """import_numpy_one_thread leaves no thread-count variable behind (processes started
    later see the user's environment), starts no BLAS worker thread (Linux), and a career
    played in that process ends with the digest of the same career played here (numpy
    imported as usual): the world never calls BLAS."""
    from world.config import WorldConfig
    from world.engine import World
    from world.runner import build_policy, play

    got = _one_thread_run({})
    assert got["before"] == got["after"] == dict.fromkeys(got["before"])
    if sys.platform == "linux":
        assert got["threads"] == 1
    here = World(WorldConfig(), 7)
    play(here, build_policy("baseline", here))
    assert here.month > 1 and got["digest"] == here.digest()


def test_numpy_one_thread_keeps_a_thread_count_the_user_set():
    """A thread count the environment sets is the user's choice: it is neither overwritten
    nor removed."""
    got = _one_thread_run({"OPENBLAS_NUM_THREADS": "2"})
    assert got["before"]["OPENBLAS_NUM_THREADS"] == got["after"]["OPENBLAS_NUM_THREADS"] == "2"


@pytest.fixture
def launches(monkeypatch):
    """Records the agent processes ``pibench`` launches (not started: stand-ins) and
    which of them were discarded."""
    from pibench_tui import agent_launch

    record: dict[str, list[object]] = {"launched": [], "discarded": []}

    def launch(command=None):
        proc = object()
        record["launched"].append(proc)
        return proc

    monkeypatch.setattr(agent_launch, "launch", launch)
    monkeypatch.setattr(agent_launch, "discard", lambda proc: record["discarded"].append(proc))
    return record


@pytest.mark.parametrize(
    "argv, code",
    [
        (["headless", "--seed", "x"], 2),  # refused by the parser
        (["headless", "--bogus"], 2),
        (["headless", "--seeds", "1", "--seed", "2"], 2),  # refused by the command
        (["headless", "--load", "a", "--seed", "2"], 2),
    ],
)
def test_agent_process_started_early_is_discarded_when_arguments_are_refused(launches, argv, code, capsys):
    """`pibench headless` starts its agent process before parsing; when the arguments are
    refused (by the parser or by the command) it exits 2 and that process is discarded."""
    assert cli.main(argv) == code
    assert len(launches["launched"]) == 1
    assert launches["discarded"] == launches["launched"]
    assert "error" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["headless", "--help"], ["headless", "-h"], ["--version"], ["scenarios", "list"]])
def test_no_agent_process_for_help_or_other_commands(launches, argv, capsys):
    """Help, --version and the other commands start no agent process."""
    cli.main(argv)
    capsys.readouterr()
    assert launches["launched"] == []


def test_headless_starts_its_agent_process_before_importing_the_sandbox():
    """In a fresh `pibench headless`, the agent process is launched before the sandbox
    package (and dataclasses, numpy, the world) is imported, and the session then adopts
    that very process: one launch in all (a session starting its own would launch again),
    and the block runs."""
    code = (
        "import io, sys\n"
        "from pibench_tui import agent_launch, cli\n"
        "seen = []\n"
        "real = agent_launch.launch\n"
        "def launch(command=None):\n"
        "    seen.append(sorted(m for m in ('pibench_tui.sandbox', 'dataclasses', 'numpy', 'world') if m in sys.modules))\n"
        "    return real(command)\n"
        "agent_launch.launch = launch\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(b\"lab.dashboard()['month']\\n\"))\n"
        "rc = cli.main(['headless', '--seed', '3'])\n"
        "print('SEEN', seen, 'RC', rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("1\n")  # the block ran
    assert proc.stdout.splitlines()[-1] == "SEEN [[]] RC 0"  # one launch, before any of those imports
