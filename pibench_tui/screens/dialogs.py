"""Small dialogs, one per file; re-exported here."""

from __future__ import annotations

from .confirm import ConfirmNextMonth
from .load import LoadDialog
from .quit import QuitDialog
from .save import SaveDialog

__all__ = ["ConfirmNextMonth", "LoadDialog", "QuitDialog", "SaveDialog"]
