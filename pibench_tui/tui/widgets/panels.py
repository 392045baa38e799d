"""The panels (tabs) of the main screen, one per file; re-exported here. Each renders
API results only."""

from __future__ import annotations

from pibench_tui.tui.widgets.applicants_panel import ApplicantsPanel, past_offers_note
from pibench_tui.tui.widgets.events_panel import EventsPanel
from pibench_tui.tui.widgets.field_panel import FieldPanel
from pibench_tui.tui.widgets.grants_panel import GrantsPanel, call_schedule, grants_note
from pibench_tui.tui.widgets.ledger_panel import LEDGER_ROWS, LedgerPanel
from pibench_tui.tui.widgets.panel import Panel, panel_bindings
from pibench_tui.tui.widgets.papers_panel import PapersPanel
from pibench_tui.tui.widgets.people_panel import PEOPLE_COLUMNS, PeoplePanel
from pibench_tui.tui.widgets.projects_panel import ProjectsPanel

__all__ = [
    "LEDGER_ROWS",
    "PEOPLE_COLUMNS",
    "ApplicantsPanel",
    "EventsPanel",
    "FieldPanel",
    "GrantsPanel",
    "LedgerPanel",
    "Panel",
    "PapersPanel",
    "PeoplePanel",
    "ProjectsPanel",
    "call_schedule",
    "grants_note",
    "panel_bindings",
    "past_offers_note",
]
