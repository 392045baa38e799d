"""Issue 28: agent code choosing the arguments of its reads cannot grow pibench's memory
without limit; the read cache around the career's API is bounded by bytes, and running out of
it never fails the career."""

from __future__ import annotations

import tracemalloc

import pibench_tui.headless.session as session_mod
from pibench_tui.headless.session import HeadlessOptions, HeadlessSession
from world.api import Api

READS = "t = 0\nfor k in range(40, 440):\n    t += len(field.preprints(n_months=k))\nprint(t)"
"""``field.preprints(n_months=k)`` for k = 40, 41, 42 ...: 400 different reads of a career's
whole preprint feed, none of which a change ever forgets (the block changes nothing)."""


def test_reads_with_ever_new_arguments_do_not_grow_pibench_memory(monkeypatch):
    """Through a headless session (the agent process, the sandbox, the career's API): 400
    reads of the whole preprint feed, each with new arguments, in one block that changes
    nothing, leave pibench's own Python memory grown by little more than the read cache's
    bound (before the bound, every result was kept: tens of MB), and the block answers
    them all."""
    monkeypatch.setattr(session_mod, "READ_CACHE_BYTES", 256 << 10, raising=False)
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
        assert session.career.api.held_bytes <= 256 << 10
    finally:
        session.close()
