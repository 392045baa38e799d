"""The agent process answers a repeated read-only call itself (issue 9 §3: cheaper headless
round trips) without ever showing agent code a stale or shared result."""

from __future__ import annotations

import pytest

from pibench_tui.sandbox import Sandbox

SPEC = {
    "lab": {"dashboard": {"params": [], "doc": "The dashboard.", "mutating": False}},
    "time": {"next_month": {"params": [], "doc": "Advance the clock.", "mutating": True}},
}


class CountingApi:
    """A world whose dashboard shows the month; counts what reaches it."""

    def __init__(self):
        self.month = 1
        self.seen = []

    def __call__(self, ns, method, args, kwargs):
        self.seen.append((ns, method))
        if (ns, method) == ("lab", "dashboard"):
            return {"month": self.month, "students": [{"id": "S001"}]}
        if (ns, method) == ("time", "next_month"):
            self.month += 1
            return {"month": self.month}
        raise AssertionError(f"unexpected call {ns}.{method}")


@pytest.fixture
def api():
    return CountingApi()


@pytest.fixture
def sandbox(api):
    sb = Sandbox(api, SPEC, block_timeout=5, max_output=2000, memory_limit=256 << 20, seed=1)
    yield sb
    sb.close()


def test_a_repeated_read_only_call_is_answered_in_the_agent_process(sandbox, api):
    """Three dashboards in a row reach the world once; each is a fresh object, so changing
    one result never changes the next."""
    r = sandbox.run(
        "a = lab.dashboard()\na['students'].append('x')\nb = lab.dashboard()\nc = lab.dashboard()\n"
        "print(a is b, len(b['students']), b == c, b is c)"
    )
    assert r.ok, r.error
    assert r.stdout == "False 1 True False\n"
    assert api.seen == [("lab", "dashboard")]
    assert r.calls == 1


def test_a_call_that_changes_the_world_clears_the_cache(sandbox, api):
    """After time.next_month() the dashboard is asked of the world again and shows month 2."""
    r = sandbox.run("print(lab.dashboard()['month'])\n_ = time.next_month()\nprint(lab.dashboard()['month'])")
    assert r.ok, r.error
    assert r.stdout == "1\n2\n"
    assert api.seen == [("lab", "dashboard"), ("time", "next_month"), ("lab", "dashboard")]


def test_each_block_starts_with_an_empty_cache(sandbox, api):
    """Between blocks the world may change without the agent (an automatic month end): the
    next block asks the world again."""
    assert sandbox.run("lab.dashboard()").ok
    api.month = 7  # changed outside the agent's calls
    r = sandbox.run("print(lab.dashboard()['month'])")
    assert r.stdout == "7\n"
    assert api.seen == [("lab", "dashboard"), ("lab", "dashboard")]


def test_a_refused_call_keeps_the_cache_and_a_failing_one_empties_it(sandbox, api):
    """A refusal (ActionError) changed nothing, so the cached dashboard stays valid; an
    internal error might have, so the next dashboard is asked of the world again."""

    def world(ns, method, args, kwargs):
        api.seen.append((ns, method))
        if (ns, method) == ("lab", "dashboard"):
            return {"month": api.month}
        if args == ["refuse"]:
            from pibench_tui.sandbox import Refusal

            raise Refusal("bad_argument", "refused")
        raise RuntimeError("a bug")

    sandbox.handler = world
    code = (
        "lab.dashboard()\ntry:\n    time.next_month('refuse')\nexcept ActionError:\n    pass\nlab.dashboard()\n"
        "try:\n    time.next_month('bug')\nexcept ActionError:\n    pass\nlab.dashboard()"
    )
    r = sandbox.run(code)
    assert r.ok, r.error
    assert api.seen == [("lab", "dashboard"), ("time", "next_month"), ("time", "next_month"), ("lab", "dashboard")]
