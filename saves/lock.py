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
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from saves.errors import StoreLockedError

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


DEFAULT_TIMEOUT = 5.0
"""Seconds a second writer waits for the lock before giving up."""


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
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
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
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        # Fixed width, so no truncation is needed (ftruncate can be slow on some disks).
        info = f"{os.getpid()} {socket.gethostname()} {stamp}".ljust(160)[:160].encode() + b"\n"
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, info)
        except OSError:
            pass  # the note is only for messages

    def holder(self) -> str:
        """A description of the last recorded holder, e.g. ``"pid 123 on host since ..."``."""
        try:
            text = self.path.read_text(errors="replace").strip()
        except OSError:
            text = ""
        parts = text.split(" ", 2)
        if len(parts) == 3:
            return f"pid {parts[0]} on {parts[1]}, since {parts[2]}"
        return "an unknown process"

    def _busy_message(self, wait: float) -> str:
        return (
            f"the save store {self.path.parent} is busy: another pibench process ({self.holder()}) "
            f"is writing to it and did not finish within {wait:g} s. Wait for it to "
            "finish or close it, or use a different store with --saves DIR"
        )
