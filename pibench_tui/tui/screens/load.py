"""The load dialog: pick a save to resume."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from pibench_tui.tui.screens.toasts import keep_toasts_under


class LoadDialog(ModalScreen[str | None]):
    """Pick a save to resume; dismisses with its name (or ``None``)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="load-cancel")]

    def __init__(self, saves: list[Any]) -> None:
        super().__init__()
        self.saves = saves

    def on_mount(self) -> None:
        keep_toasts_under(self)  # a toast on the screen below waits under this dialog

    def compose(self) -> ComposeResult:
        with Vertical(id="load-box", classes="dialog"):
            yield Label("Resume a save", classes="dialog-title")
            yield OptionList(
                *[
                    Option(
                        f"{i.name}  ·  {i.scenario} seed {i.seed_text}  ·  month {i.month}/{i.months}  ·  {i.status}  ·  {i.updated[:16]}",
                        id=i.name,
                    )
                    for i in self.saves
                ],
                id="load-list",
            )
            yield Static("[b]enter[/] load · [b]escape[/] cancel", classes="form-hint")

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        """Close without loading."""
        self.dismiss(None)
