"""What the store says about a save (:class:`SaveInfo`, the index entry) and what a load
returns (:class:`SaveRecord`)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast, get_args

from saves.codec import FORMAT_VERSION
from saves.errors import (
    SaveCorruptError,
)
from saves.verify import TAMPERED, rebuilds_state, replays_to, verify_replay

if TYPE_CHECKING:  # pragma: no cover
    from world.engine import World


SaveKind: TypeAlias = Literal["manual", "autosave", "import"]
"""How a save was made: by name, by the autosaver, or imported from a file."""
KINDS: tuple[SaveKind, ...] = get_args(SaveKind)
"""Every :data:`SaveKind`, in that order (``("manual", "autosave", "import")``)."""
CareerStatus: TypeAlias = Literal["collapsed", "finished", "in progress"]
"""Where the saved career stands (:attr:`SaveInfo.status`)."""


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


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


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


def dumps_info(info: SaveInfo) -> str:
    """One-line JSON of an index entry (for ``--json`` listings)."""
    return json.dumps(info.to_dict(), ensure_ascii=False, sort_keys=True)


def index_doc(meta: dict[str, Any], *, size: int, checksum: str, file: str, seq: int) -> dict[str, Any]:
    """The index entry of a save from its metadata and its file's size, checksum, name and
    sequence number (what :class:`SaveInfo` is read from)."""
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
