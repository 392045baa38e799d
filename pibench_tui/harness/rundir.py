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
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = [
    "RUN_FORMAT",
    "JsonlFile",
    "atomic_write_json",
    "atomic_write_text",
    "career_dir",
    "is_run_dir",
    "read_json",
    "read_jsonl",
    "safe_name",
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


def atomic_write_text(path: str | os.PathLike[str], text: str, *, durable: bool = True) -> None:
    """Write ``text`` to ``path`` so a reader sees the old file or the new one, never half
    (the save store's :func:`saves.storage.atomic_write`, UTF-8), with the permissions
    ``open()`` would give it (``0o666`` less the umask).

    ``durable=False`` skips the fsyncs: still whole after a killed process, but not
    guaranteed after a power loss (for copies of what a durable file already holds)."""
    from saves.storage import atomic_write

    atomic_write(Path(path), text.encode("utf-8"), durable=durable, mode=0o666)


def atomic_write_json(path: str | os.PathLike[str], data: Any, *, indent: int | None = 1, durable: bool = True) -> None:
    """:func:`atomic_write_text` of ``data`` as JSON (NaN refused)."""
    atomic_write_text(
        path, json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False) + "\n", durable=durable
    )


def read_json(path: str | os.PathLike[str]) -> Any:
    """Parse a JSON file (``ValueError`` names the file when it is not valid JSON)."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None


def read_jsonl(path: str | os.PathLike[str], *, strict: bool = False) -> list[Any]:
    """Every complete JSON line of ``path`` (a torn last line, from a kill, is ignored;
    ``[]`` when the file does not exist).

    With ``strict`` (a completed run's files, e.g. for ``pibench replay``) nothing is
    ignored: a line that is not JSON, or a last line without its newline, raises
    ``ValueError`` naming the file and line number.
    """
    path = Path(path)
    if not path.exists():
        return []
    out = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.endswith("\n"):
                if strict:
                    raise ValueError(f"{path}: line {number} is cut (no newline at the end of the file)")
                break
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    if strict:
                        raise ValueError(f"{path}: line {number} is not JSON: {line[:60]!r}") from None
                    break
    return out


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
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.lines = len(read_jsonl(self.path))
        self._fh: IO[str] | None = None

    def _open(self) -> IO[str]:
        if self._fh is None:
            self._fh = open(self.path, "a", encoding="utf-8")
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
            atomic_write_text(self.path, text)
        self.lines = len(keep)
        return lost

    def close(self) -> None:
        """Close the file handle."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None
