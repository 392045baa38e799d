"""Run directories under the career lock's discipline and read with size limits (issue 25
§2), through the real ``pibench`` command."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.headless.conftest import pibench_command, run_pibench

#: A ``--command`` backend: the first process to run it marks ``started`` and waits for
#: ``gate``; any later one (a second command on the same run directory) ends months at once.
GATED_BACKEND = r"""
import json, os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
started, gate = os.path.join(here, "started"), os.path.join(here, "gate")
sys.stdin.read()
if not os.path.exists(started):
    open(started, "w").write(str(os.getppid()))
    while not os.path.exists(gate):
        time.sleep(0.05)
sys.stdout.write("```python\ntime.next_month()\n```")
"""


def test_a_second_agent_command_on_the_same_run_directory_fails_at_once_naming_the_holder(tmp_path):
    """While one `pibench agent` plays a career, the same command started again fails at once
    (exit 1) naming the run directory and the holder's pid, and touches nothing; the first
    command then finishes its career (before: the second silently replaced the career)."""
    (tmp_path / "b").mkdir()
    backend = tmp_path / "b" / "backend.py"
    backend.write_text(GATED_BACKEND, encoding="utf-8")
    out = tmp_path / "runs"
    args = ["agent", "--model", "m", "--command", f"{sys.executable} {backend}", "--scenario", "short-12"]
    # no endpoint check: its request would be the gated one, before the first command holds the lock
    args += ["--seeds", "5", "--out", str(out), "--no-endpoint-check"]
    first = subprocess.Popen(pibench_command() + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for _ in range(2400):
            if (tmp_path / "b" / "started").exists() or first.poll() is not None:
                break
            time.sleep(0.05)
        assert (tmp_path / "b" / "started").exists(), "the first command never asked its backend"
        second = run_pibench(args, home=tmp_path / "home", timeout=300)
        assert second.returncode == 1, second.stdout + second.stderr
        assert "in use by another command" in second.stderr and f"pid {first.pid}" in second.stderr, second.stderr
        assert not (out / "m" / "short-12-5" / "result.json").exists()
    finally:
        (tmp_path / "b" / "gate").write_text("go")
        stdout, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    res = json.loads((out / "m" / "short-12-5" / "result.json").read_text())
    assert res["months_played"] == 12


def _agent_run(out: Path) -> Path:
    """One short agent career (an in-process backend that ends every month)."""
    from pibench_tui.harness.backends import Completion
    from pibench_tui.harness.loop import run_careers
    from tests.harness.conftest import settings_for

    class Idle:
        name = "idle"

        def describe(self):
            return {"backend": "instant"}

        def complete(self, messages):
            return Completion(text="```python\ntime.next_month()\n```", prompt_tokens=10, completion_tokens=5)

    (res,) = run_careers(settings_for("short-12", model="idle"), Idle, [101], out, log=lambda _t: None)
    assert isinstance(res, dict)
    return out / "idle" / "short-12-101"


def test_report_and_replay_refuse_an_oversized_transcript_line_with_a_clear_error(tmp_path):
    """A run directory whose transcript.jsonl holds one line of 6 MiB (past the 4 MiB a line
    may hold) is not read into memory: `pibench report` lists the career as invalid naming
    the file and the limit, and `pibench replay --check-transcripts` says the same."""
    run = _agent_run(tmp_path / "runs")
    with open(run / "transcript.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"event": "note", "pad": "x" * (6 << 20)}) + "\n")
    rep_json = tmp_path / "r.json"
    rep = run_pibench(["report", str(tmp_path / "runs"), "--json", str(rep_json)], home=tmp_path / "home")
    assert rep.returncode == 0, rep.stderr
    (row,) = json.loads(rep_json.read_text())["leaderboard"]
    assert "transcript.jsonl: line" in " ".join(row["invalid_reasons"]) and "4 MiB" in " ".join(row["invalid_reasons"])
    rp = run_pibench(["replay", str(run), "--check-transcripts"], home=tmp_path / "home")
    assert rp.returncode == 1 and "4 MiB" in rp.stdout, rp.stdout + rp.stderr
