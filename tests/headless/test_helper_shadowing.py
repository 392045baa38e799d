"""The first layer's runtime checks cannot be replaced or raced by agent code (issue 28,
QA pass 4 F1/F2). The static check rewrites attribute reads and ``match`` statements into
calls of helpers that agent code must not rebind, and a ``match`` statement's pattern
classes are checked at run time. Two classes of escape followed, each giving the real
``os``, ``sys`` and ``open``:

* **shadowing the helpers** without a name binding the static check sees: a write to
  ``globals()`` (or ``locals()`` at module level or in a class body), to the builtins dict
  reached through ``globals()['__builtins__']``, or a class body whose namespace comes
  from a metaclass ``__prepare__`` (made with three-argument ``type()``) answering the
  helpers' names itself;
* **a pattern class read twice**: ``case k.C(v)`` evaluated ``k.C`` once for the check and
  again for the match, so a property could hand the check a harmless class and the match
  a malicious one (the same for value patterns).

Through the real command (JSON lines)."""

from __future__ import annotations

import json

import pytest

from tests.headless.conftest import jsonl_replies

#: A class pattern whose metaclass answers every isinstance and whose __match_args__ names
#: a private attribute: what the match check refuses, so each attack first disables it.
RAW_READER = (
    "M = type('M', (type,), {'__instancecheck__': lambda cls, o: True})\n"
    "def raw(obj, name):\n"
    "    K = M('K', (), {'__match_args__': (name,)})\n"
    "    match obj:\n"
    "        case K(v):\n"
    "            return v\n"
    "    raise AttributeError(name)\n"
)
ESCAPE = "import numpy as np\nprint('ESCAPED', raw(np.zeros(1).ctypes, '_ctypes'))\n"

SHADOWING = {
    "globals() write": RAW_READER + "globals()['__pibench_match__'] = lambda *a, **k: None\n" + ESCAPE,
    "globals() write of the attribute helper": (
        RAW_READER
        + "globals()['__pibench_match__'] = lambda *a, **k: None\n"
        + "globals()['__pibench_attr__'] = raw\n"
        + "import numpy as np\nprint('ESCAPED', np.zeros(1).ctypes._ctypes)\n"
    ),
    "builtins dict through globals()": (
        RAW_READER + "globals()['__builtins__']['__pibench_match__'] = lambda *a, **k: None\n" + ESCAPE
    ),
    "module-level locals()": RAW_READER + "locals()['__pibench_match__'] = lambda *a, **k: None\n" + ESCAPE,
    "class-body locals()": (
        "M = type('M', (type,), {'__instancecheck__': lambda cls, o: True})\n"
        "import numpy as np\n"
        "class X:\n"
        "    locals()['__pibench_match__'] = lambda *a, **k: None\n"
        "    K = M('K', (), {'__match_args__': ('_ctypes',)})\n"
        "    match np.zeros(1).ctypes:\n"
        "        case K(v):\n"
        "            print('ESCAPED', v)\n"
    ),
    "metaclass __prepare__ namespace": (
        "class NS(dict):\n"
        "    def __getitem__(self, k):\n"
        "        if k == '__pibench_match__':\n"
        "            return lambda *a, **kw: None\n"
        "        if k in self:\n"
        "            return dict.get(self, k)\n"
        "        raise KeyError(k)\n"
        "P = type('P', (type,), {'__prepare__': classmethod(lambda mcls, name, bases, **kw: NS())})\n"
        "M = type('M', (type,), {'__instancecheck__': lambda cls, o: True})\n"
        "import numpy as np\n"
        "class X(P('Base', (), {})):\n"
        "    K = M('K', (), {'__match_args__': ('_ctypes',)})\n"
        "    match np.zeros(1).ctypes:\n"
        "        case K(v):\n"
        "            print('ESCAPED', v)\n"
    ),
}


@pytest.mark.parametrize("attack", sorted(SHADOWING))
def test_agent_code_cannot_shadow_the_runtime_checks(attack: str, tmp_path) -> None:
    """Each route to rebind a helper of the first layer is refused with a SandboxError
    (globals()/locals() are read-only copies without the helpers or the builtins dict, so
    reading ``__builtins__`` there is a KeyError; a
    class statement may not use a metaclass made at run time), and the escape that would
    follow never runs."""
    (reply,) = jsonl_replies([SHADOWING[attack]], str(tmp_path))
    assert "ESCAPED" not in json.dumps(reply), reply
    assert not reply["ok"], reply
    assert reply["error"]["type"] in ("SandboxError", "KeyError"), reply  # KeyError: no __builtins__


RACE = (
    "M = type('M', (type,), {'__instancecheck__': lambda cls, o: True})\n"
    "Bad = M('Bad', (), {'__match_args__': ('_ctypes',)})\n"
    "class Good:\n    __slots__ = ()\n"
    "reads = []\n"
    "class K:\n"
    "    @property\n"
    "    def C(self):\n"
    "        reads.append(1)\n"
    "        return Good if len(reads) == 1 else Bad\n"
    "k = K()\n"
    "import numpy as np\n"
    "match np.zeros(1).ctypes:\n"
    "    case k.C(c):\n"
    "        print('ESCAPED', c)\n"
    "    case _:\n"
    "        print('no match')\n"
    "print('reads', len(reads))\n"
)

VALUE_RACE = (
    "class Own:\n    _ctypes = 'own'\n"
    "import numpy as np\n"
    "reads = []\n"
    "class K:\n"
    "    @property\n"
    "    def obj(self):\n"
    "        reads.append(1)\n"
    "        return Own() if len(reads) == 1 else np.zeros(1).ctypes\n"
    "k = K()\n"
    "class Grab:\n"
    "    def __eq__(self, other):\n"
    "        print('ESCAPED' if not isinstance(other, str) else 'own value', other)\n"
    "        return True\n"
    "match Grab():\n"
    "    case k.obj._ctypes:\n"
    "        pass\n"
    "print('reads', len(reads))\n"
)


def test_a_pattern_class_is_read_once_and_matched_as_checked(tmp_path) -> None:
    """``case k.C(v)`` with ``k.C`` a property: the class is read once; the match uses the
    class the check passed (a harmless one that does not match), never a second read."""
    (reply,) = jsonl_replies([RACE], str(tmp_path))
    assert "ESCAPED" not in json.dumps(reply), reply
    assert reply["ok"], reply
    assert reply["stdout"] == "no match\nreads 1\n", reply


def test_a_value_pattern_is_read_once(tmp_path) -> None:
    """``case k.obj._ctypes`` (a value pattern) is read once, through the attribute rule: the
    second read that would have handed a library object's private attribute to agent
    ``__eq__`` never happens."""
    (reply,) = jsonl_replies([VALUE_RACE], str(tmp_path))
    assert "ESCAPED" not in json.dumps(reply), reply
    assert reply["ok"], reply
    assert reply["stdout"] == "own value own\nreads 1\n", reply


NAMESPACES_STILL_WORK = (
    "x = 3\n"
    "g = globals()\n"
    "print(g['x'], 'x' in g, '__builtins__' in g, any(k.startswith('__pibench') for k in g))\n"
    "def f(a, b=2):\n    return sorted(locals().items())\n"
    "print(f(1))\n"
    "class C:\n    y = 5\n    names = sorted(k for k in locals() if not k.startswith('__'))\n"
    "print(C.names)\n"
    "import enum\nclass Colour(enum.Enum):\n    RED = 1\n    BLUE = 2\n"
    "match Colour.BLUE:\n    case Colour.RED:\n        print('red')\n    case Colour.BLUE:\n        print('blue')\n"
    "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\n    y: int\n"
    "import typing\nT = typing.TypeVar('T')\nclass Box(typing.Generic[T]):\n    pass\n"
    "class Pair(typing.NamedTuple):\n    a: int\n    b: int\n"
    "match Pair(1, 2):\n    case Pair(a, b=b):\n        print('pair', a, b)\n"
    "for p in (P(1, 2), P(0, 5), 7):\n"
    "    match p:\n"
    "        case P(0, y):\n            print('on the axis', y)\n"
    "        case P(x, y):\n            print('point', x, y)\n"
    "        case int(n):\n            print('int', n)\n"
)


def test_namespace_views_and_matches_work_as_in_python(tmp_path) -> None:
    """What agent code reads through globals()/locals() is as in Python (its own names; the
    helpers and the builtins dict are not among them), and ordinary match statements (enum
    values, dataclass patterns, int(n)) behave as in Python."""
    (reply,) = jsonl_replies([NAMESPACES_STILL_WORK], str(tmp_path))
    assert reply["ok"], reply
    assert reply["stdout"] == (
        "3 True False False\n[('a', 1), ('b', 2)]\n['y']\nblue\npair 1 2\npoint 1 2\non the axis 5\nint 7\n"
    ), reply


HOOKED = (
    "import abc\nimport numpy as np\n"
    "R = abc.ABCMeta('R', (), {'__subclasshook__': classmethod(lambda c, s: True), '__match_args__': ('_ctypes',)})\n"
    "print(isinstance(np.zeros(1).ctypes, R))\n"
    "match np.zeros(1).ctypes:\n"
    "    case R(ct):\n"
    "        print('ESCAPED', ct)\n"
    "    case _:\n"
    "        print('no match')\n"
)

CHANGED_AFTER_CHECK = (
    "import abc, dataclasses, copy\n"
    "C = abc.ABCMeta('C', (), {'__subclasshook__': classmethod(lambda c, s: True),"
    " '__annotations__': {'__globals__': 'object'}})\n"
    "def subject():\n"
    "    dataclasses.dataclass(C)\n"
    "    return copy.deepcopy\n"
    "match subject():\n"
    "    case C(g):\n"
    "        print('ESCAPED', type(g))\n"
)

ENTRIES_TWICE = (
    "import functools\n"
    "class NS(dict):\n"
    "    def __missing__(self, key):\n"
    "        if key == '__pibench_get__':\n"
    "            return lambda obj, name: 'ESCAPED'\n"
    "        raise KeyError(key)\n"
    "EM = type('EM', (type,), {'__prepare__': classmethod(lambda mcs, name, bases, **kw: NS())})\n"
    "Evil = EM('Evil', (), {})\n"
    "calls = []\n"
    "def entries(bases):\n"
    "    calls.append(1)\n"
    "    return (object,) if len(calls) == 1 else (Evil,)\n"
    "class Carrier:\n    pass\n"
    "c = Carrier()\n"
    "vars(c)['__mro_entries__'] = entries\n"
    "p = functools.update_wrapper(functools.partial(print), c)\n"
    "class Victim(p):\n"
    "    x = (1).real\n"
    "print(Victim.x)\n"
)


def test_a_reading_pattern_matches_by_the_subjects_real_type(tmp_path) -> None:
    """A class pattern that reads attributes matches only a subject whose real type has
    the class in its MRO: an ``abc.ABCMeta`` class whose ``__subclasshook__`` (passed in a
    namespace dict, where the static check never sees it) says yes to anything still
    passes ``isinstance``, but its pattern no longer matches a library object and reads
    none of its private attributes (QA pass 4: it handed out the real ctypes, os, sys)."""
    (reply,) = jsonl_replies([HOOKED], str(tmp_path))
    assert "ESCAPED" not in json.dumps(reply), reply
    assert reply["ok"] and reply["stdout"] == "True\nno match\n", reply


def test_a_pattern_reads_the_match_args_that_were_checked(tmp_path) -> None:
    """The subject's expression runs after the check: there ``dataclass(C)`` gave ``C``
    ``__match_args__ = ('__globals__',)``. The pattern reads the tuple the check read (none
    here), so the match fails instead of reading a function's globals."""
    (reply,) = jsonl_replies([CHANGED_AFTER_CHECK], str(tmp_path))
    assert "ESCAPED" not in json.dumps(reply), reply


def test_a_base_resolved_twice_is_refused(tmp_path) -> None:
    """A ``functools.partial`` carrying an ``__mro_entries__`` in its dict (copied there by
    ``update_wrapper``) could answer the class check ``object`` and the class statement a
    base whose metaclass ``__prepare__`` answers the helpers' names: a non-class base must
    be a library's (``NamedTuple``, ``Generic[T]``)."""
    (reply,) = jsonl_replies([ENTRIES_TWICE], str(tmp_path))
    assert "ESCAPED" not in json.dumps(reply), reply
    assert not reply["ok"] and reply["error"]["type"] == "SandboxError", reply
    assert "must be a library's" in reply["error"]["message"], reply
