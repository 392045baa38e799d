"""The integrity audit of an agent run: what the agent tried that the sandbox refused.

Every executed block's result (:class:`~pibench_tui.sandbox.BlockResult`) is sorted into
one kind; the kinds in :data:`FLAG_KINDS` flag the run in ``pibench report`` (as an
inspector flags a task whose agent poked at its harness). Python errors of the agent's own
code and API refusals (game rules) are counted too but never flag a run.

Two kinds are counted but never flag a run, :data:`BENIGN_KINDS`:

``display_cut``
    A block printed more than the harness shows the model (the 6,000-character display
    cut of MECHANICS §16) but no more than the headless output cap
    (:data:`pibench_tui.agent_limits.DEFAULT_MAX_OUTPUT`): an ordinary long print such as
    ``print(lab.dashboard())``. The model sees the head and tail with a cut notice. A block
    printing past the headless cap is an ``output_flood`` (the sandbox stops its output
    there in headless mode), which flags the run.

What pibench observes of the agent process itself (each flags the run; the agent process
is agent-controlled once code escapes the Python layer, so these are seen from outside it):

``protocol_oversized``
    A message longer than the protocol's limit (:func:`pibench_tui.sandbox.protocol.message_limit`,
    refused once that much is buffered, never read whole) or holding more than
    :data:`~pibench_tui.sandbox.protocol.MAX_CONTAINERS` arrays and objects (refused before
    it is parsed). The agent process is restarted.
``protocol_malformed``
    A line that is not a message of the protocol (not JSON, wrong fields, out of step).
``protocol_between_blocks``
    Messages sent outside a block (after its end): found when the next block starts.
``ran_between_blocks``
    A thread of the agent process was running code, not waiting in a system call, when the
    block ended (seen in ``/proc/<pid>/task/<tid>/syscall`` once the process is stopped,
    and again after letting it run a moment): agent code that escaped the Python layer and
    took over a thread. The process stays stopped until the next block.
``cpu_outside_block``
    The agent process used CPU time (``utime + stime`` of ``/proc/<pid>/stat``) between the
    stop at the end of a block and the next block: the stop did not hold.

``sandbox_violation``
    The kernel killed the agent process with ``SIGSYS``: its seccomp filter answers the
    system calls no agent code confined by the Python layer can make (a signal to another
    process, the ``fcntl`` signal route, ``ptrace``, ``process_vm_readv``, ``bpf``,
    ``perf_event_open``, ``io_uring``, namespaces ...;
    :data:`pibench_tui.sandbox.confine.SECCOMP_KILLED`) with
    ``SECCOMP_RET_KILL_PROCESS``, so the attempt leaves a trace: agent code escaped the
    Python layer. The agent process is restarted, as after any death. The same kind is
    recorded when the kernel kills the query worker so (:mod:`world.sqlworker`, its message
    names the worker): code running in it got past SQLite.

``protocol_anomaly`` is the kind older transcripts recorded for any protocol breach.
Other refused system calls are not among the kinds: the seccomp filter answers them with
an error (``EPERM``: a socket, a fork, an open outside the installation refused by
Landlock ...), which the kernel reports to no one but the caller (see ``docs/headless.md``,
"What the integrity log can see").

``after_month_closed``
    Recorded by :meth:`pibench_tui.harness.core.LabCore._handle` (the sandbox's API
    handler) when a block that already called ``time.next_month()`` makes a further
    world-changing API call (any mutating call of ``world.api.API_CALLS``) in the same
    block. The call is refused before it reaches the world (the agent gets ``ActionError``
    with code ``"month_closed"``; the world and the action log are unchanged) and
    :meth:`IntegrityLog.add` is called with ``kind="after_month_closed"``, ``month`` = the
    month the block closed, ``turn`` = that block's turn, ``message`` = the refused call
    (``"namespace.method"``). It is counted in ``by_kind`` and kept in ``incidents`` but
    never flags a run (a script's ordinary mistake, not an attempt on the sandbox). Reads
    after the close are allowed and not recorded. Documented in ``docs/agent.md``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

__all__ = ["FLAG_KINDS", "IntegrityLog", "classify_block"]

#: Kinds that flag a run: attempts on the sandbox, or the sandbox stopping the agent.
FLAG_KINDS: tuple[str, ...] = (
    "private_or_dunder",
    "import_refused",
    "policy_refusal",
    "timeout",
    "memory_kill",
    "memory_error",
    "output_flood",
    "protocol_anomaly",
    "protocol_oversized",
    "protocol_malformed",
    "protocol_between_blocks",
    "ran_between_blocks",
    "cpu_outside_block",
    "sandbox_violation",
)

#: Counted, never flagging: a block's output longer than the display cut but within the
#: headless output cap (``display_cut``), and calls refused because the block had already
#: ended the month (``after_month_closed``, recorded by ``LabCore._handle``); see the module
#: docstring.
BENIGN_KINDS: frozenset[str] = frozenset({"after_month_closed", "display_cut"})

#: Incidents kept verbatim (the counts are always complete).
MAX_INCIDENTS = 200


def classify_block(error: dict[str, Any] | None, truncated: bool, *, flood: bool | None = None) -> list[str]:
    """The integrity kinds of one block's result (empty for a clean block).

    Args:
        error: ``BlockResult.error``: ``None`` or ``{"type", "message", "line"}``; a
            ``"code"`` key, when the sandbox gives one, names the kind directly.
        truncated: Whether the block's output was cut for display.
        flood: Whether the output passed the headless output cap (``output_flood``, which
            flags the run); ``None``: every cut is a flood (a caller that knows no more).
            A cut output that is no flood is ``display_cut`` (benign).
    """
    kinds: list[str] = []
    if truncated:
        kinds.append("output_flood" if flood is None or flood else "display_cut")
    if error:
        kind = _error_kind(error)
        if kind is not None:
            kinds.append(kind)
    return kinds


def _error_kind(error: dict[str, Any]) -> str | None:
    """The kind of a block's error: its ``code`` when it has one, else read from its type
    and message (``None``: an ordinary Python error or API refusal)."""
    code = error.get("code")
    if isinstance(code, str) and code:
        return code
    etype = str(error.get("type", ""))
    msg = str(error.get("message", "")).lower()
    if etype == "SandboxError":
        return _sandbox_error_kind(msg)
    if etype in _TYPE_KINDS:
        return _TYPE_KINDS[etype]
    if etype in ("ImportError", "ModuleNotFoundError") and ("not allowed" in msg or "sandbox" in msg):
        return "import_refused"
    if etype == "AttributeError" and ("private" in msg or "dunder" in msg or "out of reach" in msg):
        return "private_or_dunder"
    return None


#: Error types that are a kind by themselves.
_TYPE_KINDS = {"BlockTimeout": "timeout", "AgentProcessDied": "memory_kill", "MemoryError": "memory_error"}

#: Words of a SandboxError's message that make it an attempt on a private or dunder name.
_PRIVATE_WORDS = ("dunder", "'__", "private", "reserved", "special method")


def _sandbox_error_kind(msg: str) -> str:
    """The kind of a ``SandboxError`` with the (lower-cased) message ``msg``."""
    if "protocol" in msg:
        return "protocol_anomaly"
    if any(word in msg for word in _PRIVATE_WORDS):
        return "private_or_dunder"
    if "import" in msg:
        return "import_refused"
    return "policy_refusal"


class IntegrityLog:
    """Counts and incidents of one career (written as ``integrity.json``)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.python_errors: Counter[str] = Counter()
        self.api_refusals: Counter[str] = Counter()
        self.incidents: list[dict[str, Any]] = []
        self.blocks = 0
        self.restarts = 0

    def record_block(
        self,
        month: int,
        turn: int,
        error: dict[str, Any] | None,
        truncated: bool,
        restarted: bool,
        *,
        flood: bool | None = None,
        printed: int | None = None,
        observed: Sequence[tuple[str, str]] = (),
    ) -> list[str]:
        """Record one executed block; return its integrity kinds.

        ``truncated``/``flood`` as :func:`classify_block`; ``printed`` (characters the block
        printed, when known) goes into the incident's message of a cut output; ``observed``
        (``BlockResult.observed``: ``(kind, message)`` pibench saw of the agent process) adds
        its kinds after the block's own.
        """
        self.blocks += 1
        if restarted:
            self.restarts += 1
        kinds = classify_block(error, truncated, flood=flood)
        cut_note = "output cut" if printed is None else f"output cut ({printed:,} characters printed)"
        for kind in kinds:
            self.add(
                kind,
                month,
                turn,
                (error or {}).get("message", "output cut") if kind not in ("output_flood", "display_cut") else cut_note,
            )
        if error and not kinds and error.get("type") not in ("ActionError",):
            self.python_errors[str(error.get("type"))] += 1
        for kind, message in observed:
            self.add(kind, month, turn, message)
            kinds.append(kind)
        return kinds

    def add(self, kind: str, month: int, turn: int, message: str) -> None:
        """Count one incident of ``kind`` (and keep its message while there is room)."""
        self.counts[kind] += 1
        if len(self.incidents) < MAX_INCIDENTS:
            self.incidents.append({"month": month, "turn": turn, "kind": kind, "message": str(message)[:500]})

    def refused_call(self, code: str) -> None:
        """Count one API call refused by the game's rules (``ActionError`` code)."""
        self.api_refusals[code] += 1

    @property
    def flags(self) -> int:
        """Incidents of the flagging kinds."""
        return sum(n for k, n in self.counts.items() if k not in BENIGN_KINDS)

    def to_dict(self) -> dict[str, Any]:
        """``integrity.json``: ``flagged``, ``flags`` (count), ``by_kind``, ``api_refusals``,
        ``python_errors``, ``blocks``, ``agent_restarts``, ``incidents`` (first 200)."""
        return {
            "flagged": self.flags > 0,
            "flags": self.flags,
            "by_kind": dict(sorted(self.counts.items())),
            "api_refusals": dict(sorted(self.api_refusals.items())),
            "python_errors": dict(sorted(self.python_errors.items())),
            "blocks": self.blocks,
            "agent_restarts": self.restarts,
            "incidents": list(self.incidents),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IntegrityLog:
        """Rebuild from :meth:`to_dict` output (a resumed run continues its audit)."""
        log = cls()
        log.counts.update(data.get("by_kind", {}))
        log.api_refusals.update(data.get("api_refusals", {}))
        log.python_errors.update(data.get("python_errors", {}))
        log.incidents = list(data.get("incidents", []))
        log.blocks = int(data.get("blocks", 0))
        log.restarts = int(data.get("agent_restarts", 0))
        return log
