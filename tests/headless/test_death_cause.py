"""Why the agent process died, as its exit shows it (issue 28): a ``SIGKILL`` from outside
is not blamed on the memory limit (the address-space limit makes allocations fail; it never
sends ``SIGKILL``), while an allocation-failure exit under a limit is."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from pibench_tui.sandbox.process import AgentProcess
from tests.headless.conftest import pibench_command
from tests.headless.test_between_blocks import _children


def _exited(code: int | None) -> AgentProcess:
    """An AgentProcess whose process ended with ``code`` (Popen's returncode convention)."""
    proc = AgentProcess.__new__(AgentProcess)
    proc.proc = SimpleNamespace(poll=lambda: code, wait=lambda timeout=None: code)  # type: ignore[assignment]
    return proc


def test_death_cause_names_the_signal_and_blames_the_limit_only_where_it_can_be() -> None:
    """SIGKILL reads as sent from outside with no word of the limit; SIGSEGV or a non-zero
    status under a 512 MiB limit names the limit; without a limit nothing is blamed on it."""
    mib = 512 << 20
    outside = _exited(-signal.SIGKILL).death_cause(mib)
    assert "SIGKILL" in outside and "outside" in outside and "memory limit" not in outside
    assert _exited(-signal.SIGSEGV).death_cause(mib) == "killed by SIGSEGV; most likely the memory limit of 512 MiB"
    assert _exited(1).death_cause(mib) == "exit status 1; most likely the memory limit of 512 MiB"
    assert _exited(-signal.SIGSEGV).death_cause(0) == "killed by SIGSEGV"
    assert "memory limit" not in _exited(-signal.SIGTERM).death_cause(mib)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_an_agent_process_killed_from_outside_is_reported_as_such(tmp_path) -> None:
    """Through the real command: the agent process killed with SIGKILL between blocks, the
    next block's error says AgentProcessDied by SIGKILL from outside, not the memory limit,
    (or a note before the block run afresh says so), and the career goes on in a fresh process."""
    env = dict(os.environ, PIBENCH_HOME=str(tmp_path / "home"))
    proc = subprocess.Popen(
        pibench_command() + ["headless", "--jsonl", "--seed", "3"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None

    def ask(code: str) -> dict:
        proc.stdin.write(json.dumps({"code": code}) + "\n")
        proc.stdin.flush()
        while True:
            reply = json.loads(proc.stdout.readline())
            if "ok" in reply:
                return reply

    try:
        assert ask("x = 1")["ok"]
        (agent,) = _children(proc.pid)
        os.kill(agent, signal.SIGKILL)
        died = ask("print('after')")
        # pibench sees the death either when the block is sent (the block's error) or, once
        # the exit has been reaped, before it (the block runs in a fresh process behind a note).
        if died["ok"] is False:
            assert died["error"]["type"] == "AgentProcessDied", died
            message = died["error"]["message"]
        else:
            assert died["stdout"].endswith("after\n"), died
            message = died["stdout"]
        assert "SIGKILL" in message and "outside" in message and "memory limit" not in message, died
        assert ask("print('fresh')")["stdout"] == "fresh\n"
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert proc.returncode == 0
