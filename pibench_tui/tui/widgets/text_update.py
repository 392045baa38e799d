"""Update a Static's text without laying the screen out when its height cannot change.

:meth:`textual.widgets.Static.update` lays the whole screen out again by default (the new text
may need another height). For the notes and lines a month changes (the header, the Lab panel's
attention line, the digest's title and keys), the height stays the same whenever the new text
has as many lines as the old one and no line of either wraps; then a repaint is enough.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.content import Content
from textual.widgets import Static


def plain_lines(content: object) -> list[str] | None:
    """The lines of a Static's content (a Rich :class:`~rich.text.Text`, markup, or a
    :class:`~textual.content.Content`) as plain text; ``None`` for any other renderable."""
    if isinstance(content, Text):
        return content.plain.split("\n")
    if isinstance(content, Content):
        return content.plain.split("\n")
    if isinstance(content, str):
        return Content.from_markup(content).plain.split("\n")
    return None


def update_text(widget: Static, content: Text | Content | str) -> None:
    """Show ``content`` in ``widget``: repainted only (no layout) when the widget is laid out and
    the old and the new text have the same number of lines, none wider than the widget (so none
    wraps); else updated as :meth:`Static.update` does (with a layout)."""
    room = widget.content_region.width
    old, new = plain_lines(widget.content), plain_lines(content)
    same_height = (
        room > 0
        and old is not None
        and new is not None
        and len(old) == len(new)
        and all(cell_len(line) <= room for line in old + new)
    )
    widget.update(content, layout=not same_height)
