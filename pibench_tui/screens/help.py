"""The help screen: the rules in short, and the keys."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Markdown

from ..actions import ACTIONS

RULES = """\
**Goal.** Run the lab for the horizon (60 months). Your score is **Impact** = citations your
papers earn by the end + a projection of their next 36 months. If the budget ends a month
below zero the lab **collapses**: the career stops and keeps only citations earned.

**Each month** you act, then press **n** to close it. Money: people are paid and compute is
billed at the end of each month; grants are the only income. Attention: 100 h a month, less
oversight per researcher and the service duty in month 7 of each year; mentoring is a
standing allocation, everything else is one-off; unspent hours vanish.

**People.** Recruiting season: months 1-3 of each year (interview 3 h each, offer; answers at
the end of month 3, students arrive in month 5). Postdoc searches take two months. RAs and
lab managers start at once; managers cut oversight. At most 12 researchers.

**Projects → drafts → papers.** Tier 1/2/3 need about 6/14/28 units of work; two mentored
students make about one a month. Polish (up to 12 h) and submit: NAIC (months 3, 9), CLAR
(months 6, 12), W-SHOP and JMR (any month). Rejected drafts can be revised once a month.

**Grants.** BSF, AMP, FEL calls open in given months (two-month window); TIF is rolling.
Proposals take ≥ 5 h and $500; attach papers as evidence.

**Hidden.** Abilities, morale, paper quality, topic hotness and agency tastes are hidden:
read reports, reviewer scores, news, preprints. They are revealed at the end.
"""


def keys_markdown() -> str:
    """The key table, built from the action registry."""
    rows = ["| key | action | panel |", "|---|---|---|",
            "| n | next month (asks first) | any |", "| ? / f1 | this help | any |", "| : | console (Python, the agent API) | any |",
            "| ctrl+s | save | any |", "| l | load a save | any |", "| q | quit | any |", "| 1-9 | switch panel | any |",
            "| ctrl+p | command palette (every action) | any |"]
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
        Binding("space,j", "scroll('page_down')", "Page down", id="help-page-down", show=False),
        Binding("k", "scroll('page_up')", "Page up", id="help-page-up", show=False),
    ]

    @property
    def body(self) -> VerticalScroll:
        """The scrolling box."""
        return self.query_one("#help-scroll", VerticalScroll)

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box", classes="dialog"):
            yield Label("pibench — help  [dim](↑↓ pgup pgdn space home end scroll · escape closes)[/]", classes="dialog-title")
            with VerticalScroll(id="help-scroll"):
                yield Markdown(RULES + "\n\n" + KEYS_INTRO + "\n\n" + keys_markdown(), id="help-text")

    def on_mount(self) -> None:
        self.body.focus()

    def action_scroll(self, how: str) -> None:
        """Scroll the help a page (``page_down`` / ``page_up``)."""
        getattr(self.body, f"action_{how}")()

    def action_close(self) -> None:
        """Back to the lab."""
        self.dismiss(None)
