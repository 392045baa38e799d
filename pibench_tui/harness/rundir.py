"""The run directory: one career's artefacts, written so a kill at any moment loses at
most the month in progress.

Layout (shared with ``pibench run --save-runs``; read by ``pibench report`` and
``pibench replay``): ``OUT/<label>/<scenario>-<seed or commitment prefix>/`` with

* ``result.json`` — the career's result (written last, atomically: its presence means
  the career is complete);
* ``actions.jsonl`` — the world's action log, one entry per line;
* ``months.jsonl`` — per closed month ``{"month", "report", "dashboard"}``;
* agent runs: ``transcript.jsonl``, ``integrity.json``, ``memory.txt`` (the notes),
  ``eval.json`` (after the career) and, while the career runs, ``checkpoint.json``: the
  world state at the last completed month plus the line counts of the JSON-lines files
  at that moment (lines past them belong to a month that was lost).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = [
    "RUN_FORMAT",
    "JsonlFile",
    "atomic_write_json",
    "atomic_write_text",
    "career_dir",
    "RunDirBusy",
    "RunDirLock",
    "RunFileIsLink",
    "RunFileMissing",
    "RunFileNotRegular",
    "RunFileTooLarge",
    "is_run_dir",
    "iter_jsonl",
    "read_action_log",
    "read_json",
    "read_jsonl",
    "safe_name",
    "seed_fields",
]

#: ``result.json["format"]``.
RUN_FORMAT = "pibench-run/1"

_KEPT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-")
"""Characters a path component keeps as they are (:func:`safe_name`)."""


def safe_name(text: str) -> str:
    """``text`` as one path component, one-to-one: letters, digits and ``. _ + -`` stay;
    every other character, a leading ``-`` or ``.`` and a trailing ``.`` become ``%XX`` (their
    UTF-8 bytes, as in a URL; ``%`` itself too), so two different texts never share a folder
    (``"org/model:7b"`` -> ``"org%2Fmodel%3A7b"``, ``"a b"`` -> ``"a%20b"`` while ``"a-b"``
    stays). Never ``.``/``..``; the empty text is ``"%"`` (no other text gives a lone ``%``).
    A text of kept characters only, not starting with ``-`` or ``.`` nor ending with ``.``,
    is its own name."""
    text = str(text)
    if not text:
        return "%"
    last = len(text) - 1
    out = []
    for i, ch in enumerate(text):
        if ch in _KEPT and not ((ch == "." and (i == 0 or i == last)) or (ch == "-" and i == 0)):
            out.append(ch)
        else:
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass")))
    return "".join(out)


def career_dir(
    out: str | os.PathLike[str], label: str, scenario: str, seed: int | None, commitment: str | None = None
) -> Path:
    """``OUT/<label>/<scenario>-<seed or the commitment's first 12 hex digits>``."""
    tail = str(seed) if seed is not None else f"sealed-{(commitment or 'unknown')[:12]}"
    return Path(out) / safe_name(label) / f"{safe_name(scenario)}-{tail}"


def seed_fields(seed: int, commitment: str | None) -> dict[str, Any]:
    """How a run's files record its seed: ``{"seed": seed, "seed_commitment": None}``, or
    for a sealed seed (``commitment``, from ``pibench seal``) ``{"seed": None,
    "seed_commitment": commitment}``: the seal file stays the one place a sealed seed is
    written (agent and policy runs alike, with :func:`career_dir`'s folder names)."""
    if commitment is not None:
        return {"seed": None, "seed_commitment": commitment}
    return {"seed": seed, "seed_commitment": None}


def atomic_write_text(path: str | os.PathLike[str], text: str, *, durable: bool = True, private: bool = False) -> None:
    """Write ``text`` to ``path`` so a reader sees the old file or the new one, never half
    (the save store's :func:`saves.storage.atomic_write`, UTF-8), with the permissions
    ``open()`` would give it (``0o666`` less the umask), or ``0o600`` when ``private``
    (answer keys, seeds).

    ``durable=False`` skips the fsyncs: still whole after a killed process, but not
    guaranteed after a power loss (for copies of what a durable file already holds)."""
    from saves.storage import atomic_write

    atomic_write(Path(path), text.encode("utf-8"), durable=durable, mode=None if private else 0o666)


def atomic_write_json(
    path: str | os.PathLike[str], data: Any, *, indent: int | None = 1, durable: bool = True, private: bool = False
) -> None:
    """:func:`atomic_write_text` of ``data`` as JSON (NaN refused)."""
    atomic_write_text(
        path,
        json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False) + "\n",
        durable=durable,
        private=private,
    )


#: Largest JSON file read from a run directory (``result.json``, ``eval.json``,
#: ``checkpoint.json`` ...), in bytes: a career's are far smaller (the notes are bounded).
MAX_JSON_BYTES = 64 << 20
#: Largest line of a JSON-lines file read from a run directory, in bytes (a transcript
#: line holds at most :data:`~pibench_tui.harness.loop.MAX_TRANSCRIPT_TEXT` characters of
#: a reply and of code, and the block's cut output).
MAX_LINE_BYTES = 4 << 20
#: Largest JSON-lines file read from a run directory, in bytes.
MAX_JSONL_BYTES = 1 << 30
#: Deepest nesting of lists and objects in a JSON value read from a run directory: a
#: career's files nest a few levels (a checkpoint's world state the most, well under this);
#: deeper is damage (a line of ``[`` * 200000 took ``report`` and ``replay`` down with a
#: ``RecursionError``), and every later reader (``json.dumps``, copies) stays far from
#: Python's recursion limit.
MAX_JSON_DEPTH = 100


class RunFileTooLarge(ValueError):
    """A file of a run directory is larger than pibench reads (the message names it and the limit)."""


class RunFileNotRegular(ValueError):
    """A file of a run directory is not a regular file (a FIFO, a device, a folder): pibench
    reads only regular files there (opening a FIFO would wait for a writer for ever)."""


class RunFileIsLink(ValueError):
    """A file of a run directory is a symbolic link, which pibench never follows (a link
    planted in another user's run folder could point at any file of the reader's)."""


class RunFileMissing(ValueError):
    """A file a completed run must hold is not there (the message names its path): damage to
    the folder, not a career that re-simulates to another world."""


def _open_file(path: Path, follow_links: bool = False) -> IO[bytes]:
    """``path`` opened for reading in binary, without following a final symbolic link
    unless ``follow_links`` (a file the user named on the command line, which may also be a
    pipe: ``<(pibench run --json ...)``).

    Raises:
        RunFileIsLink: ``path`` is a link (and ``follow_links`` is false).
        RunFileNotRegular: ``path`` is not a regular file (and ``follow_links`` is false):
            opened without blocking and closed at once, never read.
        OSError: It cannot be opened.
    """
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    if not follow_links:  # a FIFO planted in a run folder opens at once, and is refused below
        flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if not follow_links and os.path.islink(path):
            raise RunFileIsLink(
                f"{path} is a symbolic link; pibench never follows a link in a run folder (copy the file itself)"
            ) from None
        raise exc from None
    if not follow_links and not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RunFileNotRegular(f"{path} is not a regular file; pibench reads only regular files from a run folder")
    return open(fd, "rb")


def _mib(n: int) -> str:
    return f"{n / (1 << 20):g} MiB"


def _too_deep(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``value`` nests lists and dicts more than ``limit`` levels (iteratively: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        elif not isinstance(item, list):
            continue
        if depth > limit:
            return True
        stack.extend((v, depth + 1) for v in item if isinstance(v, (list, dict)))
    return False


def _deep(where: str) -> ValueError:
    return ValueError(f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels (a damaged file)")


def read_json(path: str | os.PathLike[str], *, limit: int = MAX_JSON_BYTES, follow_links: bool = False) -> Any:
    """Parse a JSON file of at most ``limit`` bytes; a symbolic link is refused unless
    ``follow_links`` (a file named on the command line, not one found in a run folder).

    Raises:
        FileNotFoundError / OSError: The file cannot be opened.
        RunFileIsLink: It is a symbolic link (without ``follow_links``).
        RunFileNotRegular: It is not a regular file (without ``follow_links``).
        RunFileTooLarge: It is larger than ``limit`` (nothing past the limit is read).
        ValueError: It is not valid JSON (or not UTF-8), or nests deeper than
            :data:`MAX_JSON_DEPTH`; the message names the file.
    """
    path = Path(path)
    with _open_file(path, follow_links) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise RunFileTooLarge(f"{path}: larger than {_mib(limit)}, the most pibench reads from a run directory")
    try:
        value = json.loads(data.decode("utf-8"))
    except RecursionError:
        raise _deep(str(path)) from None
    except ValueError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None
    if _too_deep(value):
        raise _deep(str(path))
    return value


def iter_jsonl(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    line_limit: int = MAX_LINE_BYTES,
    limit: int = MAX_JSONL_BYTES,
    torn_tail: bool = False,
) -> Iterator[Any]:
    """The complete JSON lines of ``path``, one at a time (see :func:`read_jsonl`). Lines end
    at ``\n`` only (a U+2028 in a text is not a line break). Nothing longer than
    ``line_limit`` bytes is held in memory. A symbolic link is never followed.

    Raises:
        RunFileIsLink: ``path`` is a symbolic link.
        RunFileNotRegular: ``path`` is not a regular file.
        RunFileTooLarge: A line is longer than ``line_limit`` bytes or the file than ``limit``.
        ValueError: A line nests deeper than :data:`MAX_JSON_DEPTH` (damage, not a torn
            line); with ``strict``, also a line that is not JSON or a cut last line (unless
            ``torn_tail``: a last line without its newline, as a kill mid-write leaves, is
            then ignored; any other damage raises).
    """
    path = Path(path)
    if not os.path.lexists(path):
        return
    total = 0
    with _open_file(path) as fh:
        number = 0
        while raw := fh.readline(line_limit + 1):
            number += 1
            total += len(raw)
            if total > limit:
                raise RunFileTooLarge(f"{path}: larger than {_mib(limit)}, the most pibench reads from a run directory")
            if not raw.endswith(b"\n"):
                if len(raw) > line_limit:
                    raise RunFileTooLarge(
                        f"{path}: line {number} is longer than {_mib(line_limit)}, the most pibench reads as one line"
                    )
                if strict and not torn_tail:
                    raise ValueError(f"{path}: line {number} is cut (no newline at the end of the file)")
                return
            line = raw.strip()
            if not line:
                continue
            try:
                value = json.loads(line.decode("utf-8"))
            except RecursionError:
                raise _deep(f"{path}: line {number}") from None
            except ValueError:
                if strict:
                    raise ValueError(f"{path}: line {number} is not JSON: {line[:60]!r}") from None
                return
            if _too_deep(value):
                raise _deep(f"{path}: line {number}")
            yield value


def read_jsonl(path: str | os.PathLike[str], *, strict: bool = False) -> list[Any]:
    """Every complete JSON line of ``path`` (a torn last line, from a kill, is ignored;
    ``[]`` when the file does not exist); size-limited like :func:`iter_jsonl`.

    With ``strict`` (a completed run's files, e.g. for ``pibench replay``) nothing is
    ignored: a line that is not JSON, or a last line without its newline, raises
    ``ValueError`` naming the file and line number.
    """
    return list(iter_jsonl(path, strict=strict))


def read_action_log(folder: str | os.PathLike[str]) -> list[Any]:
    """The action log of a completed run: ``folder/actions.jsonl`` read with ``strict``
    (:func:`read_jsonl`), each row ``[month, "ns.method", kwargs]``.

    Raises:
        RunFileMissing: ``actions.jsonl`` is not in ``folder`` (deleted, never written): the
            message names the path. A missing log is not an empty one: read as ``[]`` it
            re-simulated to month 1 and was reported as a state-digest difference.
        ValueError: the file is damaged (as :func:`read_jsonl` with ``strict``).
    """
    path = Path(folder) / "actions.jsonl"
    if not os.path.lexists(path):
        raise RunFileMissing(f"{path} is missing: the career cannot be re-simulated without its action log")
    return read_jsonl(path, strict=True)


def is_run_dir(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` holds a run (a ``result.json`` or a ``checkpoint.json``)."""
    p = Path(path)
    return (p / "result.json").is_file() or (p / "checkpoint.json").is_file()


def iter_run_dirs(root: str | os.PathLike[str]) -> Iterator[Path]:
    """Run directories at or below ``root`` (sorted), completed or not."""
    root = Path(root)
    if is_run_dir(root):
        yield root
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if "result.json" in filenames or "checkpoint.json" in filenames:
            yield Path(dirpath)
            dirnames[:] = []


class JsonlFile:
    """An append-only JSON-lines file whose committed length is known.

    Lines are flushed as written; :meth:`sync` makes them durable. :meth:`truncate`
    cuts the file back to ``n`` lines (the lines of a lost month) and returns them.
    ``private`` files are created ``0o600`` (and made so if they exist).
    """

    def __init__(self, path: str | os.PathLike[str], *, private: bool = False) -> None:
        self.path = Path(path)
        self.private = private
        self.lines = len(read_jsonl(self.path))
        self._fh: IO[str] | None = None

    def _open(self) -> IO[str]:
        if self._fh is None:  # never through a link planted in the run folder
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
            fd = os.open(self.path, flags, 0o600 if self.private else 0o666)
            if self.private:
                os.fchmod(fd, 0o600)
            self._fh = open(fd, "a", encoding="utf-8")
        return self._fh

    def append(self, obj: Any) -> None:
        """Write one JSON line (flushed to the OS)."""
        fh = self._open()
        fh.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n")
        fh.flush()
        self.lines += 1

    def sync(self) -> None:
        """Make the written lines durable (fsync)."""
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def truncate(self, n: int) -> list[Any]:
        """Keep the first ``n`` complete lines; return the lines removed (parsed)."""
        self.close()
        rows = read_jsonl(self.path)
        keep, lost = rows[:n], rows[n:]
        text = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n" for r in keep)
        if self.path.exists() or keep:
            atomic_write_text(self.path, text, private=self.private)
        self.lines = len(keep)
        return lost

    def close(self) -> None:
        """Close the file handle."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None


class RunDirLock:
    """The lock of one run directory, held by the one ``pibench agent`` that writes it for as
    long as it plays the career (the save store's discipline, :mod:`saves.lock`): an OS
    advisory lock on ``<run dir>/.lock`` that dies with its holder (``kill -9`` included),
    so a second command on the same directory fails at once naming the holder instead of
    replacing one career with the other. The lock file is opened without following a
    symbolic link.

    Raises (from :meth:`acquire`):
        RunDirBusy: Another process (or another lock object) holds it.
    """

    def __init__(self, path: str | os.PathLike[str], doing: str = "pibench agent") -> None:
        self.dir = Path(path)
        self.path = self.dir / ".lock"
        self.doing = doing
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock now or raise :class:`RunDirBusy` (a held lock is kept)."""
        from saves.lock import _read_holder, _try_lock, _write_holder

        if self._fd is not None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            if not _try_lock(fd):
                raise RunDirBusy(
                    f"{self.dir} is in use by another command ({_read_holder(self.path)}), which is playing "
                    "this career; two commands on one run directory would replace one career with the other. "
                    "Wait for it to end (or stop it: the same command then resumes the career), or use "
                    "another --out or --label"
                )
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        _write_holder(fd, self.doing)

    def release(self) -> None:
        """Release the lock (nothing happens when it is not held)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the only descriptor drops the flock

    def __enter__(self) -> RunDirLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class RunDirBusy(Exception):
    """Another process holds the run directory's lock (:class:`RunDirLock`)."""
