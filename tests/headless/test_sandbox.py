"""The sandbox in-process (a fake API handler): the policy check, the RPC, the caps."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pibench_tui.sandbox import Refusal, Sandbox, check_source, spec_from_api_calls
from tests.headless.conftest import FAKE_AGENT_HANDSHAKE

SPEC = {
    "lab": {"dashboard": {"params": [], "doc": "The dashboard.", "mutating": False}},
    "time": {"next_month": {"params": [], "doc": "Advance the clock.", "mutating": True}},
    "papers": {
        "polish": {"params": [["draft_id", {"required": True}], ["hours", {"default": 5}]], "doc": "", "mutating": True}
    },
}


class FakeApi:
    """Records calls; refuses unknown ones like the world's dispatcher."""

    def __init__(self):
        self.calls = []
        self.month = 1

    def __call__(self, ns, method, args, kwargs):
        self.calls.append((ns, method, args, kwargs))
        if (ns, method) == ("lab", "dashboard"):
            return {"month": self.month, "budget": 600000}
        if (ns, method) == ("time", "next_month"):
            self.month += 1
            return {"month": self.month}
        if (ns, method) == ("papers", "polish"):
            raise Refusal("unknown_id", f"no draft {args[0]!r}")
        if ns == "boom":
            raise RuntimeError("internal bug")
        if ns == "query":
            return [{"x": float("nan")}] if "nan" in args[0] else [{"x": 1}]
        raise Refusal("unknown_call", f"no call {ns}.{method}")


@pytest.fixture
def api():
    return FakeApi()


@pytest.fixture
def sandbox(api):
    sb = Sandbox(api, SPEC, block_timeout=3, max_output=100, memory_limit=256 << 20, seed=1)
    yield sb
    sb.close()


ALLOWED = [
    "x = 1",
    "import math, statistics, random, json, collections, itertools, functools, re, heapq, bisect",
    "import dataclasses, typing, copy, operator, datetime, enum, abc, string, sys",
    "import numpy as np\nimport numpy.random\nfrom numpy.linalg import norm",
    "from collections import Counter, defaultdict",
    "from collections.abc import Iterable",
    "from math import *",
    "class A:\n    def __init__(self):\n        self.v = 1\n    def __repr__(self):\n        return 'A'",
    "class B(A):\n    def __init__(self):\n        super().__init__()",
    "f'{x!r:>10}'",
    "'{} and {name}'.format(1, name=2)",
    "'{0[key]}'.format({'key': 1})",
    "getattr(lab, 'dashboard')",
    "hasattr(x, 'real')",
    "try:\n    pass\nexcept:\n    pass",
    "for _ in range(3):\n    pass",
    "lambda a, *b, **c: a",
    "match x:\n    case {'a': 1, **rest}:\n        pass\n    case [1, *others]:\n        pass",
    "async def f():\n    await g()",
    "if __name__ == '__main__':\n    main()",
    "from __future__ import annotations",
    # Decisions 9: ordinary Python (issue 10, section 4)
    "type(x)",
    "try:\n    pass\nexcept Exception as e:\n    print(type(e).__name__)",
    "x.__class__.__name__",
    "f.__name__, f.__qualname__, f.__doc__, C.__module__",
    "self._cache = {}\nself._cache.get(1)",
    "getattr(obj, name)",
    "getattr(obj, name, None)\nsetattr(obj, name, 1)\ndelattr(obj, name)",
    "TEMPLATE = '{a}'\nTEMPLATE.format(a=1)",
    "'{0.__class__.__name__}'.format(x)",
    "p._asdict(), p._replace(a=1), P._fields",
    "class S:\n    __slots__ = ('a', '_b')",
    "class V:\n    def __iadd__(self, o):\n        return self\n    def __format__(self, spec):\n        return 'v'\n    __radd__ = __iadd__",
    "class W:\n    def __getattr__(self, name):\n        return name\n    def __post_init__(self):\n        pass",
    "class H:\n    __hash__ = None",
    "print('x', file=sys.stderr)",
    "vars(obj)",
    "dir(obj)",
    "if 'memo' not in globals():\n    memo = {}",
    "self.__dict__.update(kw)",
    "super().__eq__(other)",
]

REFUSED = [
    ("x.__globals__", "attribute '__globals__'"),
    ("x.__class__ = y", "cannot be assigned"),
    ("del x.__dict__", "cannot be assigned or deleted"),
    ("__builtins__", "'__builtins__'"),
    ("import os", "import of 'os'"),
    ("from os import path", "import of 'os'"),
    ("import json.decoder", "import of 'json.decoder'"),
    ("from . import x", "import of '.'"),
    ("import __future__", "import of '__future__'"),
    ("from __future__ import annotations as __builtins__", "without `as`"),
    ("from __future__ import annotations as x", "without `as`"),
    ("from __future__ import braces", "only `from __future__ import <feature>`"),
    ("from json import _default_encoder", "private name"),
    ("open('f')", "open() is not available"),
    ("eval('1')", "eval() is not available"),
    ("exec('1')", "exec() is not available"),
    ("compile('1', 'f', 'eval')", "compile() is not available"),
    ("input()", "input() is not available"),
    ("getattr(x, '__globals__')", "'__globals__'"),
    ("setattr(x, '__class__', y)", "cannot be assigned"),
    ("g.gi_frame", "'gi_frame'"),
    ("f.f_back", "'f_back'"),
    ("tb.tb_frame", "'tb_frame'"),
    ("c.co_code", "'co_code'"),
    ("c.cr_frame", "'cr_frame'"),
    ("str.mro()", "'mro'"),
    ("x.__subclasses__()", "'__subclasses__'"),
    ("'{0.__class__.__base__}'.format(x)", "'__base__'"),
    ("'{0:{1.__globals__}}'.format(x, y)", "'__globals__'"),
    ("match '{0.__class__}':\n    case str(format=f):\n        f(1)", "pattern attribute 'format'"),
    ("case = 1\nmatch x:\n    case C(__class__=c):\n        pass", "pattern attribute '__class__'"),
    ("class A:\n    def __getattribute__(self, n):\n        pass", "defining '__getattribute__'"),
    ("class A:\n    def __subclasshook__(cls, c):\n        return True", "defining '__subclasshook__'"),
    ("class A:\n    __match_args__ = ('format',)", "'__match_args__'"),
    ("class A:\n    def __init_subclass__(cls):\n        pass", "defining '__init_subclass__'"),
    ("class A:\n    @property\n    def __array_interface__(self):\n        pass", "numpy's raw-memory protocol"),
    ("class A:\n    def __array_struct__(self):\n        pass", "numpy's raw-memory protocol"),
    ("def __init__(self):\n    pass", "defining '__init__'"),
    ("class A(metaclass=M):\n    pass", "metaclasses"),
    ("def f(__x__):\n    pass", "argument '__x__'"),
    ("f(__x__=1)", "keyword argument '__x__'"),
    ("global __name__", "'__name__'"),
    ("__name__ = 'x'", "'__name__'"),
    ("try:\n    pass\nexcept E as __e__:\n    pass", "'__e__'"),
]


@pytest.mark.parametrize("code", ALLOWED)
def test_policy_allows_ordinary_python(code):
    """Ordinary agent Python passes the policy check."""
    assert check_source(code) is None


@pytest.mark.parametrize("code,why", REFUSED, ids=[c for c, _ in REFUSED])
def test_policy_refuses(code, why):
    """Each construct is refused with a message naming what was refused."""
    message = check_source(code)
    assert message is not None and why in message, message


def test_policy_reports_the_line_in_the_agent_text():
    """Refusals and syntax errors point at the line in the agent's own text."""
    assert check_source("a = 1\nb = 2\nimport os\n", first_line=10).startswith("line 12: SandboxError")
    assert check_source("a = 1\nb = (\n", first_line=5).startswith("line 6: SyntaxError")


def test_round_trip_of_calls_errors_and_outputs(sandbox, api):
    """API calls cross as JSON; refusals become ActionError with the API's message; agent
    code can catch them; an internal bug is an internal_error, not a crash."""
    r = sandbox.run("d = lab.dashboard()\nd['budget']")
    assert r.ok and r.stdout == "600000\n" and r.calls == 1
    r = sandbox.run("papers.polish('D9')")
    assert r.error == {"type": "ActionError", "message": "no draft 'D9'", "line": 1, "source": "agent"}
    r = sandbox.run("try:\n    papers.polish('D9')\nexcept ActionError as e:\n    print(e.code)")
    assert r.ok and r.stdout == "unknown_id\n"
    r = sandbox.run("boom.x()")
    assert r.error["type"] == "NameError"  # no such namespace in the agent process
    assert sandbox._serve({"t": "call", "ns": "boom", "m": "x", "a": [], "k": {}})["code"] == "internal_error"
    r = sandbox.run("query('select nan')")
    assert r.error["type"] == "ActionError" and "not JSON-able" in r.error["message"]


def test_a_wrong_call_of_query_or_the_memory_helpers_names_them_plainly(sandbox):
    """query(), read_memory() and write_memory() called with the wrong arguments raise the
    TypeError Python gives for a function of that name, without the agent process's
    internal names (``_Runtime._make_globals.<locals>``)."""
    for code, name in (
        ("query('select 1', 'x')", "query()"),
        ("read_memory(1)", "read_memory()"),
        ("write_memory()", "write_memory()"),
    ):
        r = sandbox.run(code)
        assert r.error["type"] == "TypeError" and r.error["message"].startswith(name), r.error
        assert "<locals>" not in r.error["message"] and "_Runtime" not in r.error["message"]


def test_only_json_values_cross(sandbox, api):
    """Non-JSON arguments (sets, functions, NaN, huge payloads) are refused before the call."""
    for code in (
        "lab.dashboard({1})",
        "lab.dashboard(print)",
        "lab.dashboard(float('inf'))",
        "lab.dashboard('x' * 2_000_000)",
    ):
        r = sandbox.run(code)
        assert r.error["type"] == "ActionError", code
    assert api.calls == []


def test_output_cap_keeps_head_and_tail_exactly(sandbox):
    """With a 100-character cap: the first 50 and the last 50 characters, and the count."""
    r = sandbox.run("print('a' * 60 + 'b' * 100 + 'c' * 39)")
    assert r.truncated and r.omitted == 100
    head, _, rest = r.stdout.partition("\n[... 100 characters of output cut here (limit 100 per block) ...]\n")
    assert head == "a" * 50
    assert rest == "b" * 10 + "c" * 39 + "\n"
    r = sandbox.run("print('z' * 99)")
    assert not r.truncated and r.stdout == "z" * 99 + "\n"


def test_output_streams_to_the_sink(sandbox):
    """on_output receives the head while the block runs, then the cut notice and the tail."""
    pieces = []
    r = sandbox.run("for i in range(30):\n    print(i)", on_output=pieces.append)
    assert "".join(pieces) == r.stdout


def test_timeout_restarts_and_forgets_variables(sandbox, api):
    """A block over the limit is killed; completed calls are kept; variables are gone."""
    sandbox.block_timeout = 0.5
    assert sandbox.run("keep = 1").ok
    r = sandbox.run("time.next_month()\nwhile True:\n    pass")
    assert r.error["type"] == "BlockTimeout" and r.restarted and r.calls == 1
    assert api.month == 2
    assert sandbox.run("keep").error["type"] == "NameError"
    assert sandbox.run("1 + 1").stdout == "2\n"


def test_agent_random_is_seeded(api):
    """The agent process's random module is seeded from the career seed at each start."""
    outs = []
    for _ in range(2):
        with Sandbox(api, SPEC, seed=42) as sb:
            outs.append(sb.run("import random\nrandom.random()").stdout)
    assert outs[0] == outs[1]


def test_namespaces_are_read_only_and_documented(sandbox):
    """API objects cannot be changed; help() describes the calls."""
    assert sandbox.run("time.next_month = 1").error["type"] == "AttributeError"
    assert sandbox.run("lab.dashboard.doc = 1").error["type"] == "AttributeError"
    r = sandbox.run("help(papers)")
    assert "papers.polish(draft_id, hours=5) [changes the world]" in r.stdout
    assert sandbox.run("help()").stdout.startswith("API namespaces")


def test_each_namespace_holds_its_calls_on_a_class_of_its_own(sandbox, api):
    """A namespace's calls are attributes of its own class (found by the default lookup, no
    failed lookup first): each namespace's class has only its own calls, still named
    APINamespace and described by help(); an unknown call still names the namespace's calls;
    no namespace can be made by agent code; the calls answer as before."""
    r = sandbox.run(
        "print(type(lab).__name__, type(lab) is type(time), hasattr(lab, 'next_month'), lab.dashboard is lab.dashboard)\n"
        "print(lab.dashboard()['month'])"
    )
    assert r.ok, r.error
    assert r.stdout == "APINamespace False False True\n1\n"
    assert api.calls == [("lab", "dashboard", [], {})]
    r = sandbox.run("lab.next_month")
    assert (
        r.error["type"] == "AttributeError"
        and "lab has no call 'next_month'; its calls: dashboard" in r.error["message"]
    )
    assert sandbox.run("type(lab)()").error["type"] == "TypeError"
    assert "lab.dashboard()" in sandbox.run("help(lab)").stdout


def test_spec_from_api_calls_marks_required_parameters():
    """The spec sent to the agent process comes from the world's registry of calls."""
    from world.api import API_CALLS, REQUIRED

    spec = spec_from_api_calls(API_CALLS, REQUIRED)
    assert set(spec) == set(API_CALLS)
    start = dict(spec["projects"]["start"]["params"])
    assert start["topic"] == {"required": True}
    assert spec["time"]["next_month"]["mutating"] is True
    assert spec["lab"]["dashboard"]["mutating"] is False


def test_an_agent_process_that_died_while_idle_is_replaced_and_said_so(sandbox):
    """If the agent process dies between blocks (killed from outside), the next block runs
    in a fresh one and its output says that variables are gone."""
    assert sandbox.run("x = 1").ok
    sandbox._process.proc.kill()
    sandbox._process.proc.wait()
    r = sandbox.run("2 + 2")
    assert r.ok and r.restarted
    assert r.stdout.startswith("[note: the agent process had died (killed by SIG")  # this fixture cuts at 100
    assert r.stdout.endswith("4\n")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.text(max_size=200))
def test_garbage_code_never_breaks_the_sandbox(sandbox, code):
    """Property: any text at all gives a BlockResult (usually an error), and the sandbox
    still runs the next block."""
    r = sandbox.run(code)
    assert isinstance(r.ok, bool)
    assert r.ok or r.error["type"]
    assert sandbox.run("40 + 2").stdout == "42\n"


FORGING_CHILD = (
    FAKE_AGENT_HANDSHAKE
    + r"""
    elif msg["t"] == "run":
        code, block = msg["code"], msg["id"]
        done = '{"t":"done","id":%d,"error":null,"tail":"","omitted":0}' % block
        if code == "nan":
            send('{"t":"call","ns":"lab","m":"dashboard","a":[NaN],"k":{}}')
        elif code == "twice":
            send(done)
            send(done)
        elif code == "wrong_id":
            send(done.replace('"id":%d' % block, '"id":%d' % (block + 7)))
        elif code == "bad_error":
            send(done.replace('"error":null', '"error":"oops"'))
        elif code == "extra_key":
            send('{"t":"out","s":"x","forged":1}')
        else:
            send(done)
"""
)


def test_parent_rejects_forged_protocol_messages(tmp_path, monkeypatch):
    """Whatever the agent process sends: NaN/Infinity, a message outside a block, an
    end-of-block message of another block, malformed messages are protocol violations:
    the agent process is killed and restarted with a clear error; no API call is made."""
    import pibench_tui.sandbox as sandbox_module

    script = tmp_path / "forging_child.py"
    script.write_text(FORGING_CHILD)
    monkeypatch.setattr(sandbox_module.process, "CHILD_SCRIPT", script)
    api = FakeApi()
    with Sandbox(api, SPEC, block_timeout=5) as sb:
        for code in ("nan", "wrong_id", "bad_error", "extra_key"):
            result = sb.run(code)
            assert not result.ok and result.restarted, code
            assert result.error["type"] == "SandboxError" and "protocol" in result.error["message"], code
        assert sb.run("fine").ok
        assert sb.run("twice").ok  # its second "done" arrives outside any block
        late = sb.run("fine")
        assert not late.ok and late.restarted
        # Usually seen before the block is sent ("outside a block ... not run"); if it
        # arrives late, its block id does not match: a protocol violation either way.
        assert late.error["type"] == "SandboxError" and "protocol" in late.error["message"]
        assert sb.run("fine").ok
    assert api.calls == []


def test_statements_run_in_order_up_to_one_that_does_not_compile():
    """Top-level statements are compiled together where they can be; one that does not
    compile (``return`` outside a function) is reported after the statements before it ran,
    as when each statement is compiled alone; bare expressions still print in order."""
    with Sandbox(lambda ns, m, a, k: {"month": 1}, {}, block_timeout=10) as sb:
        r = sb.run("a = 1\nfor i in range(2):\n    print(i)\n'x'\nb = 2\nreturn 5\nc = 3")
        assert not r.ok and r.error["type"] == "SyntaxError" and r.error["line"] == 6
        assert r.stdout == "0\n1\n'x'\n"
        r = sb.run("print(a, b, 'c' in globals())")
        assert r.stdout == "1 2 False\n", r.error


def test_a_block_sent_again_is_checked_and_compiled_once(monkeypatch):
    """The parent checks and compiles a block's text once (the same text, file name and
    first line always get the same verdict and code): sent again, to this agent process or
    another, it runs again (its effects happen again) without being parsed again, and a
    refused block is refused again with the same error; another first line is another block."""
    import pibench_tui.sandbox as sandbox_module

    compiled = []
    real = sandbox_module.compile_agent_code

    def counting(code, *args, **kwargs):
        compiled.append(code)
        return real(code, *args, **kwargs)

    monkeypatch.setattr(sandbox_module, "compile_agent_code", counting)
    monkeypatch.setattr(sandbox_module, "_COMPILED", {})
    code = "n = globals().get('n', 0) + 1\nprint(n)"
    for _ in range(2):
        with Sandbox(lambda ns, m, a, k: {"month": 1}, {}, block_timeout=10) as sb:
            assert [sb.run(code).stdout for _ in range(2)] == ["1\n", "2\n"]
            refused = [sb.run("import os") for _ in range(2)]
            assert refused[0].error == refused[1].error and refused[0].error["type"] == "SandboxError"
            assert sb.run(code, first_line=3).stdout == "3\n"
    assert compiled == [code, "import os", code]


def test_the_agent_process_runs_only_code_the_parent_compiled():
    """The agent process parses nothing: a run message with the text but without the
    parent's compiled units runs nothing and ends with a SandboxError; the same text sent
    through the sandbox (checked and compiled here) runs."""
    import time

    with Sandbox(lambda ns, m, a, k: {"month": 1}, {}, block_timeout=10) as sb:
        assert sb.run("print(6 * 7)").stdout == "42\n"
        proc = sb._ready_process()
        deadline = time.monotonic() + 10
        proc.send({"t": "run", "id": 99, "code": "print(1)", "filename": "<stdin>", "first_line": 1}, deadline)
        done = proc.recv(deadline)
        assert done["t"] == "done" and done["id"] == 99 and done["tail"] == ""
        assert done["error"]["type"] == "SandboxError" and "compiled code" in done["error"]["message"]


def test_checked_attributes_are_checked_whatever_characters_spell_them():
    """``.format`` reached through a fullwidth or ligature spelling (the parser normalises
    names) is routed through the runtime check like the ASCII spelling; source whose only
    non-ASCII characters cannot be part of a name (``§`` in a comment) needs no rewrite."""
    from pibench_tui.sandbox.policy import may_read_checked_attributes

    assert not may_read_checked_attributes("x = 1  # § 3\ny = '—'")
    assert may_read_checked_attributes("x.ｆormat") and may_read_checked_attributes("é = 1")
    assert may_read_checked_attributes("x = 1  # §\n'{}'.format(2)")
    with Sandbox(lambda ns, m, a, k: {"month": 1}, {}, block_timeout=10) as sb:
        for spelling in ("format", "ｆormat"):
            r = sb.run(f"# §\nt = '{{0.__init__.__globals__}}'\nprint(t.{spelling}(1))")
            assert not r.ok and "format field" in r.error["message"], (spelling, r)


def test_numpy_scalar_arguments_cross_as_python_numbers(sandbox, api):
    """Agent code passing numpy integer, float and bool scalars (an index from ``np.argmax``,
    an amount from numpy arithmetic) sends the Python numbers they hold, as plain JSON; a
    non-finite numpy float is still refused before it is sent."""
    r = sandbox.run(
        "import numpy as np\n"
        "try:\n    papers.polish('D1', np.int64(4))\nexcept ActionError:\n    pass\n"
        "try:\n    papers.polish('D2', [np.float32(0.5), np.bool_(True), {'k': np.uint8(7)}])\n"
        "except ActionError:\n    pass\n"
    )
    assert r.ok, r.error
    sent = [c[2] for c in api.calls if c[:2] == ("papers", "polish")]
    assert sent == [["D1", 4], ["D2", [0.5, True, {"k": 7}]]]
    assert [type(x) for x in sent[1][1]] == [float, bool, dict] and type(sent[0][1]) is int
    r = sandbox.run("import numpy as np\npapers.polish('D3', np.float64('nan'))")
    assert r.error["type"] == "ActionError" and "not JSON compliant: nan" in r.error["message"]
