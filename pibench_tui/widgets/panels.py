"""The panels (tab panes) of the main screen, one per file; re-exported here. Each renders
API results only."""

from __future__ import annotations

from .applicants_panel import ApplicantsPanel, past_offers_note
from .events_panel import EventsPanel
from .field_panel import FieldPanel
from .grants_panel import GrantsPanel, call_schedule, grants_note
from .ledger_panel import LEDGER_ROWS, LedgerPanel
from .panel import Panel, panel_bindings
from .papers_panel import PapersPanel
from .people_panel import PEOPLE_COLUMNS, PeoplePanel
from .projects_panel import ProjectsPanel

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
