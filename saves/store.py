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
import os
import shlex
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from tinydb import Query, TinyDB

from saves import seal as seal_mod
from saves import values
from saves.codec import SAVE_FORMAT, encode_envelope
from saves.deltas import (
    DELTA_CALLS,
    DELTA_MONTHS,
    DeltaBase,
    SaveCaches,
    caches_of,
    delta_check,
    describe_delta,
    describe_fast,
    is_delta,
)
from saves.errors import (
    CareerLockedError,
    SaveCorruptError,
    SaveError,
    SaveExistsError,
    SaveNotFoundError,
)
from saves.files import read_outside_file, read_save_bytes
from saves.lock import DEFAULT_TIMEOUT, CareerLock, FileLock
from saves.names import AUTOSAVE_NAME, MAX_NAME, autosave_name, canonical_autosave, check_name, name_key
from saves.paths import default_store_dir, foreign_store_problem
from saves.records import KINDS, SaveInfo, SaveRecord, index_doc, now_text, pibench_version
from saves.storage import TMP_SUFFIX, AtomicJSONStorage, atomic_write, remove_stale_temps
from saves.verify import is_world_state

if TYPE_CHECKING:  # pragma: no cover
    from world.engine import World
    from world.textcache import TextCache

INDEX_NAME = "index.json"
BLOB_DIR = "blobs"
LOCK_NAME = ".lock"
CAREER_LOCK_DIR = ".careers"
TABLE = "saves"

DEFAULT_KEEP = 3
"""Autosaves kept per career."""


_PRINTED: set[str] = set()
"""Warnings :func:`_stderr` has printed in this process: a front end may open the same
store several times (load, then save), and each warning is news once."""


def _stderr(message: str) -> None:
    if message not in _PRINTED:
        _PRINTED.add(message)
        print(message, file=sys.stderr, flush=True)


NAMES_SHOWN = 20
"""Saves named at most in a "no save called" error (the rest counted)."""


def describe_taken(taken: builtins.list[SaveInfo]) -> tuple[str, str]:
    """What a name is taken by, for the messages refusing it: ``(what, delete)`` where ``what``
    is ``"scenario S, seed N, month m/M, status; saves: a, a@m02"`` (the newest of ``taken``,
    every save listed, the first six) and ``delete`` the commands that free the name
    (``"`pibench saves delete a` (and the same for a@m02)"``), names shell-quoted.

    Args:
        taken: the saves holding the name (one career's, or several), not empty.
    """
    newest = max(taken, key=lambda i: (i.seq, i.updated))
    names = sorted(i.name for i in taken)
    more = ", ..." if len(names) > 6 else ""
    months = f"{newest.month}/{newest.months}" if newest.months else str(newest.month)
    what = (
        f"scenario {newest.scenario}, seed {newest.seed_text}, month {months}, {newest.status}; "
        f"saves: {', '.join(names[:6])}{more}"
    )
    delete = f"`pibench saves delete {shlex.quote(names[0])}`" + (
        f" (and the same for {', '.join(shlex.quote(n) for n in names[1:6])}{more})" if len(names) > 1 else ""
    )
    return what, delete


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
        #: The folder as given (``--saves DIR``), before links are resolved: a link there is
        #: refused as ``--out`` refuses one (its owner chose where this process writes).
        self._given = Path(path).expanduser().absolute() if path is not None and str(path) != "" else None
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
        if problem is None and self._given is not None and self._given != self.path:
            problem = foreign_store_problem(self._given)
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
            self._warn(self._index_damage(exc))
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

    def candidates(self, name: str, infos: builtins.list[SaveInfo] | None = None) -> builtins.list[SaveInfo]:
        """The saves ``name`` may refer to, most recently written first.

        They are the save called exactly ``name`` and the autosaves of the career ``name``.
        When a save called ``name`` exists, only autosaves of the same world (scenario and
        seed) count: a store written before careers were kept apart may hold two careers
        under one name, and the named save must never be shadowed by the other one.
        ``infos``: the store's :meth:`list`, when the caller has it already.

        Raises:
            SaveNotFoundError: nothing matches; the message lists what exists.
        """
        infos = self.list() if infos is None else infos
        name = self._as_listed(name, infos)
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
            raise self._not_found(name, [i.name for i in infos])
        return sorted(matches, key=lambda i: (i.seq, i.updated), reverse=True)

    @staticmethod
    def _as_listed(name: str, infos: builtins.list[SaveInfo]) -> str:
        """``name``, or the autosave it names with its month written otherwise (``c1@m2`` for
        ``c1@m02``, :func:`~saves.names.canonical_autosave`) when only that one exists."""
        if any(i.name == name for i in infos):
            return name
        listed = canonical_autosave(name)
        return listed if any(i.name == listed for i in infos) else name

    def _not_found(self, name: str, names: builtins.list[str]) -> SaveNotFoundError:
        """The error for no save called ``name``: the store's saves (``names``), the first
        :data:`NAMES_SHOWN`, and how many more and where to see them all."""
        names = sorted(set(names))
        more = f", and {len(names) - NAMES_SHOWN} more: pibench saves list" if len(names) > NAMES_SHOWN else ""
        known = ", ".join(names[:NAMES_SHOWN]) or "none yet"
        return SaveNotFoundError(f"no save called {name!r} in {self.path} (saves: {known}{more})")

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
            name = self._as_listed(name, infos)
            for i in infos:
                if i.name == name:
                    return i
            raise self._not_found(name, [i.name for i in infos])
        return self.candidates(name)[0]

    def shadowed(self, infos: builtins.list[SaveInfo] | None = None) -> dict[str, SaveInfo]:
        """The saves whose own name resolves to another, newer save of their career: save name
        -> the save ``--load NAME`` and ``saves show NAME`` use instead (:meth:`resolve`). A
        save ``NAME`` older than its career's newest autosave is one (a session ended by
        "quit without saving", a kill, or a store of an older pibench); ``saves list`` says so.
        """
        infos = self.list() if infos is None else infos
        found = {}
        for i in infos:
            if i.kind != "autosave":
                newest = self.candidates(i.name, infos)[0]
                if newest.name != i.name:
                    found[i.name] = newest
        return found

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

    def branch_name(self, asked: str) -> str | None:
        """The new career name under which playing on from the save ``asked`` must be saved, so
        that it never replaces its career's newer saves; ``None`` to continue the career itself.

        A branch is made when ``asked`` is a save's exact name (``--load qa@m59``, a row picked in
        the TUI's load dialog) and a newer save of its career exists: playing on from it would
        otherwise write that career's ``NAME`` and autosaves over the newer ones. ``--load
        CAREER`` (the newest save, or the one a damaged newest falls back to) continues the
        career, and so does a save of a career that is over (nothing is played on from it). The
        name is ``CAREER-from-mMM`` (``MM`` the month loaded), or with ``-2``,
        ``-3`` ... when a save or career already has that name or a look-alike of it
        (:func:`name_key`).

        Raises:
            SaveNotFoundError: no save ``asked``.
        """
        asked = self._as_listed(asked, self.list())  # c1@m2 names c1@m02: an exact name too
        loaded = self.resolve(asked)
        if loaded.name != asked or self.resolve(loaded.career).name == loaded.name:
            return None
        if loaded.status != "in progress":  # a career over: nothing can be played on from it
            return None
        taken = {name_key(n) for i in self.list() for n in (i.name, i.career)}
        base = f"{loaded.career[: MAX_NAME - 20]}-from-m{loaded.month:02d}"
        name, n = base, 1
        while name_key(name) in taken:
            n += 1
            name = f"{base}-{n}"
        return check_name(name)

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
        what, delete = describe_taken(taken)
        raise SaveError(
            f"{name!r} already names a saved career ({what}). Starting a new career under it would mix "
            f"the two. Use `--load {shlex.quote(name)}` to resume it, choose another name, or delete it first "
            f"with {delete}"
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
        kept = caches_of(world, caches)
        cache = kept.text if kept is not None else None
        meta, state, text = describe_fast(world, scenario, cache)  # serialised at once
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
        state's text made already by that cache (:func:`describe_fast`).
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
        now = now_text()
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
        doc = index_doc(full_meta, size=len(blob), checksum=digest, file=file, seq=seq)
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
        kept = caches_of(world, caches)
        cache = kept.text if kept is not None else None
        base = self._delta_base(career, world, kept) if kept is not None else None
        full: tuple[dict[str, Any], dict[str, Any], str | None] | None = None
        if base is None:
            full = describe_fast(world, scenario, cache)  # serialised right below
        # Autosaves come every month and rotate: atomic, but not fsync'd (docs/saves.md).
        with self._writing(durable=False) as table:
            if base is not None and not self._blob_path(base.file).is_file():
                base = None  # deleted since: write it whole
                full = describe_fast(world, scenario, cache)
            if base is not None:
                meta, encoded = describe_delta(world, scenario, base)
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
                kept.base = DeltaBase(
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

    def _delta_base(self, career: str, world: Any, caches: SaveCaches) -> DeltaBase | None:
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
                raise self._not_found(name, [d["name"] for d in table.all()])
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
        raw = read_outside_file(src)
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
            auto = AUTOSAVE_NAME.match(new_name)
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
            doc = index_doc(rec.meta, size=len(raw), checksum=rec.meta["checksum"], file=p.name, seq=0)
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

    def _index_damage(self, exc: SaveCorruptError) -> str:
        """The one warning for an unusable index (and backup): what is wrong with which file
        and what the store does about it. Reads (listing) and the write that rebuilds the
        index say the same words, so a session that does both warns once."""
        return (
            f"warning: {exc.detail} ({exc.path}). No save is lost: pibench reads the saves from the "
            f"save files in {self.blob_dir} and rebuilds the index from them at its next write."
        )

    def _rebuild(self, db: TinyDB, exc: SaveCorruptError) -> None:
        self._warn(self._index_damage(exc))
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
