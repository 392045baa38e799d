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
    assert _exited(-signal.SIGSEGV).death_cause(mib) == (
        "killed by SIGSEGV; an allocation failing under the memory limit of 512 MiB ends a process so, "
        "as does a crash in C code"
    )
    assert _exited(1).death_cause(mib) == "exit status 1"  # no evidence of memory: not blamed
    assert _exited(-signal.SIGSEGV).death_cause(0) == "killed by SIGSEGV"
    assert "memory limit" not in _exited(-signal.SIGTERM).death_cause(mib)


def test_the_runtimes_own_exits_are_named_not_blamed_on_memory() -> None:
    """The statuses the runtime ends itself with say what happened (QA pass 6: exit status 4,
    a stale reply frame an escaped agent caused, read "most likely the memory limit"); only
    its out-of-memory exit names the limit."""
    from pibench_tui.sandbox.confine import EXIT_OUT_OF_MEMORY, EXIT_UNEXPECTED_MESSAGE

    mib = 1024 << 20
    stale = _exited(EXIT_UNEXPECTED_MESSAGE).death_cause(mib)
    assert stale.startswith("exit status 4: ") and "out of protocol order" in stale and "memory" not in stale
    oom = _exited(EXIT_OUT_OF_MEMORY).death_cause(mib)
    assert "ran out of memory" in oom and "memory limit of 1,024 MiB" in oom


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


def test_a_stale_reply_frame_is_reported_as_a_protocol_fault_not_memory() -> None:
    """An agent process past the first layer (test-only ``static_check=False``) writes an API
    call on pibench's channel itself; pibench's reply then reaches the runtime between
    blocks and it exits with its unexpected-message status. The next block says so, naming
    no memory limit (before: "exit status 4; most likely the memory limit of 1,024 MiB")."""
    from pibench_tui.sandbox import Sandbox
    from tests.headless.test_observed import ESCAPE

    stray = ESCAPE + 'os.write(1, b\'{"t":"call","ns":"lab","m":"dashboard","a":[],"k":{}}\\n\')\n'
    with Sandbox(lambda ns, m, a, k: {"month": 1}, {}, block_timeout=20, static_check=False) as sb:
        sb.run(stray)
        after = sb.run("x = 1")
    text = repr(after)
    assert "exit status 4" in text and "out of protocol order" in text, text
    assert "memory" not in text, text
