"""The world's exceptions, in one module that imports nothing of ours.

:class:`ActionError` is the single type of a refused API call (MECHANICS §15);
:class:`SimulationOver` is raised by :meth:`world.engine.World.next_month` once the career
has ended (MECHANICS §1). ``world.api`` and ``world.engine`` re-export them, and
``world.observe`` imports :class:`ActionError` from here (no import cycle with the API).
"""

from __future__ import annotations

from typing import Any


class ActionError(Exception):
    """A refused API call. ``code`` is a stable short word; ``message`` says what to do.

    Codes: ``unknown_call``, ``bad_argument``, ``unknown_id``, ``not_allowed``,
    ``wrong_month``, ``no_attention``, ``cap_reached``, ``career_over``, ``sql_error``,
    ``no_report``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, Any]:
        """``{"ok": False, "error": code, "message": message}``."""
        return {"ok": False, "error": self.code, "message": self.message}


class SimulationOver(Exception):
    """Raised by :meth:`World.next_month` after the horizon or a collapse (MECHANICS §1)."""


__all__ = ["ActionError", "SimulationOver"]
