"""The replay viewer: ``pibench play --replay SAVE|RUN_DIR`` (read-only).

The shared panels of a career (:class:`~pibench_tui.tui.lab_app.LabApp`, without the game
app), over the world re-simulated to the month being viewed
(:class:`~pibench_tui.tui.replay.Replayer`): ← and → step through the months, ``j`` jumps,
``r`` shows the month's report (what the month's close brought), ``x`` the agent's
transcript of that month (agent runs). Nothing can be changed: the viewer has no action,
clock, save, console or tutorial (the panels' keys for them are off: LabApp.check_action).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from functools import partial
from typing import Any

from textual.app import SystemCommand
from textual.binding import Binding
from textual.screen import ModalScreen, Screen

from pibench_tui.tui.lab_app import TABS, LabApp
from pibench_tui.tui.replay import Replayer, ReplayError, ReplaySource, open_source
from pibench_tui.tui.screens.digest import DigestScreen
from pibench_tui.tui.screens.help import HelpScreen
from pibench_tui.tui.screens.jump import JumpDialog
from pibench_tui.tui.screens.transcript import TranscriptScreen

REPLAY_KEYS: list[tuple[str, str, bool]] = [
    ("← or ,", "previous month", False),
    ("→ or .", "next month", False),
    ("home / end", "first / last month", False),
    ("j", "jump to a month", False),
    ("r", "the month's report (what its close brought)", False),
    ("x", "the agent's transcript of the month (code and output)", True),
    ("1-8", "switch panel", False),
    ("!", "the month's warnings one at a time, most urgent first: each one's panel", False),
    ("? / f1", "this help", False),
    ("ctrl+p", "command palette (the keys above)", False),
    ("q", "quit", False),
]
"""The viewer's keys for its help: ``(key, what it does, agent runs only)``. Every other key
of the game (actions, the clock, saves, the console, the tutorial) is off here."""

REPLAY_INTRO = (
    "**Keys of the replay viewer.** It is read-only: the panels show the chosen month as the PI "
    "saw it, and nothing can be changed (no actions, no next month, no saves, no console)."
)


def replay_keys_markdown(agent: bool) -> str:
    """The viewer's key table (``agent``: the run has a transcript, so ``x`` works)."""
    rows = ["| key | what |", "|---|---|"]
    rows += [f"| {key} | {what} |" for key, what, agent_only in REPLAY_KEYS if agent or not agent_only]
    return REPLAY_INTRO + "\n\n" + "\n".join(rows)


class ReplayApp(LabApp):
    """The read-only viewer over a :class:`Replayer`.

    Args:
        replayer: the re-simulated career.
        month: the month shown first (default: the first).
        test_mode: no cursor blink, no animations.
    """

    BINDINGS = [
        Binding("question_mark", "help", "Help", id="help", key_display="?"),
        Binding("f1", "help", "Help", id="help-f1", show=False),
        Binding("q", "quit_game", "Quit", id="quit"),
        Binding("ctrl+q", "quit_game", "Quit", id="quit-hard", show=False, priority=True),
        Binding("ctrl+c", "quit_game", "Quit", id="quit-ctrl-c", show=False, priority=True),
        Binding("exclamation_mark", "warning", "Go to warning", id="warning", show=False, key_display="!"),
        *[
            Binding(str(i + 1), f"tab('{tab}')", title, id=f"tab-{tab}", show=False)
            for i, (tab, title) in enumerate(TABS)
            if tab != "console"
        ],
        Binding("left,comma", "step(-1)", "Prev month", id="replay-prev", priority=True),
        Binding("right,full_stop", "step(1)", "Next month", id="replay-next", priority=True),
        Binding("j", "jump", "Jump", id="replay-jump"),
        Binding("r", "report", "Report", id="replay-report"),
        Binding("x", "transcript", "Transcript", id="replay-transcript"),
        Binding("home", "goto(0)", "First", id="replay-first", show=False, priority=True),
        Binding("end", "goto(-1)", "Last", id="replay-last", show=False, priority=True),
    ]

    COLUMN_SCROLL_KEYS = "shift+wheel scroll; ← → step months here"
    """How the panels' hint says to reach cut-off columns: ← → belong to the month stepper."""
    WARNING_KEYS = False
    """The header's warnings name no key: their actions are not in the viewer."""
    STEP_KEYS = "→ shows the next month, j jumps to one"
    """The panels' empty-state hints name the viewer's month keys, not the game's actions."""

    def __init__(self, replayer: Replayer, *, month: int | None = None, test_mode: bool = False) -> None:
        self.replayer = replayer
        game = replayer.goto(month or replayer.first_month)
        super().__init__(game, test_mode=test_mode)
        self.title = f"pibench replay · {replayer.source.label}"

    @property
    def source(self) -> ReplaySource:
        """What is being replayed."""
        return self.replayer.source

    def banner(self) -> str:
        """``REPLAY <label> · month m/last`` for the header."""
        return f"REPLAY {self.source.label} · {self.replayer.month}/{self.replayer.last_month}"

    def on_mount(self) -> None:  # LabApp.on_mount then draws the month shown
        here = self.replayer.month
        problem = self.replayer.check_digest() if self.source.result.get("digest") else None
        self.game = self.replayer.goto(here)  # the check replays to the end
        if problem:
            self.notify(problem, title="replay differs", severity="error", markup=False, timeout=15)

    def scenario_text(self) -> str:
        """The replayed career's scenario and seed (or sealed commitment)."""
        return f"{self.source.scenario} · {self.source.seed_text}"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "transcript" and self.source.kind != "agent":
            return False
        if action in ("step", "goto", "jump", "report", "transcript", "help", "warning", "tab"):
            if isinstance(self.screen, ModalScreen):  # ← → belong to the dialog's input
                return False
        return super().check_action(action, parameters)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The command palette: Textual's own commands and the viewer's (there are no game
        actions, clock or saves here)."""
        yield from super().get_system_commands(screen)
        if isinstance(screen, ModalScreen):
            return
        yield SystemCommand("Previous month", "Key ← (or ,)", partial(self.action_step, -1))
        yield SystemCommand("Next month", "Key → (or .)", partial(self.action_step, 1))
        yield SystemCommand("Jump to a month", "Key j", self.action_jump)
        yield SystemCommand("Month report", "What the month's close brought (key r)", self.action_report)
        if self.source.kind == "agent":
            yield SystemCommand("Transcript", "The agent's code and output this month (key x)", self.action_transcript)
        yield SystemCommand("Help", "Rules and the viewer's keys (key ?)", self.action_help)
        for i, (tab, title) in enumerate(TABS):
            if tab != "console":
                yield SystemCommand(f"Show {title[2:]}", f"Panel {i + 1}", partial(self.action_tab, tab))

    def action_help(self) -> None:
        """Rules, and only the keys that work in the viewer."""
        self.push_screen(HelpScreen(self.game, keys=replay_keys_markdown(self.source.kind == "agent"), tutorial=False))

    def action_warning(self) -> None:
        """``!``: the month's warnings one at a time, most urgent first, as the PI read them."""
        self.show_next_warning("as the PI saw it")

    def _show(self, month: int) -> None:
        self.game = self.replayer.goto(month)
        self.refresh_view()

    def action_step(self, delta: int) -> None:
        """Show the previous (-1) or next (+1) month."""
        if isinstance(self.screen, ModalScreen):
            return
        target = self.replayer.month + int(delta)
        if not self.replayer.first_month <= target <= self.replayer.last_month:
            self.notify(
                f"the career runs from month {self.replayer.first_month} to {self.replayer.last_month}",
                severity="warning",
                markup=False,
            )
            return
        self._show(target)

    def action_goto(self, month: int) -> None:
        """Show ``month`` (0: the first, -1: the last)."""
        self._show(self.replayer.first_month if month == 0 else self.replayer.last_month if month == -1 else month)

    def action_jump(self) -> None:
        """Ask for a month and show it."""
        self.push_screen(
            JumpDialog(self.replayer.first_month, self.replayer.last_month, blink=self.blink),
            lambda m: self._show(m) if m else None,
        )

    def action_report(self) -> None:
        """The report of this month's close (what the month brought)."""
        m = self.replayer.month
        report = self.replayer.report(m)
        if report is None:
            self.notify(f"month {m} was not closed in this career", severity="warning", markup=False)
            return
        # the report is read against the world after the close (a quit's month, its leftovers)
        after = self.replayer.game_after(m)
        self.push_screen(DigestScreen(report, after, warn=False, title=f"Month {m}: what its close brought"))

    def action_transcript(self) -> None:
        """The agent's transcript of this month."""
        m = self.replayer.month
        self.push_screen(TranscriptScreen(m, self.source.transcript_for(m)))

    def action_quit_game(self) -> None:
        """Quit (a replay has nothing to save)."""
        self.exit(0)


def make_replay_app(
    target: str, *, saves_dir: str | None = None, month: int | None = None, test_mode: bool = False
) -> ReplayApp:
    """Open a save or a run directory in the viewer.

    Raises:
        ReplayError: it cannot be read or re-simulated.
    """
    return ReplayApp(Replayer(open_source(target, saves_dir)), month=month, test_mode=test_mode)


def run_replay(args: Any) -> int:
    """``pibench play --replay SAVE|RUN_DIR``; exit code 0, or 1 when it cannot be opened."""
    try:
        app = make_replay_app(args.replay, saves_dir=getattr(args, "saves_dir", None))
    except ReplayError as exc:
        print(f"pibench play --replay: {exc}", file=sys.stderr)
        return 1
    return int(app.run() or 0)
