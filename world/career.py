"""One career as every front end holds it: the world, its API, the observable mirror, the
world's digest cache and (optionally) its save writer.

The TUI's ``Game``, headless mode's ``HeadlessSession``, the harness's ``LabCore`` (``pibench
agent``, the Gymnasium environment), the replayer, the runner and the sweeps each hold one
:class:`Career` instead of pairing a ``World`` and an ``Api`` their own way, and a world's
companions live on it rather than in module-level weak dictionaries keyed by the world:

* :attr:`Career.api` -- the agent API over the world (``world.api.Api``);
* :attr:`Career.observer` -- the read-only SQLite mirror of what the PI may see
  (``world.observe.Observer``), built at the first query, closed by :meth:`Career.close`;
* :meth:`Career.digest` -- the world's digest, re-encoding only what changed since the last
  one (a :class:`~world.textcache.TextCache` held here);
* :attr:`Career.saves` -- the save writer, which keeps its own caches between the saves of
  this world (the save-text caches, the whole autosave that deltas build on). ``world``
  imports nothing of ``saves``, so it is a small protocol (:class:`SaveWriter`) that the
  ``saves`` package implements (``saves.CareerSaves``) and the front ends inject.

Build a Career with :meth:`Career.new` (a fresh world of a config and seed),
:meth:`Career.restore` (a ``World.to_state()`` dict) or ``Career(world)`` around a world
already built (a save just loaded, a replay). Pivot cases fork Careers:
:meth:`Career.fork` builds a Career around ``World.fork(branch)`` (MECHANICS Decisions 12)
with fresh companions (the fork's mirror and digest cache are its own; it is not saved).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Protocol

from .config import WorldConfig
from .engine import World
from .textcache import TextCache

if TYPE_CHECKING:  # pragma: no cover
    from .api import Api
    from .api.cached import CachedApi
    from .observe import Observer

__all__ = ["Career", "SaveWriter"]


class SaveWriter(Protocol):
    """What a :class:`Career` needs of its save writer (``saves.CareerSaves`` implements it).

    A writer belongs to one career: it may keep, between two saves of that world, whatever
    makes the next one cheaper (encoded text, the last whole autosave a delta builds on).
    """

    def save(self, name: str, world: World, **options: Any) -> Any:
        """Save ``world`` under ``name``; return the store's index entry."""
        ...  # pragma: no cover

    def autosave(self, career: str, world: World, **options: Any) -> Any:
        """Write the autosave of ``career`` for the world's current month; return its index entry."""
        ...  # pragma: no cover


class Career:
    """One career: a world and everything kept for it (see the module docstring).

    Args:
        world: the world (new, restored or loaded).
        cached: wrap the API in a :class:`~world.api.cached.CachedApi` (reads kept between
            changes and handed out uncopied: only for a caller that never alters what it
            reads, and whose arguments are few: the reference policies).
        saves: the save writer (``None``: this career is not saved).

    Attributes:
        world: the :class:`~world.engine.World`.
        api: its :class:`~world.api.Api`, or the :class:`~world.api.cached.CachedApi` around
            it (every call a front end or agent makes goes here).
        saves: the :class:`SaveWriter`, or ``None``.
    """

    def __init__(
        self,
        world: World,
        *,
        cached: bool = False,
        saves: SaveWriter | None = None,
    ) -> None:
        from .api import Api
        from .api.cached import CachedApi

        self.world = world
        self.api: Api | CachedApi = CachedApi(Api(world)) if cached else Api(world)
        self.saves = saves
        self._digest_text: TextCache | None = None

    @classmethod
    def new(
        cls,
        config: WorldConfig | None = None,
        seed: int = 0,
        *,
        cached: bool = False,
        saves: SaveWriter | None = None,
    ) -> Career:
        """A fresh career: ``World(config, seed)`` (MECHANICS §1) and its companions.

        Raises:
            ValueError: the config is invalid (``WorldConfig.validate``).
        """
        return cls(World(config, seed), cached=cached, saves=saves)

    @classmethod
    def restore(
        cls,
        state: dict[str, Any],
        *,
        copy: bool = True,
        cached: bool = False,
        saves: SaveWriter | None = None,
    ) -> Career:
        """A career continued from ``World.to_state()`` output (see :meth:`World.from_state`
        for ``copy``); it plays on exactly as the original.

        Raises:
            ValueError: not a world state of a known format.
        """
        return cls(World.from_state(state, copy=copy), cached=cached, saves=saves)

    def fork(self, branch: int, *, cached: bool = False) -> Career:
        """A future of this career: the world at the start of its current month in branch
        ``branch`` (:meth:`World.fork <world.engine.World.fork>`), with companions of its own
        and no save writer.

        Raises:
            ValueError: ``branch`` < 1, or the PI already acted this month.
            SimulationOver: the career has ended.
        """
        return Career(self.world.fork(branch), cached=cached)

    # ------------------------------------------------------------------ companions
    @property
    def observer(self) -> Observer:
        """The observable mirror (MECHANICS §14) that ``api.query`` reads; built at first use."""
        return self.api.observer

    def digest(self) -> str:
        """:meth:`World.digest` of this career's world, from the second call on re-encoding
        only the parts of the state that changed since the last call (a
        :class:`~world.textcache.TextCache` kept here); byte for byte the one-shot digest."""
        cache = self._digest_text
        if cache is None:
            self._digest_text = TextCache(sort_keys=True, allow_nan=True)
            return self.world.digest()
        view = self.world.state_view(report=False)
        blob = cache.dumps(view)
        if blob is None:  # the cache cannot take the state as it is: the one-shot text
            return self.world.digest()
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    # ------------------------------------------------------------------ saves
    def save(self, name: str, **options: Any) -> Any:
        """Save this career under ``name`` through its writer (``options``: the writer's,
        e.g. ``scenario``, ``career``, ``ui``); returns the store's index entry.

        Raises:
            RuntimeError: the career has no save writer.
        """
        return self._writer().save(name, self.world, **options)

    def autosave(self, career: str, **options: Any) -> Any:
        """Write the autosave of ``career`` (the save name's lineage) for this month through
        the writer; returns the store's index entry.

        Raises:
            RuntimeError: the career has no save writer.
        """
        return self._writer().autosave(career, self.world, **options)

    def _writer(self) -> SaveWriter:
        if self.saves is None:
            raise RuntimeError("this career has no save writer (build it with saves=...)")
        return self.saves

    # ------------------------------------------------------------------ the end
    def close(self) -> None:
        """Stop the mirror's query worker, if one was started (the career stays readable)."""
        self.api.close()
