"""The end screen: Impact explained, and — only now — the hidden state revealed.

This is the one place in the UI that reads the world's hidden state (``world.s``), and it
is only ever shown after the career is over (horizon or collapse).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Label, Static

from pibench_tui.tui.actions import plural
from pibench_tui.tui.game import Game
from pibench_tui.tui.widgets.footer import KeyLine
from pibench_tui.tui.widgets.panel import fit_names, hidden_columns
from pibench_tui.tui.widgets.plots import LinePlot

if TYPE_CHECKING:  # pragma: no cover
    from world.engine import World
    from world.state import Publication


ROLE_WORDS: dict[str, str] = {"phd": "PhD student", "postdoc": "postdoc", "ra": "RA", "manager": "lab manager"}
"""A role (:data:`world.kinds.Role`) in the end screen's words, in the order it counts them."""


def hired_line(roles: Sequence[str]) -> str:
    """Everyone the lab hired, by role (``roles``: one role a person, :data:`ROLE_WORDS`'s
    keys): ``"5 hired (2 PhD students, 1 postdoc, 1 RA, 1 lab manager)"``, ``"nobody hired"``.
    The world summary's ``hires`` counts PhD students and postdocs only (§12); QA read
    "0 researchers hired" in a career that had hired RAs."""
    if not roles:
        return "nobody hired"
    parts = [plural(roles.count(r), word) for r, word in ROLE_WORDS.items() if r in roles]
    return f"{len(roles)} hired ({', '.join(parts)})"


def paper_projection(world: Any) -> dict[str, float]:
    """Expected citations of each published paper over the projection window (§12; ``world.scoring``)."""
    from world.scoring import projection_by_paper

    return projection_by_paper(world)


def run_baseline(world: Any) -> dict:
    """Play the baseline policy on the same scenario (config and seed); return its summary."""
    from world.config import WorldConfig
    from world.engine import World
    from world.policies import Baseline
    from world.runner import play

    twin = World(WorldConfig.from_dict(world.cfg.to_dict()), world.seed)
    play(twin, Baseline())
    return twin.summary()


HINT_LEAD = "→ more columns (tab to the table, then ← →): "
"""The start of the line under an end-screen table whose columns do not all fit."""


def unpublished_line(w: World) -> str:
    """``"\n1 accepted paper publishes after the end (month 60): D003 at CLAR in month 61 — no
    citations, no Impact; its acceptance raised reputation only."`` for the papers accepted
    whose publication month lies after the career's last month (MECHANICS §7: they never earn
    citations or projection, §12), so the count of publications above is not a surprise;
    ``""`` when there is none."""
    s = w.s
    late = sorted((p for p in s.publications.values() if p.published_month > s.month), key=lambda p: p.id)
    if not late:
        return ""
    one = len(late) == 1
    papers = ", ".join(f"{p.draft_id} at {p.venue} in month {p.published_month}" for p in late)
    return (
        f"\n{plural(len(late), 'accepted paper')} {'publishes' if one else 'publish'} after the end (month {s.month}): "
        f"{papers} — no citations, no Impact; {'its acceptance' if one else 'their acceptances'} raised reputation only."
    )


class EndScreen(Screen[None]):
    """Impact (earned + projection), the papers that carried it, the curves, the reveal,
    and the baseline policy on the same scenario (computed in a worker)."""

    BINDINGS = [
        Binding("escape", "back", "Back to the lab (read-only)", id="end-back"),
        Binding("ctrl+s", "app.save", "Save", id="end-save", priority=True),
        Binding("q", "app.quit_game", "Quit", id="end-quit"),
    ]

    def __init__(self, game: Game, *, run_baseline_now: bool = True) -> None:
        super().__init__()
        self.game = game
        self.run_baseline_now = run_baseline_now
        self.baseline: dict | None = None

    def compose(self) -> ComposeResult:
        from world.scoring import impact

        w = self.game.world
        imp = impact(w)
        summ = w.summary()
        how = (
            f"[b red]The lab collapsed in month {summ['collapse_month']}[/]: only citations already earned count."
            if w.collapsed
            else f"The career reached the horizon (month {w.month})."
        )
        with VerticalScroll(id="end-body"):
            yield Label(f"Career over — Impact {imp['total']:,.1f}", id="end-title")
            yield Static(
                f"{how}\nImpact [b]{imp['total']:,.1f}[/] = [b]{imp['earned']:,.0f}[/] citations earned + "
                f"[b]{imp['projection']:,.1f}[/] projected over the next {w.cfg.projection_months} months.\n"
                f"{plural(summ['publications'], 'publication')} ({summ['top_publications']} at NAIC), h-index {summ['h_index']} · "
                f"{plural(summ['grants_won'], 'grant')} (${summ['grant_dollars']:,.0f}) · {hired_line([p.role for p in w.s.people.values()])}, "
                f"{summ['students_graduated']} graduated, {summ['students_quit']} quit · final budget ${summ['final_budget']:,.0f}"
                + unpublished_line(w),
                id="end-impact",
            )
            yield Static("Baseline policy on the same scenario: running…", id="end-baseline")
            yield Label("Papers that carried it", classes="section")
            yield DataTable(id="end-papers", cursor_type="row", zebra_stripes=True)
            yield Static("", id="end-papers-hint", classes="end-hint")
            with Horizontal(id="end-plots"):
                yield LinePlot(id="end-budget", classes="plot")
                yield LinePlot(id="end-citations", classes="plot")
            yield Label("Revealed: the people you hired (true values)", classes="section")
            yield DataTable(id="end-people", cursor_type="row", zebra_stripes=True)
            yield Static("", id="end-people-hint", classes="end-hint")
            yield Label("Revealed: topic hotness over the career", classes="section")
            yield LinePlot(id="end-hotness", classes="plot tall")
            yield DataTable(id="end-topics", cursor_type="row", zebra_stripes=True)
            yield Static("", id="end-topics-hint", classes="end-hint")
        yield KeyLine()

    def on_mount(self) -> None:
        s = self.game.world.s
        pubs = [p for p in s.publications.values() if p.published_month <= s.month]
        self._show_papers(pubs)
        self._show_lab_plots()
        self._show_people()
        self._show_topics(pubs)
        if self.run_baseline_now:
            self.compute_baseline()
        self.call_after_refresh(self.update_hints)

    def on_resize(self) -> None:
        self.call_after_refresh(self.update_hints)

    def update_hints(self) -> None:
        """Under each table, the columns that do not fit (at 80 columns the reveal's true values
        and the papers' true quality) and how to reach them."""
        for table in self.query(DataTable):
            hint = self.query_one(f"#{table.id}-hint", Static)
            hidden = hidden_columns(table)
            hint.display = bool(hidden)
            if hidden:
                hint.update(Text(fit_names(HINT_LEAD, [hidden], self.size.width - 4)))

    def _show_papers(self, pubs: list[Publication]) -> None:
        """The papers that carried the career, largest share of the Impact first: earned and
        projected citations, the share, the true quality."""
        proj = paper_projection(self.game.world)
        t = self.query_one("#end-papers", DataTable)
        t.add_columns("ID", "Venue", "Topic", "Tier", "Published", "Earned", "Projected", "Share", "True quality")
        total = sum(p.citations + proj.get(p.id, 0.0) for p in pubs) or 1.0
        for p in sorted(pubs, key=lambda p: -(p.citations + proj.get(p.id, 0.0))):
            v = p.citations + proj.get(p.id, 0.0)
            t.add_row(
                p.id,
                p.venue,
                p.topic,
                str(p.tier),
                str(p.published_month),
                str(p.citations),
                f"{proj.get(p.id, 0.0):.1f}",
                f"{100 * v / total:.0f}%",
                f"{p.q:.2f}",
            )
        if not pubs:
            t.add_row("—", "no publication", "", "", "", "", "", "", "")

    def _show_lab_plots(self) -> None:
        """The budget and the citations earned, month by month."""
        months = self.game.query("select month, budget, citations_total from lab_monthly order by month")
        xs = [r["month"] for r in months]
        self.query_one("#end-budget", LinePlot).show(
            "Budget ($k)", {"budget": (xs, [r["budget"] / 1000 for r in months])}
        )
        per, prev = [], 0
        for r in months:
            per.append(r["citations_total"] - prev)
            prev = r["citations_total"]
        self.query_one("#end-citations", LinePlot).show("Citations per month", {"citations": (xs, per)})

    def _show_people(self) -> None:
        """Everybody hired, with what the PI saw of them as applicants and their true values."""
        s = self.game.world.s
        pt = self.query_one("#end-people", DataTable)
        pt.add_columns(
            "ID",
            "Name",
            "Role",
            "Pool",
            "Status",
            "Transcript",
            "Letter",
            "Interview",
            "Ability",
            "Skill",
            "Morale",
            "Independence",
            "Growth",
        )
        for person in s.people.values():
            a = s.applicants.get(person.applicant_id) if person.applicant_id else None
            pt.add_row(
                person.id,
                person.name,
                person.role,
                person.pool or "—",
                person.status,
                f"{a.transcript:.2f}" if a else "—",
                f"{a.letter:.2f}" if a else "—",
                f"{a.interview_score:.2f}" if a else "—",
                Text(f"{person.ability:.2f}", style="bold"),
                f"{person.skill:.2f}",
                f"{person.morale:.2f}",
                f"{person.independence:.2f}",
                f"{person.growth:.2f}",
            )
        if not s.people:
            pt.add_row("—", "nobody was hired", *[""] * 11)

    def _show_topics(self, pubs: list[Publication]) -> None:
        """The true hotness of every topic over the career, plotted and summed up per topic
        beside the lab's papers on it."""
        from world.config import TOPICS

        w = self.game.world
        traj = w.s.trajectory
        last = min(len(traj) - 1, w.cfg.months)
        series = {
            topic: (list(range(1, last + 1)), [traj[m][k] for m in range(1, last + 1)])
            for k, topic in enumerate(TOPICS)
        }
        self.query_one("#end-hotness", LinePlot).show("True hotness by topic", series)
        tt = self.query_one("#end-topics", DataTable)
        tt.add_columns("Topic", "Start", "Mean", "Peak", "End", "Your papers")
        for k, topic in enumerate(TOPICS):
            vals = [traj[m][k] for m in range(1, last + 1)]
            n = sum(1 for p in pubs if p.topic == topic)
            tt.add_row(
                topic, f"{vals[0]:.2f}", f"{sum(vals) / len(vals):.2f}", f"{max(vals):.2f}", f"{vals[-1]:.2f}", str(n)
            )

    @work(thread=True, exclusive=True, group="baseline", exit_on_error=False)
    def compute_baseline(self) -> None:
        """Run the baseline policy on the same scenario, off the UI thread."""
        try:
            result: dict | str = run_baseline(self.game.world)
        except Exception as exc:  # noqa: BLE001 - show, never crash the end screen
            result = f"could not run the baseline policy: {type(exc).__name__}: {exc}"
        self.app.call_from_thread(self.show_baseline, result)

    def show_baseline(self, result: dict | str) -> None:
        """Put the baseline's result on screen."""
        box = self.query_one("#end-baseline", Static)
        if isinstance(result, str):
            box.update(Text(result))
            return
        self.baseline = result
        mine = self.game.world.summary()["impact"]
        state = f"collapsed in month {result['collapse_month']}" if result["collapsed"] else "reached the horizon"
        verdict = "you beat it" if mine > result["impact"] else "it beat you" if mine < result["impact"] else "a tie"
        box.update(
            f"Baseline policy on the same scenario: Impact [b]{result['impact']:,.1f}[/] "
            f"({result['citations']:,.0f} earned + {result['projected']:,.1f} projected), {result['publications']} publications, "
            f"{result['grants_won']} grants, {state} — {verdict}."
        )

    def action_back(self) -> None:
        """Return to the panels (every action is refused now: the career is over)."""
        self.app.pop_screen()
