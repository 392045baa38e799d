"""The help screen: the rules in short, and the keys."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Markdown

from pibench_tui.tui.actions import ACTIONS
from world.config import STANDING_WORDS
from world.explain import LOW_MOOD, VERY_LOW_MOOD, blow_kinds


def rules_markdown(rules: dict, cfg: Any) -> str:
    """The rules in short, every number formatted from this scenario's ``lab.rules()`` (and, for
    the score's projection window, its ``WorldConfig``)."""
    tiers = "/".join(f"{w:g}" for _, w in sorted(rules["projects"]["tier_work"].items()))
    venues = "; ".join(
        f"{name} "
        + (f"(months {', '.join(str(m) for m in v['deadline_months'])})" if v["deadline_months"] else "(any month)")
        for name, v in rules["venues"].items()
    )
    dated = ", ".join(name for name, a in rules["agencies"].items() if not a.get("rolling"))
    rolling = ", ".join(name for name, a in rules["agencies"].items() if a.get("rolling"))
    season, pay, att, hrs, pd = rules["season"], rules["pay"], rules["attention"], rules["hours"], rules["postdoc"]
    offer_months = f"{min(season['offer_months'])}-{max(season['offer_months'])}"
    return f"""\
**Goal.** Run the lab for the horizon ({rules["horizon_months"]} months). Your score is **Impact** = citations your
papers earn by the end + a projection of their next {cfg.projection_months} months. If the budget ends a month
below zero the lab **collapses**: the career stops and keeps only citations earned.

**Each month** you act, then press **n** to close it. Money: people are paid and compute is
billed at the end of each month; grants are the only income. Attention: {att["base"]:g} h a month, less
oversight per researcher and the service duty ({att["service_tax_hours"]:g} h) in month {att["service_tax_month"]} of each year;
mentoring is a standing allocation, everything else is one-off; unspent hours vanish.

**People.** Recruiting season: months {offer_months} of each year (interview {hrs["interview"]:g} h each, offer; answers at
the end of month {season["offers_resolve"]}, students arrive in month {season["arrival"]}; pay ${pay["phd"]:,.0f}/month). Postdoc searches
take {pd["search_months"]} months (${rules["costs"]["postdoc_search"]:,.0f}; ${pay["postdoc"]:,.0f}/month, {pd["contract_months"]}-month
contracts, renewable within {pd["renewal_window_months"]} months of the end). RAs (${pay["ra"]:,.0f}/month) and lab managers
(${pay["manager"]:,.0f}/month) start at once; managers cut oversight. At most {rules["caps"]["researchers"]} researchers
(PhD students and postdocs, with open offers, students not yet arrived and open postdoc searches); RAs
and managers do not count.

**Projects → drafts → papers.** Tier 1/2/3 need about {tiers} units of work. Polish (up to
{hrs["polish_saturation"]:g} h) and submit: {venues}. Rejected drafts can be revised once a month.

**Grants.** {dated} calls open in given months; {rolling or "none"} rolling.
Proposals take ≥ {hrs["proposal_min"]:g} h and ${rules["costs"]["proposal"]:,.0f}; attach papers as evidence.

**Standing** (header): {" → ".join(STANDING_WORDS)}, lowest first. It rises with accepted papers, funded
grants, invited talks, reviews and citations, and drifts back slowly without them; the digest and
`lab.explain("standing")` say what yours has had.

**Hidden.** Abilities, morale, paper quality, topic hotness and agency tastes are hidden:
read reports, reviewer scores, news, preprints. They are revealed at the end.
"""


def columns_markdown(cfg: Any) -> str:
    """What the Lab panel's columns and the warnings mean (numbers from the rules and :mod:`pibench_tui.tui.alerts`;
    the quit warning's rule and its blows from :mod:`world.explain`, largest first as ``cfg`` sizes them)."""
    return f"""\
**Columns of the Lab panel.** **Report** is the quality of the researcher's latest monthly report
(0 = nothing useful; it grows with skill, ability and morale, and is noisy) — your read of how
their work goes. **Mood** is the sentiment of your latest meeting with them (0-1; your read of
their morale, noisy; written only when you mentor them at least {cfg.sentiment_min_hours:g} h a month). Two low moods in a
row (each below {LOW_MOOD:g}), a very low last one (below {VERY_LOW_MOOD:g}) or reports falling are the signs that come
before quitting: the header warns. It also warns, however their moods read, after any blow to their morale at the
last month's end or since (the largest first: {"; ".join(blow_kinds(cfg))}).
**Mentor h** is the standing monthly mentoring; **Months** time in the lab; **Contract** a
postdoc's last month.

**Warnings** (header line 3, and the digest) are computed from what you can see: runway shorter
than the months left, reports turning bad, contracts ending, deadlines next month, idle people,
events about to lapse. Each names its key; `!` goes to the panel of the most urgent one (and
its row). The key opens its form on what the warning names (the orphaned project, the event
due now), unless you moved the panel's cursor to another row yourself.
"""


def keys_markdown() -> str:
    """The key table, built from the action registry."""
    rows = [
        "| key | action | panel |",
        "|---|---|---|",
        "| n | next month (asks first) | any |",
        "| ? / f1 | this help | any |",
        "| : | console (Python, the agent API) | any |",
        "| ctrl+s | save | any |",
        "| l | load a save | any |",
        "| q | quit | any |",
        "| 1-9 | switch panel | any |",
        "| ctrl+p | command palette (every action) | any |",
        "| t (in this help) | reopen the tutorial checklist | any |",
        "| ! | the warnings of header line 3 one at a time, most urgent first: its panel and its key | any |",
        "| d | month reports: the last digest again, ← → the earlier ones (hallway talk too) | any |",
    ]
    for a in ACTIONS:
        rows.append(f"| {a.key} | {a.title} (`{a.api}`) | {a.tab} |")
    return "\n".join(rows)


KEYS_INTRO = (
    "**Keys.** Form dialogs: tab moves, space toggles a box or opens a list (enter picks in it), "
    "enter sends (first it goes to a required field still empty), ctrl+o sends, escape cancels; "
    "an offer, a dismissal or a stopped project asks first; "
    "a refused call keeps the form open with the reason. Panel tables: ↑↓, page up/down, home/end move "
    "the highlighted row (the one a panel's key acts on); ← → show more columns. Console: escape clears the line, and on an "
    "empty line it leaves the console (then 1-9 switch panels; `:` comes back). This help scrolls: "
    "arrows, page up/down, space, home/end."
)


class HelpScreen(ModalScreen[None]):
    """Rules and keys, in a scrolling box that has focus; escape closes."""

    BINDINGS = [
        Binding("escape,question_mark,q", "close", "Close", id="help-close"),
        Binding("t", "tutorial", "Tutorial checklist", id="help-tutorial"),
        Binding("space,j", "scroll('page_down')", "Page down", id="help-page-down", show=False),
        Binding("k", "scroll('page_up')", "Page up", id="help-page-up", show=False),
    ]

    def __init__(self, game: Any, *, keys: str | None = None, tutorial: bool = True) -> None:
        """Args:
        game: the career (rules and columns are formatted from it).
        keys: the keys section (markdown: intro and table); default :data:`KEYS_INTRO` and
            :func:`keys_markdown` (the replay viewer gives its own: only keys that work there).
        tutorial: offer ``t`` (reopen the tutorial checklist).
        """
        super().__init__()
        self.game = game
        self.keys = keys if keys is not None else KEYS_INTRO + "\n\n" + keys_markdown()
        self.tutorial = tutorial

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "tutorial" and not self.tutorial:
            return False
        return True

    @property
    def body(self) -> VerticalScroll:
        """The scrolling box."""
        return self.query_one("#help-scroll", VerticalScroll)

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box", classes="dialog"):
            yield Label(
                "pibench — help  [dim](↑↓ pgup pgdn space home end scroll · escape closes)[/]", classes="dialog-title"
            )
            with VerticalScroll(id="help-scroll"):
                yield Markdown(
                    rules_markdown(self.game.rules, self.game.world.cfg)
                    + "\n\n"
                    + columns_markdown(self.game.world.cfg)
                    + "\n\n"
                    + self.keys,
                    id="help-text",
                )

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
