"""Escapes leave a trace (issue 25 §4, QA4 F3): what the OS layer refuses where the kernel
can report it lands in the integrity log.

Agent code that got past the Python layer and then tries a system call no confined agent
code can make (a signal to pibench, ``ptrace``, the ``fcntl`` signal route, a namespace) is
killed by the kernel (seccomp ``SECCOMP_RET_KILL_PROCESS``, ``SIGSYS``); pibench sees the
death, says so (``AgentProcessDied`` with ``code: sandbox_violation``), restarts the agent
process and, in an agent run, records a flagging ``sandbox_violation`` incident. Before,
each was a silent ``EPERM`` that only agent code saw: ``integrity.json`` said
``flagged: false``.

The escape does not rely on any first-layer hole: the real ``pibench`` command runs with
the test-only ``static_check=False`` of the sandbox (as ``tests/headless/test_confinement.py``
does), through a wrapper script, so the test holds whatever the Python layer closes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pibench_tui.sandbox import confinement_status

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the OS confinement is Linux's"),
    pytest.mark.skipif(not confinement_status().seccomp, reason="needs seccomp and libseccomp"),
]

#: ``python WRAPPER ARGS`` is ``pibench ARGS`` with the Python layer of every sandbox off.
WRAPPER = """
import sys
import pibench_tui.sandbox as sandbox
original = sandbox.Sandbox.__init__
def no_first_layer(self, *args, **kwargs):
    kwargs["static_check"] = False
    original(self, *args, **kwargs)
sandbox.Sandbox.__init__ = no_first_layer
from pibench_tui.cli import main
sys.exit(main())
"""

#: Agent code that escapes the Python layer (possible only with it off) to the real ``os``.
ESCAPE = (
    "def _real(name):\n"
    "    for c in ().__class__.__base__.__subclasses__():\n"
    "        if c.__name__ == '_wrap_close':\n"
    "            return c.__init__.__globals__['sys'].modules[name]\n"
    "os = _real('os')\n"
)

#: (id, escaped code) of attempts the kernel reports: each kills the agent process.
ATTEMPTS = [
    ("kill-pibench", "os.kill(os.getppid(), 9)"),
    ("kill-everyone", "os.kill(-1, 9)"),
    ("killpg", "os.killpg(1, 9)"),
    ("setuid-root", "os.setuid(0)"),
    ("pidfd-of-pibench", "os.pidfd_open(os.getppid())"),
]


def _wrapped(tmp_path: Path) -> list[str]:
    script = tmp_path / "pibench_no_first_layer.py"
    script.write_text(WRAPPER)
    return [sys.executable, str(script)]


def _env(tmp_path: Path) -> dict[str, str]:
    import os

    return dict(os.environ, PIBENCH_HOME=str(tmp_path / "home"))


def test_escaped_signal_to_pibench_is_a_sandbox_violation_in_headless_mode(tmp_path):
    """Through ``pibench headless --jsonl``: each escaped attempt to signal pibench, every
    process or a process group, to become root or to take a pidfd of pibench ends the block with ``AgentProcessDied``
    (source pibench, ``code: sandbox_violation``, the message naming SIGSYS); pibench lives,
    restarts the agent process and the next block runs; an escaped block that makes no such
    call (signalling itself) is no violation."""
    blocks = [ESCAPE + "os.kill(os.getpid(), 0)\nprint('self ok')"]
    blocks += [ESCAPE + code for _id, code in ATTEMPTS]
    blocks.append("print('alive')")
    run = subprocess.run(
        [*_wrapped(tmp_path), "headless", "--jsonl", "--seed", "101"],
        input="".join(json.dumps({"code": b}) + "\n" for b in blocks),
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(tmp_path),
    )
    assert run.returncode == 0, run.stderr
    replies = [json.loads(line) for line in run.stdout.splitlines()]
    results = [r for r in replies if "ok" in r]
    assert len(results) == len(blocks), replies
    assert results[0]["ok"] and results[0]["stdout"] == "self ok\n", results[0]
    for (attempt, _code), result in zip(ATTEMPTS, results[1:-1], strict=True):
        error = result["error"]
        assert error["type"] == "AgentProcessDied", (attempt, error)
        assert error.get("code") == "sandbox_violation" and error["source"] == "pibench", (attempt, error)
        assert "SIGSYS" in error["message"], (attempt, error)
    assert results[-1]["ok"] and results[-1]["stdout"] == "alive\n", results[-1]


#: A ``--command`` backend: each month's first reply escapes and signals pibench; the next
#: ends the month.
BACKEND = r"""
import json, sys
req = json.load(sys.stdin)
turn = sum(1 for m in req["messages"] if m["role"] == "assistant")
code = ESCAPE + "os.kill(os.getppid(), 9)\n" if turn == 0 else "time.next_month()\n"
print("```python\n" + code + "```")
"""


def test_escaped_signal_flags_an_agent_run_with_a_sandbox_violation_incident(tmp_path):
    """Through ``pibench agent --command``: a reply whose escaped code signals pibench makes
    ``integrity.json`` flagged, with a ``sandbox_violation`` incident naming SIGSYS each time, and
    the career still finishes (before: ``flagged: false``, 0 flags)."""
    backend = tmp_path / "backend.py"
    backend.write_text(f"ESCAPE = {ESCAPE!r}\n" + BACKEND)
    out = tmp_path / "runs"
    run = subprocess.run(
        [*_wrapped(tmp_path), "agent", "--command", f"{sys.executable} {backend}", "--model", "esc"]
        + ["--scenario", "short-12", "--seed", "101", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(tmp_path),
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr
    [integrity_file] = list(out.rglob("integrity.json"))
    integrity = json.loads(integrity_file.read_text())
    assert integrity["flagged"] is True, integrity
    violations = [i for i in integrity["incidents"] if i["kind"] == "sandbox_violation"]
    assert violations and integrity["by_kind"]["sandbox_violation"] == len(violations), integrity
    assert all("SIGSYS" in i["message"] for i in violations), violations
    assert list(out.rglob("result.json")), "the career did not finish"
