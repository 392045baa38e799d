"""The month-end confirmation: what this month leaves unused, then the close."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, Static

from pibench_tui.tui.record import after_the_end
from pibench_tui.tui.screens.guard import GuardedDialog
from pibench_tui.tui.screens.toasts import keep_toasts_under
from world.papers import last_useful_draft_month

HINT = "[b]enter[/]/[b]y[/] advance · [b]escape[/] stay"
IGNORED_HINT = "a key typed before this showed was ignored · " + HINT
CONFIRM_KEYS = ("enter", "y")
"""The keys that close the month (the ``confirm`` binding's)."""


class ConfirmNextMonth(GuardedDialog[bool]):
    """Ask before closing the month; list unused attention and unanswered events.

    Confirming starts the month's close and the dialog stays up ("closing…") until the
    digest replaces it in one step, so the lab underneath is not redrawn in between
    (the App's ``_month_done`` dismisses it). Dismisses with ``False`` when cancelled.

    No toast draws over it: the toasts wait under it (staying in the month shows them on the
    lab again), and confirming clears them: they told of the month now closing, whose digest
    (and every month's, on ``d``) keeps the record, so none reappears in the next month.

    Closing a month cannot be undone, so only an ``enter`` or ``y`` typed after the question
    was drawn closes it (:class:`~pibench_tui.tui.screens.guard.GuardedDialog`); one typed
    before is ignored, and the hint says so.
    """

    BINDINGS = [
        Binding(",".join(CONFIRM_KEYS), "confirm", "Advance", id="confirm-advance"),
        Binding("escape", "cancel", "Stay", id="confirm-stay"),
    ]

    def __init__(self, dashboard: dict, game: Any = None) -> None:
        super().__init__()
        self.game = game  # the career: its rules and config say what can still count (None: all listed)
        self.ask(dashboard)

    def ask(self, dashboard: dict) -> None:
        """Ask about the month of ``dashboard`` (``lab.dashboard()``): the game app keeps one
        confirmation and asks it again each month."""
        self.dash = dashboard
        self.closing = False
        self.shown_at = None  # asked again: keys count once it is drawn (GuardedDialog)
        if self.is_mounted:
            self.query_one("#confirm-title", Label).update(self._title())
            self.query_one("#confirm-warnings", Static).update(self._warnings_text())
            self.query_one("#confirm-hint", Static).update(HINT)

    def warnings(self) -> list[str]:
        """Lines naming what this month leaves unused (all from the dashboard).

        Near the horizon a reminder whose action can no longer change the career is left out,
        by the rules of the header's late-career warnings (README design notes, "Late-career
        warnings"): drafts once no submission can be decided by the last month (a month after
        :func:`world.papers.last_useful_draft_month`), people on no project after it, and a
        collaboration offer that cannot pay off (:func:`~pibench_tui.tui.record.after_the_end`);
        a talk or review request whose
        answer-by month is after the last month says it never lapses instead of its month."""
        d = self.dash
        m, game = d["month"], self.game
        last_draft = last_useful_draft_month(game.world.cfg) if game is not None else m
        # a draft available now was made at the last tick; a project started now completes at a tick >= m
        late_drafts, late_projects = m - 1 > last_draft, m > last_draft
        out = []
        att = d["attention"]
        if att["left"] > 0.5:
            out.append(f"{att['left']:g} h of attention unused (of {att['pool']:g} h); unspent hours vanish.")
        for e in d["pending_events"]:
            kind = e["kind"].replace("_", " ")
            if e["kind"] == "student_crisis":
                out.append(f"{e['id']} {kind}: unanswered, it counts as ignored at the end of this month.")
                continue
            end = after_the_end(game, e["kind"], e["respond_by_month"], m) if game is not None else ""
            if end and e["kind"] == "collaboration_offer":
                continue  # accepting would only cost hours
            if end:
                out.append(f"{e['id']} {kind}: unanswered; {end}.")
            elif e["respond_by_month"] <= m:
                out.append(f"{e['id']} {kind}: last month to answer.")
            else:
                out.append(f"{e['id']} {kind}: unanswered (answer by month {e['respond_by_month']}).")
        if d["available_drafts"] and not late_drafts:
            out.append(
                f"{len(d['available_drafts'])} draft(s) available and not submitted: "
                + ", ".join(x["id"] for x in d["available_drafts"][:6])
            )
        busy = {x for p in d["active_projects"] for x in p["members"]}
        idle = [s["id"] for s in d["students"] if s["id"] not in busy]
        if idle and not late_projects:
            out.append("On no project: " + ", ".join(idle))
        return out

    def _title(self) -> str:
        """The question; closing the career's last month (``months_total``, the config's) says it ends the career."""
        d = self.dash
        last = " It is the last: closing it ends the career." if d["month"] >= d["months_total"] else ""
        return f"End month {d['month']} ({d['label']})?{last}"

    def _warnings_text(self) -> str:
        lines = self.warnings()
        if not lines:
            return "Nothing left undone that the dashboard can see."
        return "\n".join(f"• {escape(x)}" for x in lines)

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog"):
            yield Label(self._title(), classes="dialog-title", id="confirm-title")
            yield Static(self._warnings_text(), id="confirm-warnings")
            yield Static(HINT, classes="form-hint", id="confirm-hint")

    def on_mount(self) -> None:
        keep_toasts_under(self)

    GUARDED_KEYS = CONFIRM_KEYS

    def answering(self) -> bool:
        return not self.closing

    def early_key_ignored(self) -> None:
        self.query_one("#confirm-hint", Static).update(IGNORED_HINT)

    def action_confirm(self) -> None:
        """Close the month (the App dismisses this dialog when the month is closed) and clear
        the month's toasts."""
        if self.closing:
            return
        if not getattr(self.app, "start_month", lambda: False)():
            self.dismiss(False)
            return
        self.app.clear_notifications()
        self.closing = True
        self.query_one("#confirm-hint", Static).update("closing the month…")

    def action_cancel(self) -> None:
        """Stay in this month (once closing has started, the month closes anyway)."""
        if not self.closing:
            self.dismiss(False)
