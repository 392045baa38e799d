"""The agent process answers a repeated read-only call itself (issue 9 §3: cheaper headless
round trips) without ever showing agent code a stale or shared result."""

from __future__ import annotations

import pytest

from pibench_tui.sandbox import Sandbox
from tests.headless.conftest import FAKE_AGENT_HANDSHAKE, FAKE_AGENT_PREAMBLE

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


# --------------------------------------------------------------------------------------
# Prefetched read-only results (Sandbox(prefetch=True), as headless mode runs it)
# --------------------------------------------------------------------------------------

PREFETCH_SPEC = {
    "lab": {
        "dashboard": {"params": [], "doc": "The dashboard.", "mutating": False},
        "attention": {"params": [], "doc": "Hours left.", "mutating": False},
    },
    "field": {"news": {"params": [["n", {"default": 5}]], "doc": "News.", "mutating": False}},
    "papers": {"polish": {"params": [["hours", {"required": True}]], "doc": "Polish.", "mutating": True}},
    "time": {"next_month": {"params": [], "doc": "Advance the clock.", "mutating": True}},
}


class MonthApi:
    """A world with a month and hours left; records every call that reaches it."""

    def __init__(self):
        self.month = 1
        self.left = 100
        self.seen = []

    def __call__(self, ns, method, args, kwargs):
        self.seen.append((ns, method, list(args)))
        if (ns, method) == ("lab", "dashboard"):
            return {"month": self.month, "left": self.left, "students": [{"id": "S001"}]}
        if (ns, method) == ("lab", "attention"):
            return {"left": self.left}
        if (ns, method) == ("field", "news"):
            return [{"month": self.month, "i": i} for i in range(args[0] if args else 5)]
        if (ns, method) == ("papers", "polish"):
            if args[0] > self.left:
                from pibench_tui.sandbox import Refusal

                raise Refusal("no_hours", "not enough hours")
            self.left -= args[0]
            return {"left": self.left}
        if (ns, method) == ("time", "next_month"):
            self.month += 1
            self.left = 100
            return {"month": self.month}
        raise AssertionError(f"unexpected call {ns}.{method}")


@pytest.fixture
def world():
    return MonthApi()


@pytest.fixture
def prefetching(world):
    sb = Sandbox(world, PREFETCH_SPEC, block_timeout=5, max_output=2000, memory_limit=256 << 20, seed=1, prefetch=True)
    yield sb
    sb.close()


MONTHS = (
    "for _ in range(4):\n"
    "    d = lab.dashboard()\n"
    "    n = field.news(2)\n"
    "    print(d['month'], d['left'], [x['month'] for x in n])\n"
    "    _ = time.next_month()\n"
)


def test_reads_after_a_change_arrive_with_its_answer(prefetching, world):
    """After the first month, the dashboard and news the agent read after time.next_month()
    come with the next month's answer: exactly the world's results for the new month, and
    no round trip of their own."""
    r = prefetching.run(MONTHS)
    assert r.ok, r.error
    assert r.stdout == "1 100 [1, 1]\n2 100 [2, 2]\n3 100 [3, 3]\n4 100 [4, 4]\n"
    # Round trips: 2 reads + 4 months + 2 reads after the first month; then only the months.
    assert r.calls == 8
    # The world answered each read once per month, right after the month changed (the
    # last month end brought month 5's, which the block ended without reading).
    assert world.seen.count(("lab", "dashboard", [])) == 5
    assert world.seen.count(("field", "news", [2])) == 5


def test_a_prefetched_result_changed_by_agent_code_does_not_change_the_next_answer(prefetching, world):
    """Agent code gets a new object from a prefetched result each time: appending to one
    leaves the next answer as the world gave it."""
    assert prefetching.run("lab.dashboard()\n_ = time.next_month()\nlab.dashboard()").ok
    r = prefetching.run(
        "_ = time.next_month()\na = lab.dashboard()\na['students'].append('x')\na['month'] = 99\n"
        "b = lab.dashboard()\nprint(b['month'], len(b['students']), a is b)"
    )
    assert r.ok, r.error
    assert r.stdout == "3 1 False\n"
    assert r.calls == 1  # only time.next_month(): both dashboards came with its answer


def test_an_action_clears_prefetched_results_and_brings_new_ones(prefetching, world):
    """A change other than the month end (papers.polish) also replaces what the agent process
    holds: the hours left read after it are the world's after the change, each time."""
    code = (
        "for _ in range(3):\n    _ = papers.polish(10)\n    print(lab.attention()['left'], lab.dashboard()['left'])\n"
    )
    r = prefetching.run(code)
    assert r.ok, r.error
    assert r.stdout == "90 90\n80 80\n70 70\n"
    assert r.calls == 3 + 2  # the reads after the first polish only


def test_a_refused_action_keeps_the_cache(prefetching, world):
    """A refused change changes nothing: no new results are sent and the cached ones stay
    valid (the world is not asked again)."""
    code = "a = lab.attention()\ntry:\n    papers.polish(1000)\nexcept ActionError as e:\n    print(e.code)\nprint(lab.attention() == a)"
    r = prefetching.run(code)
    assert r.ok, r.error
    assert r.stdout == "no_hours\nTrue\n"
    assert world.seen == [("lab", "attention", []), ("papers", "polish", [1000])]


def test_a_block_starts_with_what_the_last_one_read_first_as_the_world_is_now(prefetching, world):
    """The reads a block made before its first change come with the next block, asked of
    the world when that block starts: a change between blocks (an automatic month end)
    is seen."""
    assert prefetching.run("print(lab.dashboard()['month'])").stdout == "1\n"
    world.month = 7  # changed outside the agent's calls
    r = prefetching.run("print(lab.dashboard()['month'])")
    assert r.stdout == "7\n" and r.calls == 0
    assert world.seen == [("lab", "dashboard", []), ("lab", "dashboard", [])]


def test_reads_the_agent_stopped_making_are_no_longer_prefetched(prefetching, world):
    """What is prefetched after a change follows what agent code read after it (until the
    next such change or month end) at least a third of the last ``PLAN_TIMES`` times: a
    read made once is prefetched after the next three month ends, then no longer."""
    from pibench_tui.sandbox.reads import PLAN_TIMES

    assert PLAN_TIMES >= 4
    assert prefetching.run("_ = time.next_month()\nlab.dashboard()").ok
    world.seen.clear()
    r = prefetching.run("for _ in range(4):\n    _ = time.next_month()\n    lab.attention()")
    assert r.ok, r.error
    month, dash, att = ("time", "next_month", []), ("lab", "dashboard", []), ("lab", "attention", [])
    assert world.seen == [
        *[month, dash, att],  # the dashboard read after the last month end: prefetched; attention asked
        *[month, att, dash] * 2,  # the dashboard read after 1 of the last 2, then 3: still prefetched
        *[month, att],  # read after 1 of the last 4 month ends: no longer
    ]
    assert r.calls == 4 + 1  # the month ends and the first attention


def test_without_prefetch_nothing_is_asked_that_agent_code_did_not_ask(sandbox, api):
    """A sandbox without ``prefetch`` (the LLM harness's) asks the world only what agent code
    asks: the handler's calls are exactly the agent's cache misses."""
    assert sandbox.run("lab.dashboard()\n_ = time.next_month()\nlab.dashboard()").ok
    assert sandbox.run("_ = time.next_month()\nlab.dashboard()").ok
    assert api.seen == [("lab", "dashboard"), ("time", "next_month"), ("lab", "dashboard")] + [
        ("time", "next_month"),
        ("lab", "dashboard"),
    ]


FORGING_USE_CHILD = (
    FAKE_AGENT_HANDSHAKE
    + r"""
    elif msg["t"] == "run":
        done = '{"t":"done","id":%d,"error":null,"tail":"","omitted":0}' % msg["id"]
        forged = {"oob": '{"t":"use","i":[3]}', "str": '{"t":"use","i":["0"]}', "extra": '{"t":"use","i":[],"x":1}'}
        if msg["code"] in forged:
            send(forged[msg["code"]])
        send(done)
"""
)


def test_a_forged_use_message_is_a_protocol_violation(tmp_path, monkeypatch, world):
    """An agent process telling the parent it used prefetched results it was never sent (or
    in a malformed message) breaks the protocol: it is restarted; no API call is made."""
    import pibench_tui.sandbox as sandbox_module

    script = tmp_path / "forging_child.py"
    script.write_text(FORGING_USE_CHILD)
    monkeypatch.setattr(sandbox_module.process, "CHILD_SCRIPT", script)
    with Sandbox(world, PREFETCH_SPEC, block_timeout=5, prefetch=True) as sb:
        for code in ("oob", "str", "extra"):
            r = sb.run(code)
            assert not r.ok and r.restarted, code
            assert r.error["type"] == "SandboxError" and "protocol" in r.error["message"], code
        assert sb.run("fine").ok
    assert world.seen == []


def test_prefetched_results_of_the_real_api_are_what_it_answers_now():
    """Through a headless session over a real world: the dashboard and news read after a
    month end come with its answer (one round trip in the block) and equal what the API
    answers for that month, as does everything read at the start of the next block."""
    import json

    from pibench_tui.headless.session import HeadlessOptions, HeadlessSession

    code = (
        "import json\n_ = time.next_month()\n"
        "print(json.dumps([lab.dashboard(), field.news(10), lab.attention()], sort_keys=True))"
    )
    session = HeadlessSession(HeadlessOptions(seed=5, block_timeout=20))
    try:
        seen = []
        for _ in range(3):
            r = session.run_block(code)
            assert r.ok, r.error
            now = [
                session.api.call("lab", "dashboard"),
                session.api.call("field", "news", [10]),
                session.api.call("lab", "attention"),
            ]
            assert r.stdout == json.dumps(now, sort_keys=True) + "\n"
            seen.append(r.calls)
        assert seen[0] == 4 and seen[1:] == [1, 1]  # later blocks: only time.next_month() crosses
        assert session.world.month == 4
    finally:
        session.close()


# --------------------------------------------------------------------------------------
# Results held while the world's version does not move (Sandbox(version=...), as headless mode runs it)
# --------------------------------------------------------------------------------------


class VersionedApi(MonthApi):
    """:class:`MonthApi` with a version that every change moves (``World.version``)."""

    def __init__(self):
        super().__init__()
        self.version = 0

    def __call__(self, ns, method, args, kwargs):
        out = super().__call__(ns, method, args, kwargs)
        if (ns, method) in (("papers", "polish"), ("time", "next_month")):
            self.version += 1
        return out


def test_results_held_stay_while_the_version_does_not_move():
    """With ``version``, a refused change leaves what the agent process holds (the version did
    not move): the news read before it is answered without a round trip; an accepted change
    moves the version and the news is asked again."""
    world = VersionedApi()
    with Sandbox(world, PREFETCH_SPEC, block_timeout=5, version=lambda: world.version) as sb:
        code = (
            "n = field.news(2)\n"
            "try:\n    papers.polish(500)\nexcept Exception as e:\n    print(type(e).__name__)\n"
            "print(field.news(2) == n)\n_ = papers.polish(10)\nprint(field.news(2) == n, lab.attention()['left'])"
        )
        r = sb.run(code)
        assert r.ok, r.error
        assert r.stdout == "ActionError\nTrue\nTrue 90\n"
    assert world.seen == [
        ("field", "news", [2]),
        ("papers", "polish", [500]),
        ("papers", "polish", [10]),
        ("field", "news", [2]),
        ("lab", "attention", []),
    ]


def test_results_held_stay_from_block_to_block_while_the_version_holds():
    """A block starts with what the last one read when the world's version did not move in
    between, and without it when it did (a change outside the agent's calls)."""
    world = VersionedApi()
    with Sandbox(world, PREFETCH_SPEC, block_timeout=5, version=lambda: world.version) as sb:
        assert sb.run("print(field.news(2)[0]['month'])").stdout == "1\n"
        r = sb.run("print(field.news(2)[0]['month'])")
        assert r.stdout == "1\n" and r.calls == 0
        world.month, world.version = 5, world.version + 1  # changed outside the agent's calls
        r = sb.run("print(field.news(2)[0]['month'])")
        assert r.stdout == "5\n" and r.calls == 1
    assert world.seen == [("field", "news", [2]), ("field", "news", [2])]


def test_a_use_of_an_entry_no_longer_held_is_a_protocol_violation(tmp_path, monkeypatch):
    """The ids an agent process may say it used are those of the entries it holds now: an
    id dropped by a change (or never sent) breaks the protocol."""
    import pibench_tui.sandbox as sandbox_module

    child = (
        FAKE_AGENT_PREAMBLE
        + r"""
received = messages()
for msg in received:
    if msg["t"] == "init":
        send('{"t":"ready"}')
    elif msg["t"] == "exit":
        break
    elif msg["t"] == "run":
        send('{"t":"call","ns":"field","m":"news","a":[2],"k":{}}')
        held = next(received)["c"]
        send('{"t":"call","ns":"time","m":"next_month","a":[],"k":{}}')
        reply = next(received)
        assert held in reply["x"]
        send('{"t":"use","i":[%d]}' % held)
        send('{"t":"done","id":%d,"error":null,"tail":"","omitted":0}' % msg["id"])
"""
    )
    script = tmp_path / "stale_use_child.py"
    script.write_text(child)
    monkeypatch.setattr(sandbox_module.process, "CHILD_SCRIPT", script)
    world = VersionedApi()
    with Sandbox(world, PREFETCH_SPEC, block_timeout=5, version=lambda: world.version) as sb:
        r = sb.run("anything")
        assert not r.ok and r.restarted
        assert r.error["type"] == "SandboxError" and "protocol" in r.error["message"]
        assert r.calls == 2


def test_reads_of_the_real_api_after_a_change_equal_what_it_answers():
    """Through a headless session over a real world: a proposal moves the world's version, so
    the news, topics and dashboard read before it are asked again after it, and equal what
    the API answers then."""
    import json

    from pibench_tui.headless.session import HeadlessOptions, HeadlessSession

    code = (
        "import json\nn = field.news(10)\nt = field.topics()\nd = lab.dashboard()\n"
        "_ = grants.propose(d['open_grant_calls'][0]['id'], t[0], 25.0)\n"
        "print(json.dumps([field.news(10), field.topics()], sort_keys=True))\n"
        "print(lab.dashboard()['proposals_pending'])"
    )
    session = HeadlessSession(HeadlessOptions(seed=101, block_timeout=20))
    try:
        r = session.run_block(code)
        assert r.ok, r.error
        now = [session.api.call("field", "news", [10]), session.api.call("field", "topics")]
        first, second = r.stdout.splitlines()
        assert first == json.dumps(now, sort_keys=True)
        assert second not in ("0", "[]")
        assert r.calls == 7  # news, topics, dashboard, the proposal, and the three reads again
    finally:
        session.close()


def test_the_parent_holds_at_most_held_bytes_of_results(monkeypatch):
    """What the agent process's cache holds (and its mirror here) is bounded by bytes: reads
    of big results leave at most ``HELD_BYTES`` held, the oldest dropped first, and every
    answer is still the world's."""
    from pibench_tui.sandbox import reads

    monkeypatch.setattr(reads, "HELD_BYTES", 3000)
    world = VersionedApi()
    with Sandbox(world, PREFETCH_SPEC, block_timeout=5, version=lambda: world.version) as sb:
        r = sb.run("print(sum(len(field.news(k)) for k in range(20, 60)))")
        assert r.ok, r.error
        assert r.stdout == f"{sum(range(20, 60))}\n"
        mirror = sb._reads
        assert 0 < mirror.held_bytes <= 3000
        assert mirror.held_bytes == sum(len(entry[3]) for entry in mirror.held.values())
        assert r.calls == 40


def test_the_plan_after_a_change_is_the_reads_of_a_third_of_its_last_times():
    """What is prefetched after a trigger, kept up to date as each time closes (counts added
    and taken off, not counted again), equals the plan counted afresh from the last
    ``PLAN_TIMES`` times: the calls read in at least a third of them, in the order first read,
    the latest time first, at most ``PLAN_CALLS``; over many times of varied reads."""
    import random

    from pibench_tui.sandbox.reads import PLAN_CALLS, PLAN_TIMES, ReadMirror

    def counted_afresh(times):
        calls, counts = {}, {}
        for reads in times:
            for text, call in reads.items():
                calls.setdefault(text, call)
                counts[text] = counts.get(text, 0) + 1
        return [(t, c) for t, c in calls.items() if counts[t] >= len(times) / 3][:PLAN_CALLS]

    rng = random.Random(7)
    mirror = ReadMirror(None, True, lambda ns, m, v: b"")
    pool = [(f"call{i}".encode(), ["lab", f"m{i}", [], {}]) for i in range(PLAN_CALLS + 8)]
    past: dict[str, list[dict]] = {"a": [], "b": []}
    for _ in range(60):
        trigger = rng.choice(["a", "b"])
        reads = dict(rng.sample(pool, rng.randrange(0, len(pool))))
        mirror.windows[trigger] = dict(reads)
        mirror._close([trigger])
        past[trigger] = [reads, *past[trigger]][:PLAN_TIMES]
        for t in ("a", "b"):
            assert mirror._plan(t) == counted_afresh(past[t])
    assert mirror._plan("never") == []
