"""The header that is always visible: month, calendar, budget, runway, attention, standing."""

from __future__ import annotations

from textual.widgets import Static


def calendar_label(dash: dict) -> str:
    """What this month of the year means: recruiting, deadlines, service duty (from the dashboard)."""
    m = dash["month"]
    parts = [dash["label"]]
    moy = (m - 1) % 12 + 1
    if moy in (1, 2, 3):
        parts.append("recruiting season")
    for v in dash["venue_deadlines_this_month"]:
        parts.append(f"{v} deadline")
    for note in dash["notes"]:
        if note.startswith("Service duty"):
            parts.append("service duty")
        elif note.startswith("Compute price"):
            parts.append("compute " + note.rsplit(" ", 1)[-1].rstrip(".") + "×")
    calls = [c["agency"] for c in dash["open_grant_calls"] if c["agency"] != "TIF"]
    if calls:
        parts.append("calls: " + "/".join(sorted(set(calls))))
    return " · ".join(parts)


class LabHeader(Static):
    """Two lines: where we are in the career, and the money/attention gauges."""

    DEFAULT_CSS = """
    LabHeader { height: 2; background: $primary-background; color: $text; padding: 0 1; }
    """

    _last: tuple | None = None

    def on_resize(self) -> None:
        if self._last is not None:
            self.show(*self._last)

    def show(self, dash: dict, citations: int, busy: bool = False, scenario: str = "") -> None:
        """Render a dashboard (``lab.dashboard()``) plus the citation count so far (shorter below 110 columns)."""
        self._last = (dash, citations, busy, scenario)
        narrow = 0 < self.size.width < 110
        m, total = dash["month"], dash["months_total"]
        state = ""
        if dash.get("collapsed"):
            state = " · [b red]COLLAPSED[/]"
        elif dash.get("finished"):
            state = " · [b]career over[/]"
        elif busy:
            state = " · [b yellow]closing the month…[/]"
        line1 = f"[b]Month {m}/{total}[/] {calendar_label(dash)}{state}"
        if scenario and not narrow:
            line1 += f"  [dim]{scenario}[/]"
        budget = dash["budget"]
        runway = dash["runway_months"]
        burn = dash["est_monthly_burn"]
        colour = "red" if budget < 0 or (runway is not None and runway < 6) else "yellow" if runway is not None and runway < 18 else "green"
        run_txt = "∞" if runway is None else f"{runway:.1f} mo"
        att = dash["attention"]
        burn_txt = "" if narrow else f" (burn ${burn:,.0f}/mo)"
        line2 = (f"Budget [b {colour}]${budget:,.0f}[/] · runway [{colour}]{run_txt}[/]{burn_txt} · "
                 f"{'attn' if narrow else 'attention'} [b]{att['left']:g}[/]/{att['pool']:g} h · "
                 f"{'' if narrow else 'standing '}[b]{dash['lab_standing']}[/] · {'cit.' if narrow else 'citations'} [b]{citations}[/]")
        self.update(line1 + "\n" + line2)
