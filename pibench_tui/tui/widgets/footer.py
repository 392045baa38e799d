"""The key footer: one line of text, repainted only when the keys it shows change.

:class:`KeyLine` shows the keys of its screen's active bindings that are shown (one per
action, as Textual's :class:`~textual.widgets.Footer` shows them), each as its key in the
footer-key colour and its description after it, a disabled key dimmed, and the command
palette's key at the right. It is one widget of fixed height 1 drawing one line: a change of
keys repaints that line and lays nothing out (Textual's Footer removes and mounts a widget per
key on every change of bindings).

Rules a player relies on:

- It reads the keys once the messages queued with a change of bindings are handled (one key
  press publishes several: the focus leaves a widget, reaches the next...; Textual publishes
  the focus once more after the repaint, a second read that finds the same keys), and repaints
  only when the keys, their labels or whether they are enabled changed: at most once per key.
- When the keys and the palette key do not fit its width (80 columns on a panel with many
  keys), what :attr:`KeyLine.LEAVE_OUT` names is left out first, one at a time in its order (the
  keys stay bound, and the help and the command palette list them), the help key says "More",
  and, if that is still too wide, keys are left out from the end; a key is never drawn cut.
  The order is one ranking at every width: the console key outlasts the palette hint, q and
  ctrl+s (a fixed width hid the palette key below 110 columns, and between 110 and 116 the
  palette key stayed while ": Console" went).
- While a dialog (a screen above this one) covers it, it shows none of the keys under the
  dialog (only the palette key); they show again when the dialog closes.
- Clicking a key presses it (a disabled key rings the bell); hovering a key highlights it and
  shows its binding's tooltip.

A line drawn before (the keys of a panel shown again) is drawn from the lines kept for those
keys (:class:`~pibench_tui.tui.widgets.kept_lines.KeptLines`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.reactive import reactive
from textual.screen import Screen

from pibench_tui.tui.widgets.kept_lines import KeptLines


class Key(NamedTuple):
    """One key as the line shows it."""

    id: str | None
    """The binding's id (:attr:`KeyLine.LEAVE_OUT` and :attr:`KeyLine.MORE` name keys by it)."""
    key: str
    """The key pressed when it is clicked (Textual's name, e.g. ``question_mark``)."""
    display: str
    """How the key is written (e.g. ``?``, ``^s``)."""
    description: str
    """Its label."""
    enabled: bool
    """False: drawn dim, and a click rings the bell."""
    tooltip: str
    """Shown while the mouse is over the key (``""``: none)."""


class KeyLine(KeptLines, can_focus=False):
    """The key footer as one line (module docstring).

    Args:
        compact: Textual's compact footer look (no padding around a key, one space between
            keys), as ``Footer(compact=True)``.
        show_command_palette: show the command palette's key at the right.

    Attributes:
        renders: how many times the line was drawn, afresh or from kept lines (for tests and
            ``bench/tui.py``).
    """

    DEFAULT_CSS = """
    KeyLine {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
    }
    KeyLine > .key-line--item { background: $footer-item-background; }
    KeyLine > .key-line--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    KeyLine > .key-line--description {
        color: $footer-description-foreground;
        background: $footer-description-background;
    }
    KeyLine > .key-line--hover {
        color: $footer-key-foreground;
        background: $block-hover-background;
    }
    KeyLine > .key-line--separator { color: $foreground 20%; }
    """
    COMPONENT_CLASSES = {
        "key-line--item",
        "key-line--key",
        "key-line--description",
        "key-line--hover",
        "key-line--separator",
    }
    ALLOW_SELECT = False

    PALETTE = "command-palette"
    """How :attr:`LEAVE_OUT` names the command palette's key at the right."""
    LEAVE_OUT: tuple[str, ...] = ("warning", "quit", "save", PALETTE, "reports", "console")
    """What is left out first when the keys do not fit, in this order: binding ids, and
    :attr:`PALETTE` for the palette key. ``!`` first (header line 3 shows it beside each
    warning), then q and ctrl+s (the keys every terminal program has, and the help lists them),
    then the palette hint, then ``d`` (the month reports), the console last (its key is this
    game's own and opens the Python API; panel 9 reaches it too)."""
    MORE: tuple[str, str] = ("help", "More")
    """The binding id of the key whose label becomes the second item when keys are left out
    (the help screen lists every key)."""
    SEPARATOR = "▏"
    """Drawn before the palette key (Textual's footer draws a ``vkey`` border there)."""

    show_command_palette: reactive[bool] = reactive(True)
    """Show the command palette's key at the right (a change repaints the line)."""

    renders = 0

    def __init__(self, *, compact: bool = False, show_command_palette: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.compact = compact
        self.set_reactive(KeyLine.show_command_palette, show_command_palette)
        self._keys: tuple[tuple[Key, ...], Key | None] | None = None  # the keys, the palette key
        self._pending = False
        self._spans: list[tuple[int, int, Key]] = []  # columns [start, end) of each key drawn
        self._hover: Key | None = None

    # ------------------------------------------------------------------ the keys
    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen) -> None:
        """The screen's bindings changed (Textual's signal, as its Footer hears it): look at the
        keys once the messages queued now are handled, once, so that they change in the same
        repaint as what changed them."""
        if not screen.app.app_focus or self._pending or not self.is_attached:
            return
        self._pending = True
        self.call_later(self._update)

    def _update(self) -> None:
        self._pending = False
        if not self.is_attached:
            return
        keys = self._read_keys()
        if keys != self._keys:
            self._keys = keys
            self.refresh()

    def _read_keys(self) -> tuple[tuple[Key, ...], Key | None]:
        """The keys shown (one per action, in binding order; none while a screen above this
        one covers it) and the command palette's key (``None``: no such binding)."""
        app = self.app
        screen = self.screen
        active = screen.active_bindings
        keys: dict[str, Key] = {}
        if app.screen is screen:
            for _node, binding, enabled, tooltip in active.values():
                if binding.show and binding.action not in keys:
                    display = app.get_key_display(binding)
                    keys[binding.action] = Key(binding.id, binding.key, display, binding.description, enabled, tooltip)
        palette = None
        found = active.get(app.COMMAND_PALETTE_BINDING) if app.ENABLE_COMMAND_PALETTE else None
        if found is not None:
            _node, binding, enabled, _tooltip = found
            display = app.get_key_display(binding)
            palette = Key(
                binding.id, binding.key, display, binding.description, enabled, binding.tooltip or binding.description
            )
        return tuple(keys.values()), palette

    @property
    def keys(self) -> list[Key]:
        """The keys drawn the last time the line was drawn, in order (the palette key last)."""
        return [key for _start, _end, key in self._spans]

    # ------------------------------------------------------------------ fitting
    def _width(self, key: Key) -> int:
        """Columns one key takes, with the space after it."""
        if self.compact:  # key, space, label, space
            return cell_len(key.display) + (1 + cell_len(key.description) if key.description else 0) + 1
        return cell_len(key.display) + 2 + (cell_len(key.description) + 1 if key.description else 0)

    def _palette_width(self, palette: Key | None) -> int:
        """Columns the palette key takes at the right (0 when it is not shown)."""
        if palette is None or not self.show_command_palette:
            return 0  # drawn compact in either look (as Textual's footer draws it): ▏^p palette␣
        return 1 + cell_len(palette.display) + 1 + cell_len(palette.description) + 1

    def _fit(self, keys: tuple[Key, ...], width: int, palette_width: int = 0) -> tuple[list[Key], bool]:
        """``keys`` and the palette key (``palette_width`` columns; 0: none) as they fit in
        ``width`` columns (module docstring): all of them when they fit; else without what
        :attr:`LEAVE_OUT` names, one at a time, the help key relabelled :attr:`MORE`; then
        without keys from the end (the help key last of all).

        Returns:
            ``(the keys kept in order, whether the palette key is kept)``.
        """
        kept = list(keys)
        palette = palette_width > 0

        def used() -> int:
            return sum(map(self._width, kept)) + (palette_width if palette else 0)

        if width <= 0 or used() <= width:
            return kept, palette
        more_id, more = self.MORE
        kept = [k._replace(description=more) if k.id == more_id else k for k in kept]
        for leave in self.LEAVE_OUT:
            if used() <= width:
                break
            if leave == self.PALETTE:
                palette = False
            else:
                kept = [k for k in kept if k.id != leave]
        while kept and used() > width:
            del kept[max(j for j, k in enumerate(kept) if k.id != more_id or len(kept) == 1)]
        return kept, palette

    # ------------------------------------------------------------------ drawing
    def render(self) -> Text:
        """The line: the keys that fit, then the palette key at the right edge."""
        self.renders += 1
        if self._keys is None:
            self._keys = self._read_keys()
        keys, palette = self._keys
        width = self.size.width
        palette_width = self._palette_width(palette)
        item = self.get_component_rich_style("key-line--item")
        hover = self.get_component_rich_style("key-line--hover")
        key_style = self.get_component_rich_style("key-line--key", partial=True)
        label_style = self.get_component_rich_style("key-line--description", partial=True)
        line = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, Key]] = []

        def draw(key: Key, compact: bool) -> None:
            base = hover if key == self._hover else item
            if not key.enabled:
                base += Style(dim=True)
            start = line.cell_len
            pad = "" if compact else " "
            line.append(pad + key.display + pad, base + key_style)
            if key.description:
                line.append((" " if compact else "") + key.description + pad, base + label_style)
            spans.append((start, line.cell_len, key))

        kept, show_palette = self._fit(keys, width, palette_width)
        for key in kept:
            draw(key, self.compact)
            if self.compact:
                line.append(" ")
        if show_palette and palette is not None and width >= line.cell_len + palette_width:
            line.append(" " * (width - line.cell_len - palette_width))
            line.append(self.SEPARATOR, item + self.get_component_rich_style("key-line--separator"))
            draw(palette, compact=True)
            line.append(" ")
        self._spans = spans
        return line

    # ------------------------------------------------------------------ kept lines
    def line_state(self) -> tuple:
        """What the line shows: the keys, the key under the mouse, whether the palette key shows."""
        if self._keys is None:
            self._keys = self._read_keys()
        return (self._keys, self._hover, self.show_command_palette)

    def drawn_with(self) -> list[tuple[int, int, Key]]:
        """Where each key was drawn (clicks and :attr:`keys` read it)."""
        return self._spans

    def drawn_from_kept(self, drawn_with: object) -> None:
        """Drawn again from kept lines: counted as drawn, its keys where they were drawn."""
        self.renders += 1
        self._spans = drawn_with  # type: ignore[assignment]

    # ------------------------------------------------------------------ mouse
    def _key_at(self, x: int) -> Key | None:
        return next((key for start, end, key in self._spans if start <= x < end), None)

    def on_click(self, event: events.Click) -> None:
        """A click on a key presses it (a disabled key rings the bell)."""
        key = self._key_at(event.x)
        if key is None:
            return
        event.stop()
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """The key under the mouse is highlighted and its tooltip is the line's."""
        key = self._key_at(event.x)
        if key != self._hover:
            self._hover = key
            self.tooltip = (key.tooltip or None) if key is not None else None
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.tooltip = None
            self.refresh()


__all__ = ["Key", "KeyLine"]
