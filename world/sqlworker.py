"""Agent queries, bounded: the read-only SQL reader of the observable database (§14).

One implementation of "run an agent's SELECT": :func:`configure_reader` sets up a read-only
connection (``query_only``, an authorizer that allows reads and the listed functions only,
SQLite's own size limits, an in-memory temporary store) and :func:`run_select` runs one
statement with a wall-clock and step budget and bounded results. The observable mirror uses
them in-process for trusted callers (the TUI), and :class:`QueryWorker` runs them in a
**query worker process** for agent code, where the operating system bounds what no SQLite
setting can: a straight-line expression that never reaches a loop point (where SQLite checks
its progress handler) is killed on time; memory is capped by ``RLIMIT_AS`` and SQLite's hard
heap limit; the worker cannot write a byte to disk (``RLIMIT_FSIZE`` 0, few descriptors),
so a big sort cannot spill to a temporary file. Before it reads any agent SQL the worker
confines itself with the agent process's own primitives (:func:`confine_worker`,
:mod:`world.osbound`): no new privileges, ``nobody`` when started as root, Landlock with no
file access at all, resource limits and the seccomp allow-list (see ``docs/headless.md``,
"Bounds on the pibench process"). A killed worker is restarted on the next query. The
pibench process only ever waits (with a deadline) and reads a reply of bounded size.

This file is also the worker's script (``python -S -s -P -B world/sqlworker.py``): it imports
the standard library only, and :mod:`world.osbound` by path.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sqlite3
import struct
import subprocess
import sys
import time
import types
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

#: Largest SQL text accepted, in characters (also SQLITE_LIMIT_SQL_LENGTH).
MAX_SQL_CHARS = 20_000
#: Largest single string or blob a query may build, in bytes (SQLITE_LIMIT_LENGTH).
MAX_VALUE_BYTES = 1_000_000
#: Largest total result one query may return (approximate bytes of all cells).
MAX_RESULT_BYTES = 8_000_000
#: Wall-clock bound of one query, in seconds.
QUERY_SECONDS = 2.0
#: Address-space limit of the query worker, in bytes.
WORKER_MEMORY_BYTES = 768 << 20
#: SQLite's hard heap limit inside the query worker, in bytes.
WORKER_HEAP_BYTES = 256 << 20
#: SQLite limits of the reader (name of ``sqlite3.SQLITE_LIMIT_*`` -> value).
READER_LIMITS: dict[str, int] = {
    "SQLITE_LIMIT_LENGTH": MAX_VALUE_BYTES,
    "SQLITE_LIMIT_SQL_LENGTH": MAX_SQL_CHARS * 4,
    "SQLITE_LIMIT_COLUMN": 100,
    "SQLITE_LIMIT_EXPR_DEPTH": 100,
    "SQLITE_LIMIT_COMPOUND_SELECT": 50,
    "SQLITE_LIMIT_VDBE_OP": 50_000,
    "SQLITE_LIMIT_FUNCTION_ARG": 64,
    "SQLITE_LIMIT_ATTACHED": 0,
    "SQLITE_LIMIT_LIKE_PATTERN_LENGTH": 1_000,
    "SQLITE_LIMIT_VARIABLE_NUMBER": 1,
    "SQLITE_LIMIT_TRIGGER_DEPTH": 1,
    "SQLITE_LIMIT_WORKER_THREADS": 0,
}
_MAX_EXTRA_COUNTED = 100_000
"""Rows beyond ``max_rows`` counted at most, to name the total in the truncation note."""
_MAX_VM_STEPS = 20_000_000  # ~ a second or two of SQLite work at loop points
_READ_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
#: Most bytes a worker reply may take on the wire (cells JSON-encoded, escapes included).
_MAX_REPLY_BYTES = 6 * MAX_RESULT_BYTES + (1 << 20)


class QueryRefused(Exception):
    """A query refused or stopped; ``message`` is the text for the agent (``sql_error``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def configure_reader(conn: sqlite3.Connection, allowed_functions: Iterable[str], denied: list[str]) -> None:
    """Make ``conn`` a bounded read-only reader.

    Args:
        conn: A connection to the mirror (or to a deserialized copy of it).
        allowed_functions: SQL function names agent queries may call (lower case).
        denied: A one-element list the authorizer writes the last refused function's
            message into (read by :func:`run_select` for a clear error).
    """
    allowed = frozenset(allowed_functions)
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute("PRAGMA query_only = ON")
    for name, value in READER_LIMITS.items():
        category = getattr(sqlite3, name, None)
        if isinstance(category, int):
            conn.setlimit(category, value)

    def authorize(action: int, arg1: Any, arg2: Any, dbname: Any, source: Any) -> int:
        if action == sqlite3.SQLITE_FUNCTION:
            if str(arg2).lower() in allowed:
                return sqlite3.SQLITE_OK
            denied[0] = f"the SQL function {arg2}() is not available"
            return sqlite3.SQLITE_DENY
        if action in _READ_ACTIONS:
            return sqlite3.SQLITE_OK
        denied[0] = ""
        return sqlite3.SQLITE_DENY

    conn.set_authorizer(authorize)


def run_select(conn: sqlite3.Connection, sql: str, max_rows: int, seconds: float, denied: list[str]) -> dict[str, Any]:
    """Run one SELECT on a reader from :func:`configure_reader`.

    Args:
        conn: The reader.
        sql: One SELECT/WITH statement (already checked by the caller).
        max_rows: Rows returned at most (``query_max_rows``); more are counted (up to
            :data:`_MAX_EXTRA_COUNTED`, within the time budget).
        seconds: Wall-clock budget, checked at SQLite's loop points.
        denied: The list given to :func:`configure_reader`.

    Returns:
        ``{"cols": [...], "rows": [[...]], "extra": n, "counted": bool}`` (``extra``: rows
        beyond ``max_rows``; ``counted`` is false when ``extra`` is only a lower bound: more
        than :data:`_MAX_EXTRA_COUNTED` rows, or the time budget ran out while counting them).

    Raises:
        QueryRefused: The statement failed, ran too long or built too much.
    """
    steps = [0]
    deadline = time.monotonic() + seconds

    def progress() -> int:
        steps[0] += 1
        return 1 if steps[0] * 100 > _MAX_VM_STEPS or time.monotonic() > deadline else 0

    conn.set_progress_handler(progress, 100)
    try:
        denied[0] = ""
        cur = conn.execute(sql)
        cols = [d[0] for d in cur.description] if cur.description else []
        rows: list[tuple[Any, ...]] = []
        size = 0
        while len(rows) <= max_rows:
            chunk = cur.fetchmany(min(200, max_rows + 1 - len(rows)))
            if not chunk:
                break
            for r in chunk:
                size += sum(len(v) if isinstance(v, (str, bytes)) else 8 for v in r)
            if size > MAX_RESULT_BYTES:
                raise QueryRefused(
                    f"SQL error: the result is larger than {MAX_RESULT_BYTES // 1_000_000} MB; "
                    "select fewer columns or rows, or aggregate"
                )
            rows.extend(chunk)
        extra = 0
        counted = True
        if len(rows) > max_rows:
            # The rows are in hand: counting the rest is a courtesy. If the budget runs out
            # while counting, the count so far is a lower bound, not a reason to refuse.
            extra = 1
            try:
                for _ in zip(range(_MAX_EXTRA_COUNTED), cur, strict=False):
                    extra += 1
                counted = extra <= _MAX_EXTRA_COUNTED
            except sqlite3.OperationalError as exc:
                if "interrupted" not in str(exc):
                    raise
                counted = False
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "interrupted" in text:
            raise QueryRefused(too_long_message(seconds)) from None
        if "not authorized" in text or "prohibited" in text:
            if denied[0]:
                raise QueryRefused(
                    f"SQL error: {denied[0]}; use core SQL functions (aggregates, "
                    "string, math, date and json functions, window functions)"
                ) from None
            raise QueryRefused(
                "SQL error: only reading the observable tables is allowed (no PRAGMA, ATTACH or writes)"
            ) from None
        raise QueryRefused(f"SQL error: {_explain(text)}") from None
    except (sqlite3.Error, sqlite3.Warning, OverflowError, ValueError, MemoryError) as exc:
        raise QueryRefused(f"SQL error: {type(exc).__name__}: {_explain(str(exc))}") from None
    finally:
        conn.set_progress_handler(None, 0)
    return {"cols": cols, "rows": [list(r) for r in rows[:max_rows]], "extra": extra, "counted": counted}


def too_long_message(seconds: float) -> str:
    """The error text of a query stopped for time."""
    return (
        f"SQL error: the query ran too long (over {seconds:g} s or too many steps) "
        "and was stopped; add a LIMIT or simplify it"
    )


def _explain(text: str) -> str:
    """SQLite's message, with the limit named where SQLite's own words are terse."""
    low = text.lower()
    if "vtable constructor failed" in low:  # json_each, json_tree: their setup is not a read
        return (
            f"{text} (table-valued functions such as json_each and json_tree are not available; "
            "select the JSON column and parse it with json.loads)"
        )
    if "too big" in low or "toobig" in low:
        return f"{text} (a single value may hold at most {MAX_VALUE_BYTES:,} bytes)"
    if "too many columns" in low:
        return f"{text} (at most {READER_LIMITS['SQLITE_LIMIT_COLUMN']} columns)"
    if "too complex" in low or "too many" in low or "depth" in low:
        return f"{text} (a statement may have at most {READER_LIMITS['SQLITE_LIMIT_VDBE_OP']:,} steps of code, expressions nested {READER_LIMITS['SQLITE_LIMIT_EXPR_DEPTH']} deep, {READER_LIMITS['SQLITE_LIMIT_COMPOUND_SELECT']} compound SELECTs)"
    if "memory" in low or "full" in low or "disk" in low or "i/o" in low:
        return f"{text} (the query needs more memory than a query may use; aggregate or add a LIMIT)"
    return text


# ---------------------------------------------------------------------------- framing
# A frame: one kind byte, a 4-byte big-endian length, the payload.

_HEADER = struct.Struct(">cI")


def _write_frame(fd: int, kind: bytes, payload: bytes) -> None:
    view = memoryview(_HEADER.pack(kind, len(payload)) + payload)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes:
    parts: list[bytes] = []
    while n > 0:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            readable, _, _ = select.select([fd], [], [], remaining)
            if not readable:
                continue
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def _read_frame(fd: int, deadline: float | None, limit: int) -> tuple[bytes, bytes]:
    kind, size = _HEADER.unpack(_read_exact(fd, _HEADER.size, deadline))
    if size > limit:
        raise EOFError  # a reply larger than any valid one: treat the worker as broken
    return kind, _read_exact(fd, size, deadline)


def _encode_cell(v: Any) -> Any:
    return {"b": v.hex()} if isinstance(v, bytes) else v


def _decode_cell(v: Any) -> Any:
    return bytes.fromhex(v["b"]) if isinstance(v, dict) else v


# ---------------------------------------------------------------------------- worker side


def _load_osbound() -> types.ModuleType:
    """``world/osbound.py`` (the kernel's bounds, shared with the agent process's
    confinement), loaded by path when this file runs as the worker's script (``-S -s -P``:
    the ``world`` package is not importable there)."""
    key = "_pibench_world_osbound"
    module = sys.modules.get(key)
    if module is None:
        import importlib.util

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "osbound.py")
        spec = importlib.util.spec_from_file_location(key, path)
        if spec is None or spec.loader is None:  # pragma: no cover - a broken install
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return module


if TYPE_CHECKING or __package__:
    from world import osbound
else:  # the worker's script
    osbound = _load_osbound()

#: The worker's parent (pibench) as the worker started (``osbound.parent_death``).
_START_PPID = os.getppid()

#: Descriptors the worker keeps (``RLIMIT_NOFILE``): its two pipes, stderr, and a few for SQLite.
WORKER_FDS = 8


def confine_worker(memory: int) -> dict[str, Any]:
    """Bound the query worker for good, before it reads any agent SQL, with the agent
    process's own primitives (:mod:`world.osbound`), best effort (a step the system refuses
    is skipped; the others still hold):

    1. ``PR_SET_NO_NEW_PRIVS``; when started as root, user and group ``nobody`` with no
       supplementary groups, and no capability left in any set.
    2. Landlock with **no** rule: no file can be opened, read, written or listed at all
       (everything the worker runs is loaded already; its database arrives through its
       pipe); TCP refused from ABI 4, signals and abstract UNIX sockets scoped from ABI 6.
    3. Resource limits: address space ``memory`` bytes, no file growth, no core,
       :data:`WORKER_FDS` descriptors, no new processes once not root.
    4. The agent process's seccomp allow-list (:data:`world.osbound.SECCOMP_ALLOWED`: no
       sockets, no fork or exec, signals to itself only, no executable memory; the calls no
       confined process can make kill it with ``SIGSYS``), opens refused.

    Returns:
        What is in force: ``{"no_new_privs": bool, "user": "nobody" | "unprivileged" |
        "root", "landlock_abi": int, "landlock": bool, "rlimits": bool, "seccomp": bool,
        "notes": [why a step is missing, ...]}``; the worker sends it to pibench (a ``C``
        frame) before it reads any SQL (:attr:`QueryWorker.confinement`,
        :func:`describe_confinement`).
    """
    notes: list[str] = []
    try:
        libseccomp = osbound.load_libseccomp()
    except OSError:
        libseccomp = None
        notes.append("libseccomp.so.2 is not installed")
    import resource  # noqa: F401 - loaded now: after Landlock nothing can be read

    nnp = bool(osbound.no_new_privs())
    user = str(osbound.drop_to_nobody())
    if osbound.drop_capabilities():
        user = "root"
    # after the drop, which clears it: the worker dies with pibench (``kill -9`` included)
    # instead of finishing a statement nobody will read (it is in a session of its own)
    parent_death = bool(osbound.parent_death(_START_PPID))
    if not parent_death:
        notes.append("PR_SET_PDEATHSIG refused")
    abi = int(osbound.kernel_landlock_abi()) if nnp else 0
    refusal = osbound.landlock_restrict(abi, []) if abi else "the kernel has no Landlock"
    if refusal:
        notes.append(str(refusal))
    refused = list(osbound.rlimits(memory, WORKER_FDS))
    notes.extend(refused)
    seccomp = False
    if nnp and libseccomp is not None:
        why = osbound.seccomp_filter(libseccomp, allow_open=False)
        seccomp = why is None
        if why:
            notes.append(str(why))
    for name in [m for m in sys.modules if m in ("ctypes", "_ctypes") or m.startswith("ctypes.")]:
        del sys.modules[name]  # nothing left to use it for
    return {
        "no_new_privs": nnp,
        "user": user,
        "landlock_abi": abi,
        "landlock": not refusal,
        "rlimits": not refused,
        "seccomp": seccomp,
        "parent_death": parent_death,
        "notes": notes,
    }


def _load_reader(payload: bytes, init: dict[str, Any], denied: list[str]) -> sqlite3.Connection:
    """A new bounded reader (:func:`configure_reader`) holding ``payload``, one serialized
    copy of the mirror. Each copy gets a new connection: a configured reader cannot load
    another (its authorizer allows reads only, so a second ``deserialize`` is refused)."""
    heap = int(init.get("heap", WORKER_HEAP_BYTES))
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    conn.execute(f"PRAGMA hard_heap_limit = {heap}")
    conn.execute(f"PRAGMA soft_heap_limit = {heap // 2}")
    conn.deserialize(payload)
    configure_reader(conn, init["functions"], denied)
    return conn


def serve(rfd: int = 0, wfd: int = 1) -> None:
    """The query worker's loop: an ``I`` frame (JSON: allowed functions, limits), then ``D``
    frames (a serialized mirror, replacing the one loaded before) and ``Q`` frames (JSON:
    sql, max_rows, seconds), each ``Q`` answered by one ``R`` frame (JSON)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the pibench process decides when to stop us
    kind, payload = _read_frame(rfd, None, 1 << 20)
    init = json.loads(payload)
    denied = [""]
    conn: sqlite3.Connection | None = None
    status = confine_worker(int(init.get("memory", WORKER_MEMORY_BYTES)))
    _write_frame(wfd, b"C", json.dumps(status).encode())  # what holds, before any SQL is read
    while True:
        try:
            kind, payload = _read_frame(rfd, None, 1 << 31)
        except (EOFError, OSError):
            return
        if kind == b"D":
            if conn is not None:
                conn.close()  # before the new copy is loaded: never two copies in memory
            try:
                conn = _load_reader(payload, init, denied)
            except (sqlite3.Error, MemoryError):
                conn = None  # the next query says so; the next change sends a new copy
            continue
        if kind != b"Q":
            return
        req = json.loads(payload)
        try:
            if conn is None:
                raise QueryRefused("SQL error: the observable database is not loaded")
            res = run_select(conn, req["sql"], int(req["max_rows"]), float(req["seconds"]), denied)
            res["rows"] = [[_encode_cell(v) for v in row] for row in res["rows"]]
            reply: dict[str, Any] = {"ok": True, **res}
        except QueryRefused as exc:
            reply = {"ok": False, "message": exc.message}
        except MemoryError:
            reply = {"ok": False, "message": f"SQL error: {_explain('out of memory')}"}
        try:
            data = json.dumps(reply, ensure_ascii=False).encode("utf-8", "replace")
        except MemoryError:
            data = json.dumps({"ok": False, "message": f"SQL error: {_explain('out of memory')}"}).encode()
        _write_frame(wfd, b"R", data)


# ---------------------------------------------------------------------------- pibench side


#: The steps a query worker's confinement is complete with (:func:`confine_worker`'s keys).
_WORKER_STEPS = (
    ("no_new_privs", "no_new_privs"),
    ("landlock", "landlock"),
    ("seccomp", "seccomp allow-list"),
    ("rlimits", "rlimits"),
    ("parent_death", "dies with pibench"),
)

#: The integrity kind of a query worker killed by its seccomp filter (as for the agent process).
WORKER_VIOLATION = "sandbox_violation"


def confinement_complete(status: dict[str, Any] | None) -> bool:
    """Whether a query worker's report (:func:`confine_worker`) has every step in force and
    the worker runs as no privileged user."""
    if not isinstance(status, dict):
        return False
    return all(status.get(key) is True for key, _ in _WORKER_STEPS) and status.get("user") in ("nobody", "unprivileged")


def describe_confinement(status: dict[str, Any] | None) -> str:
    """A query worker's report in one line: ``complete (landlock ABI 7, seccomp allow-list,
    no_new_privs, rlimits, user nobody)``, ``INCOMPLETE (missing: ...; notes)`` or ``not
    started (no query ran)``."""
    if status is None:
        return "not started (no query ran)"
    if not isinstance(status, dict):
        return "INCOMPLETE (the worker's report is unreadable)"
    user = str(status.get("user"))
    if confinement_complete(status):
        return (
            f"complete (landlock ABI {status.get('landlock_abi')}, seccomp allow-list, no_new_privs, rlimits, "
            f"dies with pibench, user {user})"
        )
    missing = [label for key, label in _WORKER_STEPS if status.get(key) is not True]
    if user not in ("nobody", "unprivileged"):
        missing.append(f"privilege drop (user {user})")
    notes = [str(n)[:200] for n in status.get("notes") or [] if isinstance(n, str)]
    return f"INCOMPLETE (missing: {', '.join(missing)}" + (f"; {'; '.join(notes)}" if notes else "") + ")"


def _death_signal(proc: subprocess.Popen[bytes]) -> int | None:
    """The signal that ended ``proc`` (waited for briefly), or ``None`` (alive, or it exited)."""
    try:
        code = proc.wait(timeout=0.5)
    except subprocess.TimeoutExpired:
        return None
    return -code if code < 0 else None


class QueryWorker:
    """The pibench side of a query worker process (started lazily, restarted after a kill).

    Args:
        functions: SQL function names agent queries may call.
        memory: Address-space limit of the worker, in bytes.
    """

    def __init__(self, functions: Iterable[str], memory: int = WORKER_MEMORY_BYTES) -> None:
        self.functions = sorted(functions)
        self.memory = memory
        self.proc: subprocess.Popen[bytes] | None = None
        self.loaded: object = None  # the version of the mirror the worker holds
        self.starts = 0
        self.kills = 0
        #: What the last worker said of its confinement (:func:`confine_worker`), ``None``
        #: until one answered; the least complete report is kept once one was incomplete.
        self.confinement: dict[str, Any] | None = None
        #: ``(integrity kind, message)`` of what pibench saw of its workers (a kill by the
        #: seccomp filter), until :meth:`take_incidents`.
        self.incidents: list[tuple[str, str]] = []

    def take_incidents(self) -> list[tuple[str, str]]:
        """What was seen of the workers since the last call (and forget it)."""
        out, self.incidents = self.incidents, []
        return out

    def _note_confinement(self, payload: bytes) -> None:
        """Keep a new worker's report (the first, or any that is less complete)."""
        try:
            status = json.loads(payload)
        except ValueError:
            status = {"notes": ["the worker's confinement report was unreadable"]}
        if not isinstance(status, dict):
            status = {"notes": ["the worker's confinement report was unreadable"]}
        if self.confinement is None or confinement_complete(self.confinement):
            self.confinement = status

    def _start(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [sys.executable, "-S", "-s", "-P", "-B", os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={"PYTHONHASHSEED": "0"},
            cwd="/",
            close_fds=True,
            start_new_session=True,
        )
        assert proc.stdin is not None
        init = {"functions": self.functions, "memory": self.memory, "heap": WORKER_HEAP_BYTES}
        _write_frame(proc.stdin.fileno(), b"I", json.dumps(init).encode())
        self.proc = proc
        self.loaded = None
        self.starts += 1
        return proc

    def stop(self) -> None:
        """Kill the worker (by its own pid) and reap it."""
        proc, self.proc = self.proc, None
        self.loaded = None
        if proc is None:
            return
        if proc.poll() is None:
            try:
                proc.kill()
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - unkillable
            pass
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def query(
        self, sql: str, max_rows: int, seconds: float, version: object, snapshot: Callable[[], bytes]
    ) -> dict[str, Any]:
        """Run one SELECT in the worker.

        Args:
            sql: The checked statement.
            max_rows: Rows returned at most.
            seconds: Time left for the query; the worker is killed this long after sending
                (plus a tenth of a second for the reply to arrive).
            version: Identity of the mirror's current contents; the worker gets a fresh
                ``snapshot()`` when it differs from what it holds.
            snapshot: Returns the serialized mirror.

        Returns:
            As :func:`run_select`.

        Raises:
            QueryRefused: The query failed, ran past ``seconds`` (the worker is killed) or
                used more memory than the worker may (it died).
        """
        seconds = max(0.05, seconds)
        for attempt in (0, 1):
            proc = self.proc if self.proc is not None and self.proc.poll() is None else None
            if proc is None:
                self.stop()
                proc = self._start()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                if self.loaded != version:
                    _write_frame(proc.stdin.fileno(), b"D", snapshot())
                    self.loaded = version
                body = json.dumps({"sql": sql, "max_rows": max_rows, "seconds": seconds}).encode()
                _write_frame(proc.stdin.fileno(), b"Q", body)
            except OSError:
                self.stop()  # the worker had died while idle: once more with a new one
                if attempt:
                    raise QueryRefused("SQL error: the query worker could not be started") from None
                continue
            deadline = time.monotonic() + seconds + 0.1
            try:
                kind, payload = _read_frame(proc.stdout.fileno(), deadline, _MAX_REPLY_BYTES)
                if kind == b"C":  # a new worker's confinement, sent before it read any SQL
                    self._note_confinement(payload)
                    kind, payload = _read_frame(proc.stdout.fileno(), deadline, _MAX_REPLY_BYTES)
            except TimeoutError:
                self.stop()
                self.kills += 1
                raise QueryRefused(too_long_message(seconds)) from None
            except (EOFError, OSError):
                if _death_signal(proc) == signal.SIGSYS:
                    self.stop()
                    self.kills += 1
                    self.incidents.append(
                        (
                            WORKER_VIOLATION,
                            "the query worker was killed by its seccomp filter (SIGSYS) for a system call no "
                            "query makes: code running in it got past SQLite",
                        )
                    )
                    raise QueryRefused(
                        "SQL error: the query worker was killed by its seccomp filter for a system call no "
                        "query makes; the query was stopped"
                    ) from None
                self.stop()
                self.kills += 1
                raise QueryRefused(
                    f"SQL error: the query used more than the {self.memory >> 20:,} MiB a query may use "
                    "and was stopped; aggregate, select fewer columns or add a LIMIT"
                ) from None
            except BaseException:  # KeyboardInterrupt, SIGTERM: never leave a query running
                self.stop()
                raise
            reply = json.loads(payload)
            if not reply.get("ok"):
                raise QueryRefused(str(reply.get("message", "SQL error")))
            reply["rows"] = [[_decode_cell(v) for v in row] for row in reply["rows"]]
            return dict(reply)
        raise QueryRefused("SQL error: the query worker could not be started")  # pragma: no cover


if __name__ == "__main__":
    serve()
