"""Ordinary Python runs in the sandbox (issue 10 section 4, MECHANICS Decisions 9).

A realistic agent script, written the way LLMs write them, runs through the real
``pibench headless`` without a single error; what still reaches outside the agent
process is refused with a message that says what is allowed.
"""

from __future__ import annotations

import pytest

from pibench_tui.sandbox import Sandbox
from pibench_tui.sandbox import child as agent_process
from tests.headless.conftest import ConsoleParts, run_pibench

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


REACH_OUTSIDE = "open('/etc/passwd')\nexec('x = 1')\nimport os\nimport subprocess\nprint('after')\n"

BOUND_NAMES = (
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


def test_ordinary_python_through_pibench_headless(tmp_path):
    """One console session (seed 7) of three parts (:class:`ConsoleParts`), each going on
    after the one before:

    - a realistic agent script: the LLM-style script runs to the end without any error;
      each idiom prints what plain Python prints (an API refusal is caught as ActionError);
    - reaching outside: open, exec/eval of strings and imports outside the list are
      refused, each with a message that names the alternative or the allowed modules; the
      session goes on;
    - bound names: `from pibench_agent import lab, time` (what the typed stub
      examples/stubs/pibench_agent.pyi describes, so editors and mypy know the names) gives
      the very objects bound in the agent's globals; a name the module lacks and a private
      name are refused, and the session goes on."""
    script = ConsoleParts(
        [("agent script", AGENT_SCRIPT), ("reach outside", REACH_OUTSIDE), ("bound names", BOUND_NAMES)]
    )
    run = run_pibench(["headless", "--seed", "7"], script.script, home=tmp_path)
    assert run.returncode == 0, run.stderr

    assert script.errors(run, "agent script") == [], run.stdout
    out = script.stdout(run, "agent script")
    assert out.startswith("Month 1: budget $"), out[:200]
    assert '{"hires": [], "month": 1, "notes": "hire carefully"}' in out
    for line in EXPECTED_LINES:
        assert line + "\n" in out, (line, out)
    assert "caught ActionError: " in out
    assert "['dashboard'" in out or "['attention'" in out

    errors = script.errors(run, "reach outside")
    assert len(errors) == 4, run.stdout
    assert "SandboxError" in errors[0] and "memory.write" in errors[0]
    assert "SandboxError" in errors[1] and "write the code itself" in errors[1]
    for line in errors[2:]:
        assert "allowed modules: math" in line and "numpy" in line and "dataclasses" in line
    assert "after\n" in script.stdout(run, "reach outside")

    out = script.stdout(run, "bound names")
    assert "True True 1\n2 1\n" in out
    assert "refused ActionError\n" in out
    errors = script.errors(run, "bound names")
    assert len(errors) == 2, run.stdout
    assert "ImportError" in errors[0] and "'os'" in errors[0]
    assert "SandboxError" in errors[1] and "private" in errors[1]
    assert "after\n" in out


#: numpy calls agents make (the first releases' set-operation, quantile and string-unique
#: functions import ``numpy.ma`` on first use).
NUMPY_CALLS = [
    "np.percentile([1, 2, 3], 50)",
    "np.quantile([1, 2, 3], [0.25, 0.75])",
    "np.unique([1, 1, 2], return_counts=True)",
    "np.histogram([1, 2, 3], bins=2)",
    "np.median([1, 2, 3])",
    "np.nanmean([1, np.nan])",
    "np.nanpercentile([1, np.nan, 3], 50)",
    "np.polyfit([0, 1, 2], [1, 3, 5], 1)",
    "np.polyval([2, 1], 3)",
    "np.interp(1.5, [1, 2], [10, 20])",
    "np.convolve([1, 2], [1, 1])",
    "np.corrcoef([1, 2, 3], [2, 4, 7])",
    "np.cov([1, 2, 3], [2, 4, 7])",
    "np.cumsum([1, 2])",
    "np.diff([1, 4, 9])",
    "np.digitize([0.5, 1.5], [1, 2])",
    "np.searchsorted([1, 2, 3], 2)",
    "np.sort([3, 1])",
    "np.lexsort(([1, 2], [2, 1]))",
    "np.where(np.array([1, 5]) > 2, 1, 0)",
    "np.clip([1, 5], 2, 4)",
    "np.round(np.array([1.25]), 1)",
    "np.linspace(0, 1, 3)",
    "np.meshgrid([1, 2], [3])",
    "np.einsum('i,i', [1, 2], [3, 4])",
    "np.linalg.solve([[2, 0], [0, 2]], [1, 1])",
    "np.linalg.lstsq([[1, 0], [0, 1], [1, 1]], [1, 2, 3], rcond=None)",
    "np.linalg.eig([[1, 0], [0, 2]])",
    "np.linalg.svd([[1, 0], [0, 2]])",
    "np.linalg.norm([3, 4])",
    "np.linalg.det([[1, 2], [3, 4]])",
    "np.linalg.pinv([[1, 2], [3, 4]])",
    "np.fft.rfft([1, 2, 3, 4])",
    "np.random.default_rng(1).normal(size=2)",
    "np.random.default_rng(1).choice(5, 2, replace=False)",
    "np.random.default_rng(1).permutation(4)",
    "np.random.default_rng(1).integers(0, 5, 3)",
    "np.random.rand(2)",
    "np.random.choice([1, 2])",
    "np.isclose(1, 1.0)",
    "np.allclose([1], [1])",
    "np.array_equal([1], [1])",
    "np.intersect1d([1, 2], [2])",
    "np.union1d([1], [2])",
    "np.setdiff1d([1, 2], [2])",
    "np.isin([1, 2], [2])",
    "np.average([1, 2], weights=[1, 3])",
    "np.bincount([0, 1, 1])",
    "np.argmax([1, 3])",
    "np.concatenate([[1], [2]])",
    "np.vstack([[1], [2]])",
    "np.stack([[1], [2]])",
    "np.arange(6).reshape(2, 3).T",
    "np.tile([1], 3)",
    "np.repeat([1], 2)",
    "np.array2string(np.array([1.5]))",
    "np.format_float_positional(1.5)",
    "np.array([1.5]).tolist()",
    "np.array([1.5]).astype(str)",
    "np.nan_to_num([np.nan])",
    "np.trapezoid([1, 2])",
    "np.gradient([1, 4, 9])",
    "np.ptp([1, 5])",
    "np.log(np.exp(1.0))",
    "np.iinfo(np.int32).max",
    "np.finfo(float).eps",
    "np.mean([[1, 2], [3, 4]], axis=0)",
    "np.apply_along_axis(sum, 0, [[1, 2]])",
    "np.vectorize(lambda x: x + 1)([1])",
    "np.select([np.array([True])], [1])",
    "np.pad([1], 1)",
    "np.roll([1, 2], 1)",
    "np.partition([3, 1, 2], 1)",
    "np.argpartition([3, 1, 2], 1)",
    "np.count_nonzero([0, 1])",
    "np.nonzero([0, 1])",
    "np.std([1, 2], ddof=1)",
    "np.var([1, 2])",
    "np.cumprod([1, 2])",
    "np.outer([1], [2])",
    "np.dot([1], [2])",
    "np.array([[1, 2]]) @ np.array([[1], [2]])",
    "np.full(2, 7)",
    "np.zeros((2, 2)).sum()",
    "np.ones(2, dtype=int)",
    "np.eye(2)",
    "np.identity(2)",
    "np.diag([1, 2])",
    "np.triu(np.ones((2, 2)))",
    "np.argwhere([0, 1])",
    "np.flatnonzero([0, 1])",
    "np.any([0, 1])",
    "np.all([1])",
    "np.abs(-1)",
    "np.sign(-2)",
    "np.floor(1.5)",
    "np.ceil(1.5)",
    "np.sqrt(4)",
    "np.power(2, 3)",
    "np.maximum([1], [2])",
    "np.minimum.reduce([1, 2])",
    "np.add.accumulate([1, 2])",
    "np.logical_and(True, False)",
    "np.datetime64('2020-01-01') + np.timedelta64(1, 'D')",
    "np.array(['b', 'a']).argsort()",
    "np.fromiter(range(3), dtype=int)",
    "np.frompyfunc(lambda x: x, 1, 1)([1])",
    "np.piecewise(np.array([1.0]), [np.array([True])], [lambda x: x])",
    "np.nanmax([1, np.nan])",
    "np.nanargmin([1, np.nan])",
    "np.isnan(np.nan)",
    "np.isfinite(1.0)",
    "np.cross([1, 0, 0], [0, 1, 0])",
    "np.kron([1], [2])",
    "np.trace(np.eye(2))",
    "np.histogram2d([1, 2], [1, 2], bins=2)",
    "np.histogram_bin_edges([1, 2, 3], bins='auto')",
    "np.correlate([1, 2], [1])",
    "np.ravel([[1]])",
    "np.squeeze([[1]])",
    "np.expand_dims([1], 0)",
    "np.atleast_2d(1)",
    "np.split(np.arange(4), 2)",
    "np.array_split(np.arange(5), 2)",
    "np.rot90(np.eye(2))",
    "np.flip([1, 2])",
    "np.take([1, 2], [1])",
    "np.put(np.zeros(2), 0, 1)",
    "np.ix_([0], [0])",
    "np.unravel_index(3, (2, 2))",
    "np.ravel_multi_index((1, 1), (2, 2))",
    "np.indices((2, 2))",
    "np.seterr(all='ignore')",
    "np.set_printoptions(precision=3)",
    "np.get_printoptions()['precision']",
    "np.linalg.matrix_rank(np.eye(2))",
    "np.linalg.inv(np.eye(2))",
    "np.linalg.cholesky(np.eye(2))",
    "np.linalg.qr(np.eye(2))",
    "np.linalg.eigh(np.eye(2))",
    "np.fft.fftfreq(4)",
    "np.random.default_rng(1).shuffle(np.arange(3))",
    "np.random.default_rng(1).poisson(2.0)",
    "np.random.default_rng(1).beta(1, 2)",
    "np.random.default_rng(1).multivariate_normal([0, 0], np.eye(2))",
    "np.random.seed(1)",
    "np.random.normal(0, 1, 2)",
    "np.sum(np.array([True, False]))",
    "repr(np.float64(2.5))",
    "f'{np.float64(2.5):.2f}'",
    "str(np.int64(3))",
    "np.array([1, 2], dtype=np.float32).mean()",
    "np.array([1, 2]).mean(keepdims=True)",
    "np.sort_complex([1 + 1j, 1])",
    "np.array([[1, 2], [3, 4]]).max(axis=1)",
    "np.around(1.55, 1)",
    "np.unique(np.array(['a', 'b', 'a']))",
    "np.char if False else 0",
    "np.lib.stride_tricks if False else 0",
    "sorted(np.array([3, 1]))",
    "np.array([1, 2, 3])[np.array([True, False, True])]",
    "np.cumsum(np.ones((2, 2)), axis=1)",
    "np.__version__.split('.')",
]
#: Standard-library calls and built-in idioms, codecs included.
STDLIB_CALLS = [
    "statistics.median([1, 2, 3])",
    "statistics.stdev([1, 2, 3])",
    "statistics.quantiles([1, 2, 3, 4], n=4)",
    "statistics.mode([1, 1, 2])",
    "statistics.multimode([1, 2])",
    "statistics.NormalDist(0, 1).cdf(1)",
    "statistics.correlation([1, 2, 3], [1, 2, 4])",
    "statistics.linear_regression([1, 2, 3], [2, 4, 6])",
    "statistics.fmean([1, 2])",
    "statistics.geometric_mean([1, 4])",
    "statistics.harmonic_mean([1, 2])",
    "statistics.pvariance([1, 2])",
    "statistics.median_grouped([1, 2, 3])",
    "datetime.datetime.strptime('2020-01-02', '%Y-%m-%d')",
    "datetime.date(2020, 1, 2).strftime('%A %d %B %Y')",
    "datetime.datetime.now().isoformat()",
    "datetime.date.fromisoformat('2020-01-02')",
    "datetime.timedelta(days=1).total_seconds()",
    "datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc).astimezone(datetime.timezone.utc)",
    "json.dumps({'b': [1.5, None]}, indent=2, sort_keys=True)",
    "json.loads('{\"a\": [1, 2.5, null]}')",
    "json.dumps('é', ensure_ascii=False)",
    "re.sub(r'(\\d+)', r'<\\1>', 'a1b22')",
    "re.compile(r'(?i)ab+', re.M).findall('ABB ab')",
    "re.split(r'\\s+', 'a  b')",
    "re.fullmatch(r'[\\w.]+@\\w+', 'a.b@c')",
    "re.findall(r'\\p{L}' if False else r'[^\\W\\d_]+', 'héllo 1')",
    "random.sample(range(10), 3)",
    "random.choices('abc', k=2)",
    "random.gauss(0, 1)",
    "random.shuffle([1, 2])",
    "random.Random(3).random()",
    "random.randint(1, 3)",
    "random.uniform(1, 2)",
    "random.betavariate(1, 2)",
    "collections.Counter('aab').most_common(1)",
    "collections.OrderedDict(a=1).popitem()",
    "collections.deque([1], maxlen=2)",
    "collections.ChainMap({'a': 1}, {}).get('a')",
    "collections.defaultdict(list)['x']",
    "list(itertools.pairwise([1, 2, 3]))",
    "list(itertools.combinations([1, 2, 3], 2))",
    "list(itertools.groupby('aab'))",
    "list(itertools.accumulate([1, 2]))",
    "list(itertools.product([1], repeat=2))",
    "list(itertools.islice(itertools.count(), 2))",
    "functools.reduce(operator.add, [1, 2])",
    "functools.partial(max, 1)(2)",
    "functools.lru_cache(maxsize=2)(abs)(-1)",
    "functools.cache(abs)(-1)",
    "functools.cmp_to_key(lambda a, b: a - b)",
    "operator.itemgetter(0)([1])",
    "heapq.nlargest(2, [1, 3, 2])",
    "heapq.nsmallest(1, [3, 1], key=lambda x: -x)",
    "bisect.bisect_left([1, 2], 2)",
    "bisect.insort([1, 3], 2)",
    "copy.deepcopy({'a': [1]})",
    "copy.copy([1])",
    "dataclasses.make_dataclass('P', ['x'])(1)",
    "dataclasses.fields(dataclasses.make_dataclass('Q', ['y']))",
    "typing.NamedTuple('T', [('a', int)])(1)",
    "typing.TypedDict('D', {'a': int})(a=1)",
    "typing.cast(int, 1)",
    "enum.Enum('Color', 'RED GREEN').RED",
    "enum.IntEnum('N', 'ONE TWO').TWO + 1",
    "enum.Flag('F', 'A B').A",
    "string.Template('$a').substitute(a=1)",
    "string.capwords('hello world')",
    "string.ascii_letters[:3]",
    "math.isqrt(10)",
    "math.comb(5, 2)",
    "math.prod([2, 3])",
    "math.dist([0, 0], [3, 4])",
    "math.fsum([0.1] * 10)",
    "math.log(8, 2)",
    "'é'.encode('latin-1')",
    "'é'.encode('cp1252')",
    "'é'.encode('utf-16')",
    "'é'.encode('utf-8-sig')",
    "'é'.encode('ascii', 'replace')",
    "'bücher.de'.encode('idna')",
    "b'\\xe9'.decode('iso-8859-1')",
    "b'\\xe9'.decode('iso-8859-15')",
    "'a\\tb'.encode('unicode_escape')",
    "'é'.encode('utf-32')",
    "b'caf\\xc3\\xa9'.decode()",
    "'x'.encode('cp437')",
    "bytes.fromhex('ff').hex()",
    "'é'.encode('mac-roman')",
    "format(1234567.891, ',.2f')",
    "format(1234, 'n')",
    "'%5.1f%%' % 12.34",
    "'{:>10}'.format('x')",
    "str.maketrans('a', 'b')",
    "int('١٢')",
    "'ǅ'.casefold().upper().title()",
    "sorted(['b', 'A'], key=str.lower)",
    "(255).to_bytes(2, 'big')",
    "(1.5).hex()",
    "divmod(7, 2)",
    "complex(1, 2) * 2",
    "round(2.675, 2)",
    "sum([0.1] * 3)",
    "'abc'[::-1]",
    "max([], default=0)",
    "dict(sorted({'b': 1, 'a': 2}.items()))",
    "list(zip([1], [2], strict=True))",
    "list(map(str, range(3)))",
    "any(x > 1 for x in [1, 2])",
    "isinstance(1, (int, float))",
    "hash((1, 2))",
    "repr(1e100)",
    "float('inf') > 1",
    "'a b'.split()",
    "' '.join(['a'])",
    "json.__version__",
]

IMPORTS = (
    "import numpy as np\nimport statistics, datetime, json, re, random, collections, itertools, "
    "functools, operator, heapq, bisect, copy, dataclasses, typing, enum, string, math\n"
)


def test_calls_of_the_allowed_modules_need_no_file_once_confined():
    """The confined agent process opens no file, so whatever the allowed modules import on
    first use must already be loaded: each of these calls runs (numpy's quantiles and set
    operations, statistics, strptime, the common codecs, ``with np.errstate``), whatever the
    file permissions of the installation."""
    failures = []
    with Sandbox(lambda ns, m, a, k: {"month": 1}, {}, block_timeout=10) as sb:
        for expr in NUMPY_CALLS + STDLIB_CALLS:
            result = sb.run(f"{IMPORTS}_r = {expr}\n")
            if not result.ok:
                failures.append((expr, result.error["type"], result.error["message"]))
        errstate = sb.run(IMPORTS + "with np.errstate(divide='ignore'):\n    print(np.array([1.0]) / 0)\n")
    assert failures == []
    assert errstate.ok and errstate.stdout == "[inf]\n", errstate


def test_what_was_not_loaded_before_confinement_is_refused_by_name():
    """A codec outside the loaded set is an ordinary unknown-encoding LookupError, and any
    other module the process did not load says so by name (not an OSError with a path)."""
    with Sandbox(lambda ns, m, a, k: {"month": 1}, {}, block_timeout=10) as sb:
        result = sb.run("'x'.encode('shift_jis')\n")
    assert not result.ok and result.error["type"] == "LookupError"
    assert result.error["message"] == "unknown encoding: shift_jis"
    finder = agent_process._ConfinedImports
    with pytest.raises(ImportError, match="'xml' was not loaded before the agent process was confined"):
        finder.find_spec("xml")
    assert finder.find_spec("_string") is None  # built in: no file needed
