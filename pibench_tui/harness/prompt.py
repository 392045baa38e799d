"""The words of the §16 harness: system prompt, month message, turn output, nudges.

Nothing here types a rule's number: the API cheat-sheet is generated from the API's own
registry (``world.api.API_CALLS``) and the mechanics are formatted from this scenario's
rules (:func:`pibench_tui.harness.rules.scenario_rules`), so the prompt never drifts
from the world the agent plays. The mechanics are qualitative (calendar, venues, roles,
caps, costs): no formulas, no hidden parameters.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = [
    "OUTPUT_LIMIT",
    "PLACEHOLDER",
    "api_cheatsheet",
    "cut_output",
    "mechanics_text",
    "month_message",
    "nudge_text",
    "system_prompt",
    "turn_output",
]

#: Characters of a turn's output shown to the model (MECHANICS §16).
OUTPUT_LIMIT = 6_000

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


def _first_line(doc: str) -> str:
    for line in (doc or "").strip().splitlines():
        if line.strip():
            return " ".join(line.split()).replace("``", "")
    return ""


def api_cheatsheet(
    api_calls: Mapping[str, Mapping[str, Any]],
    required: object,
    tables: Mapping[str, list[str]],
    docs: Mapping[str, Mapping[str, str]] | None = None,
) -> str:
    """The API as the agent sees it, one line per call, from the registry.

    Args:
        api_calls: ``world.api.API_CALLS`` (namespace -> name -> ``CallSpec``).
        required: The ``REQUIRED`` sentinel of ``world.api``.
        tables: ``world.observe.SCHEMA`` (table -> columns) for ``query(sql)``.
        docs: ``world.api.call_docs(config)``: the docs with this scenario's numbers
            (default: the registry's own docs).

    Returns:
        Text: ``ns.call(params)  [*]  first line of its doc``; ``*`` marks calls that change
        the world.
    """
    lines = []
    for ns, calls in api_calls.items():
        for name, spec in calls.items():
            parts = []
            for pname, default in spec.params:
                parts.append(pname if default is required else f"{pname}={default!r}")
            star = "*" if spec.mutating else " "
            doc = (docs or {}).get(ns, {}).get(name) or spec.doc
            lines.append(f"{star} {ns}.{name}({', '.join(parts)}) - {_first_line(doc)}")
    lines.append("  query(sql) - one read-only SELECT/WITH over the lab's database; returns a list of row dicts")
    lines.append("  read_memory() / write_memory(text) - your notes, carried from month to month")
    lines.append("  help(name) - the full documentation of a call, e.g. help(papers.submit)")
    table_lines = [f"    {t}({', '.join(cols)})" for t, cols in tables.items()]
    return "\n".join(lines) + "\n  Tables for query():\n" + "\n".join(table_lines)


def mechanics_text(rules: Mapping[str, Any]) -> str:
    """The qualitative mechanics of this scenario (calendar, roles, caps, venues, grants,
    costs), formatted from ``lab.rules()`` (:func:`pibench_tui.harness.rules.scenario_rules`).
    """
    r = rules
    pay, att, hours, costs, caps = r["pay"], r["attention"], r["hours"], r["costs"], r["caps"]
    season, postdoc = r["season"], r["postdoc"]
    out = ["THE CAREER"]
    out.append(
        f"- {r['horizon_months']} months, starting with {_usd(r['start_budget'])} and no students. Every month ends "
        "with time.next_month(): salaries, compute and costs are paid, research progresses, decisions arrive."
    )
    out.append(
        "- If the budget is below zero at the end of a month the lab collapses: the career ends and only the "
        "citations earned so far count."
    )
    out.append(
        f"- Score (Impact) = citations earned by month {r['horizon_months']} + the expected citations of your "
        f"published papers over the following {r['projection_months']} months. Only published papers count."
    )
    out.append("PEOPLE (researchers are PhD students and postdocs; RAs and lab managers are staff)")
    out.append(
        f"- Recruiting: a new applicant pool opens in month {season['pool_opens']} of each year; interviews and PhD "
        f"offers are possible in months {', '.join(str(m) for m in season['offer_months'])} of the year; offers are "
        f"answered at the end of month {season['offers_resolve']} and accepted students arrive in month "
        f"{season['arrival']}. Transcripts, letters and interviews are noisy signals of ability."
    )
    out.append(
        f"- Monthly pay: PhD student {_usd(pay['phd'])}, postdoc {_usd(pay['postdoc'])}, RA {_usd(pay['ra'])}, "
        f"lab manager {_usd(pay['manager'])}."
    )
    out.append(
        f"- Postdocs: a search costs {_usd(costs['postdoc_search'])} and resolves after "
        f"{_n(postdoc['search_months'], 'month')} (it may fail); contracts last {_n(postdoc['contract_months'], 'month')} "
        "and can be renewed by "
        f"{_n(postdoc['renewal_months'], 'month')} within {_n(postdoc['renewal_window_months'], 'month')} of their end."
    )
    out.append(
        f"- Caps: at most {caps['researchers']} researchers (outstanding offers, incoming students and open postdoc "
        f"searches count), {caps['managers']} lab managers, {caps['active_projects']} active projects. Researchers "
        "may quit when their morale falls (neglect, overload: more than "
        f"{_n(r['projects']['overload_per_person'], 'active project')} each, a lab short of money, rejections). "
        "A PhD student may "
        f"graduate after {season['graduation_min_months']} months with {season['graduation_min_papers']} accepted "
        "papers."
    )
    out.append("ATTENTION (your hours; they do not carry over)")
    service = (
        f" In month {att['service_tax_month']} of each year service duty takes {_num(att['service_tax_hours'])} h."
        if not att.get("unlimited")
        else " (Unlimited attention in this scenario.)"
    )
    out.append(
        f"- {_num(att['base'])} h a month, minus oversight ({_num(att['oversight_per_researcher'])} h per "
        f"researcher, {_num(att['oversight_per_ra'])} h per RA; each manager saves "
        f"{_num(att['oversight_manager_relief'])} h per researcher), never below {_num(att['floor'])} h.{service}"
    )
    out.append(
        f"- Mentoring is a standing monthly commitment (up to {_num(caps['mentoring_hours'])} h per person): it grows "
        "skills, keeps morale up and speeds projects. One-off costs: "
        f"interview {_num(hours['interview'])} h per new candidate, invited talk {_num(hours['talk'])} h "
        f"(+{_usd(costs['talk_travel'])} travel), paper review {_num(hours['review'])} h, student crisis "
        f"{_num(hours['crisis'])} h, conference {_num(hours['conference'])} h and {_usd(costs['conference'])} (at most "
        f"one every {_n(r['events']['conference_gap_months'], 'month')}), collaboration {_num(hours['collaboration'])} h "
        f"a month for {_n(r['collaboration']['months'], 'month')}, proposals at least {_num(hours['proposal_min'])} h."
    )
    out.append("PROJECTS AND PAPERS")
    out.append(
        "- A project has a topic, a tier (1 small and safe, 2 medium, 3 large and risky: more work, more dead ends, "
        "better papers), members and monthly compute "
        f"({_usd(costs['compute_unit'])} per unit, up to {_num(caps['compute_per_project'])} units). A finished "
        "project leaves a draft; a dead end may leave a weaker salvage draft or nothing; a crowded topic can scoop "
        "you."
    )
    out.append(
        f"- Polishing a draft improves it, with gains that stop at {_num(hours['polish_saturation'])} h in total. "
        f"After a rejection a draft may be revised once a month (up to {_num(hours['revise_saturation'])} h per "
        "revision), with shrinking gains."
    )
    venues = []
    for name, v in r["venues"].items():
        when = (
            "submit in any month"
            if not v["deadline_months"]
            else "deadlines in months " + _months(v["deadline_months"])
        )
        venues.append(f"  {name} ({v['kind']}): {when}; decision after {_n(v['decision_delay_months'], 'month')}")
    out.append("- Venues:\n" + "\n".join(venues))
    out.append(
        "- Topic hotness moves over time (booms and busts); news, preprint counts and conference reports hint at it."
    )
    out.append("GRANTS")
    agencies = []
    for name, a in r["agencies"].items():
        if a["rolling"]:
            when = "a rolling call, open every month"
        else:
            when = (
                "calls open in career months " + ", ".join(str(m) for m in a["call_months"]) + " (and the month after)"
            )
        extra = f"; at least {_n(a['cooldown_months'], 'month')} between proposals" if a.get("cooldown_months") else ""
        extra += "; funds a lab at most once" if a["once"] else ""
        agencies.append(
            f"  {name}: {_usd(a['award'])} over {_n(a['duration_months'], 'month')}; {when}; decision after "
            f"{_n(a['decision_delay_months'], 'month')}; at most {a['max_concurrent']} running award(s) and pending "
            f"proposal(s) together{extra}"
        )
    out.append("\n".join(agencies))
    out.append(
        f"- A proposal costs {_usd(costs['proposal'])} and your hours; more hours and on-topic evidence (your drafts "
        f"and publications, attached by id) help; each running award costs {_usd(costs['award_overhead'])} a month "
        "in overhead."
    )
    out.append("EVENTS")
    out.append(
        "- Invited talks, review requests, student crises, collaboration offers, compute price shocks and service "
        "duty arrive over time; answer pending events before they expire."
    )
    return "\n".join(out)


_NOTES_ADVICE = """\
NOTES (MEMORY)
- Every month starts a NEW conversation: you will not see this month's messages again.
- Your notes (write_memory(text), at most {limit:,} characters, replacing the old notes) are shown to you at the
  start of every month. Keep them short and structured: strategy, hiring plans, what each student is working on,
  which drafts go where next, deadlines coming up, lessons from reviews and grant decisions.
- Update the notes before you end the month. Python variables usually survive between turns and months, but
  they are lost if the agent process restarts (a time-out, a crash, or a resumed run), so never rely on them
  alone."""

_CODING_TIPS = """\
HOW TO ACT
- Each reply must contain exactly one fenced code block (```python ... ```); only the first block runs. Its
  printed output (cut at {limit:,} characters) and any error come back to you as "OUTPUT (turn t/{turns})".
- You have at most {turns} turns this month. End the month yourself with time.next_month() once you are done;
  after your last turn the month ends anyway. Calls after time.next_month() in the same block are refused.
- Refused calls raise ActionError with a code and a message saying what is valid; catch it with
  `except ActionError as e:` and read e.code / e.message.
- Print compactly (selected fields, not whole lists); the dashboard is already in the month's first message.
- Imports allowed: {modules}. No files, no network.
- A block may run for at most {timeout:g} seconds."""


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
    goal = (
        "You are the PI (principal investigator) of a new academic research lab in a simulated world. "
        f"You run the lab for {rules['horizon_months']} months by writing Python that calls the lab's API. "
        "Your goal is the highest Impact at the end of the career: publish good papers that get cited, "
        "without ever letting the budget go below zero. True abilities, paper quality, topic hotness and "
        "agency preferences are hidden: infer them from what you can observe."
    )
    return "\n\n".join(
        [
            goal,
            "API (calls marked * change the world; every call returns plain dicts and lists):\n" + cheatsheet,
            mechanics_text(rules),
            _NOTES_ADVICE.format(limit=int(rules["harness"]["memory_max_chars"])),
            _CODING_TIPS.format(
                limit=output_limit,
                turns=max_turns,
                modules=", ".join(allowed_modules) or "none",
                timeout=block_timeout,
            ),
        ]
    )


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
    the last month's report (Decisions 8) and the dashboard as JSON."""
    head = f"=== Month {month} of {months} ({label}). New conversation: you have {max_turns} code turns. ==="
    if memory:
        notes = f"YOUR NOTES ({len(memory):,} of {memory_limit:,} characters):\n{memory}"
    else:
        notes = "YOUR NOTES: (empty: nothing written yet)"
    parts = [head, notes]
    if report:
        parts.append("LAST MONTH'S REPORT (JSON):\n" + json.dumps(report, separators=(",", ":"), ensure_ascii=False))
    parts.append("DASHBOARD (JSON):\n" + json.dumps(dashboard, separators=(",", ":"), ensure_ascii=False))
    return "\n\n".join(parts)


def cut_output(text: str, limit: int = OUTPUT_LIMIT, keep_end: str = "") -> tuple[str, bool]:
    """Cut ``text`` to ``limit`` characters with a marker, keeping ``keep_end`` (an error
    line) whole after it.

    Returns:
        ``(text, cut)``; the result is at most ``limit`` characters plus the marker.
    """
    room = max(0, limit - len(keep_end))
    if len(text) <= room:
        return text + keep_end, False
    marker = f"\n[... output cut at {limit:,} characters: {len(text) - room:,} more not shown ...]\n"
    return text[:room] + marker + keep_end, True


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
