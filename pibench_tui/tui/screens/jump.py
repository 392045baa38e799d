"""Ask for a month to jump to (the replay viewer's ``j``)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from pibench_tui.tui.widgets.typed_input import TypedInput


class JumpDialog(ModalScreen[int | None]):
    """A month number between ``first`` and ``last``; dismisses with it (or ``None``)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="jump-cancel")]

    def __init__(self, first: int, last: int, *, blink: bool = True) -> None:
        super().__init__()
        self.first, self.last, self.blink = first, last, blink

    def compose(self) -> ComposeResult:
        with Vertical(id="jump-box", classes="dialog"):
            yield Label(f"Jump to month ({self.first}-{self.last})", classes="dialog-title")
            inp = TypedInput(id="jump-month", type="integer", placeholder=f"{self.first}-{self.last}")
            inp.cursor_blink = self.blink
            yield inp
            yield Static("", id="jump-error", markup=False)
            yield Static("[b]enter[/] go · [b]escape[/] cancel", classes="form-hint")

    @on(Input.Submitted)
    def _go(self, event: Input.Submitted) -> None:
        try:
            month = int(event.value.strip())
        except ValueError:
            self.query_one("#jump-error", Static).update(
                f"{event.value!r} is not a month number ({self.first}-{self.last})"
            )
            return
        if not self.first <= month <= self.last:
            self.query_one("#jump-error", Static).update(
                f"month {month} is outside this career ({self.first}-{self.last})"
            )
            return
        self.dismiss(month)

    def action_cancel(self) -> None:
        """Stay on this month."""
        self.dismiss(None)
