"""The baseline as an agent script equals the in-process policy; the random agent is robust;
the oracle cannot run through headless mode (issue 4, issue 3)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest
from policies_helpers import AGENTS, ROOT, run_script

from world.runner import run_career

BASELINE = AGENTS / "baseline.py"
RANDOM = AGENTS / "random_agent.py"


def _headless(script_text: str, seed: int) -> str:
    exe = shutil.which("pibench")
    cmd = [exe] if exe else [sys.executable, "-m", "pibench_tui"]
    proc = subprocess.run(
        [*cmd, "headless", "--seed", str(seed)],
        input=script_text,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("seed", [101, 102, 103])
def test_baseline_script_in_process_equals_policy(seed):
    """Exec'd against an Api-bound namespace, the script's career has the policy's Impact."""
    w = run_script(BASELINE, seed)
    assert w.s.finished
    assert w.summary()["impact"] == run_career("baseline", seed)["impact"]
    assert w.summary() == {**w.summary(), **{}}  # summary is plain data


@pytest.mark.parametrize(
    "seed", [102, pytest.param(101, marks=pytest.mark.slow), pytest.param(103, marks=pytest.mark.slow)]
)
def test_baseline_script_through_headless_equals_policy(seed):
    """The real `pibench headless --seed N < examples/agents/baseline.py` reports the same Impact
    (one whole career in the default suite, three under ``-m slow``; the script equals the
    policy in-process on all three above, and tests/headless/test_cli.py pipes seed 101)."""
    out = _headless(BASELINE.read_text(), seed)
    m = re.search(r"^Impact\s+([0-9.]+) =", out, re.M)
    assert m, out[-2000:]
    assert float(m.group(1)) == run_career("baseline", seed)["impact"]


def test_baseline_script_uses_only_allowed_imports_and_no_private_access():
    """The baseline script imports only plain standard modules and the agent's own names
    (pibench_agent), reads no private attribute and calls no getattr/eval/exec/open."""
    import ast

    tree = ast.parse(BASELINE.read_text())
    for node in ast.walk(tree):
        assert not isinstance(node, (ast.Import, ast.ImportFrom)) or all(
            (isinstance(node, ast.ImportFrom) and node.module == "pibench_agent")
            or a.name
            in (
                "math",
                "statistics",
                "random",
                "json",
                "collections",
                "itertools",
                "functools",
                "re",
                "heapq",
                "bisect",
            )
            for a in node.names
        )
        if isinstance(node, ast.Attribute):
            assert not node.attr.startswith("_")
        if isinstance(node, ast.Name):
            assert node.id not in ("getattr", "eval", "exec", "open", "__import__")


@pytest.mark.parametrize("seed", [1, 7])
def test_random_agent_only_meets_action_errors(seed):
    """In-process, the random agent's invalid actions raise only ActionError (caught), and it
    plays to the horizon or a collapse."""
    w = run_script(RANDOM, seed)
    assert w.s.finished


def test_random_agent_through_headless_reports_no_other_error():
    """Through `pibench headless`, the random agent's script runs to its summary line and no
    statement ends with an error (every refusal is an ActionError it catches)."""
    out = _headless(RANDOM.read_text(), 3)
    assert "random agent:" in out
    assert "Error on line" not in out


def test_oracle_cannot_run_through_headless():
    """Agent code cannot import the oracle (or any of world/), nor reach a World."""
    out = _headless(
        "from world.policies.oracle import Oracle; print('ORACLE_IMPORTED')\n"
        "import world.runner; print('WORLD_IMPORTED')\n"
        "print('ORACLE_RUN' if 'world' in dir(lab) else 'no world')\n",
        101,
    )
    assert "ORACLE_IMPORTED" not in out and "WORLD_IMPORTED" not in out and "ORACLE_RUN" not in out
    assert "not allowed" in out
