"""The quit dialog: save first when play is unsaved."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from pibench_tui.tui.screens.toasts import keep_toasts_under


class QuitDialog(ModalScreen[str]):
    """Quit: offer to save first when there are unsaved months. Dismisses with
    ``"save"``, ``"quit"`` or ``"stay"``.

    ``save_as`` is the name ``s`` saves under without asking (the career's own save name),
    shown in the hint; ``None`` when that name cannot be used, and ``s`` then asks for one."""

    BINDINGS = [
        Binding("s", "choose('save')", "Save and quit", id="quit-save"),
        Binding("q,y", "choose('quit')", "Quit", id="quit-now"),
        Binding("escape", "choose('stay')", "Stay", id="quit-stay"),
    ]

    def __init__(self, unsaved: bool, note: str = "This career has unsaved play", save_as: str | None = None) -> None:
        super().__init__()
        self.unsaved = unsaved
        self.note = note
        self.save_as = save_as

    def on_mount(self) -> None:
        keep_toasts_under(self)  # a toast on the screen below waits under this dialog

    def compose(self) -> ComposeResult:
        with Vertical(id="quit-box", classes="dialog"):
            yield Label("Quit pibench?", classes="dialog-title")
            if self.unsaved:
                yield Static(f"{self.note}.", id="quit-note", markup=False)
                save = f"save as {escape(repr(self.save_as))} and quit" if self.save_as else "save (name it) and quit"
                yield Static(f"[b]s[/] {save} · [b]q[/] quit without saving · [b]escape[/] stay", classes="form-hint")
            else:
                yield Static("[b]q[/]/[b]y[/] quit · [b]escape[/] stay", classes="form-hint")

    def action_choose(self, what: str) -> None:
        """Answer the dialog."""
        if what == "save" and not self.unsaved:
            what = "quit"
        self.dismiss(what)
