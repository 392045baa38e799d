"""The first layer's runtime checks judge exactly what the real operation then uses
(QA pass 5 F2, F3, F6, F7). Each escape below reached child.py's real globals (hence
``os``, ``sys`` and ``open``) or text of the real ``os`` module:

* **F2, a lying attribute name**: ``getattr``/``setattr``/``attrgetter``/``functools.wraps``
  ... checked a ``str`` subclass with its own ``startswith``/``__len__``/``__eq__``/``__hash__``
  and then used its real characters: ``getattr(copy.deepcopy, Name('__globals__'))``.
  Every check now converts a name to an exact ``str`` first and passes that on.
* **F3, ``super(C, obj).__dunder__``**: the static check exempted any ``super(...)`` from the
  dunder rule: ``super(abc.ABCMeta, abc.ABCMeta).__subclasses__`` listed every class of the
  process, ``.__setattr__`` was ``type.__setattr__`` on any class. Only argument-less
  ``super()`` keeps the exemption; bound to a class it gives ``__new__`` only; its
  ``__setattr__``/``__delattr__`` check the name.
* **F6, star import of a dunder**: ``from math import *`` bound what the copy's ``__all__``
  named, ``__pibench_get__`` included (the write came from F3's route).
* **F7, a format field read twice**: ``format_map`` (and ``format`` through a property) read
  each value once for the check and again for the real call; the values are now read
  once and formatted as read.

Through the real command (JSON lines)."""

from __future__ import annotations

import json

import pytest

from tests.headless.conftest import jsonl_replies

#: A str subclass whose Python-level methods lie about its characters (``Name``), and one
#: whose ``__eq__``/``__hash__`` pass for ``'__doc__'`` (``Doc``).
LIAR = (
    "import copy, operator, functools\n"
    "class Name(str):\n"
    "    def startswith(self, *a):\n        return False\n"
    "    def endswith(self, *a):\n        return False\n"
    "    def __len__(self):\n        return 1\n"
    "    def split(self, *a):\n        return [self]\n"
    "class Doc(str):\n"
    "    def __eq__(self, other):\n        return other == '__doc__'\n"
    "    def __hash__(self):\n        return hash('__doc__')\n"
)

LYING_NAMES = {
    "getattr": "print('ESCAPED', type(getattr(copy.deepcopy, Name('__globals__'))))\n",
    "getattr with a default": "v = getattr(copy.deepcopy, Name('__code__'), None)\nprint('refused' if v is None else 'ESCAPED')\n",
    "hasattr": "print('ESCAPED' if hasattr(copy.deepcopy, Name('__globals__')) else 'refused')\n",
    "setattr": "class C:\n    pass\nsetattr(C, Name('__match_args__'), ('__globals__',))\nprint('ESCAPED')\n",
    "delattr": "class C:\n    pass\ndelattr(C, Name('__doc__'))\nprint('ESCAPED')\n",
    "operator.attrgetter": "print('ESCAPED', type(operator.attrgetter(Name('__globals__'))(copy.deepcopy)))\n",
    "operator.methodcaller": "print('ESCAPED', operator.methodcaller(Name('__reduce_ex__'), 2)(copy.deepcopy))\n",
    "functools.update_wrapper": (
        "def g():\n    pass\n"
        "functools.update_wrapper(g, copy.deepcopy, assigned=(Doc('__code__'),), updated=())\n"
        "print('ESCAPED: not refused')\n"
    ),
}


@pytest.mark.parametrize("route", sorted(LYING_NAMES))
def test_a_str_subclass_name_is_checked_by_its_characters(route: str, tmp_path) -> None:
    """A ``str`` subclass whose methods lie is judged (and used) as its real characters:
    every route taking an attribute name refuses the dunder with a SandboxError (which
    ``getattr`` with a default and ``hasattr`` answer as a missing attribute, as for a
    plain ``str``)."""
    (reply,) = jsonl_replies([LIAR + LYING_NAMES[route]], str(tmp_path))
    assert "ESCAPED" not in json.dumps(reply), reply
    if route in ("getattr with a default", "hasattr"):
        assert reply["ok"] and reply["stdout"] == "refused\n", reply
        return
    assert not reply["ok"], reply
    assert reply["error"]["type"] == "SandboxError", reply


SUPER_ATTACKS = {
    "super(C, C).__subclasses__": "import abc\nprint('ESCAPED', super(abc.ABCMeta, abc.ABCMeta).__subclasses__)\n",
    "super(C, C).__setattr__": "import abc\nprint('ESCAPED', super(abc.ABCMeta, abc.ABCMeta).__setattr__)\n",
    "super(M, C).__dict__": (
        "import abc, collections.abc\nprint('ESCAPED', super(abc.ABCMeta, collections.abc.Mapping).__dict__)\n"
    ),
    "super(type(m), m).__setattr__ on a module": (
        "import math\nsuper(type(math), math).__setattr__('__all__', ['x'])\nprint('ESCAPED')\n"
    ),
    "super() in a classmethod": (
        "import math\n"
        "class C:\n    @classmethod\n    def raw(cls):\n        return super().__setattr__\n"
        "C.raw()(math, '__all__', ['x'])\nprint('ESCAPED')\n"
    ),
    "super().__setattr__ of a dunder": (
        "class C:\n    def put(self, name, value):\n        super().__setattr__(name, value)\n"
        "class D:\n    pass\n"
        "C().put('__class__', D)\nprint('ESCAPED')\n"
    ),
    "super().__subclasses__": "class M(type):\n    def subs(cls):\n        return super().__subclasses__\nprint('ESCAPED')\n",
    "star import of a dunder __all__ (F6)": (
        "import math\n"
        "def evil(obj, name):\n    return 'ESCAPED'\n"
        "super(type(math), math).__setattr__('__pibench_get__', evil)\n"
        "super(type(math), math).__setattr__('__all__', ['__pibench_get__'])\n"
        "from math import *\nprint((1).real)\n"
    ),
}


@pytest.mark.parametrize("attack", sorted(SUPER_ATTACKS))
def test_super_reaches_no_interpreter_internals(attack: str, tmp_path) -> None:
    """``super(...)`` with arguments follows the ordinary dunder rule; argument-less
    ``super()`` refuses ``__subclasses__``, gives only ``__new__`` when bound to a class, and
    its ``__setattr__`` refuses a dunder name: each attack stops with a SandboxError."""
    (reply,) = jsonl_replies([SUPER_ATTACKS[attack]], str(tmp_path))
    assert "ESCAPED" not in json.dumps(reply), reply
    assert not reply["ok"], reply
    assert reply["error"]["type"] == "SandboxError", reply


FORMAT_TWICE = (
    "import numpy as np\n"
    "class Own:\n"
    "    def __init__(self):\n        self._ctypes = self\n        self._os = self\n        self.environ = 'harmless'\n"
    "n = [0]\n"
    "class Twice(dict):\n"
    "    def __getitem__(self, key):\n"
    "        n[0] += 1\n"
    "        return Own() if n[0] == 1 else np.zeros(1).ctypes\n"
    "print('{x._ctypes._os.environ}'.format_map(Twice()))\n"
    "m = [0]\n"
    "class P:\n"
    "    @property\n"
    "    def a(self):\n"
    "        m[0] += 1\n"
    "        return Own() if m[0] == 1 else np.zeros(1).ctypes\n"
    "print('{0.a._ctypes._os.environ}'.format(P()))\n"
    "print(n[0], m[0])\n"
)


def test_format_fields_are_read_once_and_formatted_as_checked(tmp_path) -> None:
    """``format_map`` looks each key up once and ``format`` reads each attribute once: the
    harmless values the check followed are what is formatted (before, the second read gave
    ``np.zeros(1).ctypes`` and the text of the real ``os.environ``)."""
    (reply,) = jsonl_replies([FORMAT_TWICE], str(tmp_path))
    assert "environ(" not in json.dumps(reply), reply
    assert reply["ok"], reply
    assert reply["stdout"] == "harmless\nharmless\n1 1\n", reply


ORDINARY = (
    "import collections, operator, functools\n"
    "class Base:\n"
    "    def __init__(self, n):\n        self.n = n\n"
    "    def __eq__(self, other):\n        return isinstance(other, Base) and self.n == other.n\n"
    "    __hash__ = None\n"
    "class Kid(Base):\n"
    "    def __new__(cls, *a):\n        return super().__new__(cls)\n"
    "    def __init__(self, n):\n        super().__init__(n)\n        self._k = 1\n"
    "    def __eq__(self, other):\n        return super().__eq__(other)\n"
    "    def __setattr__(self, name, value):\n        super().__setattr__(name, value)\n"
    "k = Kid(3)\n"
    "print(k == Kid(3), getattr(k, 'm', 'dflt'), getattr(k, '_k'), hasattr(k, 'n'))\n"
    "setattr(k, 'z', 5)\nprint(k.z, operator.attrgetter('n', '_k')(k), operator.methodcaller('bit_length')(5))\n"
    "print('{0.n} {0._k:>3} {1[0]:.2f}'.format(k, [1.5]))\n"
    "print('{.n}-{}'.format(k, 2), '{x.n}/{y}'.format_map({'x': k, 'y': 2}), '{a}'.format_map(collections.defaultdict(int)))\n"
    "print(str.format('{0.n}', k), collections.UserString('{0.n}').format(k))\n"
    "from math import *\nprint(sqrt(16))\n"
)


def test_ordinary_names_super_and_formatting_work_as_in_python(tmp_path) -> None:
    """The idioms the checks must keep: ``super().__new__/__init__/__eq__/__setattr__``,
    ``getattr`` with a default, ``attrgetter``/``methodcaller``, ``format`` with attribute and
    index fields (automatic numbering too), ``format_map`` on a dict and a defaultdict, a
    star import: output as in Python."""
    (reply,) = jsonl_replies([ORDINARY], str(tmp_path))
    assert reply["ok"], reply
    assert reply["stdout"] == ("True dflt 1 True\n5 (3, 1) 3\n3   1 1.50\n3-2 3/2 0\n3 3\n4.0\n"), reply
