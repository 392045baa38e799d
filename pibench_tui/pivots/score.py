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

**Every choice is re-derived, never read** (:func:`check_answers`): a session's choice is
parsed from its recorded reply (``raw``, by the strict rule of
:func:`~pibench_tui.pivots.prompt.parse_answer`; a person's saved line by
:func:`~pibench_tui.pivots.prompt.parse_human_answer`) in the plan order recorded for that
conversation. The stored ``answer`` field is only compared with it:

* a record whose stored ``answer`` (or ``reconsidered``) differs from the one its reply gives
  is **mismatched**: the session counts **wrong** (never as stored, never as re-derived) and
  is named in the output;
* in a scripted judge's run (``first``, ``baseline``, ``lookahead``) the reply itself is
  re-derived: the judge is played again on the case and order, and a record whose reply is
  another is **replaced**: counted **wrong** and named;
* **the order is re-derived too**: a model session's conversation is re-built from its case,
  its order and the run's condition (:func:`~pibench_tui.pivots.prompt.case_messages`, the
  reconsideration turn on the recorded first reply) and each turn's record must carry its
  digest (``conversation_sha256``, written by ``pibench pivots eval``). A record that does not
  (an order swapped between a case's two records, a prompt of another condition or case, a
  record written before pibench recorded digests) is **unbound**: counted **wrong** and named.
  A person's order is the rule's (:func:`~pibench_tui.pivots.prompt.human_order`); a record
  in another order is stray;
* a session (case, order) recorded more than once: copies identical to the first are
  **duplicates**, ignored (counted); records that differ make the session **conflicting**,
  counted wrong and named (which one was meant cannot be told);
* a record of no case of the set, of an order that is not ``AB``/``BA`` (for a person: not
  the order the case is shown in), or that is not an object is **stray**: ignored, counted;
* a session with no record is **missing** and counts wrong; a reply without a parseable
  answer is **unparseable** and counts wrong.

An evaluation never writes any of these but missing and unparseable sessions, so the others
mean the file was edited or damaged.

What cannot be re-derived: a model's (or a person's) reply is what the record holds (no one but the provider
saw it); the checks above find records that disagree with themselves, with their case or with
their run, not a file rewritten consistently by someone who can run the scorer. Keep a run
directory where the evaluated party cannot write.

**Tokens**: ``tokens_per_case`` is re-derived from the texts (the re-built conversations and
the recorded replies, characters / 4); the provider's own counts (``tokens[i]["prompt"]``,
``["completion"]``) cannot be re-derived and are given apart as ``provider_tokens_per_case``,
"reported by the provider, not re-derived". The stored ``prompt_estimate`` is not read.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pibench_tui.words import count

from .cases import KINDS, Case, KeyEntry
from .prompt import (
    ORDERS,
    approx_tokens,
    case_messages,
    conversation_digest,
    human_order,
    parse_answer,
    parse_human_answer,
    reconsider_messages,
)

__all__ = [
    "BOOTSTRAP_SAMPLES",
    "BOOTSTRAP_SEED",
    "CaseScore",
    "Session",
    "case_scores",
    "check_answers",
    "integrity_lines",
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
        answered: Orders with a valid, parseable answer.
        missing: Orders with no record.
        invalid: Orders whose record is mismatched or conflicting (:func:`check_answers`).
        first_picks: Orders in which the plan shown first was chosen.
        reconsidered: Accuracy after the reconsideration turn (``None`` without one).
        regret: ``|Δ| × (1 − accuracy)`` (citations).
        tokens: Tokens of the case's sessions re-derived from the texts (:class:`Session`).
        provider_tokens: The tokens the provider reported for them (``None`` when a session
            is missing or has no reported count): reported, not re-derived.
    """

    id: str
    kind: str
    capability: str
    career: str
    accuracy: float
    answered: int
    missing: int
    invalid: int
    first_picks: int
    reconsidered: float | None
    regret: float
    repaired: int
    introduced: int
    tokens: int
    provider_tokens: int | None = None


def _count(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def provider_tokens(line: Mapping[str, Any]) -> tuple[int, int] | None:
    """``(prompt, completion)`` tokens of a record's turns as the provider reported them
    (``tokens[i]["prompt"]``, ``["completion"]``, summed), or ``None`` when a turn has no such
    count. These come from the provider's reply alone: nothing here can re-derive them, so
    they are shown as "reported by the provider, not re-derived"."""
    prompt = completion = 0
    turns = line.get("tokens")
    if not isinstance(turns, list) or not turns:
        return None
    for t in turns:
        p, c = (_count(t.get("prompt")), _count(t.get("completion"))) if isinstance(t, Mapping) else (None, None)
        if p is None or c is None:
            return None
        prompt, completion = prompt + p, completion + c
    return prompt, completion


@dataclass(frozen=True)
class Session:
    """One conversation's record, checked (:func:`check_answers`).

    Attributes:
        record: The (first) answer line of this case and order.
        pick: The case plan (``"A"``/``"B"``) re-derived from ``raw``; ``None`` when the reply
            is unparseable or the record is invalid (both count wrong).
        reconsidered: The same for the reconsideration turn (``None`` without one).
        has_second: The record holds a reconsideration turn.
        problem: ``None``, ``"mismatched"`` (the stored answer disagrees with the reply),
            ``"replaced"`` (a scripted judge's run whose reply is not the one the judge gives),
            ``"unbound"`` (the conversation the record says it answered is not the one its
            case, order and condition give) or ``"conflicting"`` (the session counts wrong).
        asked: Prompt tokens re-derived from the texts: the conversations re-derived from the
            case, order and condition (characters / 4,
            :func:`~pibench_tui.pivots.prompt.approx_tokens`; 0 without a condition).
        replied: Completion tokens re-derived from the recorded replies alike.
        provider: :func:`provider_tokens` of the record (reported, not re-derived).
    """

    record: Mapping[str, Any]
    pick: str | None
    reconsidered: str | None
    has_second: bool
    problem: str | None
    asked: int = 0
    replied: int = 0
    provider: tuple[int, int] | None = None

    @property
    def tokens(self) -> int:
        """Tokens re-derived from the texts: :attr:`asked` + :attr:`replied`."""
        return self.asked + self.replied


def _derive(raw: Any, order: str, human: bool) -> str | None:
    if not isinstance(raw, str):
        return None
    return parse_human_answer(raw, order) if human else parse_answer(raw, order)


def _conversations(case: Case, order: str, condition: str, record: Mapping[str, Any]) -> list[list[dict[str, str]]]:
    """The conversations a model session of ``case`` in ``order`` under ``condition`` was
    asked: the first turn, and the reconsideration turn when the record holds one (built on
    the recorded first reply). Raises ``ValueError`` for an unknown order or condition."""
    first = case_messages(case, order, condition)
    if "raw_reconsidered" not in record and "reconsidered" not in record:
        return [first]
    raw = record.get("raw")
    return [first, reconsider_messages(first, raw if isinstance(raw, str) else "")]


def _bound(record: Mapping[str, Any], conversations: list[list[dict[str, str]]]) -> bool:
    """Whether the record's turns carry the digests of ``conversations`` (one a turn)."""
    turns = record.get("tokens")
    if not isinstance(turns, list) or len(turns) != len(conversations):
        return False
    return all(
        isinstance(t, Mapping) and t.get("conversation_sha256") == conversation_digest(conv)
        for t, conv in zip(turns, conversations, strict=True)
    )


#: A scripted judge's reply to a case in an order (``None``: it gives none).
ReplyOf = Callable[[Case, str], "str | None"]


def _session(
    records: list[Mapping[str, Any]],
    order: str,
    human: bool,
    case: Case | None = None,
    condition: str | None = None,
    reply: ReplyOf | None = None,
) -> Session:
    first = records[0]
    pick = _derive(first.get("raw"), order, human)
    has_second = "reconsidered" in first or "raw_reconsidered" in first
    again = _derive(first.get("raw_reconsidered"), order, human) if has_second else None
    replies = sum(approx_tokens(first[k]) for k in ("raw", "raw_reconsidered") if isinstance(first.get(k), str))
    conversations: list[list[dict[str, str]]] | None = None
    if case is not None and condition is not None and not human:
        try:
            conversations = _conversations(case, order, condition, first)
        except ValueError:  # run.json names no condition there is: nothing can match
            conversations = []
    asked = sum(approx_tokens("".join(m["content"] for m in conv)) for conv in conversations or [])
    problem = None
    if any(r != first for r in records[1:]):
        problem = "conflicting"
    elif first.get("answer") != pick or (has_second and first.get("reconsidered") != again):
        problem = "mismatched"
    elif reply is not None and case is not None and not human and first.get("raw") != reply(case, order):
        problem = "replaced"
    elif conversations is not None and not _bound(first, conversations):
        problem = "unbound"
    provider = provider_tokens(first)
    if problem:
        return Session(first, None, None, has_second, problem, asked, replies, provider)
    return Session(first, pick, again, has_second, None, asked, replies, provider)


def check_answers(
    cases: Sequence[Case],
    answers: Sequence[Any],
    sessions_per_case: int = 2,
    condition: str | None = None,
    reply: ReplyOf | None = None,
) -> tuple[dict[tuple[str, str], Session], dict[str, Any]]:
    """Re-derive every session's choice from its recorded reply and check the records (the
    rules are in this module's docstring).

    Args:
        cases: The case set.
        answers: ``answers.jsonl`` lines (anything a file may hold).
        sessions_per_case: 2 (both orders) or 1 (a person: the order of
            :func:`~pibench_tui.pivots.prompt.human_order` alone).
        condition: The run's condition (``run.json``): a model session's conversation is
            re-derived from its case, order and this condition and must be the one its record
            carries the digest of (else the session is ``unbound``). ``None``: not checked
            (records alone, without their run).
        reply: For a scripted judge's run, the judge's own reply to a case in an order
            (:meth:`~pibench_tui.pivots.evaluate.PivotRun.reference_reply`): a session whose
            recorded first reply is another is ``replaced``. ``None``: a model's or a
            person's run (their replies only the record holds).

    Returns:
        ``(sessions, integrity)``: the checked session of each recorded (case id, order) of the
        set, and ``{"sessions", "recorded", "answered", "unparseable", "missing",
        "mismatched": ["ID ORDER", ...], "replaced": [...], "unbound": [...], "conflicting": [...],
        "duplicates", "stray", "cases", "cases_answered", "cases_missing"}`` (counts of sessions,
        records and cases; a case is answered in full when each of its sessions has a choice
        read from its reply, and missing when none has).
    """
    human = sessions_per_case == 1
    by_id = {c.id: c for c in cases}
    ids = set(by_id)
    grouped: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    stray = 0
    for a in answers:
        if not isinstance(a, Mapping):
            stray += 1
            continue
        cid, order = a.get("id"), a.get("order")
        valid = (order == human_order(cid)) if human and isinstance(cid, str) else order in ORDERS
        if not isinstance(cid, str) or cid not in ids or not valid:
            stray += 1
            continue
        grouped.setdefault((cid, str(order)), []).append(a)
    sessions = {k: _session(v, k[1], human, by_id[k[0]], condition, reply) for k, v in grouped.items()}
    expected = [(c.id, o) for c in cases for o in _orders(c.id, sessions_per_case)]
    recorded = [k for k in expected if k in sessions]
    per_case: dict[str, int] = defaultdict(int)  # sessions answered (a choice read from the reply)
    for k in recorded:
        per_case[k[0]] += sessions[k].pick is not None
    integrity = {
        "sessions": len(expected),
        "recorded": len(recorded),
        "answered": sum(sessions[k].pick is not None for k in recorded),
        "unparseable": sum(sessions[k].pick is None and sessions[k].problem is None for k in recorded),
        "missing": len(expected) - len(recorded),
        "mismatched": [f"{k[0]} {k[1]}" for k in recorded if sessions[k].problem == "mismatched"],
        "replaced": [f"{k[0]} {k[1]}" for k in recorded if sessions[k].problem == "replaced"],
        "unbound": [f"{k[0]} {k[1]}" for k in recorded if sessions[k].problem == "unbound"],
        "conflicting": [f"{k[0]} {k[1]}" for k in recorded if sessions[k].problem == "conflicting"],
        "duplicates": sum(len(v) - 1 for k, v in grouped.items() if sessions[k].problem != "conflicting"),
        "stray": stray,
        "cases": len(cases),
        "cases_answered": sum(per_case[c.id] == sessions_per_case for c in cases),
        "cases_missing": sum(per_case[c.id] == 0 for c in cases),
    }
    return sessions, integrity


def _orders(case_id: str, sessions_per_case: int) -> tuple[str, ...]:
    """The orders a case is asked in: both, or a person's one (:func:`human_order`)."""
    return ORDERS if sessions_per_case == 2 else (human_order(case_id),)


def case_scores(
    cases: Sequence[Case],
    key: Mapping[str, KeyEntry],
    answers: Sequence[Any],
    sessions_per_case: int = 2,
    condition: str | None = None,
    *,
    checked: dict[tuple[str, str], Session] | None = None,
) -> list[CaseScore]:
    """Score every case of the set from the choices re-derived by :func:`check_answers`.

    Args:
        cases: The case set.
        key: The answer key (every case must be in it).
        answers: ``answers.jsonl`` lines.
        sessions_per_case: 2 (a model: both orders, averaged) or 1 (a person sees each case
            once, in the order of :func:`~pibench_tui.pivots.prompt.human_order`: that answer
            alone counts).
        condition: The run's condition (:func:`check_answers`).
        checked: The sessions :func:`check_answers` already gave for these answers.

    Raises:
        KeyError: A case has no key entry.
    """
    sessions = checked if checked is not None else check_answers(cases, answers, sessions_per_case, condition)[0]
    out = []
    for case in cases:
        right = key[case.id].better
        correct = []
        after: list[bool] = []
        answered = missing = invalid = first = repaired = introduced = tokens = 0
        provider: int | None = 0
        has_second = False
        orders = _orders(case.id, sessions_per_case)
        for order in orders:
            session = sessions.get((case.id, order))
            if session is None:
                missing += 1
                correct.append(False)
                after.append(False)
                provider = None
                continue
            pick = session.pick
            ok = pick == right
            correct.append(ok)
            invalid += session.problem is not None
            if pick is not None:
                answered += 1
                first += pick == order[0]
            tokens += session.tokens
            provider = None if provider is None or session.provider is None else provider + sum(session.provider)
            if session.has_second:
                has_second = True
                ok2 = session.reconsidered == right
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
                missing=missing,
                invalid=invalid,
                first_picks=first,
                reconsidered=(sum(after) / len(orders)) if has_second else None,
                regret=key[case.id].regret * (1.0 - acc),
                repaired=repaired,
                introduced=introduced,
                tokens=tokens,
                provider_tokens=provider,
            )
        )
    return out


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
        "missing": sum(s.missing for s in scores),
        "invalid": sum(s.invalid for s in scores),
        "first_plan_share": (sum(s.first_picks for s in scores) / max(1, sum(s.answered for s in scores))),
        "tokens_per_case": float(np.mean([s.tokens for s in scores])),
        "provider_tokens_per_case": (
            float(np.mean([s.provider_tokens for s in scores]))
            if all(s.provider_tokens is not None for s in scores)
            else None
        ),
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
    answers: Sequence[Any],
    sessions_per_case: int = 2,
    condition: str | None = None,
    reply: ReplyOf | None = None,
    *,
    checked: tuple[dict[tuple[str, str], Session], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Accuracy, both intervals, regret, per kind and per capability (``sessions_per_case``:
    see :func:`case_scores`), and what the records held (:func:`check_answers`, with the
    run's ``condition`` and, for a scripted judge's run, its ``reply``; ``checked``: what
    :func:`check_answers` already gave for them).

    Returns:
        ``{"overall": {...}, "by_kind": {kind: {...}}, "by_capability": {capability: {"kinds",
        ...}}, "integrity": {...}, "token_counts": {"derived": [prompt, completion],
        "provider": [prompt, completion] or None}, "cases": [...]}``
        where each summary holds ``cases, careers, accuracy, ci_cases, ci_careers, regret,
        unanswered, missing, invalid, first_plan_share, tokens_per_case,
        provider_tokens_per_case`` (and ``reconsidered`` with a reconsideration turn);
        ``unanswered`` counts every session without a valid parseable answer (missing,
        unparseable or invalid), all scored wrong. ``tokens_per_case`` is re-derived from the
        texts (characters / 4); ``provider_tokens_per_case`` is what the provider reported
        (``None`` unless every case's sessions have a reported count), not re-derived.
    """
    sessions, integrity = checked or check_answers(cases, answers, sessions_per_case, condition, reply)
    scores = case_scores(cases, key, answers, sessions_per_case, condition, checked=sessions)
    counted = [sessions[(c.id, o)] for c in cases for o in _orders(c.id, sessions_per_case) if (c.id, o) in sessions]
    reported = [x.provider for x in counted]
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
        "integrity": integrity,
        "token_counts": {
            "derived": [sum(x.asked for x in counted), sum(x.replied for x in counted)],
            "provider": (
                [sum(r[0] for r in reported if r), sum(r[1] for r in reported if r)]
                if counted and all(r is not None for r in reported)
                else None
            ),
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


def integrity_lines(integrity: dict[str, Any], names: int = 5) -> list[str]:
    """What a run's records held, in words (:func:`~pibench_tui.pivots.score.check_answers`):
    sessions answered, unparseable and missing; cases answered in full and not at all;
    duplicate and stray records; and (naming the first ``names``) sessions whose stored
    answer disagrees with their reply or that were recorded twice differently."""
    i = integrity
    out = [
        f"sessions: {i['answered']} of {i['sessions']} answered; {i['unparseable']} unparseable, "
        f"{i['missing']} missing (both counted wrong); cases: {i['cases_answered']} of {i['cases']} with every "
        f"session answered, {i['cases_missing']} with none"
    ]
    if i["duplicates"] or i["stray"]:
        out.append(
            f"records ignored: {count(i['duplicates'], 'duplicate')} (copies of a session's first record), "
            f"{i['stray']} stray (no case of the set, or an order it is not asked in)"
        )
    for what, why in (
        ("mismatched", "stored answer disagrees with the recorded reply"),
        ("replaced", "the reply is not the one the run's scripted judge gives, played again"),
        (
            "unbound",
            "the record carries no digest of the conversation its case, order and condition give: "
            "its order or prompt was changed, or it is another run's",
        ),
        ("conflicting", "session recorded more than once, differently"),
    ):
        bad = i.get(what) or []
        if bad:
            more = f" and {len(bad) - names} more" if len(bad) > names else ""
            out.append(f"INVALID: {count(len(bad), 'session')} {what} ({why}; counted wrong): "
                       f"{', '.join(bad[:names])}{more}")  # fmt: skip
    return out
