"""The key footer, updated in place, only when the keys it shows change.

Textual's :class:`~textual.widgets.Footer` recomposes (removes and mounts) all its key widgets
after every change of the screen's bindings, and one key press publishes several such changes
(the focus leaves a widget, reaches the next, the screen's active bindings update...).
:class:`KeysFooter` looks at the keys once per refresh, does nothing when the keys, their
labels and whether they are enabled are what it already shows, and otherwise updates its
key widgets in place: a key whose label changed is redrawn, only the difference in number is
mounted or removed. What the footer shows is what Textual's Footer shows for the same keys.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

KeyShown = tuple[str, str, str, str, bool, str]
"""One key as shown: key, key display, description, action, enabled, tooltip."""


class KeysFooter(Footer):
    """A :class:`~textual.widgets.Footer` whose keys update in place, once per refresh and only
    when they changed (module docstring). Same arguments and look as Textual's Footer.

    Attributes:
        updates: how many times the keys were changed (for tests; a key press that changes
            nothing does not count).
    """

    _update_pending = False
    _shown: tuple | None = None
    updates = 0

    def bindings_changed(self, screen: Screen) -> None:
        """The screen's bindings changed: look at the keys after the next refresh (once)."""
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._update_pending:
            self._update_pending = True
            self.call_after_refresh(self._update_keys)

    def _keys_shown(self) -> tuple:
        """Everything :meth:`Footer.compose` reads to build the keys (so equal values build the
        same footer): the shown bindings (one per action, as the Footer shows them), whether
        any binding has a group, the command palette's key, and the footer's own switches."""
        app = self.app
        active = self.screen.active_bindings
        keys: dict[str, KeyShown] = {}
        grouped = False
        for _node, binding, enabled, tooltip in active.values():
            if not binding.show or binding.action in keys:
                continue
            grouped = grouped or binding.group is not None
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
            palette_key = (binding.key, app.get_key_display(binding), binding.description, enabled, binding.tooltip)
        return (
            tuple(keys.values()),
            grouped,
            palette_key,
            self.show_command_palette,
            self.combine_groups,
            self.compact,
        )

    def watch_show_command_palette(self) -> None:
        self.bindings_changed(self.screen)

    async def _update_keys(self) -> None:
        self._update_pending = False
        if not self.is_attached:
            return
        shown = self._keys_shown()
        old, self._shown = self._shown, shown
        if shown == old:
            return
        self.updates += 1
        keys, grouped = shown[0], shown[1]
        if old is None or grouped or old[1] or shown[2:] != old[2:]:
            await self.recompose()  # first build, binding groups, or the palette key changed: as Footer does
            return
        await self._patch(list(keys))

    async def _patch(self, keys: list[KeyShown]) -> None:
        """Show ``keys`` by updating the footer's key widgets in place (the palette key stays)."""
        widgets = [w for w in self.query_children(FooterKey) if not w.has_class("-command-palette")]
        for widget, shown in zip(widgets, keys, strict=False):
            _set_key(widget, shown)
        if len(widgets) > len(keys):
            await self.remove_children(widgets[len(keys) :])
        elif len(keys) > len(widgets):
            palette = self.query_children(".-command-palette")
            new = [
                FooterKey(key, display, description, action, disabled=not enabled, tooltip=tooltip).data_bind(
                    compact=Footer.compact
                )
                for key, display, description, action, enabled, tooltip in keys[len(widgets) :]
            ]
            await self.mount_all(new, before=palette.first() if palette else None)


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
