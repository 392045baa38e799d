"""The help screen: the rules in short, and the keys."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Markdown

from ..actions import ACTIONS
from ..alerts import LOW_MOOD

def _months(ms: list[int]) -> str:
    return ", ".join(str(m % 12 or 12) for m in ms)


def rules_markdown(cfg: Any) -> str:
    """The rules in short, every number formatted from this scenario's ``WorldConfig``."""
    tiers = "/".join(f"{cfg.tiers[t]['work']:g}" for t in sorted(cfg.tiers))
    venues = "; ".join(f"{name} " + (f"(months {_months(v['deadlines'])})" if v["deadlines"] else "(any month)")
                       for name, v in cfg.venues.items())
    dated = ", ".join(name for name, a in cfg.agencies.items() if not a.get("rolling"))
    rolling = ", ".join(name for name, a in cfg.agencies.items() if a.get("rolling"))
    return f"""\
**Goal.** Run the lab for the horizon ({cfg.months} months). Your score is **Impact** = citations your
papers earn by the end + a projection of their next {cfg.projection_months} months. If the budget ends a month
below zero the lab **collapses**: the career stops and keeps only citations earned.

**Each month** you act, then press **n** to close it. Money: people are paid and compute is
billed at the end of each month; grants are the only income. Attention: {cfg.attention_base:g} h a month, less
oversight per researcher and the service duty ({cfg.service_tax_hours:g} h) in month {cfg.service_tax_month or 12} of each year;
mentoring is a standing allocation, everything else is one-off; unspent hours vanish.

**People.** Recruiting season: months 1-3 of each year (interview {cfg.interview_hours:g} h each, offer; answers at
the end of month 3, students arrive in month 5; pay ${cfg.pay_phd:,.0f}/month). Postdoc searches take two months
(${cfg.postdoc_search_fee:,.0f}; ${cfg.pay_postdoc:,.0f}/month, {cfg.postdoc_contract_months}-month contracts, renewable within
{cfg.postdoc_renewal_window} months of the end). RAs (${cfg.pay_ra:,.0f}/month) and lab managers (${cfg.pay_manager:,.0f}/month)
start at once; managers cut oversight. At most {cfg.researcher_cap} researchers.

**Projects → drafts → papers.** Tier 1/2/3 need about {tiers} units of work. Polish (up to
{cfg.polish_cap_hours:g} h) and submit: {venues}. Rejected drafts can be revised once a month.

**Grants.** {dated} calls open in given months; {rolling or "none"} rolling.
Proposals take ≥ {cfg.proposal_min_hours:g} h and ${cfg.proposal_fee:,.0f}; attach papers as evidence.

**Hidden.** Abilities, morale, paper quality, topic hotness and agency tastes are hidden:
read reports, reviewer scores, news, preprints. They are revealed at the end.
"""


def columns_markdown(cfg: Any) -> str:
    """What the Lab panel's columns and the warnings mean (numbers from the rules and :mod:`pibench_tui.alerts`)."""
    return f"""\
**Columns of the Lab panel.** **Report** is the quality of the researcher's latest monthly report
(0 = nothing useful; it grows with skill, ability and morale, and is noisy) — your read of how
their work goes. **Mood** is the sentiment of your latest meeting with them (0-1; your read of
their morale, noisy; written only when you mentor them at least {cfg.sentiment_min_hours:g} h a month). Two low moods in a
row (below {LOW_MOOD:g}) or reports falling are the signs that come before quitting: the header warns.
**Mentor h** is the standing monthly mentoring; **Months** time in the lab; **Contract** a
postdoc's last month.

**Warnings** (header line 3, and the digest) are computed from what you can see: runway shorter
than the months left, reports turning bad, contracts ending, deadlines next month, idle people,
events about to lapse. Each names its key.
"""


def keys_markdown() -> str:
    """The key table, built from the action registry."""
    rows = ["| key | action | panel |", "|---|---|---|",
            "| n | next month (asks first) | any |", "| ? / f1 | this help | any |", "| : | console (Python, the agent API) | any |",
            "| ctrl+s | save | any |", "| l | load a save | any |", "| q | quit | any |", "| 1-9 | switch panel | any |",
            "| ctrl+p | command palette (every action) | any |",
            "| t (in this help) | reopen the tutorial checklist | any |"]
    for a in ACTIONS:
        rows.append(f"| {a.key} | {a.title} (`{a.api}`) | {a.tab} |")
    return "\n".join(rows)


KEYS_INTRO = ("**Keys.** Form dialogs: tab moves, space toggles, enter or ctrl+o sends, escape cancels; "
              "a refused call keeps the form open with the reason. Console: escape clears the line, and on an "
              "empty line it leaves the console (then 1-9 switch panels; `:` comes back). This help scrolls: "
              "arrows, page up/down, space, home/end.")


class HelpScreen(ModalScreen[None]):
    """Rules and keys, in a scrolling box that has focus; escape closes."""

    BINDINGS = [
        Binding("escape,question_mark,q", "close", "Close", id="help-close"),
        Binding("t", "tutorial", "Tutorial checklist", id="help-tutorial"),
        Binding("space,j", "scroll('page_down')", "Page down", id="help-page-down", show=False),
        Binding("k", "scroll('page_up')", "Page up", id="help-page-up", show=False),
    ]

    def __init__(self, cfg: Any) -> None:
        super().__init__()
        self.cfg = cfg

    @property
    def body(self) -> VerticalScroll:
        """The scrolling box."""
        return self.query_one("#help-scroll", VerticalScroll)

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box", classes="dialog"):
            yield Label("pibench — help  [dim](↑↓ pgup pgdn space home end scroll · escape closes)[/]", classes="dialog-title")
            with VerticalScroll(id="help-scroll"):
                yield Markdown(rules_markdown(self.cfg) + "\n\n" + columns_markdown(self.cfg) + "\n\n" + KEYS_INTRO + "\n\n" + keys_markdown(),
                               id="help-text")

    def on_mount(self) -> None:
        self.body.focus()

    def action_scroll(self, how: str) -> None:
        """Scroll the help a page (``page_down`` / ``page_up``)."""
        getattr(self.body, f"action_{how}")()

    def action_close(self) -> None:
        """Back to the lab."""
        self.dismiss(None)

    def action_tutorial(self) -> None:
        """Close the help and (re)open the tutorial checklist."""
        self.dismiss(None)
        show = getattr(self.app, "show_tutorial", None)
        if show is not None:
            show()
