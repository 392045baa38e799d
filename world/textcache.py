"""JSON text of a world state that is re-encoded only where it changed (digests, saves).

A month-60 state is ~240 kB of JSON, most of it append-only logs (ledger, news, the
evaluation log, applicants of past seasons) that do not change from one month to the next.
:class:`TextCache` encodes a state in *pieces* -- blocks of :data:`BLOCK` rows (or
:data:`DICT_BLOCK` entities) of each long list, and each value of a dict that holds long
lists -- and keeps, per piece, the pickle of its value and its JSON text. Encoding the state
again pickles every piece (several times cheaper than JSON, which must format every float)
and re-encodes only the pieces whose pickle changed. :meth:`TextCache.dumps_with_sorted`
makes, in the same pass, the sorted-keys text a digest hashes.

**Why a pickle comparison is a sound proof.** A piece is cached only if it is *plain* data
(exact ``dict``/``list``/``tuple``/``str``/``int``/``float``/``bool``/``None``, checked by
:func:`is_plain`). Equal pickle bytes unpickle to equal values of the very same types, in
the same order (``1``, ``1.0`` and ``True`` pickle differently, a tuple and a list too, and
floats are pickled as their 8 IEEE bytes, so ``0.0``/``-0.0`` and every NaN differ), and the
JSON text of plain data is a function of exactly those. ``==`` would not do:
``1 == 1.0 == True``. A cached text is therefore always the text ``json.dumps`` would write
now; the result is byte for byte the one-shot ``json.dumps`` of the whole value (the tests
compare both on real careers and on edited states). Pickles may also differ for equal values
that share objects differently; that only costs an encoding.

Anything unexpected (a value JSON refuses, a dict with non-string keys at a level that is
split into pieces) makes :meth:`TextCache.dumps` return ``None``: the caller then encodes
the whole value the ordinary way, so errors and their messages stay those of ``json.dumps``.
"""

from __future__ import annotations

import json
import marshal
import math
import pickle
from collections.abc import Callable
from typing import Any, cast

BLOCK = 16
"""Items per piece of a long list (of rows or numbers: a log)."""

DICT_BLOCK = 4
"""Items per piece of a list of dicts (entities, which are larger and change more often)."""

MAX_DEPTH = 4
"""Dicts nested deeper than this are one piece each (as are all lists)."""

FINGERPRINT_VERSION = 2
"""marshal version of :func:`fingerprint`: 2 is the last without back-references (from 3
on, marshal marks objects by their reference count, so equal values could differ)."""


def fingerprint(value: Any) -> bytes:
    """Bytes that are equal only for values of the same types, values and order, whatever
    objects they share (used to compare a rebuilt world with a parsed save).

    ``marshal`` (version :data:`FINGERPRINT_VERSION`): exact types only (``bool``, ``int``,
    ``float`` as its 8 IEEE bytes, ``str``, ``None``, ``list``, ``tuple``, ``dict`` in its
    order); a subclass raises ``ValueError``. Unlike ``==`` it tells ``1``, ``1.0`` and
    ``True`` apart, and ``0.0`` from ``-0.0``. Caution: objects with a buffer (``bytes``,
    numpy values) are written as their bytes, so a numpy float and int of the same 8 bytes
    look alike: compare a value's fingerprint with that of JSON-parsed data (which holds no
    buffers), as :func:`is_plain`, the saves' checks and ``saves.store.rebuilds_state`` do.
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
_finite = math.isfinite
_pickle = pickle.dumps
_PROTOCOL = 5


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
            each new piece faithful there); raising from it aborts :meth:`dumps`; it
            returns whether the piece is plain data (else :func:`is_plain` is asked).

    Attributes:
        encoded: how many pieces the last call encoded afresh (for tests and bench).
    """

    def __init__(
        self,
        *,
        sort_keys: bool = False,
        allow_nan: bool = True,
        default: Callable[[Any], Any] | None = None,
        check: Callable[[Any, str], bool] | None = None,
    ) -> None:
        self._encode = json.JSONEncoder(
            separators=(",", ":"), sort_keys=sort_keys, allow_nan=allow_nan, default=default
        ).encode
        self._encode_sorted = json.JSONEncoder(separators=(",", ":"), sort_keys=True, allow_nan=True).encode
        self.sort_keys = sort_keys
        self.check = check
        self._pieces: dict[tuple[Any, ...], _Entry] = {}
        self._used: dict[tuple[Any, ...], _Entry] = {}
        self._omit: str | None = None
        self.encoded = 0

    def dumps(self, value: Any) -> str | None:
        """The compact JSON text of ``value`` (see the module docstring), or ``None`` when
        the value must be encoded the ordinary way (then the cache is left as it was)."""
        both = self._run(value, False, None)
        return None if both is None else both[0]

    def dumps_with_sorted(self, value: dict[str, Any], omit: str) -> tuple[str, str] | None:
        """In one pass, :meth:`dumps` of ``value`` and the text of
        ``json.dumps({k: v for k, v in value.items() if k != omit}, sort_keys=True,
        separators=(",", ":"), allow_nan=True)`` (what a digest hashes); each piece is
        fingerprinted once for both. ``None`` as for :meth:`dumps`."""
        if type(value) is not dict:
            return None
        return cast("tuple[str, str] | None", self._run(value, True, omit))

    def _run(self, value: Any, pair: bool, omit: str | None) -> tuple[str, str | None] | None:
        self._used = {}
        self._omit = omit
        self.encoded = 0
        try:
            both = self._node(value, (), 0, pair)
        except Exception:
            return None
        self._pieces = self._used  # pieces of values that are gone are dropped here
        return both

    def _node(self, value: Any, path: tuple[Any, ...], depth: int, pair: bool) -> tuple[str, str | None]:
        t = type(value)
        if t is str:
            text = _encode_str(value)
            return text, text
        if t is int:
            text = int.__repr__(value)
            return text, text
        if t is float and _finite(value):
            text = float.__repr__(value)  # what json.dumps writes for a finite float
            return text, text
        if t in _SCALARS:
            text = self._encode(value)  # bool, None, non-finite float: refused or spelt as json does
            return text, text
        if t is dict and (depth == 0 or (depth < MAX_DEPTH and _has_long(value))):
            return self._dict_node(value, path, depth, pair)
        if t is list:
            return self._list_node(value, path, pair)
        return self._piece(value, path, pair, False)

    def _dict_node(
        self, value: dict[str, Any], path: tuple[Any, ...], depth: int, pair: bool
    ) -> tuple[str, str | None]:
        """The texts of a dict encoded key by key (the top level, or one holding long lists)."""
        keys = list(value)
        if any(type(k) is not str for k in keys):
            raise TypeError("non-string keys")  # json's own key handling: encode the whole
        items = [(k, self._node(value[k], (*path, k), depth + 1, pair)) for k in keys]
        ordered = sorted(items, key=_first) if (self.sort_keys or pair) else items
        main = ordered if self.sort_keys else items
        text = "{" + ",".join(_encode_str(k) + ":" + both[0] for k, both in main) + "}"
        if not pair:
            return text, None
        omit = self._omit if depth == 0 else None
        parts = [_encode_str(k) + ":" + cast(str, both[1]) for k, both in ordered if k != omit]
        return text, "{" + ",".join(parts) + "}"

    def _list_node(self, value: list[Any], path: tuple[Any, ...], pair: bool) -> tuple[str, str | None]:
        """The texts of a list: block by block when it is longer than a block (a log's complete
        blocks as one prefix), else as one piece."""
        n = len(value)
        per = DICT_BLOCK if n and type(value[0]) is dict else BLOCK
        if n <= per:
            return self._piece(value, path, pair, False)
        start = 0
        pieces = []
        if per == BLOCK and n > 2 * BLOCK:  # a log: its complete blocks rarely change
            start = (n - 1) // per * per
            pieces.append(self._prefix(value, path, start, pair))
        pieces += [self._piece(value[i : i + per], (*path, i), pair, True) for i in range(start, n, per)]
        text = "[" + ",".join([p[0] for p in pieces]) + "]"
        if not pair:
            return text, None
        if all(p[0] is p[1] for p in pieces):  # no dicts: key order changes nothing
            return text, text
        return text, "[" + ",".join([cast(str, p[1]) for p in pieces]) + "]"

    def _piece(self, value: Any, path: tuple[Any, ...], pair: bool, inner: bool) -> tuple[str, str | None]:
        """The texts of one piece; ``inner``: without the brackets of the list it is a block of."""
        blob = _pickle(value, _PROTOCOL)
        hit = self._pieces.get(path)
        if hit is not None and hit[0] == blob:
            if pair and hit[2] is None:
                hit = (blob, hit[1], self._sorted_text(value, inner))
            self._used[path] = hit
            return hit[1], hit[2]
        text = self._encode(value)
        plain = self.check(value, text) if self.check is not None else False
        self.encoded += 1
        if inner:
            text = text[1:-1]
        plain = plain or is_plain(value)
        stext = None
        if pair:
            # Pickles of dict-free values hold no EMPTY_DICT opcode ("}"); the byte may also
            # occur in data, which only costs a second encoding.
            stext = text if plain and b"}" not in blob else self._sorted_text(value, inner)
        if plain:
            self._used[path] = (blob, text, stext)
        return text, stext

    def _prefix(self, value: list[Any], path: tuple[Any, ...], end: int, pair: bool) -> tuple[str, str | None]:
        """The inner texts of ``value[:end]`` (whole blocks): one pickle for all of them when
        none changed, else block by block (and the prefix is remembered again)."""
        key = (*path, "prefix")
        blob = _pickle(value[:end], _PROTOCOL)
        hit = self._pieces.get(key)
        blocks = [(*path, i) for i in range(0, end, BLOCK)]
        if hit is not None and hit[0] == blob and not (pair and hit[2] is None):
            for k in blocks:  # keep the blocks for the day the prefix changes
                entry = self._pieces.get(k)
                if entry is not None:
                    self._used[k] = entry
            self._used[key] = hit
            return hit[1], hit[2]
        pieces = [
            self._piece(value[i : i + BLOCK], k, pair, True) for i, k in zip(range(0, end, BLOCK), blocks, strict=True)
        ]
        text = ",".join([p[0] for p in pieces])
        stext: str | None = None
        if pair:
            same = all(p[0] is p[1] for p in pieces)
            stext = text if same else ",".join([cast(str, p[1]) for p in pieces])
        if all(k in self._used for k in blocks):  # every block plain: the prefix is too
            self._used[key] = (blob, text, stext)
        return text, stext

    def _sorted_text(self, value: Any, inner: bool) -> str:
        text = self._encode_sorted(value)
        return text[1:-1] if inner else text


_Entry = tuple[bytes, str, "str | None"]
"""A cached piece: fingerprint, text, and sorted text (``None`` until asked for)."""


def _first(item: tuple[str, Any]) -> str:
    return item[0]
