"""Seals: a store's own mark on the saves it wrote from a live world.

Loading a world normally replays its action log to prove that the state follows from the
rules (:func:`saves.store.verify_replay`); that costs a re-simulation of the career. A save
the store wrote itself from a live ``World`` (``save``, ``autosave``), or imported after
that very check, carries a **seal**: an HMAC-SHA256 of the file's checksum under a random
key kept in the store folder (``.seal-key``, readable by its owner only). Loading a save
whose seal verifies skips the replay; everything else is replayed as before: a save written
from raw data (``save_state``), one from another store or machine, and any edited file (an
edit changes the checksum, and a new seal needs the key).

A save that carries no seal but passed that replay check when the store loaded it (written
from raw data, or by an older pibench) is as verified as an import: its **index entry** then
gets a mark (:func:`vouch`: an HMAC under the same key of the file's checksum and the digest
the check compared), and its next load needs no replay either (``SaveStore.load_world``).
The mark is bound to that very file and digest: an edited file (another checksum) or an
edited digest in the index does not match it and is replayed, and refused, as before.

What a seal does not stop: someone who can read the store's key can seal an edited file.
``pibench saves show`` always replays, whatever the seal says.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

KEY_NAME = ".seal-key"
"""The key file in the store folder (64 hex digits)."""

PREFIX = "hmac-sha256:"


_KEYS: dict[str, tuple[tuple[int, ...], bytes]] = {}
"""Keys read, by key file path, with the file's identity then (inode, size, times): a
store reads its key at every save and load, and a stat is cheaper than a read."""


def read_key(folder: Path) -> bytes | None:
    """The store's seal key, or ``None`` when it has none (or it is unreadable or malformed).

    A key file is never rewritten in place; one replaced or re-created (another inode or
    time) is read again."""
    path = os.path.join(folder, KEY_NAME)
    try:
        st = os.stat(path)
        ident = (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        hit = _KEYS.get(path)
        if hit is not None and hit[0] == ident:
            return hit[1]
        with open(path, encoding="ascii") as fh:
            key = bytes.fromhex(fh.read().strip())
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if len(key) != 32:
        return None
    _KEYS[path] = (ident, key)
    return key


def make_key(folder: Path) -> bytes | None:
    """The store's seal key, created (owner-only) when missing; ``None`` if it cannot be made
    or cannot be read.

    A key file that exists but cannot be read or is malformed is never replaced: a read
    error may be passing, and the seals of the store's saves (its autosave deltas') need
    that very key; saves are then written unsealed (a whole file, checked by replay).
    Call while holding the store's lock (two writers never race to create it).
    """
    key = read_key(folder)
    if key is not None:
        return key
    key = secrets.token_bytes(32)
    path = folder / KEY_NAME
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(key.hex() + "\n")
            fh.flush()
            os.fsync(fh.fileno())  # the seals of the store's saves (its deltas') need this very key
    except OSError:
        return None
    return key


def seal(key: bytes, checksum: str) -> str:
    """The seal of a file with ``checksum`` (``"sha256:<hex>"``) under ``key``."""
    return PREFIX + hmac.new(key, checksum.encode("ascii", "replace"), hashlib.sha256).hexdigest()


def verify(key: bytes | None, checksum: str, value: object) -> bool:
    """Whether ``value`` is this key's seal of ``checksum`` (constant-time comparison)."""
    if key is None or not isinstance(value, str) or not isinstance(checksum, str):
        return False
    return hmac.compare_digest(seal(key, checksum), value)


VOUCH_PREFIX = "verified:"
"""What an index entry's mark (:func:`vouch`) says, inside the HMAC: unlike a file's seal
(the checksum alone), it covers the digest the replay check compared too."""


def vouch(key: bytes, checksum: str, digest: str) -> str:
    """The mark of an index entry whose file (``checksum``) passed the replay check against
    the recorded ``digest`` (``""`` when none was recorded) under ``key``."""
    return seal(key, f"{VOUCH_PREFIX}{checksum}/{digest}")


def verify_vouch(key: bytes | None, checksum: str, digest: str, value: object) -> bool:
    """Whether ``value`` is this key's :func:`vouch` of ``checksum`` and ``digest``
    (constant-time comparison)."""
    if not isinstance(checksum, str) or not isinstance(digest, str):
        return False
    return verify(key, f"{VOUCH_PREFIX}{checksum}/{digest}", value)
