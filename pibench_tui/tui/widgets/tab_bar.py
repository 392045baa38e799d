"""The tab bar of the main screen: one line of panel titles, the shown panel's highlighted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual import events
from textual.reactive import reactive

from pibench_tui.tui.widgets.kept_lines import KeptLines


class TabBar(KeptLines):
    """One line naming the panels (``"1 Lab"``: the number is the panel's key), the shown one
    highlighted. A click on a title runs the app's ``tab`` action for that panel (the app
    decides whether it may, as for the key). The bar only draws: switching the panels is the
    app's (``LabApp.action_tab``), which sets :attr:`active`.

    A panel's line drawn before is drawn from the lines kept for it (:class:`KeptLines`).

    Titles are written the widest way that fits the bar: padded both sides, then padded on
    the left only, then the same with the short titles of ``short`` (the numbers always stay:
    they are the keys).

    Args:
        tabs: ``(panel id, title)`` of each panel, in order.
        short: shorter titles by panel id, used when the full ones do not fit.
        active: the panel shown first.
    """

    DEFAULT_CSS = """
    TabBar {
        height: 1;
        width: 1fr;
        pointer: pointer;
        & > .tab-bar--tab { color: $foreground 60%; }
        & > .tab-bar--active { color: $block-cursor-foreground; background: $block-cursor-background; text-style: bold; }
        &:ansi > .tab-bar--tab { text-style: dim; }
        &:ansi > .tab-bar--active { text-style: not dim bold reverse; }
    }
    """
    COMPONENT_CLASSES = {"tab-bar--tab", "tab-bar--active"}

    active: reactive[str] = reactive("")
    """The id of the panel shown (setting it repaints the bar only)."""

    def __init__(self, tabs: Sequence[tuple[str, str]], short: Mapping[str, str], *, active: str, id: str) -> None:
        super().__init__(id=id)
        self.titles = list(tabs)
        self.short = dict(short)
        self.set_reactive(TabBar.active, active)

    def layout_for(self, width: int) -> list[tuple[str, str]]:
        """``(panel id, text)`` of each title as drawn in ``width`` columns, padding included
        (the widest way that fits; the narrowest if none does). The shown panel's title is
        always padded both sides (its highlight)."""
        forms = []
        for short in (False, True):
            for right in (" ", ""):
                forms.append(
                    [
                        (
                            tab,
                            f" {self.short.get(tab, title) if short else title}{' ' if tab == self.active else right}",
                        )
                        for tab, title in self.titles
                    ]
                )
        return next((f for f in forms if sum(len(t) for _, t in f) <= width), forms[-1])

    def line_state(self) -> str:
        """What the line shows besides the titles (fixed): the panel shown."""
        return self.active

    def render(self) -> Text:
        tab_style = self.get_component_rich_style("tab-bar--tab")
        active_style = self.get_component_rich_style("tab-bar--active")
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        for tab, title in self.layout_for(self.size.width):
            text.append(title, active_style if tab == self.active else tab_style)
        return text

    def tab_at(self, x: int) -> str | None:
        """The panel id of the title drawn at column ``x`` (``None``: no title there)."""
        end = 0
        for tab, title in self.layout_for(self.size.width):
            end += len(title)
            if x < end:
                return tab if x >= 0 else None
        return None

    async def on_click(self, event: events.Click) -> None:
        tab = self.tab_at(event.x)
        if tab is not None:
            await self.run_action(f"app.tab({tab!r})")
