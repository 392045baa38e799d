"""An inter-process write lock for the save store.

The lock is an OS advisory lock (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows)
held on ``<store>/.lock``. The kernel drops it the moment its holder dies, so a lock left
behind by a killed process (even ``kill -9``) is recovered at once: the next writer simply
gets it, and overwrites the dead holder's pid in the file. The file also records the
holder's pid, host and start time, only to make the "busy" message useful.

A second writer polls for up to ``timeout`` seconds, then fails with
:class:`StoreLockedError` naming the holder. Within one process, threads sharing a
:class:`FileLock` take turns (a TUI worker autosaving while the UI thread saves); the
thread holding it may enter it again.

:class:`CareerLock` is the same OS lock on a file per career (``<store>/.careers/``), held for
a whole session that writes the career's saves; a second session fails at once with
:class:`CareerLockedError` naming the career and the holder (docs/saves.md).
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from saves.errors import CareerLockedError, StoreLockedError

if sys.platform != "win32":  # POSIX
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except (BlockingIOError, PermissionError):
            return False

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

else:  # pragma: no cover - Windows
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


#: How lock files are opened: created when missing, never through a link (a ``.lock``
#: planted as a link to another file fails with ``ELOOP`` instead of writing the holder's
#: note into that file), never inherited by child processes.
_OPEN_LOCK = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)

DEFAULT_TIMEOUT = 5.0
"""Seconds a second writer waits for the lock before giving up."""


_NOTE_WIDTH = 160
"""Bytes of the holder's note (fixed, so a new note needs no truncation)."""


def _write_holder(fd: int, doing: str = "") -> None:
    """Write the holder's note at the start of the locked file ``fd``: ``"<pid> <host> <UTC
    time>"`` and, when given, a second line saying what it is doing (e.g. ``pibench
    headless``). Only for messages: a failed write is ignored."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    # Fixed width, so no truncation is needed (ftruncate can be slow on some disks).
    info = f"{os.getpid()} {socket.gethostname()} {stamp}".ljust(_NOTE_WIDTH)[:_NOTE_WIDTH].encode() + b"\n"
    info += " ".join(doing.split()).ljust(_NOTE_WIDTH)[:_NOTE_WIDTH].encode(errors="replace") + b"\n"
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, info)
    except OSError:
        pass  # the note is only for messages


def _read_holder(path: Path) -> str:
    """The holder recorded in the lock file ``path`` (:func:`_write_holder`), e.g. ``"pibench
    headless of 'c1', pid 123 on host, since 2026-12-02 07:10:24 UTC"``, or ``"an unknown
    process"`` when the note is missing or unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            lines = fh.read(2 * (_NOTE_WIDTH + 1)).decode(errors="replace").splitlines()
    except OSError:
        lines = []
    parts = lines[0].strip().split(" ", 2) if lines else []
    if len(parts) != 3:
        return "an unknown process"
    doing = lines[1].strip() if len(lines) > 1 else ""
    return (f"{doing}, " if doing else "") + f"pid {parts[0]} on {parts[1]}, since {parts[2]}"


class FileLock:
    """Exclusive lock on a file, usable as a context manager.

    Args:
        path: the lock file (created if missing, never deleted).
        timeout: seconds to wait for a busy lock (0 = fail at once).
        poll: seconds between attempts.
    """

    def __init__(self, path: str | os.PathLike[str], timeout: float = DEFAULT_TIMEOUT, poll: float = 0.02) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self.poll = poll
        self._fd: int | None = None
        self._depth = 0
        self._owner: int | None = None
        self._threads = threading.Lock()

    @property
    def held(self) -> bool:
        """Whether the calling thread holds the lock now."""
        return self._owner == threading.get_ident()

    def acquire(self, timeout: float | None = None) -> None:
        """Take the lock, waiting up to ``timeout`` seconds (default: the lock's own
        :attr:`timeout`; ``0`` = only if it is free now).

        Raises:
            StoreLockedError: another process (or thread) held it for the whole wait.
        """
        me = threading.get_ident()
        if self._owner == me:
            self._depth += 1
            return
        wait = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + wait
        if not self._threads.acquire(timeout=max(0.0, wait)):
            raise StoreLockedError(
                f"the save store {self.path.parent} is busy: another thread of this process is "
                f"writing to it and did not finish within {wait:g} s"
            )
        try:
            fd = os.open(self.path, _OPEN_LOCK, 0o600)
            try:
                while not _try_lock(fd):
                    if time.monotonic() >= deadline:
                        raise StoreLockedError(self._busy_message(wait))
                    time.sleep(self.poll)
            except BaseException:
                os.close(fd)
                raise
        except BaseException:
            self._threads.release()
            raise
        self._fd = fd
        self._owner = me
        self._depth = 1
        self._record_holder(fd)

    def release(self) -> None:
        """Release the lock (the outermost release of a nested acquire)."""
        if self._fd is None or self._owner != threading.get_ident():
            return
        self._depth -= 1
        if self._depth > 0:
            return
        fd, self._fd = self._fd, None
        self._owner = None
        try:
            _unlock(fd)
        finally:
            os.close(fd)
            self._threads.release()

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _record_holder(self, fd: int) -> None:
        _write_holder(fd)

    def holder(self) -> str:
        """A description of the last recorded holder, e.g. ``"pid 123 on host, since ..."``."""
        return _read_holder(self.path)

    def _busy_message(self, wait: float) -> str:
        return (
            f"the save store {self.path.parent} is busy: another pibench process ({self.holder()}) "
            f"is writing to it and did not finish within {wait:g} s. Wait for it to "
            "finish or close it, or use a different store with --saves DIR"
        )


class CareerLock:
    """The lock of one career, held by the one session that writes its saves (its autosaves
    and its final save) for as long as it runs, so that two sessions never mix their months
    into one career's lineage.

    Unlike :class:`FileLock` a second holder never waits: :meth:`acquire` fails at once. The
    lock belongs to the process (any thread may release it) and, being ``fcntl.flock`` on
    ``path``, dies with it (``kill -9`` included). Within one process two ``CareerLock`` of
    the same file exclude each other too (two open files, two locks).

    Args:
        path: the lock file (created if missing, never deleted); the store keys it by the
            career's normalised name (:meth:`saves.store.SaveStore.career_lock`).
        career: the career's name, for messages.
        doing: what the holder is, recorded with the career's name for the messages of
            others (e.g. ``"pibench headless"``: ``pibench headless of 'c1'``); never the command line, which may hold a sealed seed's file name.
        advice: what the busy message offers besides waiting (default: for a session,
            continuing under another name or looking without writing).
        new_career: the second session would start a new career under this name (``--save
            NAME`` without ``--load``): waiting would not help (the name stays the running
            career's), so the busy message asks for another name instead.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        career: str,
        doing: str = "pibench",
        advice: str | None = None,
        *,
        new_career: bool = False,
    ) -> None:
        self.path = Path(path)
        self.career = career
        self.doing = doing
        self.advice = advice
        self.new_career = new_career
        #: The career's name as its saves spell it, when the one asked for is a look-alike
        #: (``C1`` for ``c1``): the busy message's commands name it (set by the store).
        self.stored_name: str | None = None
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """Whether this object holds the lock now."""
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock now or fail (a held lock is kept as it is).

        Raises:
            CareerLockedError: another session (process, or another lock object of this
                process) holds it; the message names the career, the holder and what to do.
            OSError: the lock file cannot be created or opened (say, a read-only store).
        """
        if self._fd is not None:
            return
        fd = os.open(self.path, _OPEN_LOCK, 0o600)
        try:
            if not _try_lock(fd):
                raise CareerLockedError(self.career, self._busy_message())
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        _write_holder(fd, f"{self.doing} of {self.career!r}")

    def release(self) -> None:
        """Release the lock (nothing happens when it is not held)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            _unlock(fd)
        finally:
            os.close(fd)

    def holder(self) -> str:
        """A description of the last recorded holder (see :meth:`FileLock.holder`)."""
        return _read_holder(self.path)

    def __del__(self) -> None:  # nobody can release a lock object nobody holds any more
        self.release()

    def __enter__(self) -> CareerLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _busy_message(self) -> str:
        c = self.career
        shown = self.stored_name or c
        look = f"look at it without writing: `pibench play --replay {shown}` or `pibench saves show {shown}`"
        if self.new_career:
            return (
                f"the career {c!r} is in use by another session ({self.holder()}), which writes its saves "
                f"in {self.path.parent.parent}; a new career cannot start under its name (the two would "
                f"mix their months into one lineage). Choose another name (`--save OTHER`), or {look}"
            )
        advice = self.advice or f"continue under another name (`--load {shown} --save OTHER`), or {look}"
        return (
            f"the career {c!r} is in use by another session ({self.holder()}), which writes its saves "
            f"in {self.path.parent.parent}; two sessions writing one career would mix their months into "
            f"one lineage. Wait for that session to end, {advice}"
        )
