"""Crash-safe file writes and the tinydb storage class built on them.

tinydb's default ``JSONStorage`` truncates its file and rewrites it in place, so a crash
mid-write leaves half a file. :class:`AtomicJSONStorage` instead

1. serialises the whole database first (a value that cannot be saved fails here, before any
   file is touched),
2. writes the bytes to a temporary file in the same folder and ``fsync``\\ s it,
3. keeps the current good file as ``<name>.bak`` (a hard link, so it costs no copy),
4. ``os.replace``\\ s the temporary file over the main one (atomic on POSIX and Windows) and
   ``fsync``\\ s the folder.

At every instant the main file is therefore either the complete old version or the complete
new one. On reading, a main file that does not parse or fails its checksum is replaced by the
backup, with a visible warning (:class:`~saves.errors.StoreWarning`); a file from a newer
format version is refused outright (never overwritten).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from tinydb.storages import Storage

from saves import values
from saves.codec import INDEX_FORMAT, decode_envelope, encode_envelope
from saves.errors import SaveCorruptError

TMP_SUFFIX = ".tmp"
"""Suffix of temporary files; leftovers from a killed writer are removed under the lock."""

_UMASK = os.umask(0o022)
os.umask(_UMASK)
"""The process's umask, read once at import (reading it means setting it: done here, before
any thread of ours writes files, rather than around every write)."""


def as_created(mode: int) -> int:
    """The permission bits a file gets when created with ``mode``, as ``open()`` creates it:
    ``mode`` less the process's umask (read once at import)."""
    return mode & ~_UMASK


def fsync_dir(folder: Path) -> None:
    """``fsync`` a folder so a rename inside it survives a power cut (no-op where unsupported)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(
    path: Path, data: bytes, *, backup: Path | None = None, durable: bool = True, mode: int | None = None
) -> None:
    """Replace ``path`` with ``data`` atomically and (by default) durably.

    Args:
        path: the file to write (its folder must exist).
        data: the complete new contents.
        backup: if given and ``path`` exists, the current file becomes ``backup`` first
            (hard link; copy where links are unsupported).
        durable: ``fsync`` the file before the rename and the folder after it, so the new
            version survives a power cut. ``False`` (autosaves) skips both: the replace is
            still atomic, so a crash or kill leaves the old or the new file, but a power cut
            may lose the newest version (loading then falls back to an older autosave).
        mode: the new file's permission bits less the process's umask, as ``open()`` creates
            a file (``0o666``: what a user expects of an output file such as a sweep's
            ``--json``); ``None`` keeps the temporary file's own ``0o600`` (saves: private).

    Raises:
        OSError: the disk refused; the old file is untouched and no temporary file is left.
    """
    with atomic_writer(path, backup=backup, durable=durable, mode=mode) as fh:
        fh.write(data)


@contextlib.contextmanager
def atomic_writer(
    path: Path, *, backup: Path | None = None, durable: bool = True, mode: int | None = None
) -> Iterator[BinaryIO]:
    """:func:`atomic_write` for contents written in pieces: the block writes to a binary
    temporary file that replaces ``path`` when the block ends without an error (an error
    removes it and leaves ``path`` untouched). Arguments and errors as :func:`atomic_write`."""
    folder = path.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TMP_SUFFIX, dir=folder)
    try:
        if mode is not None:
            os.fchmod(fd, as_created(mode))
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        if backup is not None and path.exists():
            _keep_backup(path, backup)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable:
        fsync_dir(folder)


def _keep_backup(path: Path, backup: Path) -> None:
    """Make ``backup`` a copy of ``path`` (atomically: link or copy to a temp name, then replace)."""
    tmp = backup.with_name(f".{backup.name}.{os.getpid()}{TMP_SUFFIX}")
    try:
        tmp.unlink(missing_ok=True)
        try:
            os.link(path, tmp)
        except OSError:
            tmp.write_bytes(path.read_bytes())
        os.replace(tmp, backup)
    finally:
        tmp.unlink(missing_ok=True)


def remove_stale_temps(folder: Path) -> int:
    """Delete temporary files left by killed writers. Call only while holding the store lock.

    Returns:
        How many files were removed.
    """
    removed = 0
    try:
        entries = list(folder.iterdir())
    except OSError:
        return 0
    for entry in entries:
        if entry.name.startswith(".") and entry.name.endswith(TMP_SUFFIX):
            try:
                entry.unlink()
                removed += 1
            except OSError:
                pass
    return removed


class AtomicJSONStorage(Storage):
    """tinydb storage writing a checksummed JSON envelope with atomic replace and a backup.

    Args:
        path: the database file; its backup is ``<path>.bak``.
        warn: called with a message when the backup had to be used (once per message).
        create_dirs: create the file's folder on the first write.
    """

    def __init__(
        self, path: str | os.PathLike[str], warn: Callable[[str], None] | None = None, create_dirs: bool = True
    ) -> None:
        super().__init__()
        self.path = Path(path)
        self.backup = self.path.with_name(self.path.name + ".bak")
        self._warn = warn
        self._warned: set[str] = set()
        self._create_dirs = create_dirs
        self._main_good: bool | None = None  # None = not read yet
        self._batch: list[Any] | None = None  # [tables or None, dirty] while batching
        self.durable = True  # fsync index writes (see saves.storage.atomic_write)

    # -- reading ---------------------------------------------------------------------------
    def _load(self, path: Path) -> dict[str, Any] | None:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise SaveCorruptError(
                "unreadable", str(path), f"the save-store index cannot be read ({exc.strerror})"
            ) from None
        env = decode_envelope(raw, INDEX_FORMAT, "tables", str(path))
        tables = env["tables"]
        if env.get("tagged"):
            try:
                tables = values.from_doc(tables)
            except ValueError as exc:
                raise SaveCorruptError("corrupt", str(path), f"the save-store index is corrupt: {exc}") from None
        if not isinstance(tables, dict) or not all(isinstance(t, dict) for t in tables.values()):
            raise SaveCorruptError("corrupt", str(path), "the save-store index is corrupt: its tables are malformed")
        return tables

    def begin(self) -> None:
        """Start a batch: reads and writes stay in memory until :meth:`commit`.

        Every change made by one store operation (e.g. save + prune autosaves) then reaches
        the disk in a single atomic write, or not at all if the operation fails.
        """
        self._batch = [self._read_disk(), False]

    def commit(self) -> bool:
        """Write the batch's changes (if any) in one atomic write and end the batch.

        Returns:
            Whether it wrote (the batch changed something).
        """
        batch, self._batch = self._batch, None
        if batch is not None and batch[1]:
            self._write_disk(batch[0])
            return True
        return False

    def rollback(self) -> None:
        """Drop the batch's changes."""
        self._batch = None

    def read(self) -> dict[str, dict[str, Any]] | None:
        """Return the database, falling back to the backup when the main file is damaged.

        Returns:
            The tables, or ``None`` for an empty (never written) store.

        Raises:
            SaveCorruptError: a future-version index (never replaced by an old backup), or
                both the main file and its backup are unusable.
        """
        if self._batch is not None:
            tables: dict[str, dict[str, Any]] | None = self._batch[0]
            return tables
        return self._read_disk()

    def _read_disk(self) -> dict[str, dict[str, Any]] | None:
        try:
            data = self._load(self.path)
        except SaveCorruptError as main_err:
            if main_err.kind == "future-version":
                raise
            self._main_good = False
            try:
                data = self._load(self.backup)
            except SaveCorruptError as bak_err:
                raise SaveCorruptError(
                    main_err.kind, str(self.path), f"{main_err.detail}; its backup is unusable too ({bak_err.detail})"
                ) from None
            if data is None:
                raise
            self._emit(
                f"warning: {main_err.detail} ({self.path}). Using the backup copy {self.backup.name}; "
                "the most recent change to the list of saves may be missing."
            )
            return data
        if data is None:
            self._main_good = False
            data = self._load(self.backup)  # main missing: only the backup is left
            if data is not None:
                self._emit(
                    f"warning: the save-store index {self.path} is missing. Using the backup copy {self.backup.name}."
                )
            return data
        self._main_good = True
        return data

    # -- writing ---------------------------------------------------------------------------
    def write(self, data: dict[str, dict[str, Any]]) -> None:
        """Serialise ``data`` and replace the file atomically, keeping the old one as backup.

        Raises:
            SaveValueError: a value that cannot be saved (nothing was written).
            OSError: the disk refused (the old file is intact).
        """
        if self._batch is not None:
            # Checked (encoded) at commit, still before the index file is touched.
            self._batch[0], self._batch[1] = data, True
            return
        self._write_disk(data)

    def _write_disk(self, data: dict[str, dict[str, Any]]) -> None:
        _, tagged, text = values.encode(data)  # fail before touching any file
        blob, _ = encode_envelope(INDEX_FORMAT, "tables", text, tagged=tagged)
        if self._create_dirs:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        if self._main_good is None:
            try:
                self._main_good = self._load(self.path) is not None
            except SaveCorruptError:
                self._main_good = False
        # Keep only a verified-good main file as the backup: a damaged one must not
        # overwrite the good backup we may just have recovered from.
        atomic_write(self.path, blob, backup=self.backup if self._main_good else None, durable=self.durable)
        self._main_good = True

    def close(self) -> None:
        """Nothing to release: every operation opens and closes its own file."""

    def _emit(self, message: str) -> None:
        if message in self._warned:
            return
        self._warned.add(message)
        if self._warn is not None:
            self._warn(message)
