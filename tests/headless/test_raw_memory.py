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
