"""JSON text of a world state that is re-encoded only where it changed (digests, saves).

A month-60 state is ~240 kB of JSON, most of it append-only logs (ledger, news, the
evaluation log, applicants of past seasons) that do not change from one month to the next.
:class:`TextCache` encodes a state in *pieces* -- blocks of :data:`BLOCK` items of each
long list, and each value of a dict that holds long lists -- and keeps, per piece, a
:func:`fingerprint` of its value and its JSON text. Encoding the state again fingerprints
every piece (``marshal`` is several times cheaper than JSON, which must format every float)
and re-encodes only the pieces whose fingerprint changed.

**Why a fingerprint comparison is a sound proof.** A piece is cached only if it is *plain*
data (exact ``dict``/``list``/``str``/``int``/``float``/``bool``/``None``: its marshal
stream reads back equal to it, which fails for numpy values, whose buffer marshal writes as
bytes). A marshal stream is read deterministically, so a value with the same fingerprint
as a plain piece is plain too, with the same types, values and order; and the JSON text of
plain data is a function of exactly those. ``==`` would not do: ``1 == 1.0 == True``. A
cached text is therefore always the text ``json.dumps`` would write now; the result is byte
for byte the one-shot ``json.dumps`` of the whole value (the tests compare both on real
careers and on edited states).

Anything unexpected (a value JSON refuses, a dict with non-string keys at a level that is
split into pieces) makes :meth:`TextCache.dumps` return ``None``: the caller then encodes
the whole value the ordinary way, so errors and their messages stay those of ``json.dumps``.
"""

from __future__ import annotations

import json
import marshal
from collections.abc import Callable
from typing import Any

BLOCK = 16
"""Items per piece of a long list."""

MAX_DEPTH = 4
"""Dicts nested deeper than this are one piece each (as are all lists)."""

FINGERPRINT_VERSION = 2
"""marshal version of :func:`fingerprint`: 2 is the last without back-references (from 3
on, marshal marks objects by their reference count, so equal values could differ)."""


def fingerprint(value: Any) -> bytes:
    """Bytes that are equal only for values of the same types, values and order.

    ``marshal`` (version :data:`FINGERPRINT_VERSION`) of plain data: exact types only
    (``bool``, ``int``, ``float`` as its 8 IEEE bytes, ``str``, ``None``, ``list``, ``tuple``,
    ``dict`` in its order); anything else, a subclass included, raises ``ValueError``.
    Unlike ``==`` it tells ``1``, ``1.0`` and ``True`` apart, and ``0.0`` from ``-0.0``.
    """
    return marshal.dumps(value, FINGERPRINT_VERSION)


def is_plain(value: Any, blob: bytes | None = None) -> bool:
    """Whether ``value`` is plain data (see the module docstring); ``blob`` is its
    :func:`fingerprint` if known."""
    try:
        return bool(marshal.loads(blob if blob is not None else fingerprint(value)) == value)
    except Exception:
        return False


_SCALARS = frozenset({str, int, float, bool, type(None)})
_encode_str = json.encoder.encode_basestring_ascii  # C: what json.dumps writes for a str


def _has_long(value: dict[Any, Any]) -> bool:
    """Whether a dict holds a list or dict longer than :data:`BLOCK` (worth splitting)."""
    for v in value.values():
        t = type(v)
        if (t is list or t is dict) and len(v) > BLOCK:
            return True
    return False


class TextCache:
    """Encode JSON-like values, reusing the text of pieces that did not change.

    Args:
        sort_keys, allow_nan, default: as for ``json.dumps`` (separators are always compact
            ``(",", ":")`` and the output ASCII).
        check: called with ``(value, text)`` for every piece encoded afresh (a saver proves
            each new piece faithful there); raising from it aborts :meth:`dumps`.

    Attributes:
        encoded: how many pieces the last :meth:`dumps` encoded afresh (for tests and bench).
    """

    def __init__(
        self,
        *,
        sort_keys: bool = False,
        allow_nan: bool = True,
        default: Callable[[Any], Any] | None = None,
        check: Callable[[Any, str], None] | None = None,
    ) -> None:
        self._encode = json.JSONEncoder(
            separators=(",", ":"), sort_keys=sort_keys, allow_nan=allow_nan, default=default
        ).encode
        self.sort_keys = sort_keys
        self.check = check
        self._pieces: dict[tuple[Any, ...], tuple[bytes, str]] = {}
        self._used: dict[tuple[Any, ...], tuple[bytes, str]] = {}
        self.encoded = 0

    def dumps(self, value: Any) -> str | None:
        """The compact JSON text of ``value`` (see the module docstring), or ``None`` when
        the value must be encoded the ordinary way (then the cache is left as it was)."""
        self._used = {}
        self.encoded = 0
        try:
            text = self._value(value, (), 0)
        except Exception:
            return None
        self._pieces = self._used  # pieces of values that are gone are dropped here
        return text

    def _value(self, value: Any, path: tuple[Any, ...], depth: int) -> str:
        t = type(value)
        if t is str:
            return _encode_str(value)
        if t is int:
            return int.__repr__(value)
        if t in _SCALARS:
            return self._encode(value)
        if t is dict and (depth == 0 or (depth < MAX_DEPTH and _has_long(value))):
            keys = list(value)
            if any(type(k) is not str for k in keys):
                raise TypeError("non-string keys")  # json's own key handling: encode the whole
            if self.sort_keys:
                keys.sort()
            parts = [_encode_str(k) + ":" + self._value(value[k], (*path, k), depth + 1) for k in keys]
            return "{" + ",".join(parts) + "}"
        if t is list and len(value) > BLOCK:
            n = len(value)
            parts = [self._piece(value[i : i + BLOCK], (*path, i)) for i in range(0, n, BLOCK)]
            return "[" + ",".join(p[1:-1] for p in parts) + "]"
        return self._piece(value, path)

    def _piece(self, value: Any, path: tuple[Any, ...]) -> str:
        blob = fingerprint(value)
        hit = self._pieces.get(path)
        if hit is not None and hit[0] == blob:
            self._used[path] = hit
            return hit[1]
        text = self._encode(value)
        if self.check is not None:
            self.check(value, text)
        self.encoded += 1
        if is_plain(value, blob):
            self._used[path] = (blob, text)
        return text
