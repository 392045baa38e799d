"""The TUI's hold on one career: the world, its API, the scenario, and the month reports.

Everything the panels show comes from :attr:`Game.api` (the same calls an agent makes) and
``api.query`` over the observable database. :attr:`Game.world` is touched only to save,
to advance the clock through the API, and by the end screen once the career is over. Both
belong to :attr:`Game.held`, the :class:`world.career.Career` the TUI holds (``Game.career``
is the *name* of the save lineage, as in the save store).
"""

from __future__ import annotations

import json
import threading
from typing import Any

from world.api import ActionError, Api, replay_calls
from world.api.cached import CachedApi
from world.career import Career
from world.engine import World
from world.field import hallway_talk

TUTORIAL_STATES = ("shown", "hidden")
"""The values of the saved UI field ``ui["tutorial"]``."""


def clean_ui(ui: Any) -> dict[str, str]:
    """The TUI's own state of a career as read from a save's ``ui`` metadata field (see
    ``docs/saves.md``): only the keys and values this TUI knows; anything else (a missing
    field in an older save, a hand-edited value) is dropped, so the defaults apply."""
    if not isinstance(ui, dict):
        return {}
    state = ui.get("tutorial")
    return {"tutorial": state} if state in TUTORIAL_STATES else {}


class Game:
    """One career as the TUI plays it.

    Args:
        world: the world (new or loaded), or the :class:`~world.career.Career` holding it.
        scenario: the ``scenarios.Scenario`` it came from (or ``None``: custom / loaded).
        save_name: the name of the save it was loaded from or last saved to.
        career: the career of the save it was loaded from (``None``: a new career).
        ui: the TUI's own state of the career as saved (``SaveRecord.meta.get("ui")``;
            ``{"tutorial": "shown" | "hidden"}``); never part of the world or its digest.
    """

    def __init__(
        self,
        world: World | Career,
        scenario: Any = None,
        save_name: str | None = None,
        career: str | None = None,
        ui: Any = None,
    ) -> None:
        #: The career this game holds: the world, its API, the SQL mirror.
        self.held = world if isinstance(world, Career) else Career(world)
        world = self.held.world
        self.scenario = scenario
        self.save_name = save_name
        self.career = career
        self.careers: set[str] = {career} if career else set()  # careers this game was loaded from or saved as
        self.saved_version: int | None = world.version if save_name else None
        #: The world's version when this game was loaded (``None``: a new career): a session
        #: that never moved from it only looked, and writes no save at its end (docs/saves.md).
        self.loaded_version: int | None = world.version if save_name else None
        #: Save name -> the world's version it holds, for the saves this game was loaded from or
        #: wrote: whether the career's save ``NAME`` already holds the state it is in.
        self.saved_as: dict[str, int] = {save_name: world.version} if save_name else {}
        self.saved_month: int | None = world.month if save_name else None
        self.ui: dict[str, str] = clean_ui(ui)  # saved with the career, outside the world
        self._saved_ui: dict[str, str] = dict(self.ui) if save_name else {}
        self.reports: list[dict] = []  # month reports of the ticks this game made
        self.last_report: dict | None = None  # the month report of the last tick (``time.next_month()["report"]``)
        self.last_dashboard: dict | None = (
            None  # the dashboard ``time.next_month()`` returned with it (None at the end)
        )
        self._rules: dict | None = None
        self._title: tuple[str, Any, str] | None = None  # (scenario name, config, scenario_title)
        self._intel: tuple[World, int, list[dict]] | None = None  # (world, its log's length, Game.intel then)
        self._derived: list[dict] | None = None  # every closed month's report, re-derived (earlier_reports)
        self.lock = threading.RLock()  # one writer at a time (UI thread, sim worker, console)

    # ------------------------------------------------------------------ small views
    @property
    def world(self) -> World:
        """The career's world."""
        return self.held.world

    @property
    def intel(self) -> list[dict]:
        """The hallway talk heard at each conference trip of the career, oldest first
        (``[{"month": m, "intel": {topic: "very hot" | "hot" | "warm" | "quiet"}}]``): re-heard
        from the world's action log (:func:`world.field.hallway_talk`), so the trips of the
        months before a load, or made from the console, are there too; nothing is saved."""
        with self.lock:
            w, n = self.world, len(self.action_log)
            if self._intel is None or self._intel[:2] != (w, n):
                self._intel = (w, n, hallway_talk(w))
            return list(self._intel[2])

    @property
    def api(self) -> Api | CachedApi:
        """The career's API (every panel reads through it)."""
        return self.held.api

    @property
    def seed_text(self) -> str:
        """The seed as the screen may show it: ``seed N``, or ``sealed:<commitment prefix>``
        for a sealed career (its seed is withheld until unsealed, issue 25 §3)."""
        commitment = getattr(self.scenario, "seed_commitment", None)
        return f"sealed:{commitment[:12]}" if commitment else f"seed {self.world.seed}"

    @property
    def scenario_name(self) -> str:
        """The scenario's name ("custom" when unknown)."""
        if isinstance(self.scenario, str):
            return self.scenario
        return getattr(self.scenario, "name", None) or "custom"

    @property
    def scenario_title(self) -> str:
        """The scenario as the header names it (:func:`scenarios.scenario_title`: an edited
        copy of standard.toml is ``standard (modified ad3657df)``)."""
        from scenarios import scenario_title

        name, cfg = self.scenario_name, self.world.cfg
        if self._title is None or self._title[0] != name or self._title[1] is not cfg:
            self._title = (name, cfg, scenario_title(name, cfg))
        return self._title[2]

    @property
    def finished(self) -> bool:
        """The career is over (the API's dashboard says so)."""
        return bool(self.world.finished)

    @property
    def unsaved(self) -> bool:
        """Something happened since the last save (or there never was one): the world changed,
        or, for a career with a save, the TUI's own state of it (:attr:`ui`)."""
        return self._world_unsaved or (self.save_name is not None and self.ui != self._saved_ui)

    @property
    def _world_unsaved(self) -> bool:
        return self.saved_version != self.world.version and (self.world.month > 1 or bool(self.action_log))

    @property
    def tutorial_shown(self) -> bool:
        """Whether the tutorial checklist shows: the player's choice (``t``, saved with the
        career), else shown in the tutorial scenario only."""
        state = self.ui.get("tutorial")
        if state in TUTORIAL_STATES:
            return state == "shown"
        return self.scenario_name == "tutorial"

    def set_tutorial_shown(self, shown: bool) -> None:
        """Record the player's choice to show or hide the tutorial (saved with the career)."""
        self.ui["tutorial"] = "shown" if shown else "hidden"

    @property
    def rules(self) -> dict:
        """This scenario's player-facing rules (``lab.rules()``; they do not change during a career)."""
        if self._rules is None:
            self._rules = self.call("lab.rules")
        return self._rules

    @property
    def rolling_agencies(self) -> frozenset[str]:
        """The agencies whose call is open every month (``lab.rules()``'s ``agencies.*.rolling``:
        TIF in the standard scenario): nothing to announce in a month's calendar, no loss when
        it "closes" (it ends with the career)."""
        return frozenset(name for name, a in self.rules["agencies"].items() if a["rolling"])

    def mark_saved(self) -> None:
        """Record that the world as it is now has been saved (or autosaved)."""
        self.saved_version = self.world.version
        self.saved_month = self.world.month
        self._saved_ui = dict(self.ui)

    def unsaved_note(self) -> str:
        """What is not saved, in words: ``"This month's play (month 5) is not saved"``, or
        ``"3 months of play (months 3-5) are not saved"`` (counting the month now open), or,
        when only the tutorial was shown or hidden since the last save, that."""
        m = self.world.month
        if self.unsaved and not self._world_unsaved:
            return "The tutorial checklist's visibility is not saved"
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

    @property
    def action_log(self) -> list:
        """The PI's public action log (the world's, ``[month, "ns.method", args, ...]`` rows, oldest
        first): the explanations of departures read which projects a leaver was on from it."""
        return self.world.s.action_log

    def query(self, sql: str) -> list[dict]:
        """Read-only SQL over the observable database (§14)."""
        with self.lock:
            return self.api.query(sql)

    def dashboard(self) -> dict:
        """``lab.dashboard()``."""
        return self.call("lab.dashboard")

    # ------------------------------------------------------------------ the clock
    def next_month(self) -> dict:
        """Advance the clock through ``time.next_month()``; return the closed month's report
        (MECHANICS Decisions 8; also kept as :attr:`last_report` and in :attr:`reports`).

        Raises:
            ActionError: the career is over.
        """
        with self.lock:
            reply = self.api.time.next_month()
            report = reply.get("report") if isinstance(reply, dict) else None
            if not isinstance(report, dict):  # a world without month reports: say what can be said
                report = {
                    "month": self.world.month - 1,
                    "finished": bool(self.world.finished),
                    "collapsed": bool(self.world.collapsed),
                }
            self.last_report = report
            self.reports.append(report)
            dash = {k: v for k, v in reply.items() if k != "report"} if isinstance(reply, dict) else {}
            self.last_dashboard = None if dash.get("simulation_over") or "budget" not in dash else dash
            return report

    def month_reports(self) -> list[dict]:
        """The month reports the player can re-read, oldest first: those of the months closed
        in this session (``n`` or the console), preceded, for a resumed career, by the last
        report it was saved with (``time.last_report``; older ones are re-derived on request: :meth:`earlier_reports`)."""
        with self.lock:
            try:
                last = self.api.time.last_report()
            except ActionError:  # no month closed yet
                return list(self.reports)
        if isinstance(last, dict) and not any(r.get("month") == last.get("month") for r in self.reports):
            if not self.reports or int(last.get("month", 0)) > int(self.reports[-1].get("month", 0)):
                self.reports.append(last)  # closed from the console: kept from now on
            else:
                return [last, *self.reports]
        return list(self.reports)

    def earlier_reports(self, before: int) -> list[dict]:
        """The month reports of the months closed before month ``before``, oldest first,
        re-derived (a report is derived data, never kept in a save): the world's action log is
        replayed on a new world of the same scenario and seed, and each month's report taken
        after its close, as ``time.last_report()`` gives it. Computed once per game (about a
        second for a whole career) and only when asked: a resumed career's ← in the digest.
        ``[]`` when the log does not replay from month 1 (a career that began mid-way)."""
        with self.lock:
            if self._derived is None:
                self._derived = self._replay_reports()
            return [r for r in self._derived if int(r.get("month", 0)) < before]

    def _replay_reports(self) -> list[dict]:
        """Every closed month's report, from a replay of the action log (see :meth:`earlier_reports`)."""
        w = self.world
        log = list(self.action_log)
        twin = World(w.cfg, w.seed)
        api = Api(twin)
        reports: list[dict] = []
        start = 0
        try:
            for i, row in enumerate(log):
                if row[1] == "time.next_month":
                    replay_calls(twin, log[start : i + 1])
                    start = i + 1
                    reports.append(api.time.last_report())
        except ActionError:  # the log does not start from this world's month 1
            return []
        return reports

    # ------------------------------------------------------------------ saves
    def _saves(self, store: Any) -> Any:
        """The career's save writer for ``store`` (a ``saves.SaveStore``): the one it holds,
        or a new one (``saves.CareerSaves``) the first time or for another store."""
        writer = self.held.saves
        if getattr(writer, "store", None) is not store:
            from saves import CareerSaves

            writer = self.held.saves = CareerSaves(store)
        return writer

    def save(self, name: str, store: Any) -> Any:
        """Save the career in ``store`` (a ``saves.SaveStore``) under ``name``."""
        with self.lock:
            info = self._saves(store).save(name, self.world, scenario=self.scenario, ui=dict(self.ui) or None)
            self.save_name = name
            self.saved_as[info.name] = self.world.version
            self.mark_saved()
            self.careers.add(info.career)
            if self.career is None:
                self.career = info.career
            return info

    def autosave(self, career: str, store: Any) -> Any:
        """Write the autosave of ``career`` (a save lineage's name) in ``store`` for this month
        (a delta between two whole ones, see ``docs/saves.md``) and count the career saved."""
        with self.lock:
            info = self._saves(store).autosave(career, self.world, scenario=self.scenario, ui=dict(self.ui) or None)
            self.mark_saved()
            return info


def rule(game: Game, path: str) -> Any:
    """One of this scenario's rules by its dotted path in ``lab.rules()`` (``"pay.phd"`` → USD/month).

    Raises:
        KeyError: no such rule (the message names the path).
    """
    node: Any = game.rules
    for part in path.split("."):
        try:
            node = node[part]
        except (KeyError, TypeError):
            raise KeyError(f"lab.rules() has no {path!r}") from None
    return node


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


__all__ = ["TUTORIAL_STATES", "ActionError", "Game", "clean_ui", "parse_json_list", "rule"]
