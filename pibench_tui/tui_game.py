"""The TUI's hold on one career: the world, its API, the scenario, and the monthly digest.

Everything the panels show comes from :attr:`Game.api` (the same calls an agent makes) and
``api.query`` over the observable database. :attr:`Game.world` is touched only to save,
to advance the clock through the API, and by the end screen once the career is over.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from world.api import ActionError, Api
from world.engine import World


@dataclass
class Digest:
    """What happened in the tick that closed ``month`` (all from API results).

    Attributes:
        month: the month that was closed.
        new_month: the month now open (== month when the career ended).
        finished: the career ended (horizon or collapse).
        collapsed: the lab collapsed.
        budget_before / budget_after: USD.
        citations: citations drawn in the closed month.
        decisions: ``[{id, draft, venue, status, reviewer_scores}]`` returned this tick.
        grants: ``[{id, agency, topic, status}]`` decided this tick.
        awards: new awards ``[{id, agency, total, monthly, start_month, end_month}]``.
        arrivals: people who joined ``[{id, name, role}]``.
        departures: people who left ``[{id, name, role, status}]``.
        offers: applicants whose offer was answered ``[{id, name, status}]``.
        drafts: new drafts ``[{id, topic, tier, collab, salvage}]``.
        projects: projects that ended ``[{id, topic, tier, status}]``.
        events: events that arrived ``[{id, kind, arrived_month, respond_by_month, status}]``.
        expired: events that lapsed unanswered ``[{id, kind, status}]``.
        news: news items written during the tick and at the new month's open.
    """

    month: int
    new_month: int
    finished: bool = False
    collapsed: bool = False
    budget_before: float = 0.0
    budget_after: float = 0.0
    citations: int = 0
    decisions: list = field(default_factory=list)
    grants: list = field(default_factory=list)
    awards: list = field(default_factory=list)
    arrivals: list = field(default_factory=list)
    departures: list = field(default_factory=list)
    offers: list = field(default_factory=list)
    drafts: list = field(default_factory=list)
    projects: list = field(default_factory=list)
    events: list = field(default_factory=list)
    expired: list = field(default_factory=list)
    news: list = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """Nothing but money and news happened."""
        return not any((self.decisions, self.grants, self.arrivals, self.departures, self.offers,
                        self.drafts, self.projects, self.events, self.expired))


class Game:
    """One career as the TUI plays it.

    Args:
        world: the world (new or loaded).
        scenario: the ``scenarios.Scenario`` it came from (or ``None``: custom / loaded).
        save_name: the name of the save it was loaded from or last saved to.
        career: the career of the save it was loaded from (``None``: a new career).
    """

    def __init__(self, world: World, scenario: Any = None, save_name: str | None = None,
                 career: str | None = None) -> None:
        self.world = world
        self.api = Api(world)
        self.scenario = scenario
        self.save_name = save_name
        self.career = career
        self.careers: set[str] = {career} if career else set()  # careers this game was loaded from or saved as
        self.saved_version: int | None = world.version if save_name else None
        self.saved_month: int | None = world.month if save_name else None
        self.intel: list[dict] = []  # hallway intel from conference trips: {month, intel}
        self.digests: list[Digest] = []
        self.last_report: dict | None = None  # the month report of the last tick (``time.next_month()["report"]``)
        self.lock = threading.RLock()  # one writer at a time (UI thread, sim worker, console)

    # ------------------------------------------------------------------ small views
    @property
    def scenario_name(self) -> str:
        """The scenario's name ("custom" when unknown)."""
        if isinstance(self.scenario, str):
            return self.scenario
        return getattr(self.scenario, "name", None) or "custom"

    @property
    def finished(self) -> bool:
        """The career is over (the API's dashboard says so)."""
        return bool(self.world.finished)

    @property
    def unsaved(self) -> bool:
        """Something happened since the last save (or there never was one)."""
        return self.saved_version != self.world.version and (self.world.month > 1 or bool(self.world.s.action_log))

    def mark_saved(self) -> None:
        """Record that the world as it is now has been saved (or autosaved)."""
        self.saved_version = self.world.version
        self.saved_month = self.world.month

    def unsaved_note(self) -> str:
        """What is not saved, in words: ``"This month's play (month 5) is not saved"``, or
        ``"3 months of play (months 3-5) are not saved"`` (counting the month now open)."""
        m = self.world.month
        since = self.saved_month if self.saved_month is not None else 1
        if since >= m:
            return f"This month's play (month {m}) is not saved"
        n = m - since + 1
        return f"{n} months of play (months {since}-{m}) are not saved"

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call ``"namespace.method"`` on the API.

        Raises:
            ActionError: the API refused; its message is for the player.
        """
        ns, method = name.split(".", 1)
        with self.lock:
            return self.api.call(ns, method, list(args), kwargs)

    def query(self, sql: str) -> list[dict]:
        """Read-only SQL over the observable database (§14)."""
        with self.lock:
            return self.api.query(sql)

    def dashboard(self) -> dict:
        """``lab.dashboard()``."""
        return self.call("lab.dashboard")

    # ------------------------------------------------------------------ the clock
    def _snapshot(self) -> dict:
        api = self.api
        return {
            "subs": {r["id"]: r["status"] for r in api.papers.submissions()},
            "props": {r["id"]: r["status"] for r in api.grants.proposals()},
            "people": {r["id"]: r["status"] for r in api.students.list()},
            "awards": {r["id"] for r in api.grants.awards()},
            "drafts": {r["id"] for r in api.papers.drafts()},
            "projects": {r["id"]: r["status"] for r in api.projects.list()},
            "events": {r["id"]: r["status"] for r in api.query("select id, status from events")},
            "offers": {r["id"]: r["status"] for r in api.query("select id, status from applicants where status = 'offered'")},
            "news": len(api.field.news(100_000)),
            "budget": api.lab.dashboard()["budget"],
        }

    def next_month(self) -> Digest:
        """Advance the clock through ``time.next_month()`` and describe what happened.

        Raises:
            ActionError: the career is over.
        """
        with self.lock:
            api = self.api
            before = self._snapshot()
            month = self.world.month
            reply = api.time.next_month()
            self.last_report = reply.get("report") if isinstance(reply, dict) else None
            dash = api.lab.dashboard()
            d = Digest(month=month, new_month=dash["month"], finished=bool(dash["finished"]),
                       collapsed=bool(dash["collapsed"]), budget_before=before["budget"], budget_after=dash["budget"])
            rows = api.query("select month, citations_total from lab_monthly order by month desc limit 2")
            if rows and rows[0]["month"] == month:
                prev = rows[1]["citations_total"] if len(rows) > 1 else 0
                d.citations = int(rows[0]["citations_total"] - prev)
            for r in api.papers.submissions():
                if before["subs"].get(r["id"]) == "under_review" and r["status"] in ("accept", "reject"):
                    d.decisions.append(r)
            for r in api.grants.proposals():
                if before["props"].get(r["id"]) == "pending" and r["status"] != "pending":
                    d.grants.append(r)
            d.awards = [r for r in api.grants.awards() if r["id"] not in before["awards"]]
            for r in api.students.list():
                old = before["people"].get(r["id"])
                if old is None:
                    d.arrivals.append(r)
                elif old == "active" and r["status"] != "active":
                    d.departures.append(r)
            d.drafts = [r for r in api.papers.drafts() if r["id"] not in before["drafts"]]
            for r in api.projects.list():
                if before["projects"].get(r["id"]) == "active" and r["status"] != "active":
                    d.projects.append(r)
            for r in api.query("select id, kind, arrived_month, respond_by_month, status from events"):
                old = before["events"].get(r["id"])
                if old is None:
                    d.events.append(r)
                elif old == "pending" and r["status"] != "pending":
                    d.expired.append(r)
            if before["offers"]:
                ids = ",".join(f"'{i}'" for i in before["offers"] if i.isalnum())
                if ids:
                    d.offers = api.query(f"select id, name, pool, status from applicants where id in ({ids})")
            d.news = api.field.news(100_000)[before["news"]:]
            self.digests.append(d)
            return d

    # ------------------------------------------------------------------ saves
    def save(self, name: str, store: Any) -> Any:
        """Save the career in ``store`` (a ``saves.SaveStore``) under ``name``."""
        with self.lock:
            info = store.save(name, self.world, scenario=self.scenario)
            self.save_name = name
            self.mark_saved()
            self.careers.add(info.career)
            if self.career is None:
                self.career = info.career
            return info


def parse_json_list(value: Any) -> list:
    """A JSON list column from ``query`` (members, authors, reviewer scores) as a list."""
    if isinstance(value, list):
        return value
    if isinstance(value, str) and value:
        try:
            out = json.loads(value)
            return out if isinstance(out, list) else [out]
        except ValueError:
            return [value]
    return []


__all__ = ["ActionError", "Digest", "Game", "parse_json_list"]
