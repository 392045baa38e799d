"""Replies without a usable token count (QA pass 6 F5): a provider (or ``--command`` backend)
that sends no ``usage`` left tokens 0 and ``$0.00`` per career in `pibench agent`'s summary
and in `pibench report`, with no mark, although result.json records ``calls_without_usage``.
Now such counts are ``unknown`` (no call has one) or a lower bound marked ``≥`` (some
calls have one), never a confident 0."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from pibench_tui.cli.command import main as pibench_main
from tests.headless.conftest import pibench_command

#: A ``--command`` backend: no usage at all, or (``$USAGE_EVERY_OTHER`` set) a usage on every
#: other call (it counts its calls in ``$USAGE_CALLS``).
NO_USAGE = r"""#!/usr/bin/python3
import json, os, sys
json.load(sys.stdin)
calls = os.environ["USAGE_CALLS"]
n = len(open(calls).read()) if os.path.exists(calls) else 0
open(calls, "a").write("x")
reply = {"content": "```python\ntime.next_month()\n```"}
if os.environ.get("USAGE_EVERY_OTHER") and n % 2 == 0:
    reply["usage"] = {"prompt_tokens": 1000, "completion_tokens": 50}
sys.stdout.write(json.dumps(reply))
"""


def _agent(tmp_path: Path, model: str, **env: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "nousage.py"
    script.write_text(NO_USAGE)
    script.chmod(0o755)
    return subprocess.run(
        [*pibench_command(), "agent", "--model", model, "--command", str(script), "--scenario", "short-12"]
        + ["--seeds", "5", "--out", str(tmp_path / "runs"), "--no-endpoint-check", "--price", f"{model}=2,8"],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "USAGE_CALLS": str(tmp_path / f"{model}.calls"), **env},
    )


def test_tokens_and_cost_without_usage_are_unknown_or_a_marked_lower_bound(tmp_path, capsys):
    """`pibench agent` against a backend that never sends usage: the per-seed row and the
    summary say ``unknown`` for tokens and cost and how many calls had no count; one that
    sends usage on every other call: ``≥``. `pibench report --price`: the leaderboard and the
    careers table say ``unknown`` / ``≥``, a note counts the calls, and --json has no cost for
    the unknown row (before: 0 tokens, $0.00)."""
    none = _agent(tmp_path, "nouse")
    assert none.returncode == 0, none.stderr[-2000:]
    summary = " ".join(none.stdout.split())
    assert "tokens per career unknown" in summary and "cost per career unknown" in summary, none.stdout
    assert "returned no token count" in summary, none.stdout
    assert "$0.00" not in summary, none.stdout
    half = _agent(tmp_path, "half", USAGE_EVERY_OTHER="1")
    assert half.returncode == 0, half.stderr[-2000:]
    assert "tokens per career ≥" in " ".join(half.stdout.split()), half.stdout

    out = tmp_path / "report.json"
    capsys.readouterr()
    args = ["report", str(tmp_path / "runs"), "--price", "nouse=2,8", "--price", "half=2,8", "--json", str(out)]
    assert pibench_main(args) == 0
    text = capsys.readouterr().out
    rows = {r["label"]: r for r in json.loads(out.read_text())["leaderboard"]}
    assert rows["nouse"]["tokens_known"] == "none" and rows["nouse"]["cost_per_career"] is None, rows["nouse"]
    assert rows["nouse"]["tokens_per_career"] is None
    assert rows["half"]["tokens_known"] == "partial" and rows["half"]["cost_per_career"] > 0, rows["half"]
    assert rows["nouse"]["calls_without_usage"] == rows["nouse"]["answered_calls"] > 0
    # the leaderboard's $ and tokens cells, and the careers table's tokens and $ cells
    assert sum("unknown unknown" in ln for ln in text.splitlines()) == 2 and "$0.00" not in text, text
    assert sum(ln.count("≥") == 2 and "≥$" in ln for ln in text.splitlines()) == 2, text
    flat = " ".join(text.split())
    assert f"nouse: {rows['nouse']['calls_without_usage']} of" in flat and "tokens and cost unknown" in flat, text
