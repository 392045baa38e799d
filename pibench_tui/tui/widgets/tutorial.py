"""The tutorial checklist box (steps from :mod:`pibench_tui.tui.tutorial`)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from pibench_tui.tui.tutorial import BOX_AND_KEYS, KEYS_CHARS, steps


class TutorialChecklist(Static):
    """Suggested next steps with their keys; ``t`` hides it, and the help's ``t`` brings it back."""

    DEFAULT_CSS = """
    TutorialChecklist { dock: bottom; height: auto; max-height: 7; background: $boost; padding: 0 0 0 1;
                        border-top: solid $accent; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    _game: Any = None

    def on_resize(self) -> None:
        if self._game is not None:
            self.show(self._game)

    def show(self, game: Any) -> None:
        """Redraw the steps from the career's state; a step whose text does not fit the width
        shows its short form (:attr:`Step.short`), so no line loses its end."""
        self._game = game
        items = steps(game)
        width = self.content_region.width or self.app.size.width - 1  # its left padding
        left = sum(1 for s in items if not s.done)
        out = Text()
        if not left:  # every step done: one line, the rows go back to the panels
            out.append(f"Tutorial — all {len(items)} steps done", style="bold green")
            out.append("  (t hides this; ? then t brings it back)", style="dim")
            self.update(out)
            return
        out.append(f"Tutorial — {left} step(s) to try", style="bold")
        out.append("  (t hides this; ? then t brings it back)", style="dim")
        for s in items:
            out.append("\n")
            text = s.text if BOX_AND_KEYS + len(s.text) <= width or not s.short else s.short
            if s.done:
                out.append("[x] ", style="green")
                out.append(f"{s.keys:<{KEYS_CHARS}}  ", style="dim")
                out.append(text, style="dim strike")
            else:
                out.append("[ ] ", style="bold" if s.now else "dim")
                out.append(f"{s.keys:<{KEYS_CHARS}}  ", style="bold cyan" if s.now else "dim")
                out.append(text, style="" if s.now else "dim")
        self.update(out)
