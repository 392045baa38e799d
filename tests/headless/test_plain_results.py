"""Results cross to the agent process as marshal bytes (issue 9 §3), and agent code sees
exactly what JSON text would have given: the world API's results are plain JSON data (dicts
with str keys, lists, str, int, finite float, bool, None, no subclasses, no dict or list twice
in one result: marshal would load it as one object twice) all along careers, and anything
else is turned into what JSON makes of it first."""

from __future__ import annotations

import enum
import marshal
import math
import struct
from typing import Any

import pytest

from pibench_tui.sandbox.process import json_copy, result_bytes
from world.api import API_CALLS, REQUIRED, Api
from world.api.cached import CachedApi
from world.config import WorldConfig
from world.engine import World
from world.policies import POLICIES, make_policy

_PLAIN_SCALARS = (str, int, bool, type(None))


def plain_problems(value: Any, path: str = "result") -> list[str]:
    """Where ``value`` is not plain JSON data (exact types only), as readable paths."""
    t = type(value)
    if t in _PLAIN_SCALARS:
        return []
    if t is float:
        return [] if math.isfinite(value) else [f"{path}: {value!r}"]
    if t is dict:
        out: list[str] = []
        for k, v in value.items():
            if type(k) is not str:
                out.append(f"{path}: key {k!r} of type {type(k).__name__}")
            out += plain_problems(v, f"{path}[{k!r}]")
        return out
    if t is list:
        return [p for i, v in enumerate(value) for p in plain_problems(v, f"{path}[{i}]")]
    return [f"{path}: a {t.__name__}"]


def same(a: Any, b: Any) -> bool:
    """The same JSON-visible value: the same types everywhere, key order, float bits."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is float:
        return struct.pack("<d", a) == struct.pack("<d", b)
    return bool(a == b)


def shared_parts(value: Any) -> list[str]:
    """Containers that appear twice in ``value`` (JSON never gives that)."""
    seen: set[int] = set()
    out: list[str] = []

    def walk(x: Any, path: str) -> None:
        if type(x) in (dict, list):
            if id(x) in seen:
                out.append(path)
            seen.add(id(x))
            for k, v in x.items() if type(x) is dict else enumerate(x):
                walk(v, f"{path}[{k!r}]")

    walk(value, "result")
    return out


def check(name: str, value: Any) -> None:
    """What the agent process loads for ``value`` is plain, what JSON gave, and shares nothing."""
    assert plain_problems(value) == [], (name, plain_problems(value)[:5])
    loaded = marshal.loads(result_bytes(value, plain=True))
    assert same(loaded, json_copy(value)), name
    assert shared_parts(loaded) == [], (name, shared_parts(loaded)[:5])


def _reading_calls(api: Api | CachedApi) -> list[tuple[str, str, list[Any]]]:
    """Every reading call of the registry, with its defaults and a few other arguments."""
    dash = api.lab.dashboard()
    people = [p["id"] for p in dash["students"]] + [p["id"] for p in dash.get("staff", [])]
    calls: list[tuple[str, str, list[Any]]] = []
    for ns, specs in API_CALLS.items():
        for method, spec in specs.items():
            if spec.mutating:
                continue
            names = [p for p, _ in spec.params]
            required = [p for p, d in spec.params if d is REQUIRED]
            if not required:
                calls.append((ns, method, []))
            if names in (["n"], ["n_months"]):
                calls += [(ns, method, [1]), (ns, method, [1000])]
            if names == ["student_id", "n"]:
                calls += [(ns, method, [pid, n]) for pid in people[:3] for n in (1, 100)]
    return calls


class _Checked:
    """A namespace whose calls' results (changing calls included) are checked as they come."""

    def __init__(self, ns: Any, name: str, seen: set[str]) -> None:
        self._ns, self._name, self._seen = ns, name, seen

    def __getattr__(self, method: str) -> Any:
        fn = getattr(self._ns, method)

        def call(*args: Any, **kwargs: Any) -> Any:
            value = fn(*args, **kwargs)
            check(f"{self._name}.{method}", value)
            self._seen.add(f"{self._name}.{method}")
            return value

        return call


class _CheckedView:
    """What a policy plays through: the API's namespaces, every result checked."""

    def __init__(self, api: Api | CachedApi, seen: set[str]) -> None:
        for ns in API_CALLS:
            setattr(self, ns, _Checked(getattr(api, ns), ns, seen))
        self.query = api.query
        self.memory = api.memory


@pytest.mark.parametrize("policy", POLICIES)
def test_every_result_of_a_career_is_plain_json_data(policy):
    """Along a career of each reference policy (through an API handing out its kept results,
    as headless mode's does), every result of every changing call the policy makes and of
    every reading call (asked at each month's opening and after the policy acted) is plain
    JSON data, and the marshal bytes the agent process gets load to exactly what JSON gave,
    with no part shared."""
    world = World(WorldConfig(), 101)
    api = CachedApi(Api(world))
    seen: set[str] = set()
    view = _CheckedView(api, seen)
    pol = make_policy(policy)
    while not world.finished:
        month = world.month
        for ns, method, args in _reading_calls(api):
            try:
                value = api.call(ns, method, args, {})
            except Exception as exc:  # noqa: BLE001 - a refusal is a refusal either way
                assert hasattr(exc, "code"), (ns, method, exc)
                continue
            check(f"{ns}.{method}{args}", value)
        pol.act(view)
        for ns, method, args in _reading_calls(api):
            try:
                check(f"{ns}.{method}{args}", api.call(ns, method, args, {}))
            except AssertionError:
                raise
            except Exception:  # noqa: BLE001, S112 - refused
                continue
        if not world.finished and world.month == month:
            check("time.next_month", view.time.next_month())
    assert "time.next_month" in seen or policy != "do-nothing"


class _Level(enum.IntEnum):
    HIGH = 3


def test_what_is_not_plain_json_is_turned_into_what_json_gives():
    """Without the plain-data contract (query rows, memory, other handlers) a result goes
    through JSON first: tuples become lists, number keys strings, NaN is refused; with it, a
    value marshal cannot write as it is (an int or float subclass) goes the JSON way too."""
    value = {"t": (1, 2), 3: "x", "f": 1.5}
    loaded = marshal.loads(result_bytes(value, plain=False))
    assert same(loaded, {"t": [1, 2], "3": "x", "f": 1.5})
    with pytest.raises(ValueError):
        result_bytes({"x": float("nan")}, plain=False)
    with pytest.raises(TypeError):
        result_bytes({"x": {1, 2}}, plain=False)
    sub = marshal.loads(result_bytes({"level": _Level.HIGH}, plain=True))
    assert same(sub, {"level": 3})
    text = marshal.loads(result_bytes({"s": "a\ud800b"}, plain=False))
    assert text == {"s": "a?b"}  # a lone surrogate: UTF-8 replaced it in the JSON text


def test_a_container_twice_in_one_result_would_be_shared_so_results_hold_none():
    """Why the contract says "no dict or list twice": marshal loads a container met twice in
    one value as one object (JSON makes two), so a change of one would show in the other; the
    walk above finds such a result. Rows kept by the API and handed out in several results
    (once in each) load as objects of their own."""
    row = {"id": "D1", "tier": 2}
    twice = marshal.loads(result_bytes({"a": [row], "b": [row]}, plain=True))
    assert shared_parts(twice) == ["result['b'][0]"]
    first = marshal.loads(result_bytes({"a": [row]}, plain=True))
    second = marshal.loads(result_bytes({"b": [row]}, plain=True))
    first["a"][0]["tier"] = 9
    assert second["b"][0]["tier"] == 2 and row["tier"] == 2
    assert shared_parts(marshal.loads(result_bytes({"a": [row], "b": [row]}, plain=False))) == []
