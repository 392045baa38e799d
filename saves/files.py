"""Save files outside the store: reading an exported save (or a store blob) and verifying it."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from saves import values
from saves.codec import SAVE_FORMAT, decode_envelope
from saves.errors import (
    SaveCorruptError,
    SaveError,
)
from saves.records import SaveInfo, SaveRecord, index_doc

if TYPE_CHECKING:  # pragma: no cover
    pass


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
    info = SaveInfo.from_doc(index_doc(meta, size=len(raw), checksum=env["checksum"], file=Path(path).name, seq=0))
    scenario = meta.get("scenario") or {}
    return SaveRecord(info=info, scenario=scenario, state=body["state"], meta=meta)


def read_save_file(path: str | os.PathLike[str]) -> SaveRecord:
    """Read and verify a save file outside any store (e.g. an export).

    Raises:
        SaveCorruptError: see :func:`read_save_bytes`.
        SaveError: the file cannot be read.
    """
    p = Path(path)
    return read_save_bytes(read_outside_file(p), str(p))


MAX_IMPORT_BYTES = 1 << 30
"""Largest file read as a save from outside a store (``saves import``,
:func:`read_save_file`), in bytes: far above any save (a baseline career's month-60 save is
~200 kB), so that a sparse or runaway file is refused before it is read into memory."""


def read_outside_file(path: Path) -> bytes:
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
