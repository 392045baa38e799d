"""What pibench observes of the agent process lands in the integrity log (issue 25 §4): a
thread of agent code still running when a block ends, and protocol breaches by kind
(oversized, malformed, between blocks). Agent code escapes the Python layer here through
the test-only ``static_check=False`` (as tests/headless/test_confinement.py does): the
observations are about an agent process that is no longer honest."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pibench_tui.harness.integrity import BENIGN_KINDS, FLAG_KINDS, IntegrityLog
from pibench_tui.sandbox import Sandbox
from pibench_tui.sandbox.protocol import MAX_MESSAGE_BYTES

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")

#: Agent code with the real ``sys`` (``real``) and ``os``, past every Python-level layer.
ESCAPE = (
    "for c in ().__class__.__base__.__subclasses__():\n"
    "    if c.__name__ == '_wrap_close':\n"
    "        real = c.__init__.__globals__['sys']\n"
    "os = real.modules['os']\n"
)

#: The watchdog thread of the agent process taken over: it spins in agent code for good.
HIJACK = (
    ESCAPE + "spinning = []\n"
    "def spin(self, age):\n"
    "    spinning.append(1)\n"
    "    while True:\n"
    "        pass\n"
    "f = real._getframe()\n"
    "while f.f_code.co_name != '_child_main':  # the runtime module, off sys.modules\n"
    "    f = f.f_back\n"
    "f.f_globals['_OutputCap'].flush_if_stale = spin\n"
    "time = real.modules['time']\n"
    "t = time.monotonic()\n"
    "while not spinning and time.monotonic() - t < 5:\n"
    "    pass\n"
    "t = time.monotonic()\n"
    "while time.monotonic() - t < 0.3:  # the block goes on a while, as the thread spins\n"
    "    pass\n"
    "print('spinning', bool(spinning))\n"
)


def _sandbox() -> Sandbox:
    return Sandbox(lambda ns, m, a, k: {"month": 1}, {}, block_timeout=20, static_check=False)


@pytest.mark.skipif(sys.platform != "linux", reason="Linux /proc")
def test_a_thread_running_agent_code_after_the_block_is_recorded_and_stopped() -> None:
    """A block hijacks the watchdog thread into an endless loop; it and the blocks after it
    end: pibench finds that thread running (not waiting in a system call, or busy during
    the block and running once the process settled) when it stops the process, and records
    ran_between_blocks with its CPU time; the process stays stopped (state T) between
    blocks, and the next blocks still run with the variables of the earlier ones. Which
    block's end first sees it depends on the scheduler (a thread of agent code may be
    waiting for the interpreter's lock at the first look), so the hijack and the three
    blocks after it are looked at together. A clean block records nothing."""
    with _sandbox() as sb:
        clean = sb.run("x = 1")
        assert clean.ok and clean.observed == (), clean
        result = sb.run(HIJACK)
        assert result.ok and "spinning True" in result.stdout, result
        seen = list(result.observed)
        pid = sb._process.proc.pid  # type: ignore[union-attr]
        for _ in range(3):
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            assert state == "T"
            after = sb.run("t = time.monotonic()\nwhile time.monotonic() - t < 0.3:\n    pass\nprint(x)")
            assert after.ok and after.stdout == "1\n", after
            seen += after.observed
        kinds = {k for k, _ in seen}
        assert kinds == {"ran_between_blocks"}, seen
        assert all("s of CPU" in message for _, message in seen)


def test_protocol_breaches_are_recorded_by_kind() -> None:
    """A line over the protocol's limit (refused once the limit is buffered), a line that is
    not a message, and messages after a forged end of block: each block's error carries
    its integrity kind as its code, and the log counts them as flags."""
    log = IntegrityLog()
    with _sandbox() as sb:
        oversized = sb.run(ESCAPE + f'os.write(1, b\'{{"t":"out","s":"\' + b\'x\' * {MAX_MESSAGE_BYTES + 10})')
        malformed = sb.run(ESCAPE + "os.write(1, b'not json\\n')")
        sb.run("y = 2")
        block = sb.blocks + 1
        forged = f'{{"t":"done","id":{block},"error":null,"tail":"","omitted":0}}\\n{{"t":"out","s":"late"}}\\n'
        first = sb.run(ESCAPE + f"os.write(1, b'{forged}')")
        between = sb.run("print(y)")
    assert oversized.error["code"] == "protocol_oversized" and oversized.restarted, oversized
    assert malformed.error["code"] == "protocol_malformed", malformed
    assert first.ok, first  # the forged end was read as this block's end
    assert between.error["code"] == "protocol_between_blocks", between
    for r in (oversized, malformed, between):
        log.record_block(1, 1, r.error, r.truncated, r.restarted, observed=r.observed)
    assert log.counts == {"protocol_oversized": 1, "protocol_malformed": 1, "protocol_between_blocks": 1}
    assert log.flags == 3


def test_observed_kinds_flag_the_run_and_are_listed_with_the_block() -> None:
    """Observations of the agent process are integrity kinds that flag the run: they are
    counted, kept as incidents with their message, and returned with the block's own kinds
    (the transcript's block event lists them, and the report re-derives flags from it)."""
    for kind in ("ran_between_blocks", "cpu_outside_block", "protocol_oversized", "protocol_malformed"):
        assert kind in FLAG_KINDS and kind not in BENIGN_KINDS
    log = IntegrityLog()
    kinds = log.record_block(
        3, 2, None, False, False, observed=(("ran_between_blocks", "1 thread(s) ... 0.40 s of CPU so far"),)
    )
    assert kinds == ["ran_between_blocks"]
    assert log.flags == 1 and log.to_dict()["incidents"][0]["message"].startswith("1 thread(s)")
