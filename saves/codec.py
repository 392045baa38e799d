"""The on-disk envelope shared by save files and the store's index.

A file is one strict-JSON object ending in ``"}\\n"``::

    {"format": "pibench-save", "format_version": 2, "checksum": "sha256:<hex>",
     "tagged": false, "save": {...}}

The checksum is SHA-256 over ``"<format>/<format_version>\\n"`` followed by the canonical
text of the payload (:func:`saves.values.canonical_json`: compact, keys in their saved
order), so reformatting a file is harmless but any change of a value is caught. Reading checks, in this order, and refuses
with a :class:`SaveCorruptError` whose ``kind`` says which check failed:

1. ``truncated`` -- empty, or the start of a JSON object that stops early: the parser ran
   out of text (the write was cut short);
2. ``corrupt`` -- not UTF-8 or not valid JSON otherwise (garbage, junk inside or after it);
3. ``not-a-save`` -- valid JSON but not this kind of pibench file;
4. ``future-version`` -- written by a newer pibench (``format_version`` above ours);
5. ``tampered`` -- the checksum does not match (edited by hand, or damaged on disk).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from saves.errors import SaveCorruptError
from saves.values import canonical_json

SAVE_FORMAT = "pibench-save"
"""``format`` marker of a save file (a store blob or an exported save)."""

INDEX_FORMAT = "pibench-store"
"""``format`` marker of the store's index file."""

FORMAT_VERSION = 2
"""Version of both file layouts, written in every new file; bump it when their shape changes
(and keep reading old ones). Version 2 added autosave deltas (a save whose state is the
change since an earlier autosave of the store, :func:`saves.store.is_delta`) and the index
field ``base`` (the file a delta builds on, which garbage collection must keep): a pibench
that reads only version 1 therefore refuses the whole store rather than delete the files
deltas need. Version 1 files have the same layout and are read as they are."""

_WHAT = {SAVE_FORMAT: "save file", INDEX_FORMAT: "save-store index"}


def checksum(fmt: str, version: int, payload_text: str) -> str:
    """SHA-256 checksum of a payload's canonical text, prefixed ``"sha256:"``.

    Args:
        fmt: the file's ``format`` marker.
        version: the file's ``format_version``.
        payload_text: canonical JSON text of the payload.

    Returns:
        ``"sha256:" + hex digest``.
    """
    h = hashlib.sha256(f"{fmt}/{version}\n".encode())
    h.update(payload_text.encode("utf-8"))
    return "sha256:" + h.hexdigest()


def encode_envelope(
    fmt: str, key: str, payload_text: str, *, tagged: bool, seal_key: bytes | None = None
) -> tuple[bytes, str]:
    """Build a file's bytes around a payload already serialised canonically.

    Args:
        fmt: ``SAVE_FORMAT`` or ``INDEX_FORMAT``.
        key: the payload's key in the envelope (``"save"`` or ``"tables"``).
        payload_text: canonical JSON text of the payload.
        tagged: whether the payload holds tagged values (see :mod:`saves.values`).
        seal_key: the store's seal key: add a ``"seal"`` of the checksum (:mod:`saves.seal`).

    Returns:
        ``(file bytes, checksum)``.
    """
    digest = checksum(fmt, FORMAT_VERSION, payload_text)
    fields: dict[str, Any] = {"format": fmt, "format_version": FORMAT_VERSION, "checksum": digest, "tagged": tagged}
    if seal_key is not None:
        from saves.seal import seal

        fields["seal"] = seal(seal_key, digest)
    head = json.dumps(fields, separators=(",", ":"))
    text = head[:-1] + f',"{key}":' + payload_text + "}\n"
    return text.encode("utf-8"), digest


def decode_envelope(raw: bytes, fmt: str, key: str, path: str) -> dict[str, Any]:
    """Parse and verify a file written by :func:`encode_envelope`.

    Args:
        raw: the file's bytes.
        fmt: the expected ``format`` marker.
        key: the payload's key.
        path: the file's path, for messages.

    Returns:
        The envelope dict (payload still tagged; see :func:`saves.values.from_doc`).

    Raises:
        SaveCorruptError: with ``kind`` truncated, corrupt, not-a-save, future-version or
            tampered.
    """
    fast = _decode_as_written(raw, fmt, key)
    if fast is not None:
        return fast
    what = _WHAT.get(fmt, "file")
    if not raw.strip():
        raise SaveCorruptError("truncated", path, f"the {what} is empty (a write was cut short)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.end == len(raw) and exc.reason == "unexpected end of data":  # cut inside a character
            raise SaveCorruptError("truncated", path, _cut_short_detail(what, raw)) from None
        raise SaveCorruptError(
            "corrupt", path, f"the {what} is corrupt: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    try:
        env = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        # Truncated = the start of a file like ours that stops early: the parser ran out of
        # text. Anything else that does not parse ("garbage", "{garbage", a file with junk
        # in the middle or after the end) is corrupt.
        if isinstance(exc, json.JSONDecodeError) and text.lstrip().startswith("{") and _ends_early(text, exc):
            raise SaveCorruptError("truncated", path, _cut_short_detail(what, raw)) from None
        detail = f" ({exc.msg}, line {exc.lineno} column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise SaveCorruptError("corrupt", path, f"the {what} is corrupt: not valid JSON{detail}") from None
    if not isinstance(env, dict) or env.get("format") != fmt:
        found = env.get("format") if isinstance(env, dict) else None
        hint = f" (it is a {_WHAT[found]})" if found in _WHAT else ""
        raise SaveCorruptError("not-a-save", path, f"this is not a pibench {what}{hint}")
    version = env.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SaveCorruptError("corrupt", path, f"the {what} is corrupt: bad format_version {version!r}")
    if version > FORMAT_VERSION:
        raise SaveCorruptError(
            "future-version",
            path,
            f"the {what} comes from a newer pibench (format version {version}; this pibench reads "
            f"versions up to {FORMAT_VERSION}); upgrade pibench to open it",
        )
    if key not in env or not isinstance(env.get("checksum"), str):
        raise SaveCorruptError("corrupt", path, f"the {what} is corrupt: its {key!r} or 'checksum' field is missing")
    try:
        actual = checksum(fmt, version, canonical_json(env[key]))
    except (TypeError, ValueError):
        actual = "unverifiable"
    if actual != env["checksum"]:
        raise SaveCorruptError(
            "tampered",
            path,
            f"the {what} fails its checksum: it was changed after pibench wrote it (edited by hand or damaged on disk)",
        )
    return env


_PARTIAL_TOKEN = re.compile(r"t(r(u)?)?|f(a(l(s)?)?)?|n(u(l)?)?|-|[.eE][-+]?[0-9]*|u[0-9a-fA-F]{0,4}")
"""What a file cut short can leave where the parser stopped: the start of ``true``,
``false`` or ``null``, a number's sign, fraction or exponent, or a ``\\u`` escape (which
the parser refuses even when its four digits are there but the string's end is not)."""


def _ends_early(text: str, exc: json.JSONDecodeError) -> bool:
    """Whether ``text`` failed to parse only because it stops early (a prefix of JSON):
    the parser stopped at the end of the text, in a string left open, or inside a token
    the cut split (:data:`_PARTIAL_TOKEN`). A complete-looking file (ending ``}\\n``) never is."""
    if text.endswith("}\n"):
        return False
    if exc.msg.startswith("Unterminated string"):
        return True
    tail = text[exc.pos :].rstrip()
    return tail == "" or _PARTIAL_TOKEN.fullmatch(tail) is not None


def _cut_short_detail(what: str, raw: bytes) -> str:
    return f"the {what} is truncated: it ends early, at byte {len(raw)} (a write was cut short)"


_HEADER_KEYS = frozenset({"format", "format_version", "checksum", "tagged", "seal"})


def _decode_as_written(raw: bytes, fmt: str, key: str) -> dict[str, Any] | None:
    """The envelope of a file exactly as :func:`encode_envelope` wrote it, or ``None``.

    Such a file is its header, then ``,"<key>":`` and the payload's canonical text, then
    ``}\n``; so the checksum can be computed over the payload's bytes as they are (no
    parse and re-serialisation of the payload), and only a file that passes completely is
    returned. Anything else (a reformatted file, a damaged one, another version) returns
    ``None`` and goes through the full checks of :func:`decode_envelope`, which name the
    problem. Accepting here requires what the full path requires: our format, a known
    version and a payload whose canonical text has the recorded checksum (the bytes hashed
    are the bytes parsed).
    """
    marker = b',"' + key.encode("ascii") + b'":'
    cut = raw.find(marker)
    if cut < 0 or not raw.endswith(b"}\n"):
        return None
    try:
        head = json.loads(raw[:cut] + b"}")
    except (ValueError, RecursionError):
        return None
    if not isinstance(head, dict) or not _HEADER_KEYS.issuperset(head) or head.get("format") != fmt:
        return None
    version, digest = head.get("format_version"), head.get("checksum")
    if type(version) is not int or not 1 <= version <= FORMAT_VERSION or not isinstance(digest, str):
        return None
    payload = raw[cut + len(marker) : -2]
    h = hashlib.sha256(f"{fmt}/{version}\n".encode())
    h.update(payload)
    if "sha256:" + h.hexdigest() != digest:
        return None
    try:
        head[key] = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    return head
