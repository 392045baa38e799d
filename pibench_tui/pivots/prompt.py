"""What the model reads for a pivot case, and how its answer is read (PIVOTS.md "How it is used").

Two conditions: ``record`` (the scenario's rules, the month reports so far, the dashboard at
the fork, then the two plans) and ``plans`` (the question and the two plans alone). The
plans are shown in the session's order: order ``AB`` shows plan A first as "Plan 1", order
``BA`` shows plan B first; the answer is mapped back to the case's labels.

The answer rule (strict, in ``docs/pivots.md``): the reply must hold a line
``ANSWER: 1`` or ``ANSWER: 2`` (the word case-insensitive, optional ``*``/``**`` around the
digit, nothing else on the line). No such line, or lines naming both plans, is unparseable
and scored wrong.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from world.report import pi_view

from .cases import Case

__all__ = [
    "CONDITIONS",
    "ORDERS",
    "RECONSIDER_TEXT",
    "RECORD_TOKEN_BUDGET",
    "approx_tokens",
    "case_messages",
    "conversation_digest",
    "human_order",
    "parse_answer",
    "parse_human_answer",
    "reconsider_messages",
    "render_reports",
]

#: Evaluation conditions.
CONDITIONS: tuple[str, ...] = ("record", "plans")
#: Plan orders: which case plan is shown as "Plan 1".
ORDERS: tuple[str, ...] = ("AB", "BA")

#: The record prompt's target size (tokens, estimated as characters / 4): month reports
#: are condensed, oldest first, until the whole prompt fits.
RECORD_TOKEN_BUDGET = 5_600

RECONSIDER_TEXT = (
    "Look again at the record and the two plans before you commit. Reconsider your choice, then end "
    "with the line ANSWER: 1 or ANSWER: 2 (you may keep your first answer)."
)

_SYSTEM = (
    "You advise the PI of an academic research lab in pibench, a simulated world whose rules are public and "
    "whose hidden quantities (true abilities, paper quality, topic hotness, agencies' preferences, morale) are "
    "not. The score is Impact: citations earned by the horizon plus the expected future citations of the "
    "published papers; a lab whose budget ends a month below zero collapses and keeps only the citations "
    "earned so far.\n"
    "You are shown a decision the PI faces at the start of a month and two plans. Everything else the lab "
    "does this month and later is the same under both plans. Choose the plan that leads to more Impact in "
    "expectation. Reply with at most a few sentences of reasoning, then a final line that is exactly\n"
    "ANSWER: 1\n"
    "or\n"
    "ANSWER: 2"
)

_ANSWER = re.compile(r"^\s*answer\s*:\s*\**\s*([12])\s*\**\s*\.?\s*$", re.IGNORECASE | re.MULTILINE)
_HUMAN_ANSWER = re.compile(r"ANSWER: ([12])(?: \(key [^\n]{1,20}\))?")


def approx_tokens(text: str) -> int:
    """Token estimate of ``text``: characters / 4, rounded up (no tokenizer is shipped)."""
    return (len(text) + 3) // 4


def _compact(value: Any) -> Any:
    """``value`` without empty lists, dicts and ``None`` fields (nothing happened there)."""
    if isinstance(value, Mapping):
        out = {k: _compact(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, [], {}, "")}
    if isinstance(value, list):
        return [_compact(v) for v in value]
    return value


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=False)


def _brief(report: Mapping[str, Any]) -> str:
    """One short line of a month report: its month, money and the kinds of fact it holds."""
    c = _compact(report)
    money = c.get("money", {}) if isinstance(c.get("money"), Mapping) else {}
    cites = c.get("citations", {}) if isinstance(c.get("citations"), Mapping) else {}
    facts = [f"{k}={len(v)}" for k, v in c.items() if isinstance(v, list) and k not in ("headlines",) and v]
    head = f"M{report.get('month')}"
    bits = [f"net {money.get('net', 0):+,.0f} USD", f"budget {money.get('budget', 0):,.0f} USD"]
    if cites.get("earned"):
        bits.append(f"citations +{cites['earned']}")
    return head + ": " + ", ".join(bits + facts)


def render_reports(reports: list[Mapping[str, Any]], budget_chars: int) -> str:
    """The month reports as compact JSON lines, oldest condensed to one line first until the
    text fits ``budget_chars`` (the newest report is always whole).

    Args:
        reports: Month reports in month order (``time.last_report()`` shapes).
        budget_chars: Largest length of the result in characters.
    """
    full = [_json(_compact(r)) for r in reports]
    lines = list(full)
    total = sum(len(x) + 1 for x in lines)
    i = 0
    while total > budget_chars and i < len(lines) - 1:
        short = _brief(reports[i])
        total += len(short) - len(lines[i])
        lines[i] = short
        i += 1
    # Still too long: drop the oldest condensed lines, saying how many.
    dropped = 0
    while total > budget_chars and dropped < len(lines) - 1:
        total -= len(lines[dropped]) + 1
        dropped += 1
    kept = lines[dropped:]
    if dropped:
        kept.insert(0, f"(months {reports[0].get('month')}-{reports[dropped - 1].get('month')} left out)")
    return "\n".join(kept)


def _plans_text(case: Case, order: str) -> str:
    first, second = order[0], order[1]
    return (
        f"DECISION (month {case.fork_month}): {case.question}\n\n"
        f"Plan 1: {case.plans[first]['text']}\n\n"
        f"Plan 2: {case.plans[second]['text']}"
    )


def _rules_text(rules: Mapping[str, Any]) -> str:
    try:
        from pibench_tui.harness.prompt import mechanics_text

        return mechanics_text(rules)
    except (KeyError, TypeError, ValueError):  # a record whose rules have another shape
        return "RULES (JSON):\n" + _json(rules)


def case_messages(case: Case, order: str, condition: str) -> list[dict[str, str]]:
    """The conversation that asks ``case`` in ``order`` under ``condition``.

    The month reports are shown as the PI was told them (:func:`world.report.pi_view`, what
    ``time.last_report()`` returns): the PhD offers the PI made and the season's applicant
    counts, never the applicants not offered a place as "expired" offers, whichever form the
    case file stores (sets built before the record held the PI's view store the full report).

    Args:
        case: The case.
        order: ``"AB"`` or ``"BA"`` (:data:`ORDERS`).
        condition: ``"record"`` or ``"plans"`` (:data:`CONDITIONS`).

    Returns:
        ``[{"role": "system", ...}, {"role": "user", ...}]``.

    Raises:
        ValueError: An unknown order or condition.
    """
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
    if condition not in CONDITIONS:
        raise ValueError(f"condition must be one of {', '.join(CONDITIONS)}, got {condition!r}")
    plans = _plans_text(case, order)
    if condition == "plans":
        user = plans + "\n\nWhich plan leads to more Impact? End with ANSWER: 1 or ANSWER: 2."
        return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]
    rec = case.record
    head = _rules_text(rec["rules"])
    dash = "DASHBOARD AT THE FORK (JSON):\n" + _json(_compact(rec["dashboard"]))
    tail = plans + "\n\nWhich plan leads to more Impact? End with ANSWER: 1 or ANSWER: 2."
    fixed = len(_SYSTEM) + len(head) + len(dash) + len(tail) + 200
    budget = max(400, RECORD_TOKEN_BUDGET * 4 - fixed)
    reports = "MONTH REPORTS SO FAR (JSON, one month a line; older months condensed):\n" + render_reports(
        [pi_view(dict(r)) for r in rec["reports"]], budget
    )
    user = "\n\n".join([head, reports, dash, tail])
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


def conversation_digest(messages: list[dict[str, str]]) -> str:
    """SHA-256 (hex) of a conversation as sent (its messages' roles and texts, canonical JSON):
    ``pibench pivots eval`` records it for each turn, and the scorer compares it with the
    digest of the conversation it re-derives from the case, the order and the condition
    (:func:`case_messages`), so a record's order cannot be changed without it showing."""
    text = json.dumps(messages, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def reconsider_messages(first: list[dict[str, str]], reply: str) -> list[dict[str, str]]:
    """The reconsideration turn's conversation: ``first``, the model's first reply, then
    :data:`RECONSIDER_TEXT`."""
    return [*first, {"role": "assistant", "content": reply}, {"role": "user", "content": RECONSIDER_TEXT}]


def parse_answer(reply: str, order: str) -> str | None:
    """The case plan (``"A"``/``"B"``) a reply chose, or ``None`` when it is unparseable.

    Args:
        reply: The model's whole reply.
        order: The order the plans were shown in (``"AB"``: Plan 1 is A).

    Returns:
        ``"A"`` or ``"B"``; ``None`` without an ``ANSWER:`` line or with lines naming both.
    """
    picks = {m.group(1) for m in _ANSWER.finditer(reply or "")}
    if len(picks) != 1:
        return None
    shown = picks.pop()
    return order[0] if shown == "1" else order[1]


def parse_human_answer(raw: str, order: str) -> str | None:
    """The case plan a person's saved line chose (``pibench play --pivots`` writes ``raw`` as
    ``ANSWER: 1`` or ``ANSWER: 2``, then `` (key K)`` with the key pressed), or ``None`` when
    ``raw`` is not such a line."""
    m = _HUMAN_ANSWER.fullmatch(raw) if isinstance(raw, str) else None
    if m is None:
        return None
    return order[0] if m.group(1) == "1" else order[1]


def human_order(case_id: str) -> str:
    """The order a person sees a case's plans in: ``"AB"`` or ``"BA"``, fixed per case by
    SHA-256 of its id, so about half the cases show plan B first (no position to learn)."""
    return "AB" if hashlib.sha256(case_id.encode("utf-8")).digest()[0] % 2 == 0 else "BA"
