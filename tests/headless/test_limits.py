"""OS-enforced limits: wall clock per block, memory, output cap (kept while printing)."""

from __future__ import annotations

import json


def lines(*codes: str) -> str:
    return "".join(json.dumps({"code": c}) + "\n" for c in codes)


def test_an_infinite_loop_and_memory_bombs_are_stopped_and_the_career_continues(pibench):
    """One JSON-lines session (block time-out 3 s, memory limit 256 MiB):

    - a block over the wall-clock limit is stopped; the agent process is restarted (the
      reply says variables are gone); API calls completed before the kill are kept (the
      limit leaves the block's two month closes room on a loaded machine);
    - allocations past the memory limit fail inside the agent process (one huge string at
      once, or growth block by block); the career goes on."""
    run = pibench(
        ["headless", "--jsonl", "--block-timeout", "3", "--memory-limit", "256"],
        lines(
            "kept = 'yes'",
            "time.next_month()\ntime.next_month()\nwhile True:\n    pass",
            "kept",
            "lab.dashboard()['month']",
            "x = 'a' * (2 ** 40)",
            "blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 2 ** 20))",
            "blocks = None\n'alive'",
        ),
    )
    before, stopped, lost, after, first, second, third = run.replies()
    assert before["ok"]
    assert stopped["ok"] is False
    assert stopped["error"]["type"] == "BlockTimeout"
    assert "restarted" in stopped["error"]["message"] and "2 API calls" in stopped["error"]["message"]
    assert stopped["month"] == 3
    assert lost["error"]["type"] == "NameError"
    assert after["stdout"] == "3\n"
    assert first["error"]["type"] == "MemoryError", first
    assert second["error"]["type"] in ("MemoryError", "AgentProcessDied"), second
    assert third["ok"] or third["error"]["type"] == "NameError", third
    assert run.end()["report"]["month"] == 3, "the career went on"


def test_infinite_loop_of_api_calls_is_stopped(pibench):
    """A loop that keeps calling the API (and swallows every exception) is stopped too."""
    run = pibench(
        ["headless", "--block-timeout", "1"],
        "while True:\n    try:\n        lab.dashboard()\n    except:\n        pass\nprint('next statement runs')\n",
    )
    assert run.returncode == 0
    assert run.errors()[0].startswith("pibench error on line 1: BlockTimeout:")
    assert "next statement runs" in run.stdout


def test_output_flood_keeps_head_and_tail(pibench):
    """Output past the cap keeps the head and the tail and says how much was cut."""
    run = pibench(
        ["headless", "--jsonl", "--max-output", "1000"],
        lines("for i in range(100000):\n    print('line', i)"),
    )
    reply = run.replies()[0]
    assert reply["ok"] and reply["truncated"]
    out = reply["stdout"]
    assert out.startswith("line 0\nline 1\n")
    assert out.endswith("line 99999\n")
    assert "characters of output cut here" in out
    assert len(out) < 1200
    total = sum(len(f"line {i}\n") for i in range(100000))
    assert f"{total - 1000:,} characters" in out


def test_a_hang_and_an_endless_print_loop_are_stopped_with_their_output_kept(pibench):
    """One JSON-lines session (block time-out 1 s, output cap 2,000):

    - what a block printed before it hung still shows up (the agent process flushes output
      every 0.1 s), with the timeout error;
    - an endless print loop is stopped by the clock; its output stays within the cap; the
      next block runs."""
    run = pibench(
        ["headless", "--jsonl", "--block-timeout", "1", "--max-output", "2000"],
        lines("print('progress so far')\nwhile True:\n    pass", "while True:\n    print('x' * 1000)", "'after'"),
    )
    hang, flood, after = run.replies()
    assert hang["stdout"] == "progress so far\n"
    assert hang["error"]["type"] == "BlockTimeout"
    assert flood["error"]["type"] == "BlockTimeout"
    assert flood["truncated"]
    assert len(flood["stdout"]) < 2500
    assert after["stdout"] == "'after'\n"


def test_a_huge_print_runaway_recursion_and_system_exit_leave_the_session_going(pibench):
    """One console session (default output cap 20,000):

    - one 50 MB print is cut to the cap, and the next statement prints;
    - runaway recursion raises RecursionError in agent code (its line named); the career
      goes on;
    - SystemExit and KeyboardInterrupt raised by agent code are just errors; the session
      ends normally (status 0)."""
    script = (
        "print('y' * 50_000_000)\nprint('done')\n"  # lines 1-2
        "def f(n):\n    return f(n + 1)\nf(0)\nprint('fine')\n"  # lines 3-6
        "raise SystemExit(3)\nraise KeyboardInterrupt\nprint('still here')\n"  # lines 7-9
    )
    run = pibench(["headless"], script)
    assert run.returncode == 0
    assert "characters of output cut here" in run.stdout
    assert len(run.stdout) < 22_000 + 2_000
    assert "\ndone\n" in run.stdout
    errors = run.errors()
    assert errors[0].startswith("Error on line 4: RecursionError")
    assert "fine" in run.stdout
    assert errors[1] == "Error on line 7: SystemExit: 3"
    assert errors[2].startswith("Error on line 8: KeyboardInterrupt")
    assert "still here" in run.stdout


def test_an_exception_with_a_huge_message_or_name_is_an_ordinary_error(pibench):
    """An exception whose message (or class name) is bigger than a protocol message (16 MB)
    is reported as that exception, its message cut as any error message is, and the agent
    process keeps its variables: it used to be "the agent process broke the sandbox protocol
    (message too large)" with a restart, which `pibench agent` counts as a protocol anomaly
    that flags the run."""
    run = pibench(
        ["headless", "--jsonl"],
        lines(
            "kept = 'yes'",
            "raise ValueError('a' * 20_000_000)",
            "raise type('E' * 20_000_000, (Exception,), {})('short')",
            "kept",
        ),
    )
    _, message, name, after = run.replies()
    assert message["error"]["type"] == "ValueError" and message["error"]["source"] == "agent", message["error"]
    assert set(message["error"]["message"]) == {"a"} and 1_000 < len(message["error"]["message"]) <= 20_000
    assert set(name["error"]["type"]) == {"E"} and name["error"]["message"] == "short", name["error"]["message"]
    assert after["ok"] and after["stdout"] == "'yes'\n", after


def test_os_limits_hold_even_after_an_escape():
    """The agent process's OS limits do not depend on the policy check: once applied, a
    process cannot open any file and cannot allocate past the address-space limit."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from pibench_tui.sandbox.confine import _rlimits\n"
        "assert _rlimits(256 << 20, 3) == []\n"
        "try:\n"
        "    open(sys.executable, 'rb')\n"
        "    print('OPENED')\n"
        "except OSError as exc:\n"
        "    print('OPEN REFUSED', exc.errno)\n"
        "try:\n"
        "    bytearray(512 << 20)\n"
        "    print('ALLOCATED')\n"
        "except MemoryError:\n"
        "    print('MEMORY REFUSED')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert "OPEN REFUSED" in proc.stdout, proc.stdout + proc.stderr
    assert "MEMORY REFUSED" in proc.stdout or sys.platform == "darwin"
