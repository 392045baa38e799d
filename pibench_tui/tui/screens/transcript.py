"""An agent's transcript for one month: what it wrote, the code it ran and what came back."""

from __future__ import annotations

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from pibench_tui.textsafe import visible

MAX_TEXT = 4000
"""Characters of a reply or an observation shown (the file has all of it)."""


def _cut(text: object) -> str:
    """Agent or model text as shown: cut to :data:`MAX_TEXT`, every control character
    visible (:func:`pibench_tui.textsafe.visible`: no terminal sequence runs)."""
    text = visible(str(text or ""))
    return (
        text
        if len(text) <= MAX_TEXT
        else text[:MAX_TEXT] + f"\n… ({len(text) - MAX_TEXT} more characters in transcript.jsonl)"
    )


def transcript_renderables(entries: list[dict]) -> list:
    """Rich renderables for a month's transcript entries (``block``: code and output; ``llm``:
    the reply; ``user``: the observation; anything else as one line)."""
    out: list = []
    for e in entries:
        ev = e.get("event")
        turn = e.get("turn")
        head = visible(f"turn {turn} · ", newlines=True) if turn is not None else ""
        if ev == "block":
            state = "ok" if e.get("ok") else "error"
            out.append(
                Text(
                    visible(
                        f"{head}code ran ({state}"
                        + (f", {e['seconds']} s" if e.get("seconds") is not None else "")
                        + ")"
                    ),
                    style="bold green" if e.get("ok") else "bold red",
                )
            )
            out.append(Syntax(visible(str(e.get("code") or "")), "python", theme="ansi_dark", word_wrap=True))
            if e.get("output"):
                out.append(Text(_cut(e["output"]), style="cyan"))
            if e.get("error"):
                out.append(Text(_cut(str(e["error"])), style="red"))
        elif ev == "llm":
            out.append(Text(f"{head}model reply", style="bold"))
            out.append(Text(_cut(e.get("reply") or ""), style="dim"))
        elif ev == "user":
            out.append(Text(f"{head}observation sent to the model", style="bold"))
            out.append(Text(_cut(e.get("content") or ""), style="dim"))
        else:
            rest = {k: v for k, v in e.items() if k not in ("event", "month")}
            out.append(Text(visible(f"{ev}: {rest}"), style="yellow"))
        out.append(Text(""))
    return out


class TranscriptScreen(ModalScreen[None]):
    """The month's transcript of an agent run; escape closes it."""

    BINDINGS = [Binding("escape,x,enter", "close", "Close", id="transcript-close")]

    def __init__(self, month: int, entries: list[dict]) -> None:
        super().__init__()
        self.month = month
        self.entries = entries

    def compose(self) -> ComposeResult:
        with Vertical(id="transcript-box", classes="dialog"):
            yield Label(
                f"Month {self.month}: the agent's transcript ({len(self.entries)} entries)", classes="dialog-title"
            )
            with VerticalScroll(id="transcript-body"):
                body = transcript_renderables(self.entries) or [Text("No transcript entry for this month.")]
                yield Static(Group(*body), id="transcript-text")
            yield Static("[b]escape[/] close · ↑↓ pgup pgdn scroll", classes="form-hint")

    def on_mount(self) -> None:
        self.query_one("#transcript-body").focus()

    def action_close(self) -> None:
        """Back to the replay."""
        self.dismiss(None)
