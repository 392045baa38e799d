"""Modules reachable as attribute values (issue 25 §4, the first layer): agent code never
holds a real module it could not import, whatever the route to it: an augmented assignment
(whose read of ``x._y`` bypassed every check and handed the value to the operand's
``__radd__``), ``vars()``/``__dict__`` of a library object (its private entries held the
real ``ctypes``), a format field (``'{0._ctypes}'``), a class pattern reading attributes of
a library object. A module that reaches agent code some other way is inert: every attribute
read, ``getattr``, ``vars`` and format field on it is refused. Through the real command
where that is how it happens; the runtime helpers directly for a module planted in a public
attribute (no library object in this installation exposes one)."""

from __future__ import annotations

import json
import types

import pytest

from tests.headless.conftest import jsonl_replies

#: Agent code catching what an operation hands it (a reflected operator, an equality).
CATCH = (
    "import numpy as np\n"
    "leak = []\n"
    "class X:\n"
    "    def __radd__(self, other):\n        leak.append(other)\n        return 0\n"
    "    __rsub__ = __rmul__ = __ror__ = __rmatmul__ = __radd__\n"
    "c = np.zeros(1).ctypes\n"
)

ATTACKS = {
    "+= on a private attribute": "c._ctypes += X()",
    "-= on a private attribute": "c._ctypes -= X()",
    "|= on a private attribute": "c._ctypes |= X()",
    "@= on a subscripted holder": "[c][0]._ctypes @= X()",
    "*= on a call's result": "(lambda: c)()._ctypes *= X()",
    "vars() of a library object": "leak.extend(v for v in vars(c).values() if type(v) is type(np))",
    "__dict__ of a library object": "leak.extend(v for v in c.__dict__.values() if type(v) is type(np))",
    "a format field": "leak.append('{0._ctypes.string_at}'.format(c))",
    "format_map": "leak.append('{c._ctypes}'.format_map({'c': c}))",
    "a keyword class pattern": "match c:\n    case object(_arr=a):\n        leak.append(a)",
    "a keyword class pattern on a public name": "match c:\n    case object(data=d):\n        leak.append(d)",
}

#: Attacks that run, and find nothing.
QUIET = ("vars() of a library object", "__dict__ of a library object")

REPORT = "print('LEAK', [type(v).__name__ for v in leak])"


_session = jsonl_replies


def test_no_route_hands_agent_code_a_module_through_the_command(tmp_path) -> None:
    """Each attack is refused with a SandboxError (vars() and __dict__ of a library object
    come without its private entries), and what agent code caught stays empty
    (before: the augmented assignments, vars(), __dict__ and the format fields handed out
    the real ctypes, or its function, and the class pattern read a library object's
    attribute)."""
    codes = []
    for attack in ATTACKS.values():
        codes += [CATCH, attack, REPORT]
    replies = _session(codes, str(tmp_path))
    assert len(replies) == 3 * len(ATTACKS)
    for i, what in enumerate(ATTACKS):
        attack, report = replies[3 * i + 1], replies[3 * i + 2]
        if what in QUIET:  # the namespace comes without private entries: nothing to refuse
            assert attack["ok"], (what, attack)
        else:
            assert not attack["ok"] and "SandboxError" in json.dumps(attack), (what, attack)
        assert report["ok"] and "LEAK []" in report["stdout"], (what, report)


def test_ordinary_attribute_code_runs_as_in_python(tmp_path) -> None:
    """What the rewrite must not change: augmented assignments to attributes (a name, a
    subscript, a mangled private name, in Python's order of evaluation), super(), vars()
    of an agent object (its own dict: writes go through), format fields of agent objects,
    class patterns of agent dataclasses and int(n), value patterns of an enum."""
    code = (
        "import dataclasses, enum\n"
        "order = []\n"
        "class C:\n"
        "    def __init__(self):\n        self.__n = 1\n        self.items = [0]\n"
        "    def bump(self):\n        self.__n += 2\n        return self.__n\n"
        "class D(C):\n"
        "    def __init__(self):\n        super().__init__()\n        self.k = 0\n"
        "    def inc(self):\n        order.append(self.k)\n        self.k = 10\n        return 1\n"
        "d = D()\n"
        "d.k += d.inc()\n"
        "[d][0].k *= 3\n"
        "vars(d)['extra'] = 5\n"
        "@dataclasses.dataclass\nclass P:\n    x: int\n    y: int\n"
        "class Color(enum.Enum):\n    RED = 1\n"
        "def kind(v):\n"
        "    match v:\n"
        "        case P(x=0, y=yy):\n            return f'P0 {yy}'\n"
        "        case int(n):\n            return f'int {n}'\n"
        "        case Color.RED:\n            return 'red'\n"
        "    return 'other'\n"
        "print(d.bump(), d.k, order, d.extra, '{0.k}/{0.items[0]}'.format(d), kind(P(0, 7)), kind(4), kind(Color.RED))"
    )
    (reply,) = _session([code], str(tmp_path))
    assert reply["ok"], reply
    # Python: d.k += d.inc() reads k (0) before inc() sets it to 10: 0 + 1 = 1, then * 3.
    assert reply["stdout"] == "3 3 [0] 5 3/0 P0 7 int 4 red\n"


@pytest.fixture
def helpers():
    from pibench_tui.sandbox import child

    child._SANDBOX_MODULE_IDS.update(id(m) for m in child.policy.module_copies().values())
    return child._attribute_helpers()


def test_a_module_in_a_public_attribute_is_refused_and_a_held_module_is_inert(helpers) -> None:
    """A public attribute whose value is a real module (as a library could expose ``.os``)
    is refused by the helper every attribute read goes through, by getattr and by a format
    field; a real module agent code got hold of anyway (inside a container) cannot be read
    from (dotted, getattr, vars, format). The sandbox's own module copies still read."""
    import os as real_os

    from pibench_tui.sandbox.policy import SandboxError, module_copies

    holder = types.SimpleNamespace(os=real_os, n=1)
    get, getattr_, vars_ = helpers["__pibench_get__"], helpers["getattr"], helpers["vars"]
    assert get(holder, "n") == 1
    for attempt in (
        lambda: get(holder, "os"),
        lambda: getattr_(holder, "os"),
        lambda: vars_(holder),
        lambda: get(real_os, "system"),
        lambda: getattr_(real_os, "environ"),
        lambda: vars_(real_os),
        lambda: helpers["__pibench_attr__"](real_os, "_exit"),
    ):
        with pytest.raises(SandboxError, match="module objects other than the sandbox's copies"):
            attempt()
    math_copy = module_copies()["math"]
    assert get(math_copy, "pi") > 3 and getattr_(module_copies()["numpy"], "random") is module_copies()["numpy.random"]
