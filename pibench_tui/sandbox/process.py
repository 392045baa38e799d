"""The agent process: starting it (a clean environment, ``python -S -s -P``), its two pipes
and the line-delimited JSON transport over them, the handshake, and stopping it."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

from pibench_tui.sandbox.confine import Confinement
from pibench_tui.sandbox.protocol import MAX_MESSAGE_BYTES, _Gone, _ProtocolError, _refuse_constant, _Timeout

CHILD_SCRIPT = Path(__file__).with_name("child.py")

# Built once (``json.dumps``/``json.loads`` with options build a new coder per call).
# No check for cycles (this process's own values; one would raise RecursionError, which
# every sender handles as it handles a value that is not plain JSON).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, check_circular=False)
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)

#: Time allowed for an agent process to start and answer the handshake, in seconds.
START_TIMEOUT = 30.0


class SandboxStartError(RuntimeError):
    """The agent process could not be started (a broken Python installation, ...)."""


#: What ``python -c`` runs in the agent process: ``child.py`` (the first argument) as
#: ``__main__``, its code read through the standard loader, so from the bytecode cache when
#: there is one (``pip install`` writes it; a script run as ``python child.py`` is compiled
#: at every start). A second argument is this process's ``sys.pycache_prefix``, used for
#: ``child.py`` and its two siblings only (``_PYCACHE_PREFIX``): the standard library and
#: numpy keep their own caches.
_BOOTSTRAP = (
    "import sys\n"
    "from importlib.machinery import SourceFileLoader\n"
    "__file__ = sys.argv.pop(1)\n"
    "_PYCACHE_PREFIX = sys.argv.pop(1) if len(sys.argv) > 1 else None\n"
    "sys.pycache_prefix = _PYCACHE_PREFIX\n"
    "_code = SourceFileLoader('__main__', __file__).get_code('__main__')\n"
    "sys.pycache_prefix = None\n"
    "exec(_code)\n"
)


def agent_command() -> list[str]:
    """The command line of an agent process: this interpreter with ``-S -s -P -B``
    (no site folders, no user site, no script folder on the path, no bytecode written)
    running ``child.py`` through :data:`_BOOTSTRAP` (which reads its cached bytecode).
    Tests replace it to start the agent process as another user."""
    prefix = [sys.pycache_prefix] if sys.pycache_prefix else []
    return [sys.executable, "-S", "-s", "-P", "-B", "-c", _BOOTSTRAP, str(CHILD_SCRIPT), *prefix]


def _clean_env() -> dict[str, str]:
    """The agent process's whole environment: nothing of the caller's (API keys ...)."""
    env = {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
    if sys.platform == "darwin":  # pragma: no cover - locale for the interpreter
        env["LC_CTYPE"] = "UTF-8"
    return env


_NUMPY_PATH: list[str | None] = []


def _numpy_path() -> str | None:
    """The folder holding the ``numpy`` package (the agent process runs with ``-S`` and
    imports numpy from there before it confines itself), or ``None`` without numpy."""
    if not _NUMPY_PATH:
        import importlib.util

        spec = importlib.util.find_spec("numpy")
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        _NUMPY_PATH.append(os.path.dirname(os.path.abspath(locations[0])) if locations else None)
    return _NUMPY_PATH[0]


class AgentProcess:
    """One agent process and its two pipes (line-delimited JSON).

    Starting is non-blocking: create it early (before the world is built) and hand it to
    :class:`Sandbox`: the ``boot`` message sent at once lets it import numpy and the rest of
    what agent code may use while the parent imports and builds the world; the ``init``
    of the handshake (which needs the world: the API spec, the seed) then only confines it.
    """

    def __init__(self) -> None:
        debug = bool(os.environ.get("PIBENCH_DEBUG_CHILD"))
        try:
            self.proc = subprocess.Popen(
                agent_command(),
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
        self.last = ""  # the text of the last message read (without its newline)
        self.ready = False
        self.confinement: Confinement | None = None  # reported in the handshake
        try:  # imports start now, while this process builds the world (the pipe has room)
            self.send({"t": "boot", "numpy_path": _numpy_path()}, time.monotonic() + START_TIMEOUT)
        except (_Timeout, _Gone):  # it is gone already: the handshake reports it
            pass

    # transport ------------------------------------------------------------------------
    def send(self, msg: dict, deadline: float) -> None:
        """Write one message; raise :class:`_Timeout` or :class:`_Gone`."""
        # Encoding fails (TypeError/ValueError) before anything is written.
        self.send_text(_ENCODER.encode(msg), deadline)

    def send_text(self, data: str, deadline: float) -> None:
        """Write one message given as its JSON text; raise :class:`_Timeout` or :class:`_Gone`."""
        view = memoryview(data.encode("utf-8", "replace") + b"\n")
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
        """Read one message (its text is then :attr:`last`); raise :class:`_Timeout`,
        :class:`_Gone` or :class:`_ProtocolError`."""
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line = bytes(self.buf[:i])
                del self.buf[: i + 1]
                try:
                    self.last = line.decode("utf-8")
                    msg = _DECODER.decode(self.last)
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
                f"the agent process did not start ({type(exc).__name__.strip('_')}; exit status {self.proc.poll()})"
            ) from exc
        if msg.get("t") != "ready" or not set(msg) <= {"t", "confinement"}:
            self.kill()
            raise SandboxStartError("the agent process answered the handshake wrongly")
        self.confinement = Confinement.from_dict(msg.get("confinement"))
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
