"""The agent sandbox, parent side (MECHANICS §16): run untrusted agent Python safely.

Agent code never runs in this process. :class:`Sandbox` starts an **agent process**
(``pibench_tui/sandbox/child.py`` under ``python -S -s -P``, a clean environment,
working directory ``/``) that holds no world and imports nothing of ours. The agent
process reaches the world only through a small RPC: it sends ``(namespace, method,
args, kwargs)`` as JSON, this process validates the call, applies it to the world
*completely* and only then answers with its result or a refusal. A kill can
therefore never leave a call half-applied: either the parent finished it (it counts)
or the parent never started it.

The boundary is the operating system (MECHANICS Decisions 9, :mod:`.confine`): the agent
process confines itself before running agent code (no new privileges, ``nobody`` when
pibench is root, Landlock: read-only access to the Python installation and nothing else,
a seccomp allow-list: no sockets, processes, exec, signals or ptrace to others, resource
limits) and reports what is in force in its handshake (:attr:`Sandbox.confinement`;
:func:`confinement_status` probes the same without a process). On top of it:

* the policy of :mod:`.policy`, a first layer and a lint, applied here before the block
  is compiled (here too: the agent process only runs the compiled code):
  ``open``/``exec``/``eval``/``compile``, imports outside
  :data:`ALLOWED_MODULES` and dunder internals are refused with a message saying what is
  allowed; ordinary Python (``type(e).__name__``, private attributes, ``getattr`` by
  name, ``TEMPLATE.format``, dataclasses, numpy) runs, with runtime checks behind it;
* a wall clock per block enforced by this process (the agent process is killed and
  restarted), an output cap kept while printing (head and tail, the middle counted);
* only plain JSON data crosses the boundary: calls from the agent process as JSON text,
  checked here; results to it as marshal bytes of plain JSON data (this process is
  trusted), which it loads afresh for each answer: what JSON would have given.

Modules: :mod:`~pibench_tui.sandbox.process` (the agent process and its pipes),
:mod:`~pibench_tui.sandbox.protocol` (message shapes and checks),
:mod:`~pibench_tui.sandbox.output` (the parent-side output cap), and the agent process's
side: ``child.py`` (its script: builtins, module copies, RPC), :mod:`.policy` (the static
check and the module copies, shared with this process), :mod:`.confine` (the OS
confinement). This module keeps :class:`Sandbox`, which runs blocks and serves calls;
front ends build theirs with :func:`.factory.open_sandbox` (one spec for every front end).
"""

from __future__ import annotations

import _signal
import json
import marshal
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pibench_tui.agent_limits import (
    DEFAULT_BLOCK_TIMEOUT,
    DEFAULT_MAX_OUTPUT,
    DEFAULT_MEMORY_LIMIT,
    MIN_MEMORY_LIMIT,
    memory_limit_problem,
)
from pibench_tui.sandbox.confine import Confinement, confinement_status
from pibench_tui.sandbox.cosched import CoSchedule
from pibench_tui.sandbox.output import OutputSink, _OutputCollector
from pibench_tui.sandbox.policy import (
    ALLOWED_MODULES,
    SandboxViolation,
    check_source,
    compile_agent_code,
)
from pibench_tui.sandbox.process import (
    CHILD_SCRIPT,
    START_TIMEOUT,
    AgentProcess,
    SandboxStartError,
    _numpy_path,
    frame,
    result_encoder,
)
from pibench_tui.sandbox.process import _clean_env as _clean_env  # noqa: F401 - tests
from pibench_tui.sandbox.protocol import (
    _CALL_KEYS,
    _DONE_KEYS,
    _OUT_KEYS,
    _USE_KEYS,
    MAX_MESSAGE_BYTES,
    _calls_kept,
    _clean_error,
    _Gone,
    _not_json_reply,
    _ProtocolError,
    _Timeout,
    _valid_error,
    message_limit,
)
from pibench_tui.sandbox.reads import ReadMirror
from pibench_tui.textsafe import clean_tree

__all__ = [
    "ALLOWED_MODULES",
    "CHILD_SCRIPT",
    "DEFAULT_BLOCK_TIMEOUT",
    "DEFAULT_MAX_OUTPUT",
    "DEFAULT_MEMORY_LIMIT",
    "MIN_MEMORY_LIMIT",
    "MAX_CODE_CHARS",
    "MAX_MESSAGE_BYTES",
    "START_TIMEOUT",
    "AgentProcess",
    "BlockResult",
    "Confinement",
    "Refusal",
    "Sandbox",
    "SandboxStartError",
    "SandboxViolation",
    "agent_random_seed",
    "check_source",
    "confinement_status",
    "spec_from_api_calls",
]

#: Longest block of agent code accepted, in characters (checked before it is parsed).
MAX_CODE_CHARS = 200_000
Handler = Callable[[str, str, list, dict], Any]


class Refusal(Exception):
    """A refused API call, raised by a handler (or any exception with ``code``/``message``).

    Attributes:
        code: Short machine-readable reason.
        message: Explanation for the agent, shown verbatim.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class BlockResult:
    """What running one block of agent code produced.

    Attributes:
        ok: ``True`` when the block ran to the end without an exception.
        stdout: The block's output within the cap (head, a cut notice, tail): the one cut
            of a block's output, every front end shows it as it is.
        error: ``None`` or ``{"type", "message", "line", "source"}``; ``line`` is the line
            in the agent's own text (``None`` if unknown); ``source`` says who reported it:
            ``"agent"`` (raised in the agent process -- by the agent's code, or an API
            refusal it did not catch; type and message are whatever that process sent) or
            ``"pibench"`` (found by pibench itself: time-out, death of the agent process,
            protocol breach, the static check, input too long). Its texts, like ``stdout``'s,
            are made safe (:func:`pibench_tui.textsafe.clean`): callers need not clean again.
        truncated: Whether output was cut.
        omitted: Characters of output cut (0 if none or unknown).
        calls: API calls this process completed for the block (each kept for good). A
            read-only call repeated with the same arguments before anything changed the
            world is answered by the agent process itself and not counted again.
        restarted: Whether the agent process was killed/lost and restarted (variables
            defined by agent code are gone).
        seconds: Wall time of the block, in seconds.
        observed: What pibench observed of the agent process around the block, as
            ``(integrity kind, message)``: a thread still running when the block ended
            (``ran_between_blocks``), CPU used while it was stopped between blocks
            (``cpu_outside_block``). A protocol breach is the block's error (its ``code``
            is the kind: ``protocol_oversized``, ``protocol_malformed``,
            ``protocol_between_blocks``). See :mod:`pibench_tui.harness.integrity`.
    """

    ok: bool
    stdout: str = ""
    error: dict | None = None
    truncated: bool = False
    omitted: int = 0
    calls: int = 0
    restarted: bool = False
    seconds: float = 0.0
    observed: tuple[tuple[str, str], ...] = ()


def spec_from_api_calls(
    api_calls: Mapping[str, Mapping[str, Any]],
    required: object = None,
    docs: Mapping[str, Mapping[str, str]] | None = None,
) -> dict:
    """Turn the world's registry of API calls into the JSON spec the agent process uses.

    Args:
        api_calls: ``world.api.API_CALLS``: namespace -> method -> ``CallSpec`` with
            ``params`` (tuples of name and default or the ``REQUIRED`` sentinel),
            ``doc`` and ``mutating`` (MECHANICS §15).
        required: The ``REQUIRED`` sentinel of ``world.api``.
        docs: ``world.api.call_docs(config)``: the docstrings with this scenario's rule
            numbers; without it the registry's docs (default numbers) are used.

    Returns:
        ``{namespace: {method: {"params": [[name, {"required": True} | {"default": v}]],
        "doc": str, "mutating": bool}}}``.
    """
    spec: dict = {}
    for ns, calls in api_calls.items():
        spec[ns] = {}
        for name, call in calls.items():
            params = []
            for pname, default in getattr(call, "params", ()):
                if default is required:
                    params.append([pname, {"required": True}])
                else:
                    try:
                        json.dumps(default, allow_nan=False)
                        params.append([pname, {"default": default}])
                    except (TypeError, ValueError):
                        params.append([pname, {"default": repr(default)}])
            spec[ns][name] = {
                "params": params,
                "doc": str((docs or {}).get(ns, {}).get(name) or getattr(call, "doc", "") or ""),
                "mutating": bool(getattr(call, "mutating", False)),
            }
    return spec


class Sandbox:
    """Runs blocks of agent code in an agent process; serves its API calls here.

    Args:
        handler: Called as ``handler(namespace, method, args, kwargs)`` for every API
            call of agent code (``namespace`` is one of the API namespaces, or
            ``"query"``/``"memory"``). Returns a JSON-able value, or raises an
            exception with ``code`` and ``message`` attributes (e.g. :class:`Refusal`
            or the world's ``ActionError``) to refuse; any other exception is reported
            to the agent as ``internal_error``.
        spec: The API spec from :func:`spec_from_api_calls`.
        block_timeout: Wall-clock limit per block, in seconds (MECHANICS §16).
        max_output: Output cap per block, in characters.
        memory_limit: Address-space limit of the agent process, in bytes (0: none; else at
            least ``MIN_MEMORY_LIMIT``: ``ValueError`` otherwise).
        seed: The career seed. The agent process's ``random`` module is seeded at each
            start from (this seed, the number of agent processes started before, the
            month), see :func:`agent_random_seed`: reproducible, yet a restart after a
            ``BlockTimeout`` does not repeat the same numbers.
        month: Returns the world's month (for the seed); ``None``: always 0.
        process: An :class:`AgentProcess` started earlier, to adopt.
        limits: This scenario's ``{"memory_max_chars", "query_max_rows"}`` (from
            ``lab.rules()["harness"]``) for the help texts of the memory and query calls;
            ``None``: the help names no number.
        tables: The tables ``query(sql)`` reads and their columns (``world.observe.SCHEMA``),
            listed by ``help(query)``; ``None``: the help lists none.
        static_check: Apply the static policy check (here, before the block is compiled
            for the agent process). ``False`` exists only for the tests that prove the OS
            confinement holds on its own; agent code cannot reach it.
        prefetch: Send the agent process, with each block and with the answer to each call
            that changed the world, the results of the read-only calls (same names, same
            arguments) agent code made after the same kind of change the last time, asked
            of ``handler`` right then: later such calls are answered in the agent process
            without a round trip (issue 9 §3). Only for a handler whose read-only calls
            change nothing and whose refusals have no effect (headless mode's); results
            are exactly the handler's answers in the world as it is, and never counted
            in :attr:`BlockResult.calls`.
        version: Returns the world's version, which every change moves (``World.version``):
            an entry of the agent process's cache holds while the version is the one it was
            sent at (:mod:`.reads`); without it, every change empties the cache.
        plain_results: The handler's results for the calls of ``spec`` are plain JSON data
            (dicts with str keys, lists, str, int, finite float, bool, None; no tuples, no
            subclasses, no dict or list twice in one result: the world API's,
            ``tests/headless/test_plain_results.py``), so they
            are marshalled for the agent process as they are; otherwise (and always for
            ``query`` and ``memory``) each goes through JSON first
            (:func:`~.process.result_bytes`). The agent process sees the same values either way.
        coschedule: During each block, run the thread calling :meth:`run` and the agent
            process on one CPU (:class:`~.cosched.CoSchedule`: their strict ping-pong costs
            a fraction of the CPU time; an optimisation only, skipped where unsupported).
        require_complete: Every agent process must prove complete OS confinement in its
            handshake (a sealed evaluation); one that does not is killed before it runs any
            agent code and the start fails with :class:`SandboxStartError` naming what is
            missing.
    """

    def __init__(
        self,
        handler: Handler,
        spec: dict,
        *,
        block_timeout: float = DEFAULT_BLOCK_TIMEOUT,
        max_output: int = DEFAULT_MAX_OUTPUT,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        seed: int = 0,
        month: Callable[[], int] | None = None,
        process: AgentProcess | None = None,
        limits: dict[str, Any] | None = None,
        tables: Mapping[str, list[str]] | None = None,
        static_check: bool = True,
        prefetch: bool = False,
        version: Callable[[], int] | None = None,
        plain_results: bool = False,
        coschedule: bool = True,
        require_complete: bool = False,
    ) -> None:
        self.handler = handler
        self.require_complete = bool(require_complete)
        #: What the agent processes proved in their handshakes: the first incomplete
        #: report (it stays, whatever later processes report), else the latest; ``None``
        #: before the first handshake.
        self.proved: Confinement | None = None
        #: Put this thread and the agent process on one CPU during each block (:mod:`.cosched`).
        self.coschedule = bool(coschedule)
        self._cosched: CoSchedule | None = None
        self.prefetch = bool(prefetch)
        #: The calls whose results are marshalled as they are (see ``plain_results``).
        self._plain = frozenset(
            (ns, m) for ns, calls in spec.items() if plain_results and isinstance(calls, dict) for m in calls
        )
        readonly = {
            (ns, m)
            for ns, calls in spec.items()
            if isinstance(calls, dict)
            for m, c in calls.items()
            if isinstance(c, dict) and c.get("mutating") is False
        }
        # The agent process's rules (child.py): which calls it caches, and which empty its cache.
        self._readonly = frozenset(readonly)
        self._passive = frozenset(readonly | {("query", "query"), ("memory", "read")})
        self._triggers = frozenset(
            {
                (ns, m)
                for ns, calls in spec.items()
                if isinstance(calls, dict)
                for m, c in calls.items()
                if isinstance(c, dict) and c.get("mutating") is not False
            }
            | {("memory", "write")}
        )
        #: What the agent process's read cache holds, and what agent code reads after each change.
        #: ``encode(ns, method, value)``: a result as the agent process gets it (:func:`~.process.result_bytes`).
        self._encode = result_encoder(self._plain)
        self._reads = ReadMirror(version, self.prefetch, self._encode)
        self.static_check = bool(static_check)
        self.spec = spec
        self.limits = dict(limits or {})
        self.tables = {str(t): [str(c) for c in cols] for t, cols in (tables or {}).items()}
        self.block_timeout = float(block_timeout)
        self.max_output = int(max_output)
        self.memory_limit = int(memory_limit)
        problem = memory_limit_problem(self.memory_limit)
        if problem:
            raise ValueError(problem)
        self.seed = int(seed)
        #: Seed the agent's ``random`` from secret entropy instead of the career seed (a
        #: sealed run: the career seed must not be recoverable from it).
        self.secret_random = False
        #: Every seed given to an agent process's ``random`` so far (for the evaluator).
        self.random_seeds: list[int] = []
        self.month = month
        self.restarts = 0
        self.starts = 0  # agent processes that completed the handshake
        self._process: AgentProcess | None = process
        self.closed = False
        self.lost_state = False  # an idle agent process died: its variables are gone
        self.lost_cause = ""  # how it died (AgentProcess.death_cause)
        self.blocks = 0  # blocks sent to agent processes (the id of each run message)
        #: ``time.monotonic()`` by which the running block must end (``None`` between
        #: blocks): handlers bound their own work by it (a query stops at the deadline).
        self.deadline: float | None = None

    # agent process --------------------------------------------------------------------
    def _ready_process(self) -> AgentProcess:
        proc = self._process
        if proc is None or proc.proc.poll() is not None:
            if proc is not None:
                if proc.ready and not self.lost_state:
                    self.lost_state, self.lost_cause = True, proc.death_cause(self.memory_limit)
                proc.kill()
            proc = self._process = AgentProcess()
            self._reads.reset()
        proc.max_message = message_limit(self.max_output)
        if not proc.ready:
            month = int(self.month()) if self.month is not None else 0
            proc.handshake(
                {
                    "t": "init",
                    "spec": self.spec,
                    "max_output": self.max_output,
                    "seed": self._agent_seed(month),
                    "memory_limit": self.memory_limit,
                    "limits": self.limits,
                    "tables": self.tables,
                    "numpy_path": _numpy_path(),
                }
            )
            self._record_proof(proc)
            self.starts += 1
        return proc

    def _record_proof(self, proc: AgentProcess) -> None:
        """Keep what ``proc`` proved (:attr:`proved`); with :attr:`require_complete`, kill
        it before it runs anything if its confinement is incomplete.

        Raises:
            SandboxStartError: ``require_complete`` and the confinement is incomplete.
        """
        status = proc.confinement or Confinement.from_dict(None)
        if self.proved is None or self.proved.complete:
            self.proved = status
        if self.require_complete and not status.complete:
            proc.kill()
            raise SandboxStartError(
                "the agent process proved its OS confinement incomplete, so a sealed evaluation is refused "
                f"({status.describe()}); --allow-incomplete-confinement runs it anyway"
            )

    def _agent_seed(self, month: int) -> int:
        """The seed of the next agent process's ``random``: from the career seed, or from
        secret entropy (``secret_random``: a sealed run), recorded in ``random_seeds``."""
        if self.secret_random:
            import secrets

            value = secrets.randbits(64)
        else:
            value = agent_random_seed(self.seed, self.starts, month)
        self.random_seeds.append(value)
        return value

    def _restart(self) -> None:
        if self._process is not None:
            self._process.kill()
        self.restarts += 1
        self._reads.reset()
        # Boot the replacement now, so the next block does not wait for it.
        self._process = AgentProcess()
        if self._cosched is not None:  # started from a pinned thread: free it to boot anywhere
            self._cosched.release(self._process.proc.pid)

    def start(self) -> None:
        """Start the agent process and complete its handshake (otherwise done lazily)."""
        self._ready_process()

    @property
    def confinement(self) -> Confinement:
        """The OS confinement the agent processes proved they applied (MECHANICS Decisions
        9; :attr:`proved`: an incomplete report of any of them stays); starts the agent
        process if none ever completed its handshake. Compare :func:`confinement_status`,
        this machine probed by pibench without a process (a forecast, not a proof)."""
        if self.proved is None:
            self._ready_process()
        return self.proved or Confinement.from_dict(None)

    def close(self) -> None:
        """Stop the agent process."""
        if self._process is not None:
            self._process.close()
            self._process = None
        self.closed = True

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # blocks ---------------------------------------------------------------------------
    def run(
        self,
        code: str,
        *,
        filename: str = "<stdin>",
        first_line: int = 1,
        on_output: OutputSink | None = None,
        rebind: bool = False,
    ) -> BlockResult:
        """Run one block of agent code (MECHANICS §16).

        Args:
            code: Agent Python source; bare top-level expressions print their ``repr``.
            filename: Name of the agent's text in errors (``<stdin>``, ``<block 3>``).
            first_line: Line of the block's first line in the agent's text (1-based).
            on_output: Receives the block's output piece by piece while it runs (the
                head as it is printed; the cut notice and tail at the end).
            rebind: Re-bind the API names (namespaces, ``query``, ``memory`` ...) in the
                agent's globals before the block, undoing any reassignment by earlier
                blocks (the LLM harness does this every turn, MECHANICS §16).

        Returns:
            A :class:`BlockResult`. A refused or failing block is a result, never an
            exception: the career always continues.

        Raises:
            SandboxStartError: No agent process could be started at all.
        """
        started = time.monotonic()
        collector = _OutputCollector(self.max_output, on_output)
        used: list[AgentProcess] = []  # the process the block ran in (what pibench observed of it)

        def finish(error: dict | None, calls: int = 0, restarted: bool = False, lost: bool = False) -> BlockResult:
            text, truncated, omitted = collector.finish(lost=lost)  # each piece made safe as it came
            observed = tuple(used[0].take_observed()) if used else ()
            return BlockResult(
                ok=error is None,
                stdout=text,
                error=clean_tree(error),  # made safe here, the one place every block's error passes
                truncated=truncated,
                omitted=omitted,
                calls=calls,
                restarted=restarted,
                seconds=time.monotonic() - started,
                observed=observed,
            )

        if len(code) > MAX_CODE_CHARS:
            # Bounded before anything parses it.
            return finish(
                {
                    "type": "InputTooLong",
                    "message": (
                        f"the code is {len(code):,} characters long; a block may have at most "
                        f"{MAX_CODE_CHARS:,} characters; it was not run"
                    ),
                    "line": first_line,
                    "source": "pibench",
                }
            )
        # Checked and compiled here (bad code is refused without a round trip); the agent
        # process runs the compiled units.
        refusal, units = _compiled_block(code, filename, first_line, self.static_check)
        if refusal is not None:
            return finish(dict(refusal))

        proc = self._ready_process()
        used.append(proc)
        if proc.pending():
            # Messages outside a block: the last block's process kept talking after its
            # "done" (or forged one). Never read them as this block's answer.
            self._restart()
            return finish(
                {
                    "type": "SandboxError",
                    "message": (
                        "the agent process broke the sandbox protocol (it sent messages "
                        "outside a block) and was restarted; variables and functions defined "
                        "earlier are gone; this block was not run, send it again"
                    ),
                    "line": first_line,
                    "source": "pibench",
                    "code": "protocol_between_blocks",
                },
                restarted=True,
            )
        replaced, self.lost_state = self.lost_state, False
        if replaced:
            collector.add(
                f"[note: the agent process had died ({self.lost_cause}) and was restarted; variables and "
                "functions defined earlier are gone]\n"
            )
        deadline = time.monotonic() + self.block_timeout
        self.deadline = deadline
        self.blocks += 1
        block = self.blocks
        try:
            with CoSchedule(proc.proc.pid, self.coschedule) as self._cosched:
                proc.quiet = self._cosched.quiet_hook()  # agent code that computes for a while is let go
                return self._converse(
                    proc, block, code, units, filename, first_line, deadline, collector, finish, replaced, rebind
                )
        finally:
            proc.quiet = None
            self.deadline = None
            self._cosched = None

    def _converse(
        self,
        proc: AgentProcess,
        block: int,
        code: str,
        units: bytes,
        filename: str,
        first_line: int,
        deadline: float,
        collector: _OutputCollector,
        finish: Callable[..., BlockResult],
        replaced: bool,
        rebind: bool,
    ) -> BlockResult:
        """Send one block and serve its calls until it ends, times out or breaks the protocol."""
        calls = 0
        try:
            run_msg: dict[str, Any] = {
                "t": "run",
                "id": block,
                "code": code,
                "filename": filename,
                "first_line": first_line,
                "units": units,
            }
            if rebind:
                run_msg["rebind"] = True
            gone, items = self._reads.start_block(self.handler, deadline)
            proc.send_frame(frame(_with_cache_fields(run_msg, None, gone, items)), deadline)
            while True:
                msg = proc.recv(deadline)
                kind = msg.get("t")
                if kind == "call":
                    self._on_call(proc, msg, deadline)
                    calls += 1
                elif kind == "done":
                    error = self._on_done(proc, msg, block, collector)
                    return finish(_clean_error(error), calls, restarted=replaced)
                else:
                    self._on_message(kind, msg, collector)
        except (_Timeout, _Gone, _ProtocolError) as exc:
            return finish(self._failure(exc, proc, calls, first_line), calls, restarted=True, lost=True)
        except KeyboardInterrupt:
            # Ctrl-C (the REPL): the block stops; the agent process is in an unknown state.
            self._restart()
            raise

    def _on_call(self, proc: AgentProcess, msg: dict, deadline: float) -> None:
        """Serve one API call and answer it, with what the agent process's read cache must
        keep or drop (:mod:`.reads`)."""
        if msg.keys() != _CALL_KEYS:
            raise _ProtocolError("malformed call message")
        call_text = proc.last
        reply = self._serve(msg)
        answer, ok, internal = self._answer(msg, reply)
        key = (msg["ns"], msg["m"])
        held: int | None = None
        gone: list[int] = []
        items: list[list[Any]] = []
        if key in self._readonly:
            if ok:
                call = [key[0], key[1], list(msg["a"]), dict(msg["k"])]
                held, gone = self._reads.keep(call_text, call, answer["v"])
        elif key not in self._passive and (ok or internal):
            # The call may have changed the world: the agent process drops what may no
            # longer hold (a new epoch of reads starts).
            trigger = f"{key[0]}.{key[1]}" if ok and key in self._triggers else None
            gone, items = self._reads.changed(trigger, self.handler, deadline)
        try:
            proc.send_frame(frame(_with_cache_fields(answer, held, gone, items)), deadline)
        except _Gone:
            pass  # the call is done; the EOF is seen on the next read

    def _on_message(self, kind: object, msg: dict, collector: _OutputCollector) -> None:
        """A ``use`` or ``out`` message (anything else breaks the protocol)."""
        if kind == "use":
            if set(msg) != _USE_KEYS or not self._reads.used(msg.get("i")):
                raise _ProtocolError("malformed use message")
        elif kind == "out":
            text = msg.get("s")
            if set(msg) != _OUT_KEYS or not isinstance(text, str):
                raise _ProtocolError("malformed output message")
            collector.add(text)
        else:
            raise _ProtocolError(f"unexpected message {kind!r}")

    def _on_done(self, proc: AgentProcess, msg: dict, block: int, collector: _OutputCollector) -> object:
        """The end of the block ``block``: its output's tail, then the process is stopped
        (:meth:`AgentProcess.hold`: agent code never runs between blocks); returns the
        error it reported."""
        tail = msg.get("tail", "")
        omitted = msg.get("omitted", 0)
        error = msg.get("error")
        if (
            set(msg) != _DONE_KEYS
            or msg.get("id") != block
            or not isinstance(tail, str)
            or type(omitted) is not int
            or omitted < 0
            or not _valid_error(error)
        ):
            raise _ProtocolError("malformed or out-of-step end-of-block message")
        collector.cut(omitted)
        collector.add(tail)
        self._reads.finish()
        proc.hold()
        return error

    def _failure(self, exc: Exception, proc: AgentProcess, calls: int, first_line: int) -> dict:
        """Restart the agent process after a time-out, its death or a protocol breach; the
        block's error saying so."""
        code: str | None = None
        if isinstance(exc, _Timeout):
            kind, message = (
                "BlockTimeout",
                f"the block ran longer than {self.block_timeout:g} s and was stopped; the agent process was "
                "restarted, so variables and functions defined earlier are gone",
            )
        elif isinstance(exc, _Gone):
            kind, message = (
                "AgentProcessDied",
                f"the agent process died ({proc.death_cause(self.memory_limit)}); it was restarted, "
                "so variables and functions defined earlier are gone",
            )
            code = "sandbox_violation" if proc.violated() else None
        else:
            kind, message = (
                "SandboxError",
                f"the agent process broke the sandbox protocol ({exc}) and was restarted; variables are gone",
            )
        self._restart()
        error = {"type": kind, "message": f"{message}; {_calls_kept(calls)}", "line": first_line, "source": "pibench"}
        if isinstance(exc, _ProtocolError):
            error["code"] = exc.kind
        elif code:
            error["code"] = code  # seen by the kernel and pibench, not said by the agent process
        return error

    def _serve(self, msg: dict) -> dict:
        """Apply one API call completely, then build the reply (raises only
        :class:`_ProtocolError` for a malformed call message)."""
        ns, method, args, kwargs = msg.get("ns"), msg.get("m"), msg.get("a"), msg.get("k")
        if not (
            isinstance(ns, str)
            and isinstance(method, str)
            and isinstance(args, list)
            and isinstance(kwargs, dict)
            and all(isinstance(k, str) for k in kwargs)
        ):
            raise _ProtocolError("malformed API call")
        try:
            if ns == "query" or (ns, method) in self._readonly or _sigmask is None:
                # Read-only: Ctrl-C may stop it (a query's worker is killed), nothing is half-done.
                value = self.handler(ns, method, args, kwargs)
            else:
                # Ctrl-C (SIGINT) is held while the call is applied, so it lands after it: a call
                # is applied completely or not at all (inline: no context manager's generator per call).
                held = _sigmask(signal.SIG_BLOCK, _SIGINT)
                try:
                    value = self.handler(ns, method, args, kwargs)
                finally:
                    _sigmask(signal.SIG_SETMASK, held)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a reply
            code = getattr(exc, "code", None)
            message = getattr(exc, "message", None)
            if isinstance(code, str) and isinstance(message, str):
                return {"t": "ret", "ok": False, "code": code, "message": message}
            if os.environ.get("PIBENCH_DEBUG"):
                import traceback

                traceback.print_exc(file=sys.stderr)
            return {
                "t": "ret",
                "ok": False,
                "code": "internal_error",
                "message": f"{ns}.{method}() failed inside pibench: {type(exc).__name__}: {exc}",
            }
        return {"t": "ret", "ok": True, "v": value}  # encoded (and checked) by _answer()

    def _answer(self, msg: dict, reply: dict) -> tuple[dict, bool, bool]:
        """The message answering the call ``msg`` (``reply`` from :meth:`_serve`, its result
        as marshal bytes), whether it is a result, and whether it is an ``internal_error``
        (a value that is not plain JSON is one)."""
        if reply["ok"]:
            try:
                return {"t": "ret", "ok": True, "v": self._encode(msg["ns"], msg["m"], reply["v"])}, True, False
            except (TypeError, ValueError, RecursionError) as exc:  # not plain JSON
                reply = _not_json_reply(msg, exc)
        # the texts as JSON text carried them: UTF-8, a lone surrogate replaced
        code = reply["code"].encode("utf-8", "replace").decode("utf-8")
        message = reply["message"].encode("utf-8", "replace").decode("utf-8")
        return {"t": "ret", "ok": False, "code": code, "message": message}, False, code == "internal_error"


def _with_cache_fields(msg: dict, held: int | None, gone: list[int], items: list[list[Any]]) -> dict:
    """``msg`` with the fields of the agent process's read cache (:mod:`.reads`): ``c`` (the
    id its result is held under), ``x`` (ids to drop), ``pf`` (prefetched entries)."""
    if held is not None:
        msg["c"] = held
    if gone:
        msg["x"] = gone
    if items:
        msg["pf"] = items
    return msg


#: Blocks compiled lately: (code, filename, first_line, static check) -> what
#: :func:`_compiled_block` returned (the same text always gets the same verdict and code).
_COMPILED: dict[tuple[str, str, int, bool], tuple[dict | None, bytes]] = {}
#: Most blocks kept in :data:`_COMPILED` (the oldest leaves first).
COMPILED_BLOCKS = 8
#: Sessions may run in threads (the LLM harness's ``--jobs``): one at a time in the cache.
_COMPILED_LOCK = threading.Lock()


def _compiled_block(code: str, filename: str, first_line: int, static_check: bool) -> tuple[dict | None, bytes]:
    """Check and compile a block once (:func:`~.policy.compile_agent_code`): ``(refusal,
    b"")`` for code refused (a syntax error or the policy: a block's error with ``source``
    ``"pibench"``), else ``(None, units)``, the compiled units marshalled for the ``run``
    message. The last :data:`COMPILED_BLOCKS` blocks are kept: a block sent
    again (in this session or another of this process) is neither parsed nor checked again."""
    key = (code, filename, first_line, static_check)
    with _COMPILED_LOCK:
        done = _COMPILED.get(key)
    if done is None:
        try:
            units = compile_agent_code(code, filename, first_line, static_check=static_check)
            # Code objects marshal as in a .pyc; the agent process runs this same interpreter.
            done = (None, marshal.dumps(units))
        except SyntaxError as exc:
            refusal = {"type": "SyntaxError", "message": str(exc.msg), "line": exc.lineno, "source": "pibench"}
            done = (refusal, b"")
        except SandboxViolation as exc:
            done = ({"type": "SandboxError", "message": exc.message, "line": exc.line, "source": "pibench"}, b"")
        with _COMPILED_LOCK:
            while len(_COMPILED) >= COMPILED_BLOCKS:
                del _COMPILED[next(iter(_COMPILED))]
            _COMPILED[key] = done
    return done


def agent_random_seed(seed: int, start: int, month: int) -> int:
    """The seed of the agent process's ``random`` for its ``start``-th start (0-based) in
    ``month`` of the career with ``seed``: SHA-256 of ``"agent-random|seed|start|month"``
    (64 bits)."""
    import hashlib

    digest = hashlib.sha256(f"agent-random|{seed}|{start}|{month}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


#: ``pthread_sigmask`` where the platform has it (holding Ctrl-C during a change): the C
#: function ``signal.pthread_sigmask`` wraps (the same mask; it returns the old one as ints,
#: without building a set of ``Signals`` members at every call).
_sigmask = getattr(_signal, "pthread_sigmask", None)
_SIGINT = {int(signal.SIGINT)}
