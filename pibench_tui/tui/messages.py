"""Messages shared by the app, its screens and its widgets."""

from __future__ import annotations

from textual.message import Message


class MonthAdvanced(Message):
    """A month was closed (posted from the simulation worker).

    Attributes:
        report: the closed month's report (``time.next_month()["report"]``).
        dashboard: the new month's ``lab.dashboard()`` as ``time.next_month()`` returned it
            (``None`` once the career is over: the header asks the API then).
    """

    def __init__(self, report: dict, dashboard: dict | None = None) -> None:
        super().__init__()
        self.report = report
        self.dashboard = dashboard


class AutosaveFailed(Message):
    """The autosave after a close failed (posted from the autosave worker).

    Attributes:
        note: what to tell the player (``"autosave failed: …"``).
    """

    def __init__(self, note: str) -> None:
        super().__init__()
        self.note = note
