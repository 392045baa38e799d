"""Issue 28: agent code choosing the arguments of its reads cannot grow pibench's memory
without limit: headless mode keeps no read results in its API, and the agent process's cache
(mirrored in pibench) is bounded by bytes; running out of it never fails the career."""

from __future__ import annotations

import tracemalloc

from pibench_tui.headless.session import HeadlessOptions, HeadlessSession
from pibench_tui.sandbox import reads
from world.api import Api

READS = "t = 0\nfor k in range(40, 440):\n    t += len(field.preprints(n_months=k))\nprint(t)"
"""``field.preprints(n_months=k)`` for k = 40, 41, 42 ...: 400 different reads of a career's
whole preprint feed, none of which a change ever forgets (the block changes nothing)."""


def test_reads_with_ever_new_arguments_do_not_grow_pibench_memory(monkeypatch):
    """Through a headless session (the agent process, the sandbox, the career's API): 400
    reads of the whole preprint feed, each with new arguments, in one block that changes
    nothing, leave pibench's own Python memory grown by little more than the bound of what
    the agent process's cache holds (before, the API kept every result: tens of MB), and
    the block answers them all."""
    monkeypatch.setattr(reads, "HELD_BYTES", 256 << 10)
    session = HeadlessSession(HeadlessOptions(seed=101, block_timeout=120))
    try:
        r = session.run_block("for _ in range(40):\n    _ = time.next_month()")
        assert r.ok, r.error
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            r = session.run_block(READS)
            grown = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert r.ok, r.error
        plain = Api(session.world)
        assert r.stdout == f"{sum(len(plain.field.preprints(n_months=k)) for k in range(40, 440))}\n"
        assert grown < 8 << 20, f"pibench grew by {grown:,} bytes"
        assert session.sandbox._reads.held_bytes <= 256 << 10
    finally:
        session.close()
