"""The key footer, rebuilt only when the keys it shows change.

Textual's :class:`~textual.widgets.Footer` rebuilds all its key widgets after every change of
the screen's bindings, and one key press publishes several such changes (the focus leaves a
widget, reaches the next, the screen's active bindings update...): a tab used to rebuild the
footer seven or eight times, about half of the key's CPU. :class:`KeysFooter` rebuilds it at
most once per screen refresh, and not at all when the keys, their labels and whether they are
enabled are what it already shows. What the footer shows is unchanged.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeysFooter(Footer):
    """A :class:`~textual.widgets.Footer` that rebuilds its keys once per refresh, only when
    they changed (module docstring). Same arguments and look as Textual's Footer."""

    _rebuild_pending = False
    _shown: tuple | None = None

    def bindings_changed(self, screen: Screen) -> None:
        """The screen's bindings changed: rebuild the keys after the next refresh (once)."""
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._rebuild_pending:
            self._rebuild_pending = True
            self.call_after_refresh(self._rebuild)

    def _keys_shown(self) -> tuple:
        """Everything :meth:`Footer.compose` reads to build the keys (so equal values build the
        same footer): each shown binding with its display, label, group, enabled state and
        tooltip, the command palette's binding, and the footer's own switches."""
        app = self.app
        active = self.screen.active_bindings
        keys = tuple(
            (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                binding.group,
                binding.tooltip,
                enabled,
                tooltip,
            )
            for (_node, binding, enabled, tooltip) in active.values()
            if binding.show
        )
        palette = active.get(app.COMMAND_PALETTE_BINDING) if app.ENABLE_COMMAND_PALETTE else None
        palette_key = None
        if palette is not None:
            _node, binding, enabled, tooltip = palette
            palette_key = (binding.key, app.get_key_display(binding), binding.description, enabled, binding.tooltip)
        return (keys, palette_key, self.show_command_palette, self.combine_groups, self.compact)

    async def _rebuild(self) -> None:
        self._rebuild_pending = False
        if not self.is_attached:
            return
        shown = self._keys_shown()
        if shown == self._shown:
            return
        self._shown = shown
        await self.recompose()
