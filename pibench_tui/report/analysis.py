"""From careers to findings: leaderboard, axes, behaviour, census and legibility (issue 11).

:func:`build_report` returns one JSON-able dict; the terminal tables, the HTML page and
``--json`` all render that dict.
"""

from __future__ import annotations

import math
import statistics
import time
from collections import Counter, defaultdict
from typing import Any

from pibench_tui.pricing import Price, cost_usd
from pibench_tui.report.load import FOLDER_KEY, HARNESS_SETTINGS, Career, tokens_known
from pibench_tui.report.stats import (
    ALPHA,
    FEW_CAREERS,
    POWER,
    bootstrap_mean_ci,
    interval,
    pair_power,
    spearman,
    summary,
    variance_shares,
)

__all__ = [
    "ARCHETYPES",
    "BOOM_IMPACT",
    "CHURN_HIRES",
    "NEVER_BUILT_MAX",
    "UNPLAYED",
    "archetype",
    "build_report",
    "counted",
]

#: Impact at which a career counts as a boom rider (the census rule).
BOOM_IMPACT = 800.0
#: Hires at which a career that never reached :data:`BOOM_IMPACT` counts as overbuilt churn.
CHURN_HIRES = 8
#: A career with at most this many hires or publications "never built" a lab.
NEVER_BUILT_MAX = 2

ARCHETYPES = ("bankrupt", "never built", "boom rider", "overbuilt churn", "steady")
ARCHETYPE_RULES = {
    "bankrupt": "the lab collapsed (budget below zero at a month's end)",
    "never built": f"≤ {NEVER_BUILT_MAX} hires or ≤ {NEVER_BUILT_MAX} publications",
    "boom rider": f"Impact ≥ {BOOM_IMPACT:g}",
    "overbuilt churn": f"≥ {CHURN_HIRES} hires without reaching Impact {BOOM_IMPACT:g}",
    "steady": "every other career",
}

#: Statuses of careers that have no result yet (no ``result.json``): their figures are not
#: a career's (an unfinished one is still being played), so they show none.
UNPLAYED = ("unfinished", "crashed")

#: Behaviour measures taken from the pooled capability axes (key -> axis).
BEHAVIOUR_AXES = {
    "actions_per_month": "actions_per_month",
    "conversion": "publications_per_student_year",
    "grant_hit_rate": "grant_hit_rate",
    "topic_hotness_rank": "topic_hotness_rank",
    "attention_utilization": "attention_utilization",
    "attention_at_ceiling": "attention_at_ceiling",
}


def scored_impact(career: Career) -> float:
    """The Impact a career counts for in the leaderboard: its own (re-simulated), or 0 when
    it is invalid (it does not replay to its recorded result, or its files are damaged or
    another career's). Dropping invalid careers instead would let a damaged or tampered run
    take a bad seed out of a mean; they are listed with their reasons and marked in their
    seed's column. An unverified career (counted with ``--trust-unverified`` only) counts
    for the Impact its result.json records."""
    if career.valid is False:
        return 0.0
    if career.status == "unverified":  # counted only with --trust-unverified, marked where it is
        return career.recorded_impact or 0.0
    return career.impact


def scored_collapse(career: Career) -> bool:
    """Whether a career counts as collapsed in the leaderboard's collapse column: its own
    (re-simulated) outcome, or collapsed when it is invalid. An invalid career's files are not
    believed and it counts as Impact 0 (:func:`scored_impact`), the worst outcome; its
    collapse is counted the same way, so a tampered ``collapsed: false`` cannot lower a
    label's collapse share (found by a QA tester: the invalid career scored 0 but showed no
    collapse)."""
    if career.valid is False:
        return True
    if career.status == "unverified":
        return bool(career.recorded_collapsed)
    return career.collapsed


def counted(career: Career, trust_unverified: bool = False) -> bool:
    """Whether a career enters aggregates: valid and invalid ones (invalid as 0); unverified
    ones only with ``trust_unverified``; unfinished and crashed ones never (they are listed
    and counted in the "missing" column)."""
    if career.status in ("valid", "invalid"):
        return True
    return trust_unverified and career.status == "unverified"


#: Statuses of careers whose figures were not re-simulated: no archetype of theirs is shown.
UNSCORED = ("invalid", "unverified")
#: The census column of counted careers whose figures are not verified (:data:`UNSCORED`).
NOT_VERIFIED = "not verified"


def archetype(c: Career) -> str:
    """The census archetype of a career (rules applied in :data:`ARCHETYPES` order); an
    invalid career is counted as collapsed (:func:`scored_collapse`): its files are not believed."""
    if scored_collapse(c):
        return "bankrupt"
    if c.hires <= NEVER_BUILT_MAX or c.publications <= NEVER_BUILT_MAX:
        return "never built"
    if c.impact >= BOOM_IMPACT:
        return "boom rider"
    if c.hires >= CHURN_HIRES:
        return "overbuilt churn"
    return "steady"


def split_labels(careers: list[Career]) -> dict[str, list[str]]:
    """Labels whose careers were played with different harness settings (model, scenario
    config, turns, temperature, tokens, memory, system prompt, request options), each with
    its settings hashes (sorted): one label is one configuration, so the report shows
    such a label as one row per configuration, ``"label · settings <hash prefix>"``. An
    invalid career's files are not believed, its settings included: it never splits a label
    (:func:`_key` puts it in a row of its label's own settings)."""
    seen: dict[str, set[str]] = defaultdict(set)
    for c in careers:
        if c.settings_hash and c.status != "invalid":
            seen[c.label].add(c.settings_hash)
    return {label: sorted(hashes) for label, hashes in seen.items() if len(hashes) > 1}


def model_id_mix(every: dict[str, list[Career]]) -> dict[str, dict[str, int]]:
    """Rows whose careers the provider said were answered by different model ids (its
    ``provenance.provider_model_ids``: an endpoint that served another model, a snapshot
    changed mid-evaluation), each with every id and the number of careers it answered
    (sorted by id). A row whose careers each name the same ids is not listed, nor are
    invalid careers (their files are not believed) and careers that recorded none."""
    out: dict[str, dict[str, int]] = {}
    for key, cs in every.items():
        sets = {c.model_ids for c in cs if c.model_ids and c.status != "invalid"}
        if len(sets) > 1:
            counts: dict[str, int] = defaultdict(int)
            for c in cs:
                if c.model_ids and c.status != "invalid":
                    for mid in c.model_ids:
                        counts[mid] += 1
            out[key] = dict(sorted(counts.items()))
    return out


#: What an agent career's row is called when its label may be taken for a policy's name.
AGENT_RUN_MARK = " (agent run)"


def row_label(c: Career) -> str:
    """The label a career's row shows: an agent career whose label a reader may take for a
    reference policy's name (``baseline``, a Cyrillic ``bаseline``, ``baseline`` behind
    escapes or zero-width characters, ``baseline · x``) gets :data:`AGENT_RUN_MARK`, so it
    is never one row with the policy nor taken for it."""
    from pibench_tui.textsafe import reads_as
    from world.policies import ALL_NAMES

    if c.kind == "agent" and reads_as(c.label, ALL_NAMES):
        return c.label + AGENT_RUN_MARK
    return c.label


def _key(c: Career, multi: bool, split: dict[str, list[str]] | None = None) -> str:
    label = row_label(c)
    key = f"{label} · {c.scenario}" if multi else label
    if split and c.label in split:
        own = c.settings_hash if c.settings_hash in split[c.label] or c.status != "invalid" else split[c.label][0]
        key += f" · settings {own[:8] if own else 'unknown'}"
    return key


def _pool_axes(careers: list[Career]) -> dict[str, float | None]:
    from world.axes import pool_axes

    results = [c.axes for c in careers if c.axes and "axes" in c.axes and "pool" in c.axes]
    return pool_axes(results) if results else {}


def _key_order(key: str) -> tuple[int, int, str]:
    """Seed columns: public seeds by number, then sealed commitments, then anything else."""
    if key.lstrip("-").isdigit():
        return (0, int(key), "")
    return (1 if key.startswith("sealed:") else 2, 0, key)


def _reference(labels: list[str], reference: str | None, policies: dict[str, str] | None = None) -> str | None:
    """The reference row: ``reference``, else the first row of the ``baseline`` (or
    ``baseline-tuned``) policy among ``policies`` (row -> its careers' label, rows of policy
    careers only, none on a modified bundled scenario, so a row's name is never split on its separator: an agent run
    never becomes the reference by its label), else none (a new-user tester found the report
    heading "reference fake-k", a label with no counted career, where docs/agent.md says the
    default reference is the baseline's row only)."""
    if reference is None:
        return next((k for k in labels if (policies or {}).get(k) in ("baseline", "baseline-tuned")), None)
    if reference not in labels:
        raise ValueError(f"--reference {reference!r}: no such label; labels: {', '.join(labels)}")
    return reference


def _paired(
    cs: list[Career], ref_by: dict[tuple[str, str], float], unverified: frozenset[tuple[str, str]] = frozenset()
) -> dict[str, Any] | None:
    """The paired difference against the reference over the (scenario, key) both have;
    ``unverified``: the reference's (scenario, key) of unverified careers (``--trust-unverified``):
    ``unverified`` counts the pairs either side of which is one."""
    shared = [c for c in cs if (c.scenario, c.key) in ref_by]
    paired = [scored_impact(c) - ref_by[(c.scenario, c.key)] for c in shared]
    if not paired:
        return None
    pci = bootstrap_mean_ci(paired)
    return {
        "unverified": sum(1 for c in shared if c.status == "unverified" or (c.scenario, c.key) in unverified),
        "n": len(paired),
        "mean": statistics.fmean(paired),
        "ci": list(pci) if pci else None,
        "wins": sum(1 for d in paired if d > 0),
    }


def _cost(key: str, agents: list[Career], prices: dict[str, Price]) -> float | None:
    """USD of a label's counted agent careers, from their re-derived tokens (cached prompt
    tokens at the cached price when the provider reported them; the tokens of abandoned
    attempts included: they were paid for, and the estimated prompt tokens of requests
    abandoned at a time-out at the prompt price) at ``--price`` (label or model), else at the
    price each career's result.json recorded (when every one has a valid one; ``None``
    otherwise). The ``cost_usd`` a result.json records is never summed: an edited one (a
    negative, NaN or 10^300 cost) was shown as the label's cost."""
    if not agents:
        return None
    first = agents[0]
    given = prices.get(key) or prices.get(first.label) or (prices.get(first.model or "") if first.model else None)
    if not given and any(c.price is None for c in agents):
        return None
    total = 0.0
    for c in agents:
        price = Price(*(given or c.price or (0.0, 0.0)))  # a plain (in, out[, cached]) tuple too
        total += (
            cost_usd(price, c.prompt_tokens or 0, c.completion_tokens or 0, c.cached_prompt_tokens)
            + cost_usd(price, c.abandoned_prompt_tokens, c.abandoned_completion_tokens)
            + cost_usd(price, c.timed_out_prompt_estimate, 0)  # an estimate (characters / 4)
        )
    return total


def _career_cost(key: str, c: Career, prices: dict[str, Price]) -> float | None:
    """One agent career's USD (:func:`_cost` of that career alone); ``None`` for a policy."""
    return _cost(key, [c], prices) if c.kind == "agent" else None


def _known(c: Career) -> str:
    """:func:`tokens_known` of one career."""
    return tokens_known(c.calls, c.failed_calls, c.calls_without_usage)


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _agent_columns(key: str, agents: list[Career], prices: dict[str, Price]) -> dict[str, Any]:
    """Tokens, cost, failed LLM calls and integrity flags of a label's counted agent careers."""
    return {**_token_columns(key, agents, prices), **_trouble_columns(agents)}


def _token_columns(key: str, agents: list[Career], prices: dict[str, Price]) -> dict[str, Any]:
    """Tokens per career and in all, USD in all and per career (:func:`_cost`), abandoned
    tokens and cached prompt tokens per career; ``None`` where nothing was counted."""
    without = sum(c.calls_without_usage for c in agents)
    known = tokens_known(sum(c.calls or 0 for c in agents), sum(c.failed_calls or 0 for c in agents), without)
    tokens = [c.tokens for c in agents if c.tokens is not None] if known != "none" else []
    cost = _cost(key, agents, prices) if known != "none" else None
    cached = [c.cached_prompt_tokens for c in agents if c.cached_prompt_tokens is not None]
    return {
        "tokens_known": known,
        "calls_without_usage": without,
        "answered_calls": sum((c.calls or 0) - (c.failed_calls or 0) for c in agents),
        "tokens_per_career": statistics.fmean(tokens) if tokens else None,
        "tokens_total": sum(tokens) if tokens else None,
        "cost_usd": cost,
        "cost_per_career": cost / len(agents) if cost is not None and agents else None,
        "abandoned_tokens_per_career": (
            statistics.fmean(c.abandoned_prompt_tokens + c.abandoned_completion_tokens for c in agents)
            if agents
            else None
        ),
        "cached_prompt_per_career": statistics.fmean(cached) if cached else None,
        "timed_out_estimated_per_career": (
            statistics.fmean(c.timed_out_prompt_estimate for c in agents) if agents else None
        ),
        "in_flight_estimated_per_career": (
            statistics.fmean(c.in_flight_prompt_estimate for c in agents) if agents else None
        ),
    }


def _failed_call_columns(agents: list[Career]) -> dict[str, Any]:
    """Careers with failed LLM calls and the calls."""
    return {
        "llm_failed_runs": sum(1 for c in agents if (c.failed_calls or 0) > 0),
        "llm_failed_calls": sum(c.failed_calls or 0 for c in agents),
    }


def _trouble_columns(agents: list[Career]) -> dict[str, Any]:
    """Careers with failed LLM calls and the calls, flagged careers and the flags, and the
    integrity findings counted by kind."""
    return {
        **_failed_call_columns(agents),
        "flagged": sum(1 for c in agents if (c.flags or 0) > 0),
        "flags": sum(c.flags or 0 for c in agents),
        "integrity": dict(sum((Counter(c.integrity) for c in agents), Counter())),
    }


def log_unchecked(c: Career) -> bool:
    """Whether ``c`` is a valid agent career whose action log was not checked against its
    transcript (``pibench report`` without ``--check-transcripts``): its Impact is what the
    logged calls produce, not proved to be what the model's replies did."""
    return c.kind == "agent" and c.status == "valid" and c.transcript_check is None


def _status_columns(every: list[Career], cs: list[Career], absent: dict[str, Any] | None = None) -> dict[str, Any]:
    """Which seeds are invalid (counted as 0), unverified (counted: --trust-unverified) or
    missing (listed, not counted), with the reasons; ``absent`` (:func:`_absent_seeds`): the
    seeds of the row's scenario that other rows played and this row has no run folder for.
    ``missing`` counts both: the careers found but not counted and the absent seeds."""
    counted_ids = {id(c) for c in cs}
    missing = [c for c in every if id(c) not in counted_ids]
    invalid = [c for c in cs if c.valid is False]
    absent = absent or {"seeds": [], "elsewhere": {}}
    return {
        "invalid_seeds": [c.key for c in invalid],
        "unverified_seeds": [c.key for c in cs if c.status == "unverified"],
        "log_unchecked_seeds": [c.key for c in cs if log_unchecked(c)],
        "missing": len(missing) + len(absent["seeds"]),
        "missing_seeds": {c.key: c.status for c in missing},
        "absent_seeds": absent["seeds"],
        "absent_elsewhere": absent["elsewhere"],
        "missing_reasons": [f"{c.source}: {c.status}: {c.invalid_reason}" for c in missing],
        "invalid": len(invalid),
        "invalid_reasons": [f"{c.source}: {c.invalid_reason}" for c in invalid],
    }


def _was_played(c: Career) -> bool:
    """Whether ``c`` is a career someone played: its folder held a result (any status that
    read one, or a recorded Impact) or a checkpoint (unfinished); not a folder, file or link
    merely named as a run folder, nor one holding a stray file of a run."""
    return c.status in ("valid", "unverified", "unfinished") or c.recorded_impact is not None


def _absent_seeds(every: dict[str, list[Career]]) -> dict[str, dict[str, Any]]:
    """Per row: ``seeds``, the seed keys that other rows of the same scenario played
    (:func:`_was_played`: a run folder with a result or a checkpoint; an empty folder, a
    file or a link named as a run folder is no seed played) and this row has none, in seed order; ``elsewhere``, for those of
    them that a career of the row's own label played in another row of the scenario (a label
    split by settings, :func:`split_labels`), seed key -> those rows. Worked out from the
    careers themselves (their scenario, label and seed key), never by reading a row's name:
    a label may hold any character, the rows' separator ``" · "`` included. A folder whose
    name is not ``<scenario>-<seed>`` (key ``folder:<name>``) is listed in its own row only:
    it is no seed the other rows miss."""
    played: dict[str, set[str]] = defaultdict(set)
    where: dict[tuple[str, str, str], set[str]] = defaultdict(set)  # (scenario, label, key) -> rows
    for row, cs in every.items():
        for c in cs:
            if _was_played(c) and not c.key.startswith(FOLDER_KEY):  # a stray folder is no seed to miss
                played[c.scenario].add(c.key)
                where[(c.scenario, c.label, c.key)].add(row)
    out = {}
    for row, cs in every.items():
        have = {(c.scenario, c.key) for c in cs}
        absent = sorted(
            {(scen, key) for scen in {c.scenario for c in cs} for key in played[scen] if (scen, key) not in have},
            key=lambda sk: (_key_order(sk[1]), sk[0]),
        )
        elsewhere = {}
        for scen, key in absent:
            rows = sorted(r for lab in {c.label for c in cs} for r in where.get((scen, lab, key), ()) if r != row)
            if rows:
                elsewhere[key] = rows
        out[row] = {"seeds": [key for _, key in absent], "elsewhere": elsewhere}
    return out


def _means(cs: list[Career]) -> dict[str, Any]:
    """Collapses and mean papers, grants, hires and quits of the counted careers (the means
    over those re-simulated or invalid: an unverified career's counts are not believed)."""
    known = [c for c in cs if c.status != "unverified"]
    return {
        "collapses": sum(1 for c in cs if scored_collapse(c)),
        **{name: _mean([getattr(c, name) for c in known]) for name in ("publications", "grants", "hires", "quits")},
    }


def _leaderboard_row(
    key: str,
    every: list[Career],
    cs: list[Career],
    multi: bool,
    diff: dict[str, Any] | None,
    prices: dict[str, Price],
    absent: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One label's row: ``cs`` are its counted careers, ``every`` all of them, ``absent`` the
    seeds it has no run folder for (:func:`_absent_seeds`)."""
    impacts = [scored_impact(c) for c in cs]
    ci = bootstrap_mean_ci(impacts)
    first = every[0]
    means = _means(cs)
    return {
        "label": key,
        "kind": first.kind,
        "model": first.model,
        "scenario": first.scenario if not multi else sorted({c.scenario for c in every}),
        "seeds": {c.key: scored_impact(c) for c in sorted(cs, key=lambda c: _key_order(c.key))},
        **summary(impacts),
        "ci95": list(ci) if ci else None,
        "interval": interval(impacts),
        "vs_reference": diff,
        **means,
        "collapse_share": means["collapses"] / len(cs) if cs else None,
        **_agent_columns(key, [c for c in cs if c.kind == "agent"], prices),
        # Failed LLM calls over every career of the label, not only the counted ones: a label
        # whose careers never answered showed "failed calls 0" beside n = 0 (QA7 F4). A tampered
        # (invalid) career's count is not believed.
        **_failed_call_columns([c for c in every if c.kind == "agent" and c.status != "invalid"]),
        **_status_columns(every, cs, absent),
        "harness": _harness_values([c for c in cs if c.kind == "agent" and c.status != "invalid"]),
    }


def _pairs(
    order: list[str], groups: dict[str, list[Career]], scenarios: dict[str, set[str]] | None = None
) -> list[dict[str, Any]]:
    """Every pair of labels (leaderboard order: ``a`` ranks above ``b``) of one scenario
    (``scenarios``: each row's scenarios, its content hash in the name when not the bundled
    one; rows of different scenarios are no pair: QA7 F9 saw them listed with 0 pairs) on the
    careers both played (same scenario and seed key: the same worlds): the mean paired difference a − b,
    its interval (:func:`~pibench_tui.report.stats.interval`), wins of ``a``, the smallest
    difference these pairs could detect and the careers needed to resolve the observed one
    (:func:`~pibench_tui.report.stats.pair_power`), whether it is resolved (a bootstrap
    interval, so at least ``FEW_CAREERS`` pairs, and the paired-t interval both exclude 0), and ``unverified``: the
    pairs with an unverified career on either side (``--trust-unverified``)."""
    by = {k: {(c.scenario, c.key): scored_impact(c) for c in cs} for k, cs in groups.items()}
    unverified = {k: {(c.scenario, c.key) for c in cs if c.status == "unverified"} for k, cs in groups.items()}
    out = []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            if scenarios is not None and not scenarios.get(a, set()) & scenarios.get(b, set()):
                continue  # other worlds: nothing to pair
            shared = sorted(set(by[a]) & set(by[b]))
            trusted = sum(1 for k in shared if k in unverified[a] or k in unverified[b])
            diffs = [by[a][k] - by[b][k] for k in shared]
            iv = interval(diffs)
            power = pair_power(diffs)
            # Both intervals must exclude 0: a bootstrap interval alone was "resolved" on one
            # outlier pair (+13.2 [+0.4, +33.4] while the paired-t interval held 0, and the
            # careers needed said 106 of the 30 played).
            resolved = bool(
                iv
                and iv["kind"] == "bootstrap"
                and (iv["low"] > 0 or iv["high"] < 0)
                and power["t_half_width"] is not None
                and abs(power["mean"]) > power["t_half_width"]
            )
            out.append(
                {
                    "a": a,
                    "b": b,
                    **power,
                    "interval": iv,
                    "wins": sum(1 for d in diffs if d > 0),
                    "losses": sum(1 for d in diffs if d < 0),
                    "resolved": resolved,
                    "unverified": trusted,
                }
            )
    return out


def _harness_values(cs: list[Career]) -> dict[str, list[Any]]:
    """Per :data:`~pibench_tui.report.load.HARNESS_SETTINGS` key, the values a label's agent
    careers recorded (sorted by their text; invalid careers' files are not believed)."""
    out: dict[str, list[Any]] = {}
    for key in HARNESS_SETTINGS:
        values = {repr(c.harness.get(key)): c.harness.get(key) for c in cs if c.harness is not None}
        if values:
            out[key] = [values[k] for k in sorted(values)]
    return out


def harness_differences(leaderboard: list[dict[str, Any]]) -> list[str]:
    """One line per harness setting (max turns, block timeout, temperature, max tokens) whose
    recorded values differ between the compared agent rows, naming each row's value(s): a
    difference between such labels may be the harness's, not the model's."""
    rows = [r for r in leaderboard if r.get("harness")]
    lines = []
    for key, name in HARNESS_SETTINGS.items():
        seen = {r["label"]: r["harness"].get(key) for r in rows if key in r["harness"]}
        if len(seen) < 2 or len({repr(v) for v in seen.values()}) < 2:
            continue
        shown = "; ".join(
            f"{label} {', '.join('—' if v is None else f'{v:g}' if isinstance(v, float) else str(v) for v in vals)}"
            for label, vals in seen.items()
        )
        lines.append(f"{name}: {shown}")
    return lines


def _behaviour(groups: dict[str, list[Career]], axes: dict[str, dict[str, float | None]]) -> dict[str, Any]:
    behaviour = {}
    for key, cs in groups.items():
        pooled = axes[key]
        row: dict[str, float | None] = {name: pooled.get(axis) for name, axis in BEHAVIOUR_AXES.items()}
        blocks = sum(c.blocks or 0 for c in cs)
        row["block_error_rate"] = (sum(c.block_errors or 0 for c in cs) / blocks) if blocks else None
        behaviour[key] = row
    return behaviour


def _census(groups: dict[str, list[Career]]) -> dict[str, Any]:
    """Counted careers by archetype per row; those whose figures are not verified (invalid,
    or unverified with ``--trust-unverified``) in a :data:`NOT_VERIFIED` column of their own
    (shown only when there is one): no archetype is made of figures nobody re-simulated."""
    unscored = any(c.status in UNSCORED for cs in groups.values() for c in cs)
    names = [*ARCHETYPES, NOT_VERIFIED] if unscored else list(ARCHETYPES)
    table = {key: {a: 0 for a in names} for key in groups}
    for key, cs in groups.items():
        for c in cs:
            table[key][NOT_VERIFIED if c.status in UNSCORED else archetype(c)] += 1
    rules = dict(ARCHETYPE_RULES)
    if unscored:
        rules[NOT_VERIFIED] = (
            "invalid (counted as Impact 0 and collapsed) or unverified (--trust-unverified): its files' figures "
            "are not believed, so it has no archetype"
        )
    return {"archetypes": names, "rules": rules, "table": table}


def build_report(
    careers: list[Career],
    *,
    reference: str | None = None,
    prices: dict[str, Price] | None = None,
    trust_unverified: bool = False,
) -> dict[str, Any]:
    """The report as data.

    Args:
        careers: From :func:`pibench_tui.report.load.load_careers`.
        reference: Label to compare against (paired differences by scenario and seed key);
            default ``baseline`` when present, else the first label.
        prices: ``label or model -> Price`` (:class:`pibench_tui.pricing.Price`, or a plain
            ``(in, out[, cached])`` tuple): USD per million prompt, completion and cached
            prompt tokens, for the cost column.
        trust_unverified: Count careers that were not re-simulated (their recorded Impact).

    Returns:
        ``{"generated", "pibench_version", "scenarios", "reference", "leaderboard", "seeds",
        "axes", "behaviour", "census", "legibility", "careers", "trust_unverified", "foreign"}``
        (``foreign``: ``{"source", "reason"}`` of each folder found that is not a run);
        every leaderboard row has ``missing`` beside ``n``: careers listed but not counted
        (unfinished, crashed, unverified; ``missing_seeds``) and seeds of its scenario that
        other rows played and it has no run folder for (``absent_seeds``).

    Raises:
        ValueError: ``reference`` is not a label.
    """
    from pibench_tui import __version__

    prices = prices or {}
    foreign = [{"source": c.source, "reason": c.invalid_reason} for c in careers if c.status == "foreign"]
    careers = [c for c in careers if c.status != "foreign"]  # no career: no row, scenario nor seed
    scenarios = sorted({c.scenario for c in careers})
    multi = len(scenarios) > 1
    split = split_labels(careers)
    every: dict[str, list[Career]] = defaultdict(list)
    for c in careers:
        every[_key(c, multi, split)].append(c)
    groups = {k: [c for c in cs if counted(c, trust_unverified)] for k, cs in every.items()}
    policies = {k: v for k, v in _policy_rows(every).items() if not any(_modified_bundled(c) for c in every[k])}
    reference = _reference(list(every), reference, policies)
    leaderboard = _leaderboard(every, groups, reference, multi, prices)
    axes = {key: _pool_axes(cs) for key, cs in groups.items()}
    scored = [c for cs in groups.values() for c in cs if c.status != "unverified"]  # figures of worlds only
    order = [r["label"] for r in leaderboard]
    return {
        "generated": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "pibench_version": __version__,
        "scenarios": scenarios,
        "reference": reference,
        "split_labels": split,
        "model_id_mix": model_id_mix(every),
        "harness_differences": harness_differences(leaderboard),
        "trust_unverified": trust_unverified,
        "seeds": sorted({c.key for c in careers}, key=_key_order),
        "leaderboard": leaderboard,
        "pairs": _pairs(order, groups, {k: {c.scenario for c in cs} for k, cs in every.items()}),
        "power": {"alpha": ALPHA, "power": POWER, "few_careers": FEW_CAREERS},
        "axes": axes,
        "behaviour": _behaviour(groups, axes),
        "census": _census(groups),
        "legibility": {scen: _legibility([c for c in scored if c.scenario == scen], groups) for scen in scenarios},
        "careers": _career_rows(order, every, prices, trust_unverified),
        "foreign": foreign,
    }


def _modified_bundled(c: Career) -> bool:
    """Whether ``c`` played a bundled scenario's name with another config (``standard
    (modified ad3657df)``): such a row is never the default reference (QA F13: a baseline
    run on an edited standard.toml was taken for the baseline's row)."""
    from scenarios import MODIFIED_MARK, bundled_hash

    base, sep, _ = c.scenario.partition(MODIFIED_MARK)
    if not sep:
        return False

    try:
        return bundled_hash(base) is not None
    except Exception:  # noqa: BLE001 - a broken bundled file: nothing is "standard" then
        return False


def _policy_rows(every: dict[str, list[Career]]) -> dict[str, str]:
    """The rows whose every career is a policy's, each with its careers' label."""
    return {k: cs[0].label for k, cs in every.items() if cs and all(c.kind == "policy" for c in cs)}


def _leaderboard(
    every: dict[str, list[Career]],
    groups: dict[str, list[Career]],
    reference: str | None,
    multi: bool,
    prices: dict[str, Price],
) -> list[dict[str, Any]]:
    """A :func:`_leaderboard_row` per row, paired against ``reference``'s careers (the
    reference's own row has none), best mean first (a row with no counted career last)."""
    ref = groups.get(reference or "", [])
    ref_by = {(c.scenario, c.key): scored_impact(c) for c in ref}
    ref_unverified = frozenset((c.scenario, c.key) for c in ref if c.status == "unverified")
    absent = _absent_seeds(every)
    leaderboard = [
        _leaderboard_row(
            k, every[k], cs, multi, _paired(cs, ref_by, ref_unverified) if k != reference else None, prices, absent[k]
        )
        for k, cs in groups.items()
    ]
    leaderboard.sort(key=lambda r: -r["mean"] if r["mean"] == r["mean"] else math.inf)  # no counted career: last
    return leaderboard


def _career_rows(
    order: list[str], every: dict[str, list[Career]], prices: dict[str, Price], trust_unverified: bool
) -> list[dict[str, Any]]:
    """Every career as data with its row, cost, archetype and whether it counts, row by row
    in leaderboard ``order``, seeds in order within a row. A career without a result
    (:data:`UNPLAYED`) or whose figures are not verified (:data:`UNSCORED`) has no archetype
    (``None``): its zeros are not figures of a career, its files are not believed."""
    return [
        {
            **c.to_dict(),
            "row": key,
            "cost": _career_cost(key, c, prices) if _known(c) != "none" else None,
            "tokens_known": _known(c),
            "archetype": archetype(c) if c.status not in (*UNPLAYED, *UNSCORED) else None,
            "counted": counted(c, trust_unverified),
            "log_unchecked": log_unchecked(c),
        }
        for key in order
        for c in sorted(every[key], key=lambda c: _key_order(c.key))
    ]


def _legibility(cs: list[Career], groups: dict[str, list[Career]]) -> dict[str, Any]:
    """Per month t: Spearman(earned citations at t, final Impact) across careers; the
    projection's and the best paper's shares of Impact; variance shares on log(1 + Impact)."""
    horizon = max((c.months for c in cs), default=0)
    total = sum(c.impact for c in cs)
    proj_pooled = (sum(c.projection for c in cs) / total) if total > 0 else None
    shares = [c.projection / c.impact for c in cs if c.impact > 0]
    best = [c.best_paper / c.impact for c in cs if c.impact > 0 and c.best_paper is not None]
    return {
        "months": horizon,
        "careers": len(cs),
        "curve": _rank_curve(cs, horizon),
        "projection_share": {"pooled": proj_pooled, "mean": statistics.fmean(shares) if shares else None},
        "best_paper_share": statistics.fmean(best) if best else None,
        "variance_shares": variance_shares(_first_scenario_cells(cs, groups)),
    }


def _rank_curve(cs: list[Career], horizon: int) -> list[dict[str, Any]]:
    """Month by month (1..``horizon``): Spearman's rho of the citations earned by then against
    the final Impact, over the careers with a trajectory (None below 3 careers)."""
    with_traj = [c for c in cs if c.earned_by_month]
    finals = [c.impact for c in with_traj]
    curve = []
    for t in range(1, horizon + 1):
        xs = []
        for c in with_traj:
            traj = c.earned_by_month
            xs.append(traj[t - 1] if t <= len(traj) else traj[-1])  # a collapsed lab keeps its citations
        rho = spearman(xs, finals) if len(with_traj) >= 3 else None
        curve.append({"month": t, "rho": rho, "n": len(with_traj)})
    return curve


def _first_scenario_cells(cs: list[Career], groups: dict[str, list[Career]]) -> dict[tuple[str, Any], float]:
    """(group, career key) -> Impact of the careers of the first career's scenario."""
    scenario = cs[0].scenario if cs else None
    cells = {}
    for key, gcs in groups.items():
        for c in gcs:
            if c.scenario == scenario:
                cells[(key, c.key)] = c.impact
    return cells
