"""The save store: named snapshots of careers, written crash-safely, read back exactly.

Layout of a store folder (see :mod:`saves.paths` for where it is)::

    index.json        tinydb database (AtomicJSONStorage): one document per save
    index.json.bak    the previous good index, used with a warning if index.json is damaged
    .lock             the write lock (saves.lock)
    .careers/<k>.lock the session lock of one career, k = a hash of its name_key (saves.lock.CareerLock)
    blobs/<id>.json   one self-contained save file per save (the same format as an export)

A save file holds everything needed to resume: the format version, the scenario (name,
description, full ``WorldConfig`` dict), the seed, the month, the full world state (RNG
states, action log and the agent's memory notes included), the world digest at save time,
the save's name, career, kind, created/updated times, and a checksum over all of it.

Writes take the store lock, write the new save file under a fresh name, then update the
index, then delete files no index references any more; a crash at any point leaves the
previous save intact and loadable. If both index copies are unusable the index is rebuilt
from the save files themselves (with a warning).

Autosaves: ``autosave(career, world)`` writes ``"<career>@m<MM>"`` (kind ``"autosave"``) and
keeps the last ``keep`` of that career; ``resolve(career)`` / ``load(career)`` return the most
recently written of the save named ``career`` and that career's autosaves, so
``--save NAME`` during play and ``--load NAME`` later resume where the career left off.
Between two whole autosaves of one live world (every :data:`DELTA_MONTHS` months) an
autosave is a delta: the calls logged since the last whole one (:func:`is_delta`).

Saves hold hidden state: only the front ends' own process may open the store; agent code
never receives a path or a handle to it.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import operator
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast, get_args

from tinydb import Query, TinyDB

from saves import seal as seal_mod
from saves import values
from saves.codec import FORMAT_VERSION, SAVE_FORMAT, decode_envelope, encode_envelope
from saves.errors import (
    CareerLockedError,
    SaveCorruptError,
    SaveError,
    SaveExistsError,
    SaveNotFoundError,
)
from saves.lock import DEFAULT_TIMEOUT, CareerLock, FileLock
from saves.paths import default_store_dir, foreign_store_problem
from saves.storage import TMP_SUFFIX, AtomicJSONStorage, atomic_write, remove_stale_temps

if TYPE_CHECKING:  # pragma: no cover
    from world.engine import World
    from world.textcache import TextCache

INDEX_NAME = "index.json"
BLOB_DIR = "blobs"
LOCK_NAME = ".lock"
CAREER_LOCK_DIR = ".careers"
TABLE = "saves"
SaveKind: TypeAlias = Literal["manual", "autosave", "import"]
"""How a save was made: by name, by the autosaver, or imported from a file."""
KINDS: tuple[SaveKind, ...] = get_args(SaveKind)
"""Every :data:`SaveKind`, in that order (``("manual", "autosave", "import")``)."""
CareerStatus: TypeAlias = Literal["collapsed", "finished", "in progress"]
"""Where the saved career stands (:attr:`SaveInfo.status`)."""
DEFAULT_KEEP = 3
"""Autosaves kept per career."""
MAX_NAME = 120
"""Longest save name, in characters."""

_VERSION: list[str] = []


def pibench_version() -> str:
    """The installed pibench's version (recorded in every save), looked up once, on the first
    save (``importlib.metadata`` costs start-up time that listing saves does not need)."""
    if not _VERSION:
        try:
            from importlib.metadata import version as _pkg_version

            _VERSION.append(_pkg_version("pibench"))
        except Exception:  # pragma: no cover - running from a bare checkout
            _VERSION.append("0+unknown")
    return _VERSION[0]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


RESERVED_CHARS = '@/\\:*?"<>|'
"""Characters a save name may not contain (``@`` is reserved for autosaves, the rest are
path characters)."""

VALID_NAMES = (
    "a save name may use letters, digits, spaces and punctuation other than "
    + " ".join(RESERVED_CHARS)
    + f", at most {MAX_NAME} characters "
    "('@' is reserved for autosaves such as NAME@m07)"
)
"""What :func:`check_name` accepts, for messages."""

_AUTOSAVE_NAME = re.compile(r"^(?P<career>.+)@m(?P<month>\d{2,})(?P<end>-end)?$")


def check_name(name: str, *, autosave_ok: bool = False) -> str:
    """Validate a save name given by the user.

    Args:
        name: any non-empty text without control characters, surrounding blanks or the
            characters of :data:`RESERVED_CHARS`, at most ``MAX_NAME`` characters (unicode
            is welcome).
        autosave_ok: also accept an autosave's name (``CAREER@m07``, ``CAREER@m60-end``),
            e.g. the name inside an exported autosave being imported.

    Returns:
        The name.

    Raises:
        SaveError: the name is unusable; the message says why and what is valid.
    """
    if not isinstance(name, str) or not name:
        raise SaveError(f"a save name must be a non-empty text; {VALID_NAMES}")
    if autosave_ok:
        m = _AUTOSAVE_NAME.match(name)
        if m is not None:
            check_name(m.group("career"))
            return name
    if name != name.strip():
        raise SaveError(f"save name {name!r} must not start or end with blanks; {VALID_NAMES}")
    if len(name) > MAX_NAME:
        raise SaveError(f"save name is {len(name)} characters long; {VALID_NAMES}")
    if any(ord(c) < 32 or 127 <= ord(c) < 160 or 0xD800 <= ord(c) <= 0xDFFF for c in name):
        raise SaveError(f"save name {name!r} contains a control character; {VALID_NAMES}")
    bad = sorted({c for c in name if c in RESERVED_CHARS}, key=RESERVED_CHARS.index)
    if bad:
        raise SaveError(f"save name {name!r} contains {' '.join(repr(c) for c in bad)}; {VALID_NAMES}")
    if set(name) == {"."}:
        raise SaveError(f"save name {name!r} is only dots; {VALID_NAMES}")
    return name


# Letters of other scripts that look like Latin ones (after casefolding): Cyrillic and Greek.
_LOOKALIKES = str.maketrans(
    {
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "ѕ": "s",
        "һ": "h",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "ӏ": "l",
        "ү": "y",
        "ɡ": "g",
        "α": "a",
        "β": "b",
        "ε": "e",
        "ζ": "z",
        "η": "h",
        "ι": "i",
        "κ": "k",
        "μ": "m",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ϲ": "c",
        "ϳ": "j",
    }
)


def name_key(name: str) -> str:
    """The form under which two save names count as the same name.

    NFKC (full-width and other compatibility forms become plain ones), casefold (``CAR1`` =
    ``car1``), invisible format characters (zero-width spaces and joiners) dropped, and
    Cyrillic and Greek letters that look like Latin ones mapped to them (``cаr1`` with a
    Cyrillic ``а`` = ``car1``). Used only to refuse look-alike names; saves keep the name
    exactly as typed.
    """
    import unicodedata

    text = unicodedata.normalize("NFKC", name).casefold()
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFKC", text.translate(_LOOKALIKES))


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def autosave_name(career: str, month: int, finished: bool = False) -> str:
    """The name of a career's autosave at ``month`` (e.g. ``"mylab@m07"``, ``"mylab@m60-end"``)."""
    return f"{career}@m{month:02d}" + ("-end" if finished else "")


@dataclass(frozen=True)
class SaveInfo:
    """What the store knows about one save without opening its file (the index entry).

    Attributes:
        name: the save's name.
        career: the career it belongs to (defaults to the name of its first save).
        kind: ``"manual"``, ``"autosave"`` or ``"import"``.
        scenario: scenario name.
        seed: the world seed.
        month: the month the career was in (1..horizon).
        months: the horizon (months).
        finished: whether the career had ended (horizon or collapse).
        collapsed: whether it ended by collapse.
        created: ISO-8601 UTC time the name was first saved.
        updated: ISO-8601 UTC time of the latest write.
        size: bytes of the save file.
        checksum: ``"sha256:..."`` of the save.
        digest: the world digest at save time.
        file: the save file's name inside ``blobs/``.
        seq: write order within the store (larger = later).
        format_version: the save file's format version.
        verified: the store's mark that this very file passed the replay check on an
            earlier load (:func:`saves.seal.vouch`; ``""`` when none): the next load skips
            the replay. Internal: left out of :meth:`to_dict` and of comparisons.
        sealed: the first 12 hex digits of a sealed career's seed commitment (``""``: a
            public seed); listings show it instead of :attr:`seed`.
    """

    name: str
    career: str
    kind: SaveKind
    scenario: str
    seed: int
    month: int
    months: int | None
    finished: bool
    collapsed: bool
    created: str
    updated: str
    size: int
    checksum: str
    digest: str
    file: str
    seq: int = 0
    format_version: int = FORMAT_VERSION
    verified: str = field(default="", repr=False, compare=False)
    sealed: str = ""

    @property
    def seed_text(self) -> str:
        """The seed as listings show it: the number, or ``sealed:<commitment prefix>`` for a
        sealed career's save (its seed is withheld until unsealed)."""
        return f"sealed:{self.sealed}" if self.sealed else str(self.seed)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of every attribute but the internal :attr:`verified` mark."""
        out = asdict(self)
        del out["verified"]
        if self.sealed:
            out["seed"] = None  # withheld: a sealed career's save
        return out

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> SaveInfo:
        """Build from an index document (unknown keys are ignored)."""
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in doc.items() if k in names})

    @property
    def status(self) -> CareerStatus:
        """``"collapsed"``, ``"finished"`` or ``"in progress"``."""
        return "collapsed" if self.collapsed else "finished" if self.finished else "in progress"


@dataclass
class SaveRecord:
    """A verified save, read back in full.

    Attributes:
        info: the index entry.
        scenario: ``{"name", "description", "config"}`` (config = ``WorldConfig.to_dict()``).
        state: the world state exactly as ``World.to_state()`` returned it.
        meta: every metadata field of the save file.
    """

    info: SaveInfo
    scenario: dict[str, Any]
    state: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    sealed: bool = False
    """The store vouches for this file (:mod:`saves.seal`): it wrote the save itself from a
    live world (the file's seal verifies), or this very file passed the replay check on an
    earlier load (its index entry's mark verifies); :meth:`world` does not replay the
    action log."""
    replayed: bool = field(default=False, init=False, compare=False)
    """:meth:`world` ran the replay check (:func:`verify_replay`) and the world passed it."""
    _state_taken: bool = field(default=False, init=False, repr=False, compare=False)
    _world: World | None = field(default=None, init=False, repr=False, compare=False)
    """The world an autosave delta was rebuilt into when it was read (:func:`is_delta`);
    :attr:`state` is its live state, and the first :meth:`world` returns it."""

    def world(self) -> World:
        """Rebuild the world and prove it is the one that was saved, and that it follows
        from its own action log.

        Two checks, in this order: the rebuilt world's digest equals the digest recorded at
        save time (when one is recorded), and :func:`verify_replay` -- replaying the action
        log from the seed gives the same world (the checksum only catches damage: anyone can
        recompute it after editing a file, but nobody can make an edited state follow from
        the rules). The replay is skipped for a save whose seal the store verified
        (:attr:`sealed`, :mod:`saves.seal`): the store wrote it from a live world itself,
        state and digest together; the first check is then made on the data the digest is
        a hash of: :func:`rebuilds_state` (the rebuilt world is exactly the saved state).

        An autosave delta (:func:`is_delta`) was rebuilt when it was read: its base's seal and
        checksum, the replay of the calls logged since and the check of the result were
        made then (:meth:`SaveStore._rebuild_delta`); the first call returns that world
        (replayed from the seed first when the record is not :attr:`sealed`, as ``saves
        show`` asks).

        Returns:
            ``World.from_state(state)``, whose ``digest()`` equals the digest at save time.
            The first world built takes :attr:`state`'s lists and dicts over instead of
            copying them (the record's state then follows that world's play); a later call
            copies.

        Raises:
            SaveCorruptError: ``kind="corrupt"`` when the state is not a usable world state;
                ``kind="mismatch"`` when the rebuilt world differs from the recorded digest
                (the save comes from an incompatible version of the rules);
                ``kind="tampered"`` when the world does not follow from its own action log,
                or differs from the recorded digest while its log replays to that digest
                (the state was edited, the digest kept: :func:`replays_to`).
        """
        from world.engine import World

        prebuilt = self._world is not None and not self._state_taken
        if prebuilt:
            world = cast("World", self._world)
            self._state_taken = True
            if self.sealed:
                return self._as_listed(world)
        else:
            try:
                world = World.from_state(self.state, copy=self._state_taken)
                self._state_taken = True
            except Exception as exc:  # a hand-made state: refuse, never half-load
                raise SaveCorruptError(
                    "corrupt",
                    self.info.file,
                    f"save {self.info.name!r} does not hold a usable world state ({type(exc).__name__}: {exc})",
                ) from None
        if self.sealed and self.info.digest:
            # The seal proves the store wrote this file, state and digest together, from a
            # live world whose text was proven faithful (saves.values): the rebuilt world
            # must then be exactly the saved state, which is checked directly (every value,
            # its type and order; the digest is a hash of the same data).
            if not rebuilds_state(world, self.state):
                raise SaveCorruptError(
                    "mismatch",
                    self.info.file,
                    f"save {self.info.name!r} does not rebuild the world it recorded (the rebuilt "
                    "state differs from the saved one); it was probably written by an incompatible "
                    "version of pibench's rules",
                )
            return self._as_listed(world)
        if self.sealed and not self.info.digest:  # nothing recorded to compare with
            return self._as_listed(world)
        digest = world.digest() if self.info.digest else None
        if digest is not None and digest != self.info.digest:
            if not self.sealed and replays_to(world, self.info.digest):
                # the rules give the recorded world from the log: the state was edited since
                raise SaveCorruptError(
                    "tampered",
                    self.info.file,
                    f"save {self.info.name!r} is refused as {TAMPERED} (its state was edited after "
                    "it was saved: replaying its action log gives the world its recorded digest "
                    "names, not the one in the file)",
                )
            raise SaveCorruptError(
                "mismatch",
                self.info.file,
                f"save {self.info.name!r} does not rebuild the world it recorded (digest "
                f"{digest[:12]} != {self.info.digest[:12]}); it was probably written by an "
                "incompatible version of pibench's rules",
            )
        if not self.sealed:
            verify_replay(world, self.info.name, self.info.file, digest)
            self._as_listed(world)
            self.replayed = True
        return world

    def _as_listed(self, world: World) -> World:
        """``world``, if it is the seed and month the store's index lists for this save (what
        lists and the load dialog show must be the world that loads: neither a seal nor the
        index's mark covers the index's other fields).

        Raises:
            SaveCorruptError: ``kind="tampered"``: the index's seed or month were edited.
        """
        said = (self.info.seed, self.info.month)
        if said != (world.seed, world.month):
            raise SaveCorruptError(
                "tampered",
                self.info.file,
                f"save {self.info.name!r} says seed {said[0]}, month {said[1]}, but its world is seed "
                f"{world.seed}, month {world.month}: its details were edited",
            )
        return world


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
class _Base:
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
    base: _Base | None = None


def _caches_of(world: Any, caches: SaveCaches | None) -> SaveCaches | None:
    """``caches`` when ``world`` is a live world (what the caches can take); ``None`` for
    anything else (tests' fakes) or when the caller keeps none."""
    return caches if caches is not None and hasattr(world, "state_view") else None


def _describe_fast(
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


def _describe_delta(world: World, scenario: Any, base: _Base) -> tuple[dict[str, Any], tuple[bool, str]]:
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


class SaveStore:
    """A folder of saves (see the module docstring for its layout and guarantees).

    Args:
        path: the store folder; ``None`` = ``$PIBENCH_HOME/saves`` or the user data dir
            (:func:`saves.paths.default_store_dir`). Created on the first write.
        lock_timeout: seconds a write waits for another process's lock (MECHANICS-free;
            a TUI and a headless run may share a store).
        on_warning: called once with each warning's plain text as it happens (default:
            print it on stderr); ``None`` only collects them in :attr:`warnings` (for front
            ends that show them themselves).

    Attributes:
        warnings: messages about recovered damage (backup index used, index rebuilt, bad
            save files skipped, a damaged autosave passed over on load); each appears once.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        lock_timeout: float = DEFAULT_TIMEOUT,
        on_warning: Callable[[str], None] | None = _stderr,
    ) -> None:
        self.path = default_store_dir(path)
        self.index_path = self.path / INDEX_NAME
        self.blob_dir = self.path / BLOB_DIR
        self.lock = FileLock(self.path / LOCK_NAME, timeout=lock_timeout)
        self.warnings: list[str] = []
        self.on_warning = on_warning
        self._in_write = False

    def __repr__(self) -> str:
        return f"SaveStore({str(self.path)!r})"

    # -- plumbing ----------------------------------------------------------------------------
    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)
            if self.on_warning is not None:
                self.on_warning(message)

    def _db(self) -> TinyDB:
        self._check_owned()
        return TinyDB(self.index_path, storage=AtomicJSONStorage, warn=self._warn)

    def _check_owned(self) -> None:
        """Refuse a store folder of another user, or one others may write to
        (:func:`saves.paths.foreign_store_problem`): whatever is in it could be planted.

        Raises:
            SaveError: the folder exists and is not this user's alone.
        """
        problem = foreign_store_problem(self.path)
        if problem is not None:
            raise SaveError(problem)

    @contextmanager
    def _writing(self, durable: bool = True, timeout: float | None = None) -> Iterator[Any]:
        """Hold the lock, and yield the index table (rebuilt first if unreadable).

        Every index change made inside reaches the disk in one atomic write when the block
        ends normally, and none if it raises. Not re-entrant (one write at a time).
        ``durable=False`` (autosaves) writes the index without ``fsync`` (see
        :func:`saves.storage.atomic_write`). ``timeout``: seconds to wait for the lock
        (default the lock's own; ``0``: only if it is free now).

        Raises:
            SaveError: the disk refused (permissions, no space); earlier saves are intact.
        """
        try:
            self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._check_owned()  # before the lock file is opened in it
            self.lock.acquire(timeout)  # other processes and other threads wait here
            try:
                if self._in_write:
                    raise RuntimeError("SaveStore writes do not nest")
                self._in_write = True
                try:
                    yield from self._write_session(durable)
                finally:
                    self._in_write = False
            finally:
                self.lock.release()
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise SaveError(
                f"cannot write to the save store {self.path}: {reason}; the saves already there are intact"
            ) from exc

    def _write_session(self, durable: bool = True) -> Iterator[Any]:
        self.blob_dir.mkdir(exist_ok=True, mode=0o700)
        if self.lock._depth == 1:  # outermost holder: nobody else is writing
            remove_stale_temps(self.path)
            remove_stale_temps(self.blob_dir)
        db = self._db()
        storage = cast(AtomicJSONStorage, db.storage)  # _db() always opens an AtomicJSONStorage
        storage.durable = durable
        try:
            try:
                storage.begin()
            except SaveCorruptError as exc:
                if exc.kind == "future-version":
                    raise
                storage.rollback()
                self._rebuild(db, exc)
                storage.begin()
            table = db.table(TABLE, cache_size=0)
            before = _files_of(table.all())
            yield table
            after = _files_of(table.all())
            if storage.commit():  # every index change of this operation in one atomic write
                # On disk now: the index of `after`, and as its backup the one of `before`
                # (the file read above, which the write kept as the backup or left alone).
                self._collect_garbage(after | before)
        finally:
            storage.rollback()
            db.close()

    def _docs(self) -> list[dict[str, Any]]:
        """Index documents, read without the lock (files are replaced atomically)."""
        self._check_owned()
        if not self.index_path.exists() and not self.index_path.with_name(INDEX_NAME + ".bak").exists():
            return []
        db = self._db()
        try:
            return [dict(d) for d in db.table(TABLE, cache_size=0).all()]
        except SaveCorruptError as exc:
            if exc.kind == "future-version":
                raise
            self._warn(
                f"warning: {exc.detail} ({exc.path}). Listing the save files directly; "
                "the index will be rebuilt at the next write."
            )
            return [doc for doc, _ in self._scan_blobs()]
        finally:
            db.close()

    def _blob_path(self, file: str) -> Path:
        return self.blob_dir / file

    # -- reading -----------------------------------------------------------------------------
    def list(self, career: str | None = None, kind: str | None = None) -> list[SaveInfo]:
        """Every save, oldest write first.

        Args:
            career: only this career's saves.
            kind: only saves of this kind (``"manual"``, ``"autosave"``, ``"import"``).

        Returns:
            Index entries sorted by write order.

        Raises:
            SaveCorruptError: the index comes from a newer pibench.
        """
        infos = [SaveInfo.from_doc(d) for d in self._docs()]
        infos = [i for i in infos if (career is None or i.career == career) and (kind is None or i.kind == kind)]
        return sorted(infos, key=lambda i: (i.seq, i.updated, i.name))

    def names(self) -> builtins.list[str]:
        """Names of every save, sorted."""
        return sorted(i.name for i in self.list())

    def exists(self, name: str) -> bool:
        """Whether a save is called exactly ``name``."""
        return any(i.name == name for i in self.list())

    def candidates(self, name: str) -> builtins.list[SaveInfo]:
        """The saves ``name`` may refer to, most recently written first.

        They are the save called exactly ``name`` and the autosaves of the career ``name``.
        When a save called ``name`` exists, only autosaves of the same world (scenario and
        seed) count: a store written before careers were kept apart may hold two careers
        under one name, and the named save must never be shadowed by the other one.

        Raises:
            SaveNotFoundError: nothing matches; the message lists what exists.
        """
        infos = self.list()
        exact = next((i for i in infos if i.name == name), None)
        matches = [
            i
            for i in infos
            if i.career == name
            and i.kind == "autosave"
            and i.name != name
            and (exact is None or (i.scenario, i.seed) == (exact.scenario, exact.seed))
        ]
        if exact is not None:
            matches.append(exact)
        if not matches:
            known = ", ".join(sorted({i.name for i in infos})[:20]) or "none yet"
            raise SaveNotFoundError(f"no save called {name!r} in {self.path} (saves: {known})")
        return sorted(matches, key=lambda i: (i.seq, i.updated), reverse=True)

    def resolve(self, name: str, *, exact: bool = False) -> SaveInfo:
        """Find the save ``name`` refers to.

        ``name`` may be a save's exact name or a career: of the save named ``name`` and that
        career's autosaves (see :meth:`candidates`), the most recently written wins.

        Args:
            name: a save name or a career.
            exact: only the save called exactly ``name`` (e.g. a row picked from a list).

        Raises:
            SaveNotFoundError: nothing matches; the message lists what exists.
        """
        if exact:
            infos = self.list()
            for i in infos:
                if i.name == name:
                    return i
            known = ", ".join(sorted({i.name for i in infos})[:20]) or "none yet"
            raise SaveNotFoundError(f"no save called {name!r} in {self.path} (saves: {known})")
        return self.candidates(name)[0]

    def info(self, name: str) -> SaveInfo:
        """The index entry :meth:`resolve` finds for ``name``."""
        return self.resolve(name)

    def load(self, name: str, *, exact: bool = False) -> SaveRecord:
        """Read and verify a save completely.

        Args:
            name: a save name or a career (see :meth:`resolve`).
            exact: only the save called exactly ``name``.

        Returns:
            The verified record. Nothing is returned half-way: any problem raises.

        Raises:
            SaveNotFoundError: no such save.
            SaveCorruptError: the file is missing, truncated, corrupt, tampered or from a
                newer format version (``kind`` says which).
        """
        info = self.resolve(name, exact=exact)
        return self._load_info(info, lambda: self.resolve(name, exact=exact))

    def _load_info(self, info: SaveInfo, again: Callable[[], SaveInfo] | None = None) -> SaveRecord:
        path = self._blob_path(info.file)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            if again is not None:
                info = again()  # a concurrent write may have moved it on
                path = self._blob_path(info.file)
            try:
                raw = path.read_bytes()
            except FileNotFoundError:
                raise SaveCorruptError("unreadable", str(path), f"the file of save {info.name!r} is missing") from None
        except OSError as exc:
            raise SaveCorruptError(
                "unreadable", str(path), f"the file of save {info.name!r} cannot be read ({exc.strerror or exc})"
            ) from None
        record = read_save_bytes(raw, str(path))
        if record.meta.get("checksum") != info.checksum:
            raise SaveCorruptError(
                "mismatch",
                str(path),
                f"the file of save {info.name!r} is not the one the store recorded (checksum differs)",
            )
        if (record.info.name, record.info.seed) != (info.name, info.seed):  # the index points elsewhere
            raise SaveCorruptError(
                "mismatch",
                str(path),
                f"the file of save {info.name!r} holds the save {record.info.name!r} (seed {record.info.seed}), "
                "not the one the store recorded",
            )
        record.info = info
        key = seal_mod.read_key(self.path)
        record.sealed = seal_mod.verify(key, info.checksum, record.meta.get("seal")) or (
            # verified by replay on an earlier load (_vouch): the mark binds this file and digest
            bool(info.verified)
            and is_world_state(record.state)
            and seal_mod.verify_vouch(key, info.checksum, info.digest, info.verified)
        )
        if is_delta(record.state):
            self._rebuild_delta(record, str(path))
        return record

    def _rebuild_delta(self, record: SaveRecord, path: str) -> None:
        """Rebuild an autosave delta (:func:`is_delta`) into its world, in place: ``record``'s
        state becomes that world's live state and :meth:`SaveRecord.world` returns it.

        Checks, in this order: the delta carries this store's seal (only the store writes
        deltas; an edit breaks the seal); its base file is there, has the checksum the
        delta recorded and is a whole world state, which rebuilds exactly (the base is
        authentic because the sealed delta names its checksum); the calls logged since are
        replayed on it (``world.api.replay_calls``) and the agent's notes set; the
        result has the month and the :func:`delta_check` the delta recorded.

        Raises:
            SaveCorruptError: ``kind="tampered"`` without a valid seal; ``"unreadable"`` when
                the base file is missing; ``"mismatch"`` when the base is not the one
                recorded, or the replay fails or ends elsewhere (rules of another version).
        """
        from world.api import replay_calls

        name = record.info.name
        delta = record.state
        if not record.sealed:
            keyless = seal_mod.read_key(self.path) is None
            raise SaveCorruptError(
                "tampered",
                path,
                f"save {name!r} is an autosave delta without this store's seal (changed after the store "
                "wrote it, or copied from another store); it cannot be trusted"
                + (
                    f" (this store has no seal key {seal_mod.KEY_NAME}: a store is copied with its folder whole, "
                    "hidden files included, e.g. `cp -a`)"
                    if keyless
                    else ""
                ),
            )
        ref = delta.get("base")
        if not (isinstance(ref, dict) and isinstance(ref.get("file"), str) and isinstance(delta.get("log"), list)):
            raise SaveCorruptError("corrupt", path, f"save {name!r} is a malformed autosave delta")
        base_path = self._blob_path(Path(ref["file"]).name)
        try:
            raw = base_path.read_bytes()
        except OSError as exc:
            raise SaveCorruptError(
                "unreadable",
                str(base_path),
                f"the autosave {name!r} builds on the file {base_path.name}, which cannot be read "
                f"({exc.strerror or exc})",
            ) from None
        try:
            base = read_save_bytes(raw, str(base_path))
        except SaveCorruptError as exc:  # name the base: the delta's own file is intact
            raise SaveCorruptError(
                exc.kind,
                str(base_path),
                f"the autosave {name!r} builds on the file {base_path.name}, which cannot be used: {exc.detail}",
            ) from None
        if base.meta.get("checksum") != ref.get("checksum") or not is_world_state(base.state):
            raise SaveCorruptError(
                "mismatch",
                str(base_path),
                f"the autosave {name!r} builds on {base_path.name}, which is not the save it recorded",
            )
        base.sealed = True  # authentic: the sealed delta names its checksum
        world = base.world()
        problem = ""
        try:
            if len(world.s.action_log) != ref.get("actions"):
                raise ValueError("the base's action log is not the one recorded")
            replay_calls(world, delta["log"])
            world.s.memory = delta.get("memory", "")
            if world.month != record.meta.get("month") or delta_check(world) != delta.get("check"):
                raise ValueError("the replayed world differs from the one saved")
        except Exception as exc:  # rules that changed since: refuse, never half-load
            problem = f"{type(exc).__name__}: {exc}"
        if problem:
            raise SaveCorruptError(
                "mismatch",
                path,
                f"the autosave {name!r} does not rebuild the world it recorded ({problem}); it was "
                "probably written by an incompatible version of pibench's rules",
            )
        state = world.state_view()
        config = base.state.get("config")  # the base's parsed config: plain data the world does not hold
        state["config"] = config if isinstance(config, dict) else world.cfg.to_dict()
        record.state = state
        record._world = world
        record.scenario = dict(record.scenario, config=base.scenario.get("config", state["config"]))
        record.meta["scenario"] = record.scenario

    def load_world(self, name: str, *, exact: bool = False) -> tuple[World, SaveRecord]:
        """Load a save and rebuild its world (digest verified, see :meth:`SaveRecord.world`).

        Without ``exact``, a damaged save (missing, truncated, corrupt, tampered file, or a
        world that does not rebuild) is passed over for the next most recent of
        :meth:`candidates`, with a warning naming what was skipped and why: keeping the last
        few autosaves of a career is meant for exactly this recovery.

        Args:
            name: a save name or a career.
            exact: load the save called exactly ``name`` or fail (no fallback).

        Returns:
            ``(world, record)``.

        Raises:
            SaveNotFoundError: no such save.
            SaveCorruptError: no candidate loads; the message lists each one tried and why.
        """
        if exact:
            record = self.load(name, exact=True)
            world = record.world()
            if record.replayed:
                self._vouch(record.info)
            return world, record
        tried: builtins.list[tuple[SaveInfo, SaveCorruptError]] = []
        for info in self.candidates(name):
            try:
                record = self._load_info(info)
                world = record.world()
            except SaveCorruptError as exc:
                tried.append((info, exc))
                continue
            if record.replayed:
                self._vouch(record.info)
            if tried:
                skipped = "; ".join(f"{i.name!r} (month {i.month}): {e.detail}" for i, e in tried)
                self._warn(
                    f"warning: skipped the damaged save{'s' if len(tried) > 1 else ''} {skipped}. "
                    f"Loaded {info.name!r} (month {info.month}) instead."
                )
            return world, record
        if len(tried) == 1:
            raise tried[0][1]
        first = tried[0][1]
        listing = "; ".join(f"{i.name!r} (month {i.month}): {e.detail}" for i, e in tried)
        raise SaveCorruptError(
            first.kind, str(self.blob_dir), f"none of the saves of {name!r} could be loaded; tried {listing}"
        )

    def _vouch(self, info: SaveInfo) -> bool:
        """Mark the index entry ``info`` as verified, after its file passed the replay check
        (:attr:`SaveRecord.replayed`), so that its next load needs no replay.

        A save that loaded unsealed and passed the check is as verified as an import (which
        seals what it has just replayed): the check proved that its world follows from its
        own seed, configuration and action log, and is the world its digest recorded. The
        mark (:func:`saves.seal.vouch`) is an HMAC, under the store's seal key, of the file's
        checksum and that digest: it vouches for exactly that file and digest, so an edit of
        either afterwards (or a mark copied to another entry) does not verify and the load
        replays, and refuses, as before. Nobody without the key can make one.

        Written under the store's lock, in one atomic index write, only if the lock is free
        at once (a load never waits for a writer) and the entry still names that file; not
        ``fsync``'d (as autosaves): a crash at any moment leaves the index before or after,
        and losing a mark costs only a replay at the next load. Any failure (a read-only
        store, a busy lock) leaves the entry as it was.

        Returns:
            Whether the entry was marked.
        """
        try:
            with self._writing(durable=False, timeout=0) as table:
                key = seal_mod.make_key(self.path)
                query = Query().name == info.name
                doc = table.get(query)
                checked = (info.file, info.checksum, info.digest)
                if key is None or doc is None or (doc.get("file"), doc.get("checksum"), doc.get("digest")) != checked:
                    return False  # no key to sign with, or the save was written again since
                table.update({"verified": seal_mod.vouch(key, info.checksum, info.digest)}, query)
        except SaveError:
            return False
        return True

    def file_of(self, name: str) -> Path:
        """Path of the save file of ``name`` (see :meth:`resolve`)."""
        return self._blob_path(self.resolve(name).file)

    def check_usable(self) -> None:
        """Make sure saves can be written here, before a long career relies on it.

        Creates the store folder if needed, writes and removes a probe file, and reads the
        index (a store written by a newer pibench is refused).

        Raises:
            SaveError: the folder cannot be created or written (say it is a file, or on a
                read-only disk), or its index is from a newer pibench; the message says what
                to do.
        """
        try:
            self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not self.path.is_dir():
                raise NotADirectoryError(20, "Not a directory")
            self._check_owned()
            self.blob_dir.mkdir(exist_ok=True, mode=0o700)
            fd, probe = tempfile.mkstemp(prefix=".probe.", suffix=TMP_SUFFIX, dir=self.blob_dir)
            try:
                os.write(fd, b"probe")
                os.fsync(fd)
            finally:
                os.close(fd)
                os.unlink(probe)
        except OSError as exc:
            raise self._unwritable(exc) from None
        self.list()

    def _unwritable(self, exc: OSError) -> SaveError:
        """The error of a store a session cannot write to (:meth:`check_usable`, :meth:`hold_career`)."""
        reason = exc.strerror or str(exc)
        return SaveError(
            f"the save store {self.path} cannot be written ({reason}); choose another folder with "
            "--saves DIR (or PIBENCH_HOME) or fix its permissions (looking at its saves needs no "
            "writing: `pibench play --replay NAME`, `pibench saves show NAME` work on it as it is)"
        )

    def career_lock(
        self, career: str, doing: str = "pibench", advice: str | None = None, *, new_career: bool = False
    ) -> CareerLock:
        """The session lock of ``career`` in this store (not taken; see :meth:`hold_career`).

        Keyed by :func:`name_key`, so ``C1`` and ``c1`` (or a look-alike) are one lock, as
        they are one name to the store: ``<store>/.careers/<first 32 hex digits of the key's
        SHA-256>.lock``.
        """
        digest = hashlib.sha256(name_key(career).encode("utf-8")).hexdigest()[:32]
        return CareerLock(self.path / CAREER_LOCK_DIR / f"{digest}.lock", career, doing, advice, new_career=new_career)

    def hold_career(
        self, career: str, doing: str = "pibench", advice: str | None = None, *, new_career: bool = False
    ) -> CareerLock:
        """Take the session lock of ``career`` for a session that will write its saves, and
        return it held (release it when the session ends or moves to another career; the
        OS releases it if the process dies). Read-only uses (replays, ``saves
        list/show/export``, loads for looking) take no lock.

        Args:
            career: the career the session autosaves and saves under.
            doing: what the session is (``"pibench headless"``), shown to a second session.
            advice: what the busy message offers besides waiting (:class:`CareerLock`).
            new_career: the session starts a new career under ``career`` (``--save`` without
                ``--load``): the busy message asks for another name, not for waiting.

        Raises:
            CareerLockedError: another session holds it (at once, no waiting); the message
                names the career, the holder (pid, host, since when) and what to do.
            SaveError: the store cannot be written (a read-only store: no lock can be made,
                and the session could not save either).
        """
        lock = self.career_lock(career, doing, advice, new_career=new_career)
        try:
            self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._check_owned()  # before the career's lock file is opened in it
            lock.path.parent.mkdir(exist_ok=True, mode=0o700)
            try:
                lock.acquire()
            except CareerLockedError:
                stored = self._stored_career_name(career)
                if stored is None or stored == career:
                    raise
                lock.stored_name = stored  # the commands of the advice name what exists
                raise CareerLockedError(career, lock._busy_message()) from None
        except OSError as exc:
            raise self._unwritable(exc) from None
        return lock

    def hold_session(self, career: str, doing: str, *, resuming: str | None = None) -> CareerLock:
        """Start a session that writes ``career``: its session lock held (:meth:`hold_career`),
        then :meth:`check_new_career`; the lock is released again if the check refuses.

        Args:
            career: the name the session saves under (``--save``).
            doing: what the session is, shown to a second session.
            resuming: the career the session resumed (``--load``), if any. Another name (a new
                career, or a resumed one saved under a new name) is refused at once if held:
                waiting for its session would not help, so the refusal asks for another name.

        Raises:
            CareerLockedError, SaveError: as :meth:`hold_career` and :meth:`check_new_career`.
        """
        lock = self.hold_career(career, doing, new_career=resuming != career)
        try:
            self.check_new_career(career, resuming=resuming)
        except BaseException:
            lock.release()
            raise
        return lock

    def _stored_career_name(self, name: str) -> str | None:
        """The career name the store's saves spell like ``name`` (same :func:`name_key`), or
        ``None`` (nothing saved under it yet, or an unreadable store)."""
        key = name_key(name)
        try:
            infos = self.list()
        except (SaveError, OSError):
            return None
        return next((i.career for i in infos if name_key(i.career) == key), None)

    def check_new_career(self, name: str, *, resuming: str | None = None) -> None:
        """Check that ``--save NAME`` may be used: a valid name, a usable store, and no other
        career already under that name.

        Args:
            name: the career name the front end will autosave and save under.
            resuming: the career of the save being resumed (``--load``), if any; saving a
                resumed career under its own career name is of course allowed.

        Raises:
            SaveError: the name is invalid, the store is unusable, or ``name`` already names
                a save or a career other than the one being resumed, or looks like one
                (same :func:`name_key`: ``CAR1`` or ``cаr1`` with a Cyrillic ``а`` next to
                ``car1``); the message names that save, its scenario, seed and month and what
                to do instead.
        """
        check_name(name)
        self.check_usable()
        if resuming is not None and resuming == name:
            return
        infos = self.list()
        taken = [i for i in infos if i.name == name or i.career == name]
        if not taken:
            self._refuse_lookalike(name, infos)
            return
        newest = max(taken, key=lambda i: (i.seq, i.updated))
        names = sorted(i.name for i in taken)
        shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
        delete = f"`pibench saves delete {names[0]}`" + (
            f" (and the same for {', '.join(names[1:6])}{', ...' if len(names) > 6 else ''})" if len(names) > 1 else ""
        )
        months = f"{newest.month}/{newest.months}" if newest.months else str(newest.month)
        raise SaveError(
            f"{name!r} already names a saved career (scenario {newest.scenario}, seed {newest.seed}, "
            f"month {months}, {newest.status}; saves: {shown}). Starting a new career under it would mix "
            f"the two. Use `--load {name}` to resume it, choose another name, or delete it first with {delete}"
        )

    def _refuse_lookalike(self, name: str, infos: builtins.list[SaveInfo] | None = None) -> None:
        """Refuse a new name that differs from an existing save or career only by case,
        width, invisible characters or look-alike letters (see :func:`name_key`).

        Raises:
            SaveExistsError: the message names the existing save.
        """
        key = name_key(name)
        for info in infos if infos is not None else self.list():
            for existing in (info.career, info.name):
                if existing != name and name_key(existing) == key:
                    raise SaveExistsError(
                        f"{name!r} looks like the existing save {existing!r} (scenario {info.scenario}, "
                        f"seed {info.seed}, month {info.month}): names that differ only by case, width, "
                        f"invisible characters or look-alike letters are one name. Use `--load {existing}` "
                        "to resume it, or choose a clearly different name"
                    )

    # -- writing -----------------------------------------------------------------------------
    def save(
        self,
        name: str,
        world: Any,
        *,
        scenario: Any = None,
        career: str | None = None,
        kind: str = "manual",
        overwrite: bool = True,
        ui: dict[str, Any] | None = None,
        caches: SaveCaches | None = None,
    ) -> SaveInfo:
        """Save a live world under ``name``.

        Args:
            name: the save's name (see :func:`check_name`).
            world: the ``World`` to snapshot; it is not modified.
            scenario: a ``Scenario`` or scenario name (recorded with the save).
            career: the career it belongs to (default: kept from an earlier save of this
                name, else the name).
            kind: ``"manual"``, ``"autosave"`` or ``"import"``.
            overwrite: replace an existing save of that name (else raise).
            ui: a front end's own state of this career (the TUI: ``{"tutorial": "hidden"}``),
                kept as the metadata field ``ui`` (``SaveRecord.meta["ui"]``); never part
                of the world, its state or its digest. Saves without it load as before.
            caches: what this store keeps of ``world`` between its saves (the career's save
                writer, :class:`saves.CareerSaves`, passes its own): only what changed since
                the last save is encoded again. ``None``: the whole state is encoded.

        Returns:
            The new index entry.

        Raises:
            SaveValueError: a value in the state cannot be saved; nothing was written.
            SaveExistsError: ``overwrite`` is false and the name is taken.
            StoreLockedError: another process kept the store busy.
        """
        kept = _caches_of(world, caches)
        cache = kept.text if kept is not None else None
        meta, state, text = _describe_fast(world, scenario, cache)  # serialised at once
        if ui:
            meta["ui"] = dict(ui)
        return self.save_state(
            name,
            meta,
            state,
            career=career,
            kind=kind,
            overwrite=overwrite,
            sealed=is_world_state(state),
            text_cache=cache,
            _text=text,
            _meta_cache=kept.meta if kept is not None else None,
        )

    def save_state(
        self,
        name: str,
        meta: dict[str, Any],
        state: Any,
        *,
        career: str | None = None,
        kind: str = "manual",
        overwrite: bool = True,
        created: str | None = None,
        sealed: bool = False,
        text_cache: TextCache | None = None,
        _text: str | None = None,
        _meta_cache: TextCache | None = None,
    ) -> SaveInfo:
        """Save raw ``(meta, state)`` (as :func:`describe_world` returns them).

        The state is normalised and serialised before the lock is taken or any file is
        touched. See :meth:`save` for the arguments and errors. ``sealed`` (for the store's
        own callers only) marks a state taken from a live world or just verified by replay:
        the file gets the store's seal and loads without a replay (:mod:`saves.seal`).
        ``text_cache`` (the store's own callers) re-encodes only what changed since the
        last save of the same world (:func:`saves.values.encode_text`); ``_text`` is the
        state's text made already by that cache (:func:`_describe_fast`).
        """
        try:
            check_name(name, autosave_ok=kind == "import" and career is not None)
        except SaveError:
            if not self.exists(name):  # names from before the rules got stricter stay usable
                raise
        if kind not in KINDS:
            raise SaveError(f"unknown save kind {kind!r}; valid kinds: {', '.join(KINDS)}")
        # The expensive part: before the lock and any file.
        encoded = (False, _text) if _text is not None else values.encode_text(state, text_cache)
        with self._writing() as table:
            info = self._put(
                table,
                name,
                meta,
                encoded,
                career=career,
                kind=kind,
                overwrite=overwrite,
                created=created,
                sealed=sealed,
                meta_cache=_meta_cache,
            )
        return info

    def _put(
        self,
        table: Any,
        name: str,
        meta: dict[str, Any],
        encoded: tuple[bool, str],
        *,
        career: str | None,
        kind: str,
        overwrite: bool,
        created: str | None,
        durable: bool = True,
        sealed: bool = False,
        meta_cache: TextCache | None = None,
    ) -> SaveInfo:
        """Write one save file and its index entry; the caller holds the lock (``meta_cache``:
        the world's metadata text cache, :attr:`SaveCaches.meta`)."""
        state_tagged, state_text = encoded
        existing = table.get(Query().name == name)
        if existing is not None and not overwrite:
            raise SaveExistsError(f"a save called {name!r} exists already")
        now = _now()
        full_meta = dict(meta)
        full_meta.update(
            {
                "name": name,
                "career": career or (existing or {}).get("career") or name,
                "kind": kind,
                "created": created or (existing or {}).get("created") or now,
                "updated": now,
                "pibench_version": pibench_version(),
            }
        )
        meta_tagged, meta_text = values.encode_text(full_meta, meta_cache)
        # Canonical text of {"meta": ..., "state": ...}: keys sorted, no spaces.
        payload_text = '{"meta":' + meta_text + ',"state":' + state_text + "}"
        key = seal_mod.make_key(self.path) if sealed else None
        blob, digest = encode_envelope(
            SAVE_FORMAT, "save", payload_text, tagged=meta_tagged or state_tagged, seal_key=key
        )
        file = f"{hashlib.sha256(name.encode()).hexdigest()[:12]}-{digest[7:23]}.json"
        atomic_write(self._blob_path(file), blob, durable=durable)
        seq = 1 + max((d.get("seq", 0) for d in table.all()), default=0)
        doc = _index_doc(full_meta, size=len(blob), checksum=digest, file=file, seq=seq)
        if existing is None:
            table.insert(doc)
        else:  # replaced whole: a merge (upsert) would keep fields of the old file's entry (its mark, a delta's base)
            table.update(_replaced_by(doc), Query().name == name)
        return SaveInfo.from_doc(doc)

    def autosave(
        self,
        career: str,
        world: Any,
        *,
        scenario: Any = None,
        keep: int = DEFAULT_KEEP,
        ui: dict[str, Any] | None = None,
        caches: SaveCaches | None = None,
    ) -> SaveInfo:
        """Write the career's autosave for the world's current month and prune old ones.

        Args:
            career: the career (the ``--save NAME`` given by the player).
            world: the live world.
            scenario: the scenario (recorded with the save).
            keep: how many autosaves of this career to keep (the most recent ones; >= 1).
            ui: a front end's own state of the career (see :meth:`save`).
            caches: what this store keeps of ``world`` between its saves (see :meth:`save`);
                with them an autosave between two whole ones is a delta over the last whole
                one written with the same caches (:func:`is_delta`). ``None``: whole.

        Returns:
            The new autosave's index entry (named by :func:`autosave_name`).
        """
        check_name(career)
        keep = max(1, int(keep))
        kept = _caches_of(world, caches)
        cache = kept.text if kept is not None else None
        base = self._delta_base(career, world, kept) if kept is not None else None
        full: tuple[dict[str, Any], dict[str, Any], str | None] | None = None
        if base is None:
            full = _describe_fast(world, scenario, cache)  # serialised right below
        # Autosaves come every month and rotate: atomic, but not fsync'd (docs/saves.md).
        with self._writing(durable=False) as table:
            if base is not None and not self._blob_path(base.file).is_file():
                base = None  # deleted since: write it whole
                full = _describe_fast(world, scenario, cache)
            if base is not None:
                meta, encoded = _describe_delta(world, scenario, base)
                state: Any = None
            else:
                assert full is not None
                meta, state, text = full
                encoded = (False, text) if text is not None else values.encode_text(state, cache)
            if ui:
                meta["ui"] = dict(ui)
            name = autosave_name(career, meta["month"], meta["finished"])
            info = self._put(
                table,
                name,
                meta,
                encoded,
                career=career,
                kind="autosave",
                overwrite=True,
                created=None,
                # A whole autosave is fsync'd: the deltas of the next months build on it, and one
                # lost in a power cut would take them all (deltas themselves skip the fsync).
                durable=base is None,
                sealed=base is not None or is_world_state(state),
                meta_cache=kept.meta if kept is not None and base is None else None,  # a delta's is tiny
            )
            if kept is not None and base is None and is_world_state(state) and not meta["finished"]:
                log = world.s.action_log
                kept.base = _Base(
                    str(self.path), career, info.file, info.checksum, meta["month"], len(log), log[-1] if log else None
                )
            # Only this career's autosaves, of this very world (a store from before careers
            # were kept apart may hold another world under the same career name).
            ours = [SaveInfo.from_doc(d) for d in table.all()]
            ours = sorted(
                (
                    i
                    for i in ours
                    if i.career == career
                    and i.kind == "autosave"
                    and (i.scenario, i.seed) == (info.scenario, info.seed)
                ),
                key=lambda i: (i.seq, i.updated),
                reverse=True,
            )
            for old in ours[keep:]:
                table.remove(Query().name == old.name)
        return info

    def _delta_base(self, career: str, world: Any, caches: SaveCaches) -> _Base | None:
        """The whole autosave of ``world`` this store wrote last for ``career`` (kept in
        ``caches``), when the autosave due now may be a delta of it (:func:`is_delta`): same
        store and career, the world not finished, fewer than :data:`DELTA_MONTHS` months and
        :data:`DELTA_CALLS` logged calls since, its action log that one grown, and a seal key
        to seal the delta with; else ``None`` (write it whole)."""
        base = caches.base
        if base is None or base.store != str(self.path) or base.career != career or world.finished:
            return None
        log = world.s.action_log
        n = base.actions
        if not (0 <= world.month - base.month < DELTA_MONTHS and n <= len(log) < n + DELTA_CALLS):
            return None
        if n and log[n - 1] is not base.last:
            return None
        return base if seal_mod.read_key(self.path) is not None else None

    def delete(self, name: str) -> SaveInfo:
        """Delete the save called exactly ``name`` (careers are not expanded here).

        Returns:
            The deleted entry.

        Raises:
            SaveNotFoundError: no save has that exact name.
            CareerLockedError: a session is writing that save's career (its lineage is
                that session's until it ends).
        """
        try:
            lock: Any = self.hold_career(self.resolve(name, exact=True).career, "pibench saves delete", "then delete")
        except SaveNotFoundError:
            lock = nullcontext()  # the write below says it is not there
        with lock, self._writing() as table:
            doc = table.get(Query().name == name)
            if doc is None:
                known = ", ".join(sorted(d["name"] for d in table.all())[:20]) or "none yet"
                raise SaveNotFoundError(f"no save called {name!r} in {self.path} (saves: {known})")
            table.remove(Query().name == name)
        return SaveInfo.from_doc(doc)

    def export(self, name: str, dest: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Copy a verified save to a self-contained file (readable by :meth:`import_file`).

        Args:
            name: a save name or career.
            dest: the file to write (atomically).
            overwrite: replace ``dest`` if it exists.

        Returns:
            The written path.

        Raises:
            SaveExistsError: ``dest`` exists and ``overwrite`` is false.
            SaveCorruptError: the save fails verification (nothing is exported).
        """
        dest = Path(dest).expanduser()
        if dest.exists() and not overwrite:
            raise SaveExistsError(f"{dest} exists already")
        raw = self.export_bytes(name)
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(dest, raw)
        except OSError as exc:
            raise SaveError(f"cannot write {dest}: {exc.strerror or exc}") from exc
        return dest

    def export_bytes(self, name: str) -> bytes:
        """The bytes of a verified save as a self-contained file (what :meth:`export` writes).

        A whole save is its file as it is; an autosave delta (:func:`is_delta`) is written
        whole from its rebuilt world (same metadata, its digest filled in, the store's seal).

        Raises:
            SaveNotFoundError: no such save.
            SaveCorruptError: the save fails verification.
        """
        info = self.resolve(name)
        record = self._load_info(info, lambda: self.resolve(name))  # verify before exporting
        if record._world is None:
            return self._blob_path(record.info.file).read_bytes()
        world = record._world
        meta = {k: v for k, v in record.meta.items() if k not in ("checksum", "format_version", "seal", "base")}
        meta["digest"] = world.digest()
        _, meta_tagged, meta_text = values.encode(meta)
        state_tagged, state_text = values.encode_text(record.state)
        payload_text = '{"meta":' + meta_text + ',"state":' + state_text + "}"
        blob, _ = encode_envelope(
            SAVE_FORMAT, "save", payload_text, tagged=meta_tagged or state_tagged, seal_key=seal_mod.read_key(self.path)
        )
        return blob

    def import_file(self, src: str | os.PathLike[str], *, name: str | None = None, overwrite: bool = False) -> SaveInfo:
        """Add an exported save file to the store, after verifying it completely.

        Args:
            src: the file.
            name: store it under this name (default: the name inside the file).
            overwrite: replace an existing save of that name.

        Returns:
            The new index entry (kind ``"import"``; created time kept from the file).

        Raises:
            SaveCorruptError: the file is truncated, corrupt, tampered (including a world
                that does not follow from its own action log) or from the future.
            SaveExistsError: the name is taken and ``overwrite`` is false.
            CareerLockedError: a session is writing the career the save would join.
        """
        src = Path(src).expanduser()
        raw = _read_outside_file(src)
        record = read_save_bytes(raw, str(src))
        if is_delta(record.state):
            raise SaveCorruptError(
                "corrupt",
                str(src),
                f"{src} is an autosave delta copied out of a store: it holds only the changes since an "
                "earlier autosave and cannot be imported on its own; write a self-contained file with "
                "`pibench saves export NAME FILE`",
            )
        if is_world_state(record.state):
            record.world()  # digest and replay: an edited save never enters the store
        meta: dict[str, Any] = {
            k: record.meta[k]
            for k in ("scenario", "seed", "month", "months", "finished", "collapsed", "digest", "ui")
            if k in record.meta
        }
        new_name = name or record.meta.get("name") or src.stem
        career = record.meta.get("career") if name is None else None
        if not self.exists(new_name):
            auto = _AUTOSAVE_NAME.match(new_name)
            self._refuse_lookalike(auto.group("career") if auto else new_name)
            joins = career or new_name
        else:  # as _put decides
            joins = career or self.resolve(new_name, exact=True).career
        with self.hold_career(joins, "pibench saves import", "or import it under another name (`--as OTHER`)"):
            return self.save_state(
                new_name,
                meta,
                record.state,
                career=career,
                kind="import",
                sealed=is_world_state(record.state),  # just replayed: verified
                overwrite=overwrite,
                created=record.meta.get("created"),
            )

    def repair(self) -> builtins.list[SaveInfo]:
        """Rebuild the index from the save files (drops entries whose file is unusable).

        The newest file of each name wins. Files are kept for one write after a save is
        overwritten or deleted (the backup index may need them), so a save deleted in the
        last write can reappear: recovery errs on the side of keeping data.

        Returns:
            The saves in the rebuilt index.
        """
        with self._writing() as table:
            self._rebuild_into(table)
        return self.list()

    # -- maintenance -------------------------------------------------------------------------
    def _scan_blobs(self) -> builtins.list[tuple[dict[str, Any], Path]]:
        """Index documents recovered from the save files (latest write per name)."""
        best: dict[str, tuple[dict[str, Any], Path]] = {}
        try:
            files = sorted(p for p in self.blob_dir.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
        except OSError:
            return []
        for p in files:
            try:
                raw = p.read_bytes()
                rec = read_save_bytes(raw, str(p))
            except (SaveError, OSError) as exc:
                self._warn(f"warning: skipping unusable save file {p.name}: {exc}")
                continue
            doc = _index_doc(rec.meta, size=len(raw), checksum=rec.meta["checksum"], file=p.name, seq=0)
            old = best.get(doc["name"])
            if old is None or doc["updated"] > old[0]["updated"]:
                best[doc["name"]] = (doc, p)
        ordered = sorted(best.values(), key=lambda t: t[0]["updated"])
        # Autosaves rotated out before the index was lost must not come back: keep the
        # DEFAULT_KEEP most recent of each career (and world), as autosave() does.
        kept: dict[tuple[Any, ...], int] = {}
        for doc, p in reversed(list(ordered)):
            if doc["kind"] != "autosave":
                continue
            group = (doc["career"], doc["scenario"], doc["seed"])
            kept[group] = kept.get(group, 0) + 1
            if kept[group] > DEFAULT_KEEP:
                ordered.remove((doc, p))
        for seq, (doc, _) in enumerate(ordered, start=1):
            doc["seq"] = seq
        return ordered

    def _rebuild(self, db: TinyDB, exc: SaveCorruptError) -> None:
        self._warn(f"warning: {exc.detail} ({exc.path}). Rebuilding the index from the save files in {self.blob_dir}.")
        db.drop_tables()
        self._rebuild_into(db.table(TABLE, cache_size=0))

    def _rebuild_into(self, table: Any) -> None:
        table.truncate()
        docs = [doc for doc, _ in self._scan_blobs()]
        if docs:
            table.insert_multiple(docs)

    def _collect_garbage(self, keep: set[str]) -> None:
        """Delete the save files not in ``keep``: once a write has committed, the files of
        the index on disk and of its backup (:meth:`_write_session`), so falling back to the
        backup always finds its saves; a write that crashes before this leaves its
        leftovers to the next one.
        """
        try:
            files = list(self.blob_dir.iterdir())
        except OSError:
            return
        for p in files:
            if p.suffix == ".json" and not p.name.startswith(".") and p.name not in keep:
                try:
                    p.unlink()
                except OSError:
                    pass


def _files_of(docs: Any) -> set[str]:
    """The save files index documents need: each one's file, and the file an autosave delta
    builds on (kept while a delta needs it)."""
    keep = set()
    for d in docs:
        keep.add(d.get("file"))
        if d.get("base"):
            keep.add(d["base"])
    return keep


def _replaced_by(doc: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """A TinyDB update operation that makes an index entry exactly ``doc`` (same document id)."""

    def replace(entry: dict[str, Any]) -> None:
        entry.clear()
        entry.update(doc)

    return replace


def _index_doc(meta: dict[str, Any], *, size: int, checksum: str, file: str, seq: int) -> dict[str, Any]:
    doc = {
        "name": meta["name"],
        "career": meta.get("career") or meta["name"],
        "kind": meta.get("kind", "manual"),
        "scenario": (meta.get("scenario") or {}).get("name", "custom"),
        "seed": meta.get("seed", 0),
        "month": meta.get("month", 0),
        "months": meta.get("months"),
        "finished": bool(meta.get("finished")),
        "collapsed": bool(meta.get("collapsed")),
        "created": meta.get("created", ""),
        "updated": meta.get("updated", ""),
        "size": size,
        "checksum": checksum,
        "digest": meta.get("digest", ""),
        "file": file,
        "seq": seq,
        "format_version": FORMAT_VERSION,
    }
    if isinstance(meta.get("base"), str):  # an autosave delta: the file it builds on
        doc["base"] = meta["base"]
    commitment = (meta.get("scenario") or {}).get("seed_commitment")
    if isinstance(commitment, str) and commitment:  # a sealed career: listings show this, not the seed
        doc["sealed"] = commitment[:12]
    return doc


def read_save_bytes(raw: bytes, path: str) -> SaveRecord:
    """Parse and verify a save file's bytes (a store blob or an exported save).

    Args:
        raw: the file's contents.
        path: its path, for messages.

    Returns:
        The record; ``meta["checksum"]`` holds the file's checksum.

    Raises:
        SaveCorruptError: truncated, corrupt, not-a-save, future-version or tampered.
    """
    env = decode_envelope(raw, SAVE_FORMAT, "save", path)
    body = env["save"]
    if env.get("tagged"):
        try:
            body = values.from_doc(body)
        except ValueError as exc:
            raise SaveCorruptError("corrupt", path, f"the save file is corrupt: {exc}") from None
    if not (
        isinstance(body, dict)
        and isinstance(body.get("meta"), dict)
        and "state" in body
        and isinstance(body["meta"].get("name"), str)
    ):
        raise SaveCorruptError("corrupt", path, "the save file is corrupt: its 'meta' or 'state' part is missing")
    meta = dict(body["meta"])
    meta["checksum"] = env["checksum"]
    meta["format_version"] = env["format_version"]
    if isinstance(env.get("seal"), str):
        meta["seal"] = env["seal"]
    info = SaveInfo.from_doc(_index_doc(meta, size=len(raw), checksum=env["checksum"], file=Path(path).name, seq=0))
    scenario = meta.get("scenario") or {}
    return SaveRecord(info=info, scenario=scenario, state=body["state"], meta=meta)


def read_save_file(path: str | os.PathLike[str]) -> SaveRecord:
    """Read and verify a save file outside any store (e.g. an export).

    Raises:
        SaveCorruptError: see :func:`read_save_bytes`.
        SaveError: the file cannot be read.
    """
    p = Path(path)
    return read_save_bytes(_read_outside_file(p), str(p))


MAX_IMPORT_BYTES = 1 << 30
"""Largest file read as a save from outside a store (``saves import``,
:func:`read_save_file`), in bytes: far above any save (a baseline career's month-60 save is
~200 kB), so that a sparse or runaway file is refused before it is read into memory."""


def _read_outside_file(path: Path) -> bytes:
    """The bytes of a save file given from outside the store, read only if it is an ordinary
    file of at most :data:`MAX_IMPORT_BYTES` (a device such as ``/dev/zero`` was read until the
    memory ran out; a pipe would wait for a writer).

    Raises:
        SaveError: it cannot be opened or read, is not an ordinary file, or is too large.
    """
    what = "a save file written by `pibench saves export`"
    try:
        # O_NONBLOCK: opening a pipe does not wait for a writer (no effect on a file).
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SaveError(f"cannot read {path}: {exc.strerror}") from None
    limit = MAX_IMPORT_BYTES
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise SaveError(f"cannot read {path}: it is a folder, not a file; give {what}")
        if not stat.S_ISREG(st.st_mode):
            raise SaveError(f"cannot read {path}: it is not a file (a device, pipe or socket); give {what}")
        size = st.st_size
        with os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read(limit + 1) if size <= limit else b""
        size = max(size, len(raw))
    except OSError as exc:
        raise SaveError(f"cannot read {path}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise SaveError(
            f"cannot read {path}: it holds {size:,} bytes; a save file is at most {limit:,} bytes, "
            f"so this is not {what}"
        )
    return raw


def dumps_info(info: SaveInfo) -> str:
    """One-line JSON of an index entry (for ``--json`` listings)."""
    return json.dumps(info.to_dict(), ensure_ascii=False, sort_keys=True)
