"""Find the code an LLM reply asks to run (MECHANICS §16).

The first fenced block of the reply whose info string is empty, ``py`` or ``python``
(any case) is the code; other blocks (``json``, ``text``, ...) are skipped. A fence is
three or more backticks or tildes at the start of a line (leading spaces allowed); the
block ends at a line holding the same kind of fence at least as long. A block left
open at the end of the reply (the model was cut off) is not run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CodeBlock", "find_code"]

_OPEN = re.compile(r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$")

#: Info strings that mark a block as code to run.
RUNNABLE_TAGS = frozenset({"", "py", "python", "python3"})


@dataclass(frozen=True)
class CodeBlock:
    """What :func:`find_code` found in a reply.

    Attributes:
        code: The first runnable block's text (``None`` when there is none).
        unclosed: A runnable block was opened but never closed (the reply was cut).
        other_tags: Info strings of the non-runnable blocks seen before it.
    """

    code: str | None
    unclosed: bool = False
    other_tags: tuple[str, ...] = ()


def find_code(reply: str) -> CodeBlock:
    """Return the first runnable fenced block of ``reply`` (MECHANICS §16).

    Args:
        reply: The model's reply text.

    Returns:
        A :class:`CodeBlock`; ``code`` is ``None`` when the reply has no runnable block.
    """
    lines = (reply or "").split("\n")
    skipped: list[str] = []
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        fence = m.group("fence")
        info = m.group("info").strip()
        tag = info.split()[0].lower() if info else ""
        body: list[str] = []
        j = i + 1
        closed = False
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped and stripped[0] == fence[0] and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                closed = True
                break
            body.append(lines[j])
            j += 1
        if tag in RUNNABLE_TAGS:
            if not closed:
                return CodeBlock(None, unclosed=True, other_tags=tuple(skipped))
            return CodeBlock("\n".join(body) + "\n", other_tags=tuple(skipped))
        skipped.append(tag)
        i = j + 1
    return CodeBlock(None, other_tags=tuple(skipped))
