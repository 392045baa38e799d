"""Private attributes of objects agent code did not define (issue 25 §4): the class of the
``np.zeros(1).ctypes._ctypes._os`` escape (the real ``os``, ``sys`` and ``ctypes`` with no
dunder and no import) is closed for every spelling — dotted, ``getattr``, ``attrgetter``,
``x . _y`` — while agent code keeps its own private attributes. Through the real command."""

from __future__ import annotations

import json

import pytest

from tests.headless.conftest import jsonl_replies

ATTACKS = {
    "numpy ctypes": "import numpy as np\nr = np.zeros(1).ctypes._ctypes._os.getpid()",
    "getattr": "import numpy as np\nr = getattr(getattr(np.zeros(1).ctypes, '_ctypes'), '_os')",
    "attrgetter": "import numpy as np, operator\nr = operator.attrgetter('_ctypes._os')(np.zeros(1).ctypes)",
    "spaced": "import numpy as np\nr = np.zeros(1).ctypes . _ctypes",
    "a function's private attribute": "import json\nr = json.dumps._x",
    "a subclass of a library class": (
        "import numpy as np\nclass A(np.ndarray):\n    pass\n"
        "a = np.zeros(1).view(A)\nr = [n for n in dir(np.ndarray) if n.startswith('_') and not n.endswith('__')]\n"
        "r = [getattr(a, n) for n in r]\nr = r or a._no_such_thing"
    ),
    "setattr on a library object": "import numpy as np\nsetattr(np.zeros(1).ctypes, '_x', 1)",
}

OWN = (
    "class Box:\n    _kind = 'box'\n    def __init__(self):\n        self._items = [1, 2]\n"
    "    def _count(self):\n        return len(self._items)\n"
    "b = Box()\nsetattr(b, '_more', 3)\nprint(b._kind, b._count(), getattr(b, '_items'), b._more, Box._kind)"
)


_session = jsonl_replies


def test_private_attributes_of_objects_agent_code_did_not_define_are_refused(tmp_path) -> None:
    """Each route to a library object's (or pibench's) private attribute ends in a
    SandboxError naming the rule; none reaches a module; an agent class's own private
    attributes (class, instance, method, set with setattr) still read as in Python."""
    replies = _session([*ATTACKS.values(), OWN], str(tmp_path))
    assert len(replies) == len(ATTACKS) + 1
    for (what, _), reply in zip(ATTACKS.items(), replies, strict=False):
        text = json.dumps(reply)
        assert not reply["ok"] or "SandboxError" in text, (what, reply)
        assert "private attributes" in text, (what, reply)
    own = replies[-1]
    assert own["ok"], own
    assert "box 2 [1, 2] 3 box" in json.dumps(own)


@pytest.mark.parametrize("name", ["_x", "_ctypes", "__dict__x"])
def test_the_private_rule_names(name: str) -> None:
    """A leading underscore without the dunder form is private; dunders keep their own rule."""
    from pibench_tui.sandbox import policy

    assert policy.is_private(name) == (not policy.is_dunder(name))


MATCH_ESCAPE = (
    "M = type('M', (type,), {'__instancecheck__': lambda s, o: True})\n"
    "C = M('C', (), {'__match_args__': ('gi_frame',)})\n"
    "G = M('G', (), {'__match_args__': ('f_globals',)})\n"
    "def g():\n    yield 1\n"
    "match g():\n    case C(fr):\n        match fr:\n            case G(gl):\n                print('ESCAPED', sorted(gl)[:3])\n"
)
MATCH_PLAIN = (
    "import numpy as np\nmatch np.zeros(1).ctypes:\n    case object(_ctypes=x):\n        print('ESCAPED', x)\n"
)
MATCH_OK = (
    "from dataclasses import dataclass\nfrom collections.abc import Mapping\n"
    "@dataclass\nclass P:\n    x: int\n    y: int\n"
    "match P(1, 2):\n    case P(a, b):\n        print('P', a, b)\n"
    "match {'k': 1}:\n    case Mapping():\n        print('mapping')\n"
    "match 5:\n    case int(v):\n        print('int', v)\n"
)


def test_match_class_patterns_read_only_what_the_attribute_rule_allows(tmp_path) -> None:
    """A class pattern's positional subpatterns read the attributes its __match_args__
    names, unchecked: a class made with type() whose metaclass answers every isinstance
    read a generator's frame and then the agent's globals (the issue's route). Now every
    match statement checks its pattern classes first (their __match_args__ against the
    attribute rule, no metaclass of agent code computing lookups or isinstance), private
    keyword attributes are refused statically, and ordinary patterns (a dataclass, an ABC,
    int(v)) match as in Python."""
    escape, plain, ok = _session([MATCH_ESCAPE, MATCH_PLAIN, MATCH_OK], str(tmp_path))
    assert not escape["ok"] and "ESCAPED" not in json.dumps(escape), escape
    assert "metaclass defines __instancecheck__" in escape["error"]["message"]
    assert not plain["ok"] and "ESCAPED" not in json.dumps(plain), plain
    assert "private attributes" in plain["error"]["message"]
    assert ok["ok"] and ok["stdout"] == "P 1 2\nmapping\nint 5\n", ok


def test_dataclass_field_names_must_be_identifiers(tmp_path) -> None:
    """dataclasses writes field names into the source it runs with exec; a class made with
    type() can carry an __annotations__ key that is code, not a name. Such a class is
    refused by the sandbox's dataclass with a SandboxError naming the field (before: the
    real one ran the generated source); ordinary dataclasses, with or without arguments,
    work."""
    bad = (
        "import dataclasses\n"
        "C = type('C', (), {'__annotations__': {'x=print(\"INJECTED\"),y': int}})\n"
        "dataclasses.dataclass(C)"
    )
    good = (
        "from dataclasses import dataclass, field\n@dataclass(frozen=True)\nclass A:\n    x: int\n"
        "    y: list = field(default_factory=list)\n@dataclass\nclass B:\n    z: str = 'b'\nprint(A(1), B())"
    )
    refused, fine = _session([bad, good], str(tmp_path))
    assert not refused["ok"] and refused["error"]["type"] == "SandboxError", refused
    assert "is not an identifier" in refused["error"]["message"] and not refused["stdout"]
    assert fine["ok"] and fine["stdout"] == "A(x=1, y=[]) B(z='b')\n", fine


TYPING = {
    "forward reference's evaluator": (
        "import typing\nf = typing.get_args(typing.List['__import__(\"os\")'])[0]\n"
        "r = f._evaluate(globals(), {}, frozenset())"
    ),
    "evaluator by getattr": "import typing\nr = getattr(typing.get_args(typing.Optional['x'])[0], '_evaluate')",
    "get_type_hints": "import typing\nr = typing.get_type_hints(type('A', (), {'__annotations__': {'x': 'int'}}))",
    "ForwardRef made directly": "import typing\nr = typing.ForwardRef('1')",
}


def test_typing_forward_references_cannot_evaluate_agent_strings(tmp_path) -> None:
    """Issue 28, the ``typing`` class: a forward reference's private evaluator ran an agent
    string with the real builtins. Every route to an evaluation of a string annotation
    (the private evaluator of a ForwardRef the public ``typing.get_args`` hands out, by
    attribute or ``getattr``; ``get_type_hints``; ``ForwardRef`` itself) is refused with a
    SandboxError or is absent (a quoted type is not even compiled now: see
    test_library_internals.py), through the real command; no reply holds a module."""
    replies = _session(list(TYPING.values()), str(tmp_path))
    assert len(replies) == len(TYPING)
    for (what, _), reply in zip(TYPING.items(), replies, strict=False):
        assert not reply["ok"], (what, reply)
        text = json.dumps(reply)
        refusals = ("private attributes", "not available", "no attribute", "compiles or runs Python source")
        assert any(r in text for r in refusals), (what, reply)
        assert "<module" not in text, (what, reply)


FILE_WRITES = {
    "ndarray.tofile": "import numpy as np\nnp.zeros(2).tofile('x.bin')",
    "ndarray.dump": "import numpy as np\nnp.arange(3).dump('x.pkl')",
    "a scalar's dump": "import numpy as np\nnp.float64(1.5).dump('x.pkl')",
    "by getattr": "import numpy as np\ngetattr(np.zeros(1), 'tofile')('x.bin')",
    "unbound": "import numpy as np\nnp.ndarray.tofile(np.zeros(1), 'x.bin')",
    "methodcaller": "import numpy as np, operator\noperator.methodcaller('dump', 'x.pkl')(np.zeros(1))",
}


def test_numpy_file_writing_methods_are_refused_saying_why(tmp_path) -> None:
    """`a.tofile(...)` and `a.dump(...)` of a numpy array or scalar, by any route, end in a
    SandboxError saying they write a file and the agent process has no file access (before:
    a SystemError or 'Too many open files' from the confinement); an agent class's own
    `dump` method still runs."""
    own = "class Log:\n    def dump(self):\n        return 'dumped'\nprint(Log().dump())"
    replies = _session([*FILE_WRITES.values(), own], str(tmp_path))
    assert len(replies) == len(FILE_WRITES) + 1
    for (what, _), reply in zip(FILE_WRITES.items(), replies, strict=False):
        text = json.dumps(reply)
        assert not reply["ok"] and "SandboxError" in text, (what, reply)
        assert "writes a file, and the agent process has no file access" in text, (what, reply)
        assert "SystemError" not in text and "Too many open files" not in text, (what, reply)
    assert replies[-1]["ok"] and "dumped" in json.dumps(replies[-1]), replies[-1]


@pytest.mark.parametrize(
    ("doc", "start", "end"),
    [
        ("README.md", "dunder attributes other\nthan the readable ones:", ";"),
        ("docs/headless.md", "reading dunder attributes\n  other than", "(so"),
    ],
)
def test_the_docs_list_exactly_the_readable_dunders_of_the_code(doc: str, start: str, end: str) -> None:
    """The README and docs/headless.md name the dunder attributes agent code may read: the
    same names as the sandbox's READABLE_DUNDERS, no more and no fewer (the README named
    four of the eight)."""
    import re
    from pathlib import Path

    from pibench_tui.sandbox.policy import READABLE_DUNDERS

    text = (Path(__file__).resolve().parents[2] / doc).read_text()
    assert start in text, f"{doc}: the sentence listing the readable dunders moved"
    listed = text.split(start, 1)[1].split(end, 1)[0]
    assert set(re.findall(r"`(__\w+__)`", listed)) == READABLE_DUNDERS, listed
