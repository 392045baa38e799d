"""Console mode: piped Python run top-level statement by top-level statement, then the
career report (MECHANICS §16)."""

from __future__ import annotations

import codeop
import re
import warnings
from collections.abc import Iterable, Iterator
from typing import IO

from pibench_tui.headless.output import _AgentOutput, _finish_session, _format_error, _Writer
from pibench_tui.headless.session import HeadlessSession

_CONTINUES = re.compile(r"(else|elif|except|finally)\b")


def _completeness(source: str) -> str:
    """``"complete"``, ``"incomplete"`` or ``"invalid"`` for a piece of Python source."""
    if source.rstrip("\r\n").endswith("\\"):
        return "incomplete"  # a backslash continuation (codeop calls it an error)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            code = codeop.compile_command(source, "<stdin>", "exec")
        except SyntaxError as exc:
            return "incomplete" if "unexpected EOF" in str(exc.msg) else "invalid"
        except (ValueError, OverflowError, MemoryError, RecursionError):
            return "invalid"
    return "incomplete" if code is None else "complete"


def _starts_statement(line: str) -> bool:
    return bool(line) and line[0] not in " \t\f\r\n#" and bool(line.strip())


def _has_code(line: str) -> bool:
    text = line.strip()
    return bool(text) and not text.startswith("#")


def iter_statements(lines: Iterable[str]) -> Iterator[tuple[str, int]]:
    """Split piped Python into top-level statements, yielding each as soon as it is complete.

    A statement is complete when the next line that starts at column 0 (not a comment,
    not ``else``/``elif``/``except``/``finally``) arrives and the text so far compiles —
    or cannot become valid by adding lines — or at EOF. Blank lines and comments never
    end a statement, so blank lines inside functions and loops are fine.

    Splitting takes time linear in the text: a light scan of each line keeps the bracket
    depth, any open string and a trailing backslash, and a column-0 line inside an open
    bracket or string (which cannot end a statement) is compiled only when the pending
    text has doubled since the last try (so a stray bracket is still noticed).

    Args:
        lines: The piped text, line by line (newlines kept).

    Yields:
        ``(source, first_line)``: the statement's text (with any comments before it) and
        the 1-based line number of its first line in the piped text.
    """
    buf: list[str] = []
    size = 0  # characters in buf
    tried = 0  # size of buf at the last compile try inside an open bracket or string
    start = 1
    has_code = False
    lineno = 0
    lex = _LexState()
    for line in lines:
        lineno += 1
        if lineno == 1 and line.startswith("\ufeff"):
            line = line[1:]  # a UTF-8 byte-order mark, as Python accepts in files
        if has_code and _starts_statement(line) and not _CONTINUES.match(line):
            if lex.clear():
                done = _completeness("".join(buf)) != "incomplete"
            elif size >= 2 * tried:
                tried = size
                done = _completeness("".join(buf)) == "invalid"
            else:
                done = False
            if done:
                yield "".join(buf), start
                buf, has_code, size, tried = [], False, 0, 0
                lex = _LexState()
        if not buf:
            start = lineno
        buf.append(line)
        size += len(line)
        lex.scan(line)
        has_code = has_code or _has_code(line)
    if has_code:
        yield "".join(buf), start


class _LexState:
    """Bracket depth, open string and trailing backslash after the lines scanned so far
    (a light tokenizer: enough to know a statement cannot have ended)."""

    __slots__ = ("depth", "quote", "backslash")

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""  # the open string's quote: ', ", ''' or """
        self.backslash = False

    def clear(self) -> bool:
        """Whether a statement may end here (no open bracket, string or continuation)."""
        return self.depth <= 0 and not self.quote and not self.backslash

    def scan(self, line: str) -> None:
        self.backslash = False
        i, n = 0, len(line)
        while i < n:
            quote = self.quote
            if quote:
                while i < n:
                    ch = line[i]
                    if ch == "\\":
                        i += 2
                    elif line.startswith(quote, i):
                        i += len(quote)
                        self.quote = ""
                        break
                    elif ch == "\n" and len(quote) == 1:
                        self.quote = ""  # an unterminated string: the compiler says so
                        i += 1
                        break
                    else:
                        i += 1
                continue
            ch = line[i]
            if ch == "#":
                return
            if ch in "([{":
                self.depth += 1
            elif ch in ")]}":
                self.depth -= 1
            elif ch in "'\"":
                self.quote = ch * 3 if line.startswith(ch * 3, i) else ch
                i += len(self.quote)
                continue
            elif ch == "\\" and not line[i + 1 :].strip("\r\n"):
                self.backslash = True
            i += 1


def run_console(session: HeadlessSession, stdin: IO[str], stdout: IO[str]) -> int:
    """Console mode: run piped Python statement by statement, then print the report.

    Args:
        session: The career.
        stdin: The piped agent text.
        stdout: Where output, errors and the report go.

    Returns:
        The exit status (0).
    """
    write = _Writer(stdout)
    agent = _AgentOutput(write)
    for source, first_line in iter_statements(stdin):
        result = session.run_block(source, filename="<stdin>", first_line=first_line, on_output=agent)
        agent.flush()
        if result.error is not None:
            write.line(_format_error(result.error))
        write.flush()
    return _finish_session(session, write)


