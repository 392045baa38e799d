"""``pibench play --pivots CASES``: a person answers pivot cases (PIVOTS.md "Humans").

For each case the usual panels show the career at the fork, read-only (the replay viewer,
re-played from the case's public seed; ← → step through the months before it), and a dialog
shows the question and the two plans. ``a`` or ``b`` chooses; then the futures are revealed:
which plan earned more Impact over the branches, Δ and its interval, each plan's Impact over
its branches (a histogram) and collapse rates. With a sealed set, or without a key, the
reveal waits: the answer is saved and ``pibench pivots score RUN --key FILE`` grades it
later.

Answers go to a run directory laid out like ``pibench pivots eval``'s (label ``human``, one
session per case, the order the plans were shown recorded), so ``pivots score`` and
``pibench report`` read them alike. A person who quits resumes at the first unanswered case.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static
from textual_plotext import PlotextPlot

from pibench_tui.tui.replay import Replayer, ReplaySource
from pibench_tui.tui.replay_app import ReplayApp

from ..harness.rundir import JsonlFile
from .cases import Case, KeyEntry, PivotFileError, cases_hash, check_sealed_key, load_cases, load_key, resolve_set
from .evaluate import EvalSettings, _check_settings, _held, read_answers
from .fork_record import action_log_to_fork, sealed_seeds

__all__ = ["PivotApp", "PivotSession", "human_order", "run_pivots"]

HUMAN = "human"
"""The label and model of a person's answers."""


def human_order(case_id: str) -> str:
    """The order a person sees a case's plans in: ``"AB"`` or ``"BA"``, fixed per case by
    SHA-256 of its id, so about half the cases show plan B first (no position to learn)."""
    return "AB" if hashlib.sha256(case_id.encode("utf-8")).digest()[0] % 2 == 0 else "BA"


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
        for line in read_answers(self.run):
            if line.get("answer") in ("A", "B"):
                self.answered[str(line["id"])] = str(line["answer"])

    def next_index(self, after: int = -1) -> int | None:
        """The first unanswered case after ``after`` (wrapping), or ``None`` when all are."""
        n = len(self.cases)
        for step in range(1, n + 1):
            i = (after + step) % n
            if self.cases[i].id not in self.answered:
                return i
        return None

    def record(self, case: Case, shown: str) -> str:
        """Save the choice of the plan shown ``shown`` (``"A"`` first, ``"B"`` second);
        returns the case's plan label it means."""
        order = human_order(case.id)
        chosen = order[0] if shown == "A" else order[1]
        answers = JsonlFile(self.run / "answers.jsonl")
        try:
            answers.append({"id": case.id, "order": order, "answer": chosen, "raw": f"key {shown.lower()}"})
            answers.sync()
        finally:
            answers.close()
        self.answered[case.id] = chosen
        return chosen


class PlansScreen(ModalScreen[str | None]):
    """The question and the two plans; ``a``/``b`` choose, escape looks at the record."""

    BINDINGS = [
        Binding("a", "choose('A')", "Plan A", id="pivot-plan-a"),
        Binding("b", "choose('B')", "Plan B", id="pivot-plan-b"),
        Binding("escape", "close", "Look at the record", id="pivot-plans-close"),
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
                yield Static("\n[b]Plan A[/]  " + _escape(self.case.plans[order[0]]["text"]), id="pivot-plan-a-text")
                yield Static("\n[b]Plan B[/]  " + _escape(self.case.plans[order[1]]["text"]), id="pivot-plan-b-text")
            yield Static(
                "[b]a[/] choose plan A · [b]b[/] choose plan B · [b]esc[/] look at the record (p brings this back)",
                classes="form-hint",
            )

    def action_choose(self, shown: str) -> None:
        """Choose the plan shown as ``shown``."""
        self.dismiss(shown)

    def action_close(self) -> None:
        """Back to the panels, undecided."""
        self.dismiss(None)


class RevealScreen(ModalScreen[None]):
    """What the futures say: the better plan, Δ, its interval, Impact per branch, collapses."""

    BINDINGS = [Binding("escape,enter,space,n", "close", "Next case", id="pivot-reveal-close")]

    def __init__(self, case: Case, chosen: str, entry: KeyEntry | None, run: Path) -> None:
        super().__init__()
        self.case = case
        self.chosen = chosen
        self.entry = entry
        self.run = run

    def _shown(self, plan: str) -> str:
        order = human_order(self.case.id)
        return "A" if order[0] == plan else "B"

    def lines(self) -> list[str]:
        """The reveal as text (plans named as the player saw them)."""
        you = self._shown(self.chosen)
        if self.entry is None:
            return [
                f"You chose plan {you}. Your answer is saved in {self.run}.",
                "The answer key is sealed or was not given: score your answers when it is revealed with",
                f"  pibench pivots score {self.run} --key KEY.jsonl",
            ]
        e = self.entry
        better = self._shown(e.better)
        verdict = "right" if e.better == self.chosen else "not the better plan"
        n = len(e.impact["A"])
        a, b = self._shown("A"), self._shown("B")
        delta_shown = e.delta if a == "A" else -e.delta
        lo, hi = e.ci if a == "A" else (-e.ci[1], -e.ci[0])
        out = [
            f"You chose plan {you}: {verdict}.",
            f"Plan {better} earned more Impact over {n} shared futures.",
            f"Impact(plan A) − Impact(plan B) = {delta_shown:+.1f} citations (95 % interval {lo:+.1f} to {hi:+.1f}).",
        ]
        if n:
            mean = {k: sum(v) / len(v) for k, v in e.impact.items()}
            out.append(
                f"Mean Impact: plan A {mean['A' if a == 'A' else 'B']:.1f}, plan B {mean['B' if b == 'B' else 'A']:.1f}."
            )
        out.append(
            f"Collapsed: plan A in {100 * e.collapse['A' if a == 'A' else 'B']:.0f} % of futures, "
            f"plan B in {100 * e.collapse['B' if b == 'B' else 'A']:.0f} %."
        )
        return out

    def compose(self) -> ComposeResult:
        with Vertical(id="pivot-reveal", classes="dialog"):
            yield Label(f"The futures of case {self.case.id}", classes="dialog-title")
            yield Static(_escape("\n".join(self.lines())), id="pivot-reveal-text")
            if self.entry is not None and self.entry.impact["A"]:
                with Horizontal(id="pivot-reveal-plots"):
                    yield PlotextPlot(id="pivot-hist")
            yield Static("[b]enter[/] next case", classes="form-hint")

    def on_mount(self) -> None:
        if self.entry is None or not self.entry.impact["A"]:
            return
        plot = self.query_one("#pivot-hist", PlotextPlot)
        plot.styles.height = max(8, min(16, self.app.size.height - 14))
        plt = plot.plt
        order = human_order(self.case.id)
        for shown, plan in (("A", order[0]), ("B", order[1])):
            plt.hist(self.entry.impact[plan], bins=12, label=f"plan {shown}")
        plt.title("Impact over the branches")
        plt.xlabel("Impact (citations)")

    def action_close(self) -> None:
        """On to the next case."""
        self.dismiss(None)


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
        Binding("a", "choose('A')", "Plan A", id="pivot-a", priority=True),
        Binding("b", "choose('B')", "Plan B", id="pivot-b", priority=True),
        Binding("p", "plans", "Plans", id="pivot-plans", priority=True),
    ]

    def __init__(self, session: PivotSession, *, start: int | None = None, test_mode: bool = False) -> None:
        self.session = session
        first = session.next_index() if start is None else start
        self.index = 0 if first is None else first
        self.all_done_at_start = first is None
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
            f"{self.replayer.last_month} · a/b choose · p plans"
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

    def action_choose(self, shown: str) -> None:
        """Choose the plan shown as ``shown`` (from the panels or the plans dialog)."""
        if isinstance(self.screen, PlansScreen):
            self.screen.dismiss(shown)  # the app's priority keys reach here before the dialog's
            return
        if isinstance(self.screen, ModalScreen):
            return
        self._chosen(shown)

    def _chosen(self, shown: str | None) -> None:
        if shown is None:
            return
        case = self.case
        chosen = self.session.record(case, shown)
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
    print(f"pibench play --pivots: {len(session.answered)} of {len(session.cases)} cases answered in {session.run}")
    return code
