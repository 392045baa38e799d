"""Small dialogs, one per file; re-exported here."""

from __future__ import annotations

from pibench_tui.tui.screens.confirm import ConfirmNextMonth
from pibench_tui.tui.screens.load import LoadDialog
from pibench_tui.tui.screens.quit import QuitDialog
from pibench_tui.tui.screens.save import SaveDialog

__all__ = ["ConfirmNextMonth", "LoadDialog", "QuitDialog", "SaveDialog"]
