"""The pibench process's memory stays bounded through a hostile session of the real
`pibench headless` (issue 10 §1): a memory bound, not a timing one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.headless.conftest import pibench_command

#: Generous ceiling of the pibench process's peak resident memory (VmHWM), in MiB. Before
#: the bounds a session like this one took the process to several GB.
PEAK_RSS_LIMIT_MIB = 300

#: One round of hostile blocks: million-character strings to API calls (ids, names,
#: lists), a statement just under the input limit, and queries with huge results.
HOSTILE_BLOCKS = [
    # 1 MB strings to API calls, many times over.
    "big = 'x' * 1_000_000\n"
    "for _ in range(40):\n"
    "    for call in (lambda: projects.unassign('p1', big), lambda: recruit.interview([big] * 3),\n"
    "                 lambda: lab.dashboard(big), lambda: memory.write(big)):\n"
    "        try:\n            call()\n        except Exception as e:\n            pass\n"
    "print('calls done')\n",
    # A statement near the input limit (a huge literal) and one far over it (refused unread).
    "s = '" + "y" * 190_000 + "'\nprint(len(s))\n",
    "s = '" + "z" * 3_000_000 + "'\n",
    # Big query results: many rows of wide values; a big value per row.
    'for sql in ("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000000) '
    "SELECT i, printf('%.*c', 1000, 'q') FROM c\",\n"
    "            \"SELECT printf('%.*c', 999999, 'x') AS v\",\n"
    '            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000) '
    "SELECT group_concat(printf('%.*c', 500, 'w')) FROM c\"):\n"
    "    try:\n        r = query(sql)\n        print('rows', len(r))\n"
    "    except Exception as e:\n        print('refused', str(e)[:80])\n",
]
ROUNDS = 2
"""Rounds in the default suite (each round repeats every hostile block: peak memory that grew
from one round to the next would show); the slow suite runs :data:`SLOW_ROUNDS`."""
SLOW_ROUNDS = 6


def _vm_hwm_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc status")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/<pid>/status (Linux)")
@pytest.mark.parametrize("rounds", [ROUNDS, pytest.param(SLOW_ROUNDS, marks=pytest.mark.slow)])
def test_a_hostile_session_keeps_the_pibench_process_memory_bounded(tmp_path, rounds):
    """Rounds of hostile JSON-lines blocks (1 MB strings to API calls, statements at and
    far over the input limit, queries with huge results) each get exactly one reply, and
    the pibench process's peak resident memory (VmHWM, read while it still runs) stays
    under PEAK_RSS_LIMIT_MIB; the session then ends with its report. Two rounds in the
    default suite, six in the slow one (the same proof over a longer session)."""
    env = {**os.environ, "PIBENCH_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen(
        pibench_command() + ["headless", "--jsonl", "--seed", "7"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        replies = []
        for _ in range(rounds):
            for code in HOSTILE_BLOCKS:
                proc.stdin.write((json.dumps({"code": code}) + "\n").encode())
                proc.stdin.flush()
                replies.append(json.loads(proc.stdout.readline()))
        peak_mib = _vm_hwm_kib(proc.pid) / 1024
        proc.stdin.close()
        end = json.loads(proc.stdout.readline())
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert len(replies) == rounds * len(HOSTILE_BLOCKS)
    assert "calls done" in replies[0]["stdout"]
    assert replies[1]["stdout"] == "190000\n"
    assert replies[2]["ok"] is False and replies[2]["error"]["source"] == "pibench"
    assert replies[3]["stdout"].count("\n") == 3  # each query answered (rows or refused), none fatal
    assert end["event"] == "end" and end["report"]["month"] == 1
    print(f"pibench peak RSS {peak_mib:.0f} MiB over {len(replies)} hostile blocks")
    assert peak_mib < PEAK_RSS_LIMIT_MIB, f"pibench peaked at {peak_mib:.0f} MiB"
