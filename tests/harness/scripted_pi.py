"""Scripted PIs for the harness tests: replies an LLM could give, chosen by rule.

Run as a script it is a ``--command`` backend: it reads the chat request (JSON) on stdin
and prints the reply of the PI named in ``$SCRIPTED_PI`` (default ``baseline``) as
``{"content", "usage"}`` JSON. With ``$SCRIPTED_PI_HOLD_AFTER`` (a number N) and
``$SCRIPTED_PI_CALLS`` (a file it counts its calls in), calls after the N-th never answer (they
wait to be killed): a career played with it stops at month N + 1, for a test to kill it there.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASELINE_SCRIPT = ROOT / "examples" / "agents" / "baseline.py"


def baseline_definitions() -> str:
    """The baseline agent script's definitions (everything before its main loop)."""
    text = BASELINE_SCRIPT.read_text(encoding="utf-8")
    cut = text.index("\nresult = lab.dashboard()")
    return text[:cut] + "\n"


def baseline_reply() -> str:
    """One month of the baseline (MECHANICS §17), as a reply with one code block."""
    return (
        "I will follow my usual monthly routine.\n\n```python\n"
        + baseline_definitions()
        + "_r = play_month()\nprint('closed month', _r.get('month'))\n```\n"
    )


def fake_usage(messages: list[dict]) -> dict:
    """Deterministic token counts: characters / 4 of the prompt, and a fixed completion."""
    prompt = sum(len(m.get("content", "")) for m in messages) // 4
    return {"prompt_tokens": prompt, "completion_tokens": 100, "total_tokens": prompt + 100}


def last_user(messages: list[dict]) -> str:
    """The content of the last user message."""
    for m in reversed(messages):
        if m.get("role") == "user":
            return m.get("content", "")
    return ""


def reply_for(name: str, messages: list[dict]) -> str:
    """The reply of the scripted PI ``name`` to ``messages``."""
    if name == "baseline":
        return baseline_reply()
    if name == "idle":
        return "```python\ntime.next_month()\n```"
    if name == "silent":
        return "I am thinking about the lab."
    raise ValueError(f"unknown scripted PI {name!r}")


def main() -> int:
    request = json.loads(sys.stdin.read())
    hold_after = os.environ.get("SCRIPTED_PI_HOLD_AFTER")
    if hold_after is not None:
        calls = Path(os.environ["SCRIPTED_PI_CALLS"])
        with calls.open("a") as f:
            f.write("call\n")
        if len(calls.read_text().splitlines()) > int(hold_after):
            time.sleep(3600)  # killed long before
    name = os.environ.get("SCRIPTED_PI", "baseline")
    messages = request["messages"]
    print(json.dumps({"content": reply_for(name, messages), "usage": fake_usage(messages)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
