"""The save writer of one live career (``world.career.SaveWriter``): a store, and what it
keeps of the career's world between two saves.

``world`` imports nothing of ``saves``, so a :class:`world.career.Career` is handed its
writer by the front end that opens the career (``Career(world, saves=CareerSaves(store))``).
"""

from __future__ import annotations

from typing import Any

from saves.deltas import SaveCaches
from saves.records import SaveInfo
from saves.store import SaveStore

__all__ = ["CareerSaves"]


class CareerSaves:
    """Writes the saves of one career's world to ``store``, keeping the store's caches of that
    world (:class:`~saves.store.SaveCaches`: the encoded text, the last whole autosave the next
    deltas build on) for as long as the career lives.

    Args:
        store: the :class:`~saves.SaveStore` written to.

    Attributes:
        store: that store.
        caches: what it keeps of the career's world between saves.
    """

    def __init__(self, store: SaveStore) -> None:
        self.store = store
        self.caches = SaveCaches()

    def save(self, name: str, world: Any, **options: Any) -> SaveInfo:
        """:meth:`SaveStore.save` of ``world`` under ``name`` with this career's caches
        (``options``: ``scenario``, ``career``, ``kind``, ``overwrite``, ``ui``).

        Raises:
            SaveError: as :meth:`SaveStore.save`.
        """
        return self.store.save(name, world, caches=self.caches, **options)

    def autosave(self, career: str, world: Any, **options: Any) -> SaveInfo:
        """:meth:`SaveStore.autosave` of ``world`` for ``career`` with this career's caches
        (``options``: ``scenario``, ``keep``, ``ui``): a delta between two whole ones.

        Raises:
            SaveError: as :meth:`SaveStore.autosave`.
        """
        return self.store.autosave(career, world, caches=self.caches, **options)
