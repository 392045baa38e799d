"""Library code never works for agent code around the first layer (issue 25 §4 / issue 28,
found by a fresh QA tester; the OS layer held each time). Three classes, each closed as a class:

* library code compiling a string agent code chose: ``typing.List["..."]`` compiles it into a
  ``ForwardRef``'s code object, which ran with the real builtins (``_evaluate``) or as a
  function made with ``type(f)(code, globals())``. No source is compiled in the agent process
  except pibench's blocks and two checked code generators (dataclasses, namedtuple);
* library code writing a class's ``__module__`` (``functools.update_wrapper(type(x), f)``)
  made a library class pass for agent code's own, opening its private attributes: what agent
  code made is known by identity, and update_wrapper writes only onto agent code's own;
* ``copy.deepcopy``'s memo holding library objects' internal state (private attributes, code
  objects, the originals kept alive): agent code reads back only its own entries;
* a base class's dataclass ``Field.name`` (a public, writable slot) renamed to code, then
  inherited by a new dataclass (``@dataclass`` or ``make_dataclass``): dataclasses wrote it
  into the source it compiles. Every field it compiles is checked where it compiles.

Through the real ``pibench headless``."""

from __future__ import annotations

from tests.headless.conftest import jsonl_replies

#: A class whose reduction rebuilds any object (``ident(target)``) and gives it a state.
REDUCE = (
    "import copy\ndef ident(x):\n    return x\nclass R:\n    def __init__(self, t, s):\n"
    "        self.t = t\n        self.s = s\n    def __reduce__(self):\n        return (ident, (self.t,), self.s)\n"
)

ATTACKS = {
    "ForwardRef._evaluate after update_wrapper": (
        "import functools, typing\ndef agentfn():\n    pass\n"
        "r = typing.get_args(typing.List[\"OUT.append((__import__('os').getuid(), open)) or int\"])[0]\n"
        "try:\n    functools.update_wrapper(type(r), agentfn)\nexcept AttributeError:\n    pass\n"
        "OUT = []\nr._evaluate({}, {'OUT': OUT}, frozenset())\nprint('ESCAPED', OUT)"
    ),
    "a function made of a ForwardRef's code from a deepcopy memo": (
        "import copy, typing, numpy as np\n"
        "def compiled(expr):\n    r = typing.get_args(typing.List[expr])[0]\n    memo = {}\n"
        "    copy.deepcopy(r, memo)\n"
        "    return [v for v in memo.values() if isinstance(v, dict)][0]['__forward_code__']\n"
        "def agentfn():\n    pass\nc = np.zeros(1).ctypes\n"
        "print('ESCAPED', type(agentfn)(compiled('c._ctypes._os'), globals())())"
    ),
    "update_wrapper onto a library class": (
        "import functools, numpy as np\ndef agentfn():\n    pass\nc = np.zeros(1).ctypes\n"
        "try:\n    functools.update_wrapper(type(c), agentfn)\nexcept AttributeError:\n    pass\n"
        "print('ESCAPED', c._arr)"
    ),
    "wraps onto a library class": (
        "import functools, numpy as np\ndef agentfn():\n    pass\nc = np.zeros(1).ctypes\n"
        "try:\n    functools.wraps(agentfn)(type(c))\nexcept AttributeError:\n    pass\n"
        "print('ESCAPED', c._arr)"
    ),
    "a deepcopy memo passed in": (
        "import copy, dataclasses\nm = {}\ncopy.deepcopy(dataclasses.field(default=1), m)\n"
        "print('ESCAPED' if any(isinstance(v, dict) and '_field_type' in v for v in m.values()) else 'held')\n"
        "print([v for v in m.values() if isinstance(v, list)] and 'ESCAPED')"
    ),
    "a base's dataclass field renamed, then inherited": (
        "import dataclasses\n@dataclasses.dataclass\nclass A:\n    a: int = 0\n"
        'dataclasses.fields(A)[0].name = "a,().__class__.__mro__[1].__subclasses__().__len__())#"\n'
        "@dataclasses.dataclass(init=False, repr=False, eq=True)\nclass C(A):\n    pass\n"
        "print('ESCAPED', (C() == C())[1])"
    ),
    "a base's dataclass field renamed, then make_dataclass": (
        "import dataclasses\n@dataclasses.dataclass\nclass A:\n    a: int = 0\n"
        'dataclasses.fields(A)[0].name = "a,().__class__.__mro__[1].__subclasses__().__len__())#"\n'
        "C = dataclasses.make_dataclass('C', [], bases=(A,), init=False, repr=False)\n"
        "print('ESCAPED', (C() == C())[1])"
    ),
    "enum.global_enum into the runtime's own module": (
        "import enum\nclass Off:\n    def __call__(self, *a, **k):\n        return None\n"
        "class E(Off, enum.Enum):\n    attribute_refusal = 1\n"
        "enum.global_enum(E)\ndef f(*, a=1):\n    return a\n"
        "setattr(f, '__kw' + 'defaults__', {'a': 2})\nprint('ESCAPED', f())"
    ),
    "enum.global_enum into the policy module, named by the functional API": (
        "import enum\nclass Off:\n    def __call__(self, *a, **k):\n        return None\n"
        "E = enum.Enum('E', ['attribute_refusal'], module='_pibench_sandbox_policy', type=Off)\n"
        "enum.global_enum(E)\ndef f(*, a=1):\n    return a\n"
        "setattr(f, '__kw' + 'defaults__', {'a': 2})\nprint('ESCAPED', f())"
    ),
    "copy's reduce slot state onto pibench's print": (
        REDUCE
        + "try:\n    copy.copy(R(print, (None, {'__qualname__': 'not_print'})))\nexcept SandboxError:\n    pass\n"
        "print('ESCAPED' if print.__qualname__ == 'not_print' else 'held')"
    ),
    "deepcopy's reduce slot state onto pibench's help defaults": (
        REDUCE + "try:\n    copy.deepcopy(R(help, (None, {'__defaults__': (5,)})))\nexcept SandboxError:\n    pass\n"
        "help()"
    ),
    "copy's reduce dict state into a library object's dictionary": (
        REDUCE + "import string\nt = string.Template('a')\n"
        "try:\n    copy.copy(R(t, {'_evil': 1}))\nexcept SandboxError:\n    pass\n"
        "print('ESCAPED' if '_evil' in dir(t) else 'held')"
    ),
    "update_wrapper onto pibench's print": (
        "import functools\ndef agentfn():\n    pass\n"
        "try:\n    functools.update_wrapper(print, agentfn)\nexcept SandboxError:\n    pass\n"
        "print('ESCAPED' if print.__name__ == 'agentfn' else 'held')"
    ),
    "dataclass() onto pibench's own API class": (
        "import dataclasses\ntry:\n    dataclasses.dataclass(type(lab))\nexcept SandboxError:\n    pass\n"
        "print('ESCAPED' if hasattr(type(lab), '__dataclass_fields__') else 'held')"
    ),
    "cached_property storing under a private name in a library object": (
        "import functools, string\ndef f(self):\n    return 1\ncp = functools.cached_property(f)\n"
        "cp.attrname = '_evil'\nsetattr(string.Template, 'evil_x', cp)\nt = string.Template('a')\n"
        "try:\n    t.evil_x\nexcept SandboxError:\n    pass\nprint('ESCAPED' if '_evil' in dir(t) else 'held')"
    ),
    "the memo a __deepcopy__ receives": (
        "import copy, dataclasses\nLEAK = []\nclass A:\n    def __deepcopy__(self, memo):\n"
        "        LEAK.append(memo)\n        return A()\n"
        "copy.deepcopy([dataclasses.field(default=1), A()])\nmemo = LEAK[0]\n"
        "print('ESCAPED', memo.get(id(memo)), dict(memo))"
    ),
}


def test_library_code_does_not_work_around_the_first_layer(tmp_path):
    """Each attack fails (a SandboxError naming the rule, or nothing leaks) and prints no
    ESCAPED line; before, the first two reached the real ``open`` and ``os``, the next two
    read a numpy object's private ``_arr``, and the memos held the private state."""
    replies = jsonl_replies(list(ATTACKS.values()), str(tmp_path / "home"))
    for name, reply in zip(ATTACKS, replies, strict=True):
        assert "ESCAPED" not in reply.get("stdout", ""), (name, reply)
    helped = replies[list(ATTACKS).index("deepcopy's reduce slot state onto pibench's help defaults")]
    assert "API namespaces" in helped["stdout"], helped  # help()'s default still None
    assert "typing compiles or runs Python source" in replies[0]["error"]["message"]
    assert "typing compiles or runs Python source" in replies[1]["error"]["message"]
    assert "private attributes" in replies[2]["error"]["message"]  # the class stayed a library class
    for renamed in (replies[5], replies[6]):  # refused where dataclasses would compile the name
        assert (
            "dataclass field name" in renamed["error"]["message"] and "not an identifier" in renamed["error"]["message"]
        )


def test_update_wrapper_names_why_it_refuses_a_library_class(tmp_path):
    """The refusal itself says what is wrong and what is valid."""
    (reply,) = jsonl_replies(
        ["import functools, numpy as np\nfunctools.update_wrapper(type(np.zeros(1).ctypes), print)"],
        str(tmp_path / "h"),
    )
    assert "the wrapper must be a function or class of your own" in reply["error"]["message"]


def test_ordinary_typing_dataclasses_copy_and_wraps_still_work(tmp_path):
    """What agent code does with these modules is unchanged: typing annotations without
    quotes, dataclasses, namedtuples, NamedTuple, make_dataclass, enums, functools.wraps on
    its own functions, private attributes of its own classes (type() ones too), a cyclic
    structure whose ``__deepcopy__`` uses the memo, ``deepcopy(x, {})``; ``typing.NamedTuple``
    in class syntax (its annotations are strings here: they are kept, never compiled) and with
    string types. A quoted forward reference is refused with advice."""
    code = (
        "import typing, dataclasses, collections, enum, functools, copy\n"
        "@dataclasses.dataclass\nclass P:\n    a: typing.Optional[int] = None\n"
        "    b: typing.List[int] = dataclasses.field(default_factory=list)\n"
        "T = collections.namedtuple('T', 'x y')\nN = typing.NamedTuple('N', [('a', int)])\n"
        "Q = dataclasses.make_dataclass('Q', [('x', int)])\nE = enum.Enum('E', 'A B')\n"
        "class Box:\n    def __init__(self):\n        self._v = 3\n"
        "def deco(f):\n    @functools.wraps(f)\n    def w(*a):\n        return f(*a)\n    return w\n"
        "@deco\ndef h():\n    return Box()._v\n"
        "X = type('X', (), {'_k': 5})\n"
        "class Node:\n    def __init__(self):\n        self.peer = None\n"
        "    def __deepcopy__(self, memo):\n        if id(self) in memo:\n            return memo[id(self)]\n"
        "        new = Node()\n        memo[id(self)] = new\n        new.peer = copy.deepcopy(self.peer, memo)\n"
        "        return new\n"
        "a, b = Node(), Node()\na.peer, b.peer = b, a\nc = copy.deepcopy(a)\n"
        "print(P(), T(1, 2), N(1), Q(2), E.A, h(), h.__name__, X()._k, c.peer.peer is c, copy.deepcopy({'x': [1]}, {}))"
    )
    named = (
        "import typing\nclass M(typing.NamedTuple):\n    a: int\n    b: 'str' = 'x'\n"
        "S = typing.NamedTuple('S', [('a', 'int'), ('b', float)])\nprint(M(1), M._fields, S(1, 2.0))"
    )
    ok, quoted, nt = jsonl_replies(
        [code, "import typing\nprint(typing.Optional['Node'])", named], str(tmp_path / "home")
    )
    assert ok["ok"], ok
    assert ok["stdout"] == "P(a=None, b=[]) T(x=1, y=2) N(a=1) Q(x=2) E.A 3 h 5 True {'x': [1]}\n"
    assert not quoted["ok"] and "Optional[Node], not Optional['Node']" in quoted["error"]["message"]
    assert nt["ok"] and nt["stdout"] == "M(a=1, b='x') ('a', 'b') S(a=1, b=2.0)\n", nt


#: Ordinary copies of agent code's objects and of library objects, which the copy guard keeps.
COPIES = (
    "import copy, dataclasses, functools, statistics\n"
    "class P:\n    def __init__(self):\n        self._x = 1\n        self.y = [1]\n"
    "class S:\n    __slots__ = ('_a', 'b')\n    def __init__(self):\n        self._a = 1\n        self.b = 2\n"
    "class Q:\n    def __init__(self, v):\n        self.v = v\n"
    "    def __reduce__(self):\n        return (Q, (self.v,), {'w': 3, '_z': 4})\n"
    "@dataclasses.dataclass(frozen=True)\nclass D:\n    _p: int = 1\n"
    "class K:\n    @functools.cached_property\n    def _c(self):\n        return 7\n"
    "p = copy.deepcopy(P())\ns = copy.copy(S())\nq = copy.deepcopy(Q(2))\nd = copy.deepcopy(D())\n"
    "print('OK', p._x, p.y, s._a, s.b, q.v, q.w, q._z, d._p, copy.deepcopy(statistics.NormalDist(1, 2)).mean, K()._c)"
)


def test_copies_of_own_and_library_objects_still_work(tmp_path):
    """The copy guard refuses only a state written where the attribute rule refuses it:
    agent objects with private attributes, slots, a ``__reduce__`` of their own, a frozen
    dataclass, and a library object (``NormalDist``, slots ``_mu``/``_sigma``) copy as in Python."""
    (reply,) = jsonl_replies([COPIES], str(tmp_path / "home"))
    assert reply["ok"], reply
    assert reply["stdout"] == "OK 1 [1] 1 2 2 3 4 1 1.0 7\n", reply


def test_no_route_rewrites_the_code_or_defaults_of_a_function_agent_code_did_not_define() -> None:
    """Structurally, whatever route a write takes: with the Python layer switched off (the
    test-only ``static_check=False``, as an escape would), ``print.__kwdefaults__ = {}`` and a
    helper's ``__code__`` are refused by the agent process's audit hook and ``print`` keeps
    working (before: printing broke for the session); agent code's own functions are unchanged."""
    from pibench_tui.sandbox import Sandbox

    with Sandbox(lambda ns, m, a, k: {"month": 1}, {}, block_timeout=20, static_check=False) as sb:
        kwdefaults = sb.run("print.__kwdefaults__ = {}")
        code = sb.run("def f():\n    return 'ESCAPED'\nhelp.__code__ = f.__code__")
        own = sb.run("def g(a=1):\n    return a\ng.__defaults__ = (2,)\nprint('own', g())")
        after = sb.run("print('still printing')\nhelp(help)")
    for refused in (kwdefaults, code):
        assert not refused.ok and refused.error["type"] == "SandboxError", refused
        assert "did not define" in refused.error["message"], refused
    assert own.ok and own.stdout == "own 2\n", own
    assert after.ok and after.stdout.startswith("still printing\n") and "ESCAPED" not in after.stdout, after
