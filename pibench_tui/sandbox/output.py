"""The parent-side output cap of a block (head and tail kept, the middle counted)."""

from __future__ import annotations

from collections.abc import Callable

from pibench_tui.textsafe import clean

OutputSink = Callable[[str], None]

#: The words of pibench's own notices in a block's output (one home: the console guard,
#: :func:`pibench_tui.headless.output.looks_like_pibench`, reserves lines that read as them).
CUT_NOTICE_WORDS = "characters of output cut here"
LOST_NOTICE_WORDS = "output after this point was lost"


class Notice(str):
    """A notice of pibench's own in a block's output (a cut, lost output), handed to the
    output sink as this type so that a console tells it from agent output (which arrives as
    plain ``str`` and never is one)."""

    __slots__ = ()


class _OutputCollector:
    """Parent-side output cap: the same head/tail rule, applied to what arrives, so a
    misbehaving agent process still cannot flood this process."""

    def __init__(self, limit: int, sink: OutputSink | None) -> None:
        self.limit = max(0, limit)
        self.head_limit = self.limit // 2 + self.limit % 2
        self.tail_limit = self.limit // 2
        self.sink = sink
        self.head: list[str] = []
        self.head_len = 0
        self.tail = ""
        self.tail_total = 0
        self.reported_cut = 0

    def add(self, text: str) -> None:
        """Take ``text`` the agent process printed: made safe here, where it enters pibench (a
        lone surrogate or NUL becomes U+FFFD: the agent process's own encoder already does
        that, but an escaped agent process can send raw protocol lines)."""
        if not text:
            return
        text = clean(text)
        room = self.head_limit - self.head_len
        if room > 0:
            part = text[:room]
            self.head.append(part)
            self.head_len += len(part)
            if self.sink is not None:
                self.sink(part)
            text = text[room:]
        if text:
            self.tail_total += len(text)
            if self.tail_limit:
                self.tail += text
                if len(self.tail) > 2 * self.tail_limit + 4096:
                    self.tail = self.tail[-self.tail_limit :]

    def cut(self, n: int) -> None:
        self.reported_cut += max(0, n)

    def finish(self, lost: bool = False) -> tuple[str, bool, int]:
        """Emit the cut notice and the tail; return (full text, truncated, omitted)."""
        tail = self.tail[-self.tail_limit :] if self.tail_limit else ""
        omitted = self.reported_cut + (self.tail_total - len(tail))
        parts: list[str] = []
        if omitted:
            parts.append(Notice(f"\n[... {omitted:,} {CUT_NOTICE_WORDS} (limit {self.limit:,} per block) ...]\n"))
        if tail:
            parts.append(tail)
        if lost and self.head_len >= self.head_limit:
            parts.append(Notice(f"\n[... {LOST_NOTICE_WORDS} when the block was stopped ...]\n"))
        if self.sink is not None:
            for part in parts:
                self.sink(part)
        end = "".join(parts)
        return "".join(self.head) + end, bool(omitted) or (lost and self.head_len >= self.head_limit), omitted
