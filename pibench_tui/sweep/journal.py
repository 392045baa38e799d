"""The sweep journal: finished careers written as they arrive, so an interrupted sweep resumes.

A sweep that writes ``--json FILE`` (or ``--csv FILE``) keeps ``FILE.partial.jsonl`` while it
runs: a header line with the sweep's settings, then one line per finished career
(``{"key", "seed", "row"}``; a sealed seed's line has ``seed`` null and its row
``seed_commitment``: :func:`~pibench_tui.sweep.runs.sealed_row`). Lines are appended and flushed as careers finish (and synced to
disk at most every couple of seconds), so a kill loses at most the careers in flight and a
torn last line is ignored. Run the same command again and the journaled careers are read
back instead of recomputed; a journal written with other settings (seeds, scenario,
policies, grid configs) is refused with a message saying what differs. The journal is also
where the sweep's full rows are while it runs (this process keeps a few numbers a career,
:class:`~pibench_tui.sweep.results.GroupRows`): when the sweep completes, the final files are
written from it atomically, row by row, and the journal is removed; it stays locked until
then, so a second sweep on the same files is refused until the first is done with them.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from ..harness.rundir import atomic_write_text  # the one home of an output file written whole

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "JOURNAL_FORMAT",
    "JournalError",
    "SweepJournal",
    "atomic_text_writer",
    "atomic_write_text",
    "journal_path",
    "seeds_text",
]

JOURNAL_FORMAT = "pibench-sweep/1"
"""The ``format`` of a journal's header line."""

SYNC_EVERY_S = 2.0
"""At most this many seconds of appended lines are only in the OS's buffers (a power cut,
not a kill, can lose them)."""


class JournalError(Exception):
    """A journal that cannot be resumed: other settings, another format, or damaged."""


@contextmanager
def atomic_text_writer(path: str | os.PathLike[str]) -> Iterator[Any]:
    """:func:`atomic_write_text` for a text written in pieces: ``write(str)`` pieces inside
    the block; the file replaces ``path`` when the block ends without an error.

    Raises:
        OSError: the folder is not writable (the temporary file is removed, ``path`` untouched).
    """
    from saves.storage import atomic_writer

    with atomic_writer(Path(path), mode=0o666) as fb:
        yield _Utf8Writer(fb)


class _Utf8Writer:
    """``write(str)`` onto a binary file, UTF-8."""

    def __init__(self, fb: IO[bytes]) -> None:
        self._fb = fb

    def write(self, text: str) -> None:
        self._fb.write(text.encode("utf-8"))


def journal_path(out_file: str | os.PathLike[str]) -> Path:
    """The journal kept beside an output file: ``FILE.partial.jsonl``."""
    p = Path(out_file)
    return p.with_name(p.name + ".partial.jsonl")


def seeds_text(seeds: list[int] | tuple[int, ...]) -> str:
    """A short description of a seed list for messages: ``1-200 (200 seeds)``, ``101, 102``."""
    seeds = list(seeds)
    if not seeds:
        return "no seeds"
    if len(seeds) <= 4:
        return ", ".join(map(str, seeds))
    if seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}-{seeds[-1]} ({len(seeds):,} seeds)"
    return f"{seeds[0]}, {seeds[1]}, ... {seeds[-1]} ({len(seeds):,} seeds)"


def fingerprint(data: Any) -> str:
    """SHA-256 of ``data`` as canonical JSON (sorted keys): equal settings, equal fingerprints."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between two settings dicts, in words (for the refusal message)."""
    out = []
    if old.get("command") != new.get("command"):
        out.append(f"command: {old.get('command')} there, {new.get('command')} now")
    if old.get("scenario") != new.get("scenario"):
        out.append(f"scenario: {old.get('scenario')} there, {new.get('scenario')} now")
    og, ng = old.get("groups", []), new.get("groups", [])
    okeys, nkeys = [g["key"] for g in og], [g["key"] for g in ng]
    if okeys != nkeys:
        out.append(f"policies/variants: {', '.join(okeys)} there, {', '.join(nkeys)} now")
    else:
        for a, b in zip(og, ng, strict=True):
            for field, label in (
                ("policy", "policy"),
                ("config", "world parameters"),
                ("baseline_config", "baseline config"),
                ("seeds", "seeds"),
            ):
                if a.get(field) != b.get(field):
                    if field == "seeds":
                        out.append(f"seeds of {a['key']}: {a.get('seeds_text')} there, {b.get('seeds_text')} now")
                    else:
                        out.append(f"{label} of {a['key']} differ")
    return out or ["the settings differ"]


class SweepJournal:
    """The append-only journal of one sweep (see the module docstring).

    Args:
        path: the journal file (``FILE.partial.jsonl``, see :func:`journal_path`).
        settings: the sweep's settings (JSON-able; compared with an existing journal's).

    Attributes:
        count: the careers in the journal (read back and appended).

    Raises:
        JournalError: an existing journal of another sweep (the message names what differs
            and how to start over), one that is not a journal, or one that another running
            sweep is writing.
        OSError: the journal cannot be read or created.
    """

    def __init__(self, path: str | os.PathLike[str], settings: dict[str, Any]) -> None:
        self.path = Path(path)
        self.settings = settings
        self.count = 0
        self.resumed = 0
        """How many careers were read back from an earlier, interrupted run."""
        self._fh: IO[bytes] | None = None
        self._lock_fh: IO[bytes] | None = None  # holds the lock (released when closed)
        self._size = 0  # bytes in the file: where the next line starts
        self._synced = time.monotonic()
        header = {"format": JOURNAL_FORMAT, "settings": settings}
        text = (json.dumps(header, separators=(",", ":")) + "\n").encode("utf-8")
        if not self.path.exists() and self._create(text):
            self._size = len(text)
        else:  # there already, or created by another sweep since the look just now
            self._lock()  # before reading: a running sweep's last line is not torn
            self._read()

    def _create(self, header: bytes) -> bool:
        """Create the journal holding ``header``, already locked (:meth:`_lock`), unless a
        file appeared at its path meanwhile: two sweeps started at once on the same files
        both found no journal, and each used to put its own in place (the later replacing
        the earlier, each holding the lock of its own file): both then wrote into one file
        and crashed reading their rows back (a JSON traceback, no files). The header is
        written to a temporary file, locked, then hard-linked to the path, which fails if
        anything is there; only where hard links are unsupported is it moved in place.

        Returns:
            ``False``: another sweep created the journal first (:meth:`_lock` then refuses,
            or reads it if that sweep is gone).
        """
        from saves.storage import TMP_SUFFIX, as_created, fsync_dir

        folder = self.path.parent
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=TMP_SUFFIX, dir=folder)
        fh: IO[bytes] | None = None
        try:
            os.fchmod(fd, as_created(0o666))
            with os.fdopen(fd, "wb") as fb:
                fb.write(header)
                fb.flush()
                os.fsync(fb.fileno())
            fh = open(tmp, "rb")  # held until close(); the lock is the file's, whatever its name
            if fcntl is not None:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # a fresh file: free
            try:
                os.link(tmp, self.path)
            except FileExistsError:
                return False
            except OSError:  # pragma: no cover - no hard links on this file system
                os.replace(tmp, self.path)
            fsync_dir(folder)
            self._lock_fh, fh = fh, None
            return True
        finally:
            if fh is not None:
                fh.close()
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass

    def _lock(self) -> None:
        """Hold an exclusive lock on the journal until :meth:`close` (or this process ends),
        so that a second sweep writing the same files is refused instead of interleaving its
        lines with this one's (where POSIX ``flock`` exists).

        Raises:
            JournalError: another running sweep holds it.
        """
        if fcntl is None:  # pragma: no cover - no flock on this platform
            return
        busy = (
            f"{self.path} is in use by another pibench sweep that is still running (the same "
            "--json/--csv file); wait for it to finish, or write to another file"
        )
        try:
            fh = open(self.path, "rb")  # held until close()
        except FileNotFoundError:  # removed meanwhile by the sweep that just finished with it
            raise JournalError(busy) from None
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(fh.fileno()).st_ino != os.stat(self.path).st_ino:  # replaced by another sweep meanwhile
                raise BlockingIOError
        except OSError:
            fh.close()
            raise JournalError(busy) from None
        self._lock_fh = fh

    def _unlock(self) -> None:
        if self._lock_fh is not None:
            self._lock_fh.close()
            self._lock_fh = None

    def _read(self) -> None:
        """Check an existing journal line by line (one line in memory at a time), count its
        careers and cut a torn last line."""
        start_over = f"delete {self.path} to start the sweep over"
        good = 0
        for i, (line, last) in enumerate(_lines(self.path)):
            complete = line.endswith(b"\n")
            try:
                obj = json.loads(line) if complete else None
            except ValueError:
                obj = None
            if obj is None:
                if last:
                    break  # a torn last line: the career in flight when the sweep was killed
                raise JournalError(f"{self.path} is damaged at line {i + 1} (not JSON); {start_over}")
            if i == 0:
                if not isinstance(obj, dict) or obj.get("format") != JOURNAL_FORMAT:
                    raise JournalError(f"{self.path} is not a pibench sweep journal; {start_over}")
                if obj.get("settings") != self.settings:
                    diff = "; ".join(_differences(obj.get("settings") or {}, self.settings))
                    raise JournalError(
                        f"{self.path} holds an interrupted sweep with other settings ({diff}); "
                        f"run that sweep's command again to resume it, or {start_over}"
                    )
            else:
                try:
                    str(obj["key"]), obj["row"]["seed"]
                    if obj["seed"] is None:  # a sealed seed's row names its commitment instead
                        if not isinstance(obj["row"]["seed_commitment"], str):
                            raise TypeError("a sealed row without its commitment")
                    else:
                        int(obj["seed"])
                except (KeyError, TypeError, ValueError):
                    raise JournalError(
                        f"{self.path} is damaged at line {i + 1} (not a career row); {start_over}"
                    ) from None
                self.count += 1
            good += len(line)
        if good == 0:
            raise JournalError(f"{self.path} is empty or damaged; {start_over}")
        if good != self.path.stat().st_size:  # cut the torn line so appends start on a fresh line
            with open(self.path, "r+b") as fb:
                fb.truncate(good)
        self._size = good
        self.resumed = self.count

    def read_back(self) -> Iterator[tuple[str, dict[str, Any], int]]:
        """The careers read back from an earlier run, in the order they finished, one at a
        time: ``(key, row, offset)`` with ``offset`` the line's place in the file (for
        :meth:`rows_at`)."""
        offset = 0
        for i, (line, _last) in enumerate(_lines(self.path)):
            if i > 0 and line.endswith(b"\n"):
                obj = json.loads(line)
                yield str(obj["key"]), obj["row"], offset
            offset += len(line)

    def rows_at(self, offsets: Iterable[int]) -> Iterator[dict[str, Any]]:
        """The rows of the lines that start at ``offsets`` (from :meth:`append` or
        :meth:`read_back`), in that order, read from the file one at a time."""
        if self._fh is not None:
            self._fh.flush()
        with open(self.path, "rb") as fb:
            for offset in offsets:
                fb.seek(offset)
                yield json.loads(fb.readline())["row"]

    def append(self, key: str, row: dict[str, Any]) -> int:
        """Record one finished career (flushed now, synced to disk every couple of seconds).

        Returns:
            Where its line starts in the file (for :meth:`rows_at`).
        """
        if self._fh is None:
            self._fh = open(self.path, "ab")
        line = (json.dumps({"key": key, "seed": row["seed"], "row": row}, separators=(",", ":")) + "\n").encode()
        self._fh.write(line)
        self._fh.flush()
        offset = self._size
        self._size += len(line)
        self.count += 1
        now = time.monotonic()
        if now - self._synced >= SYNC_EVERY_S:
            os.fsync(self._fh.fileno())
            self._synced = now
        return offset

    def close(self) -> None:
        """Sync and close (the journal stays for a later resume; its lock is released)."""
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None
        self._unlock()

    def finish(self) -> None:
        """The sweep is complete and its files are written: remove the journal, then release
        its lock (so that no second sweep takes up a journal about to disappear)."""
        if self._fh is not None:
            self._fh.close()  # no sync: the file is removed next
            self._fh = None
        self.path.unlink(missing_ok=True)
        self._unlock()


def _lines(path: Path) -> Iterator[tuple[bytes, bool]]:
    """The lines of a file as bytes, one at a time, each with whether it is the last."""
    with open(path, "rb") as fb:
        line = fb.readline()
        while line:
            following = fb.readline()
            yield line, not following
            line = following
