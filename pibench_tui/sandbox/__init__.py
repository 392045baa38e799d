"""The agent sandbox, parent side (MECHANICS §16): run untrusted agent Python safely.

Agent code never runs in this process. :class:`Sandbox` starts an **agent process**
(``pibench_tui/sandbox/child.py`` under ``python -S -s -P``, a clean environment,
working directory ``/``) that holds no world and imports nothing of ours. The agent
process reaches the world only through a small RPC: it sends ``(namespace, method,
args, kwargs)`` as JSON, this process validates the call, applies it to the world
*completely* and only then answers with a JSON result or a refusal. A kill can
therefore never leave a call half-applied: either the parent finished it (it counts)
or the parent never started it.

Defence in depth:

* a static policy check (:func:`check_source`) in this process *and* in the agent
  process: no dunder or private attributes, no imports outside
  :data:`ALLOWED_MODULES`, no ``open``/``exec``/``eval``/``compile``/``globals``/
  ``vars``/``locals``, ``getattr`` only with a literal public name, no frame, code,
  generator or traceback internals, ``str.format`` only on literal templates;
* restricted builtins and sanitised copies of the allowed modules in the agent process;
* OS limits on the agent process: a wall clock per block enforced by this process
  (the agent process is killed and restarted), ``RLIMIT_AS`` (memory), no new file
  descriptors, no file writes, no new processes, no core dumps;
* an output cap kept while printing (head and tail, the middle counted, never stored);
* only JSON-able values cross the boundary, both ways.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from pibench_tui.sandbox.child import (
    ALLOWED_MODULES,
    SandboxViolation,
    check_source,
    parse_agent_code,
)

__all__ = [
    "ALLOWED_MODULES",
    "AgentProcess",
    "BlockResult",
    "Refusal",
    "Sandbox",
    "SandboxStartError",
    "SandboxViolation",
    "agent_random_seed",
    "check_source",
    "spec_from_api_calls",
]

CHILD_SCRIPT = Path(__file__).with_name("child.py")

#: Default wall-clock limit per block, in seconds (MECHANICS §16; the issue's 10 s).
DEFAULT_BLOCK_TIMEOUT = 10.0
#: Default output cap per block, in characters.
DEFAULT_MAX_OUTPUT = 20_000
#: Default address-space limit of the agent process, in bytes (1 GiB).
DEFAULT_MEMORY_LIMIT = 1 << 30
#: Time allowed for an agent process to start and answer the handshake, in seconds.
START_TIMEOUT = 30.0
#: Largest message accepted from the agent process, in bytes.
MAX_MESSAGE_BYTES = 16 * 1024 * 1024

Handler = Callable[[str, str, list, dict], Any]
OutputSink = Callable[[str], None]


class SandboxStartError(RuntimeError):
    """The agent process could not be started (a broken Python installation, ...)."""


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
        stdout: The block's output within the cap (head, a cut notice, tail).
        error: ``None`` or ``{"type", "message", "line"}``; ``line`` is the line in the
            agent's own text (``None`` if unknown).
        truncated: Whether output was cut.
        omitted: Characters of output cut (0 if none or unknown).
        calls: API calls this process completed for the block (each kept for good).
        restarted: Whether the agent process was killed/lost and restarted (variables
            defined by agent code are gone).
        seconds: Wall time of the block, in seconds.
    """

    ok: bool
    stdout: str = ""
    error: dict | None = None
    truncated: bool = False
    omitted: int = 0
    calls: int = 0
    restarted: bool = False
    seconds: float = 0.0


def spec_from_api_calls(api_calls: Mapping[str, Mapping[str, Any]], required: object = None) -> dict:
    """Turn the world's registry of API calls into the JSON spec the agent process uses.

    Args:
        api_calls: ``world.api.API_CALLS``: namespace -> method -> ``CallSpec`` with
            ``params`` (tuples of name and default or the ``REQUIRED`` sentinel),
            ``doc`` and ``mutating`` (MECHANICS §15).
        required: The ``REQUIRED`` sentinel of ``world.api``.

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
                "doc": str(getattr(call, "doc", "") or ""),
                "mutating": bool(getattr(call, "mutating", False)),
            }
    return spec


class _Timeout(Exception):
    pass


class _Gone(Exception):
    pass


class _ProtocolError(Exception):
    pass


def _clean_env() -> dict[str, str]:
    """The agent process's whole environment: nothing of the caller's (API keys ...)."""
    env = {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
    if sys.platform == "darwin":  # pragma: no cover - locale for the interpreter
        env["LC_CTYPE"] = "UTF-8"
    return env


class AgentProcess:
    """One agent process and its two pipes (line-delimited JSON).

    Starting is non-blocking: create it early (before the world is built) and hand it to
    :class:`Sandbox` so the interpreter boots while the parent imports the world.
    """

    def __init__(self) -> None:
        debug = bool(os.environ.get("PIBENCH_DEBUG_CHILD"))
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-S", "-s", "-P", "-B", str(CHILD_SCRIPT)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None if debug else subprocess.DEVNULL,
                env=_clean_env(),
                cwd="/",
                close_fds=True,
                start_new_session=True,
            )
        except OSError as exc:
            raise SandboxStartError(f"cannot start the agent process: {exc}") from exc
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.wfd = self.proc.stdin.fileno()
        self.rfd = self.proc.stdout.fileno()
        os.set_blocking(self.wfd, False)
        self.buf = bytearray()
        self.ready = False

    # transport ------------------------------------------------------------------------
    def send(self, msg: dict, deadline: float) -> None:
        """Write one message; raise :class:`_Timeout` or :class:`_Gone`."""
        # Encoding fails (TypeError/ValueError) before anything is written.
        data = json.dumps(msg, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        view = memoryview(data.encode("utf-8", "replace") + b"\n")
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Timeout()
            try:
                _, writable, _ = select.select([], [self.wfd], [], remaining)
            except (OSError, ValueError) as exc:
                raise _Gone() from exc
            if not writable:
                continue
            try:
                n = os.write(self.wfd, view)
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError) as exc:
                raise _Gone() from exc
            view = view[n:]

    def recv(self, deadline: float) -> dict:
        """Read one message; raise :class:`_Timeout`, :class:`_Gone` or :class:`_ProtocolError`."""
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line = bytes(self.buf[:i])
                del self.buf[: i + 1]
                try:
                    msg = json.loads(line, parse_constant=_refuse_constant)
                except (ValueError, RecursionError) as exc:
                    raise _ProtocolError(f"unreadable message: {exc}") from exc
                if not isinstance(msg, dict):
                    raise _ProtocolError("message is not an object")
                return msg
            if len(self.buf) > MAX_MESSAGE_BYTES:
                raise _ProtocolError("message too large")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Timeout()
            try:
                readable, _, _ = select.select([self.rfd], [], [], remaining)
            except (OSError, ValueError) as exc:
                raise _Gone() from exc
            if not readable:
                continue
            try:
                chunk = os.read(self.rfd, 1 << 16)
            except OSError as exc:
                raise _Gone() from exc
            if not chunk:
                raise _Gone()
            self.buf += chunk

    def pending(self) -> bool:
        """Whether the agent process sent anything not yet read (without waiting).

        Between blocks an honest agent process is silent: anything pending is a protocol
        violation. An end of file is not reported here (the next read sees it)."""
        if self.buf:
            return True
        try:
            readable, _, _ = select.select([self.rfd], [], [], 0)
            if not readable:
                return False
            chunk = os.read(self.rfd, 1 << 16)
        except (OSError, ValueError):
            return False
        self.buf += chunk
        return bool(chunk)

    # life cycle -----------------------------------------------------------------------
    def handshake(self, init: dict, timeout: float = START_TIMEOUT) -> None:
        """Send the init message (API spec, limits) and wait for ``ready``."""
        deadline = time.monotonic() + timeout
        try:
            self.send(init, deadline)
            msg = self.recv(deadline)
        except (_Timeout, _Gone, _ProtocolError) as exc:
            self.kill()
            raise SandboxStartError(
                f"the agent process did not start ({type(exc).__name__.strip('_')}; "
                f"exit status {self.proc.poll()})"
            ) from exc
        if msg != {"t": "ready"}:
            self.kill()
            raise SandboxStartError("the agent process answered the handshake wrongly")
        self.ready = True

    def exit_description(self) -> str:
        code = self.proc.poll()
        if code is None:
            return "still running"
        if code < 0:
            import signal

            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit status {code}"

    def kill(self) -> None:
        """Kill the agent process (by its own pid) and reap it."""
        if self.proc.poll() is None:
            try:
                self.proc.kill()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - unkillable process
            pass
        self._close_pipes()

    def close(self) -> None:
        """Ask the agent process to exit; kill it if it does not."""
        if self.proc.poll() is None:
            try:
                self.send({"t": "exit"}, time.monotonic() + 0.5)
                self.proc.wait(timeout=1.0)
            except (_Timeout, _Gone, subprocess.TimeoutExpired):
                pass
        self.kill()

    def _close_pipes(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


class _OutputCollector:
    """Parent-side output cap: the same head/tail rule, applied to what arrives, so a
    misbehaving agent process still cannot flood this process."""

    def __init__(self, limit: int, sink: OutputSink | None) -> None:
        self.limit = max(0, limit)
        self.head_limit = self.limit // 2 + self.limit % 2
        self.tail_limit = self.limit // 2
        self.sink = sink
        self.head: list[str] = []
        self.head_len = 0
        self.tail = ""
        self.tail_total = 0
        self.reported_cut = 0

    def add(self, text: str) -> None:
        if not text:
            return
        room = self.head_limit - self.head_len
        if room > 0:
            part = text[:room]
            self.head.append(part)
            self.head_len += len(part)
            if self.sink is not None:
                self.sink(part)
            text = text[room:]
        if text:
            self.tail_total += len(text)
            if self.tail_limit:
                self.tail += text
                if len(self.tail) > 2 * self.tail_limit + 4096:
                    self.tail = self.tail[-self.tail_limit :]

    def cut(self, n: int) -> None:
        self.reported_cut += max(0, n)

    def finish(self, lost: bool = False) -> tuple[str, bool, int]:
        """Emit the cut notice and the tail; return (full text, truncated, omitted)."""
        tail = self.tail[-self.tail_limit :] if self.tail_limit else ""
        omitted = self.reported_cut + (self.tail_total - len(tail))
        end = ""
        if omitted:
            end += (
                f"\n[... {omitted:,} characters of output cut here "
                f"(limit {self.limit:,} per block) ...]\n"
            )
        end += tail
        if lost and self.head_len >= self.head_limit:
            end += "\n[... output after this point was lost when the block was stopped ...]\n"
        if end and self.sink is not None:
            self.sink(end)
        return "".join(self.head) + end, bool(omitted) or (lost and self.head_len >= self.head_limit), omitted


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
        memory_limit: Address-space limit of the agent process, in bytes (0: none).
        seed: The career seed. The agent process's ``random`` module is seeded at each
            start from (this seed, the number of agent processes started before, the
            month), see :func:`agent_random_seed`: reproducible, yet a restart after a
            ``BlockTimeout`` does not repeat the same numbers.
        month: Returns the world's month (for the seed); ``None``: always 0.
        process: An :class:`AgentProcess` started earlier, to adopt.
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
    ) -> None:
        self.handler = handler
        self.spec = spec
        self.block_timeout = float(block_timeout)
        self.max_output = int(max_output)
        self.memory_limit = int(memory_limit)
        self.seed = int(seed)
        self.month = month
        self.restarts = 0
        self.starts = 0  # agent processes that completed the handshake
        self._process: AgentProcess | None = process
        self.closed = False
        self.lost_state = False  # an idle agent process died: its variables are gone
        self.blocks = 0  # blocks sent to agent processes (the id of each run message)

    # agent process --------------------------------------------------------------------
    def _ready_process(self) -> AgentProcess:
        proc = self._process
        if proc is None or proc.proc.poll() is not None:
            if proc is not None:
                self.lost_state = self.lost_state or proc.ready
                proc.kill()
            proc = self._process = AgentProcess()
        if not proc.ready:
            month = int(self.month()) if self.month is not None else 0
            proc.handshake(
                {
                    "t": "init",
                    "spec": self.spec,
                    "max_output": self.max_output,
                    "seed": agent_random_seed(self.seed, self.starts, month),
                    "memory_limit": self.memory_limit,
                }
            )
            self.starts += 1
        return proc

    def _restart(self) -> None:
        if self._process is not None:
            self._process.kill()
        self.restarts += 1
        # Boot the replacement now, so the next block does not wait for it.
        self._process = AgentProcess()

    def start(self) -> None:
        """Start the agent process and complete its handshake (otherwise done lazily)."""
        self._ready_process()

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
    ) -> BlockResult:
        """Run one block of agent code (MECHANICS §16).

        Args:
            code: Agent Python source; bare top-level expressions print their ``repr``.
            filename: Name of the agent's text in errors (``<stdin>``, ``<block 3>``).
            first_line: Line of the block's first line in the agent's text (1-based).
            on_output: Receives the block's output piece by piece while it runs (the
                head as it is printed; the cut notice and tail at the end).

        Returns:
            A :class:`BlockResult`. A refused or failing block is a result, never an
            exception: the career always continues.

        Raises:
            SandboxStartError: No agent process could be started at all.
        """
        started = time.monotonic()
        collector = _OutputCollector(self.max_output, on_output)

        def finish(error: dict | None, calls: int = 0, restarted: bool = False, lost: bool = False) -> BlockResult:
            text, truncated, omitted = collector.finish(lost=lost)
            return BlockResult(
                ok=error is None,
                stdout=text,
                error=error,
                truncated=truncated,
                omitted=omitted,
                calls=calls,
                restarted=restarted,
                seconds=time.monotonic() - started,
            )

        # Refuse bad code here already: no round trip, and a second opinion.
        try:
            parse_agent_code(code, filename, first_line)
        except SyntaxError as exc:
            return finish({"type": "SyntaxError", "message": str(exc.msg), "line": exc.lineno})
        except SandboxViolation as exc:
            return finish({"type": "SandboxError", "message": exc.message, "line": exc.line})

        proc = self._ready_process()
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
                },
                restarted=True,
            )
        replaced, self.lost_state = self.lost_state, False
        if replaced:
            collector.add(
                "[note: the agent process had stopped and was restarted; variables and "
                "functions defined earlier are gone]\n"
            )
        deadline = time.monotonic() + self.block_timeout
        calls = 0
        self.blocks += 1
        block = self.blocks
        try:
            proc.send(
                {"t": "run", "id": block, "code": code, "filename": filename, "first_line": first_line},
                deadline,
            )
            while True:
                msg = proc.recv(deadline)
                kind = msg.get("t")
                if kind == "call":
                    if set(msg) != _CALL_KEYS:
                        raise _ProtocolError("malformed call message")
                    reply = self._serve(msg)
                    calls += 1
                    try:
                        proc.send(reply, deadline)
                    except (TypeError, ValueError, RecursionError) as exc:  # not plain JSON
                        proc.send(_not_json_reply(msg, exc), deadline)
                    except _Gone:
                        pass  # the call is done; the EOF is seen on the next read
                elif kind == "out":
                    text = msg.get("s")
                    if set(msg) != _OUT_KEYS or not isinstance(text, str):
                        raise _ProtocolError("malformed output message")
                    collector.add(text)
                elif kind == "done":
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
                    return finish(_clean_error(error), calls, restarted=replaced)
                else:
                    raise _ProtocolError(f"unexpected message {kind!r}")
        except _Timeout:
            self._restart()
            return finish(
                {
                    "type": "BlockTimeout",
                    "message": (
                        f"the block ran longer than {self.block_timeout:g} s and was stopped; "
                        "the agent process was restarted, so variables and functions defined "
                        f"earlier are gone; {_calls_kept(calls)}"
                    ),
                    "line": first_line,
                },
                calls,
                restarted=True,
                lost=True,
            )
        except _Gone:
            how = proc.exit_description()
            self._restart()
            mib = self.memory_limit // (1 << 20)
            return finish(
                {
                    "type": "AgentProcessDied",
                    "message": (
                        f"the agent process died ({how}; most likely the memory limit of "
                        f"{mib:,} MiB); it was restarted, so variables and functions defined "
                        f"earlier are gone; {_calls_kept(calls)}"
                    ),
                    "line": first_line,
                },
                calls,
                restarted=True,
                lost=True,
            )
        except KeyboardInterrupt:
            # Ctrl-C (the REPL): the block stops; the agent process is in an unknown state.
            self._restart()
            raise
        except _ProtocolError as exc:
            self._restart()
            return finish(
                {
                    "type": "SandboxError",
                    "message": (
                        f"the agent process broke the sandbox protocol ({exc}) and was "
                        f"restarted; variables are gone; {_calls_kept(calls)}"
                    ),
                    "line": first_line,
                },
                calls,
                restarted=True,
                lost=True,
            )

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
            with _sigint_deferred():
                value = self.handler(ns, method, args, kwargs)
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
        return {"t": "ret", "ok": True, "v": value}  # encoded (and checked) by send()


_CALL_KEYS = frozenset({"t", "ns", "m", "a", "k"})
_OUT_KEYS = frozenset({"t", "s"})
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
        isinstance(error["type"], str)
        and isinstance(error["message"], str)
        and (line is None or (type(line) is int))
    )


def agent_random_seed(seed: int, start: int, month: int) -> int:
    """The seed of the agent process's ``random`` for its ``start``-th start (0-based) in
    ``month`` of the career with ``seed``: SHA-256 of ``"agent-random|seed|start|month"``
    (64 bits)."""
    import hashlib

    digest = hashlib.sha256(f"agent-random|{seed}|{start}|{month}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _not_json_reply(msg: dict, exc: Exception) -> dict:
    return {
        "t": "ret",
        "ok": False,
        "code": "internal_error",
        "message": f"{msg.get('ns')}.{msg.get('m')}() returned a value that is not JSON-able: {exc}",
    }


@contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) while an API call is applied, so it lands after the call:
    a call is applied completely or not at all."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _calls_kept(calls: int) -> str:
    if calls == 0:
        return "no API call had completed"
    if calls == 1:
        return "the 1 API call completed before that is kept"
    return f"the {calls} API calls completed before that are kept"


def _clean_error(error: object) -> dict | None:
    """Normalise an error reported by the agent process to ``{type, message, line}``."""
    if error is None:
        return None
    if not isinstance(error, dict):
        return {"type": "Error", "message": str(error)[:2000], "line": None}
    line = error.get("line")
    return {
        "type": str(error.get("type", "Error"))[:200],
        "message": str(error.get("message", ""))[:20_000],
        "line": line if isinstance(line, int) and not isinstance(line, bool) else None,
    }
