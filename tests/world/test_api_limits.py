"""API argument limits and unlogged no-ops: nothing an agent sends grows the action log or a
save beyond bounds (issue 10 §1; world/api/limits.py)."""

from __future__ import annotations

import pytest

from world.api import ActionError, Api
from world.api.limits import MAX_DICT_ITEMS, MAX_INT_BITS, MAX_LIST_ITEMS, MAX_STRING_CHARS
from world.config import WorldConfig
from world.engine import World
from world.runner import AgentView, build_policy

from .verify_helpers import add_person


def _fresh() -> tuple[World, Api]:
    w = World(WorldConfig(), 3)
    return w, Api(w)


@pytest.mark.parametrize(
    "call, args, words",
    [
        (
            "projects.unassign",
            ["PJ001", "x" * (MAX_STRING_CHARS + 1)],
            ["student_id", f"{MAX_STRING_CHARS + 1:,} characters", f"at most {MAX_STRING_CHARS}"],
        ),
        (
            "recruit.interview",
            [["A001"] * (MAX_LIST_ITEMS + 1)],
            ["ids", f"{MAX_LIST_ITEMS + 1:,} items", f"at most {MAX_LIST_ITEMS}"],
        ),
        ("recruit.interview", [["x" * 10_000]], ["ids[0]", "10,000 characters"]),
        (
            "students.set_mentoring",
            [{f"S{i}": 1 for i in range(MAX_DICT_ITEMS + 1)}],
            ["hours", f"at most {MAX_DICT_ITEMS}"],
        ),
        ("students.set_mentoring", [{"x" * 999: 1}], ["an entry of", "999 characters"]),
        ("lab.ledger", [2**100], ["n", "101 bits", f"at most {MAX_INT_BITS}"]),
        ("projects.start", ["reasoning", 1, [["S001"]]], ["members[0]", "nested"]),
        ("papers.polish", ["D001" * 100, 1], ["draft_id", "characters"]),
    ],
)
def test_oversized_arguments_are_refused_naming_the_limit(call, args, words):
    """Each oversized argument is refused (``bad_argument``) with a message naming the argument,
    its size and the limit; the world does not change and nothing is logged."""
    w, api = _fresh()
    before = w.digest()
    ns, method = call.split(".")
    with pytest.raises(ActionError) as info:
        api.call(ns, method, args)
    assert info.value.code == "bad_argument"
    for word in words:
        assert word in info.value.message, (word, info.value.message)
    assert len(info.value.message) < 600
    assert w.digest() == before and w.s.action_log == []


def test_oversized_names_are_refused_before_they_reach_a_message():
    """A huge call name or keyword name is refused with a short message."""
    w, api = _fresh()
    for ns, method, kwargs in (
        ("x" * 100_000, "y", {}),
        ("lab", "y" * 100_000, {}),
        ("projects", "unassign", {"z" * 100_000: 1}),
    ):
        with pytest.raises(ActionError) as info:
            api.call(ns, method, [], kwargs)
        assert len(info.value.message) < 600
    assert w.s.action_log == []


def test_calls_that_change_nothing_are_accepted_but_not_logged():
    """Unassigning a non-member, the same compute or mentoring hours again, 0 h of polish and
    interviewing an applicant again are answered normally but leave no log entry (nothing to replay)."""
    w, api = _fresh()
    p = add_person(w)
    pid = api.projects.start("theory", 2, [p.id], 100)["project_id"]
    api.students.set_mentoring({p.id: 4})
    n = len(w.s.action_log)
    version = w.version
    assert api.projects.unassign(pid, "S999") == {"ok": True, "members": [p.id]}
    assert api.projects.set_compute(pid, 100) == {"ok": True, "monthly_compute": 100.0}
    assert api.students.set_mentoring({p.id: 4.0})["ok"] is True
    apps = api.recruit.applicants()
    first = api.recruit.interview(apps[0]["id"])
    n += 1
    again = api.recruit.interview([apps[0]["id"]] * 5)
    assert again == first
    assert len(w.s.action_log) == n and w.version == version + 1
    assert type(again) is dict


def _career(junk: bool, months: int = 60, seed: int = 7) -> tuple[World, int]:
    """A baseline career; with ``junk``, every month also sends oversized and no-op calls
    (about 1,700 a month, 100,000 in all) through the dispatcher, as a hostile agent would."""
    w = World(WorldConfig(), seed)
    api = Api(w)
    policy = build_policy("baseline", w)
    view = AgentView(api)
    sent = 0
    huge = "x" * 990_000
    while not w.s.finished and w.s.month <= months:
        m = w.s.month
        policy.act(view)
        if junk and not w.s.finished and w.s.month == m:
            d = api.lab.dashboard()
            projects = d["active_projects"]
            apps = [a["id"] for a in api.recruit.applicants()]
            calls: list[tuple[str, str, list]] = [
                ("projects", "unassign", ["PJ001", huge]),
                ("recruit", "interview", [[apps[0] if apps else "A001"] * 110_000]),
                ("students", "set_mentoring", [{huge: 1}]),
                ("projects", "start", ["reasoning", 1, ["S001"] * 100_000]),
                ("lab", "ledger", [10**400]),
            ]
            for _ in range(1_700):
                for pj in projects[:1]:
                    calls.append(("projects", "unassign", [pj["id"], "S999"]))
                    calls.append(("projects", "set_compute", [pj["id"], pj["monthly_compute"]]))
                    break
                else:
                    calls.append(("projects", "unassign", ["PJ999", "S999"]))
            for ns, method, args in calls[:1_700]:
                sent += 1
                try:
                    api.call(ns, method, args)
                except ActionError:
                    pass
        if not w.s.finished and w.s.month == m:
            api.time.next_month()
    return w, sent


def test_a_hostile_session_leaves_the_log_and_the_save_small(tmp_path):
    """Sixty months of a baseline career with ~100,000 junk calls (huge strings, huge lists,
    huge integers, no-ops) end with the same action log and the same world digest as the
    career without them, and its save stays well under 1 MB."""
    from saves import SaveStore

    clean, _ = _career(junk=False)
    hostile, sent = _career(junk=True)
    assert sent >= 100_000
    assert hostile.s.action_log == clean.s.action_log
    assert hostile.digest() == clean.digest()
    store = SaveStore(tmp_path / "store")
    store.save("hostile", hostile)
    size = sum(p.stat().st_size for p in (tmp_path / "store").rglob("*") if p.is_file())
    assert size < 1_000_000, size


def test_numpy_scalars_are_taken_as_the_python_numbers_they_hold():
    """numpy integer, float and bool scalars are accepted where the API takes int/float/bool,
    logged as plain Python numbers (the action log stays JSON data: saves and replays), and
    leave the world as the plain numbers do; a non-finite numpy float is still refused."""
    import json

    import numpy as np

    results = []
    for conv in (int, np.int64, float, np.float64):
        w, api = _fresh()
        p = add_person(w)
        api.call("students", "set_mentoring", [{p.id: conv(5)}])
        assert api.call("lab", "ledger", [np.int64(3)]) == api.call("lab", "ledger", [3])
        json.dumps(w.s.action_log, allow_nan=False)
        assert all(type(v) in (int, float) for v in w.s.action_log[-1][2]["hours"].values())
        results.append(w.digest())
    assert results[0] == results[1] and results[2] == results[3]  # as the plain int, as the plain float
    w, api = _fresh()
    p = add_person(w)
    for bad in (np.float64("nan"), np.float64("inf"), np.bool_(True)):
        with pytest.raises(ActionError) as info:
            api.call("students", "set_mentoring", [{p.id: bad}])
        assert info.value.code == "bad_argument"
    assert w.s.action_log == []
