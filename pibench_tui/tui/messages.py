"""Messages shared by the app, its screens and its widgets."""

from __future__ import annotations

from textual.message import Message


class MonthAdvanced(Message):
    """A month was closed (posted from the simulation worker).

    Attributes:
        report: the closed month's report (``time.next_month()["report"]``).
        dashboard: the new month's ``lab.dashboard()`` as ``time.next_month()`` returned it
            (``None`` once the career is over: the header asks the API then).
        note: a problem worth telling the player (a failed autosave), or ``None``.
    """

    def __init__(self, report: dict, dashboard: dict | None = None, note: str | None = None) -> None:
        super().__init__()
        self.report = report
        self.dashboard = dashboard
        self.note = note
