"""Verification of a loaded save: its state rebuilds the world exactly, and its action log
replays to its recorded digest (MECHANICS: determinism)."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from saves.errors import (
    SaveCorruptError,
)

if TYPE_CHECKING:  # pragma: no cover
    from world.engine import World


def rebuilds_state(world: World, state: dict[str, Any]) -> bool:
    """Whether ``world.state_view()`` is exactly ``state`` (a parsed save's state).

    Exactly: the same keys in the same order, and values of the same types, values and
    order (``world.textcache.fingerprint``; ``==`` would take ``1`` for ``1.0``). Parts the
    world took over from ``state`` unchanged (the same objects, or lists of the same objects:
    its entities) are equal without a look.
    ``state`` holds plain JSON data only, so equal fingerprints are a proof (see
    :mod:`world.textcache`). Costs about a tenth of a digest.
    """
    from world.textcache import fingerprint

    def same(a: Any, b: Any) -> bool:
        if a is b:
            return True
        if type(a) is list and type(b) is list and len(a) == len(b) and all(map(operator.is_, a, b)):
            return True  # a list of the very objects taken over (a world's entities)
        try:
            return fingerprint(a) == fingerprint(b)
        except ValueError:  # not plain data: not what a save holds
            return False

    view = world.state_view()
    if not isinstance(state, dict) or list(view) != list(state):
        return False
    for key, value in view.items():
        saved = state[key]
        if key == "state" and isinstance(saved, dict) and isinstance(value, dict):
            if list(value) != list(saved) or not all(same(value[k], saved[k]) for k in value):
                return False
        elif not same(value, saved):
            return False
    return True


TAMPERED = "tampered: the world does not follow from its own action log"
"""How a save whose state was edited is refused (see :func:`verify_replay`)."""


def is_world_state(state: Any) -> bool:
    """Whether ``state`` claims to be a ``World.to_state()`` (rather than, say, a test's fake)."""
    from world.engine import STATE_FORMAT

    return isinstance(state, dict) and state.get("format") == STATE_FORMAT


def verify_replay(world: World, name: str, path: str, digest: str | None = None) -> None:
    """Prove that ``world`` follows from its own seed, config and action log.

    ``world.api.replay(config, seed, action_log)`` is run and the agent's memory notes
    (which the action log does not carry) are copied into the replayed world; its digest
    must equal ``world.digest()``. This is what makes a hand-edited save (a changed budget
    with the checksum recomputed and the digest blanked) fail: the checksum is a plain
    SHA-256 that detects damage, not tampering. It costs one replay (for a busy 60-month
    career about 110 M instructions, a third of the first release's; ``bench/saves.py``).

    The two worlds are first compared by :func:`same_world` (their digested data identical
    in types, values and order proves the digests equal, at about a third of the cost of
    encoding it); only when that fails are the digests compared (a world rebuilt from an
    older save may hold dicts in another order, which the digest's sorted keys ignore).

    ``digest`` is ``world.digest()`` when the caller has it already (saves computing it twice).

    What it cannot catch: an edit of the config or seed themselves gives a different but
    self-consistent world (``saves show`` prints both).

    Raises:
        SaveCorruptError: ``kind="tampered"`` when the replay raises or differs.
    """
    problem = ""
    try:
        twin = _replayed(world)
        if not same_world(twin, world) and twin.digest() != (digest or world.digest()):
            problem = f"replaying its {len(world.s.action_log)} logged calls gives another world"
    except Exception as exc:  # a forged log may be refused anywhere in the rules
        problem = f"replaying its action log fails ({type(exc).__name__}: {exc})"
    if problem:
        raise SaveCorruptError("tampered", path, f"save {name!r} is refused as {TAMPERED} ({problem})")


def replays_to(world: World, digest: str) -> bool:
    """Whether replaying ``world``'s action log from its seed and config (its agent's notes
    copied, as :func:`verify_replay` does) gives a world of digest ``digest``.

    Tells an edited save from one of other rules when a rebuilt world's digest differs from
    the one recorded: the rules of this pibench reproduce the recorded world from the log
    only if the state was changed after the save was written. ``False`` when the replay
    raises or ends elsewhere (then nothing is proven either way). Costs one replay; called
    only on that refusal path.
    """
    try:
        return _replayed(world).digest() == digest
    except Exception:  # noqa: BLE001 - a forged log may be refused anywhere in the rules
        return False


def _replayed(world: World) -> World:
    """``world.api.replay`` of ``world``'s action log from its config and seed, with its agent's
    notes copied (the action log does not carry them): the world the save should be.

    Raises:
        Exception: whatever the rules raise on a forged log.
    """
    from world.api import replay

    # world.cfg was built by WorldConfig.from_dict from the save (frozen; the world never
    # changes it): the twin shares it instead of a from_dict(to_dict()) copy (exact)
    twin = replay(world.cfg, world.seed, world.s.action_log)
    twin.s.memory = world.s.memory
    return twin


def same_world(a: World, b: World) -> bool:
    """Whether the data :meth:`World.digest` hashes is exactly the same in ``a`` and ``b``
    (``world.textcache.fingerprint`` of both ``state_view(report=False)``: the same types,
    values and order), so that their digests are equal, without encoding either as JSON.

    Sound when one side holds plain data only (a world rebuilt from a parsed save): equal
    fingerprints are then a proof (see :mod:`world.textcache`). ``False`` says nothing:
    equal data in another dict order, or values ``marshal`` refuses, still have equal
    digests; compare those.
    """
    from world.textcache import fingerprint

    try:
        return fingerprint(a.state_view(report=False)) == fingerprint(b.state_view(report=False))
    except ValueError:  # not plain data (a float subclass, ...): let the digests decide
        return False
