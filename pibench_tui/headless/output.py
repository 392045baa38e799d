"""What headless mode writes to a console (console mode and the REPL): agent output
behind a guard against forged pibench lines, errors, and the end-of-session report."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import IO

from pibench_tui.headless.session import HeadlessSession


def _finish_session(session: HeadlessSession, write: _Writer) -> int:
    """Print the career report and, with ``--save``, the final save's line; exit status 0."""
    write.line(session.report())
    saved = session.final_save()
    if saved:
        write.line(saved + "\n")
    write.flush()
    return 0


def _format_error(error: dict) -> str:
    line = error.get("line")
    where = f"Error on line {line}" if line is not None else "Error"
    message = error.get("message") or ""
    return f"{where}: {error.get('type', 'Error')}: {message}".rstrip() + "\n"


class _Writer:
    """Writes output pieces to a text stream and remembers whether it ended a line."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.at_line_start = True

    def __call__(self, text: str) -> None:
        if text:
            self.out.write(text)
            self.out.flush()  # output shows while a long block runs (few, large pieces)
            self.at_line_start = text.endswith("\n")

    def line(self, text: str) -> None:
        if not self.at_line_start:
            self.out.write("\n")
        self(text)

    def flush(self) -> None:
        self.out.flush()


#: Control characters shown as escapes in agent output: C0 except tab and newline, DEL, C1.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: Agent output lines starting like pibench's own report get this prefix.
AGENT_LINE_PREFIX = "[agent] "

_LINES = re.compile(r"[^\n]*\n|[^\n]+")


def _escape_control(match: re.Match[str]) -> str:
    return {"\r": "\\r"}.get(match.group(), f"\\x{ord(match.group()):02x}")


class _AgentOutput:
    """Agent output on the console (console mode, REPL): control characters other than
    newline and tab become visible escapes (``\x1b`` is shown as ``\\x1b``: no title
    changes, screen clears or cursor tricks), and a line that starts like pibench's own
    lines (``=== pibench``) is prefixed with ``[agent] ``, so the career report printed by
    pibench cannot be faked."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self.at_line_start = True
        self.held = ""  # the start of a line too short to tell yet

    def __call__(self, text: str) -> None:
        if not text:
            return
        text = _CONTROL.sub(_escape_control, self.held + text)
        self.held = ""
        out: list[str] = []
        for piece in _LINES.findall(text):
            if self.at_line_start:
                if not piece.endswith("\n") and len(piece) < len("=== pibench") and "=== pibench".startswith(piece):
                    self.held = piece  # maybe the start of "=== pibench": wait for more
                    break
                if piece.startswith("=== pibench"):
                    piece = AGENT_LINE_PREFIX + piece
            out.append(piece)
            self.at_line_start = piece.endswith("\n")
        if out:
            self.write("".join(out))

    def flush(self) -> None:
        """Write what was held back (the block ended): prefixed, since the next block
        could complete it to ``=== pibench``."""
        if self.held:
            held, self.held = self.held, ""
            self.write(AGENT_LINE_PREFIX + held)
            self.at_line_start = False


