"""The words of the §16 harness: system prompt, month message, turn output, nudges.

Nothing here types a rule's number: the API cheat-sheet is generated from the API's own
registry (``world.api.API_CALLS``) and the mechanics are formatted from this scenario's
rules (:func:`pibench_tui.harness.rules.scenario_rules`), so the prompt never drifts
from the world the agent plays. The mechanics are qualitative (calendar, venues, roles,
caps, costs): no formulas, no hidden parameters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pibench_tui.harness import defaults

__all__ = [
    "CODING_TIPS",
    "OUTPUT_LIMIT",
    "PLACEHOLDER",
    "api_cheatsheet",
    "mechanics_text",
    "month_message",
    "nudge_text",
    "report_for_agent",
    "system_prompt",
    "turn_output",
]

#: Characters of a turn's output shown to the model: the sandbox's output cap in the harness
#: (its one home is :mod:`pibench_tui.harness.defaults`).
OUTPUT_LIMIT = defaults.OUTPUT_LIMIT

#: What an empty output looks like to the model.
PLACEHOLDER = "(the block ran and printed nothing; print() or end with an expression to see values)"


def _usd(x: float) -> str:
    return f"${x:,.0f}"


def _num(x: float) -> str:
    return f"{x:,.0f}" if float(x) == int(x) else f"{x:,.1f}"


def _n(count: float, noun: str) -> str:
    """``1 month`` / ``3 months``."""
    return f"{_num(count)} {noun}" if count == 1 else f"{_num(count)} {noun}s"


def _months(values: list[int]) -> str:
    """Months of the year (1-12) as text with the first two years' career months."""
    if not values:
        return "any month"
    firsts = sorted(int(v) for v in values)
    career = ", ".join(str(m + 12 * k) for k in range(2) for m in firsts)
    return f"{', '.join(str(m) for m in firsts)} of each year (career months {career}, ...)"


_INTERNAL_REF = re.compile(r"\s*\([^()]*(?:MECHANICS|§)[^()]*\)")
_FIELD = re.compile(r"[a-z_][a-z0-9_]*(?: [({].*[)}])?")


def _top_level_split(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            start = i + len(sep)
            i = start
            continue
        i += 1
    parts.append(text[start:])
    return parts


def _summary(doc: str, tables: Mapping[str, list[str]]) -> tuple[str, str | None]:
    """A call's doc as one cheat-sheet line: the first sentence of its first paragraph (the
    whole sentence, however the docstring wraps it), without internal references to
    MECHANICS sections. A trailing list of the result's fields is left out (``help(name)``
    shows it); when those fields are a table's columns, the table is returned with it.

    Returns:
        ``(summary, table or None)``.
    """
    para = " ".join((doc or "").strip().split("\n\n")[0].split()).replace("``", "")
    para = _INTERNAL_REF.sub("", para)
    sentence = re.split(r"(?<!e\.g)(?<!i\.e)(?<=[A-Za-z0-9)\]\"'])\. ", para, maxsplit=1)[0].rstrip(".")
    head, *tail = _top_level_split(sentence, ": ")
    if len(tail) == 1:
        fields = [f.strip() for f in _top_level_split(tail[0], ", ")]
        if all(_FIELD.fullmatch(f) for f in fields):
            names = {f.split(" ")[0] for f in fields}
            return head, next((t for t, cols in tables.items() if names <= set(cols)), None)
    return sentence, None


def _lower_first(text: str) -> str:
    """``text`` with its first letter lower-cased unless it starts an acronym (``PhD``, ``RA``)."""
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text


def _columns(table: str, tables: Mapping[str, list[str]]) -> str:
    """``table(col1,col2,...)``: a table's columns in the compact form the prompt uses once."""
    return f"{table}({','.join(tables[table])})"


#: The prompt's short clause for a call whose docstring's first sentence restates its name or
#: parameters; ``{rules.KEY}`` placeholders are filled from this scenario's rules
#: (``world.rules.render``). A call not named here shows its docstring's first sentence; its
#: whole docstring is ``help(ns.call)`` in the sandbox either way.
BRIEFS: dict[str, str] = {
    "recruit.interview": "an id or a list; {rules.hours.interview} per new candidate, repeats free",
    "recruit.offer": "a PhD offer in months {rules.season.offer_months} of the year; answered at the tick of "
    "month {rules.season.offers_resolve}, arrival in month {rules.season.arrival}",
    "recruit.post_postdoc": "a postdoc search, {rules.costs.postdoc_search}; resolves at the tick "
    "{rules.postdoc.search_months} later",
    "recruit.renew_postdoc": "+{rules.postdoc.renewal_months} to an active postdoc's contract, within "
    "{rules.postdoc.renewal_window_months} of its end",
    "recruit.hire_ra": "now; never an author",
    "recruit.hire_manager": "now; {rules.attention.oversight_manager_relief} less oversight per researcher",
    "recruit.dismiss": "an RA or manager; leaves (paid) at this month's end",
    "field.news": "the last n items",
    "students.set_mentoring": "standing hours {id: h}, 0 to {rules.caps.mentoring_hours} each; others keep theirs",
    "lab.ledger": "the last n rows",
    "projects.start": "tier 1-3, members: ids, compute units/month 0 to {rules.caps.compute_per_project}",
    "projects.set_compute": "units/month, 0 to {rules.caps.compute_per_project}",
    "projects.assign": "add an active member to an active project",
    "projects.unassign": "a member from an active project",
    "projects.kill": "no draft; its members' morale suffers",
    "students.list": "everyone ever, any role or status",
    "projects.list": "all ever",
    "lab.explain": "why an outcome went as it did, in visible terms",
    "papers.polish": "an available draft; gains saturate at {rules.hours.polish_saturation} in total",
    "papers.submit": "an available draft; conferences only in their deadline months",
    "papers.revise": "a rejected, available draft, once a month; gains stop at {rules.hours.revise_saturation}, "
    "shrink each revision",
    "papers.withdraw": "a submission under review; its draft becomes available again",
    "grants.propose": "to an open call: at least {rules.hours.proposal_min}, {rules.costs.proposal}; more hours "
    "and on-topic evidence (attach draft/publication ids) help",
    "grants.calls": "open this month",
    "grants.proposals": "all",
    "grants.awards": "all",
    "papers.drafts": "all",
    "papers.submissions": "all",
    "events.pending": "awaiting an answer",
    "field.topics": "in their fixed order",
    "time.last_report": "the last closed month's report again",
    "students.reports": "the last n monthly reports",
    "recruit.applicants": "this season's pending/offered ones, else []",  # offer() says the months
    "field.preprints": "counts per topic, last n_months months",
    "field.attend_conference": "{rules.hours.conference}, {rules.costs.conference}, at most once every "
    "{rules.events.conference_gap_months}; returns hallway intel",
    "events.respond": "talk/review/collaboration accept|decline; crisis support|ignore",
}


def api_cheatsheet(
    api_calls: Mapping[str, Mapping[str, Any]],
    required: object,
    tables: Mapping[str, list[str]],
    docs: Mapping[str, Mapping[str, str]] | None = None,
    rules: Mapping[str, Any] | None = None,
) -> str:
    """The API as the agent sees it, one line per namespace, from the registry.

    Args:
        api_calls: ``world.api.API_CALLS`` (namespace -> name -> ``CallSpec``).
        required: The ``REQUIRED`` sentinel of ``world.api``.
        tables: ``world.observe.SCHEMA`` (table -> columns) for ``query(sql)``.
        docs: ``world.api.call_docs(config)``: the docs with this scenario's numbers
            (default: the registry's own docs).
        rules: This scenario's rules, filling the :data:`BRIEFS` (``None``: the default
            world's).

    Returns:
        Text: per namespace ``ns: [*]call(params): clause | ...``, the clause its
        :data:`BRIEFS` entry or else the first sentence of its doc; ``*`` marks calls that
        change the world; a call returning a table's rows ends with ``-> table``. The last
        line names the tables ``query(sql)`` reads; their columns are ``help(query)`` and the
        full docstrings ``help(ns.call)`` in the sandbox (the header says so).
    """
    from world.config import WorldConfig
    from world.rules import render
    from world.rules import rules as default_rules

    r = dict(rules) if rules is not None else default_rules(WorldConfig())
    lines = []
    for ns, calls in api_calls.items():
        items = []
        for name, spec in calls.items():
            params = ", ".join(p if default is required else f"{p}={default!r}" for p, default in spec.params)
            doc = (docs or {}).get(ns, {}).get(name) or spec.doc
            text, table = _summary(doc, tables)
            brief = BRIEFS.get(f"{ns}.{name}")
            text = (render(brief, r) if brief else _lower_first(text)) + (f" -> {table}" if table is not None else "")
            items.append(f"{'*' if spec.mutating else ''}{name}({params}): {text}")
        lines.append(f"{ns}: " + " | ".join(items))
    named = set(re.findall(r" -> ([a-z_]+)", "\n".join(lines)))
    others = ", ".join(t for t in tables if t not in named)
    lines.append(
        f"query(sql): rows of one read-only SELECT/WITH over the tables above and {others}; help(query): their columns"
    )
    return "\n".join(lines)


def _month_list(values: list[int]) -> str:
    """Career months as text: ``in months 2, 8, 14``, or, four or more evenly spaced, ``every 6 months from
    month 2``, or ``no call within this career`` (before, "in months ," for a 1-month scenario)."""
    vals = sorted(int(v) for v in values)
    if not vals:  # a scenario shorter than the agency's first call
        return "no call within this career"
    steps = {b - a for a, b in zip(vals, vals[1:], strict=False)}
    if len(vals) >= 4 and len(steps) == 1:
        return f"every {steps.pop()} months from month {vals[0]}"
    return "in months " + ", ".join(str(v) for v in vals)


def _rules_beside_api(r: Mapping[str, Any]) -> str:
    """The mechanics as the system prompt states them beside the API cheat-sheet: every rule
    number an action's cost or limit does not already say in its API line, once."""
    pay, att, hours, costs, caps = r["pay"], r["attention"], r["hours"], r["costs"], r["caps"]
    season, postdoc = r["season"], r["postdoc"]
    out = ["RULES"]
    out.append(
        f"- A yearly applicant pool opens in month {season['pool_opens']}; transcripts, letters, interviews are "
        f"noisy signals of ability. Pay/month: PhD {_usd(pay['phd'])}, postdoc {_usd(pay['postdoc'])} "
        f"({_num(postdoc['contract_months'])}-month contract), RA {_usd(pay['ra'])}, manager "
        f"{_usd(pay['manager'])}."
    )
    out.append(
        f"- Caps: {caps['researchers']} researchers (PhDs, postdocs; open offers, incoming students, postdoc searches "
        f"count), {caps['managers']} managers, {caps['active_projects']} active projects. Neglect, more than "
        f"{_n(r['projects']['overload_per_person'], 'active project')} each, money trouble, rejections lower morale; "
        f"low morale makes researchers quit. A PhD graduates after {season['graduation_min_months']} months with "
        f"{season['graduation_min_papers']} accepted papers."
    )
    service = (
        f"; service duty {_num(att['service_tax_hours'])} h in month {att['service_tax_month']} yearly"
        if not att.get("unlimited")
        else " (unlimited in this scenario)"
    )
    out.append(
        f"- Your hours: {_num(att['base'])}/month minus oversight ({_num(att['oversight_per_researcher'])} per "
        f"researcher, {_num(att['oversight_per_ra'])} per RA), at least {_num(att['floor'])}{service}; no "
        "carry-over. Standing mentoring grows skills, morale, project speed. Events expire unless answered; "
        "one-offs: talk "
        f"{_num(hours['talk'])} h + {_usd(costs['talk_travel'])}, review {_num(hours['review'])} h, crisis "
        f"{_num(hours['crisis'])} h, collaboration {_num(hours['collaboration'])} h/month for "
        f"{_n(r['collaboration']['months'], 'month')}."
    )
    out.append(
        "- Project tiers: 1 small, safe; 2 medium; 3 large, risky (more work, dead ends, better papers). Compute: "
        f"{_usd(costs['compute_unit'])}/unit × the month's price multiplier. A project ends in a draft; a dead end "
        "leaves a weaker draft or none; crowded topics scoop. Topic hotness booms and busts; news, preprints, "
        "conference reports hint at it."
    )
    venues = []
    for name, v in r["venues"].items():
        when = ", ".join(str(m) for m in sorted(v["deadline_months"])) if v["deadline_months"] else "any month"
        venues.append(f"{name} {v['kind']}, {when}, {v['decision_delay_months']}")
    out.append("- Venues (deadline months of the year, decision delay in months): " + "; ".join(venues) + ".")
    grants = []
    for name, a in r["agencies"].items():
        when = "rolling" if a["rolling"] else _month_list(a["call_months"])
        extra = f", {a['cooldown_months']} months between proposals" if a.get("cooldown_months") else ""
        extra += ", funds a lab once" if a["once"] else ""
        grants.append(
            f"{name} {_usd(a['award'])}/{a['duration_months']} months, {when}, decision in "
            f"{a['decision_delay_months']}, max {a['max_concurrent']}{extra}"
        )
    out.append(
        "- Grants (calls by career month, open that month and the next; max: running awards + pending proposals): "
        + "; ".join(grants)
        + f". A running award costs {_usd(costs['award_overhead'])}/month overhead."
    )
    return "\n".join(out)


def mechanics_text(rules: Mapping[str, Any], *, with_api: bool = False) -> str:
    """The qualitative mechanics of this scenario (calendar, roles, caps, venues, grants,
    costs), formatted from ``lab.rules()`` (:func:`pibench_tui.harness.rules.scenario_rules`).

    Args:
        rules: This scenario's rules.
        with_api: The text goes beside the API cheat-sheet, whose lines already state the
            costs and limits of actions (interview hours, offer months, postdoc search and
            renewal, compute and mentoring caps, polish and revision limits, conference and
            proposal costs): the terser rules of the system prompt, each number said once.
            ``False`` (a text on its own, e.g. a pivot question) states them too.
    """
    if with_api:
        return _rules_beside_api(rules)
    r = rules
    pay, att, hours, costs, caps = r["pay"], r["attention"], r["hours"], r["costs"], r["caps"]
    season, postdoc = r["season"], r["postdoc"]
    out = ["THE CAREER"]
    out.append(
        f"- {r['horizon_months']} months from {_usd(r['start_budget'])}, no students. time.next_month() ends a month: "
        "costs are paid, research progresses, decisions arrive. A budget below zero at a month's end collapses the "
        "lab (the career ends; only citations earned so far count)."
    )
    out.append(
        f"- Impact (the score) = citations earned by month {r['horizon_months']} + expected citations of your "
        f"published papers over the next {r['projection_months']} months."
    )
    out.append("PEOPLE (researchers: PhD students, postdocs; staff: RAs, lab managers)")
    offers = ", ".join(str(m) for m in season["offer_months"])
    out.append(
        f"- A new applicant pool opens in month {season['pool_opens']} of each year; interviews "
        f"({_num(hours['interview'])} h per new candidate) and PhD offers in months {offers}; offers are answered "
        f"at the end of month {season['offers_resolve']}, students arrive in month {season['arrival']}. "
        "Transcripts, letters and interviews are noisy signals of ability."
    )
    out.append(
        f"- Pay/month: PhD {_usd(pay['phd'])}, postdoc {_usd(pay['postdoc'])}, RA {_usd(pay['ra'])}, lab manager "
        f"{_usd(pay['manager'])}. Postdoc contracts last {_n(postdoc['contract_months'], 'month')}; a search costs "
        f"{_usd(costs['postdoc_search'])}, takes {_n(postdoc['search_months'], 'month')} and may fail; renewal by "
        f"{_n(postdoc['renewal_months'], 'month')} within {_n(postdoc['renewal_window_months'], 'month')} of the end."
    )
    out.append(
        f"- Caps: {caps['researchers']} researchers (open offers, incoming students, postdoc searches count), "
        f"{caps['managers']} managers, {caps['active_projects']} active projects. Low morale makes researchers quit "
        f"(neglect, more than {_n(r['projects']['overload_per_person'], 'active project')} each, money trouble, "
        f"rejections). PhD graduation: after {season['graduation_min_months']} months with "
        f"{season['graduation_min_papers']} accepted papers."
    )
    out.append("ATTENTION (your hours; no carry-over)")
    service = (
        f"; service duty {_num(att['service_tax_hours'])} h in month {att['service_tax_month']} of each year."
        if not att.get("unlimited")
        else " (unlimited in this scenario)."
    )
    out.append(
        f"- {_num(att['base'])} h/month minus oversight ({_num(att['oversight_per_researcher'])} h per researcher, "
        f"{_num(att['oversight_per_ra'])} h per RA; each manager saves {_num(att['oversight_manager_relief'])} h per "
        f"researcher), at least {_num(att['floor'])} h{service}"
    )
    mentoring = (
        f"- Mentoring (standing, up to {_num(caps['mentoring_hours'])} h a month per person) grows skills, "
        "morale and project speed."
    )
    oneoff = (
        f" One-offs: talk {_num(hours['talk'])} h + {_usd(costs['talk_travel'])}, review "
        f"{_num(hours['review'])} h, crisis {_num(hours['crisis'])} h, collaboration "
        f"{_num(hours['collaboration'])} h/month for {_n(r['collaboration']['months'], 'month')}, conference "
        f"{_num(hours['conference'])} h + {_usd(costs['conference'])} (once every "
        f"{_n(r['events']['conference_gap_months'], 'month')} at most), proposal at least "
        f"{_num(hours['proposal_min'])} h"
    )
    out.append(mentoring + oneoff + ".")
    out.append("PROJECTS AND PAPERS")
    compute = (
        f" at {_usd(costs['compute_unit'])}/unit × the month's price multiplier, up to "
        f"{_num(caps['compute_per_project'])} units"
    )
    out.append(
        "- Project tiers: 1 small and safe, 2 medium, 3 large and risky (more work, dead ends, better papers); "
        f"compute units/month{compute}. A project ends in a draft; a dead end leaves a weaker salvage draft or "
        "nothing; crowded topics scoop."
    )
    out.append(
        f"- Polishing improves a draft (gains stop at {_num(hours['polish_saturation'])} h in total); a rejected "
        f"draft may be revised once a month (up to {_num(hours['revise_saturation'])} h), with shrinking gains."
    )
    venues = []
    for name, v in r["venues"].items():
        if not v["deadline_months"]:
            when = "any month"
        else:
            when = "deadlines in months " + _months(v["deadline_months"])
        venues.append(f"{name} ({v['kind']}) {when}, decision after {_n(v['decision_delay_months'], 'month')}")
    out.append("- Venues: " + "; ".join(venues) + ".")
    out.append("- Topic hotness booms and busts; news, preprints and conference reports hint at it.")
    out.append("GRANTS (max: running awards + pending proposals at once)")
    for name, a in r["agencies"].items():
        when = (
            "rolling, every month"
            if a["rolling"]
            else "calls in months " + ", ".join(str(m) for m in a["call_months"]) + " (+1 month)"
        )
        extra = f"; {_n(a['cooldown_months'], 'month')} between proposals" if a.get("cooldown_months") else ""
        extra += "; funds a lab once" if a["once"] else ""
        out.append(
            f"- {name} {_usd(a['award'])}/{_n(a['duration_months'], 'month')}; {when}; decision after "
            f"{_n(a['decision_delay_months'], 'month')}; max {a['max_concurrent']}{extra}"
        )
    out.append(
        f"- A proposal costs {_usd(costs['proposal'])} and hours; more hours and on-topic evidence (drafts, publications attached by id) help; a running award costs "
        f"{_usd(costs['award_overhead'])}/month overhead."
    )
    out.append(
        "EVENTS: talks, reviews, crises, collaborations, compute price shocks, service duty; answer pending events "
        "before they expire."
    )
    return "\n".join(out)


_NOTES_ADVICE = """\
NOTES: each month is a NEW conversation opened by your notes: write_memory(text) replaces them (at most \
{limit:,} characters), read_memory() returns them. Keep plans, roles, deadlines, lessons there. Python variables are lost when the agent process restarts (time-out, crash, resume)."""

#: The system prompt's HOW TO ACT paragraph (its last sentence states the block time-out, which
#: :func:`pibench_tui.harness.replay._stated_block_timeout` reads back).
CODING_TIPS = """\
HOW TO ACT: reply with one ```python block (only the first runs); its output (cut at {limit:,} characters) and \
errors come back as "OUTPUT (turn t/{turns})". At most {turns} turns a month; time.next_month() ends it (later \
calls in that block are refused), else your last turn does. Refused calls raise ActionError (its \
message says what is valid). Print compactly. Imports: {modules}; no files, no network; {timeout:g} s per block."""


def _modules(names: tuple[str, ...]) -> str:
    """Importable modules as the prompt names them: numpy and the standard library's ones by
    count (``help()`` lists them all); a submodule is left out when its package is listed."""
    top = [n for n in names if n.split(".")[0] == n or n.rsplit(".", 1)[0] not in names]
    if not top:
        return "none"
    lead = [n for n in ("numpy", "math", "random", "json", "collections") if n in top]
    rest = len(top) - len(lead)
    return ", ".join(lead) + (f" and {rest} more (help() lists them)" if rest else "")


def system_prompt(
    rules: Mapping[str, Any],
    cheatsheet: str,
    *,
    max_turns: int,
    output_limit: int = OUTPUT_LIMIT,
    allowed_modules: tuple[str, ...] = (),
    block_timeout: float = 20.0,
) -> str:
    """The §16 system prompt: goal, API cheat-sheet, qualitative mechanics, note-keeping
    advice and coding tips.

    Args:
        rules: This scenario's rules (:func:`pibench_tui.harness.rules.scenario_rules`).
        cheatsheet: :func:`api_cheatsheet` output.
        max_turns: Code turns per month.
        output_limit: Characters of output shown per turn.
        allowed_modules: Modules agent code may import.
        block_timeout: Wall-clock limit per block, in seconds.
    """
    horizon = rules["horizon_months"]
    goal = (
        f"You are the PI of a new research lab in a simulated world, run by writing Python that calls its API: "
        f"{horizon} months, {_usd(rules['start_budget'])} to start, nobody hired. Goal: the highest "
        f"Impact = citations earned by month {horizon} + expected citations of your papers over the next "
        f"{rules['projection_months']} months. A budget below zero at a month's end collapses the lab (career over; "
        "only citations earned so far count). Hidden, to infer: abilities, paper quality, topic hotness, agency "
        "preferences."
    )
    return "\n\n".join(
        [
            goal,
            "API (*: changes the world; results are plain dicts and lists; -> t: rows of table t; "
            "help(x): a call's full doc)\n" + cheatsheet,
            mechanics_text(rules, with_api=True),
            _NOTES_ADVICE.format(limit=int(rules["harness"]["memory_max_chars"])),
            CODING_TIPS.format(
                limit=output_limit,
                turns=max_turns,
                modules=_modules(allowed_modules),
                timeout=block_timeout,
            ),
        ]
    )


def _lean(value: Any) -> Any:
    """``value`` without empty lists/dicts, ``None`` and ``False`` (at any depth, in dicts and the
    dicts inside lists), a whole float written as an int (``3200`` for ``3200.0``)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            v = _lean(v)
            if v is False or v is None or (isinstance(v, (list, dict)) and not v):
                continue
            out[k] = v
        return out
    if isinstance(value, list):
        return [_lean(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


#: Dashboard keys the month message's header already states (month, label, horizon).
_HEADER_KEYS = ("month", "label", "months_total")


#: A field-news headline of the world (``world.field``): count, topic, the area's trend word.
_FIELD_HEADLINE = re.compile(r"(\d+) items? on (\S+) this month; the area is ([^.;]+)\.")


def _headlines(lines: list[Any]) -> list[Any]:
    """The month's headlines with the field-news ones (``"2 items on reasoning this month; the area
    is surging."``) said as one line where the first was: ``"Field news this month: reasoning 2
    items, surging; ..."``. Every count, topic and trend word is kept; other headlines as they are."""
    out: list[Any] = []
    news: list[str] = []
    for line in lines:
        match = _FIELD_HEADLINE.fullmatch(line) if isinstance(line, str) else None
        if match is None:
            out.append(line)
            continue
        n, topic, word = match.groups()
        if not news:
            out.append(None)  # where the field news go
        news.append(f"{topic} {n} item{'' if n == '1' else 's'}, {word}")
    return [("Field news this month: " + "; ".join(news) + ".") if x is None else x for x in out]


def report_for_agent(report: Mapping[str, Any]) -> dict[str, Any]:
    """The month report as the month message shows it (MECHANICS §16).

    The report as the PI is told it (:func:`world.report.pi_view`, what ``time.last_report()``
    returns: the offers the PI made, the pool's counts in ``applicant_pool``); the field-news
    headlines as one line (:func:`_headlines`); the label (the month says it), empty lists,
    ``None`` and ``False`` left out (the message says so).
    """
    from world.report import pi_view

    rep = {k: v for k, v in pi_view(dict(report)).items() if k != "label"}
    if rep.get("headlines"):
        rep["headlines"] = _headlines(list(rep["headlines"]))
    return dict(_lean(rep))


def month_message(
    *,
    month: int,
    months: int,
    label: str,
    max_turns: int,
    memory: str,
    memory_limit: int,
    dashboard: Mapping[str, Any],
    report: Mapping[str, Any] | None,
) -> str:
    """The one user message that opens a month (MECHANICS §16): month header, the notes,
    the last month's report (:func:`report_for_agent`) and the dashboard as JSON (empty lists,
    ``None`` and ``False`` left out; the month, label and horizon only in the header). An
    event that arrived at the tick and is pending shows whole once, in the dashboard's
    ``pending_events``; the report's ``events.arrived`` names its id. The report's closing
    budget is left out when it is the dashboard's."""
    head = f"=== Month {month} of {months} ({label}): {max_turns} code turns ==="
    if memory:
        notes = f"YOUR NOTES ({len(memory):,} of {memory_limit:,} characters):\n{memory}"
    else:
        notes = "YOUR NOTES: (empty: nothing written yet)"
    parts = [head, notes]
    pending = {e.get("id") for e in dashboard.get("pending_events") or [] if isinstance(e, Mapping)}
    if report:
        rep = report_for_agent(report)
        events = rep.get("events")
        if isinstance(events, dict) and events.get("arrived"):
            arrived = [
                e.get("id") if isinstance(e, Mapping) and e.get("id") in pending else e for e in events["arrived"]
            ]
            rep["events"] = {**events, "arrived": arrived}
        money = rep.get("money")
        if isinstance(money, dict) and money.get("budget") == dashboard.get("budget"):
            rep["money"] = {k: v for k, v in money.items() if k != "budget"}  # the dashboard's budget
        parts.append(
            "LAST MONTH'S REPORT (JSON; empties, nulls, false flags left out; pending events by id):\n"
            + json.dumps(rep, separators=(",", ":"), ensure_ascii=False)
        )
    dash = {k: v for k, v in dashboard.items() if k not in _HEADER_KEYS}
    parts.append("DASHBOARD (JSON):\n" + json.dumps(_lean(dash), separators=(",", ":"), ensure_ascii=False))
    return "\n\n".join(parts)


def turn_output(turn: int, max_turns: int, text: str) -> str:
    """``OUTPUT (turn t/N)`` and the text, or the placeholder when it is empty."""
    return f"OUTPUT (turn {turn}/{max_turns})\n" + (text if text.strip() else PLACEHOLDER)


def nudge_text(turn: int, max_turns: int, unclosed: bool) -> str:
    """The answer to a reply without a runnable code block (it used a turn)."""
    if unclosed:
        why = "your ```python block was not closed (the reply may have hit the token limit), so nothing ran."
    else:
        why = "your reply had no ```python code block, so nothing ran."
    left = max_turns - turn
    end = (
        f" You have {left} turn{'s' if left != 1 else ''} left this month."
        if left
        else " That was your last turn this month."
    )
    return (
        f"OUTPUT (turn {turn}/{max_turns})\nNo code: {why} Reply with one fenced block:\n```python\n"
        "print(lab.dashboard()['budget'])\n```" + end
    )
