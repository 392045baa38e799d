"""JSON-lines mode: exactly one reply line per request line, never a crash."""

from __future__ import annotations

import json

REPLY_KEYS = {"ok", "stdout", "error", "truncated", "month", "done", "impact"}


def lines(*codes: str) -> str:
    return "".join(json.dumps({"code": c}) + "\n" for c in codes)


def test_reply_shape_and_values(pibench):
    """Each reply has exactly the documented keys; output, month and impact are right."""
    run = pibench(["headless", "--jsonl", "--seed", "11"], lines("x = 6\nprint(x * 7)", "x", "time.next_month()['month']"))
    assert run.returncode == 0, run.stderr
    replies = run.replies()
    assert len(replies) == 3
    for reply in replies:
        assert set(reply) == REPLY_KEYS
        assert set(reply["impact"]) == {"total", "earned", "projection"}
        assert reply["done"] is False
    assert replies[0] == {**replies[0], "ok": True, "stdout": "42\n", "error": None, "truncated": False, "month": 1}
    assert replies[1]["stdout"] == "6\n"
    assert replies[2]["stdout"] == "2\n" and replies[2]["month"] == 2


def test_replies_are_single_ascii_lines(pibench):
    """Newlines and non-ASCII text in output stay inside one ASCII reply line."""
    run = pibench(["headless", "--jsonl"], lines("print('a\\nb\\u2028c é')"))
    assert run.stdout.count("\n") == 1
    assert run.stdout.isascii()
    assert run.replies()[0]["stdout"] == "a\nb\u2028c é\n"


def test_bad_lines_get_ok_false_not_a_crash(pibench):
    """Invalid JSON, a non-object, a missing or non-string code: ok false, ProtocolError;
    blank lines are ignored; the session goes on."""
    stdin = 'not json\n[1, 2]\n{"nocode": 1}\n{"code": 5}\n\n   \n{"code": "1 + 1"}\n{"code": "import os"}\n'
    run = pibench(["headless", "--jsonl"], stdin)
    assert run.returncode == 0
    replies = run.replies()
    assert len(replies) == 6
    for reply in replies[:4]:
        assert reply["ok"] is False
        assert reply["error"]["type"] == "ProtocolError"
        assert set(reply) == REPLY_KEYS
    assert replies[4]["ok"] is True and replies[4]["stdout"] == "2\n"
    assert replies[5]["ok"] is False and replies[5]["error"]["type"] == "SandboxError"


def test_error_reports_type_message_and_line(pibench):
    """An exception in agent code: type, message and the line within the block."""
    run = pibench(["headless", "--jsonl"], lines("a = 1\nb = 0\nprint('before')\nc = a / b\nprint('never')"))
    reply = run.replies()[0]
    assert reply["ok"] is False
    assert reply["stdout"] == "before\n"
    assert reply["error"] == {"type": "ZeroDivisionError", "message": "division by zero", "line": 4}


def test_variables_persist_between_blocks(pibench):
    """Globals, functions and classes persist between blocks within a career."""
    run = pibench(
        ["headless", "--jsonl"],
        lines("def double(n):\n    return 2 * n", "class Box:\n    def __init__(self):\n        self.v = 4", "double(Box().v)"),
    )
    assert run.replies()[-1]["stdout"] == "8\n"


def test_done_after_the_horizon(pibench):
    """done turns true at the horizon; month stays at the last month."""
    run = pibench(["headless", "--jsonl", "--scenario", "short-12"], lines("for _ in range(12):\n    time.next_month()", "time.next_month()"))
    first, second = run.replies()
    assert first["ok"] and first["done"] and first["month"] == 12
    assert second["ok"] is False and second["error"]["type"] == "ActionError"
    assert "simulation is over" in second["error"]["message"]


def test_overlong_line_is_refused(pibench):
    """A request line longer than the limit gets ok false; the next line still runs."""
    big = json.dumps({"code": "x = '" + "a" * 2_100_000 + "'"})
    run = pibench(["headless", "--jsonl"], big + "\n" + json.dumps({"code": "'next'"}) + "\n")
    first, second = run.replies()
    assert first["ok"] is False and first["error"]["type"] == "ProtocolError"
    assert second["stdout"] == "'next'\n"


def test_memory_notes(pibench):
    """memory.read/write and read_memory/write_memory; notes are cut to 6,000 characters
    with a notice."""
    run = pibench(
        ["headless", "--jsonl"],
        lines(
            "memory.read()",
            "write_memory('plan: hire in month 1')",
            "read_memory()",
            "r = memory.write('x' * 7000)\nprint(r['chars'], r['note'])",
            "len(memory.read())",
        ),
    )
    out = [r["stdout"] for r in run.replies()]
    assert out[0] == "''\n"
    assert out[2] == "'plan: hire in month 1'\n"
    assert out[3].startswith("6000 cut to 6000")
    assert out[4] == "6000\n"


def test_error_line_points_into_agent_code_not_library_code(pibench):
    """An error raised inside library code (a namedtuple's generated constructor) or inside
    an agent function defined in an earlier block points at the agent's own line."""
    run = pibench(
        ["headless", "--jsonl"],
        lines(
            "from collections import namedtuple\nP = namedtuple('P', 'x y')\n\nP(1)",
            "def f():\n    return {}['missing']",
            "f()",
        ),
    )
    first, _, third = run.replies()
    assert first["error"]["type"] == "TypeError" and first["error"]["line"] == 4
    assert third["error"] == {"type": "KeyError", "message": "'missing'", "line": 2}
