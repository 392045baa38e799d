"""Replies built to end a career (a QA pass on the harness): an answer nested 100,000 deep
and absurd token counts, from a ``--command`` backend and from an endpoint, through the real
``pibench agent`` command. Such an answer is unreadable (retried, then the month advances
without the model, a failed call); a count above ``MAX_REPLY_TOKENS`` is no count."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from pibench_tui.harness.backends import MAX_REPLY_TOKENS, _int_or_none
from pibench_tui.harness.cli import EXIT_LLM_FAILED_PARTWAY
from tests.harness.fakellm import FakeLLM, Garbage, Reply
from tests.headless.conftest import pibench_command

NEXT = "```python\ntime.next_month()\n```"
DEEP = "[" * 100_000 + "]" * 100_000

#: A ``--command`` backend: its first reply carries a usage nested 100,000 deep, every later
#: one a completion count of 10**22 (it counts its calls in ``$HOSTILE_CALLS``).
HOSTILE = r"""#!/usr/bin/python3
import json, os, sys
json.load(sys.stdin)
calls = os.environ["HOSTILE_CALLS"]
n = len(open(calls).read()) if os.path.exists(calls) else 0
open(calls, "a").write("x")
reply = json.dumps("```python\ntime.next_month()\n```")
if n == 0:
    sys.stdout.write('{"content": %s, "usage": %s}' % (reply, "[" * 100000 + "]" * 100000))
else:
    sys.stdout.write('{"content": %s, "usage": {"prompt_tokens": 10, "completion_tokens": 10**22}}'.replace("10**22", str(10**22)) % reply)
"""


def _agent(out: Path, *backend: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*pibench_command(), "agent", "--model", "m", *backend, "--scenario", "short-12", "--seeds", "5"]
        + ["--retries", "0", "--out", str(out), "--no-endpoint-check", "--api-key-env", "PIBENCH_TEST_NO_KEY"],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PIBENCH_TEST_NO_KEY": "", **(env or {})},
    )


def _result(out: Path) -> dict:
    return json.loads((out / "m" / "short-12-5" / "result.json").read_text())


def test_a_command_reply_nested_100000_deep_is_a_failed_call_and_huge_counts_are_no_counts(tmp_path):
    """A ``--command`` reply ``{"content": ..., "usage": [[[...]]]}`` 100,000 deep: before,
    RecursionError ended the career (exit 1, no result.json, the same on every rerun); now
    that call is a failed ``bad_response`` call, the month advances, the career is played
    to its end and recorded (exit 3: failed partway). The later replies' completion count
    of 10**22 is no count: the career's tokens are the prompt counts only (1.2e23 before)."""
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE)
    script.chmod(0o755)
    out = tmp_path / "runs"
    run = _agent(out, "--command", str(script), env={"HOSTILE_CALLS": str(tmp_path / "calls")})
    assert run.returncode == EXIT_LLM_FAILED_PARTWAY, run.stderr[-2000:]
    res = _result(out)
    assert res["months_played"] == 12
    assert res["llm"]["failed_calls"] == 1
    assert res["llm"]["errors"][0]["kind"] == "bad_response"
    assert "nested too deeply" in res["llm"]["errors"][0]["message"]
    answered = res["llm"]["calls"] - 1
    assert answered > 0
    assert res["tokens"]["completion"] == 0 and res["tokens"]["prompt"] == 10 * answered


def test_an_endpoint_answer_nested_100000_deep_is_a_failed_call(tmp_path):
    """An endpoint's first answer is a valid chat completion plus ``"x": [[[...]]]`` 100,000
    deep: before, the openai client's RecursionError ended the career (exit 1, no
    result.json); now it is an unreadable answer (``bad_response``), the month advances
    without the model and the rest of the career is played (exit 3)."""
    completion = {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": NEXT}, "finish_reason": "stop"}],
    }
    nested = json.dumps(completion)[:-1] + ', "x": ' + DEEP + "}"
    out = tmp_path / "runs"
    with FakeLLM(lambda req, i: Garbage(nested) if i == 0 else Reply(NEXT)) as srv:
        run = _agent(out, "--base-url", srv.base_url)
    assert run.returncode == EXIT_LLM_FAILED_PARTWAY, run.stderr[-2000:]
    res = _result(out)
    assert res["months_played"] == 12 and res["llm"]["failed_calls"] == 1
    assert res["llm"]["errors"][0]["kind"] == "bad_response"


def test_a_token_count_is_bounded():
    """A reported count is a count from 0 to ``MAX_REPLY_TOKENS``; above it (10**22, 1e30)
    it is no count, as a negative, NaN or non-number is."""
    assert _int_or_none(MAX_REPLY_TOKENS) == MAX_REPLY_TOKENS
    assert _int_or_none(12_345) == 12_345
    for bad in (MAX_REPLY_TOKENS + 1, 10**22, 10**400, 1e30, -1, float("nan"), float("inf"), "5", True, None):
        assert _int_or_none(bad) is None, bad


HUGE_USAGE = """#!/usr/bin/env python3
import sys
sys.stdin.read()
print('{"content": "```python\\\\ntime.next_month()\\\\n```", "usage": {"prompt_tokens": ' + "9" * 400 + ', "completion_tokens": 5}}')
"""


def test_a_command_reporting_a_400_digit_token_count_does_not_end_the_career(tmp_path):
    """A ``--command`` backend whose usage says ``prompt_tokens`` is a 400-digit integer (valid
    JSON): before, ``math.isfinite`` raised ``OverflowError`` and `pibench agent` ended with a
    traceback and no result; now that count is no count, and the career is played and recorded
    (completion counts kept, prompt tokens 0)."""
    script = tmp_path / "huge.py"
    script.write_text(HUGE_USAGE)
    script.chmod(0o755)
    out = tmp_path / "runs"
    run = _agent(out, "--command", str(script))
    assert run.returncode == 0, run.stderr[-2000:]
    res = _result(out)
    assert res["months_played"] == 12 and res["tokens"]["prompt"] == 0
    assert res["tokens"]["completion"] == 5 * res["llm"]["calls"]


def test_a_reply_whose_content_is_a_list_of_parts_is_read_as_its_text(tmp_path):
    """QA6 F7f: some gateways send ``message.content`` as a list of parts
    (``[{"type": "reasoning", ...}, {"type": "text", "text": ...}]``). Before, the list was
    read as its Python repr: no code block was found and the model was nudged every turn,
    never playing a month. Now the text parts are joined in order (a reasoning part left
    out) and the career is played by the model's code: no nudges, twelve blocks."""
    parts = [
        {"type": "reasoning", "text": "```python\nraise SystemExit('reasoning is not the reply')\n```"},
        {"type": "text", "text": "Plan:\n```python\n"},
        {"type": "text", "text": "time.next_month()\n```"},
    ]
    out = tmp_path / "runs"
    with FakeLLM(lambda req, i: Reply(parts)) as srv:
        run = _agent(out, "--base-url", srv.base_url)
    assert run.returncode == 0, run.stderr[-2000:]
    res = _result(out)
    assert res["months_played"] == 12 and res["nudges"] == 0, res["nudges"]
    assert res["blocks"] == 12 and res["auto_advances"]["turns_exhausted"] == 0
