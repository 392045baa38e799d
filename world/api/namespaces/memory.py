"""The agent's own notes (MECHANICS §16): ``memory.read()`` and ``memory.write(text)``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .. import Api


class Memory:
    """The agent's own notes (§16): at most ``memory_max_chars`` characters."""

    def __init__(self, api: Api) -> None:
        self._w = api.world  # not the API: no reference cycle (world.api.namespaces.base)

    def read(self) -> str:
        """The notes as last written ("" at first)."""
        return self._w.s.memory

    def write(self, text: Any) -> dict[str, Any]:
        """Replace the notes with ``str(text)``; longer text is cut with a notice."""
        text = text if isinstance(text, str) else str(text)
        limit = self._w.cfg.memory_max_chars
        note = "saved"
        if len(text) > limit:
            # the agent process cuts longer notes before sending them and writes this note
            # itself (pibench_tui/sandbox/child.py, _cutting_memory_writes): the same words
            note = f"cut to {limit} characters (of {len(text)})"
            text = text[:limit]
        self._w.s.memory = text
        return {"ok": True, "chars": len(text), "note": note}
