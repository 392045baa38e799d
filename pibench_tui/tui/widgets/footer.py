"""The key footer, updated in place, only when the keys it shows change.

Textual's :class:`~textual.widgets.Footer` recomposes (removes and mounts) all its key widgets
after every change of the screen's bindings, and one key press publishes several such changes
(the focus leaves a widget, reaches the next, the screen's active bindings update...).
:class:`KeysFooter` looks at the keys once the messages of that key press are handled (in the
same repaint), does nothing when the keys, their labels and whether they are enabled are what
it already shows, and otherwise updates its key widgets in place: a key whose label changed is
redrawn, only the difference in number is mounted or removed. A dialog that turns every key
off hides them instead (they draw blank, and show again when it closes). What the footer shows is what Textual's Footer shows for the same keys,
except when they do not fit its width (80 columns on a panel with many keys): then the keys
named in :attr:`KeysFooter.LEAVE_OUT` are left out first (they stay bound, and the help and
the command palette list them), the help key says "More", and, if that is still too wide,
keys are left out from the end; a key is never drawn cut.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

KeyShown = tuple[str, str, str, str, bool, str]
"""One key as shown: key, key display, description, action, enabled, tooltip."""


class KeyWidget(FooterKey):
    """A footer key (Textual's :class:`FooterKey`, same look) whose change of width does not lay
    the screen out a second time. After each layout Textual sets every resized widget's
    ``virtual_size``, a reactive that asks for another layout of the whole screen; a key is
    not scrollable and its virtual size is its size, so that second layout changes nothing.
    A tab switch relabels some of the footer's keys: it cost a second reflow of every widget
    on the screen and a second paint."""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)


class KeysFooter(Footer):
    """A :class:`~textual.widgets.Footer` whose keys update in place, once per key press and only
    when they changed (module docstring). Same arguments and look as Textual's Footer.

    Attributes:
        updates: how many times the keys were changed (for tests; a key press that changes
            nothing does not count).
    """

    LEAVE_OUT: tuple[str, ...] = ("console", "quit", "save")
    """Binding ids of the keys left out first when the keys do not fit, in this order (the
    console has its panel 9; q and ctrl+s work everywhere and the help lists them)."""
    MORE: tuple[str, str] = ("help", "More")
    """The binding id of the key whose label becomes the second item when keys are left out
    (the help screen lists every key)."""

    _update_pending = False
    covered = False
    """A dialog turns every key off: the key widgets are hidden (the palette key stays)."""
    _shown: tuple | None = None
    updates = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._spare: set[FooterKey] = set()  # key widgets hidden because the keys shown are fewer

    def bindings_changed(self, screen: Screen) -> None:
        """The screen's bindings changed: look at the keys once the messages queued now are
        handled (once), so that they change in the same repaint as what changed them."""
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._update_pending:
            self._update_pending = True
            self.call_later(self._update_keys)

    def _keys_shown(self) -> tuple:
        """Everything :meth:`Footer.compose` reads to build the keys (so equal values build the
        same footer): the shown bindings (one per action, as the Footer shows them), whether
        any binding has a group, the command palette's key, and the footer's own switches."""
        app = self.app
        active = self.screen.active_bindings
        keys: dict[str, KeyShown] = {}
        ids: dict[str, str | None] = {}
        grouped = False
        for _node, binding, enabled, tooltip in active.values():
            if not binding.show or binding.action in keys:
                continue
            grouped = grouped or binding.group is not None
            ids[binding.action] = binding.id
            keys[binding.action] = (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                enabled,
                tooltip,
            )
        palette = active.get(app.COMMAND_PALETTE_BINDING) if app.ENABLE_COMMAND_PALETTE else None
        palette_key = None
        if palette is not None:
            _node, binding, enabled, tooltip = palette
            palette_key = (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                enabled,
                binding.tooltip,
                binding.action,
            )
        shown = list(keys.values())
        if not grouped:
            room = (self.size.width or app.size.width) - self._palette_width(palette_key)
            shown = self._fit(shown, [ids[k[3]] for k in shown], room)
        return (
            tuple(shown),
            grouped,
            palette_key,
            self.show_command_palette,
            self.combine_groups,
            self.compact,
        )

    def _key_width(self, key: KeyShown) -> int:
        """Columns one key takes in this footer (its key, label, padding and margin)."""
        _key, display, description, *_rest = key
        if self.compact:  # key, space, label, margin
            return cell_len(display) + (1 + cell_len(description) if description else 0) + 1
        return cell_len(display) + 2 + (cell_len(description) + 1 if description else 0)

    def _palette_width(self, palette_key: tuple | None) -> int:
        """Columns the command palette's key takes at the right (0 when it is not shown)."""
        if palette_key is None or not self.show_command_palette:
            return 0
        _key, display, description, *_rest = palette_key
        return 1 + cell_len(display) + 2 + cell_len(description) + (0 if self.compact else 2)

    def _fit(self, keys: list[KeyShown], ids: list[str | None], room: int) -> list[KeyShown]:
        """``keys`` (bound under ``ids``) as they fit in ``room`` columns (module docstring):
        all of them when they fit; else without the :attr:`LEAVE_OUT` keys, one at a time, the
        help key relabelled :attr:`MORE`; then without keys from the end."""
        if room <= 0 or sum(map(self._key_width, keys)) <= room:
            return keys
        more_id, more = self.MORE
        kept = [(i, k if i != more_id else (*k[:2], more, *k[3:])) for i, k in zip(ids, keys, strict=True)]

        def width() -> int:
            return sum(self._key_width(k) for _i, k in kept)

        for leave in self.LEAVE_OUT:
            if width() <= room:
                break
            kept = [(i, k) for i, k in kept if i != leave]
        while kept and width() > room:  # still too wide: the last keys go (the help key last of all)
            del kept[max(j for j, (i, _k) in enumerate(kept) if i != more_id or len(kept) == 1)]
        return [k for _i, k in kept]

    def compose(self) -> ComposeResult:
        """The keys as :meth:`_keys_shown` fits them (Textual's Footer, when bindings are grouped)."""
        if not self._bindings_ready:
            return
        self._shown = shown = self._keys_shown()
        keys, grouped, palette_key, show_palette = shown[:4]
        if grouped:
            yield from super().compose()
            return
        for shown_key in keys:
            yield self._key_widget(shown_key)
        if show_palette and palette_key is not None:
            key, display, description, enabled, tooltip, action = palette_key
            yield KeyWidget(
                key,
                display,
                description,
                action,
                classes="-command-palette",
                disabled=not enabled,
                tooltip=tooltip or description,
            )

    def _key_widget(self, shown: KeyShown) -> FooterKey:
        """A key widget showing ``shown``, bound to the footer's ``compact`` as Footer's keys
        are. It is made with the ``-compact`` class the binding gives it (when the footer is
        compact), so that the binding's first value restyles nothing: restyling each key as it
        mounts was ~7 ms of an app start."""
        key, display, description, action, enabled, tooltip = shown
        widget = CoverableKey(
            key,
            display,
            description,
            action,
            classes="-compact" if self.compact else "",
            disabled=not enabled,
            tooltip=tooltip,
        )
        return widget.data_bind(compact=Footer.compact)

    def watch_show_command_palette(self) -> None:
        self.bindings_changed(self.screen)

    def on_resize(self, event: events.Resize) -> None:
        """A new width may fit more or fewer keys."""
        self.bindings_changed(self.screen)

    async def _update_keys(self) -> None:
        self._update_pending = False
        if not self.is_attached:
            return
        shown = self._keys_shown()
        old = self._shown
        # A screen above this one (a dialog) turns every key off: they are hidden, not removed,
        # and show again as they were when the dialog closes (no widget mounted twice per dialog).
        covered = old is not None and not shown[0] and shown[1:] == old[1:] and self.app.screen is not self.screen
        if covered or self.covered:
            self._hide_keys(covered)
            if covered:
                return
        self._shown = shown
        if shown == old:
            return
        self.updates += 1
        keys, grouped = shown[0], shown[1]
        if old is None or grouped or old[1] or shown[2:] != old[2:]:
            self._spare.clear()
            await self.recompose()  # first build, binding groups, or the palette key changed: as Footer does
            return
        await self._patch(list(keys))

    def _hide_keys(self, covered: bool) -> None:
        """Hide the key widgets (not the palette key), or show them again. A key of this footer
        (:class:`CoverableKey`) draws blank while covered and the footer repaints: nothing is
        laid out and no key is drawn again (its drawn line is kept), where a change of each key's
        ``display`` laid the screen out and drew every key again when the dialog closed (~10 ms
        CPU of a month close at month 40). Keys of Textual's own (binding groups) change their
        ``display``."""
        if covered == self.covered:
            return
        self.covered = covered
        for key in self.query_children(FooterKey):
            if not isinstance(key, CoverableKey) and not key.has_class("-command-palette") and key not in self._spare:
                key.display = not covered
        self.refresh()

    async def _patch(self, keys: list[KeyShown]) -> None:
        """Show ``keys`` by updating the footer's key widgets in place (the palette key stays).
        Key widgets beyond ``keys`` are hidden, not removed, and shown again when a panel with
        more keys is shown: removing and mounting took a second layout after a tab switch."""
        widgets = [w for w in self.query_children(FooterKey) if not w.has_class("-command-palette")]
        for i, widget in enumerate(widgets):
            spare = i >= len(keys)
            if not spare:
                _set_key(widget, keys[i])
            if spare == (widget in self._spare):
                continue
            if spare:
                self._spare.add(widget)
            else:
                self._spare.discard(widget)
            widget.display = not spare
        if len(keys) > len(widgets):
            palette = self.query_children(".-command-palette")
            new = [self._key_widget(k) for k in keys[len(widgets) :]]
            await self.mount_all(new, before=palette.first() if palette else None)


class CoverableKey(KeyWidget):
    """A key of :class:`KeysFooter` that draws as the footer's bare background while the footer
    is covered (:attr:`KeysFooter.covered`), without dropping the line it draws otherwise."""

    def render_lines(self, crop: Region) -> list[Strip]:
        footer = self.parent
        if isinstance(footer, KeysFooter) and footer.covered:
            return [Strip.blank(crop.width, footer.rich_style)] * crop.height
        return super().render_lines(crop)


def _set_key(widget: FooterKey, shown: KeyShown) -> None:
    """Make ``widget`` show ``shown`` (redrawn only if something changed)."""
    key, display, description, action, enabled, tooltip = shown
    if (widget.key, widget.key_display, widget.description, widget.action, not widget._disabled) == shown[:5]:
        if widget.tooltip == (tooltip or None):
            return
    resized = (widget.key_display, widget.description) != (display, description)
    widget.key, widget.key_display, widget.description, widget.action = key, display, description, action
    widget._disabled = not enabled
    widget.set_class(not enabled, "-disabled")
    widget.tooltip = tooltip or None
    widget.refresh(layout=resized)
