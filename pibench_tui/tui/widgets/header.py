"""The header that is always visible: month, budget, runway, attention; the calendar; warnings.

Line 1 holds the facts a player must never lose (month, budget, runway, attention), first,
then standing and citations; each line is cut at the right edge rather than wrapped, and
below 110 columns the words shorten before any fact is dropped. Line 2 is the calendar.
Line 3 (only when there is something to warn about) lists the warnings of
:mod:`pibench_tui.warnings`, most urgent first, each with the key that addresses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static


def calendar_label(
    dash: dict,
    rolling: frozenset[str] | set[str],
    short: bool = False,
    refused: frozenset[str] | set[str] = frozenset(),
    late: frozenset[str] | set[str] = frozenset(),
    late_calls: frozenset[str] | set[str] = frozenset(),
) -> str:
    """What this month of the year means: recruiting, deadlines, service duty, the open grant
    calls except those of the ``rolling`` agencies (:attr:`Game.rolling_agencies
    <pibench_tui.tui.game.Game.rolling_agencies>`), from the dashboard. The agencies in
    ``refused`` (none of whose open calls the lab may apply to this month,
    :func:`pibench_tui.tui.alerts.refused_agencies`) are named apart: ``calls AMP (BSF: can't apply)``,
    ``calls: AMP (BSF: you may not apply)``, ``calls BSF (can't apply)``; the reason is in the Grants panel.
    A deadline in ``late`` (an acceptance would be published after the horizon,
    :func:`pibench_tui.tui.alerts.late_venues`) is not due but ``NAIC too late`` /
    ``NAIC deadline (too late: publishes after the horizon)``. An agency in ``late_calls`` (a
    proposal written now would be decided after the horizon, :func:`pibench_tui.tui.alerts.late_agencies`)
    is named apart too: ``calls TIF (BSF: too late)``, ``calls: TIF (BSF: too late, decided after
    the horizon)``, ``calls BSF (too late)``."""
    parts = [dash["label"]]
    if dash.get("finished") or dash.get("collapsed"):  # the header says so; no deadline concerns the lab now
        return dash["label"]
    # the world's notes name the season's offer months (its one home: world.rules.OFFER_MONTHS)
    if any(note.startswith(("Recruiting season is open", "Offer deadline")) for note in dash["notes"]):
        parts.append("recruiting" if short else "recruiting season")
    for v in dash["venue_deadlines_this_month"]:
        if v in late:
            parts.append(f"{v} too late" if short else f"{v} deadline (too late: publishes after the horizon)")
        else:
            parts.append(f"{v} {'due' if short else 'deadline'}")
    for note in dash["notes"]:
        if note.startswith("Service duty"):
            parts.append("service duty")
        elif note.startswith("Compute price"):
            parts.append("compute " + note.rsplit(" ", 1)[-1].rstrip(".") + "×")
    calls = sorted({c["agency"] for c in dash["open_grant_calls"] if c["agency"] not in rolling})
    may = "/".join(a for a in calls if a not in refused and a not in late_calls)
    apart = [  # (agencies, why) named apart, after those the lab may propose to
        (group, why)
        for group, why in (
            (
                "/".join(a for a in calls if a in refused and a not in late_calls),
                "can't apply" if short else "you may not apply",
            ),
            (
                "/".join(a for a in calls if a in late_calls),
                "too late" if short else "too late, decided after the horizon",
            ),
        )
        if group
    ]
    if calls:
        text = "calls " if short else "calls: "
        if may:
            text += may
        else:
            (group, why), apart = apart[0], apart[1:]
            text += f"{group} ({why})"
        text += "".join(f" ({group}: {why})" for group, why in apart)
        parts.append(text)
    return " · ".join(parts)


def runway_colour(dash: dict) -> str:
    """Red when the budget is negative or the runway is under 6 months, yellow under 18, else green."""
    runway = dash["runway_months"]
    if dash["budget"] < 0 or (runway is not None and runway < 6):
        return "red"
    if runway is not None and runway < 18:
        return "yellow"
    return "green"


def short_standing(word: str) -> str:
    """A standing word cut for a narrow header: ``"establ."``, ``"renown."``; a word of up to
    7 letters (``"unknown"``, ``"rising"``) unchanged."""
    return word if len(word) <= 7 else word[:6] + "."


def facts_line(dash: dict, citations: int, narrow: bool, width: int = 0) -> Text:
    """Month, budget, runway, attention (always, in this order), then standing and citations.

    When ``width`` (columns, 0: any) is too narrow for the line, the words shorten before any
    fact is cut, in this order: the standing word (:func:`short_standing`), the separators
    (``·`` without spaces), the standing's label, the runway's and attention's labels; only a
    line still too long is cut (with an ellipsis), so the citation count stays whole at 80
    columns in any career (QA, issue 27: "stand. established · cit. 1…")."""
    line = _facts(dash, citations, narrow, 0)
    for level in range(1, 5):
        if not width or line.cell_len <= width:
            break
        line = _facts(dash, citations, narrow, level)
    return line


def _facts(dash: dict, citations: int, narrow: bool, level: int) -> Text:
    """:func:`facts_line` at compaction ``level`` (0: none; 1: short standing word; 2: tight
    separators; 3: no standing label; 4: no runway or attention label)."""
    m, total = dash["month"], dash["months_total"]
    colour = runway_colour(dash)
    runway = dash["runway_months"]
    run_txt = "∞" if runway is None else f"{runway:.0f} mo" if narrow else f"{runway:.1f} mo"
    att = dash["attention"]
    sep = "·" if level >= 2 else " · "
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(f"M{m}/{total}" if narrow else f"Month {m}/{total}", style="bold")
    line.append(sep)
    line.append(f"${dash['budget']:,.0f}", style=f"bold {colour}")
    line.append(sep + ("" if level >= 4 else "run " if narrow else "runway "))
    line.append(run_txt, style=colour)
    if not narrow:
        line.append(f" (burn ${dash['est_monthly_burn']:,.0f}/mo)")
    line.append(sep + ("" if level >= 4 else "attn " if narrow else "attention "))
    line.append(f"{att['left']:g}", style="bold")
    line.append(f"/{att['pool']:g} h")
    line.append(sep + ("" if level >= 3 else "stand. " if narrow else "standing "))
    standing = str(dash["lab_standing"])
    line.append(short_standing(standing) if level >= 1 else standing, style="bold")
    line.append(sep + ("cit. " if narrow else "citations "))
    line.append(str(citations), style="bold")
    return line


def warnings_line(warnings: list, width: int, keys: bool = True) -> Text:
    """The header's warning line: each warning's short form (and key), most urgent first, as
    many as fit ``width`` whole; the rest are counted (``+2 more (!)``), never cut mid-word."""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append("⚠ ", style="bold red")
    line.append("! ", style="dim")
    for i, w in enumerate(warnings):
        piece = Text(" · " if i else "")
        piece.append(w.short, style=w.style)
        if keys and w.key:  # no key: nothing can act on it now
            piece.append(f" [{w.key}]", style="dim")
        rest = len(warnings) - i - 1
        more = len(f" · +{rest} more (!)") if rest else 0
        if i and line.cell_len + piece.cell_len + more > width:
            line.append(f" · +{len(warnings) - i} more (!)", style="bold")
            break
        line.append_text(piece)
    return line


@dataclass(frozen=True)
class HeaderView:
    """What the header shows: equal views draw the same header (so an unchanged one is not
    redrawn).

    Attributes:
        dash: ``lab.dashboard()``.
        citations: the lab's citations so far.
        rolling: the agencies whose call is always open (left out of the calendar's calls).
        busy: a month is being closed.
        scenario: the scenario and seed, shown dim at the right when there is room.
        warnings: :class:`pibench_tui.tui.alerts.Alert` items, most urgent first.
        banner: a word shown reversed before the calendar (the replay viewer's REPLAY …).
        keys: show each warning's key (off in the read-only replay viewer).
        refused: the agencies none of whose open calls the lab may apply to this month (the
            calendar names them apart, :func:`calendar_label`).
        late: the venues due this month whose acceptance would be published after the horizon
            (the calendar marks them too late, :func:`calendar_label`).
        late_calls: the agencies with open calls whose proposal written now would be decided
            after the horizon (the calendar marks them too late, :func:`calendar_label`).
    """

    dash: dict
    citations: int
    rolling: frozenset[str]
    busy: bool = False
    scenario: str = ""
    warnings: tuple[Any, ...] = ()
    banner: str = ""
    keys: bool = True
    refused: frozenset[str] = frozenset()
    late: frozenset[str] = frozenset()
    late_calls: frozenset[str] = frozenset()


class LabHeader(Static):
    """Two or three lines: the facts, the calendar, and warnings (when there are any).

    The header draws its :attr:`view` (a reactive: the app binds its own ``header_view`` to
    it with ``data_bind``), only when the view changed or the width did."""

    DEFAULT_CSS = """
    LabHeader { height: auto; max-height: 3; background: $primary-background; color: $text; padding: 0 1;
                text-wrap: nowrap; text-overflow: ellipsis; }
    """

    view: reactive[HeaderView | None] = reactive(None)
    """What the header shows (``None``: nothing yet)."""

    renders = 0
    """How many times the header was drawn (for tests)."""

    _lines = 0
    """The number of lines drawn last (its height)."""

    def watch_view(self) -> None:
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def show(
        self,
        dash: dict,
        citations: int,
        rolling: frozenset[str],
        busy: bool = False,
        scenario: str = "",
        warnings: list | None = None,
        banner: str = "",
        keys: bool = True,
    ) -> None:
        """Show a dashboard (``lab.dashboard()``), the citation count so far, and warnings
        (:class:`HeaderView` says what each is); redrawn only if this differs from what shows."""
        self.view = HeaderView(dash, citations, frozenset(rolling), busy, scenario, tuple(warnings or ()), banner, keys)

    def _draw(self) -> None:
        """Render :attr:`view` (shorter words below 110 columns)."""
        v = self.view
        if v is None:
            return
        self.renders += 1
        dash = v.dash
        narrow = 0 < self.size.width < 110
        out = facts_line(dash, v.citations, narrow, self.content_region.width or self.app.size.width - 2)
        out.append("\n")
        if v.banner:
            out.append(f" {v.banner} ", style="bold reverse")
            out.append(" ")
        out.append(
            calendar_label(dash, v.rolling, short=narrow, refused=v.refused, late=v.late, late_calls=v.late_calls)
        )
        if dash.get("collapsed"):
            out.append(" · ")
            out.append("COLLAPSED", style="bold red")
        elif dash.get("finished"):
            out.append(" · ")
            out.append("career over", style="bold")
        elif v.busy:
            out.append(" · ")
            out.append("closing the month…", style="bold yellow")
        if v.scenario and not narrow:
            out.append(f"  {v.scenario}", style="dim")
        if v.warnings and not dash.get("finished"):
            out.append("\n")
            out.append_text(
                warnings_line(list(v.warnings), self.content_region.width or self.app.size.width - 2, v.keys)
            )
        lines = out.plain.count("\n") + 1  # its height: no line wraps (text-wrap: nowrap)
        self.update(out, layout=lines != self._lines)  # same height: a repaint, no layout of the screen
        self._lines = lines
