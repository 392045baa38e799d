"""The World: owns the state and runs the month tick in the documented order (MECHANICS §1)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import pickle
from typing import Any

from . import events as events_mod
from . import field as field_mod
from . import grants as grants_mod
from . import papers as papers_mod
from . import people as people_mod
from . import projects as projects_mod
from . import scoring, views
from .config import STANDING_WORDS, TOPICS, WorldConfig
from .errors import SimulationOver
from .kinds import EvalEventKind, LedgerCategory, NewsKind, ReportList
from .numbers import round2
from .report import MonthReport
from .rng import Rng
from .rules import OFFER_RESOLVE_MONTH, PHD_JOIN_MONTH, SEASON_OPEN_MONTH
from .state import State
from .textcache import TextCache

STATE_FORMAT = 1
"""Version of the :meth:`World.to_state` layout."""


class World:
    """A career in progress: config + seed + state + random streams.

    Args:
        config: the world's parameters (a scenario's ``WorldConfig``).
        seed: the scenario seed (int).

    Construction follows §1: climate phase φ, agency preferences, the hotness trajectory,
    the grant calls, then month 1 is opened without a field step.
    """

    def __init__(
        self,
        config: WorldConfig | None = None,
        seed: int = 0,
        *,
        _restore: dict[str, Any] | None = None,
        _copy: bool = True,
        _parts: tuple[Rng, State, MonthReport | None] | None = None,
    ) -> None:
        self.cfg = config if config is not None else WorldConfig()
        self.seed = int(seed)
        self.dirty: set[tuple[str, str]] = set()
        self.version = 0  # bumped on every change; the observable mirror syncs on change
        self.month_citations = 0
        self.report: MonthReport | None = None  # the report being collected during a tick
        self.last_report: MonthReport | None = None  # the report of the last closed month
        if _parts is not None:  # a fork: its own randomness, a copy of the state
            self.rng, self.s, self.last_report = _parts
            return
        if _restore is not None:
            self.rng = Rng.from_state(_restore["rng"])
            self.s = State.from_dict(_restore["state"], copy=_copy)
            saved = _restore.get("last_report")
            self.last_report = MonthReport.from_dict(saved) if saved else None
            return
        self.cfg.validate()
        self.rng = Rng(self.seed)
        s = self.s = State()
        s.budget = float(self.cfg.start_budget)
        s.reputation = float(self.cfg.reputation_start)
        s.phi = float(self.rng.stream("field").uniform(0.0, 2.0 * math.pi))
        s.agency_prefs = grants_mod.draw_preferences(self)
        s.trajectory = field_mod.build_trajectory(self)
        grants_mod.schedule_calls(self)
        cfg = self.cfg
        s.crowding = [max(cfg.crowd_initial_min, cfg.crowd_initial_factor * h) for h in cfg.hotness0()]
        s.climate = 1.0
        s.compute_mult = 1.0
        s.eval_log = {"months": [], "projects": {}, "hires": [], "quits": [], "topics": []}
        self.open_month(1)

    # ------------------------------------------------------------------ small helpers
    @property
    def month(self) -> int:
        """The current month (1-based)."""
        return self.s.month

    @property
    def finished(self) -> bool:
        """True after the horizon or a collapse."""
        return self.s.finished

    @property
    def collapsed(self) -> bool:
        """True if the budget ended a month below zero."""
        return self.s.collapsed

    def spend(self, amount: float, category: LedgerCategory, note: str) -> None:
        """Book a signed cash movement (USD; outflows negative) in the ledger (§2).

        The amount is rounded to cents once and that same value moves the budget, so the
        budget always equals the start budget plus the sum of the ledger.
        """
        amount = round2(float(amount))
        self.s.budget += amount
        self.s.ledger.append([self.s.month, category, amount, note])

    def note_fact(self, kind: ReportList, fact: dict[str, Any]) -> None:
        """Append a public ``fact`` to list ``kind`` of the month report being collected.

        Called by the subsystem modules as things happen during the tick (MECHANICS
        Decisions 8); a no-op outside a tick (e.g. a step run on its own in a test).
        """
        rep = self.report
        if rep is not None:
            getattr(rep, kind).append(fact)

    def add_news(self, kind: NewsKind, topic: str | None, text: str) -> None:
        """Append a news item dated this month (§4)."""
        self.s.news.append([self.s.month, kind, topic, text])

    def reputation_impulse(self, source: str, value: float) -> None:
        """Collect a reputation impulse applied at this month's update (§10)."""
        self.s.rep_impulses.append([source, float(value)])

    def eval_event(self, kind: EvalEventKind, person_id: str) -> None:
        """Record a hire or a quit in the hidden evaluation log (§17)."""
        key = "hires" if kind == "hire" else "quits"
        self.s.eval_log.setdefault(key, []).append([self.s.month, person_id])

    def remove_from_projects(self, person_id: str) -> None:
        """Remove a person from every active project (progress kept)."""
        self.remove_all_from_projects({person_id})

    def remove_all_from_projects(self, person_ids: set[str]) -> None:
        """Remove several people from every active project in one pass (progress kept);
        the same result as :meth:`remove_from_projects` for each, in linear time."""
        if not person_ids:
            return
        for pj in self.s.projects.values():
            if pj.status == "active" and not person_ids.isdisjoint(pj.members):
                pj.members = [x for x in pj.members if x not in person_ids]

    def burn_rate(self) -> float:
        """Estimated monthly burn in USD (§2): pay + compute + overhead − installments."""
        s, cfg = self.s, self.cfg
        m = s.month
        burn: float = sum([p.stipend for p in s.people.values() if p.status == "active"])
        if s.projects:
            unit_cost, mult = cfg.compute_unit_cost, s.compute_mult  # the same products, looked up once
            burn += sum([pj.compute * unit_cost * mult for pj in s.projects.values() if pj.status == "active"])
        if s.awards:
            overhead = cfg.award_overhead
            for a in grants_mod.active_awards(self, m):
                burn += overhead - a.monthly
        return burn

    def runway(self) -> float | None:
        """Months of cash at the current burn; ``None`` when burn ≤ 0 (§2)."""
        burn = self.burn_rate()
        return self.s.budget / burn if burn > 0 else None

    def standing(self) -> str:
        """Public standing word for the current reputation (§10)."""
        r, cfg = self.s.reputation, self.cfg
        unknown, rising, established, renowned = STANDING_WORDS
        if r < cfg.standing_rising:
            return unknown
        if r < cfg.standing_established:
            return rising
        if r < cfg.standing_renowned:
            return established
        return renowned

    # ------------------------------------------------------------------ month open / tick
    def open_month(self, m: int) -> None:
        """Open month ``m`` (§1): observables, events, applicant pool, reservations, rescale."""
        s = self.s
        s.month = m
        s.oneoff_used = 0.0
        field_mod.generate_observables(self, m)
        events_mod.generate_events(self, m)
        if m % 12 == SEASON_OPEN_MONTH:
            people_mod.generate_pool(self, m)
        if s.collab_reservations:
            for row in s.collab_reservations:
                if row[0] == m:
                    s.oneoff_used += self.cfg.collab_hours
            s.collab_reservations = [row for row in s.collab_reservations if row[0] > m]
        if s.people:
            people_mod.rescale_mentoring(self)
        self.version += 1

    def money_step(self, m: int) -> None:
        """Tick step 1: pay, compute, grant installments and overhead (§2)."""
        s, cfg = self.s, self.cfg
        spend = self.spend
        if s.people:
            pay = {"phd": cfg.pay_phd, "postdoc": cfg.pay_postdoc, "ra": cfg.pay_ra, "manager": cfg.pay_manager}
            for p in people_mod.active_people(self):
                spend(-pay[p.role], "stipend", p.id)
        if s.projects:
            unit_cost, mult = cfg.compute_unit_cost, s.compute_mult
            for pj in s.projects.values():
                if pj.status == "active" and pj.compute > 0:
                    spend(-pj.compute * unit_cost * mult, "compute", pj.id)
        if s.awards:
            for a in grants_mod.active_awards(self, m):
                spend(a.monthly, "grant_income", a.id)
                spend(-cfg.award_overhead, "overhead", a.id)

    def reputation_step(self) -> None:
        """Tick step 10: R ← clip(R + Σ impulses − 0.01(R − 2), 0, 10) (§10)."""
        s, cfg = self.s, self.cfg
        impulses = s.rep_impulses
        total = sum([v for _, v in impulses]) if impulses else 0
        r = s.reputation
        r = r + total - cfg.reputation_decay * (r - cfg.reputation_baseline)
        r = r if r > 0.0 else 0.0  # min(max, max(0.0, r)) as conditional expressions, without the calls
        s.reputation = r if r < cfg.reputation_max else cfg.reputation_max
        if impulses:
            s.rep_impulses = []

    def record_month(self, m: int, pool: float, used: float) -> None:
        """Tick step 11: the visible monthly stats and the hidden evaluation log (§12, §17)."""
        s = self.s
        researchers = people_mod.count_active(self, people_mod.RESEARCHER_ROLES)
        s.lab_monthly.append(
            {
                "month": m,
                "budget": round2(s.budget),
                "reputation_standing": self.standing(),
                "students": researchers,
                "active_projects": projects_mod.count_active(self),
                "publications": len(views.published(self)),
                "citations_total": scoring.earned(self),
                "citations_month": self.month_citations,
                "attention_used": round2(used),
                "attention_pool": round2(pool),
            }
        )
        s.eval_log.setdefault("months", []).append(
            {
                "month": m,
                "pool": pool,
                "used": used,
                "mentoring": self._mentoring_snapshot,
                "hotness": list(field_mod.hotness(self, m)),
                "reputation": s.reputation,
                "budget": s.budget,
            }
        )

    def next_month(self) -> MonthReport:
        """Run the tick of the current month and open the next (§1, steps 1-14).

        Returns:
            The :class:`~world.report.MonthReport` of the month just closed (also kept as
            :attr:`last_report`): the facts the subsystems noted during the tick and the
            next month's opening, plus citations, money, headlines and the end flags.

        Raises:
            SimulationOver: the career already ended (horizon or collapse).
        """
        s = self.s
        if s.finished:
            raise SimulationOver("simulation is over")
        m = s.month
        rep = self.report = MonthReport(month=m)
        news_start = len(s.news)
        _, pool, reserved = people_mod.attention_totals(self)
        used = reserved + s.oneoff_used
        self._mentoring_snapshot = [
            [p.id, p.mentoring, p.ability, p.growth, p.independence, p.role]
            for p in people_mod.active_people(self, people_mod.RESEARCHER_ROLES)
        ]
        self.month_citations = 0
        try:
            self._tick(m, pool, used)
        finally:
            self.report = None
        rep.citations["earned"] = self.month_citations
        rep.citations["total"] = s.lab_monthly[-1]["citations_total"]
        rep.money_from(s.ledger, m, s.budget)
        rep.headlines = [row[3] for row in s.news[news_start:]]
        rep.collapsed = s.collapsed
        rep.finished = s.finished
        self.last_report = rep
        return rep

    def _tick(self, m: int, pool: float, used: float) -> None:
        """The tick's steps 1-14 for month ``m`` (see :meth:`next_month`)."""
        s, cfg = self.s, self.cfg
        # A step whose inputs are empty (no people, submissions, ...) changes nothing and is
        # skipped: an idle lab's month costs only the field, the observables and the books.
        self.money_step(m)  # 1
        if s.people:
            people_mod.apply_dismissals(self, m)  # Decisions §1: after this month's pay
        if s.projects or s.pending_scoop_news:
            projects_mod.projects_step(self, m)  # 2
        if s.submissions:
            papers_mod.decisions_step(self, m)  # 3
        if s.publications:
            papers_mod.citations_step(self, m)  # 4
        if s.proposals:
            grants_mod.grant_decisions_step(self, m)  # 5
        if s.events or s.collab_deliveries:
            events_mod.expiry_step(self, m)  # 6
        if s.people:
            people_mod.researcher_step(self, m)  # 7
        if s.applicants:
            if m % 12 == OFFER_RESOLVE_MONTH:  # 8
                people_mod.resolve_offers(self, m)
            if m % 12 == PHD_JOIN_MONTH:
                people_mod.phd_arrivals(self, m)
        if s.postings:
            people_mod.resolve_postings(self, m)  # 9
        self.reputation_step()  # 10
        self.record_month(m, pool, used)  # 11
        self.version += 1
        if s.budget < 0:  # 12
            s.collapsed = True
            s.collapse_month = m
            s.finished = True
            self._publications_changed()
            return
        if m >= cfg.months:  # 13
            s.finished = True
            self._publications_changed()
            return
        field_mod.field_step(self, m + 1)  # 14
        self.open_month(m + 1)

    def _publications_changed(self) -> None:
        """Mark every publication dirty for the SQL mirror (:mod:`world.observe`): their
        citations changed at a tick that did not open a new month (the last one). A tick
        that opens a month needs no marks: the mirror rewrites every publication when it
        sees the month change."""
        dirty = self.dirty
        for pid in self.s.publications:
            dirty.add(("publications", pid))

    # ------------------------------------------------------------------ persistence
    def to_state(self) -> dict[str, Any]:
        """The whole world as JSON-able data (config, seed, RNG streams, state), plus the
        last month report under ``"last_report"`` (derived data, left out of :meth:`digest`)."""
        return {
            "format": STATE_FORMAT,
            "config": self.cfg.to_dict(),
            "seed": self.seed,
            "rng": self.rng.to_state(),
            "state": self.s.to_dict(),
            "last_report": self.last_report.to_dict() if self.last_report is not None else None,
        }

    def state_view(self, *, report: bool = True) -> dict[str, Any]:
        """:meth:`to_state` without copying the state's lists and dicts (the live ones).

        For serialising at once (the digest, a save): never modify or keep the result.
        ``report=False`` leaves out ``last_report`` (as :meth:`digest` does).
        """
        cfg = self.cfg
        view = {
            "format": STATE_FORMAT,
            "config": {f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg)},
            "seed": self.seed,
            "rng": self.rng.to_state(),
            "state": self.s.view(),
        }
        if report:
            view["last_report"] = self.last_report.to_dict() if self.last_report is not None else None
        return view

    @classmethod
    def from_state(cls, data: dict[str, Any], *, copy: bool = True) -> World:
        """Rebuild a world from :meth:`to_state` output; it continues exactly as the original.

        ``copy=False`` makes the world take over the lists and dicts of ``data["state"]``
        instead of copying them: for data nobody else holds or reads again (a save just
        parsed from its file); the world's play then changes ``data``.

        Raises:
            ValueError: the data is not a world state of a known format.
        """
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            raise ValueError(f"not a pibench world state of format {STATE_FORMAT}")
        cfg = WorldConfig.from_dict(data["config"])
        return cls(cfg, int(data["seed"]), _restore=data, _copy=copy)

    def fork(self, branch: int) -> World:
        """A future of this world: a copy at the start of its current month whose later draws
        follow branch ``branch`` (MECHANICS Decisions 12; PIVOTS.md).

        Everything drawn before the fork (abilities, qualities, the field's trajectory,
        agencies' preferences, morale) is state and is shared by every branch; keyed draws
        and the persistent streams from this month on depend on ``branch``. The same world,
        branch and later actions always give the same future. Many futures of one fork:
        :meth:`fork_point` (the state copied out once).

        Args:
            branch: 1 or more (branch 0 is the world as it is).

        Returns:
            A new world; this one is unchanged.

        Raises:
            ValueError: ``branch`` < 1, or the PI has already acted this month (a fork is the
                world before the month's first action).
            SimulationOver: the career has ended.
        """
        if int(branch) < 1:
            raise ValueError(f"a fork's branch is 1 or more (0 is the world as it is), got {branch}")
        return self.fork_point().fork(branch)

    def fork_point(self) -> ForkPoint:
        """This world at the start of its month, copied out once, to make futures from
        (:meth:`ForkPoint.fork` is :meth:`fork`; the same worlds).

        Raises:
            ValueError, SimulationOver: As :meth:`fork`.
        """
        return ForkPoint(self)

    def digest(self) -> str:
        """SHA-256 of the canonical JSON of :meth:`to_state` without ``last_report`` (a
        fingerprint of the world; the report is derived from it and does not enter).

        Encodes the whole state each call; ``world.career.Career.digest`` keeps a
        :class:`~world.textcache.TextCache` so that a career digested every month re-encodes
        only what changed (the same text, byte for byte).
        """
        view = self.state_view(report=False)
        # check_circular=False: the state holds no cycles, so the encoder's cycle bookkeeping
        # (an id dict entry per list and dict) is skipped; the same text
        blob = json.dumps(view, sort_keys=True, separators=(",", ":"), allow_nan=True, check_circular=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def digest_and_state_text(self, cache: TextCache, view: dict[str, Any] | None = None) -> tuple[str, str] | None:
        """``(self.digest(), cache's JSON text of self.state_view())`` in one pass over the
        state (a save needs both every month; each piece is fingerprinted once).

        Args:
            cache: the caller's cache for this world (its encoding options make the text).
            view: ``self.state_view()`` if the caller has just made it (the world unchanged).

        Returns:
            The pair, or ``None`` when the cache cannot take the state as it is (then call
            :meth:`digest` and encode the state the ordinary way).
        """
        pair = cache.dumps_with_sorted(view if view is not None else self.state_view(), omit="last_report")
        if pair is None:
            return None
        text, blob = pair
        return hashlib.sha256(blob.encode("utf-8")).hexdigest(), text

    def summary(self) -> dict[str, Any]:
        """End-of-career summary (§12)."""
        return scoring.summary(self)

    def hotness_now(self) -> dict[str, float]:
        """True hotness this month by topic (hidden; for the oracle and the end screen only)."""
        return dict(zip(TOPICS, field_mod.hotness(self, self.s.month), strict=True))


class ForkPoint:
    """A world at the start of its month, its state copied out once (``pickle``: floats bit
    for bit), from which :meth:`fork` makes its futures (:meth:`World.fork`). Later changes
    to the world do not reach the point.

    Args:
        world: the world to fork (:meth:`World.fork_point`).

    Raises:
        ValueError: the PI has already acted this month (a fork is the world before the
            month's first action).
        SimulationOver: the career has ended.
    """

    def __init__(self, world: World) -> None:
        if world.s.finished:
            raise SimulationOver("the career has ended: there is no month left to fork")
        month = world.s.month
        acted = [row[1] for row in world.s.action_log if row[0] == month and row[1] != "time.next_month"]
        if acted:
            raise ValueError(
                f"a fork is the world at the start of a month, before the PI acts; month {month} already "
                f"has {len(acted)} action(s) (first: {acted[0]})"
            )
        self.cfg, self.seed, self.month, self.rng = world.cfg, world.seed, month, world.rng
        # pickle copies the plain state exactly at a fraction of a to_state/from_state round
        # trip's cost (bench/fork.py); serialised once, loaded for each future
        self._blob = pickle.dumps((world.s, world.last_report), pickle.HIGHEST_PROTOCOL)

    def fork(self, branch: int) -> World:
        """The future ``branch`` (1 or more) of the point: :meth:`World.fork`'s world.

        Raises:
            ValueError: ``branch`` < 1.
        """
        if int(branch) < 1:
            raise ValueError(f"a fork's branch is 1 or more (0 is the world as it is), got {branch}")
        state, report = pickle.loads(self._blob)
        return World(self.cfg, self.seed, _parts=(self.rng.fork(int(branch), self.month), state, report))
