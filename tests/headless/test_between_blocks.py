"""Agent code never runs between blocks (issue 25 §4): pibench stops the agent process when
a block ends and continues it with the next message, through the real command."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.headless.conftest import pibench_command


def _children(parent: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{parent}/task/{parent}/children").read_text().split()]


def _state(pid: int) -> str:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("State:"):
            return line.split()[1]
    raise AssertionError("no State line")


def _settled_state(pid: int, patience: float = 30.0) -> str:
    """The process's state once a pending stop has taken effect: SIGSTOP is delivered when the
    kernel next schedules the process, which on a loaded machine can take well past 0.2 s (the
    state read 'R' then). Waits for 'T' at most ``patience`` seconds, then returns what it sees."""
    deadline = time.monotonic() + patience
    while (state := _state(pid)) != "T" and time.monotonic() < deadline:
        time.sleep(0.05)
    return state


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_the_agent_process_is_stopped_between_blocks_and_runs_the_next(tmp_path) -> None:
    """After each reply the agent process is in state T (stopped), so nothing of agent code
    (or a thread it started past the Python layer) computes while pibench waits for the
    next block; the next block still runs, with the variables of the last one."""
    env = dict(os.environ, PIBENCH_HOME=str(tmp_path / "home"))
    proc = subprocess.Popen(
        pibench_command() + ["headless", "--jsonl", "--seed", "3"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    try:

        def ask(code: str) -> dict:
            proc.stdin.write(json.dumps({"code": code}) + "\n")
            proc.stdin.flush()
            while True:
                reply = json.loads(proc.stdout.readline())
                if "ok" in reply:
                    return reply

        assert ask("x = 41")["ok"]
        (agent,) = _children(proc.pid)
        assert _settled_state(agent) == "T"
        second = ask("print(x + 1)")
        assert second["ok"] and second["stdout"] == "42\n"
        assert _children(proc.pid) == [agent]  # the same process, continued
        assert _settled_state(agent) == "T"
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert proc.returncode == 0
