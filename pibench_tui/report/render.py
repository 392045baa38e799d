"""Render the report dict: a self-contained HTML page and rich tables for the terminal.

The page embeds its figures as base64 PNG and its style inline: it opens in a browser
with no network. The terminal shows the same tables (rich) and, where the terminal can,
the legibility curve as a text plot (plotext, already a dependency of the TUI).
"""

from __future__ import annotations

import base64
import math
from typing import Any

from pibench_tui.textsafe import html_text
from pibench_tui.words import count, noun

__all__ = [
    "career_rows",
    "format_value",
    "leaderboard_rows",
    "pair_rows",
    "render_html",
    "render_terminal",
]

AXES_ROWS = (
    ("mentoring_share", "mentoring share to high-return researchers"),
    ("mentoring_excess", "… above the random share (roster-matched)"),
    ("attrition", "attrition (quit PhDs / PhDs)"),
    ("risk_calibration", "risk calibration (tier rich − poor)"),
    ("anticipation", "anticipation (hotness gain after start)"),
    ("attention_utilization", "attention utilisation"),
    ("attention_at_ceiling", "share of months at the ceiling"),
    ("interviewed_offer_share", "offers after an interview"),
    ("topic_herfindahl", "topic concentration (Herfindahl)"),
)
BEHAVIOUR_ROWS = (
    ("actions_per_month", "actions a month"),
    ("block_error_rate", "error rate of executed blocks"),
    ("conversion", "publications per student-year"),
    ("grant_hit_rate", "grant hit rate"),
    ("topic_hotness_rank", "topic hotness rank at entry (1 = hottest)"),
    ("attention_utilization", "attention utilisation"),
    ("attention_at_ceiling", "months at the attention ceiling"),
)


def format_value(v: Any, digits: int = 2) -> str:
    """A number for a table cell ("—" when undefined)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    return str(v)


def _ci(ci: list[float] | None, digits: int = 1) -> str:
    return f"[{ci[0]:,.{digits}f}, {ci[1]:,.{digits}f}]" if ci else "—"


def _short(v: float) -> str:
    """An Impact-sized number in few characters: one decimal below 1,000, none above."""
    return f"{v:,.1f}" if abs(v) < 1000 else f"{v:,.0f}"


#: Marks an interval that is the min-max range of fewer than FEW_CAREERS careers.
RANGE_MARK = "†"
#: Marks a figure that counts unverified careers at their recorded Impact (--trust-unverified).
UNVERIFIED_MARK = "‡"
#: Marks a figure that counts agent careers whose action log was not checked against their
#: transcript (no --check-transcripts).
LOG_UNCHECKED_MARK = "§"
#: How the careers table marks such a career's Impact.
LOG_UNCHECKED = "log unchecked"


def _trusted(text: str, unverified: int | None) -> str:
    """``text`` with :data:`UNVERIFIED_MARK` when it counts unverified careers."""
    return text + UNVERIFIED_MARK if unverified and text != "—" else text


def interval_cell(iv: dict[str, Any] | None) -> str:
    """A label's interval: ``low–high`` (bootstrap 95 % CI), ``low–high†`` (the min-max range
    of too few careers for an interval), or ``—`` (fewer than two careers)."""
    if not iv:
        return "—"
    text = f"{_short(iv['low'])}–{_short(iv['high'])}"
    return text + RANGE_MARK if iv["kind"] == "range" else text


def _tokens(v: float | None) -> str:
    """Tokens in few characters: ``850``, ``45.2k``, ``1.23M``."""
    if v is None:
        return "—"
    if v >= 1e6:
        return f"{v / 1e6:.2f}M"
    if v >= 1e4:
        return f"{v / 1e3:.0f}k"
    if v >= 1e3:
        return f"{v / 1e3:.1f}k"
    return f"{v:.0f}"


#: Marks a token count or cost some of whose calls recorded no count (a lower bound).
PARTIAL_MARK = "≥"
#: A token count or cost none of whose calls recorded a count (never shown as 0).
UNKNOWN = "unknown"


def _known_cell(text: str, known: str | None) -> str:
    """A token or cost cell as its calls' counts allow (:func:`pibench_tui.report.load.tokens_known`):
    as is, ``≥`` before it (a lower bound) or ``unknown``."""
    if known == "none":
        return UNKNOWN
    return f"{PARTIAL_MARK}{text}" if known == "partial" and text != "—" else text


def usage_notes(report: dict[str, Any]) -> list[str]:
    """A line per agent row some of whose LLM calls recorded no token count (the provider
    sent no usable ``usage``): its tokens and cost are lower bounds (``≥``) or unknown."""
    notes = []
    for r in report["leaderboard"]:
        missing = r.get("calls_without_usage") or 0
        if r["kind"] == "agent" and missing:
            what = (
                "tokens and cost unknown"
                if r.get("tokens_known") == "none"
                else f"tokens and cost are lower bounds ({PARTIAL_MARK})"
            )
            notes.append(
                f"{r['label']}: {missing} of {r.get('answered_calls', '?')} answered LLM calls returned no token "
                f"count (the provider sent no usage): {what}"
            )
    return notes


#: Recorded prompt tokens below this share of the characters / 4 of what was sent are noted
#: (a count edited down, or a provider that counts otherwise): a real tokenizer reads about
#: 3-5 characters a token of this prompt's English, code and JSON.
LOW_TOKEN_SHARE = 0.5


def token_count_notes(report: dict[str, Any]) -> list[str]:
    """A line per agent row some of whose counted careers record fewer prompt tokens than
    :data:`LOW_TOKEN_SHARE` of the characters / 4 of the requests their transcript records:
    the counts are the provider's as recorded, never re-derived, so a count edited down
    passed unseen (a QA tester's 60,835 tokens edited to 60 passed even
    ``--check-transcripts``)."""
    low: dict[str, list[str]] = {}
    for c in report.get("careers", []):
        est, tok = c.get("prompt_tokens_estimated"), c.get("prompt_tokens")
        if c.get("kind") == "agent" and c.get("counted") and est and tok is not None and tok < est * LOW_TOKEN_SHARE:
            low.setdefault(str(c.get("row") or c.get("label")), []).append(f"{c.get('key')}: {tok:,} of ~{est:,}")
    return [
        f"{row}: {count(len(items), 'career')} record fewer prompt tokens than half the characters / 4 of the "
        f"requests their transcript holds ({_some(items)}): the counts (and cost) are the provider's as recorded, "
        "not re-derived; edited, or a provider that counts otherwise"
        for row, items in low.items()
    ]


def _usd(v: float | None) -> str:
    """A cost cell (:func:`pibench_tui.pricing.format_usd`: under a cent never ``$0.00``)."""
    from pibench_tui.pricing import format_usd

    return format_usd(v)


def _runs(count: int, runs: int) -> str:
    """``0``, or ``count (runs)``: how many, in how many runs."""
    return f"{count} ({runs})" if count else "0"


#: The leaderboard's columns (one row per label; per-seed values are in the careers table).
LEADERBOARD_HEAD = (
    "label",
    "n",
    "mean",
    "median",
    "95% CI",
    "collapse",
    "$\n/career",
    "tokens\n/career",
    "failed\ncalls",
    "flags",
    "invalid",
    "missing",
)


def leaderboard_rows(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the leaderboard (shared by HTML and terminal): one row per label,
    the fixed columns of :data:`LEADERBOARD_HEAD`, whatever the number of seeds."""
    rows = []
    for r in report["leaderboard"]:
        agent = r["kind"] == "agent"
        trusted = len(r.get("unverified_seeds") or ())
        unchecked = LOG_UNCHECKED_MARK if r.get("log_unchecked_seeds") and r["mean"] is not None else ""
        rows.append(
            [
                r["label"],
                str(r["n"]),
                _trusted(format_value(r["mean"], 1), trusted) + unchecked,
                _trusted(format_value(r["median"], 1), trusted),
                _trusted(interval_cell(r.get("interval")), trusted),
                f"{100 * r['collapse_share']:.0f}%" if r.get("collapse_share") is not None else "—",
                _known_cell(_usd(r.get("cost_per_career")), r.get("tokens_known")) if agent else "—",
                _known_cell(_tokens(r["tokens_per_career"]), r.get("tokens_known")) if agent else "—",
                _failed_calls(r),
                _runs(r["flags"], r["flagged"]) if agent else "—",
                str(r["invalid"]),
                str(r.get("missing", 0)),
            ]
        )
    return list(LEADERBOARD_HEAD), rows


def leaderboard_notes(report: dict[str, Any]) -> list[str]:
    """Footnotes the leaderboard needs (the range mark, when any row has one)."""
    notes = []
    ranges = [r["label"] for r in report["leaderboard"] if (r.get("interval") or {}).get("kind") == "range"]
    if ranges:
        few = report.get("power", {}).get("few_careers", 10)
        notes.append(
            f"{RANGE_MARK} fewer than {few} careers: the min–max range of the careers, not a confidence interval "
            f"(a bootstrap of so few seeds only reproduces their range); run {few} or more seeds for a 95% CI"
        )
    trusted = [(r["label"], r["unverified_seeds"]) for r in report["leaderboard"] if r.get("unverified_seeds")]
    if trusted:
        notes.append(
            f"{UNVERIFIED_MARK} counts unverified careers at the Impact their result.json records (--trust-unverified): "
            "not re-simulated, so not evidence (a file says what it likes); "
            + "; ".join(
                f"{label}: {count(len(keys), 'career')} ({_some([str(k) for k in keys])})" for label, keys in trusted
            )
        )
    notes.extend(log_unchecked_notes(report))
    notes.extend(check_unfinished_notes(report))
    notes.extend(usage_notes(report))
    notes.extend(token_count_notes(report))
    notes.extend(absent_seed_notes(report))
    notes.extend(plan_copy_notes(report))
    differences = report.get("harness_differences") or []
    if differences:
        notes.append(
            "harness settings differ between labels (a difference in Impact may be the harness's, not the "
            "model's): " + " | ".join(differences)
        )
    for r in report["leaderboard"]:
        estimated = r.get("timed_out_estimated_per_career")
        if r["kind"] == "agent" and estimated:
            from pibench_tui.harness.loop import ABANDONED_REQUESTS

            flight = r.get("in_flight_estimated_per_career") or 0
            kinds = {"timed_out": estimated - flight, "in_flight": flight}
            said = " and ".join(f"~{_tokens(n)} of requests {ABANDONED_REQUESTS[k]}" for k, n in kinds.items() if n > 0)
            notes.append(
                f"{r['label']}: prompt tokens per career of requests no usage came back for, ESTIMATED (characters "
                f"/ 4 of the prompts sent): {said}; in $/career at the prompt price, not in tokens/career"
            )
        abandoned = r.get("abandoned_tokens_per_career")
        if r["kind"] == "agent" and abandoned:
            notes.append(
                f"{r['label']}: {_tokens(abandoned)} abandoned tokens per career (turns lost to an interruption "
                "before a resume, careers played again with --redo-failed): not in tokens/career, in $/career"
            )
    return notes


def log_unchecked_notes(report: dict[str, Any]) -> list[str]:
    """The line saying that agent careers' action logs were not checked against their
    transcripts (``log_unchecked_seeds`` of the rows: ``pibench report`` without
    ``--check-transcripts``), so a reader cannot take their Impact for the model's: a log
    pasted from another career (the hidden-state oracle's) re-simulates as valid."""
    rows = [(r["label"], r["log_unchecked_seeds"]) for r in report["leaderboard"] if r.get("log_unchecked_seeds")]
    if not rows:
        return []
    careers = sum(len(keys) for _label, keys in rows)
    notes = [
        f"{LOG_UNCHECKED_MARK} {LOG_UNCHECKED}: the action logs of {count(careers, 'agent career')} were NOT checked "
        "against their transcripts (the model's replies were not re-run): each Impact is what its logged calls "
        "produce, not proved to be what the model did (a log pasted from another career passes); "
        "`pibench report --check-transcripts` checks them (it re-runs every block: slow); "
        + "; ".join(f"{label}: {count(len(keys), 'career')} ({_some([str(k) for k in keys])})" for label, keys in rows)
    ]
    return notes


def check_unfinished_notes(report: dict[str, Any]) -> list[str]:
    """The line naming the careers whose ``--check-transcripts`` check did not finish (the
    budget ran out): unverified, so kept out of every figure and counted as missing unless
    ``--trust-unverified``."""
    cut = [c for c in report.get("careers", []) if c.get("transcript_unchecked")]
    if not cut:
        return []
    counted = (
        "counted at their recorded Impact (--trust-unverified)"
        if report.get("trust_unverified")
        else ("kept out of every mean, pair and win and counted as missing (--trust-unverified counts them)")
    )
    return [
        f"{count(len(cut), 'career')} whose transcript check did not finish (its budget ran out; --check-budget "
        f"SECONDS gives more) are unverified, {counted}: "
        + "; ".join(f"{c.get('row') or c['label']} {c['key']}: {c['transcript_unchecked']}" for c in cut[:5])
        + ("; ..." if len(cut) > 5 else "")
    ]


def absent_seed_notes(report: dict[str, Any]) -> list[str]:
    """A line per row without any run folder for seeds other rows of its scenario have
    (``absent_seeds`` of :func:`pibench_tui.report.analysis.build_report`, counted in its
    missing column): a deleted folder (say, of a collapsed career) is not found, so it is not
    counted, and the row's mean is over the seeds it has. A seed its label played in another
    row (a label split by settings) is said to be there."""
    notes = []
    for r in report["leaderboard"]:
        elsewhere = r.get("absent_elsewhere") or {}
        absent = [str(k) for k in r.get("absent_seeds") or () if k not in elsewhere]
        if absent:
            notes.append(
                f"{r['label']}: no run folder for {noun(len(absent), 'seed')} {_some(absent)}, which other labels "
                f"played: its mean is over the {count(len(r['seeds']), 'career')} "
                "it has (a folder deleted or never run; counted as missing); the pairs compare shared seeds only"
            )
        moved: dict[str, list[str]] = {}
        for key, rows in elsewhere.items():
            moved.setdefault(" and ".join(f"'{x}'" for x in rows), []).append(str(key))
        for rows, keys in moved.items():
            notes.append(
                f"{r['label']}: {noun(len(keys), 'seed')} {_some(keys)} played only with "
                f"other settings, in row {rows}: not in this row's mean (counted as missing)"
            )
    return notes


def plan_copy_notes(report: dict[str, Any]) -> list[str]:
    """A line per plan whose careers' result.json name it (``plan.sha256``) but whose copy
    in their output folder is missing or has another hash (edited after the run): what the
    careers were played under cannot be read from that folder."""
    bad: dict[tuple[str, str], int] = {}
    for c in report["careers"]:
        if c.get("plan_copy") in ("missing", "differs"):
            key = (str(c["plan_sha256"]), str(c["plan_copy"]))
            bad[key] = bad.get(key, 0) + 1
    return [
        f"{count(n, 'career')} ran under plan {sha[:12]} (result.json plan.sha256), but its copy plan-{sha[:12]}.toml "
        + ("is not in their output folder" if how == "missing" else "in their output folder has another SHA-256")
        for (sha, how), n in sorted(bad.items())
    ]


def _some(keys: list[str], most: int = 8) -> str:
    """``101, 102, 103`` or the first ``most`` and ``(+N more)``."""
    return ", ".join(keys[:most]) + (f" (+{len(keys) - most} more)" if len(keys) > most else "")


def _seed_cell(row: dict[str, Any], key: str) -> str:
    """A per-seed Impact cell: the counted Impact, ``invalid: 0``, ``unverified: X`` (counted
    with --trust-unverified), or the status of a career that is listed but not counted
    (``unverified``, ``unfinished``, ``crashed``, ``never answered``)."""
    if key in row.get("invalid_seeds", ()):
        return "invalid: 0"
    if key in row["seeds"]:
        value = format_value(row["seeds"][key], 1)
        return f"unverified: {value}" if key in row.get("unverified_seeds", ()) else value
    status = (row.get("missing_seeds") or {}).get(key)
    return status if status else "—"


def _failed_calls(row: dict[str, Any]) -> str:
    """The leaderboard cell for LLM calls that failed after their retries (months advanced
    without the model, MECHANICS §16): ``—`` for policies, ``0``, or ``M (N runs)``."""
    if row["kind"] != "agent":
        return "—"
    return _runs(row.get("llm_failed_calls") or 0, row.get("llm_failed_runs") or 0)


PAIRS_HEAD = ("a − b", "pairs", "mean\na − b", "95% CI", "a wins", "detect-\nable", "resolved", "careers\nneeded")


def pair_rows(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the table of label pairs (:func:`analysis._pairs`): on the seeds
    both played, the mean difference and its interval, how often ``a`` won, the smallest
    difference these pairs could detect, whether the observed one is resolved, and how many
    careers would be needed to resolve it."""
    rows = []
    for p in report.get("pairs", ()):
        n = p["n"]
        iv = p["interval"]
        needed = p["needed"]
        rows.append(
            [
                f"{p['a']} − {p['b']}",
                str(n),
                _trusted(f"{p['mean']:+,.1f}", p.get("unverified")) if n else "—",
                (
                    (
                        f"[{p['interval']['low']:+,.1f}, {iv['high']:+,.1f}]"
                        + (RANGE_MARK if iv["kind"] == "range" else "")
                    )
                    if iv
                    else "—"
                ),
                f"{p['wins']}/{n}" if n else "—",
                f"{p['detectable']:,.1f}" if p["detectable"] is not None else "—",
                "yes" if p["resolved"] else "no",
                f"{needed:,}" if needed is not None else ("—" if n < 3 or p["mean"] == 0 else "> 1,000,000"),
            ]
        )
    return list(PAIRS_HEAD), rows


def pair_note(report: dict[str, Any]) -> str:
    """What the table of pairs means (levels formatted from the report)."""
    pw = report.get("power", {"alpha": 0.05, "power": 0.8, "few_careers": 10})
    return (
        "Pairs on the seeds both labels played (the same worlds). Detectable: the smallest true mean difference "
        f"these pairs would find at two-sided level {pw['alpha']:g} with probability {pw['power']:.0%} (paired t, "
        "from the spread of the differences). Resolved: a seed-bootstrap 95% interval of the difference that "
        f"excludes 0 ({pw['few_careers']} pairs or more). Careers needed: how many paired careers would resolve "
        f"the observed mean difference at that level and power, if it is the true one. {RANGE_MARK}: the min–max "
        "range of fewer pairs."
        + (
            f" {UNVERIFIED_MARK}: pairs with an unverified career (its recorded Impact, not re-simulated)."
            if any(p.get("unverified") for p in report.get("pairs", ()))
            else ""
        )
    )


def career_rows(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the careers table: every career found, one row each (per-seed
    values live here, not in the leaderboard), in leaderboard order then by seed. The Impact
    cell is the re-simulated Impact of a valid career, else its status: ``invalid: 0`` (counted
    as 0), ``unverified: X`` (counted with --trust-unverified), ``unverified``, ``unfinished``
    or ``crashed`` (listed, not counted); an invalid, unverified, unfinished or crashed career
    shows ``—`` for its world's figures and archetype (not zeros nor "never built"). The scenario column
    appears with several scenarios."""
    multi = len(report["scenarios"]) > 1
    head = [
        "label",
        *(["scenario"] if multi else []),
        "seed",
        "Impact",
        "earned",
        "proj.",
        "collapse",
        "papers",
        "hires",
        "tokens",
        "$",
        "archetype",
    ]
    boards = {r["label"]: r for r in report["leaderboard"]}
    rows = []
    for c in report["careers"]:
        key = c.get("row") or c["label"]
        row = boards.get(key)
        if c["status"] == "valid" or row is None:
            impact = format_value(c["impact"], 1) if c["status"] == "valid" else c["status"]
        else:
            impact = _seed_cell(row, str(c["key"]))
        if c.get("log_unchecked"):
            impact = f"{impact} {LOG_UNCHECKED}"
        # an invalid or unverified career's files are not believed, and an unfinished or crashed one
        # has no result yet (its zeros are no career's figures): no figures of theirs, no archetype
        shown = c["status"] not in ("invalid", "unverified", "unfinished", "crashed")
        rows.append(
            [
                key,
                *([c["scenario"]] if multi else []),
                str(c["key"]),
                impact,
                format_value(c["earned"], 1) if shown else "—",
                format_value(c["projection"], 1) if shown else "—",
                f"month {c['collapse_month']}" if c["collapsed"] and shown else "—",
                str(c["publications"]) if shown else "—",
                str(c["hires"]) if shown else "—",
                _known_cell(_tokens(c["tokens"]), c.get("tokens_known")) if c["kind"] == "agent" else "—",
                _known_cell(_usd(c.get("cost")), c.get("tokens_known")) if c["kind"] == "agent" else "—",
                c["archetype"] or "—",
            ]
        )
    return head, rows


def _table_parts(
    report: dict[str, Any], source: str, spec: tuple[tuple[str, str], ...], width: int
) -> list[tuple[list[str], list[list[str]]]]:
    """A measure × label table cut into tables of as many label columns as fit ``width``
    characters (at least one each), so that many labels never wrap a row."""
    labels = [r["label"] for r in report["leaderboard"]]
    measure = max((len(title) for _, title in spec), default=7) + 1
    column = max((min(len(lab), 24) for lab in labels), default=6) + 1
    per = max(1, (width - measure) // max(column, 8))
    return [_table_rows(report, source, spec, labels[i : i + per]) for i in range(0, len(labels), per)]


def _table_rows(
    report: dict[str, Any], source: str, spec: tuple[tuple[str, str], ...], labels: list[str] | None = None
) -> tuple[list[str], list[list[str]]]:
    if labels is None:
        labels = [r["label"] for r in report["leaderboard"]]
    data = report[source]
    head = ["measure", *labels]
    rows = []
    for key, title in spec:
        vals = [data.get(lab, {}).get(key) for lab in labels]
        if all(v is None for v in vals):
            continue
        rows.append([title, *[format_value(v, 3) for v in vals]])
    return head, rows


def census_rows(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the model × archetype table."""
    arch = report["census"]["archetypes"]
    table = report["census"]["table"]
    head = ["label", *arch, "careers"]
    rows = []
    for r in report["leaderboard"]:
        t = table[r["label"]]
        rows.append([r["label"], *[str(t[a]) for a in arch], str(sum(t.values()))])
    return head, rows


def legibility_rows(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows summarising legibility per scenario."""
    head = [
        "scenario",
        "careers",
        "ρ at month",
        "projection share (pooled / mean)",
        "best-paper share",
        "variance share: model / seed / rest",
    ]
    rows = []
    for scen, leg in report["legibility"].items():
        marks = [
            p for p in leg["curve"] if p["rho"] is not None and (p["month"] % 12 == 0 or p["month"] == leg["months"])
        ]
        rho = ", ".join(f"{p['month']}: {p['rho']:.2f}" for p in marks) or "—"
        ps = leg["projection_share"]
        vs = leg["variance_shares"]
        rows.append(
            [
                scen,
                str(leg["careers"]),
                rho,
                f"{format_value(ps['pooled'])} / {format_value(ps['mean'])}",
                format_value(leg["best_paper_share"]),
                " / ".join(format_value(vs[k]) for k in ("model", "seed", "residual")),
            ]
        )
    return head, rows


# ---------------------------------------------------------------------------- HTML
_CSS = """
body{font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;margin:24px auto;max-width:1320px;color:#1d2733;background:#fafbfc;padding:0 16px}
h1{font-size:24px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;border-bottom:2px solid #dde3ea;padding-bottom:4px}
p.meta{color:#5b6b7b;margin-top:0}p.note{color:#46525e;font-size:13px;max-width:1000px}
table{border-collapse:collapse;margin:8px 0 4px;font-size:12px;background:white;box-shadow:0 1px 2px rgba(0,0,0,.06)}
th,td{padding:4px 7px;border-bottom:1px solid #e6eaef;text-align:right;white-space:nowrap}
th{background:#eef2f6;font-weight:600}td:first-child,th:first-child{text-align:left}
tr.ref td{background:#f4f9ff}td.bad{color:#b03a2e;font-weight:600}
img{max-width:100%;background:white;border:1px solid #e6eaef;margin:8px 0}
.scroll{overflow-x:auto}code{background:#eef2f6;padding:1px 4px;border-radius:3px}
ul.rules{font-size:13px;color:#46525e}
"""


def _one_line(heading: str) -> str:
    """A heading broken over lines for the terminal, on one line: ``detect-\nable`` ->
    ``detectable``, ``$\n/career`` -> ``$/career``, other breaks -> spaces."""
    return heading.replace("-\n", "").replace("\n/", "/").replace("\n", " ")


def _html_table(head: list[str], rows: list[list[str]], ref: str | None = None) -> str:
    out = ['<div class="scroll"><table><thead><tr>']
    out += [f"<th>{html_text(_one_line(h))}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for row in rows:
        cls = ' class="ref"' if ref is not None and row and row[0] == ref else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{html_text(c)}</td>" for c in row) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _img(figs: dict[str, bytes], name: str, alt: str) -> str:
    png = figs.get(name)
    if not png:
        return ""
    return f'<img alt="{html_text(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


def split_lines(report: dict[str, Any]) -> list[str]:
    """One sentence per label whose careers were played with different settings."""
    return [
        f"label {label!r} holds careers of {len(hashes)} different harness settings (model, endpoint, scenario "
        "config, turns, temperature, tokens, memory, system prompt or request options): shown as one row per setting, "
        + ", ".join(f"'{label} · settings {h[:8]}'" for h in hashes)
        + "; give each configuration its own --label"
        for label, hashes in sorted((report.get("split_labels") or {}).items())
    ]


def model_id_lines(report: dict[str, Any]) -> list[str]:
    """One sentence per row whose careers the provider said were answered by different model ids."""
    return [
        f"row {row!r}: the provider answered its careers as different models, "
        + ", ".join(f"{mid!r} ({count(n, 'career')})" for mid, n in ids.items())
        + "; the endpoint may have served another model than the one asked for (result.json "
        "provenance.provider_model_ids)"
        for row, ids in sorted((report.get("model_id_mix") or {}).items())
    ]


def _pairs_html(report: dict[str, Any]) -> str:
    """The HTML of the pairs section: the table and its note, or (no pairs, as the terminal
    report then shows no table) one line saying why there is nothing to compare."""
    if report.get("pairs"):
        return _html_table(*pair_rows(report)) + f'<p class="note">{html_text(pair_note(report))}</p>'
    return (
        '<p class="note">No pairs to compare: a difference needs two labels of one scenario that played '
        "the same seeds.</p>"
    )


def render_html(report: dict[str, Any], figs: dict[str, bytes]) -> str:
    """The self-contained HTML page (no external resources)."""
    n = len(report["careers"])
    labels = len(report["leaderboard"])
    parts = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        "<title>pibench report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>pibench report</h1>",
        f'<p class="meta">{count(n, "career")}, {count(labels, "label")}, {noun(len(report["scenarios"]), "scenario")} '
        f"{html_text(', '.join(report['scenarios']))}; "
        f"generated {html_text(report['generated'])} by pibench {html_text(str(report['pibench_version']))}.</p>",
        "<h2>Leaderboard</h2>",
        *(f'<p class="note"><b>split</b>: {html_text(line)}</p>' for line in split_lines(report)),
        *(f'<p class="note"><b>model ids</b>: {html_text(line)}</p>' for line in model_id_lines(report)),
        _html_table(*leaderboard_rows(report), ref=report["reference"]),
        *(f'<p class="note">{html_text(line)}</p>' for line in leaderboard_notes(report)),
        '<p class="note">Impact = citations earned by the horizon + the projection of published papers\' future '
        "citations (MECHANICS §12; no projection after a collapse). n: careers counted. 95% CI: seed-bootstrap "
        "interval of the mean. Collapse: share of careers whose lab collapsed (an invalid career counts as "
        "collapsed, as it counts as Impact 0). $/career and tokens/career: mean "
        "over the label's counted careers (cost from --price, cached prompt tokens at its cached price when the "
        "provider reported them, abandoned attempts included; or as the runs recorded it). Failed calls: LLM "
        "calls that failed after their retries (runs with any); each such month advanced without the model "
        "(MECHANICS §16). Flags: integrity "
        "incidents (sandbox refusals, private/dunder attempts, refused imports, time-outs, memory kills, output floods, "
        "protocol anomalies), counted from transcript.jsonl (re-derived by re-running the blocks with "
        f"--check-transcripts). {LOG_UNCHECKED_MARK} {LOG_UNCHECKED}: an agent career whose action log was not "
        "checked against its transcript (no --check-transcripts): its Impact is what the logged calls produce, "
        "not proved to be the model's. Invalid: results that do not re-simulate from their action log "
        "and full config in this report (counted as 0). Missing: careers listed but not counted: unverified (not "
        "re-simulated here: sealed without --seal, --no-simulate), unfinished or crashed; and seeds other labels "
        "of the scenario played that have no run folder of this label (noted under the table). A scenario shown "
        "'modified' has a config whose content hash is not the bundled scenario's of that name.</p>",
        _img(figs, "impact", "Impact per career"),
        "<h2>Differences between labels</h2>",
        _pairs_html(report),
        _img(figs, "cost", "Cost against Impact"),
        _img(figs, "trajectories", "Budget and citation trajectories per label"),
        "<h2>Capability axes (MECHANICS §17)</h2>",
        _html_table(*_table_rows(report, "axes", AXES_ROWS)),
        "<h2>Behaviour</h2>",
        _html_table(*_table_rows(report, "behaviour", BEHAVIOUR_ROWS)),
        _img(figs, "axes", "Capability axes"),
        "<h2>Census</h2>",
        _html_table(*census_rows(report)),
        '<ul class="rules">'
        + "".join(
            f"<li><b>{html_text(a)}</b>: {html_text(report['census']['rules'][a])}</li>"
            for a in report["census"]["archetypes"]
        )
        + "</ul>",
        '<p class="note">Rules apply in this order; each career gets the first that fits.</p>',
        _img(figs, "census", "Census"),
        "<h2>Legibility</h2>",
        _html_table(*legibility_rows(report)),
        '<p class="note">ρ: Spearman correlation, across careers, between citations earned by month t and final '
        "Impact. Projection share: Impact from the projection (pooled over careers, and the mean of per-career "
        "shares). Best-paper share: mean share of Impact from a career's single best paper (earned + projected). "
        "Variance shares: main effects of label and seed on log(1 + Impact).</p>",
        _img(figs, "legibility", "Legibility curve"),
    ]
    invalid = [x for r in report["leaderboard"] for x in r["invalid_reasons"]]
    if invalid:
        parts.append("<h2>Invalid results</h2><ul>" + "".join(f"<li>{html_text(x)}</li>" for x in invalid) + "</ul>")
    missing = [x for r in report["leaderboard"] for x in r.get("missing_reasons", ())]
    if missing:
        parts.append(
            "<h2>Careers not counted</h2><ul>" + "".join(f"<li>{html_text(x)}</li>" for x in missing) + "</ul>"
        )
    foreign = [f"{f['source']}: {f['reason']}" for f in report.get("foreign", ())]
    if foreign:
        parts.append(
            "<h2>Folders that are not runs</h2><ul>" + "".join(f"<li>{html_text(x)}</li>" for x in foreign) + "</ul>"
        )
    parts.append("<h2>Careers</h2>")
    parts.append(
        '<p class="note">One row per career found (per-seed values). Impact: re-simulated here; '
        f"<code>invalid: 0</code> counts as 0; careers not counted show their status; <code>{LOG_UNCHECKED}</code>: "
        "an agent career whose action log was not checked against its transcript.</p>"
    )
    parts.append(_html_table(*career_rows(report)))
    parts.append("</body></html>\n")
    return "\n".join(p for p in parts if p)


# ---------------------------------------------------------------------------- terminal
#: Columns of the report printed to a pipe or a file (a terminal uses its own width): the
#: leaderboard, the pairs and the careers fit in it.
TEXT_WIDTH = 100


def render_terminal(report: dict[str, Any], console: Any = None) -> None:
    """Print the report's tables with rich (and the legibility curve with plotext if present)."""
    from rich.console import Console

    from pibench_tui.textsafe import markup_safe

    con = console or Console()
    if console is None and not con.is_terminal:  # a pipe or a file: the width of a page of text
        con = Console(width=TEXT_WIDTH)

    def show(title: str, head: list[str], rows: list[list[str]], ours: bool = False) -> None:
        con.print(_rich_table(title, head, rows, ours))

    title = f"Leaderboard ({count(len(report['careers']), 'career')}; " + (
        f"reference {report['reference']})" if report["reference"] is not None else "no reference row)"
    )
    table, dropped = fit_leaderboard(con, title, *leaderboard_rows(report))
    con.print(table)
    if dropped:
        con.print(
            markup_safe(
                f"Not shown at {con.width} columns: {', '.join(dropped)} (a wider terminal, --json or --html "
                "shows every column).",
                newlines=True,
            )
        )
    for note in leaderboard_notes(report):
        con.print(markup_safe(note, newlines=True))
    if report.get("pairs"):
        show("Differences between labels (paired by seed)", *pair_rows(report), ours=True)
        con.print(markup_safe(pair_note(report), newlines=True))
    _print_careers(con, report)
    for title, source, spec in (
        ("Capability axes (MECHANICS §17, pooled)", "axes", AXES_ROWS),
        ("Behaviour", "behaviour", BEHAVIOUR_ROWS),
    ):
        parts = _table_parts(report, source, spec, con.width)
        for n, part in enumerate(parts, start=1):
            show(title if len(parts) == 1 else f"{title} ({n}/{len(parts)})", *part)
    show("Census (careers by archetype)", *census_rows(report))
    show("Legibility", *legibility_rows(report))
    _print_warnings(con, report)
    _plot_legibility(con, report)


#: Leaderboard columns a narrow terminal leaves out, first to last (label, n, mean, the
#: interval, flags, invalid and missing are always shown).
LEADERBOARD_DROPPABLE = ("median", "tokens\n/career", "failed\ncalls", "$\n/career", "collapse")


#: Careers table columns a narrow terminal leaves out, first to last (seed, Impact and the
#: collapse month are always shown).
CAREERS_DROPPABLE = ("proj.", "earned", "hires", "papers", "archetype", "$", "tokens", "scenario")


def _fit_columns(
    con: Any, title: str, head: list[str], rows: list[list[str]], droppable: tuple[str, ...]
) -> tuple[list[int], list[str]]:
    """The columns of a table of ours to keep so that its natural width fits ``con.width``
    (columns of ``droppable`` left out in that order until it does), and the headings of those
    left out (one line each)."""
    from rich.measure import Measurement

    keep = list(range(len(head)))
    dropped: list[str] = []
    for name in droppable:
        table = _rich_table(title, [head[i] for i in keep], [[r[i] for i in keep] for r in rows], True)
        if Measurement.get(con, con.options.update_width(1_000_000), table).maximum <= con.width:
            break
        if name in head:
            keep.remove(head.index(name))
            dropped.append(name.replace("\n/", "/").replace("\n", " "))
    return keep, dropped


def _print_careers(con: Any, report: dict[str, Any]) -> None:
    """The careers table in a terminal: one table per leaderboard row, its label as the
    title (a long label folds there, never into a one-character column), the same columns in
    each: those of :data:`CAREERS_DROPPABLE` left out, in order, until every table fits
    ``con.width`` with each career on one line, and a line naming them (before, at 80-100
    columns rich dropped the label column to blank or wrapped it, and cut headings and cells)."""
    from pibench_tui.textsafe import markup_safe

    head, rows = career_rows(report)
    groups: dict[str, list[list[str]]] = {}
    for r in rows:
        groups.setdefault(r[0], []).append(r[1:])
    head = head[1:]
    if not groups:
        con.print(_rich_table("Careers", head, [], True))
        return
    titles = {label: f"Careers: {label}" for label in groups}
    if "scenario" in head:  # one scenario per table: said in its title, not in a column
        at = head.index("scenario")
        if all(len({r[at] for r in rs}) == 1 for rs in groups.values()):
            for label, rs in groups.items():
                scen = rs[0][at]
                titles[label] += "" if scen in label else f" ({scen})"
                groups[label] = [r[:at] + r[at + 1 :] for r in rs]
            head = head[:at] + head[at + 1 :]
    keep, dropped = _fit_columns(con, "Careers", head, [r for rs in groups.values() for r in rs], CAREERS_DROPPABLE)
    for label, rs in groups.items():
        con.print(_rich_table(titles[label], [head[i] for i in keep], [[r[i] for i in keep] for r in rs], True))
    if dropped:
        con.print(
            markup_safe(
                f"Careers: not shown at {con.width} columns: {', '.join(dropped)} (a wider terminal, --json or --html "
                "shows every column).",
                newlines=True,
            )
        )


def fit_leaderboard(con: Any, title: str, head: list[str], rows: list[list[str]]) -> tuple[Any, list[str]]:
    """The leaderboard as a rich ``Table`` that fits ``con.width`` with every row on one line
    and every label whole: columns of :data:`LEADERBOARD_DROPPABLE` are left out, in that
    order, until the table's natural width fits (before, at 80 columns rich shrank the label
    column to one character and each row took 4-5 lines). Only a label longer than the
    terminal leaves then folds. Also the headings of the columns left out (one line each)."""
    from rich.measure import Measurement

    keep, dropped = _fit_columns(con, title, head, rows, LEADERBOARD_DROPPABLE)
    kept_head, kept_rows = [head[i] for i in keep], [[r[i] for i in keep] for r in rows]
    table = _rich_table(title, kept_head, kept_rows, True)
    longest = max((len(r[0]) for r in rows), default=1)
    # The label gets the width the other columns leave (at least its heading's): a label longer
    # than that folds over lines, and no number column is cut (QA7 F16: a 61-character label
    # kept whole pushed the interval, invalid and missing columns out of an 80-column table).
    bare = _rich_table(title, kept_head, [["", *r[1:]] for r in kept_rows], True)
    others = Measurement.get(con, con.options.update_width(1_000_000), bare).maximum - len(kept_head[0])
    table.columns[0].min_width = min(longest, max(len(kept_head[0]), con.width - others))
    return table, dropped


def _rich_table(title: str, head: list[str], rows: list[list[str]], ours: bool) -> Any:
    """One table of :func:`render_terminal` as a rich ``Table``. Labels, models and scenario
    names come from run directories: plain text, never markup; control characters are shown as
    escapes (:func:`pibench_tui.textsafe.visible`): no terminal sequence runs. ``ours``: the
    headings are ours (they may break at a newline) and numbers never break across lines."""
    from rich import box
    from rich.table import Table

    from pibench_tui.textsafe import rich_text

    t = Table(
        title=rich_text(title, newlines=True),
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=0,
    )
    for i, h in enumerate(head):
        # the first column (labels) folds when it must; numbers never break across lines
        t.add_column(
            _heading(h, ours),
            justify="left" if i == 0 else "right",
            overflow="fold",
            no_wrap=ours and i > 0,
        )
    for row in rows:
        t.add_row(*(rich_text(cell, newlines=True) for cell in row))
    return t


def _heading(h: str, ours: bool) -> Any:
    """A column heading as rich text: our own headings may break over lines at a newline; a
    label as a heading is shown as text."""
    from rich.text import Text

    from pibench_tui.textsafe import rich_text

    if ours and "\n" in h:
        return Text("\n").join(rich_text(part) for part in h.split("\n"))
    return rich_text(h, newlines=True)


def _print_warnings(con: Any, report: dict[str, Any]) -> None:
    """The lines under the tables: split labels, invalid careers, careers not counted, folders
    that are not runs."""
    from pibench_tui.textsafe import markup_safe

    for line in split_lines(report):
        con.print(f"[bold yellow]split[/]: {markup_safe(line, newlines=True)}")
    for line in model_id_lines(report):
        con.print(f"[bold yellow]model ids[/]: {markup_safe(line, newlines=True)}")
    for x in (x for r in report["leaderboard"] for x in r["invalid_reasons"]):
        con.print(f"[bold red]invalid[/]: {markup_safe(x, newlines=True)}")
    for x in (x for r in report["leaderboard"] for x in r.get("missing_reasons", ())):
        con.print(f"[bold yellow]not counted[/]: {markup_safe(x, newlines=True)}")
    for f in report.get("foreign", ()):
        line = f"{f['source']}: {f['reason']}"
        con.print(f"[bold yellow]not a run[/]: {markup_safe(line, newlines=True)}")


def _plot_legibility(con: Any, report: dict[str, Any]) -> None:
    """The legibility curve of each scenario with plotext, on a terminal only (nothing when
    plotext is not installed or a curve has under two points)."""
    try:
        import plotext as plx
    except ImportError:
        return
    for scen, leg in report["legibility"].items():
        pts = [(p["month"], p["rho"]) for p in leg["curve"] if p["rho"] is not None]
        if len(pts) < 2 or not con.is_terminal:
            continue
        plx.clear_figure()
        plx.plot([p[0] for p in pts], [p[1] for p in pts])
        plx.ylim(-1, 1)
        plx.title(f"legibility ({scen}): Spearman(earned at t, final Impact)")
        plx.plotsize(min(100, con.width), 15)
        plx.show()
