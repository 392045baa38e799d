"""Convert saved values to plain JSON and back: the one ``to_doc``/``from_doc`` pair.

Everything a save holds goes through :func:`to_doc` before a single byte is written, so a
value that cannot be saved fails *before* any file is touched (:class:`SaveValueError`
names the path to the bad value).

Conversion policy (documented in ``docs/saves.md``):

* ``None``, ``bool``, ``int``, ``str`` and finite ``float`` are kept as they are. Integers of
  any size are fine (numpy RNG states hold 128-bit integers).
* numpy scalars (``np.float64``, ``np.int32``, ``np.bool_`` ...) become the Python scalar
  of the same value; numpy arrays become (nested) lists.
* dict keys keep their order (the world may iterate its dicts while drawing).
* ``list`` and ``tuple`` become JSON arrays (a tuple comes back as a list, as with plain
  JSON).
* **NaN and ±inf are kept exactly**: JSON has no literal for them, so each is written as the
  tagged object ``{"$pibench": "float", "v": "nan" | "inf" | "-inf"}`` and read back as the
  same float. A resumed career therefore sees the very value it saved (resume is exact),
  and the file stays strict JSON that any tool can read.
* A dict whose keys are all strings is written as a JSON object. A dict with any other key
  (``int``, ``float``, ``bool``, ``None``) -- or one that itself uses the reserved key
  ``"$pibench"`` -- is written as ``{"$pibench": "dict", "items": [[key, value], ...]}``
  so keys keep their type (plain JSON would silently turn ``1`` into ``"1"``).
* Anything else (sets, bytes, arbitrary objects, numpy object arrays, complex numbers) is
  refused with :class:`SaveValueError`.
"""

from __future__ import annotations

import json
import math
import sys
from typing import TYPE_CHECKING, Any

from saves.errors import SaveValueError
from world.textcache import TextCache, fingerprint

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np


def _numpy() -> Any:
    """numpy if this process imported it, else ``None``: without numpy loaded no value can be
    a numpy object, so saving needs no numpy import (``pibench saves list`` starts faster)."""
    return sys.modules.get("numpy")


TAG = "$pibench"
"""The reserved key marking a tagged value (a non-finite float or a dict with typed keys)."""

_FLOAT_NAMES = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_KEY_TYPES = (int, float, bool, type(None))


def _float_tag(x: float) -> dict[str, str]:
    if math.isnan(x):
        return {TAG: "float", "v": "nan"}
    return {TAG: "float", "v": "inf" if x > 0 else "-inf"}


def _path_text(path: tuple[Any, Any] | None) -> str:
    """Format a path chain ``(parent, key)`` built by the encoder, e.g. ``state.people[3]``."""
    parts: list[Any] = []
    while path is not None:
        path, key = path
        parts.append(key)
    out = ""
    for key in reversed(parts):
        if isinstance(key, int) and not isinstance(key, bool):
            out += f"[{key}]"
        elif isinstance(key, str) and key.isidentifier():
            out += f".{key}" if out else key
        else:
            out += f"[{key!r}]"
    return out or "(top level)"


class _Encoder:
    """The careful walk: used when the fast path cannot prove the value is plain JSON."""

    def __init__(self) -> None:
        self.tagged = False

    def fail(self, path: tuple[Any, Any] | None, value: Any, why: str) -> SaveValueError:
        return SaveValueError(_path_text(path), value, why)

    def encode(self, value: Any, path: tuple[Any, Any] | None) -> Any:
        # Order matters: bool is an int, np.bool_ is not.
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, int):
            return int(value)
        if isinstance(value, float):
            if math.isfinite(value):
                return float(value)
            self.tagged = True
            return _float_tag(value)
        np = _numpy()
        if np is not None and isinstance(value, np.generic):
            return self.encode(self.numpy_scalar(value, path), path)
        if isinstance(value, dict):
            return self.encode_dict(value, path)
        if isinstance(value, (list, tuple)):
            return [self.encode(v, (path, i)) for i, v in enumerate(value)]
        if np is not None and isinstance(value, np.ndarray):
            if value.dtype.kind not in "biuf":
                raise self.fail(path, value, f"a numpy array of dtype {value.dtype} cannot be saved")
            return self.encode(value.tolist(), path)
        raise self.fail(path, value, f"a value of type {type(value).__name__} cannot be saved")

    def numpy_scalar(self, value: np.generic, path: tuple[Any, Any] | None) -> Any:
        np = _numpy()
        if isinstance(value, (np.bool_, np.integer, np.floating)):
            return value.item()
        raise self.fail(path, value, f"a numpy {type(value).__name__} cannot be saved")

    def encode_key(self, key: Any, path: tuple[Any, Any] | None) -> Any:
        np = _numpy()
        if np is not None and isinstance(key, np.generic):
            key = self.numpy_scalar(key, path)
        if isinstance(key, (str, *_KEY_TYPES)):
            return self.encode(key, path)
        raise self.fail(path, key, f"a dict key of type {type(key).__name__} cannot be saved")

    def encode_dict(self, value: dict[Any, Any], path: tuple[Any, Any] | None) -> Any:
        if TAG not in value and all(type(k) is str for k in value):
            return {k: self.encode(v, (path, k)) for k, v in value.items()}
        self.tagged = True
        items = []
        for k, v in value.items():
            items.append([self.encode_key(k, (path, f"{k!r} (a key)")), self.encode(v, (path, k))])
        return {TAG: "dict", "items": items}


def _numpy_default(value: Any) -> Any:
    """``json.dumps`` fallback for the fast path: numpy scalars only."""
    np = _numpy()
    if np is not None and isinstance(value, (np.bool_, np.integer, np.floating)):
        return value.item()
    raise TypeError(type(value).__name__)


def canonical_json(doc: Any) -> str:
    """The canonical text of a normalised document (no spaces, ASCII, keys in order).

    Non-ASCII text is written as ``\\uXXXX`` escapes, so even a lone surrogate (which
    agent notes might contain and UTF-8 cannot encode) is saved and read back exactly.

    Keys keep their insertion order: the world may iterate its dicts, so a resumed career
    must see them in the order they were saved. Reading a file and writing the parsed
    document again gives the same text, which is what the checksum is computed over.

    Raises:
        ValueError, TypeError: ``doc`` is not normalised plain JSON.
    """
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def encode(value: Any) -> tuple[Any, bool, str]:
    """Normalise ``value`` and serialise it canonically, in one go.

    The fast path lets the C JSON encoder do the work and proves the result faithful by
    reading it back and comparing (``==``) with the input; any difference (a tuple, an
    integer key, a NaN) sends the value through the careful walk instead.

    Args:
        value: any nesting of dicts, lists, tuples, scalars, numpy scalars and arrays.

    Returns:
        ``(doc, tagged, text)``: the JSON document, whether it holds tagged objects, and
        its canonical text (see :func:`canonical_json`).

    Raises:
        SaveValueError: a value that cannot be saved; the message names its path.
    """
    try:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=True, allow_nan=False, default=_numpy_default)
        doc = json.loads(text)
        if doc == value and TAG not in text:
            return doc, False, text
    except (TypeError, ValueError, RecursionError):
        pass
    doc, tagged = to_doc(value)
    return doc, tagged, canonical_json(doc)


def _check_piece(value: Any, text: str) -> bool:
    """:class:`~world.textcache.TextCache` check: a piece's text reads back as the value,
    with every type (``marshal`` streams equal; a tuple, an integer key or a numpy value
    differs), so the piece is also plain data (returns ``True``).

    Raises:
        ValueError: the text does not read back exactly (the careful encoder must decide).
    """
    if fingerprint(json.loads(text)) != fingerprint(value):
        raise ValueError("not plain JSON")
    return True


def text_cache() -> TextCache:
    """A cache for :func:`encode_text` of one world's successive states (a career's saves)."""
    return TextCache(allow_nan=False, default=_numpy_default, check=_check_piece)


def encode_text(value: Any, cache: TextCache | None = None) -> tuple[bool, str]:
    """:func:`encode` without the document: ``(tagged, canonical text)``.

    With ``cache`` (from :func:`text_cache`, one per world), only the parts of ``value``
    that changed since the last call with that cache are encoded again, and each of them is
    proven faithful as :func:`encode`'s fast path proves the whole (read back and compared);
    the text is byte for byte :func:`encode`'s. Anything the cache cannot take goes through
    :func:`encode`.

    Raises:
        SaveValueError: a value that cannot be saved; the message names its path.
    """
    if cache is not None:
        text = cache.dumps(value)
        if text is not None and TAG not in text:
            return False, text
    _, tagged, text = encode(value)
    return tagged, text


def to_doc(value: Any) -> tuple[Any, bool]:
    """Normalise ``value`` to plain JSON data (see the module docstring for the policy).

    Args:
        value: any nesting of dicts, lists, tuples, scalars, numpy scalars and arrays.

    Returns:
        ``(doc, tagged)``: the JSON-able document and whether it contains tagged objects
        (non-finite floats or typed-key dicts), in which case :func:`from_doc` must be used
        to read it back.

    Raises:
        SaveValueError: a value that cannot be saved; the message names its path.
    """
    enc = _Encoder()
    try:
        doc = enc.encode(value, None)
    except RecursionError:
        raise SaveValueError("(top level)", value, "the value is nested too deeply (or refers to itself)") from None
    return doc, enc.tagged


def from_doc(doc: Any) -> Any:
    """Undo the tagging of :func:`to_doc` (non-finite floats, typed-key dicts).

    Args:
        doc: data parsed from JSON that :func:`to_doc` produced.

    Returns:
        The original value (tuples come back as lists, numpy scalars as Python scalars).

    Raises:
        ValueError: a malformed tagged object.
    """
    if isinstance(doc, list):
        return [from_doc(v) for v in doc]
    if not isinstance(doc, dict):
        return doc
    tag = doc.get(TAG)
    if tag is None:
        return {k: from_doc(v) for k, v in doc.items()}
    if tag == "float" and set(doc) == {TAG, "v"} and doc["v"] in _FLOAT_NAMES:
        return _FLOAT_NAMES[doc["v"]]
    if tag == "dict" and set(doc) == {TAG, "items"} and isinstance(doc["items"], list):
        out = {}
        for pair in doc["items"]:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise ValueError("malformed tagged dict item")
            out[from_doc(pair[0])] = from_doc(pair[1])
        return out
    raise ValueError(f"malformed tagged value {doc!r:.80}")
