"""``pibench pivots score``: accuracy against the answer key, with honest intervals (PIVOTS.md).

Per case the two orders are averaged (a case answered right in one order only scores 0.5);
cases weigh equally. A missing or unparseable answer is wrong. Intervals are percentile
95 % intervals from :data:`BOOTSTRAP_SAMPLES` resamples drawn with ``numpy``'s PCG64 from
:data:`BOOTSTRAP_SEED` (so the same answers always print the same intervals):

* **case bootstrap** resamples cases;
* **career-cluster bootstrap** resamples careers (every case of a drawn career comes along):
  cases forked from one career share its record and luck, so this interval is the honest one
  when a set holds several cases per career.

Regret is the Impact lost by wrong choices: per case ``|Δ| × (1 − accuracy)``, averaged over
cases (citations).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .cases import KINDS, Case, KeyEntry
from .prompt import ORDERS

__all__ = [
    "BOOTSTRAP_SAMPLES",
    "BOOTSTRAP_SEED",
    "CaseScore",
    "case_scores",
    "paired_difference",
    "score_run",
]

#: Bootstrap resamples per interval.
BOOTSTRAP_SAMPLES = 10_000
#: Seed of the bootstrap's generator.
BOOTSTRAP_SEED = 20_240_924


@dataclass(frozen=True)
class CaseScore:
    """One case's result: accuracy over the two orders (0, 0.5 or 1) and what it cost.

    Attributes:
        accuracy: Mean correctness over the orders (missing answers count wrong).
        answered: Orders with a parseable answer.
        first_picks: Orders in which the plan shown first was chosen.
        reconsidered: Accuracy after the reconsideration turn (``None`` without one).
        regret: ``|Δ| × (1 − accuracy)`` (citations).
    """

    id: str
    kind: str
    capability: str
    career: str
    accuracy: float
    answered: int
    first_picks: int
    reconsidered: float | None
    regret: float
    repaired: int
    introduced: int
    tokens: int


def _tokens(line: Mapping[str, Any]) -> int:
    total = 0
    for t in line.get("tokens") or []:
        if not isinstance(t, Mapping):
            continue
        prompt = t.get("prompt") if isinstance(t.get("prompt"), int) else t.get("prompt_estimate") or 0
        total += int(prompt or 0) + int(t.get("completion") or 0)
    return total


def case_scores(
    cases: Sequence[Case],
    key: Mapping[str, KeyEntry],
    answers: Sequence[Mapping[str, Any]],
    sessions_per_case: int = 2,
) -> list[CaseScore]:
    """Score every case of the set (the last answer of a (case, order) counts).

    Args:
        cases: The case set.
        key: The answer key (every case must be in it).
        answers: ``answers.jsonl`` lines.
        sessions_per_case: 2 (a model: both orders, averaged) or 1 (a person sees each case
            once, in the order of :func:`pibench_tui.pivots.play.human_order`: that answer
            alone counts).

    Raises:
        KeyError: A case has no key entry.
    """
    by: dict[tuple[str, str], Mapping[str, Any]] = {}
    for a in answers:
        by[(str(a.get("id")), str(a.get("order")))] = a
    out = []
    for case in cases:
        right = key[case.id].better
        correct = []
        after: list[bool] = []
        answered = first = repaired = introduced = tokens = 0
        has_second = False
        orders = ORDERS if sessions_per_case == 2 else _answered_order(by, case.id)
        for order in orders:
            line = by.get((case.id, order))
            pick = line.get("answer") if line else None
            ok = pick == right
            correct.append(ok)
            if pick in ("A", "B"):
                answered += 1
                first += pick == order[0]
            if line is not None:
                tokens += _tokens(line)
                if "reconsidered" in line:
                    has_second = True
                    ok2 = line.get("reconsidered") == right
                    after.append(ok2)
                    repaired += (not ok) and ok2
                    introduced += ok and not ok2
                else:
                    after.append(ok)
        acc = sum(correct) / len(orders)
        out.append(
            CaseScore(
                id=case.id,
                kind=case.kind,
                capability=case.capability,
                career=case.career,
                accuracy=acc,
                answered=answered,
                first_picks=first,
                reconsidered=(sum(after) / len(orders)) if has_second else None,
                regret=key[case.id].regret * (1.0 - acc),
                repaired=repaired,
                introduced=introduced,
                tokens=tokens,
            )
        )
    return out


def _answered_order(by: Mapping[tuple[str, str], Mapping[str, Any]], case_id: str) -> tuple[str, ...]:
    """The one order a single-session judge answered ``case_id`` in (``("AB",)`` if none)."""
    for order in ORDERS:
        if (case_id, order) in by:
            return (order,)
    return ORDERS[:1]


def _interval(samples: np.ndarray) -> list[float]:
    lo, hi = np.percentile(samples, [2.5, 97.5])
    return [float(lo), float(hi)]


def _case_bootstrap(values: np.ndarray, rng: np.random.Generator) -> list[float]:
    n = len(values)
    idx = rng.integers(0, n, size=(BOOTSTRAP_SAMPLES, n))
    return _interval(values[idx].mean(axis=1))


def _cluster_bootstrap(values: np.ndarray, clusters: Sequence[str], rng: np.random.Generator) -> list[float]:
    groups: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(clusters):
        groups[c].append(i)
    sums = np.array([values[g].sum() for g in groups.values()])
    sizes = np.array([len(g) for g in groups.values()], dtype=float)
    k = len(sums)
    idx = rng.integers(0, k, size=(BOOTSTRAP_SAMPLES, k))
    return _interval(sums[idx].sum(axis=1) / sizes[idx].sum(axis=1))


def _summary(scores: Sequence[CaseScore], sessions_per_case: int = 2) -> dict[str, Any]:
    values = np.array([s.accuracy for s in scores], dtype=float)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    out: dict[str, Any] = {
        "cases": len(scores),
        "careers": len({s.career for s in scores}),
        "accuracy": float(values.mean()),
        "ci_cases": _case_bootstrap(values, rng),
        "ci_careers": _cluster_bootstrap(values, [s.career for s in scores], np.random.default_rng(BOOTSTRAP_SEED)),
        "regret": float(np.mean([s.regret for s in scores])),
        "unanswered": sum(sessions_per_case - s.answered for s in scores),
        "first_plan_share": (sum(s.first_picks for s in scores) / max(1, sum(s.answered for s in scores))),
        "tokens_per_case": float(np.mean([s.tokens for s in scores])),
    }
    second = [s for s in scores if s.reconsidered is not None]
    if second:
        out["reconsidered"] = {
            "accuracy": float(np.mean([s.reconsidered for s in second])),
            "repaired": sum(s.repaired for s in second),
            "introduced": sum(s.introduced for s in second),
        }
    return out


def score_run(
    cases: Sequence[Case],
    key: Mapping[str, KeyEntry],
    answers: Sequence[Mapping[str, Any]],
    sessions_per_case: int = 2,
) -> dict[str, Any]:
    """Accuracy, both intervals, regret, per kind and per capability (``sessions_per_case``:
    see :func:`case_scores`).

    Returns:
        ``{"overall": {...}, "by_kind": {kind: {...}}, "by_capability": {capability: {"kinds",
        ...}}, "cases": [...]}``
        where each summary holds ``cases, careers, accuracy, ci_cases, ci_careers, regret,
        unanswered, first_plan_share, tokens_per_case`` (and ``reconsidered`` with a
        reconsideration turn).
    """
    scores = case_scores(cases, key, answers, sessions_per_case)
    n = sessions_per_case
    by_kind = {k: [s for s in scores if s.kind == k] for k in KINDS}
    caps: dict[str, list[CaseScore]] = defaultdict(list)
    for s in scores:
        caps[s.capability].append(s)
    return {
        "overall": _summary(scores, n),
        "by_kind": {k: _summary(v, n) for k, v in by_kind.items() if v},
        "by_capability": {
            k: {"kinds": sorted({s.kind for s in v}, key=KINDS.index), **_summary(v, n)}
            for k, v in sorted(caps.items())
        },
        "cases": [
            {"id": s.id, "kind": s.kind, "career": s.career, "accuracy": s.accuracy, "regret": s.regret} for s in scores
        ],
    }


def paired_difference(a: Sequence[CaseScore], b: Sequence[CaseScore]) -> dict[str, Any]:
    """Accuracy of ``a`` minus ``b`` over the cases both scored, with a paired case bootstrap
    interval (e.g. the record condition against plans-only for one model)."""
    bb = {s.id: s.accuracy for s in b}
    common = [(s.accuracy, bb[s.id]) for s in a if s.id in bb]
    if not common:
        return {"cases": 0, "difference": None, "ci": None}
    diff = np.array([x - y for x, y in common], dtype=float)
    return {
        "cases": len(common),
        "difference": float(diff.mean()),
        "ci": _case_bootstrap(diff, np.random.default_rng(BOOTSTRAP_SEED)),
    }
