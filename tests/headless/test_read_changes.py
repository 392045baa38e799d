"""Prefetched results sent as changes of what the agent process holds (issue 9 §3): the agent
process rebuilds exactly the new value -- the same types, key order and floats as JSON would
give, no object shared -- and "the same value" means the same JSON."""

from __future__ import annotations

import copy
import json
import marshal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pibench_tui.sandbox import child as agent_process
from pibench_tui.sandbox.reads import changes, same_value

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from([0.0, -0.0, 1.0, 2.5]), st.sampled_from("abc")
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.sampled_from("pqrst"), inner, max_size=5)),
    max_leaves=25,
)


def _json(value: Any) -> Any:
    """``value`` as the agent process receives it."""
    return json.loads(json.dumps(value))


def _edit(draw: Any, old: Any) -> Any:
    """A new value sharing parts of ``old`` (as kept results share rows), some changed."""
    if isinstance(old, dict) and draw(st.booleans()):
        new = {k: (old[k] if draw(st.booleans()) else _edit(draw, old[k])) for k in draw(st.permutations(list(old)))}
        for k in draw(st.lists(st.sampled_from("uvw"), max_size=2)):
            new[k] = draw(values)
        return new
    if isinstance(old, list) and draw(st.booleans()):
        picked = draw(st.lists(st.sampled_from(old), max_size=len(old) + 2)) if old else []
        return picked + draw(st.lists(values, max_size=2))
    return draw(values)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_change_rebuilds_exactly_the_new_value(data):
    """Whatever the parent describes as a change of the old value, the agent process rebuilds
    from its own (JSON) copy of the old value into exactly the JSON of the new one, with no
    object shared between parts (each part of the old copy used at most once)."""
    old = data.draw(values)
    new = _edit(data.draw, old)
    change = changes(new, old, 2)
    if change is None:
        return
    base = _json(old)
    rebuilt = agent_process._patch(copy.deepcopy(base), _json(change))
    assert marshal.dumps(rebuilt, 2) == marshal.dumps(_json(new), 2)
    seen: set[int] = set()

    def walk(x: Any) -> None:
        if isinstance(x, (dict, list)):
            assert id(x) not in seen, "an object is shared"
            seen.add(id(x))
            for item in x.values() if isinstance(x, dict) else x:
                walk(item)

    walk(rebuilt)


def test_the_same_value_is_the_same_json():
    """Equal in Python is not enough: 1, 1.0 and True differ, as do 0.0 and -0.0, key order,
    and a list from a tuple is only the same when JSON would make them so."""
    assert same_value({"a": [1, 2.5, None]}, {"a": [1, 2.5, None]})
    assert not same_value(1, 1.0) and not same_value(1, True) and not same_value(0.0, -0.0)
    assert not same_value({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not same_value([float("nan")], [float("nan")])
    assert not same_value({"a": 1}, {"a": 1, "b": 2})


def test_a_change_keeps_parts_by_identity_and_by_value():
    """Rows kept by the world (the same objects) and rows equal as JSON are kept; new rows
    and changed scalars travel; a value with nothing in common is sent whole (None)."""
    rows = [{"id": i, "x": [i, i]} for i in range(5)]
    old = {"month": 3, "rows": rows, "same": {"k": [1.0]}}
    new = {"month": 4, "rows": rows[1:] + [{"id": 9, "x": []}], "same": {"k": [1.0]}}
    change = changes(new, old, 2)
    assert change == {"d": [["month", 4], ["rows", None, {"l": [1, 2, 3, 4, [{"id": 9, "x": []}]]}], "same"]}
    assert changes({"a": [1]}, {"b": [1]}, 2) is None and changes([1], {"a": 1}, 2) is None
    assert changes({1: [2]}, {1: [2]}, 2) is None  # JSON turns the key into "1": sent whole
