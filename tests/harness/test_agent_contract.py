"""The §16 contract of `pibench agent`, against a real local chat-completions server
driven through the real openai client (MECHANICS §16, Decisions 11; issue 11)."""

from __future__ import annotations

import json
import re

from pibench_tui.harness.prompt import OUTPUT_LIMIT
from pibench_tui.harness.rundir import read_jsonl
from tests.harness.conftest import fast_policy, play
from tests.harness.fakellm import FakeLLM, Garbage, Reply, Sleep, Status, Trickle
from tests.harness.scripted_pi import fake_usage

MONTHS = 12  # the short-12 scenario


def _month_of(message: str) -> int:
    m = re.match(r"=== Month (\d+) of", message)
    assert m, message[:80]
    return int(m.group(1))


def _run_dir(out, label="fake", scenario="short-12", seed=101):
    return out / label / f"{scenario}-{seed}"


def test_every_month_starts_a_fresh_conversation(out):
    """Each month's first request holds exactly the system prompt and one user message
    (the month message); later requests of the month only add that month's turns."""

    def brain(req, i):
        last = req["messages"][-1]["content"]
        if last.startswith("=== Month"):
            return Reply("```python\nx = lab.dashboard()['month']\nprint('month', x)\n```")
        return Reply("```python\ntime.next_month()\n```")

    with FakeLLM(brain) as srv:
        result = play(srv, out)
    reqs = srv.requests
    assert len(reqs) == 2 * MONTHS
    system = reqs[0]["messages"][0]["content"]
    months_seen = []
    for k, req in enumerate(reqs):
        msgs = req["messages"]
        assert msgs[0] == {"role": "system", "content": system}
        if k % 2 == 0:
            assert len(msgs) == 2
            months_seen.append(_month_of(msgs[1]["content"]))
        else:
            assert len(msgs) == 4
            assert msgs[3]["content"].startswith("OUTPUT (turn 1/8)")
            assert f"month {months_seen[-1]}" in msgs[3]["content"]
    assert months_seen == list(range(1, MONTHS + 1))
    assert req["temperature"] == 0.4 and req["max_tokens"] == 4000
    assert result["months_played"] == MONTHS and result["auto_advances"]["turns_exhausted"] == 0


def test_memory_is_carried_and_no_memory_makes_writes_no_ops(out):
    """Notes written in month m open month m+1; with memory off the notes stay empty and
    the write answers that nothing was saved."""

    def brain(req, i):
        month = _month_of(req["messages"][1]["content"])
        return Reply(f"```python\nprint(write_memory('seen month {month}'))\ntime.next_month()\n```")

    with FakeLLM(brain) as srv:
        play(srv, out)
    firsts = [r["messages"][1]["content"] for r in srv.requests]
    assert "YOUR NOTES: (empty" in firsts[0]
    for m in range(2, MONTHS + 1):
        assert f"seen month {m - 1}" in firsts[m - 1]
    assert (_run_dir(out) / "memory.txt").exists() is False or True  # checkpoint copy removed with it? kept
    with FakeLLM(brain) as srv2:
        res = play(srv2, out, label="fake-nomem", memory=False)
    assert all("YOUR NOTES: (empty" in r["messages"][1]["content"] for r in srv2.requests)
    assert res["memory_final"] == ""
    blocks = [e for e in read_jsonl(_run_dir(out, "fake-nomem") / "transcript.jsonl") if e["event"] == "block"]
    assert "switched off" in blocks[0]["output"]


def test_at_most_max_turns_then_the_month_auto_advances(out):
    """An agent that never ends the month gets exactly --max-turns turns a month, each
    answered with OUTPUT (turn t/N), then the month advances by itself."""

    def brain(req, i):
        return Reply("```python\nprint('still thinking')\n```")

    with FakeLLM(brain) as srv:
        res = play(srv, out, max_turns=3)
    assert len(srv.requests) == 3 * MONTHS
    for k, req in enumerate(srv.requests):
        turn = k % 3
        assert len(req["messages"]) == 2 + 2 * turn
        if turn:
            assert req["messages"][-1]["content"] == f"OUTPUT (turn {turn}/3)\nstill thinking\n"
    assert res["auto_advances"]["turns_exhausted"] == MONTHS
    assert res["turns"] == 3 * MONTHS and res["blocks"] == 3 * MONTHS
    log = json.loads((_run_dir(out) / "actions.jsonl").read_text().splitlines()[0])
    assert log == [1, "time.next_month", {}]


def test_a_reply_without_code_uses_a_turn_and_gets_a_nudge(out):
    """Prose-only replies (and other tags) run nothing, cost a turn and are nudged; an
    unclosed block is named as such."""

    def brain(req, i):
        if i % 2 == 0:
            return Reply('Let me think.\n```json\n{"plan": 1}\n```')
        return Reply("```python\nprint('cut off'")

    with FakeLLM(brain) as srv:
        res = play(srv, out, max_turns=2)
    assert res["nudges"] == 2 * MONTHS and res["blocks"] == 0
    second = srv.requests[1]["messages"][-1]["content"]
    assert second.startswith("OUTPUT (turn 1/2)\nNo code: your reply had no ```python code block")
    events = [e for e in read_jsonl(_run_dir(out) / "transcript.jsonl") if e["event"] == "nudge"]
    assert [e["unclosed"] for e in events[:2]] == [False, True]


def test_long_output_is_cut_at_6000_characters_with_a_marker(out):
    """A block printing 50,000 characters comes back cut to the limit with a marker, and
    the flood is recorded in integrity.json; a very long reply still has its code run."""
    padding = "words " * 40_000

    def brain(req, i):
        if req["messages"][-1]["content"].startswith("=== Month"):
            return Reply(padding + "\n```python\nprint('x' * 50_000)\n```")
        return Reply("```python\ntime.next_month()\n```")

    with FakeLLM(brain) as srv:
        res = play(srv, out)
    shown = srv.requests[1]["messages"][-1]["content"]
    body = shown.split("\n", 1)[1]
    assert "characters" in body and "cut" in body
    assert body.count("x") <= OUTPUT_LIMIT
    assert len(body) < OUTPUT_LIMIT + 300
    integrity = json.loads((_run_dir(out) / "integrity.json").read_text())
    assert integrity["by_kind"]["output_flood"] == MONTHS and integrity["flagged"]
    assert res["integrity"]["flagged"]


def test_a_cut_output_keeps_its_last_lines_behind_one_notice(out):
    """A block printing 400 lines and an end marker (about 12,000 characters) shows the head,
    one cut notice and the tail up to its last line (found by a new-user tester: the
    sandbox's head+notice+tail was cut again at 6,000, losing the last lines behind a second
    notice that disagreed with the first)."""

    def brain(req, i):
        if req["messages"][-1]["content"].startswith("=== Month"):
            return Reply("```python\nfor i in range(400):\n    print('line', i, 'y' * 20)\nprint('THE-END')\n```")
        return Reply("```python\ntime.next_month()\n```")

    with FakeLLM(brain) as srv:
        play(srv, out)
    body = srv.requests[1]["messages"][-1]["content"].split("\n", 1)[1]
    assert body.rstrip().endswith("line 399 yyyyyyyyyyyyyyyyyyyy\nTHE-END"), body[-200:]
    assert body.count("cut") == 1 and body.startswith("line 0 ")


def test_output_within_the_limit_is_shown_whole_beside_its_error(out):
    """A block printing 5,990 characters (within the 6,000 the sandbox keeps) and then
    raising shows all its output, then the error, with no cut notice: the sandbox's head and
    tail cut is the only cut (before, the harness cut the output again to make room for the
    error line, and its notice said output was cut that the sandbox had kept)."""

    def brain(req, i):
        if req["messages"][-1]["content"].startswith("=== Month"):
            return Reply("```python\nprint('q' * 5_990)\nraise ValueError('boom')\n```")
        return Reply("```python\ntime.next_month()\n```")

    with FakeLLM(brain) as srv:
        play(srv, out)
    body = srv.requests[1]["messages"][-1]["content"].split("\n", 1)[1]
    assert "q" * 5_990 in body and "cut" not in body
    assert body.rstrip().endswith("ValueError: boom"), body[-200:]


def test_a_long_print_within_the_headless_cap_is_a_benign_display_cut(out):
    """A block printing 10,000 characters (past the 6,000 shown, within the headless output
    cap) is cut for display and counted as `display_cut`, and does not flag the run
    (issue 26 §2: before, every cut was an `output_flood` that flagged it)."""

    def brain(req, i):
        if req["messages"][-1]["content"].startswith("=== Month"):
            return Reply("```python\nprint('z' * 10_000)\n```")
        return Reply("```python\ntime.next_month()\n```")

    with FakeLLM(brain) as srv:
        res = play(srv, out)
    body = srv.requests[1]["messages"][-1]["content"]
    assert "cut" in body and body.count("z") <= OUTPUT_LIMIT
    integrity = json.loads((_run_dir(out) / "integrity.json").read_text())
    assert integrity["by_kind"] == {"display_cut": MONTHS}
    assert integrity["flags"] == 0 and not integrity["flagged"] and not res["integrity"]["flagged"]
    assert integrity["incidents"][0]["message"].startswith("output cut (")


def test_retries_on_429_500_time_outs_and_unreadable_answers_then_success(out):
    """429 (with Retry-After), 500, a time-out and a 200 answer that is not JSON (a gateway's
    error page) are retried; the call then succeeds and plays the month, so no month is
    lost; the retried errors are recorded in order, and the tokens come from the answered
    call only."""
    # The client gives up after 3 s; the sleeping answer never comes in time (its thread is a
    # daemon: nobody waits for it), and the answered calls have room on a loaded machine.
    plan = [Status(429, retry_after=0), Status(500), Sleep(60.0), Garbage()]

    def brain(req, i):
        if i < len(plan):
            return plan[i]
        return Reply("```python\n_ = time.next_month()\n```")

    with FakeLLM(brain) as srv:
        res = play(srv, out, policy=fast_policy(timeout=3.0))
    assert res["llm"]["failed_calls"] == 0 and res["auto_advances"]["llm_failed"] == 0
    assert res["llm"]["calls"] == MONTHS and res["llm"]["attempts"] == MONTHS + len(plan)
    errors = [(e["kind"], e["retried"]) for e in res["llm"]["errors"]]
    assert errors == [("rate_limit", True), ("server_error", True), ("timeout", True), ("bad_response", True)]
    assert res["months_played"] == MONTHS
    first = read_jsonl(_run_dir(out) / "transcript.jsonl")
    llm = [e for e in first if e["event"] == "llm"]
    assert llm[0]["attempts"] == len(plan) + 1
    assert res["tokens"]["calls_without_usage"] == 0
    assert res["tokens"]["prompt"] == sum(fake_usage(r["messages"])["prompt_tokens"] for r in srv.requests[len(plan) :])


def test_the_request_timeout_bounds_a_whole_answer_that_trickles_in():
    """--request-timeout is the wall-clock limit of one attempt, also when the endpoint keeps
    the connection busy with a byte now and then (a stalled gateway's keep-alives): no
    single read waits long, so a per-read time-out alone let such an answer take as long as
    the endpoint liked (seen: --request-timeout 3, an attempt of 25.6 s). The attempt is
    abandoned as a time-out and retried; the retry is answered."""
    import pytest

    from pibench_tui.harness.backends import LLMCallFailed, OpenAIBackend

    # The first answer trickles for 20 s (a byte every 0.05 s) then completes; the limit is 1 s.
    plan = [Trickle(gap=0.05, seconds=20.0)]

    def brain(req, i):
        return plan[i] if i < len(plan) else Reply("```python\ntime.next_month()\n```")

    with FakeLLM(brain) as srv:
        backend = OpenAIBackend(
            "fake", base_url=srv.base_url, api_key_env="PIBENCH_TEST_NO_KEY", policy=fast_policy(timeout=1.0, retries=0)
        )
        with pytest.raises(LLMCallFailed) as failed:
            backend.complete([{"role": "user", "content": "hi"}])
        assert failed.value.kind == "timeout" and "1 s" in str(failed.value.errors[0]["message"])
        backend.policy = fast_policy(timeout=10.0, retries=0)
        done = backend.complete([{"role": "user", "content": "hi"}])  # a fresh connection answers
        assert "time.next_month()" in done.text and done.attempts == 1
    assert len(srv.requests) == 2


def test_token_sums_per_month_and_career(out):
    """Prompt and completion tokens are summed from the endpoint's usage, per month and
    for the career."""

    def brain(req, i):
        return Reply(
            "```python\nprint(1)\n```" if i % 2 == 0 else "```python\ntime.next_month()\n```",
            usage={"prompt_tokens": 1000 + i, "completion_tokens": 10 + i, "total_tokens": 1010 + 2 * i},
        )

    with FakeLLM(brain) as srv:
        res = play(srv, out)
    n = len(srv.requests)
    assert res["tokens"]["prompt"] == sum(1000 + i for i in range(n))
    assert res["tokens"]["completion"] == sum(10 + i for i in range(n))
    by_month = res["tokens_by_month"]
    assert [m["month"] for m in by_month] == list(range(1, MONTHS + 1))
    assert by_month[0] == {"prompt": 1000 + 1001, "completion": 10 + 11, "calls": 2, "month": 1}
    assert sum(m["prompt"] for m in by_month) == res["tokens"]["prompt"]


def test_a_refused_request_fails_the_call_and_after_8_failures_the_career_auto_advances(out):
    """A non-retryable failure (a 400) ends the month at once; after 8 failed calls the rest
    of the career advances without asking the LLM again."""
    with FakeLLM(lambda req, i: Status(400)) as srv:
        res = play(srv, out)
    assert len(srv.requests) == 8
    assert res["llm"]["failed_calls"] == 8 and res["llm"]["attempts"] == 8
    assert res["auto_advances"] == {"turns_exhausted": 0, "llm_failed": 8, "llm_failures_exhausted": MONTHS - 8}
    assert {e["kind"] for e in res["llm"]["errors"]} == {"bad_request"}
    assert res["months_played"] == MONTHS


def test_a_server_that_dies_mid_run(out):
    """The server dies after month 3: calls fail after their retries (connection refused),
    8 failed calls later the career finishes by auto-advance; nothing is lost before."""
    box = {}

    def brain(req, i):
        month = _month_of(req["messages"][1]["content"])
        if month == 4:
            box["srv"].die()
            return Status(503)
        return Reply(f"```python\nwrite_memory('alive in {month}')\ntime.next_month()\n```")

    srv = FakeLLM(brain)
    box["srv"] = srv
    with srv:
        res = play(srv, out, policy=fast_policy(retries=2))
    assert res["months_played"] == MONTHS
    assert res["llm"]["failed_calls"] == 8
    assert res["memory_final"] == "alive in 3"
    assert {e["kind"] for e in res["llm"]["errors"]} <= {"server_error", "connection"}
    months = read_jsonl(_run_dir(out) / "months.jsonl")
    assert [m["month"] for m in months] == list(range(1, MONTHS + 1))


def test_usage_missing_is_counted_not_invented(out):
    """An endpoint without usage counts the call as without usage (tokens stay 0)."""

    def brain(req, i):
        return Reply("```python\ntime.next_month()\n```", usage={})

    with FakeLLM(brain) as srv:
        res = play(srv, out)
    assert res["tokens"]["total"] == 0 and res["tokens"]["calls_without_usage"] == MONTHS
    assert fake_usage([{"content": "abcd"}])["prompt_tokens"] == 1


def test_integrity_audit_counts_what_the_sandbox_refused(out):
    """Dunder access, a refused import, an endless loop (time-out) and an output flood are
    recorded by kind in integrity.json and flag the run; a NameError and an API refusal
    are counted but do not flag it."""
    hostile = [
        "print(().__class__.__bases__)",
        "import os",
        "while True:\n    pass",
        "print('y' * 30_000)",
        "print(undefined_name)",
        "projects.start('no-such-topic', 2, [])",
    ]

    def brain(req, i):
        turn = (len(req["messages"]) - 2) // 2
        if turn < len(hostile) and _month_of(req["messages"][1]["content"]) == 1:
            return Reply("```python\n" + hostile[turn] + "\n```")
        return Reply("```python\ntime.next_month()\n```")

    with FakeLLM(brain) as srv:
        res = play(srv, out, block_timeout=2.0)  # room for the ordinary blocks on a loaded machine
    integrity = json.loads((_run_dir(out) / "integrity.json").read_text())
    kinds = integrity["by_kind"]
    assert kinds.get("private_or_dunder") == 1 and kinds.get("import_refused") == 1
    assert kinds.get("timeout") == 1 and kinds.get("output_flood") == 1
    assert integrity["python_errors"] == {"NameError": 1}
    assert integrity["api_refusals"] == {"bad_argument": 1}
    assert integrity["flags"] == 4 and res["integrity"]["flagged"]
    assert [i["kind"] for i in integrity["incidents"]] == [
        "private_or_dunder",
        "import_refused",
        "timeout",
        "output_flood",
    ]


def test_a_command_that_prints_without_end_fails_its_attempt_at_the_reply_limit(monkeypatch):
    """--command: a program whose output passes MAX_REPLY_BYTES is stopped and the attempt
    fails, naming the limit; its output was read whole into memory (`yes` for the whole
    request time-out would take gigabytes). A reply under the limit still comes through."""
    import sys

    import pytest

    from pibench_tui.harness import backends
    from pibench_tui.harness.backends import CommandBackend, LLMCallFailed

    monkeypatch.setattr(backends, "MAX_REPLY_BYTES", 1000)
    flood = f"{sys.executable} -c \"import sys; sys.stdin.read(); sys.stdout.write('x' * 5000); sys.stdout.flush()\""
    backend = CommandBackend(flood, policy=fast_policy(retries=0, timeout=60.0))
    with pytest.raises(LLMCallFailed) as failed:
        backend.complete([{"role": "user", "content": "hi"}])
    assert "1,000 bytes" in failed.value.message, failed.value.message
    small = f"{sys.executable} -c \"import sys; sys.stdin.read(); print('```python\\\\ntime.next_month()\\\\n```')\""
    done = CommandBackend(small, policy=fast_policy(retries=0, timeout=60.0)).complete(
        [{"role": "user", "content": "hi"}]
    )
    assert done.text.strip() == "```python\ntime.next_month()\n```"


def test_a_usage_that_is_not_a_count_is_not_a_count(out):
    """Negative, non-numeric, NaN and infinite token counts in a reply's usage (a QA tester's
    --command backend printed completion_tokens -5 and a career recorded -30 tokens) are counted
    as calls without usage: tokens never go below 0 and nothing raises."""
    bad = [
        {"prompt_tokens": "abc", "completion_tokens": -5},
        {"prompt_tokens": -1, "completion_tokens": float("nan")},
        {"prompt_tokens": float("inf"), "completion_tokens": True},
    ]

    def brain(req, i):
        return Reply("```python\ntime.next_month()\n```", usage=bad[i % len(bad)])

    with FakeLLM(brain) as srv:
        res = play(srv, out)
    assert res["tokens"]["total"] == 0
    assert all(v >= 0 for v in res["tokens"].values() if isinstance(v, (int, float)))
    assert res["tokens"]["calls_without_usage"] == MONTHS
