"""Whole careers through `pibench agent`: the scripted baseline equals headless mode,
resume equals an uninterrupted run, `pibench replay` confirms (and refuses tampering),
--jobs, the command backend and the CLI's errors (issue 11)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pibench_tui.cli.command import main as pibench_main
from pibench_tui.harness.rundir import read_jsonl
from tests.harness.conftest import play
from tests.harness.fakellm import FakeLLM, Reply
from tests.harness.scripted_pi import BASELINE_SCRIPT, baseline_reply

PI_SCRIPT = Path(__file__).with_name("scripted_pi.py")
ROOT = Path(__file__).resolve().parents[2]


def _pibench(
    *args: str, stdin: str | None = None, env: dict | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pibench_tui", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )


def _headless_digest(scenario: str, seed: int) -> tuple[float, str]:
    proc = _pibench("headless", "--scenario", scenario, "--seed", str(seed), stdin=BASELINE_SCRIPT.read_text())
    assert proc.returncode == 0, proc.stderr
    impact = float(proc.stdout.split("Impact          ")[1].split()[0])
    digest = proc.stdout.split("state digest    ")[1].split()[0]
    return impact, digest


def test_scripted_baseline_replies_equal_the_same_code_piped_through_headless(out):
    """The baseline written as replies (one per month) reaches the same Impact and world
    digest as examples/agents/baseline.py piped through `pibench headless` (30 months),
    and `pibench replay` confirms the run."""

    def brain(req, i):
        return Reply(baseline_reply())

    with FakeLLM(brain) as srv:
        res = play(srv, out, scenario="mid-30", seed=101)
    impact, digest = _headless_digest("mid-30", 101)
    assert res["impact"]["total"] == impact and impact > 0
    assert res["digest"] == digest
    assert res["publications"] > 0 and res["integrity"]["flags"] == 0
    run = out / "fake" / "mid-30-101"
    assert pibench_main(["replay", str(run)]) == 0
    assert json.loads((run / "result.json").read_text())["valid"] is True
    eval_log = json.loads((run / "eval.json").read_text())
    assert eval_log["axes"]["axes"]["actions_per_month"] > 0


def test_replay_marks_a_tampered_result_invalid(out):
    """A result whose Impact or digest does not match its action log is marked invalid
    (exit status 1); so is an action log cut short."""

    def brain(req, i):
        return Reply("```python\ntime.next_month()\n```")

    with FakeLLM(brain) as srv:
        play(srv, out)
    run = out / "fake" / "short-12-101"
    res = json.loads((run / "result.json").read_text())
    res["impact"]["total"] = 999.0
    (run / "result.json").write_text(json.dumps(res))
    assert pibench_main(["replay", str(out)]) == 1
    assert json.loads((run / "result.json").read_text())["valid"] is False
    res["impact"]["total"] = 0.0
    (run / "result.json").write_text(json.dumps(res))
    lines = (run / "actions.jsonl").read_text().splitlines()
    (run / "actions.jsonl").write_text("\n".join(lines[:-2]) + "\n")
    assert pibench_main(["replay", str(run)]) == 1
    assert "stops in month" in json.loads((run / "result.json").read_text())["replay"]["message"]


def _agent_cmd(out: Path, *extra: str) -> list[str]:
    return [
        "agent",
        "--model",
        "scripted",
        "--command",
        f"{sys.executable} {PI_SCRIPT}",
        "--scenario",
        "mid-30",
        "--seeds",
        "101",
        "--out",
        str(out),
        *extra,
    ]


@pytest.mark.slow
def test_a_killed_run_resumes_at_the_last_completed_month_and_equals_an_uninterrupted_one(tmp_path):
    """`pibench agent` killed (SIGKILL) mid-career and started again with the same command
    resumes at the last completed month, says what was lost, and ends with the same
    Impact, digest and action log as a run never interrupted."""
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    proc = _pibench(*_agent_cmd(whole))
    assert proc.returncode == 0, proc.stderr
    run_k = killed / "scripted" / "mid-30-101"
    # The scripted PI answers six months, then never again (until killed): the career cannot
    # end before the kill however the machine schedules this poller.
    hold = {"SCRIPTED_PI_HOLD_AFTER": "6", "SCRIPTED_PI_CALLS": str(tmp_path / "calls")}
    child = subprocess.Popen(
        [sys.executable, "-m", "pibench_tui", *_agent_cmd(killed)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, **hold},
    )
    deadline = time.monotonic() + 120  # a cap, not a timing
    while time.monotonic() < deadline:
        if len(read_jsonl(run_k / "months.jsonl")) >= 5 and any(
            e["event"] == "llm" and e["month"] == 6 for e in read_jsonl(run_k / "transcript.jsonl")
        ):
            break
        time.sleep(0.02)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    assert not (run_k / "result.json").exists()
    proc = _pibench(*_agent_cmd(killed))
    assert proc.returncode == 0, proc.stderr
    assert "resuming at month" in proc.stderr and "Python variables" in proc.stderr
    a = json.loads((whole / "scripted" / "mid-30-101" / "result.json").read_text())
    b = json.loads((run_k / "result.json").read_text())
    assert (b["impact"], b["digest"]) == (a["impact"], a["digest"])
    assert (run_k / "actions.jsonl").read_text() == (whole / "scripted" / "mid-30-101" / "actions.jsonl").read_text()
    assert [m["month"] for m in read_jsonl(run_k / "months.jsonl")] == list(range(1, 31))
    assert b["resumes"] and b["resumes"][0]["month"] >= 6
    assert not (run_k / "checkpoint.json").exists()
    # Run again: complete runs are kept, not replayed.
    proc = _pibench(*_agent_cmd(killed))
    assert proc.returncode == 0 and "already complete" in proc.stderr


def test_resume_refuses_other_settings(tmp_path):
    """A run directory holding a run with other settings is never mixed with a new one."""
    out = tmp_path / "runs"
    bad_cmd = f"{sys.executable} -c 'import sys; sys.exit(3)'"
    rc = pibench_main(
        [
            "agent",
            "--model",
            "m",
            "--command",
            bad_cmd,
            "--scenario",
            "short-12",
            "--out",
            str(out),
            "--retries",
            "0",
            "--no-endpoint-check",
        ]
    )
    assert rc == 1  # every call failed; the career auto-advanced to its end (and the command says so)
    res = json.loads((out / "m" / "short-12-101" / "result.json").read_text())
    assert res["llm"]["failed_calls"] == 8 and res["llm"]["errors"][0]["kind"] == "command_failed"
    (out / "m" / "short-12-101" / "result.json").unlink()
    (out / "m" / "short-12-101" / "checkpoint.json").write_text(
        json.dumps({"format": "pibench-agent-checkpoint/2", "settings": {"max_turns": 3}})
    )
    rc = pibench_main(["agent", "--model", "m", "--command", bad_cmd, "--scenario", "short-12", "--out", str(out)])
    assert rc == 1


def test_another_block_timeout_is_refused_by_its_name_and_both_values(tmp_path):
    """QA7 F15: a run of --block-timeout 20 met by one of 30 (resuming an unfinished career,
    reusing a finished one) was refused as "prompt_sha256: '<hash>' there, '<hash>' now"; now
    the refusal names the block time-out and both values, and no prompt hash."""
    import threading

    from pibench_tui.harness.backends import OpenAIBackend
    from pibench_tui.harness.loop import CareerInterrupted, RunConflict, run_career
    from tests.harness.conftest import fast_policy, settings_for

    stop = threading.Event()

    def month(done: int, _months: int) -> None:
        if done >= 1:
            stop.set()

    with FakeLLM(lambda req, i: Reply("```python\ntime.next_month()\n```")) as srv:

        def career(block: float, out: Path, **kw) -> dict:
            backend = OpenAIBackend("fake", base_url=srv.base_url, api_key_env="X_NO_KEY", policy=fast_policy())
            return run_career(settings_for(block_timeout=block), backend, 101, out, log=lambda _t: None, **kw)

        for out, finished in ((tmp_path / "unfinished", False), (tmp_path / "finished", True)):
            if finished:
                career(20.0, out)
            else:
                with pytest.raises(CareerInterrupted):
                    career(20.0, out, stop=stop, on_month=month)
            with pytest.raises(RunConflict) as refused:
                career(30.0, out)
            said = str(refused.value)
            assert "block timeout: 20 s there, 30 s now (--block-timeout)" in said, said
            assert "prompt_sha256" not in said and "system prompt" not in said, said


@pytest.mark.slow
def test_jobs_play_careers_concurrently_with_identical_results(out):
    """--jobs 2 over two seeds (one server, concurrent requests) gives the same results as
    one career at a time."""
    from pibench_tui.harness.backends import OpenAIBackend
    from pibench_tui.harness.loop import run_careers
    from tests.harness.conftest import fast_policy, settings_for

    s = settings_for("short-12", model="fake")
    with FakeLLM(lambda req, i: Reply(baseline_reply())) as srv:

        def mk():
            return OpenAIBackend("fake", base_url=srv.base_url, api_key_env="PIBENCH_TEST_NO_KEY", policy=fast_policy())

        serial = run_careers(s, mk, [101, 102], out / "serial", log=lambda _t: None)
        parallel = run_careers(s, mk, [101, 102], out / "parallel", jobs=2, log=lambda _t: None)
    assert all(isinstance(r, dict) for r in serial + parallel), serial + parallel
    assert [r["digest"] for r in serial] == [r["digest"] for r in parallel]
    assert serial[0]["digest"] != serial[1]["digest"]


def test_cli_usage_errors(tmp_path, monkeypatch, capsys):
    """Two backends at once is a usage error; a missing key without --base-url names the
    variable to set."""
    assert pibench_main(["agent", "--model", "m", "--command", "x", "--base-url", "http://h/v1"]) == 2
    monkeypatch.delenv("PIBENCH_TEST_KEY", raising=False)
    assert pibench_main(["agent", "--model", "m", "--api-key-env", "PIBENCH_TEST_KEY", "--out", str(tmp_path)]) == 1
    assert "PIBENCH_TEST_KEY" in capsys.readouterr().err
    assert pibench_main(["agent", "--model", "m", "--max-turns", "0"]) == 2


def test_cli_with_an_openai_compatible_endpoint(tmp_path, capsys):
    """`pibench agent --base-url URL` plays through the openai client (no key needed for a
    local server) and prints the per-seed table; the label defaults to the model name plus
    -no-memory for the ablation."""

    def brain(req, i):
        assert req["model"] == "local-model" and req["temperature"] == 0.7 and req["max_tokens"] == 123
        return Reply("```python\ntime.next_month()\n```")

    with FakeLLM(brain) as srv:
        rc = pibench_main(
            [
                "agent",
                "--model",
                "local-model",
                "--base-url",
                srv.base_url,
                "--api-key-env",
                "PIBENCH_NO_SUCH_KEY",
                "--scenario",
                "short-12",
                "--seeds",
                "101,102",
                "--out",
                str(tmp_path),
                "--temperature",
                "0.7",
                "--max-tokens",
                "123",
                "--no-memory",
            ]
        )
    assert rc == 0
    out = capsys.readouterr().out
    assert "101" in out and "102" in out and "horizon" in out
    res = json.loads((tmp_path / "local-model-no-memory" / "short-12-102" / "result.json").read_text())
    assert res["harness"]["memory"] is False and res["harness"]["backend"]["base_url"] == srv.base_url
    # the endpoint check (one tiny request, same options) then two careers of 12 calls
    assert srv.requests[0]["messages"] == [{"role": "user", "content": "Reply with the single word OK."}]
    assert res["llm"]["calls"] == 12 and len(srv.requests) == 25


def test_replay_marks_a_foreign_line_in_the_action_log_invalid(out):
    """A completed run's action log is read strictly: a line that is not JSON appended
    after a log that replays in full makes the run invalid (it was accepted before), and
    the verdict names the line and is written back into result.json."""

    def brain(req, i):
        return Reply("```python\ntime.next_month()\n```")

    with FakeLLM(brain) as srv:
        play(srv, out)
    run = out / "fake" / "short-12-101"
    assert pibench_main(["replay", str(run)]) == 0
    n = len((run / "actions.jsonl").read_text().splitlines())
    with open(run / "actions.jsonl", "a", encoding="utf-8") as fh:
        fh.write("not json\n")
    assert pibench_main(["replay", str(run)]) == 1
    verdict = json.loads((run / "result.json").read_text())
    assert verdict["valid"] is False
    assert f"line {n + 1} is not JSON" in verdict["replay"]["message"]


def test_cli_says_when_the_llm_never_answered(tmp_path, capsys):
    """An endpoint that refuses every call (here a port nobody listens on: a mistyped
    --base-url) is caught by the endpoint check before any career starts (exit 1, no run
    directory). With --no-endpoint-check it still gives a recorded, auto-advanced career
    (the §16 contract), but the command exits 1 and says the LLM never answered and how to
    play the career again (--redo-failed); its row in the per-seed table shows no Impact."""
    args = ["agent", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--scenario", "short-12"]
    args += ["--seeds", "101", "--out", str(tmp_path), "--retries", "0"]
    assert pibench_main(args) == 1
    err = capsys.readouterr().err
    assert "the endpoint check failed, no career was started: connection" in err
    assert not (tmp_path / "m").exists()
    rc = pibench_main([*args, "--no-endpoint-check"])
    assert rc == 1
    out, err = capsys.readouterr()
    assert "the LLM never answered (8 failed calls" in err and "--redo-failed" in err
    # QA7 F3: the per-seed table said "0.0 horizon" (the auto-advanced world's), as if a figure
    (row,) = [line for line in out.splitlines() if line.split()[:1] == ["101"]]
    assert row.split()[1:4] == ["—", "no", "answer"] and "horizon" not in row, out
    assert "no Impact: the LLM never answered" in err and "Impact 0.0" not in err, err
    assert (tmp_path / "m" / "short-12-101" / "result.json").is_file()
    # QA7 F4: the report's row for that label said "failed calls 0" beside n = 0; the failed
    # calls of careers not counted are counted too.
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.load import load_careers

    (row,) = [r for r in build_report(load_careers([str(tmp_path)]))["leaderboard"] if r["label"] == "m"]
    assert row["n"] == 0 and row["llm_failed_calls"] == 8 and row["llm_failed_runs"] == 1


def test_a_refused_never_answered_career_of_other_settings_names_redo_failed(tmp_path, capsys):
    """QA7 F2: a career played at a mistyped --base-url (never answered) and the same command at
    the right one: the finished career is refused as one of other settings (the endpoint), and
    the refusal names --redo-failed and what it does; with it the career is played again."""
    args = ["agent", "--model", "m", "--scenario", "short-12", "--seeds", "101", "--out", str(tmp_path)]
    args += ["--retries", "0"]
    assert pibench_main([*args, "--base-url", "http://127.0.0.1:9/v1", "--no-endpoint-check"]) == 1
    capsys.readouterr()
    with FakeLLM(lambda req, i: Reply("```python\ntime.next_month()\n```")) as srv:
        assert pibench_main([*args, "--base-url", srv.base_url]) == 1
        err = " ".join(capsys.readouterr().err.split())
        assert "holds a finished career played with other settings (endpoint:" in err, err
        assert "the LLM never answered in it: run the same command with --redo-failed to play it again" in err, err
        assert "abandoned-N.result.json" in err, err
        assert pibench_main([*args, "--base-url", srv.base_url, "--redo-failed"]) == 0
    res = json.loads((tmp_path / "m" / "short-12-101" / "result.json").read_text())
    assert res["llm"]["failed_calls"] == 0 and (tmp_path / "m" / "short-12-101" / "abandoned-1.result.json").is_file()


def test_cli_says_to_check_the_command_when_a_command_never_answered(tmp_path, capsys):
    """With --command, a program that fails every call is named as what to check (not an
    endpoint's --base-url, --model and key, which a command backend does not use)."""
    agent = tmp_path / "broken.py"
    agent.write_text("import sys\nsys.exit(3)\n")
    rc = pibench_main(
        [
            "agent",
            "--model",
            "m",
            "--command",
            f"{sys.executable} {agent}",
            "--scenario",
            "short-12",
            "--seeds",
            "101",
            "--out",
            str(tmp_path / "runs"),
            "--retries",
            "0",
            "--no-endpoint-check",
        ]
    )
    assert rc == 1
    err = capsys.readouterr().err
    assert "the LLM never answered (8 failed calls" in err
    assert "check the --command program" in err and "--base-url" not in err


def test_a_command_that_cannot_run_fails_before_any_career(tmp_path, capsys):
    """A --command whose program does not exist (a typo) is refused at start (exit 1, the
    program named) instead of playing every career without a model and recording run
    directories that must then be deleted by hand."""
    out = tmp_path / "runs"
    rc = pibench_main(
        [
            "agent",
            "--model",
            "m",
            "--command",
            f"{tmp_path / 'no-such-agent'} --flag",
            "--scenario",
            "short-12",
            "--out",
            str(out),
        ]
    )
    assert rc == 1
    err = capsys.readouterr().err
    assert "no-such-agent" in err and "cannot run" in err
    assert not out.exists() or not any(out.rglob("result.json"))


def test_a_huge_reply_is_kept_in_the_transcript_as_its_start_length_and_hash(tmp_path):
    """A reply (and the code in it) longer than MAX_TRANSCRIPT_TEXT characters is kept in
    transcript.jsonl as its start plus the whole length and SHA-256, so a model that replies
    megabytes cannot grow a run directory without bound; the code itself still ran whole."""
    from pibench_tui.harness.loop import MAX_TRANSCRIPT_TEXT

    comment = "#" + "x" * (MAX_TRANSCRIPT_TEXT + 5_000)
    reply = f"```python\n{comment}\nprint('ran')\n_ = time.next_month()\n```"
    agent = tmp_path / "huge.py"
    agent.write_text(f"import sys\nsys.stdin.read()\nsys.stdout.write({reply!r})\n")
    out = tmp_path / "runs"
    rc = pibench_main(
        ["agent", "--model", "huge", "--command", f"{sys.executable} {agent}", "--scenario", "short-12"]
        + ["--out", str(out)]
    )
    assert rc == 0
    run = out / "huge" / "short-12-101"
    events = read_jsonl(run / "transcript.jsonl")
    llm = [e for e in events if e["event"] == "llm"]
    blocks = [e for e in events if e["event"] == "block"]
    assert len(llm) == 12 and len(blocks) == 12
    assert llm[0]["reply"] == reply[:MAX_TRANSCRIPT_TEXT] and llm[0]["reply_chars"] == len(reply)
    assert llm[0]["reply_sha256"] == hashlib.sha256(reply.encode()).hexdigest()
    code = reply.removeprefix("```python\n").removesuffix("```")
    assert blocks[0]["code_chars"] in (len(code), len(code.rstrip("\n")))
    assert len(blocks[0]["code"]) == MAX_TRANSCRIPT_TEXT and blocks[0]["output"] == "ran\n"
    assert (run / "transcript.jsonl").stat().st_size < 40 * MAX_TRANSCRIPT_TEXT
