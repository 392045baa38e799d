"""Starting an agent process, importable without the sandbox package.

``pibench headless`` starts its agent process as the very first thing it does: the agent
process then imports numpy and what agent code may use (about as long as the parent's own
start) while the parent imports the rest of pibench and builds the world. Importing
:mod:`pibench_tui.sandbox` first would delay that start by its own imports (dataclasses,
the policy, the confinement ...), so the few things a start needs live here, on the
standard library alone: the command line (:func:`agent_command`), the environment
(:func:`clean_env`), where numpy is (:func:`numpy_path`) and :func:`launch`, which starts
the process and sends it the ``boot`` message. :class:`pibench_tui.sandbox.AgentProcess`
starts its processes with these too, or adopts one started here.
"""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
import threading
from typing import Any

#: The agent process's script (run through :data:`BOOTSTRAP`).
CHILD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sandbox", "child.py")

#: What ``python -c`` runs in the agent process: ``child.py`` (the first argument) as
#: ``__main__``, its code read through the standard loader, so from the bytecode cache when
#: there is one (``pip install`` writes it; a script run as ``python child.py`` is compiled
#: at every start). A second argument is this process's ``sys.pycache_prefix``, used for
#: ``child.py`` and its two siblings only (``_PYCACHE_PREFIX``): the standard library and
#: numpy keep their own caches.
BOOTSTRAP = (
    "import sys\n"
    "from importlib.machinery import SourceFileLoader\n"
    "__file__ = sys.argv.pop(1)\n"
    "_PYCACHE_PREFIX = sys.argv.pop(1) if len(sys.argv) > 1 else None\n"
    "sys.pycache_prefix = _PYCACHE_PREFIX\n"
    "_code = SourceFileLoader('__main__', __file__).get_code('__main__')\n"
    "sys.pycache_prefix = None\n"
    "exec(_code)\n"
)


#: The marshal format of the messages to the agent process: the current one (4), which
#: writes ASCII text as it is (version 2 encodes and decodes every string as UTF-8: ~7% more
#: instructions for a headless career). It writes a reference for an object met twice in one
#: message, which then loads as one object twice: the results sent never hold a container
#: twice (``tests/headless/test_plain_results.py``), so each part loads as an object of its
#: own, as from JSON.
MARSHAL_VERSION = 4


def frame(msg: dict) -> bytes:
    """One message to the agent process (``pibench_tui.sandbox.process.frame``): its length
    in ASCII digits, a newline, then the message marshalled (:data:`MARSHAL_VERSION`).

    Raises:
        ValueError: ``msg`` holds something marshal cannot write.
    """
    data = marshal.dumps(msg, MARSHAL_VERSION)
    return b"%d\n" % len(data) + data


def agent_command(script: str | os.PathLike[str] = CHILD_SCRIPT) -> list[str]:
    """The command line of an agent process running ``script``: this interpreter with
    ``-S -s -P -B`` (no site folders, no user site, no script folder on the path, no
    bytecode written) running it through :data:`BOOTSTRAP` (which reads its cached
    bytecode)."""
    prefix = [sys.pycache_prefix] if sys.pycache_prefix else []
    return [sys.executable, "-S", "-s", "-P", "-B", "-c", BOOTSTRAP, str(script), *prefix]


#: The hidden test option capping the agent process's Landlock ABI
#: (``pibench_tui.sandbox.confine.LANDLOCK_ABI_CAP_ENV``; named here so this module stays
#: free of the sandbox package).
LANDLOCK_ABI_CAP_ENV = "PIBENCH_TEST_LANDLOCK_ABI_MAX"


def clean_env() -> dict[str, str]:
    """The agent process's whole environment: nothing of the caller's (API keys ...) but
    the test option :data:`LANDLOCK_ABI_CAP_ENV` when set (it can only lower the agent
    process's Landlock ABI, and the report names the ABI used)."""
    env = {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
    cap = os.environ.get(LANDLOCK_ABI_CAP_ENV)
    if cap is not None:
        env[LANDLOCK_ABI_CAP_ENV] = cap
    if sys.platform == "darwin":  # pragma: no cover - locale for the interpreter
        env["LC_CTYPE"] = "UTF-8"
    return env


_NUMPY_PATH: list[str | None] = []


def numpy_path() -> str | None:
    """The folder holding the ``numpy`` package (the agent process runs with ``-S`` and
    imports numpy from there before it confines itself), or ``None`` without numpy."""
    if not _NUMPY_PATH:
        import importlib.util

        spec = importlib.util.find_spec("numpy")
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        _NUMPY_PATH.append(os.path.dirname(os.path.abspath(locations[0])) if locations else None)
    return _NUMPY_PATH[0]


_LAUNCHER: list[Any] = []  # [pid, request queue] of the launcher thread, once started
_LAUNCHER_LOCK = threading.Lock()


def _launcher_loop(requests: Any) -> None:
    """The launcher thread: starts each requested process, answers with it or the error."""
    while True:
        argv, options, answer = requests.get()
        try:
            answer.put((subprocess.Popen(argv, **options), None))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            answer.put((None, exc))


def _spawn(argv: list[str], **options: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(argv, **options)`` from a thread that lives as long as pibench.

    The agent process asks the kernel to kill it when its parent ends
    (``PR_SET_PDEATHSIG``), and for the kernel the parent is the *thread* that started it:
    one started from a short-lived thread (a TUI console worker, a career's thread) would
    die with that thread. So the main thread starts it itself and any other thread hands the
    start to one launcher thread (a daemon, started once, ending only with the process).
    """
    if threading.current_thread() is threading.main_thread():
        return subprocess.Popen(argv, **options)
    import queue

    with _LAUNCHER_LOCK:
        if not _LAUNCHER or _LAUNCHER[0] != os.getpid():  # none yet, or inherited through fork (no thread)
            requests: queue.SimpleQueue[Any] = queue.SimpleQueue()
            threading.Thread(target=_launcher_loop, args=(requests,), name="pibench-launcher", daemon=True).start()
            _LAUNCHER[:] = [os.getpid(), requests]
    answer: queue.SimpleQueue[Any] = queue.SimpleQueue()
    _LAUNCHER[1].put((argv, options, answer))
    proc, error = answer.get()
    if error is not None:
        raise error
    return proc


def launch(command: list[str] | None = None) -> subprocess.Popen[bytes]:
    """Start an agent process (``command``, default :func:`agent_command`) with its two
    pipes, in the clean environment from ``/``, in a session of its own, and send it the
    ``boot`` message (numpy's folder), so that it starts importing at once. Its stderr is
    discarded unless ``PIBENCH_DEBUG_CHILD`` is set.

    Raises:
        OSError: The process cannot be started.
    """
    debug = bool(os.environ.get("PIBENCH_DEBUG_CHILD"))
    proc = _spawn(
        command if command is not None else agent_command(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=None if debug else subprocess.DEVNULL,
        env=clean_env(),
        cwd="/",
        close_fds=True,
        start_new_session=True,
    )
    assert proc.stdin is not None
    try:  # a new pipe has room for it: this write does not wait
        os.write(proc.stdin.fileno(), frame({"t": "boot", "numpy_path": numpy_path()}))
    except OSError:  # it is gone already: the handshake reports it
        pass
    return proc


def discard(proc: subprocess.Popen[bytes]) -> None:
    """Stop an agent process that was never used (its own pid, then reaped) and close its pipes."""
    if proc.poll() is None:
        try:
            proc.kill()
        except OSError:
            pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover - unkillable process
        pass
    for stream in (proc.stdin, proc.stdout):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass
