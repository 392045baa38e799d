"""The console panel: Python against the same sandboxed API as headless mode."""

from __future__ import annotations

from typing import Any, Self

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input, RichLog, Static

from pibench_tui.textsafe import rich_text, visible
from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.panels import Panel
from pibench_tui.tui.widgets.typed_input import TypedInput

BANNER = (
    "Python with the agent API: lab, recruit, students, projects, papers, grants, field, events, time, "
    "query(sql), memory. Example: lab.dashboard()['budget']. A line ending in ':' starts a block; an empty "
    "line runs it. Runs in the same sandbox as `pibench headless`. ↑/↓ recall earlier lines, tab completes "
    "API names. Escape clears the line; on an empty line it leaves the console (then 1-9 switch panels, : comes back)."
)
"""The console's intro, shown above its log (a Static, so it survives ctrl+l and wraps with the panel)."""


def pretty_output(out: str, width: int = 100) -> Any:
    """A block's output for the log: a line that is one long Python literal (a dict or list
    result) is pretty-printed over several lines, like the headless REPL; other text as is."""
    import ast

    from rich.pretty import Pretty

    lines = visible(out).split("\n")  # agent text: control characters shown, never run
    pieces: list[Any] = []
    for line in lines:
        if len(line) > width and line[:1] in "[{(":
            try:
                pieces.append(Pretty(ast.literal_eval(line), expand_all=False, indent_guides=False))
                continue
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                pass
        pieces.append(Text(line))
    if len(pieces) == 1:
        return pieces[0]
    from rich.console import Group

    return Group(*pieces)


class ConsoleLog(RichLog):
    """The console's log: what is written while it has no width (its panel hidden: a hidden
    widget's size is 0 by 0) waits and is written once it is shown, at its width. A plain
    RichLog wrapped it at one column (``min_width`` 1): a block that ended while the player was
    on another panel read one character per line."""

    def write(self, content: Any, *args: Any, **kwargs: Any) -> Self:
        """:meth:`RichLog.write`; while the log has no width, deferred as before its first
        layout (RichLog writes those on the Resize that gives it a width, in order)."""
        if self._size_known and not self.size.width:
            self._size_known = False
        return super().write(content, *args, **kwargs)


class ConsolePanel(Panel):
    """A log and an input line; each block runs in the sandbox, then the panels refresh."""

    TAB = "console"
    BINDINGS = [
        Binding("ctrl+l", "clear", "Clear log", id="console-clear"),
        Binding(
            "escape",
            "leave",
            "Clear / leave",
            id="console-leave",
            tooltip="Clear the line; on an empty line, leave the console (1-9 then switch panels)",
        ),
        Binding("up", "history(-1)", "Earlier line", id="console-history-back", show=False),
        Binding("down", "history(1)", "Later line", id="console-history-forward", show=False),
        Binding("tab", "complete", "Complete", id="console-complete", show=False),
        # The app's printable keys (n, ?, q, l, t, d, !) are typed into the line here (on_key),
        # so they are bound again without a footer entry: the footer then lists only the keys
        # that work in the console (F1 help and ctrl+q quit still do).
        *[
            Binding(key, f"type_key({char!r})", char, show=False)
            for key, char in (
                ("n", "n"),
                ("question_mark", "?"),
                ("q", "q"),
                ("l", "l"),
                ("t", "t"),
                ("d", "d"),
                ("exclamation_mark", "!"),
            )
        ],
    ]

    class BlockFinished(Message):
        """A console block ran (the world may have changed).

        Attributes:
            months_closed: How many months the block closed (``time.next_month()``).
            month_closed: The block closed at least one month.
        """

        def __init__(self, months_closed: int = 0) -> None:
            super().__init__()
            self.months_closed = months_closed
            self.month_closed = months_closed > 0

    def __init__(self, *, blink: bool = True) -> None:
        super().__init__()
        self.game: Game | None = None
        self.sandbox: Any = None
        self.buffer: list[str] = []
        self.blink = blink
        self.running = False
        self.blocks = 0
        self.history: list[str] = []
        self._hist_pos = 0
        self._completer: Any = None

    @property
    def input(self) -> Input:
        """The input line (composing the console if it was never shown)."""
        self.ensure_composed()
        return self.query_one("#console-input", Input)

    @property
    def log_view(self) -> RichLog:
        """The output log (composing the console if it was never shown)."""
        self.ensure_composed()
        return self.query_one("#console-log", RichLog)

    def compose_body(self) -> ComposeResult:
        yield Static(BANNER, id="console-intro", markup=False)
        # min_width 1: RichLog renders at least 78 columns by default, wider than the log at 80x24
        yield ConsoleLog(id="console-log", wrap=True, markup=False, highlight=False, min_width=1)
        yield Static(">>>", id="console-prompt")
        inp = TypedInput(placeholder="python — e.g. lab.attention()", id="console-input", select_on_focus=False)
        inp.cursor_blink = self.blink
        yield inp

    def show(self, game: Game) -> None:
        self.game = game

    def on_key(self, event: events.Key) -> None:
        """While the console is shown but its line is not focused (after Escape), printable
        keys go to the line instead of firing app keys (which could open a dialog that Enter
        then confirms); only 1-9 (switch panels) and : keep their meaning, and only while the
        line is empty: once a key has typed into it, digits are text too (a burst such as
        ``x = 12345`` typed after Escape reaches this handler before the line has the focus;
        its digits switched panels, and the rest of the line went to the app's keys)."""
        inp = self.input
        if inp.has_focus or not event.is_printable or event.character is None:
            return
        if event.character in "123456789:" and not inp.value:
            return
        event.stop()
        event.prevent_default()
        self.action_type_key(event.character)

    def action_type_key(self, char: str) -> None:
        """Type ``char`` into the input line, focusing it first (see :meth:`on_key`)."""
        inp = self.input
        inp.focus()
        inp.insert_text_at_cursor(char)

    def focus_main(self) -> None:
        self.input.focus()

    def action_clear(self) -> None:
        """Empty the log."""
        self.log_view.clear()

    def action_leave(self) -> None:
        """Escape: clear the line (and an unfinished block); on an empty line, move the focus
        to the log so that 1-9 switch panels (and ``:`` comes back); other printable keys
        still go to the line (:meth:`on_key`)."""
        if self.input.has_focus and (self.input.value or self.buffer):
            self.input.value = ""
            self.buffer = []
            self.query_one("#console-prompt", Static).update(">>>")
            return
        self.log_view.focus()

    def bind_game(self, game: Game) -> None:
        """Use another career (after a load): the sandbox is restarted."""
        self.game = game
        self.close_sandbox()

    def close_sandbox(self) -> None:
        """Stop the agent process, if any."""
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None

    @on(Input.Submitted, "#console-input")
    def _line(self, event: Input.Submitted) -> None:
        from pibench_tui.headless import repl_input_complete

        event.input.value = ""
        if event.value.strip() and (not self.history or self.history[-1] != event.value):
            self.history.append(event.value)
        self._hist_pos = len(self.history)
        self.buffer.append(event.value)
        log = self.query_one(RichLog)
        log.write(rich_text(("... " if len(self.buffer) > 1 else ">>> ") + event.value, style="bold"))
        text = "\n".join(self.buffer)
        if not repl_input_complete(text):  # a block waits for an empty line (its last line is then "")
            self.query_one("#console-prompt", Static).update("...")
            return
        self.buffer = []
        self.query_one("#console-prompt", Static).update(">>>")
        if text.strip():
            self.run_code(text)

    def run_code(self, code: str) -> None:
        """Run a block in the sandbox (a worker thread); output goes to the log."""
        if self.running:
            self.app.notify("the console is still running the previous block", severity="warning")
            return
        if getattr(self.app, "busy", False):
            self.app.notify("a month is being closed; try again in a moment", severity="warning")
            return
        self.running = True
        self._run(code)

    @work(thread=True, exclusive=True, group="console", exit_on_error=False)
    def _run(self, code: str) -> None:
        game = self.game
        month = game.world.month if game is not None else None
        try:
            if self.sandbox is None:
                from pibench_tui.sandbox.factory import open_sandbox

                assert game is not None, "the console runs only once a game is bound"

                def handler(ns: str, method: str, args: list, kwargs: dict) -> Any:
                    with game.lock:
                        return game.api.call(ns, method, args, kwargs)

                self.sandbox = open_sandbox(handler, game.world)
            self.blocks += 1
            result = self.sandbox.run(code, filename=f"<console {self.blocks}>")
            out = result.stdout
            err = result.error
        except Exception as exc:  # noqa: BLE001 - a broken sandbox must not end the game
            out, err = "", {"type": type(exc).__name__, "message": str(exc), "line": None}
        closed = game.world.month - month if game is not None and month is not None else 0
        self.app.call_from_thread(self._finished, out, err, closed)

    def action_history(self, step: int) -> None:
        """Recall an earlier (-1) or later (+1) line of this console's history."""
        if not self.input.has_focus or not self.history:
            return
        self._hist_pos = max(0, min(len(self.history), self._hist_pos + int(step)))
        self.input.value = self.history[self._hist_pos] if self._hist_pos < len(self.history) else ""
        self.input.cursor_position = len(self.input.value)

    def completions(self, text: str) -> list[str]:
        """Completions of ``text`` (the line before the cursor): API namespaces, calls, argument
        names, topics and venues — the headless REPL's completer."""
        if self._completer is None:
            from pibench_tui.headless import make_completer

            self._completer = make_completer()
        from prompt_toolkit.document import Document

        out = []
        for c in self._completer.get_completions(Document(text), None):
            out.append(text[: len(text) + c.start_position] + c.text)
        return out

    def action_complete(self) -> None:
        """Tab: complete the word before the cursor (one match: inserted; several: the common
        part inserted and the choices listed in the log)."""
        inp = self.input
        if not inp.has_focus:
            self.screen.focus_next()
            return
        before, after = inp.value[: inp.cursor_position], inp.value[inp.cursor_position :]
        options = self.completions(before)
        if not options:
            return
        import os

        common = os.path.commonprefix(options)
        if len(common) > len(before):
            inp.value = common + after
            inp.cursor_position = len(common)
        if len(options) > 1:
            tails = sorted({o[len(before) - len(before.split(".")[-1].split("(")[-1]) :] for o in options})
            self.log_view.write(Text("  ".join(tails), style="dim"))

    def _finished(self, out: str, err: dict | None, months_closed: int = 0) -> None:
        log = self.log_view
        if out:
            width = log.size.width or self.shown_width  # hidden: the width it will have
            log.write(pretty_output(out.rstrip("\n"), max(40, width - 2)))
        if err:
            where = f" (line {err['line']})" if err.get("line") else ""
            log.write(rich_text(f"{err.get('type', 'Error')}{where}: {err.get('message', '')}", style="red"))
        self.running = False
        self.post_message(self.BlockFinished(months_closed))
