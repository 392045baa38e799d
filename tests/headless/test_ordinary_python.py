"""Ordinary Python runs in the sandbox (issue 10 section 4, MECHANICS Decisions 9).

A realistic agent script, written the way LLMs write them, runs through the real
``pibench headless`` without a single error; what still reaches outside the agent
process is refused with a message that says what is allowed.
"""

from __future__ import annotations

from tests.headless.conftest import run_pibench

#: An LLM-style agent: dataclasses, a namedtuple, typing, f-strings, numpy, a template
#: ``.format`` on a variable, ``getattr`` on its own objects by a computed name,
#: ``type(e).__name__`` in an ``except``, ``__slots__``, special methods of its own
#: classes, ``copy``, ``operator``, ``datetime``, ``print(..., file=sys.stderr)``, an
#: enum, a ``functools.wraps`` decorator and an abstract base class.
AGENT_SCRIPT = r'''
from __future__ import annotations
import sys
import copy
import operator
import datetime
import json
from collections import namedtuple, defaultdict
from dataclasses import dataclass, field, asdict, replace
from typing import Any, Dict, List, Optional
import numpy as np

REPORT_TEMPLATE = "Month {month}: budget ${budget:,.0f}, {n} people"
Candidate = namedtuple("Candidate", ["id", "score"])


@dataclass
class Plan:
    month: int
    hires: List[str] = field(default_factory=list)
    notes: Optional[str] = None


class Tally:
    __slots__ = ("total", "_count")

    def __init__(self) -> None:
        self.total = 0.0
        self._count = 0

    def __iadd__(self, value: float) -> "Tally":
        self.total += value
        self._count += 1
        return self

    def __format__(self, spec: str) -> str:
        return f"{self.total:{spec}} over {self._count}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.total})"


class Agent:
    def __init__(self) -> None:
        self._cache: Dict[str, Any] = {}
        self.history: list = []

    def dashboard(self) -> dict:
        if "dash" not in self._cache:
            self._cache["dash"] = lab.dashboard()
        return self._cache["dash"]

    def summary(self) -> str:
        d = self.dashboard()
        return REPORT_TEMPLATE.format(month=d["month"], budget=d["budget"], n=len(d.get("people", [])))

    def pick(self, candidates: List[Candidate]) -> Candidate:
        return max(candidates, key=operator.attrgetter("score"))


agent = Agent()
print(agent.summary())
plan = Plan(month=agent.dashboard()["month"])
plan2 = replace(plan, notes="hire carefully")
print(json.dumps(asdict(plan2), sort_keys=True))
print(f"{type(plan).__name__} {plan.__class__.__name__} {Agent.summary.__name__} {Plan.__qualname__}")

scores = np.array([0.2, 0.9, 0.5])
cands = [Candidate(f"A{i}", float(s)) for i, s in enumerate(scores)]
best = agent.pick(cands)
print(best._asdict(), best._replace(score=1.0).score, Candidate._fields)
print(f"mean={scores.mean():.3f} argmax={int(np.argmax(scores))}")

tally = Tally()
for c in cands:
    tally += c.score
print(f"{tally:.2f}", repr(tally))

for name in ("history", "_cache"):
    print(name, type(getattr(agent, name)).__name__)
setattr(agent, "last_month", plan.month)
print(hasattr(agent, "last_month"), vars(plan)["month"])

try:
    papers.polish("D404", 5)
except Exception as e:
    print(f"caught {type(e).__name__}: {str(e)[:20]}")
try:
    {}["missing"]
except KeyError as e:
    print("caught", e.__class__.__name__)

counts = defaultdict(int)
for c in cands:
    counts[c.score > 0.4] += 1
print(dict(counts), copy.deepcopy(plan2) == plan2)
print(datetime.date(2026, 1, 1) + datetime.timedelta(days=31))
print("to stderr", file=sys.stderr)
if "memo" not in globals():
    memo = {}
print(sorted(dir(lab))[:2])

import enum
import functools
import abc


class Mode(enum.Enum):
    SAFE = enum.auto()
    BOLD = enum.auto()


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return ("logged", fn(*args, **kwargs))
    return wrapper


@logged
def choose(mode: Mode) -> str:
    """Pick a mode."""
    return mode.name.lower()


class Strategy(abc.ABC):
    @abc.abstractmethod
    def act(self) -> str: ...


class Careful(Strategy):
    def act(self) -> str:
        return choose(Mode.SAFE)[1]


print(choose(Mode.BOLD), choose.__name__, choose.__doc__, Careful().act())
from collections.abc import Mapping, Iterable
print("abc", isinstance({}, Mapping), isinstance([], Iterable))
'''

EXPECTED_LINES = [
    "Plan Plan summary Plan",
    "{'id': 'A1', 'score': 0.9} 1.0 ('id', 'score')",
    "mean=0.533 argmax=1",
    "1.60 over 3 Tally(1.6)",
    "history list",
    "_cache dict",
    "True 1",
    "caught KeyError",
    "{False: 1, True: 2} True",
    "2026-02-01",
    "to stderr",
    "('logged', 'bold') choose Pick a mode. safe",
    "abc True True",
]


def test_a_realistic_agent_script_runs_through_pibench_headless(tmp_path):
    """The LLM-style script runs to the end without any error, through the real command;
    each idiom prints what plain Python prints (an API refusal is caught as ActionError)."""
    run = run_pibench(["headless", "--seed", "7"], AGENT_SCRIPT, home=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.errors() == [], run.stdout
    out = run.stdout
    assert out.startswith("Month 1: budget $"), out[:200]
    assert '{"hires": [], "month": 1, "notes": "hire carefully"}' in out
    for line in EXPECTED_LINES:
        assert line + "\n" in out, (line, out)
    assert "caught ActionError: " in out
    assert "['dashboard'" in out or "['attention'" in out


def test_what_reaches_outside_is_refused_with_what_is_allowed(tmp_path):
    """open, exec/eval of strings and imports outside the list are refused, each with a
    message that names the alternative or the allowed modules; the session goes on."""
    script = "open('/etc/passwd')\nexec('x = 1')\nimport os\nimport subprocess\nprint('after')\n"
    run = run_pibench(["headless", "--seed", "7"], script, home=tmp_path)
    assert run.returncode == 0, run.stderr
    errors = run.errors()
    assert len(errors) == 4, run.stdout
    assert "SandboxError" in errors[0] and "memory.write" in errors[0]
    assert "SandboxError" in errors[1] and "write the code itself" in errors[1]
    for line in errors[2:]:
        assert "allowed modules: math" in line and "numpy" in line and "dataclasses" in line
    assert "after\n" in run.stdout


def test_agent_scripts_import_the_bound_names_from_pibench_agent(tmp_path):
    """`from pibench_agent import lab, time` (what the typed stub examples/stubs/pibench_agent.pyi
    describes, so editors and mypy know the names) gives the very objects bound in the agent's
    globals; a name the module lacks and a private name are refused, and the session goes on."""
    script = (
        "from pibench_agent import ActionError, lab, query, time\n"
        "import pibench_agent\n"
        "print(pibench_agent.lab is lab, pibench_agent.time is time, lab.dashboard()['month'])\n"
        "_ = time.next_month()\n"
        "print(lab.dashboard()['month'], len(query('SELECT 1 AS one')))\n"
        "try:\n    time.next_month(3)\nexcept ActionError as exc:\n    print('refused', type(exc).__name__)\n"
        "from pibench_agent import os\n"
        "from pibench_agent import _secret\n"
        "print('after')\n"
    )
    run = run_pibench(["headless", "--seed", "7"], script, home=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "True True 1\n2 1\n" in run.stdout
    errors = run.errors()
    assert "refused ActionError\n" in run.stdout
    assert len(errors) == 2, run.stdout
    assert "ImportError" in errors[0] and "'os'" in errors[0]
    assert "SandboxError" in errors[1] and "private" in errors[1]
    assert "after\n" in run.stdout
