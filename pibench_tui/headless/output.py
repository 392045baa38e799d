"""What headless mode writes to a console (console mode and the REPL): agent output
behind a guard against forged pibench lines, errors, and the end-of-session report."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import IO

from pibench_tui.headless.session import HeadlessSession
from pibench_tui.sandbox.output import CUT_NOTICE_WORDS, LOST_NOTICE_WORDS, Notice
from pibench_tui.textsafe import escape_agent_text, lookalike_start, shown_words, skeleton, words_read_as


def _finish_session(session: HeadlessSession, write: _Writer) -> int:
    """Print the career report and, with ``--save``, the final save's line; exit status 0."""
    write.line(session.report())
    saved = session.final_save()
    if saved:
        write.line(saved + "\n")
    write.flush()
    return 0


def _format_error(error: dict) -> str:
    """One console line for a block's error, all on one line whatever the message holds.

    ``Error on line N: Type: message`` for an error raised in the agent process (its type
    and message are the agent's, escaped like agent output, line breaks included);
    ``pibench error on line N: Type: message`` for one pibench found itself (time-out, a dead
    agent process, the static check, input too long ...). The agent cannot produce the
    second form: its output lines starting with ``pibench`` get the ``[agent] `` prefix.
    """
    line = error.get("line")
    head = "pibench error" if error.get("source") == "pibench" else "Error"
    where = f"{head} on line {line}" if isinstance(line, int) and not isinstance(line, bool) else head
    kind = escape_agent_text(str(error.get("type") or "Error"), newlines=True)
    message = escape_agent_text(str(error.get("message") or ""), newlines=True)
    return f"{where}: {kind}: {message}".rstrip() + "\n"


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


#: Agent output lines that start (after NFKC normalisation, stripping and case folding) like
#: one of these get :data:`AGENT_LINE_PREFIX`: they could pass for pibench's own lines.
#: The labels of the report's lines (``Impact          201.2 = ...``): an agent line starting
#: with one (``Impact 9999``) could be taken for the report by a harness that greps a label.
REPORT_LABELS = (
    "scenario",
    "month reached",
    "collapsed",
    "impact",
    "publications",
    "grants won",
    "students",
    "final budget",
    "confinement",
    "query worker",
    "state digest",
)
RESERVED_STARTS = ("=== pibench", "pibench", "[pibench", "error on line", "error:", "saved as") + REPORT_LABELS
#: The prefix that marks such agent lines.
AGENT_LINE_PREFIX = "[agent] "
_LINES = re.compile(r"[^\n]*\n|[^\n]+")


#: Words that make an agent line read as pibench's own wherever they stand: the report's
#: header (``=== pibench career report ===``), whatever decorates it (``═══``, ``***``).
RESERVED_ANYWHERE = "pibench career report"
#: Words that make an agent line read as pibench's own when the line begins with them (after
#: decorations such as ``===``, ``═══``, ``[...`` and, for the notices, the count): pibench's
#: own lines and its notices in a block's output (:mod:`pibench_tui.sandbox.output`).
#: (Report labels are not among them: the API's help lists ``- students: list, ...``.)
RESERVED_FIRST_WORDS = ("pibench", LOST_NOTICE_WORDS)
#: The words of pibench's notices that follow a count (``[... 12,000 characters of output cut here``).
NOTICE_WORDS = (CUT_NOTICE_WORDS,)


def _leading_count_dropped(words: list[str]) -> list[str]:
    """``words`` without the number a notice starts with (``12,000`` is two words)."""
    i = 0
    while i < len(words) and words[i].isdecimal():
        i += 1
    return words[i:]


def looks_like_pibench(line: str) -> bool:
    """Whether an (escaped) agent line could pass for one of pibench's own lines, as a reader
    sees it (:func:`pibench_tui.textsafe.skeleton`: NFKC, invisible characters dropped, spaces
    and blank-looking letters such as U+2800 or the Hangul fillers read as one space, case
    folded, a letter of another script that looks Latin counting as any letter): it starts
    like :data:`RESERVED_STARTS`; or its words, decorations (``===``, box drawing) aside,
    begin with one of :data:`RESERVED_FIRST_WORDS` (a notice's count aside) or hold
    :data:`RESERVED_ANYWHERE`."""
    if lookalike_start(line, RESERVED_STARTS):
        return True
    if skeleton("=== pibench") in skeleton(line):
        return True
    words = shown_words(line)
    if any(words_read_as(words[i:], RESERVED_ANYWHERE) for i in range(len(words))):
        return True
    counted = _leading_count_dropped(words)
    return any(words_read_as(words, phrase) for phrase in RESERVED_FIRST_WORDS) or any(
        words_read_as(counted, phrase) for phrase in NOTICE_WORDS
    )


def _may_become_reserved(partial: str) -> bool:
    """Whether more text could still make this line start look like pibench's."""
    if lookalike_start(partial, RESERVED_STARTS, partial=True):
        return True
    words = shown_words(partial)
    counted = _leading_count_dropped(words)
    return any(words_read_as(words, phrase, partial=True) for phrase in RESERVED_FIRST_WORDS) or any(
        words_read_as(counted, phrase, partial=True) for phrase in NOTICE_WORDS
    )


class _AgentOutput:
    """Agent output on the console (console mode, REPL), behind a guard against forged lines.

    Control, format and separator characters become visible escapes
    (:func:`escape_agent_text`): no terminal sequence runs, and ``\n`` is the only line break
    left. A line that could pass for one of pibench's own -- after NFKC normalisation,
    stripping and case folding it starts like :data:`RESERVED_STARTS` (``=== pibench``,
    ``pibench error ...``, ``Error ...``) -- is prefixed with ``[agent] ``; the start of a
    line is held back until it can be told."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self.at_line_start = True
        self.held = ""  # the start of a line too short to tell yet

    def __call__(self, text: str) -> None:
        if not text:
            return
        if isinstance(text, Notice):  # pibench's own notice (a cut, lost output): as it is
            self.flush()
            self.write(text)
            self.at_line_start = text.endswith("\n")
            return
        text = self.held + escape_agent_text(text)
        self.held = ""
        out: list[str] = []
        for piece in _LINES.findall(text):
            if self.at_line_start:
                if not piece.endswith("\n") and _may_become_reserved(piece):
                    self.held = piece  # maybe the start of a reserved line: wait for more
                    break
                if looks_like_pibench(piece):
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
