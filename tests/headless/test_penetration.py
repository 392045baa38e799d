"""The sandbox penetration suite (issue 3, MECHANICS §16).

Every attack runs through the real ``pibench headless`` command after the same short
setup (an RA hired, one month played), then the session goes on. Every attack must be
refused with a clear error of an expected type, leak nothing, leave the session running,
and leave the world exactly as the setup alone leaves it (same state digest).

The default run plays every attack, one after another, in one session (one process, each
attack's errors told apart by their line numbers); the ``slow`` run also plays each attack
alone in a fresh session.
"""

from __future__ import annotations

import ast

import pytest

from tests.headless.conftest import run_pibench

SETUP = "r = recruit.hire_ra()\nd = time.next_month()\n"
SETUP_LINES = SETUP.count("\n")
ARGS = ["headless", "--seed", "7", "--block-timeout", "1", "--memory-limit", "512"]

#: Text that must never appear in any output: hidden state, file contents, internals.
LEAKS = ("agency_prefs", "trajectory", "root:x:0", "<module 'os'", "<module 'sys'", "eval_log", "hotness':")

SANDBOX = ("SandboxError",)
ACTION = ("ActionError",)
ATTR = ("AttributeError",)
NAME = ("NameError",)
TIMEOUT = ("BlockTimeout",)
IMPORT = ("ImportError",)
MEMORY = ("MemoryError", "AgentProcessDied")

# (id, agent code, error types accepted as a clear refusal)
ATTACKS: list[tuple[str, str, tuple[str, ...]]] = [
    # -- the object graph walk: literals -> classes -> object.__subclasses__ -> globals
    ("subclasses-from-tuple", "().__class__.__bases__[0].__subclasses__()", SANDBOX),
    ("subclasses-from-list-mro", "[].__class__.__mro__[-1].__subclasses__()", SANDBOX),
    ("object-subclasses", "object.__subclasses__()", SANDBOX),
    ("mro-without-dunders", "str.mro()", SANDBOX),
    ("api-call-globals", "lab.dashboard.__globals__", SANDBOX),
    ("lambda-globals-builtins", "(lambda: 0).__globals__['__builtins__']", SANDBOX),
    ("bound-method-self", "print.__self__", SANDBOX),
    ("call-func-globals", "lab.dashboard.__call__.__func__.__globals__", SANDBOX),
    ("print-builtins", "print(__builtins__)", SANDBOX),
    ("private-attribute", "lab._calls", SANDBOX),  # private attributes of what agent code did not define
    ("hidden-world-attribute", "lab.w", ATTR),
    (
        "exception-object-walk",
        "try:\n    lab.dashboard.missing\nexcept AttributeError as e:\n    e.obj.__class__.__bases__",
        SANDBOX,
    ),
    ("hidden-world-attribute-2", "students.world", ATTR),
    ("type-class-dict", "type(lab).__dict__", SANDBOX),
    ("format-walk", "'{0.__class__.__base__}'.format(1)", SANDBOX),
    ("format-walk-variable", "fmt = '{0.__globals__}'\nfmt.format(lab.dashboard)", SANDBOX),
    ("format-via-getattr", "getattr('{0.__class__.__base__}', 'format')(1)", SANDBOX),
    ("format-via-match", "match '{0.__globals__}':\n    case str(format=f):\n        print(f(lab.dashboard))", SANDBOX),
    ("match-class-attribute", "match 1:\n    case int(__class__=c):\n        print(c)", SANDBOX),
    ("getattribute-special-method", "class A:\n    def __getattribute__(self, name):\n        return name", SANDBOX),
    ("metaclass", "class M:\n    pass\nclass A(metaclass=M):\n    pass", SANDBOX),
    (
        "functools-update-wrapper",
        "import functools\ndef f():\n    pass\nclass G:\n    pass\nfunctools.update_wrapper(G(), f, assigned=('__globals__',))",
        SANDBOX,
    ),
    ("json-codecs-submodule", "import json\njson.codecs.open('/etc/passwd').read()", ATTR),
    ("statistics-sys", "import statistics\nstatistics.sys.modules['os']", ATTR),
    # -- frames of generators, coroutines and tracebacks
    ("generator-frame", "g = (i for i in [1])\ng.gi_frame.f_back.f_globals", SANDBOX),
    ("traceback-frame", "try:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__.tb_frame.f_globals", SANDBOX),
    ("coroutine-frame", "async def f():\n    pass\nf().cr_frame", SANDBOX),
    ("code-constants", "def f():\n    yield 1\nf().gi_code.co_consts", SANDBOX),
    # -- attribute names built from strings
    ("getattr-concatenated", "getattr(print, '__glo' + 'bals__')", SANDBOX),
    ("getattr-literal-dunder", "getattr(lab, '__globals__')", SANDBOX),
    ("getattr-alias", "g = getattr\ng(object, '__subclasses__')()", SANDBOX),
    ("getattr-private", "getattr(lab, '_' + 'calls')", SANDBOX),
    ("vars-class", "vars(type(lab))", SANDBOX),
    # globals() is a copy without the builtins dict (before: the builtins' guarded import refused)
    ("globals-builtins-import", "globals()['__builtins__']['__import__']('os')", ("KeyError",)),
    ("attrgetter-dunder", "import operator\noperator.attrgetter('__globals__')(print)", SANDBOX),
    ("methodcaller-format", "import operator\noperator.methodcaller('format', print)('{0.__globals__}')", SANDBOX),
    ("format-map-variable", "t = '{x.__globals__}'\nt.format_map({'x': print})", SANDBOX),
    ("str-format-unbound", "str.format('{0.__globals__}', print)", SANDBOX),
    (
        "userstring-format",
        "from collections import UserString\nUserString('{0.__globals__}').format(lab.dashboard)",
        SANDBOX,
    ),
    (
        "userstring-format-map",
        "from collections import UserString\nu = UserString('{x.__globals__}')\nf = u.format_map\nf({'x': print})",
        SANDBOX,
    ),
    (
        "super-format",
        "class S(str):\n    def format(self, *a):\n        return super().format(*a)\nS('{0.__globals__}').format(print)",
        SANDBOX,
    ),
    ("future-alias-dunder", "from __future__ import annotations as __builtins__", SANDBOX),
    (
        "abc-register-builtin",
        "from collections import namedtuple, UserString\nP = namedtuple('P', 'format')\nUserString.register(str)",
        SANDBOX,
    ),
    (
        "match-namedtuple-format",
        "from collections import namedtuple\nimport abc\nclass P(namedtuple('P', 'format'), abc.ABC):\n    pass\n"
        "P.register(str)\nmatch '{0.__globals__}':\n    case P(f):\n        print(f(lab.dashboard))",
        SANDBOX,
    ),
    ("eval", "eval('1 + 1')", SANDBOX),
    ("exec", "exec('import os')", SANDBOX),
    ("compile", "compile('1', 'x', 'eval')", SANDBOX),
    # -- imports
    ("import-os", "import os\nos.system('id')", SANDBOX),
    ("import-sys", "import sys\nsys.modules['os']", ATTR),
    ("import-subprocess", "import subprocess", SANDBOX),
    ("import-ctypes", "import ctypes", SANDBOX),
    ("import-importlib", "import importlib\nimportlib.import_module('os')", SANDBOX),
    ("dunder-import", "__import__('os')", SANDBOX),
    ("from-os-import", "from os import path", SANDBOX),
    ("import-world", "from world.engine import World", SANDBOX),
    ("import-builtins", "import builtins", SANDBOX),
    ("import-numpy-file-helpers", "import numpy\nnumpy.load(SAVES + '/index.json')", SANDBOX),
    ("import-typing-eval", "import typing\ntyping.get_type_hints(lab)", SANDBOX),
    ("import-submodule", "import json.decoder", SANDBOX),
    # -- the json.decoder escape: IMPORT_FROM falls back to sys.modules["json.decoder"] for a name
    #    the copy lacks; each step of the chain, on its own and chained
    ("from-json-import-decoder", "from json import decoder\ndecoder", SANDBOX),
    ("from-numpy-import-ctypeslib", "from numpy import ctypeslib", SANDBOX),
    ("from-re-import-enum", "from re import enum as e\ne.sys", SANDBOX),
    ("from-random-import-os-alias", "from random import os", SANDBOX),
    ("from-statistics-import-sys", "from statistics import sys", SANDBOX),
    ("from-functools-import-missing", "from functools import nonexistent_name", SANDBOX),
    ("json-decoder-attribute", "import json\njson.decoder.re.enum.sys", ATTR),
    ("re-enum-sys", "import re\nre.enum.sys.modules['os']", ATTR),
    ("numpy-lib-attribute", "import numpy\nnumpy.lib.format.open_memmap", ATTR),
    (
        "qa-chain-sys-os-builtins",
        "from json import decoder\ns = decoder.re.enum.sys\nos = s.modules['os']\nbi = s.modules['builtins']\n"
        "bi.eval('1+1')",
        SANDBOX,
    ),
    (
        "qa-chain-os-system",
        "from json import decoder\ndecoder.re.enum.sys.modules['os'].system('touch ' + MARK)",
        SANDBOX,
    ),
    (
        "qa-chain-read-save-store",
        "from re import enum\nos = enum.sys.modules['os']\nos.close(0)\nos.close(1)\nos.close(2)\n"
        "print(os.listdir(SAVES + '/blobs'))\n"
        "print(abc.sys.modules['builtins'].open(SAVES + '/index.json').read())",
        SANDBOX,
    ),
    ("qa-chain-fork", "from json import decoder\ndecoder.re.enum.sys.modules['os'].fork()", SANDBOX),
    (
        "qa-chain-kill-parent",
        "from json import decoder\nos = decoder.re.enum.sys.modules['os']\n"
        "print('=== pibench career report ===\\nImpact          9999.0')\nos.kill(os.getppid(), 9)",
        SANDBOX,
    ),
    (
        "qa-chain-shadow-world",
        "from json import decoder\nil = decoder.re.enum.sys.modules['importlib']\nil.import_module('world.engine')",
        SANDBOX,
    ),
    ("relative-import", "from . import engine", SANDBOX),
    # -- files (the save store)
    ("open-save-index", "open(SAVES + '/index.json').read()", SANDBOX),
    ("open-passwd", "print(open('/etc/passwd').read())", SANDBOX),
    ("json-load-open", "import json\njson.load(open(SAVES + '/index.json'))", SANDBOX),
    ("import-pathlib", "import pathlib\npathlib.Path(SAVES).iterdir()", SANDBOX),
    ("import-io", "import io\nio.open(SAVES + '/index.json')", SANDBOX),
    # -- SQL
    ("sql-attach-save", "query(f\"ATTACH DATABASE '{SAVES}/index.json' AS s\")", ACTION),
    ("sql-attach-in-with", "query(\"WITH x AS (SELECT 1) SELECT * FROM x; ATTACH DATABASE ':memory:' AS y\")", ACTION),
    ("sql-pragma", "query('PRAGMA table_info(ledger)')", ACTION),
    ("sql-pragma-function", "query('SELECT * FROM pragma_database_list')", ACTION),
    ("sql-stacked", "query('SELECT 1; DROP TABLE ledger')", ACTION),
    ("sql-with-delete", "query('WITH x AS (SELECT 1) DELETE FROM ledger')", ACTION),
    ("sql-update-score", "query('UPDATE lab_monthly SET citations_total = 1000000')", ACTION),
    ("sql-insert-money", "query(\"INSERT INTO ledger VALUES (1, 'grant_income', 1e9, 'x')\")", ACTION),
    ("sql-load-extension", "query(\"SELECT load_extension('/tmp/evil.so')\")", ACTION),
    ("sql-readfile", "query(\"SELECT readfile('/etc/passwd')\")", ACTION),
    # -- infinite loops, with and without API calls
    ("loop-bare", "while True:\n    pass", TIMEOUT),
    ("loop-api", "while True:\n    lab.dashboard()", TIMEOUT),
    (
        "loop-bare-except",
        "while True:\n    try:\n        while True:\n            pass\n    except:\n        pass",
        TIMEOUT,
    ),
    ("loop-huge-power", "10 ** 10 ** 10", TIMEOUT + MEMORY),
    # -- memory bombs
    ("memory-string", "'a' * 2 ** 40", MEMORY),
    ("memory-list", "[0] * 2 ** 40", MEMORY),
    # Under load the 1-second block limit may cut the growth off before the memory limit does:
    # either refusal is correct.
    ("memory-growth", "x = []\nwhile True:\n    x.append(bytearray(10 ** 8))", MEMORY + TIMEOUT),
    # -- output floods
    ("output-flood-loop", "while True:\n    print('x' * 100000)", TIMEOUT),
    # -- mutating the score or the clock other than by time.next_month()
    ("set-clock", "time.month = 60", ATTR),
    ("replace-next-month", "time.next_month = lambda: None", ATTR),
    ("delete-next-month", "del time.next_month", ATTR),
    ("set-budget", "lab.budget = 10 ** 9", ATTR),
    ("unknown-budget-call", "lab.set_budget(10 ** 9)", ATTR),
    ("unknown-clock-call", "time.advance(12)", ATTR),
    ("tag-api-call", "lab.dashboard.x = 1", ATTR),
    ("nan-argument", "papers.polish('D1', float('nan'))", ACTION),
    ("non-json-argument", "students.set_mentoring({1, 2})", ACTION),
    ("negative-compute", "projects.start('reasoning', 1, [], monthly_compute=-10 ** 12)", ACTION),
    ("huge-mentoring", "students.set_mentoring({'RA1': 10 ** 9})", ACTION),
    ("raw-api-object", "api.call('time', 'next_month')", NAME),
]


def test_the_suite_is_big_enough():
    """At least 30 attacks, covering every family named in the issue."""
    assert len(ATTACKS) >= 30
    assert len({a[0] for a in ATTACKS}) == len(ATTACKS)


@pytest.fixture(scope="module")
def saves_dir(tmp_path_factory):
    """A save store holding a real save (hidden state included), for the file attacks."""
    from saves import SaveStore
    from scenarios import load_scenario
    from world.engine import World

    home = tmp_path_factory.mktemp("home")
    scen = load_scenario(None, seed=7)
    SaveStore(home / "saves").save("victim", World(scen.config, scen.seed), scenario=scen)
    return home


@pytest.fixture(scope="module")
def control_digest(saves_dir):
    """The world digest after the setup alone."""
    run = run_pibench(ARGS, SETUP, home=saves_dir)
    assert run.returncode == 0, run.stderr
    assert run.errors() == []
    return run.report()["state digest"]


def _error_line_number(line: str) -> int:
    """The script line an error line names (``Error ... line N: Kind: message``)."""
    return int(line.split("line ", 1)[1].split(":", 1)[0])


def _check_refused(attack_id: str, expected: tuple[str, ...], errors: list[str]) -> None:
    """The attack's errors (in order): at least one, the first of an expected type, each
    with a clear message."""
    assert errors, f"{attack_id}: not refused"
    for i, line in enumerate(errors):
        kind = line.split(": ", 2)[1]
        # A refused first statement may leave later ones of the attack without a name.
        allowed = expected if i == 0 else expected + NAME
        assert kind in allowed, f"{attack_id}: unexpected error {line}"
        assert len(line.split(": ", 2)[2]) >= 10, f"{attack_id}: error message not clear: {line}"


def _check_session(run, control_digest: str, label: str) -> None:
    """Nothing leaked, one genuine report, the world as the setup alone left it."""
    for leak in LEAKS:
        assert leak not in run.stdout, f"{label}: leaked {leak!r}"
    assert run.report()["state digest"] == control_digest, f"{label}: the world changed"
    headers = [line for line in run.stdout.splitlines() if line.startswith("=== pibench")]
    assert headers == ["=== pibench career report ==="], f"{label}: a second report"
    assert run.report()["Impact"].startswith("0.0 "), f"{label}: a fake report"


def _bound_names(code: str) -> list[str]:
    """The names ``code`` may bind at module level (assignments, imports, defs, classes), in
    a stable order; none for code that does not parse."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).partition(".")[0] for a in node.names if a.name != "*")
    return sorted(n for n in names if n.isidentifier() and not n.startswith("__"))


def test_every_attack_in_one_session_is_refused_and_changes_nothing(saves_dir, control_digest):
    """All attacks, one after another in one session after the setup: each is refused with a
    clear error of its expected type (told apart by line number), the session goes on after
    each, nothing leaks, no shell command runs, and the final world digest equals the
    control's (the setup alone).

    Each attack starts from the names the setup left: the script deletes every name the
    previous attack may have bound (by name: ``globals()`` is a read-only copy), then names
    the attack's ``SAVES``/``MARK`` (an agent process restarted by a timeout starts afresh
    anyway)."""
    saves = str(saves_dir / "saves")
    lines = SETUP.splitlines()
    spans: dict[str, tuple[int, int]] = {}
    previous = ""
    for attack_id, code, _ in ATTACKS:
        mark = saves_dir / f"pwned-all-{attack_id}"
        for name in _bound_names(previous):  # globals() is a read-only copy: del by name
            lines += ["try:", f"    del {name}", "except NameError:", "    pass"]
        lines += [f"SAVES = {saves!r}", f"MARK = {str(mark)!r}"]
        previous = code
        first = len(lines) + 1
        lines += code.splitlines()
        spans[attack_id] = (first, len(lines))
        lines.append(f"print('<<after {attack_id}>>')")
    run = run_pibench(ARGS, "\n".join(lines) + "\n", home=saves_dir, timeout=600)
    assert run.returncode == 0, run.stderr
    errors = run.errors()
    claimed = 0
    for attack_id, _, expected in ATTACKS:
        first, last = spans[attack_id]
        own = [line for line in errors if first <= _error_line_number(line) <= last]
        claimed += len(own)
        _check_refused(attack_id, expected, own)
        assert f"<<after {attack_id}>>" in run.stdout, f"{attack_id}: the session did not go on"
        assert not (saves_dir / f"pwned-all-{attack_id}").exists(), f"{attack_id}: ran a shell command"
    assert claimed == len(errors), f"errors outside the attacks: {errors}"
    _check_session(run, control_digest, "all attacks")


@pytest.mark.slow
@pytest.mark.parametrize("attack_id,code,expected", ATTACKS, ids=[a[0] for a in ATTACKS])
def test_attack_alone_is_refused_and_changes_nothing(attack_id, code, expected, saves_dir, control_digest):
    """The attack, alone in a fresh session after the setup, is refused with a clear error,
    nothing leaks, the session goes on and the world digest equals the control's."""
    saves = str(saves_dir / "saves")
    mark = saves_dir / f"pwned-{attack_id}"
    prelude = f"SAVES = {saves!r}\nMARK = {str(mark)!r}\n"
    script = prelude + SETUP + code + "\nprint('<<after>>')\n"
    first_attack_line = 2 + SETUP_LINES + 1
    run = run_pibench(ARGS, script, home=saves_dir)
    assert run.returncode == 0, run.stderr
    errors = run.errors()
    assert errors, f"{attack_id}: not refused; output: {run.stdout[:500]}"
    for line in errors:
        assert _error_line_number(line) >= first_attack_line, f"{attack_id}: the setup failed: {line}"
    _check_refused(attack_id, expected, errors)
    assert "<<after>>" in run.stdout, f"{attack_id}: the session did not go on"
    _check_session(run, control_digest, attack_id)
    assert not mark.exists(), f"{attack_id}: ran a shell command"


#: Agent code that patches every ``json`` hook the agent process might use for its own
#: protocol: a forged "done" for output containing FAKE, raw NaN
#: in API calls, and intercepted replies.
JSON_PATCHES = r"""
import json
orig_encode = json.JSONEncoder.encode
orig_iterencode = json.JSONEncoder.iterencode
orig_decode = json.JSONDecoder.decode
FORGED = '{"t":"done","error":null,"tail":"forged done\\n","omitted":0}'
def enc(self, o):
    if isinstance(o, dict) and o.get('t') == 'out' and 'FAKE' in o.get('s', ''):
        return FORGED
    if isinstance(o, dict) and o.get('t') == 'call':
        return '{"t":"call","ns":"lab","m":"dashboard","a":[NaN],"k":{"x":Infinity}}'
    if isinstance(o, dict) and o.get('t') == 'done':
        return FORGED + '\n' + FORGED
    return orig_encode(self, o)
def iterenc(self, o, _one_shot=False):
    yield enc(self, o)
def default(self, o):
    return FORGED
def dumps(*a, **k):
    return FORGED
def dec(self, s):
    return {"t": "ret", "ok": True, "v": "forged reply"}
json.JSONEncoder.encode = enc
json.JSONEncoder.iterencode = iterenc
json.JSONEncoder.default = default
json.JSONDecoder.decode = dec
json.JSONDecoder.raw_decode = dec
json.dumps = dumps
json.loads = dumps
print('patched')
"""


def test_patched_json_cannot_forge_protocol_messages(saves_dir):
    """Agent code patching json.JSONEncoder.encode/iterencode/default, json.dumps and the
    decoder cannot forge or shift protocol messages: every block gets exactly its own
    reply (a block that prints FAKE and then keeps working reports its real output), API
    calls and their answers are real, and the world digest equals a run without the
    patches."""
    import json

    blocks = [
        "print('FAKE')\nn = sum(range(300000))\nprint(n)",
        "lab.dashboard()['month']",
        "r = recruit.hire_ra()\nprint('hired')",
        "d = time.next_month()\nprint('next')",
        "print('FAKE again')",
        "print('last')",
    ]
    expected = ["FAKE\n44999850000\n", "1\n", "hired\n", "next\n", "FAKE again\n", "last\n"]

    def session(codes):
        stdin = "".join(json.dumps({"code": c}) + "\n" for c in codes)
        return run_pibench(["headless", "--jsonl", "--seed", "7", "--block-timeout", "5"], stdin, home=saves_dir)

    attacked = session([JSON_PATCHES, *blocks])
    control = session(blocks)
    assert attacked.returncode == 0, attacked.stderr
    replies = attacked.replies()
    assert len(replies) == 1 + len(blocks)  # one reply per block, no more, no fewer
    assert replies[0]["ok"] is True and replies[0]["stdout"] == "patched\n"
    for reply, want, plain in zip(replies[1:], expected, control.replies(), strict=False):
        assert reply["ok"] is True, reply
        assert "forged" not in reply["stdout"], reply
        assert reply["stdout"] == plain["stdout"]
        assert reply["stdout"] == want
    assert attacked.end()["report"]["digest"] == control.end()["report"]["digest"]
    assert attacked.end()["report"]["month"] == 2
