"""Small dialogs: next-month confirmation, quit, save, load."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option


class ConfirmNextMonth(ModalScreen[bool]):
    """Ask before closing the month; list unused attention and unanswered events.

    Confirming starts the month's close and the dialog stays up ("closing…") until the
    digest replaces it in one step, so the lab underneath is not redrawn in between
    (the App's ``_month_done`` dismisses it). Dismisses with ``False`` when cancelled.
    """

    BINDINGS = [
        Binding("enter,y", "confirm", "Advance", id="confirm-advance"),
        Binding("escape", "cancel", "Stay", id="confirm-stay"),
    ]

    def __init__(self, dashboard: dict) -> None:
        super().__init__()
        self.dash = dashboard
        self.closing = False

    def warnings(self) -> list[str]:
        """Lines naming what this month leaves unused (all from the dashboard)."""
        d = self.dash
        out = []
        att = d["attention"]
        if att["left"] > 0.5:
            out.append(f"{att['left']:g} h of attention unused (of {att['pool']:g} h); unspent hours vanish.")
        for e in d["pending_events"]:
            kind = e["kind"].replace("_", " ")
            if e["kind"] == "student_crisis":
                out.append(f"{e['id']} {kind}: unanswered, it counts as ignored at the end of this month.")
            elif e["respond_by_month"] <= d["month"]:
                out.append(f"{e['id']} {kind}: last month to answer.")
            else:
                out.append(f"{e['id']} {kind}: unanswered (answer by month {e['respond_by_month']}).")
        if d["available_drafts"]:
            out.append(f"{len(d['available_drafts'])} draft(s) available and not submitted: "
                       + ", ".join(x["id"] for x in d["available_drafts"][:6]))
        busy = {m for p in d["active_projects"] for m in p["members"]}
        idle = [s["id"] for s in d["students"] if s["id"] not in busy]
        if idle:
            out.append("On no project: " + ", ".join(idle))
        return out

    def compose(self) -> ComposeResult:
        d = self.dash
        with Vertical(id="confirm-box", classes="dialog"):
            yield Label(f"End month {d['month']} ({d['label']})?", classes="dialog-title")
            lines = self.warnings()
            if lines:
                yield Static("\n".join(f"• {escape(x)}" for x in lines), id="confirm-warnings")
            else:
                yield Static("Nothing left undone that the dashboard can see.", id="confirm-warnings")
            yield Static("[b]enter[/]/[b]y[/] advance · [b]escape[/] stay", classes="form-hint", id="confirm-hint")

    def action_confirm(self) -> None:
        """Close the month (the App dismisses this dialog when the month is closed)."""
        if self.closing:
            return
        if not getattr(self.app, "start_month", lambda: False)():
            self.dismiss(False)
            return
        self.closing = True
        self.query_one("#confirm-hint", Static).update("closing the month…")

    def action_cancel(self) -> None:
        """Stay in this month (once closing has started, the month closes anyway)."""
        if not self.closing:
            self.dismiss(False)


class QuitDialog(ModalScreen[str]):
    """Quit: offer to save first when there are unsaved months. Dismisses with
    ``"save"``, ``"quit"`` or ``"stay"``."""

    BINDINGS = [
        Binding("s", "choose('save')", "Save and quit", id="quit-save"),
        Binding("q,y", "choose('quit')", "Quit", id="quit-now"),
        Binding("escape", "choose('stay')", "Stay", id="quit-stay"),
    ]

    def __init__(self, unsaved: bool, note: str = "This career has unsaved play") -> None:
        super().__init__()
        self.unsaved = unsaved
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="quit-box", classes="dialog"):
            yield Label("Quit pibench?", classes="dialog-title")
            if self.unsaved:
                yield Static(f"{self.note}.", id="quit-note", markup=False)
                yield Static("[b]s[/] save and quit · [b]q[/] quit without saving · [b]escape[/] stay", classes="form-hint")
            else:
                yield Static("[b]q[/]/[b]y[/] quit · [b]escape[/] stay", classes="form-hint")

    def action_choose(self, what: str) -> None:
        """Answer the dialog."""
        if what == "save" and not self.unsaved:
            what = "quit"
        self.dismiss(what)


class SaveDialog(ModalScreen[str | None]):
    """Ask for a save name; dismisses with it (or ``None``).

    ``check(name)`` returns why the name may not be used (e.g. it belongs to another
    career); the dialog then shows that and stays open.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="save-cancel")]

    def __init__(self, default: str, where: str, *, blink: bool = True, check: Any = None) -> None:
        super().__init__()
        self.default = default
        self.where = where
        self.blink = blink
        self.check = check

    def compose(self) -> ComposeResult:
        with Vertical(id="save-box", classes="dialog"):
            yield Label("Save the career", classes="dialog-title")
            yield Static(f"[dim]store: {escape(self.where)}[/]")
            inp = Input(self.default, id="save-name", placeholder="save name")
            inp.cursor_blink = self.blink
            yield inp
            yield Static("", id="save-error", classes="form-error", markup=False)
            yield Static("[b]enter[/] save · [b]escape[/] cancel", classes="form-hint")

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        if not name:
            return
        problem = self.check(name) if self.check is not None else None
        if problem:
            self.query_one("#save-error", Static).update(problem)
            return
        self.dismiss(name)

    def action_cancel(self) -> None:
        """Close without saving."""
        self.dismiss(None)


class LoadDialog(ModalScreen[str | None]):
    """Pick a save to resume; dismisses with its name (or ``None``)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="load-cancel")]

    def __init__(self, saves: list[Any]) -> None:
        super().__init__()
        self.saves = saves

    def compose(self) -> ComposeResult:
        with Vertical(id="load-box", classes="dialog"):
            yield Label("Resume a save", classes="dialog-title")
            yield OptionList(*[
                Option(f"{i.name}  ·  {i.scenario} seed {i.seed}  ·  month {i.month}/{i.months}  ·  {i.status}  ·  {i.updated[:16]}", id=i.name)
                for i in self.saves
            ], id="load-list")
            yield Static("[b]enter[/] load · [b]escape[/] cancel", classes="form-hint")

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        """Close without loading."""
        self.dismiss(None)
