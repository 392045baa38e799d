"""Messages shared by the app, its screens and its widgets."""

from __future__ import annotations

from textual.message import Message


class MonthAdvanced(Message):
    """A month was closed (posted from the simulation worker).

    Attributes:
        report: the closed month's report (``time.next_month()["report"]``).
        note: a problem worth telling the player (a failed autosave), or ``None``.
    """

    def __init__(self, report: dict, note: str | None = None) -> None:
        super().__init__()
        self.report = report
        self.note = note
