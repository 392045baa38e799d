"""ctypes objects are out of reach of agent code (issue 25 §4 / issue 28, the first layer):
``type(np.zeros(1).ctypes.shape)`` is a ctypes array type whose public ``from_address`` reads
and writes any address; with ``id()`` a QA tester planted the real builtins dict in a list and
imported ``os`` (the OS layer still held). Every attribute read that would hand agent code a
ctypes object or type, or read from one, is refused, whatever the route; numpy arrays work
as before. Through the real ``pibench headless``."""

from __future__ import annotations

import json

from tests.headless.conftest import jsonl_replies

SETUP = "import numpy as np, operator, statistics\na = np.zeros(3)\n"

#: Routes to a ctypes object (each line alone must fail with the ctypes refusal).
ROUTES = {
    "the QA tester's escape": (
        "S = type(a.ctypes.shape)\nb = S.from_address(id(statistics.mean) + 24)[0]\nprint('ESCAPED', b)"
    ),
    "strides": "print('ESCAPED', a.ctypes.strides)",
    "getattr": "print('ESCAPED', getattr(a.ctypes, 'shape'))",
    "attrgetter": "print('ESCAPED', operator.attrgetter('shape')(a.ctypes))",
    "a format field": "print('ESCAPED', '{0.shape._type_}'.format(a.ctypes))",
    "a view's ctypes": "print('ESCAPED', a[1:].ctypes.shape)",
}


_session = jsonl_replies


def test_no_route_hands_agent_code_a_ctypes_object(tmp_path):
    """Each route is refused with the ctypes message and prints nothing; before, the escape
    printed the address of the real builtins and every other route printed a ctypes array."""
    replies = _session([SETUP, *ROUTES.values()], str(tmp_path / "home"))
    assert replies[0]["ok"], replies[0]
    for name, reply in zip(ROUTES, replies[1:], strict=True):
        assert not reply["ok"], name
        assert "ESCAPED" not in reply.get("stdout", ""), name
        assert "ctypes objects read and write raw memory" in json.dumps(reply), (name, reply)


def test_numpy_arrays_still_work(tmp_path):
    """What an agent does with arrays is untouched: shape, strides, sums, the data address as
    a number."""
    (reply,) = _session([SETUP + "print(a.shape, a.strides, a.sum(), a.ctypes.data > 0)"], str(tmp_path / "h"))
    assert reply["ok"], reply
    assert reply["stdout"] == "(3,) (8,) 0.0 True\n"


#: numpy's raw-pointer protocol: an object whose ``__array_interface__`` says ``"data":
#: (address, False)`` makes ``np.asarray(obj)`` an array over that memory. The block below
#: hides four known numbers at an address; each route prints them if it reads that memory.
PROTOCOL_SETUP = (
    "import numpy as np, abc, copy, dataclasses, enum\n"
    "N = '__array_' + 'interface__'\n"
    "f = np.array([1.5, 2.5, 3.5, 4.5])\n"
    "D = {'data': (f.ctypes.data, False), 'shape': (4,), 'typestr': '<f8', 'version': 3}\n"
    "def show(x):\n"
    "    print(np.asarray(x).tolist())\n"
)
SECRET = "[1.5, 2.5, 3.5, 4.5]"

#: Every way of making an object that answers the protocol (each printed the numbers before).
PROTOCOL_ROUTES = {
    "three-argument type()": "show(type('X', (), {N: D})())",
    "type(type)": "show(type(type)('X', (), {N: D})())",
    "a property in a class body": "class X:\n    @property\n    def __array_interface__(self):\n        return D\nshow(X())",
    "vars() of an instance": "class X:\n    pass\nx = X()\nvars(x)[N] = D\nshow(x)",
    "__dict__ of an instance": "class X:\n    pass\nx = X()\nx.__dict__[N] = D\nshow(x)",
    "__getattr__": "class X:\n    def __getattr__(self, name):\n        if name == N:\n            return D\n        raise AttributeError(name)\nshow(X())",
    "super().__setattr__": "class X:\n    def __init__(self):\n        super().__setattr__(N, D)\nshow(X())",
    "a copy's state": "class X:\n    def __reduce__(self):\n        return (X, (), {N: D})\nshow(copy.copy(X()))",
    "enum's functional API": "show(enum.Enum('E', {N: D, 'a': 1}).a)",
    "dataclasses.make_dataclass": (
        "class H(dict):\n    def __hash__(self):\n        return 0\n"
        "show(dataclasses.make_dataclass('C', [(N, dict, dataclasses.field(default=H(D)))])())"
    ),
    "abc.ABCMeta()": "show(abc.ABCMeta('X', (), {N: D})())",
    "a metaclass's __setattr__": (
        "M = type('M', (type,), {'__setattr__': lambda c, n, v: None})\nx = M('X', (), {})()\nvars(x)[N] = D\nshow(x)"
    ),
    "a base's __init_subclass__": (
        "B = type('B', (), {'__init_subclass__': classmethod(lambda c, **k: None)})\nshow(type('C', (B,), {N: D})())"
    ),
    "a module's __getattr__": "M = type('M', (type(np),), {})\nm = M('m')\nvars(m)['__getattr__'] = lambda n: D\nshow(m)",
}


def test_no_object_made_in_the_sandbox_answers_numpy_raw_pointer_protocol(tmp_path):
    """Each route either is refused or leaves numpy with no interface to read (an object array
    or an error): none reads the hidden numbers. Before, every route printed them (numpy read
    the agent process's memory at the address agent code chose)."""
    replies = _session([PROTOCOL_SETUP, *PROTOCOL_ROUTES.values()], str(tmp_path / "home"))
    assert replies[0]["ok"], replies[0]
    for name, reply in zip(PROTOCOL_ROUTES, replies[1:], strict=True):
        assert SECRET not in reply.get("stdout", ""), (name, reply)


def test_classes_arrays_and_numpy_helpers_work_under_the_guard(tmp_path):
    """The guard changes nothing an agent does with its own classes and numpy: dataclasses,
    enums, namedtuples, ``__getattr__`` for ordinary names, object arrays of agent objects,
    ndarray subclasses, ``np.broadcast_to`` (numpy's own interface helper)."""
    code = (
        "import collections, dataclasses, enum\n"
        "@dataclasses.dataclass\nclass P:\n    a: int = 1\n    def __getattr__(self, name):\n"
        "        if name.startswith('_'):\n            raise AttributeError(name)\n        return 7\n"
        "class E(enum.Enum):\n    A = 1\n"
        "T = collections.namedtuple('T', ['a'])\n"
        "class A(np.ndarray):\n    pass\n"
        "print(P(), P().anything, E.A.name, T(2).a, np.array([P(), P()], dtype=object).shape,"
        " np.zeros(3).view(A).sum(), np.broadcast_to(np.arange(2), (2, 2)).tolist(), show(f))"
    )
    replies = _session([PROTOCOL_SETUP, code], str(tmp_path / "home"))
    assert replies[1]["ok"], replies[1]
    assert replies[1]["stdout"] == f"{SECRET}\nP(a=1) 7 A 2 (2,) 0.0 [[0, 1], [0, 1]] None\n"
