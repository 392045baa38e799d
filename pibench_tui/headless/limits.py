"""Input limits of headless mode, applied before anything is parsed or compiled."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from pibench_tui.sandbox import MAX_CODE_CHARS

#: Longest console-mode statement accepted, in characters (the sandbox's block limit).
MAX_STATEMENT_CHARS = MAX_CODE_CHARS
#: Longest JSON-lines input line accepted, in characters (room for a block of
#: :data:`MAX_CODE_CHARS` characters written with ``\\uXXXX`` escapes).
MAX_JSONL_LINE = 6 * MAX_CODE_CHARS + 4_096


def read_bounded_lines(stream: IO[str], limit: int) -> Iterator[str | None]:
    """Lines of ``stream`` (newlines kept); ``None`` for a line longer than ``limit``
    characters, which is read past in pieces and never held whole (memory stays bounded)."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith("\n"):
            while True:  # discard the rest of the overlong line
                more = stream.readline(1 << 16)
                if not more or more.endswith("\n"):
                    break
            yield None
            continue
        yield line
