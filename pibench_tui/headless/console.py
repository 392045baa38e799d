"""Console mode: piped Python run top-level statement by top-level statement, then the
career report (MECHANICS §16)."""

from __future__ import annotations

import codeop
import re
import warnings
from collections.abc import Iterable, Iterator
from typing import IO

from pibench_tui.headless.limits import MAX_STATEMENT_CHARS, read_bounded_lines
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


def iter_statements(lines: Iterable[str | None], limit: int | None = None) -> Iterator[tuple[str | None, int]]:
    """Split piped Python into top-level statements, yielding each as soon as it is complete.

    A statement is complete when the next line that starts at column 0 (not a comment,
    not ``else``/``elif``/``except``/``finally``) arrives and the text so far compiles —
    or cannot become valid by adding lines — or at EOF. Blank lines and comments never
    end a statement, so blank lines inside functions and loops are fine.

    Splitting takes time linear in the text: a light scan of each line keeps the bracket
    depth, any open string and a trailing backslash, and a column-0 line inside an open
    bracket or string (which cannot end a statement) is compiled only when the pending
    text has doubled since the last try (so a stray bracket is still noticed).

    A statement longer than ``limit`` characters is never held whole or compiled: it is
    scanned to its end and yielded with ``source`` ``None``.

    Args:
        lines: The piped text, line by line (newlines kept); ``None`` stands for a line
            too long to read (see :func:`~pibench_tui.headless.limits.read_bounded_lines`).
        limit: Longest statement, in characters (``None``: no limit).

    Yields:
        ``(source, first_line)``: the statement's text (with any comments before it), or
        ``None`` when it is longer than ``limit``, and the 1-based line number of its first
        line in the piped text.
    """
    splitter = _Splitter(limit)
    for line in lines:
        yield from splitter.feed(line)
    yield from splitter.finish()


class _Splitter:
    """The state of :func:`iter_statements` between lines: the pending statement's lines, its
    size, where it started, and the light lexer's view of it."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.buf: list[str] = []
        self.size = 0  # characters in buf
        self.tried = 0  # size of buf at the last compile try inside an open bracket or string
        self.start = 1
        self.has_code = False
        self.lineno = 0
        self.lex = _LexState()
        self.overlong = False  # the pending statement is longer than the limit: only scanned

    def _reset(self) -> None:
        self.buf, self.has_code, self.size, self.tried = [], False, 0, 0
        self.lex = _LexState()

    def feed(self, line: str | None) -> Iterator[tuple[str | None, int]]:
        """Take the next line (``None``: one too long to read); yield what it completes."""
        self.lineno += 1
        if line is None:
            yield from self._unreadable()
            return
        if self.lineno == 1 and line.startswith("\ufeff"):
            line = line[1:]  # a UTF-8 byte-order mark, as Python accepts in files
        if self.has_code and _starts_statement(line) and not _CONTINUES.match(line):
            yield from self._column_zero()
        if not self.buf and not self.overlong:
            self.start = self.lineno
        self.size += len(line)
        if self.limit is not None and self.size > self.limit:
            self.overlong, self.buf = True, []
        if not self.overlong:
            self.buf.append(line)
        self.lex.scan(line)
        self.has_code = self.has_code or _has_code(line)

    def _unreadable(self) -> Iterator[tuple[str | None, int]]:
        """A line too long to read makes the pending statement overlong."""
        if self.has_code and not self.overlong and _ended_before_any_line(self.buf, self.lex):
            # The pending statement ended before this line (nothing indented, which the
            # unseen line could continue): run it, do not fold it into the overlong one.
            yield "".join(self.buf), self.start
            self.has_code, self.size, self.tried = False, 0, 0
        if not self.has_code:
            self.start = self.lineno
        self.buf, self.has_code, self.overlong = [], True, True
        self.lex = _LexState()  # its brackets are unknown: assume the next column-0 line starts anew

    def _column_zero(self) -> Iterator[tuple[str | None, int]]:
        """A line at column 0 arrived: yield the pending statement if it is complete."""
        if self.overlong:
            if self.lex.clear():
                yield None, self.start
                self._reset()
                self.overlong = False
                self.start = self.lineno
            return
        if self.lex.clear():
            done = _completeness("".join(self.buf)) != "incomplete"
        elif self.size >= 2 * self.tried:
            self.tried = self.size
            done = _completeness("".join(self.buf)) == "invalid"
        else:
            done = False
        if done:
            yield "".join(self.buf), self.start
            self._reset()

    def finish(self) -> Iterator[tuple[str | None, int]]:
        """End of input: the pending statement, if it holds code."""
        if self.has_code:
            yield (None if self.overlong else "".join(self.buf)), self.start


def _ended_before_any_line(buf: list[str], lex: _LexState) -> bool:
    """Whether the pending lines form a statement that no following line could continue:
    no open bracket, string or continuation, every code line at column 0 (an indented
    line could continue a block), and the text compiles or cannot become valid."""
    if not lex.clear() or any(line[:1] in (" ", "\t") and _has_code(line) for line in buf):
        return False
    return _completeness("".join(buf)) != "incomplete"


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


def statement_too_long(first_line: int) -> dict:
    """The error of a console statement over :data:`MAX_STATEMENT_CHARS` (not run)."""
    return {
        "type": "InputTooLong",
        "message": (
            f"the statement starting on line {first_line} is longer than {MAX_STATEMENT_CHARS:,} "
            "characters (the limit of one statement); it was not run"
        ),
        "line": first_line,
        "source": "pibench",
    }


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
    for source, first_line in iter_statements(read_bounded_lines(stdin, MAX_STATEMENT_CHARS), MAX_STATEMENT_CHARS):
        if source is None:
            write.line(_format_error(statement_too_long(first_line)))
            write.flush()
            continue
        result = session.run_block(source, filename="<stdin>", first_line=first_line, on_output=agent)
        agent.flush()
        if result.error is not None:
            write.line(_format_error(result.error))
        write.flush()
    return _finish_session(session, write)
