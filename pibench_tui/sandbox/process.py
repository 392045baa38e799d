"""The agent process: starting it (a clean environment, ``python -S -s -P``), its two pipes
and the transport over them (to it: marshal frames, :func:`frame`; from it: line-delimited
JSON, checked), the handshake, and stopping it."""

from __future__ import annotations

import json
import json.encoder
import json.scanner
import marshal
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pibench_tui import agent_launch
from pibench_tui.sandbox.confine import EXIT_MEANINGS, EXIT_OUT_OF_MEMORY, Confinement
from pibench_tui.sandbox.protocol import (
    MAX_CONTAINERS,
    MAX_MESSAGE_BYTES,
    _Gone,
    _ProtocolError,
    _refuse_constant,
    _Timeout,
    too_many_containers,
)

if TYPE_CHECKING:  # pragma: no cover
    from pibench_tui.sandbox.cosched import QuietHook

#: Why the kernel killed the agent process with ``SIGSYS`` (the seccomp filter's
#: ``SECCOMP_RET_KILL_PROCESS``, :data:`pibench_tui.sandbox.confine.SECCOMP_KILLED`).
SANDBOX_VIOLATION = (
    "the sandbox's seccomp filter killed it for a system call no confined agent code can make: "
    "a signal to another process, ptrace, another process's memory, a namespace, io_uring, bpf "
    "or the like; agent code got past the Python layer"
)

#: The agent process's script (tests replace it with a script of their own).
CHILD_SCRIPT = Path(agent_launch.CHILD_SCRIPT)

# Built once (``json.dumps``/``json.loads`` with options build a new coder per call).
# No check for cycles (this process's own values; one would raise RecursionError, which
# every sender handles as it handles a value that is not plain JSON).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, check_circular=False)


def _not_json(value: object) -> Any:
    """The encoder's ``default``: nothing beyond plain JSON is encoded (as ``JSONEncoder``'s)."""
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# json's C encoder made once, called directly: what _ENCODER.encode does for a value, without
# building a new C encoder (and two Python frames) at every call; the same text.
_make_encoder: Any = getattr(json.encoder, "c_make_encoder", None)
_C_ENCODER: Callable[[Any, int], Any] | None = (
    _make_encoder(None, _not_json, json.encoder.encode_basestring, None, ":", ",", False, False, False)
    if _make_encoder is not None
    else None
)


def _encode(value: Any) -> str:
    """``value`` as compact JSON text (no NaN or infinity, no cycles check: one raises
    RecursionError); raises ``TypeError``/``ValueError`` for what is not plain JSON."""
    if _C_ENCODER is None:  # pragma: no cover - CPython has json's C encoder
        return _ENCODER.encode(value)
    return "".join(_C_ENCODER(value, 0))


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
_SCAN: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(cast(Any, _DECODER))

#: The marshal format of everything sent to the agent process (see ``agent_launch``).
MARSHAL_VERSION = agent_launch.MARSHAL_VERSION
_dumps = marshal.dumps


def frame(msg: dict) -> bytes:
    """One message to the agent process: its length in ASCII digits, a newline, and the
    message marshalled (:data:`MARSHAL_VERSION`). This process is trusted: the agent process
    unmarshals what it sends (results arrive as marshal bytes of plain JSON data, loaded
    afresh for each answer: :func:`result_bytes`); what the agent process sends is JSON,
    checked (:meth:`AgentProcess.recv`)."""
    return agent_launch.frame(msg)


def json_copy(value: Any) -> Any:
    """``value`` as the agent process got it when results crossed as JSON text: encoded
    (plain JSON only: ``TypeError``/``ValueError``/``RecursionError`` otherwise), UTF-8 with
    lone surrogates replaced, decoded (tuples become lists, number keys strings ...)."""
    text = _encode(value).encode("utf-8", "replace").decode("utf-8")
    return _SCAN(text, 0)[0]


def result_bytes(value: Any, plain: bool) -> bytes:
    """A result for the agent process, as marshal bytes it loads afresh for each answer.

    ``plain``: ``value`` is plain JSON data by contract (dicts with str keys, lists, str,
    int, finite float, bool, None, nothing else, and no dict or list in it twice: the world
    API's results, ``tests/headless/test_plain_results.py``), so it is marshalled as it is, which gives
    exactly what its JSON text gave (a subclass, which marshal refuses, still goes the JSON
    way). Otherwise it goes through JSON first (:func:`json_copy`). Raises
    ``TypeError``/``ValueError``/``RecursionError`` for a value that is not plain JSON."""
    if plain:
        try:
            return _dumps(value, MARSHAL_VERSION)
        except ValueError:  # not marshal's exact types (a subclass ...): JSON says what it is
            pass
    return _dumps(json_copy(value), MARSHAL_VERSION)


def result_encoder(plain_calls: frozenset[tuple[str, str]]) -> Callable[[str, str, Any], bytes]:
    """``encode(namespace, method, value)``: :func:`result_bytes` of a result of that call,
    ``plain`` for the calls of ``plain_calls``, in one call (every answer and every result
    prefetched for the agent process is encoded)."""

    def encode(namespace: str, method: str, value: Any) -> bytes:
        if (namespace, method) in plain_calls:
            try:  # result_bytes(value, True)'s own first way, without its call
                return _dumps(value, MARSHAL_VERSION)
            except ValueError:
                pass
        return result_bytes(value, False)

    return encode


#: Time allowed for an agent process to start and answer the handshake, in seconds.
START_TIMEOUT = 30.0


class SandboxStartError(RuntimeError):
    """The agent process could not be started (a broken Python installation, ...)."""


_BOOTSTRAP = agent_launch.BOOTSTRAP
_clean_env = agent_launch.clean_env
_numpy_path = agent_launch.numpy_path


def agent_command() -> list[str]:
    """The command line of an agent process: :data:`CHILD_SCRIPT` run by this interpreter
    with ``-S -s -P -B`` (:func:`pibench_tui.agent_launch.agent_command`). Tests replace
    it to start the agent process as another user."""
    return agent_launch.agent_command(CHILD_SCRIPT)


#: Longest wait for a stopped agent process to be reported stopped (:meth:`AgentProcess.hold`), in seconds.
STOP_WAIT = 1.0


#: Pauses (seconds) after which a thread seen running at the end of a block is looked at again.
RUNNING_RECHECKS: tuple[float, ...] = (0.002, 0.02, 0.2)

#: CPU time (clock ticks) a thread other than the main one may use during a block before it
#: is looked at when the block ends (numpy's BLAS threads use more in a large product).
BUSY_TICKS = 5

_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_ticks(fields: list[bytes] | None) -> int:
    """User + system CPU time in clock ticks from :func:`proc_stat` fields (0 without)."""
    if fields is None or len(fields) < 13:
        return 0
    try:
        return int(fields[11]) + int(fields[12])
    except ValueError:
        return 0


def _task_cpu(pid: int) -> dict[int, int]:
    """User + system CPU time (clock ticks) of each thread of ``pid`` (empty without /proc)."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return {}
    return {int(tid): _cpu_ticks(proc_stat(pid, int(tid))) for tid in tids if tid.isdigit()}


def _all_threads_stopped(pid: int) -> bool:
    """Whether every thread of ``pid`` is in a stopped state (or gone)."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True
    for tid in tids:
        fields = proc_stat(pid, int(tid)) if tid.isdigit() else None
        if fields is not None and fields[0] not in (b"T", b"t", b"Z", b"X"):
            return False
    return True


def _threads_in_user_space(pid: int) -> set[int]:
    """Threads of the stopped process ``pid`` that were running code, not in a system call,
    when it stopped (their ``syscall`` file reads ``-1``; empty where it cannot be read)."""
    found: set[int] = set()
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/syscall", "rb") as fh:
                if fh.read().split(b" ", 1)[0].strip() in (b"-1", b"running"):
                    found.add(int(tid))
        except (OSError, ValueError):
            continue
    return found


def proc_stat(pid: int, tid: int | None = None) -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` (of the thread ``tid``: ``/proc/<pid>/task/<tid>/stat``)
    after the command name (``[0]`` the state, ``[11]``/``[12]`` user and system CPU time in
    clock ticks), or ``None`` without it (gone, or not Linux)."""
    path = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    end = data.rfind(b")")
    return data[end + 2 :].split() if end >= 0 else None


class AgentProcess:
    """One agent process and its two pipes (marshal frames to it, line-delimited JSON from it).

    Starting is non-blocking: create it early (before the world is built) and hand it to
    :class:`Sandbox`: the ``boot`` message sent at once lets it import numpy and the rest of
    what agent code may use while the parent imports and builds the world; the ``init``
    of the handshake (which needs the world: the API spec, the seed) then only confines it.
    """

    def __init__(self, proc: subprocess.Popen[bytes] | None = None) -> None:
        """Start an agent process, or adopt ``proc``, one that
        :func:`pibench_tui.agent_launch.launch` started (``pibench headless`` starts it
        before importing this package).

        Raises:
            SandboxStartError: The process cannot be started.
        """
        if proc is None:
            try:  # imports start now, while this process builds the world (the boot message)
                proc = agent_launch.launch(agent_command())
            except OSError as exc:
                raise SandboxStartError(f"cannot start the agent process: {exc}") from exc
        self.proc = proc
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.wfd = self.proc.stdin.fileno()
        self.rfd = self.proc.stdout.fileno()
        os.set_blocking(self.wfd, False)
        #: Longest message read from it, in bytes (:func:`~.protocol.message_limit`; the
        #: sandbox sets it from its output cap): a longer line is refused once that much of
        #: it is buffered, never read whole.
        self.max_message = MAX_MESSAGE_BYTES
        #: What pibench observed of it, not yet reported: ``(integrity kind, message)``
        #: (:meth:`hold`, :meth:`_resume`; taken by :meth:`take_observed`).
        self.observed: list[tuple[str, str]] = []
        self._cpu_held: int | None = None
        #: CPU time of each thread (clock ticks) when the running block started.
        self._task_cpu: dict[int, int] = {}
        self.buf = bytearray()
        self.last = b""  # the last message read, as it came (its newline included)
        self.ready = False
        self.confinement: Confinement | None = None  # reported in the handshake
        #: Set for a block: :meth:`recv` calls ``quiet.call()`` once the process has sent
        #: nothing for ``quiet.patience`` seconds (a block that computes rather than calls:
        #: co-scheduling lets it go, :meth:`~.cosched.CoSchedule.quiet_hook`), then clears it.
        self.quiet: QuietHook | None = None
        #: Stopped between blocks (:meth:`hold`): agent code never runs while pibench is not
        #: serving a block; the next message continues it first.
        self.held = False

    def hold(self) -> None:
        """Stop the agent process (``SIGSTOP``) until the next message to it, and return once
        the kernel says it is stopped (a signal is delivered asynchronously: state ``R`` for
        a moment after ``kill``; at most :data:`STOP_WAIT` seconds). Between blocks an honest
        agent process only waits; a thread of agent code that escaped the Python layer would
        otherwise keep computing (or tamper with its watchdog) while nobody watches. Best
        effort: a process that is gone is found gone by the next send."""
        try:
            os.kill(self.proc.pid, signal.SIGSTOP)
            self.held = True
        except OSError:
            return
        fields = self._wait_stopped()
        if fields is None:
            return
        running = self._running_threads()
        if running:
            self.observed.append(("ran_between_blocks", running))
        self._cpu_held = _cpu_ticks(proc_stat(self.proc.pid))

    def _wait_stopped(self) -> list[bytes] | None:
        """Wait (at most :data:`STOP_WAIT` s) until the process and each of its threads is
        reported stopped (each thread stops on its own); its stat fields then, ``None`` if it
        is gone or not stopped in time."""
        give_up = time.monotonic() + STOP_WAIT
        pause = 0.0001
        while True:
            fields = proc_stat(self.proc.pid)
            if fields is None or fields[0] in (b"Z", b"X"):
                return None
            if fields[0] in (b"T", b"t") and _all_threads_stopped(self.proc.pid):
                return fields
            if time.monotonic() > give_up:
                return None
            time.sleep(pause)
            pause = min(pause * 2, 0.01)

    def _running_threads(self) -> str:
        """Say which threads of the stopped process were running code rather than waiting
        in a system call when it stopped (``/proc/<pid>/task/<tid>/syscall`` is ``-1``), or
        ``""``. Between blocks an honest agent process waits: its main thread reads the
        pipe, the watchdog sleeps. When a thread is seen running, the process is let run a
        few moments more (:data:`RUNNING_RECHECKS`: the main thread may not have reached its
        read yet, numpy's BLAS threads spin a while after work) and what runs after the
        last is reported, with the CPU time it has used. A thread other than the main one
        that used :data:`BUSY_TICKS` of CPU during the block is looked at the same way even
        when it waits at the first look (a thread of agent code may be waiting for the
        interpreter's lock, which the main thread takes last before its read)."""
        pid = self.proc.pid
        before, self._task_cpu = self._task_cpu, {}
        busy = {t for t, used in _task_cpu(pid).items() if t != pid and used - before.get(t, 0) >= BUSY_TICKS}
        running = _threads_in_user_space(pid) | busy
        if not running:
            return ""
        for pause in RUNNING_RECHECKS:
            try:
                os.kill(pid, signal.SIGCONT)
                time.sleep(pause)
                os.kill(pid, signal.SIGSTOP)
            except OSError:
                return ""
            if self._wait_stopped() is None:
                return ""
            running = _threads_in_user_space(pid)
        if not running:
            return ""
        cpu = sum(_cpu_ticks(proc_stat(pid, tid)) for tid in running) / _CLK_TCK
        return (
            f"{len(running)} thread(s) of the agent process kept running after the block ended "
            f"({cpu:.2f} s of CPU so far); stopped with the process until the next block"
        )

    def take_observed(self) -> list[tuple[str, str]]:
        """What was observed since the last call (and forget it)."""
        out, self.observed = self.observed, []
        return out

    def _resume(self) -> None:
        if self.held:
            self.held = False
            before, self._cpu_held = self._cpu_held, None
            if before is not None:
                used = _cpu_ticks(proc_stat(self.proc.pid)) - before
                if used > 0:
                    self.observed.append(
                        (
                            "cpu_outside_block",
                            f"the agent process used {used / _CLK_TCK:.2f} s of CPU while it was to be stopped between blocks",
                        )
                    )
            self._task_cpu = _task_cpu(self.proc.pid)
            try:
                os.kill(self.proc.pid, signal.SIGCONT)
            except OSError:
                pass

    # transport ------------------------------------------------------------------------
    def send(self, msg: dict, deadline: float) -> None:
        """Write one message (:func:`frame`); raise :class:`_Timeout` or :class:`_Gone`."""
        # Encoding fails (ValueError) before anything is written.
        self.send_frame(frame(msg), deadline)

    def send_frame(self, data: bytes, deadline: float) -> None:
        """Write one framed message (:func:`frame`), continuing a held process first; raise
        :class:`_Timeout` or :class:`_Gone`."""
        self._resume()
        view = memoryview(data)
        try:  # the pipe has room (the usual case): no select() first
            view = view[os.write(self.wfd, view) :]
        except BlockingIOError:
            pass
        except OSError as exc:  # BrokenPipeError included
            raise _Gone() from exc
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
        """Read one message (its bytes are then :attr:`last`); raise :class:`_Timeout`,
        :class:`_Gone` or :class:`_ProtocolError`."""
        while True:
            i = self.buf.find(b"\n")
            if i > self.max_message:
                raise _ProtocolError(f"message longer than {self.max_message:,} bytes", "protocol_oversized")
            if i >= 0:
                self.last = line = bytes(self.buf[: i + 1])
                del self.buf[: i + 1]
                if too_many_containers(line):
                    raise _ProtocolError(
                        f"message with more than {MAX_CONTAINERS:,} arrays and objects", "protocol_oversized"
                    )
                try:
                    text = line[:-1].decode("utf-8")
                    msg, end = _SCAN(text, 0)  # the decoder's scanner: no whitespace around a message
                except StopIteration as exc:
                    raise _ProtocolError("unreadable message: not JSON") from exc
                except (ValueError, RecursionError) as exc:
                    raise _ProtocolError(f"unreadable message: {exc}") from exc
                if end != len(text):
                    raise _ProtocolError("unreadable message: extra data after it")
                if not isinstance(msg, dict):
                    raise _ProtocolError("message is not an object")
                return msg
            if len(self.buf) > self.max_message:  # bounded before more is read
                raise _ProtocolError(f"message longer than {self.max_message:,} bytes", "protocol_oversized")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Timeout()
            quiet = self.quiet
            try:
                readable, _, _ = select.select(
                    [self.rfd], [], [], remaining if quiet is None else min(remaining, quiet.patience)
                )
            except (OSError, ValueError) as exc:
                raise _Gone() from exc
            if not readable:
                if quiet is not None:
                    self.quiet = None
                    quiet.call()
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
                f"the agent process did not start ({type(exc).__name__.strip('_')}; exit status {self.proc.poll()})"
            ) from exc
        if msg.get("t") != "ready" or not set(msg) <= {"t", "confinement"}:
            self.kill()
            raise SandboxStartError("the agent process answered the handshake wrongly")
        self.confinement = Confinement.from_dict(msg.get("confinement"))
        self.ready = True

    def death_cause(self, memory_limit: int) -> str:
        """Why the agent process ended, as far as pibench knows it, never guessed: the exit
        (``"exit status N"``, ``"killed by SIGNAME"``) and what it shows. ``SIGSYS``: the
        seccomp filter (a forbidden system call); ``SIGKILL``: sent from outside the agent
        process (the system's out-of-memory killer or a user; the address-space limit never
        sends it); a status the runtime ends itself with
        (:data:`.confine.EXIT_MEANINGS`: a protocol fault, a ``MemoryError`` it met, named
        with the limit); ``SIGSEGV``/``SIGABRT``/``SIGBUS`` under a limit: that an allocation
        failing under the limit ends a process so, as does a crash in C code. Any other
        status is reported bare (QA pass 6: exit status 4, a protocol fault, was "most likely
        the memory limit").

        Args:
            memory_limit: The address-space limit in bytes (0: none).
        """
        import signal

        try:  # its pipes close before it can be reaped: give the exit a moment to show
            code = self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = None
        what = self.exit_description()
        limit = f"the memory limit of {memory_limit >> 20:,} MiB" if memory_limit > 0 else "no memory limit"
        if code == -signal.SIGSYS:
            return f"{what}: {SANDBOX_VIOLATION}"
        if code == -signal.SIGKILL:
            return f"{what}, sent from outside the agent process (the system's out-of-memory killer or a user)"
        if code == EXIT_OUT_OF_MEMORY:
            return f"{what}: {EXIT_MEANINGS[code]}; {limit}"
        if code in EXIT_MEANINGS:
            return f"{what}: {EXIT_MEANINGS[code]}"
        if memory_limit > 0 and code in (-signal.SIGSEGV, -signal.SIGABRT, -signal.SIGBUS):
            return f"{what}; an allocation failing under {limit} ends a process so, as does a crash in C code"
        return what

    def violated(self) -> bool:
        """Whether the process ended by ``SIGSYS``: the seccomp filter killed it for a
        system call the sandbox forbids outright (:data:`.confine.SECCOMP_KILLED`); call
        after :meth:`death_cause` (which reaps it)."""
        import signal

        return self.proc.poll() == -signal.SIGSYS

    def exit_description(self) -> str:
        """The process's exit in words: ``"exit status N"``, ``"killed by SIGNAME"`` or
        ``"still running"``."""
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
