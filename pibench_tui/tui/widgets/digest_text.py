"""The month digest's text: one scrolling widget that draws its lines itself (Textual's Line API).

The digest was a :class:`~textual.widgets.Static` inside a :class:`~textual.containers.VerticalScroll`
in a box as tall as the text: a new month's text changed the Static's height, which Textual
finds only while laying the screen out, and then laid it out again (a second full paint), and a
third time when the scrollbar came or went and the text re-wrapped to the width left (~25 ms of
CPU of each month close at month 40 of a busy career, bench/tui.py).

:class:`DigestText` is given a height by its container (the digest's box has a fixed height, so
no size changes from one month to the next), always shows its scrollbar (so neither the width the
text wraps to nor the layout depends on the text's length), wraps its text once per text and width,
and draws a line by handing out the wrapped line: showing a new month's text repaints, it does
not lay the screen out. The text looks as the Static drew it (same markup, same styles).
"""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual, visualize


class DigestText(ScrollView, can_focus=True):
    """Markup text that scrolls vertically (↑ ↓ pgup pgdn home end, the wheel), wrapped to the
    widget's width and drawn line by line (module docstring). Its height comes from its CSS
    (``height: auto`` works too, laid out again on each new text).

    Args:
        markup: the text, in Textual's markup (as a :class:`~textual.widgets.Static` reads it).
        id: the widget's id.

    Attributes:
        wraps: how many times the text was wrapped (for tests: once per text and width).
    """

    DEFAULT_CSS = """
    DigestText { height: 1fr; overflow-x: hidden; overflow-y: scroll; }
    """

    def __init__(self, markup: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._content: Content = Content.from_markup(markup)
        self._lines: list[Strip] = []
        self._wrapped_for: tuple | None = None  # what _lines were wrapped for (width, style, selection)
        self.wraps = 0

    @property
    def text(self) -> str:
        """The text shown, without markup."""
        return self._content.plain

    def update(self, markup: str) -> None:
        """Show ``markup`` instead: wrapped now to the width the widget has, and repainted (laid
        out again only with ``height: auto`` or before the widget's first layout)."""
        self._content = Content.from_markup(markup)
        self._wrapped_for = None
        width = self.scrollable_content_region.width
        if not width or self.styles.is_auto_height:
            self.refresh(layout=True)
            return
        self._wrapped(width)
        self._scroll_update(self.virtual_size)  # the scrollbar's length, without a layout
        self.refresh()

    def render(self) -> Content:
        """The text (what a text selection copies from)."""
        return self._content

    def _wrapped(self, width: int) -> list[Strip]:
        """The text's lines wrapped to ``width`` cells, padded to it (made once per text, width,
        style and text selection); sets :attr:`virtual_size` to them without a new layout."""
        style = self.visual_style
        key = (width, style, self.text_selection)
        if key != self._wrapped_for:
            visual = visualize(self, self._content)
            self._lines = Visual.to_strips(self, visual, width, None, style, pad=True) if width > 0 else []
            self._wrapped_for = key
            self.wraps += 1
            self.set_reactive(ScrollView.virtual_size, Size(width, len(self._lines)))
        return self._lines

    def _text_width(self, outer: int) -> int:
        """The width the text wraps to in a widget ``outer`` cells wide (less the scrollbar)."""
        return outer - self.styles.gutter.width - self.styles.scrollbar_size_vertical

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        self._wrapped(self._text_width(size.width))  # the text's height, before the scrollbar is sized to it
        return super()._size_updated(size, virtual_size, container_size, layout)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The number of lines of the text at ``width`` less the scrollbar's column."""
        return len(self._wrapped(width - self.styles.scrollbar_size_vertical))

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the view: the wrapped line under it, or a blank one below the text."""
        width = self.scrollable_content_region.width
        lines = self._wrapped(width)
        i = y + round(self.scroll_offset.y)
        if 0 <= i < len(lines):
            return lines[i]
        return Strip.blank(width, self.visual_style.rich_style)
