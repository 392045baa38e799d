"""The base of every API namespace: lookups of live entities and attention checks (§3, §15)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import people as people_mod
from ..checks import listing, string_id
from ..registry import ActionError

if TYPE_CHECKING:  # pragma: no cover
    from ...engine import World
    from ...kinds import EntityStatus, Role
    from ...state import Person
    from .. import Api, Mirror


class Namespace:
    """One API namespace over the :class:`~world.api.Api`'s world; subclasses set ``_name``."""

    _name = ""

    def __init__(self, api: Api) -> None:
        # the world and the API's SQL mirror, not the API: it holds its namespaces, and a
        # reference back would make every API (and the world it holds) a reference cycle
        self._w: World = api.world
        self._mirror: Mirror = api._mirror

    def _check_hours(self, hours: float, what: str, lapses: str = "") -> None:
        """Refuse (``no_attention``) unless ``hours`` of one-off attention are left this month (§3).

        The namespaces check; the subsystem that takes the action charges the hours. The
        message says what can free hours: lowering mentoring (when there is any), else waiting
        for next month's pool, unless ``lapses`` says what waiting loses (an event in its last
        month to answer, ``"E032 lapses unanswered at this month's end"``): then not waiting.
        """
        w = self._w
        if hours < 0:
            raise ActionError("bad_argument", f"{what}: hours cannot be negative")
        _, pool, mentoring = people_mod.attention_totals(w)
        left = pool - mentoring - w.s.oneoff_used
        if hours > left + 1e-9:
            lower = mentoring > 1e-9
            if lapses:
                fix = f"lower mentoring to answer now: {lapses}" if lower else f"no mentoring to lower: {lapses}"
            else:
                fix = "lower mentoring or wait for next month" if lower else "wait for next month"
            raise ActionError(
                "no_attention",
                f"{what} needs {hours:g} h but only {max(0.0, left):.2f} h are left this month "
                f"(pool {pool:.2f} h, mentoring {mentoring:.2f} h, used {w.s.oneoff_used:.2f} h); {fix}",
            )

    @staticmethod
    def _live(
        collection: dict[str, Any],
        eid: Any,
        noun: str,
        status: EntityStatus,
        adjective: str,
        *,
        wrong_state_code: str = "unknown_id",
    ) -> Any:
        """The entity ``eid`` of ``collection`` if its status is ``status``, else an ActionError
        naming its actual state and listing the ids that are (e.g. "no such active project ...")."""
        string_id(eid, f"{noun} id")
        e = collection.get(eid)
        if e is None or e.status != status:
            live = [x.id for x in collection.values() if x.status == status]
            state = "" if e is None else f" (it is {e.status.replace('_', ' ')})"
            raise ActionError(
                "unknown_id" if e is None else wrong_state_code,
                f"no such {adjective} {noun} {eid!r}{state}; {adjective} {noun}s: {listing(live)}",
            )
        return e

    def _person(
        self, pid: Any, *, active: bool = True, roles: tuple[Role, ...] | None = None, what: str = "lab member"
    ) -> Person:
        """The lab member ``pid`` (active, of one of ``roles``), else ``unknown_id`` listing who is."""
        w = self._w
        string_id(pid, "id")
        p: Person | None = w.s.people.get(pid)
        if p is None or (active and p.status != "active") or (roles is not None and p.role not in roles):
            pool = [
                q
                for q in w.s.people.values()
                if (not active or q.status == "active") and (roles is None or q.role in roles)
            ]
            state = "" if p is None else f" ({p.role}, {p.status})"
            raise ActionError(
                "unknown_id", f"no such active {what} {pid!r}{state}; current: {listing([q.id for q in pool])}"
            )
        return p
