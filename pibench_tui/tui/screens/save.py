"""The save dialog: a name for the career's save."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from pibench_tui.tui.screens.toasts import keep_toasts_under
from pibench_tui.tui.widgets.typed_input import TypedInput


def blank_name_error() -> str:
    """The dialog's error for a name of blanks only (it replaces any earlier error)."""
    from saves.names import VALID_NAMES  # the saves package is imported when first needed

    return f"The name is blank: type a name for the save, or escape to cancel ({VALID_NAMES})."


class SaveDialog(ModalScreen[str | None]):
    """Ask for a save name; dismisses with it (or ``None``).

    ``check(name)`` returns why the name may not be used (e.g. it belongs to another
    career); the dialog then shows that and stays open. A name of blanks only is refused the
    same way (:func:`blank_name_error`), so an earlier error never stays under a new attempt.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="save-cancel")]

    def __init__(self, default: str, where: str, *, blink: bool = True, check: Any = None) -> None:
        super().__init__()
        self.default = default
        self.where = where
        self.blink = blink
        self.check = check

    def on_mount(self) -> None:
        keep_toasts_under(self)  # a toast on the screen below waits under this dialog

    def compose(self) -> ComposeResult:
        with Vertical(id="save-box", classes="dialog"):
            yield Label("Save the career", classes="dialog-title")
            yield Static(f"[dim]store: {escape(self.where)}[/]")
            inp = TypedInput(self.default, id="save-name", placeholder="save name")
            inp.cursor_blink = self.blink
            yield inp
            yield Static("", id="save-error", classes="form-error", markup=False)
            yield Static("[b]enter[/] save · [b]escape[/] cancel", classes="form-hint")

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        problem = blank_name_error() if not name else self.check(name) if self.check is not None else None
        if problem:
            self.query_one("#save-error", Static).update(problem)
            return
        self.dismiss(name)

    def action_cancel(self) -> None:
        """Close without saving."""
        self.dismiss(None)
