"""The sandbox protocol between this process and the agent process: line-delimited JSON
messages from it, their shapes, and the checks applied to everything it sends (to it:
marshal frames, :func:`~.process.frame`).

Messages from the agent process: ``{"t": "call", "ns", "m", "a", "k"}`` (an API call),
``{"t": "out", "s"}`` (output), ``{"t": "use", "i"}`` (read cache entries used, :mod:`.reads`), ``{"t":
"done", "id", "error", "tail", "omitted"}`` (end of a block), ``{"t": "ready", "confinement": {...}}`` (handshake, with what
confines the agent process). To it: ``boot``, ``init``, ``run``, ``ret``, ``exit``.
"""

from __future__ import annotations

from pibench_tui.sandbox.policy import ERROR_MESSAGE_CHARS, ERROR_TYPE_CHARS

#: Largest message accepted from the agent process, in bytes.
MAX_MESSAGE_BYTES = 16 * 1024 * 1024


class _Timeout(Exception):
    pass


class _Gone(Exception):
    pass


class _ProtocolError(Exception):
    pass


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
