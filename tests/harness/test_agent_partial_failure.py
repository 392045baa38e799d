"""`pibench agent` when the LLM endpoint fails partway: a distinct exit status, the failed
careers named with their errors on stderr, and every finished run directory kept (and the
careers playable again by moving one away), through the real command in a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from pibench_tui.harness.cli import EXIT_LLM_FAILED_PARTWAY, EXIT_OK
from tests.harness.fakellm import FakeLLM, Reply, Status

ROOT = Path(__file__).resolve().parents[2]
NEXT = "```python\ntime.next_month()\n```"


def _agent(base_url: str, out: Path) -> subprocess.CompletedProcess:
    """The real `pibench agent` over seeds 101 and 102 of short-12 (12 months each), no retries."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pibench_tui",
            "agent",
            "--model",
            "m",
            "--base-url",
            base_url,
            "--api-key-env",
            "PIBENCH_TEST_NO_KEY",
            "--scenario",
            "short-12",
            "--seeds",
            "101,102",
            "--out",
            str(out),
            "--retries",
            "0",
            "--request-timeout",
            "20",
            "--no-endpoint-check",  # the endpoint fails partway by request count
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env={**os.environ, "PIBENCH_TEST_NO_KEY": ""},
    )


def test_an_endpoint_failing_partway_exits_3_names_the_careers_and_keeps_every_run(tmp_path):
    """Seed 101 is played whole; the endpoint answers seed 102's first 3 months, then only
    500s: the command exits 3 (not 0), stderr names seed 102, its failed calls, the months
    and the endpoint's error, and both run directories hold a result. Run again, the finished
    careers are read back untouched (same status, same bytes); with seed 102's directory
    moved away and a working endpoint, only seed 102 is played again and the status is 0."""
    out = tmp_path / "runs"
    healthy = 12 + 3  # seed 101's twelve months, then three of seed 102

    works = {"again": False}  # the endpoint recovered (one server: the endpoint is a setting)

    def flaky(req: dict, i: int) -> object:
        return Reply(NEXT) if i < healthy or works["again"] else Status(500)

    with FakeLLM(flaky) as srv:
        proc = _agent(srv.base_url, out)
        assert proc.returncode == EXIT_LLM_FAILED_PARTWAY, proc.stderr
        err = proc.stderr
        assert "the LLM endpoint failed partway" in err
        assert "seed 102: 8 of 11 LLM calls failed (months 4-11; last: server_error:" in err
        assert "scripted status 500" in err and "seed 101:" not in err
        assert "move its run directory away and run the same command" in err
        run101, run102 = out / "m" / "short-12-101", out / "m" / "short-12-102"
        first = json.loads((run101 / "result.json").read_text())
        second = json.loads((run102 / "result.json").read_text())
        assert first["llm"]["failed_calls"] == 0 and second["llm"]["failed_calls"] == 8
        assert second["months_played"] == 12 and not (run102 / "checkpoint.json").exists()
        kept = (run101 / "result.json").read_bytes()

        works["again"] = True
        before = len(srv.requests)
        again = _agent(srv.base_url, out)
        assert again.returncode == EXIT_LLM_FAILED_PARTWAY, again.stderr
        assert "seed 102: 8 of 11 LLM calls failed" in again.stderr
        assert len(srv.requests) == before  # finished careers are never played again
        shutil.move(str(run102), str(tmp_path / "moved-102"))
        replayed = _agent(srv.base_url, out)
        assert len(srv.requests) == before + 12  # seed 102 only
    assert replayed.returncode == EXIT_OK, replayed.stderr
    assert (run101 / "result.json").read_bytes() == kept
    assert json.loads((run102 / "result.json").read_text())["llm"]["failed_calls"] == 0


def test_the_exit_statuses_are_in_the_help():
    """`pibench agent --help` lists every exit status, 3 (the endpoint failed partway) included."""
    proc = subprocess.run(
        [sys.executable, "-m", "pibench_tui", "agent", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0
    assert "exit status:" in proc.stdout
    assert f"  {EXIT_LLM_FAILED_PARTWAY}  every career played to its end, but in some the LLM endpoint" in proc.stdout
