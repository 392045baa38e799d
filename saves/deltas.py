"""Delta autosaves and the description of a world to save: between two whole autosaves of a
live world an autosave holds only the calls logged since the last whole one."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from saves import values

if TYPE_CHECKING:  # pragma: no cover
    from world.engine import World
    from world.textcache import TextCache


DELTA_FORMAT = "pibench-delta"
"""``format`` of an autosave delta's state (see :func:`is_delta`)."""

DELTA_MONTHS = 12
"""An autosave is written whole when its career's last whole autosave is this many months
old (or older): once a simulated year; the months in between write deltas (a load replays
at most this many months less one). A whole autosave costs about a save, and after a year
of changes nearly a one-shot encoding of the state; a delta about a tenth of it."""

DELTA_CALLS = 150
"""... or when that many logged calls (or more) were made since it (bounds a load's replay
for agents that act a lot)."""


def is_delta(state: Any) -> bool:
    """Whether a save file's ``state`` is an autosave delta rather than a world state.

    A delta is what an autosave writes in the months between two whole autosaves of the
    same live world: ``{"format": DELTA_FORMAT, "base": {"file", "checksum", "month",
    "actions"}, "log": [the action log's entries since the base], "memory": the agent's
    notes, "check": a checksum of the world's scalars, sizes and RNG streams}``. The store
    rebuilds it when it is read (:meth:`SaveStore._rebuild_delta`): the base (a sealed whole
    save of the same store, kept while a delta needs it), then the logged calls replayed,
    then the check. It is only ever read inside its store (``saves export`` writes the
    rebuilt world whole) and only with the store's seal.
    """
    return isinstance(state, dict) and state.get("format") == DELTA_FORMAT


def delta_check(world: World) -> str:
    """What an autosave delta records of its world so that a rebuild that went another way
    is refused (``"sha256:<hex>"``): every scalar of the state (budget, reputation, month,
    counters of the state ...), the length of every list and dict in it (logs, people,
    projects ...) and the states of the persistent RNG streams. A few microseconds; the
    digest (which covers everything) costs a whole encoding of the state."""
    sizes: dict[str, Any] = {}
    for name, value in world.s.__dict__.items():
        if name == "memory" or name.startswith("_"):
            continue
        t = type(value)
        sizes[name] = len(value) if t is list or t is dict else value
    sizes["counters"] = world.s.counters
    text = json.dumps([world.month, world.rng.to_state(), sizes], sort_keys=True, default=repr)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class DeltaBase:
    """The last whole autosave a store wrote of a live world (what its deltas build on)."""

    store: str
    career: str
    file: str
    checksum: str
    month: int
    actions: int
    last: Any  # the action log's last entry then (the very object), or None


@dataclass
class SaveCaches:
    """What a store keeps of one live world between its saves, held by that world's career
    (:class:`saves.CareerSaves`, the Career's save writer) rather than by the store: the
    save text's cache (:func:`saves.values.text_cache`), the metadata's (a cache keeps only
    the pieces of the value it encoded last, so the metadata has its own), and the last whole
    autosave the next autosave deltas build on (:func:`is_delta`). A save made without one
    encodes the whole state and writes no delta."""

    text: TextCache = field(default_factory=values.text_cache)
    meta: TextCache = field(default_factory=values.text_cache)
    base: DeltaBase | None = None


def caches_of(world: Any, caches: SaveCaches | None) -> SaveCaches | None:
    """``caches`` when ``world`` is a live world (what the caches can take); ``None`` for
    anything else (tests' fakes) or when the caller keeps none."""
    return caches if caches is not None and hasattr(world, "state_view") else None


def describe_fast(
    world: Any, scenario: Any, cache: TextCache | None
) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """:func:`describe_world` (live) of a world about to be saved, and the state's save text
    when the world's save-text cache made it in the same pass as the digest
    (``World.digest_and_state_text``); ``None`` then means: encode the state apart."""
    method = getattr(world, "digest_and_state_text", None)
    if cache is None or method is None:
        meta, state = describe_world(world, scenario, live=True)
        return meta, state, None
    view = world.state_view()
    pair = method(cache, view)
    if pair is None or values.TAG in pair[1]:  # a tagged value: the careful encoder decides
        meta, state = describe_world(world, scenario, live=True, state=view)
        return meta, state, None
    meta, state = describe_world(world, scenario, live=True, digest=pair[0], state=view)
    return meta, state, pair[1]


def _scenario_names(scenario: Any) -> tuple[str, str]:
    """``(name, description)`` of a ``Scenario``, a scenario name or ``None`` (``"custom"``)."""
    if scenario is None:
        return "custom", ""
    if isinstance(scenario, str):
        return scenario, ""
    return scenario.name, getattr(scenario, "description", "")


def _sealed_of(scenario: Any) -> dict[str, str]:
    """``{"seed_commitment": ...}`` for a sealed career's scenario (a front end that opens the
    save withholds the seed), else ``{}``."""
    commitment = getattr(scenario, "seed_commitment", None)
    return {"seed_commitment": commitment} if isinstance(commitment, str) and commitment else {}


def describe_delta(world: World, scenario: Any, base: DeltaBase) -> tuple[dict[str, Any], tuple[bool, str]]:
    """The metadata and the encoded state of an autosave delta of ``world`` over ``base``
    (:func:`is_delta`). The metadata is :func:`describe_world`'s with an empty digest (it is
    computed when the delta is loaded) and the base's file under ``"base"``."""
    scen_name, description = _scenario_names(scenario)
    meta = {
        # The configuration is the base's (the world's never changes): not written again.
        "scenario": {"name": scen_name, "description": description, **_sealed_of(scenario)},
        "seed": int(world.seed),
        "month": int(world.month),
        "months": int(world.cfg.months),
        "finished": bool(world.finished),
        "collapsed": bool(world.collapsed),
        "digest": "",
        "base": base.file,
    }
    log = world.s.action_log
    delta = {
        "format": DELTA_FORMAT,
        "base": {"file": base.file, "checksum": base.checksum, "month": base.month, "actions": base.actions},
        "log": log[base.actions :],
        "memory": world.s.memory,
        "check": delta_check(world),
    }
    return meta, values.encode_text(delta)


def describe_world(
    world: Any,
    scenario: Any = None,
    *,
    live: bool = False,
    digest: str | None = None,
    state: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Extract ``(meta, state)`` from a live world for saving.

    Args:
        world: a ``world.engine.World`` (anything with ``to_state``, ``digest``, ``month``,
            ``finished``, ``collapsed``, ``cfg`` or ``config``, and ``seed``).
        scenario: a ``scenarios.Scenario``, a scenario name, or ``None`` (then ``"custom"``).
        live: return the world's live state (``World.state_view()``, no copy) instead of a
            copy, for a caller that serialises it at once and keeps nothing (the store's
            own save paths); the world must not change in between.
        digest: ``world.digest()`` when the caller has it already.
        state: ``world.state_view()`` when the caller has just made it (with ``live``).

    Returns:
        The save's metadata (scenario, seed, month, status, digest) and the world state.
    """
    view = getattr(world, "state_view", None) if live else None
    if state is None:
        state = view() if view is not None else world.to_state()
    config: Any = getattr(world, "config", None) or getattr(world, "cfg", None) or getattr(scenario, "config", None)
    if view is not None and config is getattr(world, "cfg", None) and isinstance(state.get("config"), dict):
        config_dict = state["config"]  # the live view's own copy-free config, serialised at once
    else:
        config_dict = config.to_dict() if hasattr(config, "to_dict") else dict(config or {})
    from world.config import config_hash

    scen_name, description = _scenario_names(scenario)
    seed: Any = getattr(world, "seed", None)
    if seed is None:
        seed = getattr(scenario, "seed", 0)
    meta = {
        "scenario": {
            "name": scen_name,
            "description": description,
            "config": config_dict,
            "config_hash": config_hash(config_dict),  # the scenario as its content (issue 25 §1)
            **_sealed_of(scenario),
        },
        "seed": int(seed),
        "month": int(world.month),
        "months": config_dict.get("months"),
        "finished": bool(world.finished),
        "collapsed": bool(getattr(world, "collapsed", False)),
        "digest": str(digest if digest is not None else world.digest()),
    }
    return meta, state
