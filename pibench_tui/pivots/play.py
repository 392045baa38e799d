"""``pibench play --pivots CASES``: a person answers pivot cases (PIVOTS.md "Humans").

For each case the usual panels show the career at the fork, read-only (the replay viewer,
re-played from the case's public seed; ← → step through the months before it), and a dialog
shows the question and the two plans as Plan 1 and Plan 2 (as ``pivots eval`` shows them to a
model). ``1``/``a`` or ``2``/``b`` chooses; then the futures are revealed:
which plan earned more Impact over the branches, Δ and its interval, each plan's Impact over
its branches (a histogram) and collapse rates. With a sealed set, or without a key, the
reveal waits: the answer is saved and ``pibench pivots score RUN --key FILE`` grades it
later.

Answers go to a run directory laid out like ``pibench pivots eval``'s (label ``human``, one
session per case, the order the plans were shown recorded), so ``pivots score`` and
``pibench report`` read them alike. A person who quits resumes at the first unanswered case.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static
from textual_plotext import PlotextPlot

from pibench_tui.tui.replay import Replayer, ReplaySource
from pibench_tui.tui.replay_app import ReplayApp

from ..harness.rundir import JsonlFile
from .cases import Case, KeyEntry, PivotFileError, cases_hash, check_sealed_key, load_cases, load_key, resolve_set
from .evaluate import EvalSettings, _check_settings, _held, read_answers
from .fork_record import action_log_to_fork, sealed_seeds
from .prompt import human_order

__all__ = ["PivotApp", "PivotSession", "human_order", "run_pivots"]

HUMAN = "human"
"""The label and model of a person's answers."""


def _escape(text: str) -> str:
    """Text shown verbatim in a Textual ``Static`` (no markup)."""
    return text.replace("[", r"\[")


@dataclass
class PivotSession:
    """The cases, the key (if any) and the answers of one person's run directory.

    Args:
        cases: The case set.
        key: The answer key, or ``None`` (sealed, or not given): no reveal.
        run: The run directory (``answers.jsonl``, ``run.json``).
        seeds: A sealed set's seeds by commitment, from the evaluator's seal file: used to
            replay each career, shown only as ``sealed:<prefix>``.
    """

    cases: list[Case]
    key: dict[str, KeyEntry] | None
    run: Path
    seeds: dict[str, int] | None = None  # a sealed set's commitment -> seed (never shown)
    answered: dict[str, str] = field(default_factory=dict)  # case id -> chosen case plan

    def __post_init__(self) -> None:
        try:
            lines = read_answers(self.run)
        except ValueError as exc:
            raise PivotFileError(f"{self.run}: the answers so far cannot be read ({exc})") from None
        for line in lines:
            if isinstance(line, dict) and line.get("answer") in ("A", "B"):
                self.answered[str(line.get("id"))] = str(line["answer"])

    def next_index(self, after: int = -1) -> int | None:
        """The first unanswered case after ``after`` (wrapping), or ``None`` when all are."""
        n = len(self.cases)
        for step in range(1, n + 1):
            i = (after + step) % n
            if self.cases[i].id not in self.answered:
                return i
        return None

    def record(self, case: Case, shown: int, key: str = "") -> str:
        """Save the choice of the plan shown as Plan ``shown`` (1 first, 2 second; ``key`` the
        key pressed); returns the case's plan label (``"A"``/``"B"``) it means. The line is an
        eval run's answer line: ``answer`` in the case's labels, ``order`` as shown, ``raw``
        the choice as a model's reply would end (``ANSWER: 1``)."""
        order = human_order(case.id)
        chosen = order[0] if shown == 1 else order[1]
        answers = JsonlFile(self.run / "answers.jsonl")
        raw = f"ANSWER: {shown}" + (f" (key {key})" if key else "")
        try:
            answers.append({"id": case.id, "order": order, "answer": chosen, "raw": raw})
            answers.sync()
        finally:
            answers.close()
        self.answered[case.id] = chosen
        return chosen


def shown_number(case: Case, plan: str) -> int:
    """The number (1 or 2) a person sees the case's plan ``plan`` (``"A"``/``"B"``) as."""
    return 1 if human_order(case.id)[0] == plan else 2


PLAN_KEYS = (
    ("1 or a", "choose Plan 1"),
    ("2 or b", "choose Plan 2"),
    ("p", "the question and the plans again"),
    ("esc", "close the plans: look at the record (the panels, read-only)"),
    ("q", "quit (every answer is saved as it is chosen; the next start resumes here)"),
)
"""The keys of ``play --pivots`` beside the viewer's (its help and the dialog's hint)."""


class PlansScreen(ModalScreen[int | None]):
    """The question and the two plans, shown as Plan 1 and Plan 2 (as ``pivots eval`` shows
    them to a model); ``1``/``a`` or ``2``/``b`` choose, escape looks at the record, ``q`` quits."""

    BINDINGS = [
        Binding("1,a", "choose(1)", "Plan 1", id="pivot-plan-1"),
        Binding("2,b", "choose(2)", "Plan 2", id="pivot-plan-2"),
        Binding("escape", "close", "Look at the record", id="pivot-plans-close"),
        Binding("q", "quit", "Quit", id="pivot-plans-quit"),
        Binding("question_mark,f1", "help", "Help", id="pivot-plans-help", key_display="?"),
    ]

    def __init__(self, case: Case, index: int, total: int) -> None:
        super().__init__()
        self.case = case
        self.index = index
        self.total = total

    def compose(self) -> ComposeResult:
        order = human_order(self.case.id)
        with Vertical(id="pivot-plans", classes="dialog"):
            yield Label(
                f"Case {self.index + 1} of {self.total} · month {self.case.fork_month} · {self.case.kind}",
                classes="dialog-title",
            )
            with VerticalScroll():
                yield Static(_escape(self.case.question), id="pivot-question")
                yield Static("\n[b]Plan 1[/]  " + _escape(self.case.plans[order[0]]["text"]), id="pivot-plan-1-text")
                yield Static("\n[b]Plan 2[/]  " + _escape(self.case.plans[order[1]]["text"]), id="pivot-plan-2-text")
            yield Static(
                "[b]1[/]/[b]a[/] Plan 1 · [b]2[/]/[b]b[/] Plan 2 · [b]esc[/] the record (p: back here) · [b]q[/] quit",
                classes="form-hint",
            )

    def action_choose(self, shown: int) -> None:
        """Choose Plan ``shown`` (1 or 2)."""
        self.dismiss(shown)

    def action_close(self) -> None:
        """Back to the panels, undecided."""
        self.dismiss(None)

    def action_quit(self) -> None:
        """Quit: nothing is lost (every answer was saved when chosen; this case waits)."""
        self.app.exit(0)

    def action_help(self) -> None:
        """The help, over the dialog."""
        cast("PivotApp", self.app).action_help()


class RevealScreen(ModalScreen[None]):
    """What the futures say: the better plan, Δ, its interval, Impact per branch, collapses
    (the plans named Plan 1 and Plan 2, as the person saw them)."""

    BINDINGS = [
        Binding("escape,enter,space,n", "close", "Next case", id="pivot-reveal-close"),
        Binding("q", "quit", "Quit", id="pivot-reveal-quit"),
    ]

    def __init__(self, case: Case, chosen: str, entry: KeyEntry | None, run: Path) -> None:
        super().__init__()
        self.case = case
        self.chosen = chosen
        self.entry = entry
        self.run = run

    def lines(self) -> list[str]:
        """The reveal as text (plans named as the player saw them: Plan 1, Plan 2)."""
        you = shown_number(self.case, self.chosen)
        if self.entry is None:
            return [
                f"You chose Plan {you}. Your answer is saved in {self.run}.",
                "The answer key is sealed or was not given: score your answers when it is revealed with",
                f"  pibench pivots score {self.run} --key KEY.jsonl",
            ]
        e = self.entry
        better = shown_number(self.case, e.better)
        verdict = "right" if e.better == self.chosen else "not the better plan"
        n = len(e.impact["A"])
        order = human_order(self.case.id)
        first, second = order[0], order[1]
        sign = 1.0 if first == "A" else -1.0  # Δ is A − B; shown as Plan 1 − Plan 2
        lo, hi = sorted((sign * e.ci[0], sign * e.ci[1]))
        out = [
            f"You chose Plan {you}: {verdict}.",
            f"Plan {better} earned more Impact over {n} shared futures.",
            f"Impact(Plan 1) − Impact(Plan 2) = {sign * e.delta:+.1f} citations (95 % interval {lo:+.1f} to {hi:+.1f}).",
        ]
        if n:
            mean = {k: sum(v) / len(v) for k, v in e.impact.items()}
            out.append(f"Mean Impact: Plan 1 {mean[first]:.1f}, Plan 2 {mean[second]:.1f}.")
        out.append(
            f"Collapsed: Plan 1 in {100 * e.collapse[first]:.0f} % of futures, Plan 2 in {100 * e.collapse[second]:.0f} %."
        )
        return out

    def compose(self) -> ComposeResult:
        with Vertical(id="pivot-reveal", classes="dialog"):
            yield Label(f"The futures of case {self.case.id}", classes="dialog-title")
            with VerticalScroll(id="pivot-reveal-body"):
                yield Static(_escape("\n".join(self.lines())), id="pivot-reveal-text")
                if self.entry is not None and self.entry.impact["A"]:
                    yield PlotextPlot(id="pivot-hist")
            yield Static("[b]enter[/] next case · [b]q[/] quit", classes="form-hint")

    def on_mount(self) -> None:
        if self.entry is None or not self.entry.impact["A"]:
            return
        plot = self.query_one("#pivot-hist", PlotextPlot)
        plot.styles.height = max(8, min(16, self.app.size.height - 14))
        plt = plot.plt
        for n, plan in enumerate(human_order(self.case.id), 1):
            plt.hist(self.entry.impact[plan], bins=12, label=f"Plan {n}")
        plt.title("Impact over the branches")
        plt.xlabel("Impact (citations)")

    def action_close(self) -> None:
        """On to the next case."""
        self.dismiss(None)

    def action_quit(self) -> None:
        """Quit (the answer is saved)."""
        self.app.exit(0)


class PivotApp(ReplayApp):
    """The replay viewer at a case's fork, with the plans and the reveal.

    Args:
        session: The cases, key and run directory.
        start: Index of the first case shown (default: the first unanswered).
        test_mode: No cursor blink, no animations.
    """

    CSS_PATH = str(Path(__file__).resolve().parent.parent / "tui" / "app.tcss")
    """The game's stylesheet (Textual resolves a relative path beside the subclass's module)."""

    BINDINGS = [
        Binding("a", "choose(1)", "Plan 1", id="pivot-a", priority=True),
        Binding("b", "choose(2)", "Plan 2", id="pivot-b", priority=True),
        Binding("p", "plans", "Plans", id="pivot-plans", priority=True),
        # j and r work as in the viewer; the footer leaves them to the help (? lists them) so the
        # plan keys fit in 80 columns
        Binding("j", "jump", "Jump", id="replay-jump", show=False),
        Binding("r", "report", "Report", id="replay-report", show=False),
    ]

    def __init__(self, session: PivotSession, *, start: int | None = None, test_mode: bool = False) -> None:
        self.session = session
        first = session.next_index() if start is None else start
        self.index = 0 if first is None else first
        self.all_done_at_start = first is None
        self._key = ""  # the key that chose (a/b reach the app first; 1/2 the dialog)
        replayer = self._replayer(self.index)
        super().__init__(replayer, month=replayer.last_month, test_mode=test_mode)
        self.title = "pibench pivots"

    @property
    def case(self) -> Case:
        """The case shown."""
        return self.session.cases[self.index]

    def _replayer(self, index: int) -> Replayer:
        case = self.session.cases[index]
        config, seed, log = action_log_to_fork(case, self.session.seeds)
        commitment = case.raw.get("commitment")
        source = ReplaySource(
            kind="pivot",
            label=f"pivot {case.id}",
            scenario=str(case.raw.get("scenario") or "standard"),
            config=config,
            seed=seed,
            log=log,
            seed_commitment=commitment if isinstance(commitment, str) and commitment else None,
        )
        return Replayer(source)

    def banner(self) -> str:
        """``PIVOT case i/N · month m/fork`` for the header."""
        return (
            f"PIVOT case {self.index + 1}/{len(self.session.cases)} · month {self.replayer.month}/"
            f"{self.replayer.last_month} · a/b: Plan 1/2 · p plans"
        )

    def on_mount(self) -> None:
        super().on_mount()
        if self.all_done_at_start:
            self.notify(f"every case is answered in {self.session.run}", markup=False)
        self.action_plans()

    def action_plans(self) -> None:
        """Show the question and the plans."""
        if isinstance(self.screen, ModalScreen):
            return
        self.push_screen(PlansScreen(self.case, self.index, len(self.session.cases)), self._chosen)

    def action_choose(self, shown: int) -> None:
        """Choose Plan ``shown`` (1 or 2; keys a/b, from the panels or the plans dialog)."""
        self._key = "a" if shown == 1 else "b"
        if isinstance(self.screen, PlansScreen):
            self.screen.dismiss(shown)  # the app's priority keys reach here before the dialog's
            return
        if isinstance(self.screen, ModalScreen):
            return
        self._chosen(shown)

    def _chosen(self, shown: int | None) -> None:
        if shown is None:
            return
        case = self.case
        key, self._key = self._key, ""
        chosen = self.session.record(case, shown, key or str(shown))
        entry = self.session.key.get(case.id) if self.session.key is not None else None
        self.push_screen(RevealScreen(case, chosen, entry, self.session.run), lambda _r: self._next_case())

    def _next_case(self) -> None:
        nxt = self.session.next_index(self.index)
        if nxt is None:
            self.notify(f"every case is answered; saved in {self.session.run}", markup=False, timeout=8)
            return
        self.index = nxt
        self.replayer = self._replayer(nxt)
        self._show(self.replayer.last_month)
        self.action_plans()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "transcript":
            return False
        return super().check_action(action, parameters)

    def action_help(self) -> None:
        """Rules, the pivot keys (choose, plans, quit) and the viewer's keys."""
        from pibench_tui.tui.replay_app import REPLAY_KEYS
        from pibench_tui.tui.screens.help import HelpScreen

        rows = ["| key | what |", "|---|---|"]
        rows += [f"| {key} | {what} |" for key, what in PLAN_KEYS]
        rows += [f"| {key} | {what} |" for key, what, agent_only in REPLAY_KEYS if not agent_only and key != "q"]
        intro = (
            "**Keys of a pivot case.** The panels show the career at the fork, read-only; the plans "
            "dialog asks which plan the PI should follow this month. After a choice the futures are "
            "revealed (when the answer key is given)."
        )
        self.push_screen(HelpScreen(self.game, keys=intro + "\n\n" + "\n".join(rows), tutorial=False))


def open_session(cases_path: str, key_path: str | None, out: str | None, seal: str | None = None) -> PivotSession:
    """Load the cases (and key), and prepare the run directory.

    Raises:
        PivotFileError: A bad case set or key.
        RunConflict: The run directory holds answers of another set or model.
    """
    cases = load_cases(cases_path)
    default_key = Path(cases_path) / "key.jsonl" if Path(cases_path).is_dir() else None
    key: dict[str, KeyEntry] | None = None
    if key_path is not None:
        check_sealed_key(cases_path, key_path)
        key = load_key(key_path, cases)
    elif default_key is not None and default_key.exists():
        key = load_key(default_key, cases)
    digest = cases_hash(cases)
    run = Path(out) if out else Path(f"pivots-human-{digest[:8]}")
    settings = EvalSettings(
        label=HUMAN,
        model=HUMAN,
        condition="record",
        reconsider=False,
        cases=str(Path(cases_path).resolve()),
        cases_hash=digest,
        backend={"backend": HUMAN, "sessions_per_case": 1},
    )
    with _held(run):
        _check_settings(run, settings)
    return PivotSession(cases, key, run, seeds=sealed_seeds(seal) if seal else None)


def run_pivots(args: Any) -> int:
    """``pibench play --pivots CASES [--key FILE] [--out RUN]``; exit 0, or 1 with a message."""
    from .evaluate import RunConflict

    try:
        session = open_session(
            resolve_set(args.pivots),
            getattr(args, "pivots_key", None),
            getattr(args, "pivots_out", None),
            getattr(args, "pivots_seal", None),
        )
        # The first case must re-play before the app starts, so a bad set fails here, not in the UI.
        first = session.next_index()
        action_log_to_fork(session.cases[first if first is not None else 0], session.seeds)
    except (PivotFileError, RunConflict) as exc:
        print(f"pibench play --pivots: {exc}", file=sys.stderr)
        return 1
    with _held(session.run):
        app = PivotApp(session)
        code = int(app.run() or 0)
    n = len(session.cases)
    print(
        f"pibench play --pivots: {len(session.answered)} of {n} case{'' if n == 1 else 's'} answered in {session.run}"
    )
    return code
