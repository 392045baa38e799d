"""The sandbox protocol between this process and the agent process: line-delimited JSON
messages from it, their shapes, and the checks applied to everything it sends (to it:
marshal frames, :func:`~.process.frame`).

Messages from the agent process: ``{"t": "call", "ns", "m", "a", "k"}`` (an API call),
``{"t": "out", "s"}`` (output), ``{"t": "use", "i"}`` (read cache entries used, :mod:`.reads`), ``{"t":
"done", "id", "error", "tail", "omitted"}`` (end of a block), ``{"t": "ready", "confinement": {...}}`` (handshake, with what
confines the agent process). To it: ``boot``, ``init``, ``run``, ``ret``, ``exit``.
"""

from __future__ import annotations

import re

from pibench_tui.sandbox.policy import ERROR_MESSAGE_CHARS, ERROR_TYPE_CHARS, MAX_CALL_CHARS

#: Bytes per character of agent text in a message at most: a control character is escaped
#: as ``\u00XX`` (6 bytes); any other character is at most 4 bytes of UTF-8.
_BYTES_PER_CHAR = 6

#: Characters an output message carries besides the head it flushes (its pending buffer).
_OUTPUT_CHUNK_CHARS = 8_192


def message_limit(max_output: int) -> int:
    """The largest message an honest agent process sends, in bytes, for the output cap
    ``max_output`` (characters): an API call of :data:`MAX_CALL_CHARS` characters (4 bytes
    of UTF-8 each at most), or an output or end-of-block message (the head or the tail of
    the output, a flushed chunk, an error's type and message; 6 bytes a character, as a
    control character is escaped), plus 4 KiB for the fields. Anything longer is refused
    before it is read further (``protocol_oversized``). With the default cap, ~3.8 MiB."""
    output = _BYTES_PER_CHAR * (max(0, int(max_output)) + _OUTPUT_CHUNK_CHARS + ERROR_MESSAGE_CHARS + ERROR_TYPE_CHARS)
    return max(4 * MAX_CALL_CHARS, output) + 4096


#: The limit with the default output cap (20,000 characters).
MAX_MESSAGE_BYTES = message_limit(20_000)

#: Most JSON arrays and objects one message may hold. Parsing multiplies memory: a 16 MiB
#: message of ``[{},{},...]`` took pibench ~450 MiB (measured, bench/protocol_flood.py);
#: the API's calls take a few small ones.
MAX_CONTAINERS = 100_000

#: Messages longer than this are counted for :data:`MAX_CONTAINERS` before they are parsed
#: (a shorter one cannot hold enough to matter).
_COUNT_FROM = 64 * 1024

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


def containers(line: bytes) -> int:
    """How many JSON arrays and objects ``line`` may hold: its ``[`` and ``{`` outside
    strings (an upper bound for text that is not JSON)."""
    bare = _STRING.sub(b"", line)
    return bare.count(b"[") + bare.count(b"{")


def too_many_containers(line: bytes) -> bool:
    """Whether ``line`` holds more than :data:`MAX_CONTAINERS` arrays and objects."""
    return len(line) > _COUNT_FROM and containers(line) > MAX_CONTAINERS


class _Timeout(Exception):
    pass


class _Gone(Exception):
    pass


class _ProtocolError(Exception):
    """A message from the agent process that breaks the protocol; ``kind`` is its integrity
    kind (:mod:`pibench_tui.harness.integrity`): ``protocol_oversized`` (past
    :func:`message_limit` or :data:`MAX_CONTAINERS`), ``protocol_malformed`` (not a message
    of the protocol, or out of step)."""

    def __init__(self, message: str, kind: str = "protocol_malformed") -> None:
        super().__init__(message)
        self.kind = kind


_CALL_KEYS = frozenset({"t", "ns", "m", "a", "k"})
_OUT_KEYS = frozenset({"t", "s"})
_USE_KEYS = frozenset({"t", "i"})
_DONE_KEYS = frozenset({"t", "id", "error", "tail", "omitted"})


def _refuse_constant(name: str) -> object:
    """``parse_constant`` of the protocol: NaN and infinity are never valid."""
    raise ValueError(f"{name} is not valid in the protocol")


def _valid_error(error: object) -> bool:
    """Whether a block's error, as sent by the agent process, has the protocol's shape."""
    if error is None:
        return True
    if not isinstance(error, dict) or set(error) != {"type", "message", "line"}:
        return False
    line = error["line"]
    return (
        isinstance(error["type"], str) and isinstance(error["message"], str) and (line is None or (type(line) is int))
    )


def _not_json_reply(msg: dict, exc: Exception) -> dict:
    return {
        "t": "ret",
        "ok": False,
        "code": "internal_error",
        "message": f"{msg.get('ns')}.{msg.get('m')}() returned a value that is not JSON-able: {exc}",
    }


def _calls_kept(calls: int) -> str:
    if calls == 0:
        return "no API call had completed"
    if calls == 1:
        return "the 1 API call completed before that is kept"
    return f"the {calls} API calls completed before that are kept"


def _clean_error(error: object) -> dict | None:
    """Normalise an error reported by the agent process to ``{type, message, line, source}``
    (``source`` is always ``"agent"``: that process is agent-controlled)."""
    if error is None:
        return None
    if not isinstance(error, dict):
        return {"type": "Error", "message": str(error)[:2000], "line": None, "source": "agent"}
    line = error.get("line")
    return {
        "type": str(error.get("type", "Error"))[:ERROR_TYPE_CHARS],
        "message": str(error.get("message", ""))[:ERROR_MESSAGE_CHARS],
        "line": line if isinstance(line, int) and not isinstance(line, bool) else None,
        "source": "agent",
    }
