"""Reads made for agent code by something other than its own attribute syntax (issue 28, the
first layer; QA pass 8): library code that reads attributes by name and hands the values
back (``dataclasses.replace``/``asdict``/``astuple`` read each field with the real
``getattr``), and objects whose attribute reads are another object's (a generic alias
forwards every read to its origin). Before, chained, they handed agent code the real
``ctypes``, then its ``pythonapi``, then the real ``os`` and ``builtins``:

    dataclasses.replace(D(np.zeros(1)))  # D: an agent dataclass subclassing type(np.zeros(1).ctypes)
    type(list[int])(ctypes, ()).pythonapi["PyImport_AddModule"]  # restype py_object: os

Each route is closed as a class: every field those readers read goes through the attribute
rule; a read from an alias is a read from its origin (module, ctypes, private names); no
attribute read, whatever it is read from, hands out an object of a module agent code cannot
import (``os.system``, ``ctypes.pythonapi``); and a class pattern never reads through an
alias."""

from __future__ import annotations

import ctypes
import json
import os
import sys
import types
import typing

import pytest

from tests.headless.conftest import jsonl_replies

SETUP = (
    "import numpy as np, dataclasses, statistics, copy\n"
    "leak = []\n"
    "GA = type(list[int])\n"
    "B = type(np.zeros(1).ctypes)\n"
    "@dataclasses.dataclass(init=False, repr=False, eq=False)\n"
    "class N(statistics.NormalDist):\n"
    "    _mu: float\n"
    "    def __init__(self, *a, **kw):\n"
    "        if kw:\n            leak.append(kw['_mu'])\n"
    "        else:\n            super().__init__(*a)\n"
    "n = N(5.0, 1.0)\n"
)

#: A subclass of numpy's ctypes helper keeping what its __init__ stores (the real ctypes in _ctypes).
HOLDER = (
    "@dataclasses.dataclass(init=False, repr=False, eq=False)\n"
    "class D(B):\n"
    "    _ctypes: object = None\n"
    "    def __init__(self, *a, **kw):\n"
    "        if kw:\n            leak.append(kw['_ctypes'])\n"
    "        else:\n            super().__init__(*a)\n"
    "    def __setstate__(self, state):\n"
    "        leak.extend(state.values())\n"
)

ATTACKS = {
    "dataclasses.replace of a library class's private slot": "dataclasses.replace(n)",
    "dataclasses.asdict of a library class's private slot": "leak.append(dataclasses.asdict(n))",
    "dataclasses.astuple of a library class's private slot": "leak.append(dataclasses.astuple(n))",
    "a private name read through an alias of a library object": (
        "X = type('X', (GA,), {'_arr': None})\nleak.append(X(np.zeros(1).ctypes, ())._arr)"
    ),
    "a class pattern reading through an alias": (
        "X = type('X', (GA,), {'_ctypes': None, '__match_args__': ('_ctypes',)})\n"
        "match X(np.zeros(1).ctypes, ()):\n"
        "    case X(m):\n"
        "        leak.append(m)"
    ),
    "replace of a subclass of numpy's ctypes helper": HOLDER + "dataclasses.replace(D(np.zeros(1)))",
    "copy.copy handing its state to __setstate__": HOLDER + "copy.copy(D(np.zeros(1)))",
    "a class pattern naming _ctypes in __match_args__": (
        "D2 = type('D2', (B,), {'_ctypes': None, '__match_args__': ('_ctypes',)})\n"
        "match D2(np.zeros(1)):\n"
        "    case D2(m):\n"
        "        leak.append(m)"
    ),
    "the whole chain to the real os": (
        HOLDER + "dataclasses.replace(D(np.zeros(1)))\n"
        "ga = GA(leak.pop(), ())\n"
        "f = ga.pythonapi['PyImport_AddModule']\n"
        "f.restype = ga.__dict__['py_object']\n"
        "leak.append(GA(f(b'os'), ()).getuid())"
    ),
}

REPORT = "print('LEAK', [type(v).__name__ for v in leak])"


def test_no_reader_or_alias_hands_agent_code_a_library_object_s_internals(tmp_path) -> None:
    """Each route is refused with a SandboxError and agent code caught nothing (before:
    ``replace``/``asdict``/``astuple`` handed it a library class's private slot, and with a
    subclass of numpy's ctypes helper the real ctypes module, as did ``copy.copy``'s
    ``__setstate__`` and a class pattern; the alias a private ndarray, its pattern the module;
    and the chain ended in ``os.getuid()`` of the agent process)."""
    codes = []
    for attack in ATTACKS.values():
        codes += [SETUP, attack, REPORT]
    replies = jsonl_replies(codes, str(tmp_path))
    assert len(replies) == 3 * len(ATTACKS)
    for i, what in enumerate(ATTACKS):
        setup, attack, report = replies[3 * i : 3 * i + 3]
        assert setup["ok"], (what, setup)
        assert not attack["ok"] and "SandboxError" in json.dumps(attack), (what, attack)
        assert report["ok"] and "LEAK []" in report["stdout"], (what, report)


def test_the_readers_still_work_on_ordinary_dataclasses(tmp_path) -> None:
    """``replace``, ``asdict`` and ``astuple`` keep Python's results on agent code's own
    dataclasses (private fields, nesting through lists, dicts and named tuples, an init=False
    field, Python's errors)."""
    code = (
        "import dataclasses, collections\n"
        "P = collections.namedtuple('P', 'a b')\n"
        "@dataclasses.dataclass\nclass In:\n    v: int\n"
        "@dataclasses.dataclass\nclass C:\n"
        "    x: int\n    _y: list\n    z: dict = dataclasses.field(default_factory=dict)\n"
        "    n: int = dataclasses.field(default=0, init=False)\n"
        "c = C(1, [In(2), P(In(3), 4)], {'k': In(5)})\n"
        "r = dataclasses.replace(c, x=9)\n"
        "print(r.x, r._y is c._y, dataclasses.asdict(c), dataclasses.astuple(c))\n"
        "print(dataclasses.asdict(c, dict_factory=lambda kv: sorted(kv)))\n"
        "for bad in (lambda: dataclasses.replace(c, n=1), lambda: dataclasses.replace(1), lambda: dataclasses.asdict(C)):\n"
        "    try:\n        bad()\n    except (TypeError, ValueError) as e:\n        print(type(e).__name__, e)"
    )
    (reply,) = jsonl_replies([code], str(tmp_path))
    assert reply["ok"], reply
    assert reply["stdout"].splitlines() == [
        "9 True {'x': 1, '_y': [{'v': 2}, P(a={'v': 3}, b=4)], 'z': {'k': {'v': 5}}, 'n': 0} "
        "(1, [(2,), P(a=(3,), b=4)], {'k': (5,)}, 0)",
        "[('_y', [[('v', 2)], P(a=[('v', 3)], b=4)]), ('n', 0), ('x', 1), ('z', {'k': [('v', 5)]})]",
        "ValueError field n is declared with init=False, it cannot be specified with replace()",
        "TypeError replace() should be called on dataclass instances",
        "TypeError asdict() should be called on dataclass instances",
    ]


@pytest.fixture
def helpers():
    from pibench_tui.sandbox import child

    child._SANDBOX_MODULE_IDS.update(id(m) for m in child.policy.module_copies().values())
    return child._attribute_helpers()


def test_an_alias_reads_only_what_its_origin_may_give(helpers) -> None:
    """A read from a generic alias (``type(list[int])``, a subclass, typing's aliases) is a
    read from its origin: a real module or a ctypes object as origin is refused, and so is
    a private name found only through the alias, also in ``vars()`` of an alias of agent
    code's class (its dict is the origin's); an ordinary alias still reads."""
    from pibench_tui.sandbox.policy import SandboxError

    get, priv = helpers["__pibench_get__"], helpers["__pibench_attr__"]
    ga = type(list[int])
    sub = type("X", (ga,), {"_arr": None})
    with pytest.raises(SandboxError, match="origin of the generic alias"):
        get(ga(os, ()), "getuid")
    with pytest.raises(SandboxError, match="origin of the generic alias"):
        get(ga(ga(ctypes, ()), ()), "CDLL")
    with pytest.raises(SandboxError, match="origin of the generic alias"):
        get(ga(ctypes.c_int(1), ()), "value")
    with pytest.raises(SandboxError, match="private attributes"):
        priv(sub(types.SimpleNamespace(_arr=1), ()), "_arr")
    from pibench_tui.sandbox import child

    child._AGENT_CLASSES.add(sub)  # as if agent code made it
    assert vars(sub(types.SimpleNamespace(_arr=1, n=2), ())) == {"_arr": 1, "n": 2}  # Python's: the origin's dict
    assert helpers["vars"](sub(types.SimpleNamespace(_arr=1, n=2), ())) == {"n": 2}
    assert get(list[int], "append") is list.append
    assert get(typing.List[int], "copy") is list.copy  # noqa: UP006 - typing's alias is the point


def test_no_read_hands_out_an_object_of_a_module_agent_code_cannot_import(helpers) -> None:
    """Whatever the object read from, an attribute (a read, getattr, vars) whose value is an
    object of os, sys, ctypes, io ... (a function, a bound method, an instance of one of
    their classes, ``open``) is refused, and so is any read from such an object; the
    sandbox's ``sys`` copy and ordinary values read as before."""
    from pibench_tui.sandbox.policy import SandboxError, module_copies

    get, getattr_, vars_ = helpers["__pibench_get__"], helpers["getattr"], helpers["vars"]
    import builtins

    for value in (
        os.system,
        os.makedirs,
        os.environ,
        os.environ.get,
        ctypes.pythonapi,
        ctypes.string_at,
        ctypes.CDLL,
        sys.modules,
        sys._getframe,
        builtins.open,
        builtins.__import__,
    ):
        holder = types.SimpleNamespace(v=value)
        with pytest.raises(SandboxError, match="module agent code cannot import|ctypes"):
            get(holder, "v")
        with pytest.raises(SandboxError, match="module agent code cannot import|ctypes"):
            getattr_(holder, "v")
        with pytest.raises(SandboxError, match="module agent code cannot import|ctypes"):
            vars_(holder)
    with pytest.raises(SandboxError, match="module agent code cannot import"):
        get(os.environ, "copy")
    own = type("Own", (), {"f": os.makedirs})  # a class of agent code's, as if made in a block
    from pibench_tui.sandbox import child

    child._AGENT_CLASSES.add(own)
    with pytest.raises(SandboxError, match="module agent code cannot import"):
        get(own(), "f")  # a method bound to agent code's object, of os's function
    named = type("Named", (), {"__module__": "os", "n": 1})
    child._AGENT_CLASSES.add(named)
    assert get(named(), "n") == 1 and get(named, "n") == 1  # agent code's class naming a module is its own
    sys_copy = module_copies()["sys"]
    assert get(get(sys_copy, "float_info"), "max") == sys.float_info.max
    assert get(types.SimpleNamespace(f=len), "f") is len
    assert get(module_copies()["json"], "dumps")([1]) == "[1]"
