"""The ``projects`` namespace: start, staff, fund and kill projects (MECHANICS §6, §15)."""

from __future__ import annotations

from typing import Any

from ... import explain as explain_mod
from ... import projects as projects_mod
from ... import views
from ...state import Project
from .. import checks
from ..registry import ActionError, Unchanged, api_call
from .base import Namespace


class Projects(Namespace):
    """Start, staff, fund and kill projects (§6)."""

    _name = "projects"

    def _project(self, project_id: Any) -> Project:
        pj: Project = self._live(self._w.s.projects, project_id, "project", "active", "active")
        return pj

    @api_call(mutating=False)
    def list(self) -> list[Any]:
        """All projects ever: id, topic, tier, status, started_month, ended_month, progress_pct, monthly_compute, members, draft_id, scooped_times."""
        return [views.project_row(self._w, pj) for pj in self._w.s.projects.values()]

    @api_call(mutating=True)
    def start(self, topic: Any, tier: Any, members: Any, monthly_compute: Any = 0) -> dict[str, Any]:
        """Start a project: topic, tier 1-3, member ids, compute units/month (0 to {rules.caps.compute_per_project}). At most {rules.caps.active_projects} projects run at once. Too near the horizon for its draft to count, or with no member who can author (RAs and managers never author), the reply has a ``note``."""
        w = self._w
        topic = checks.topic(topic)
        if isinstance(tier, bool) or tier not in (1, 2, 3):
            raise ActionError("bad_argument", f"tier must be 1, 2 or 3, got {tier!r}")
        tier = int(tier)
        if isinstance(members, str):
            members = [members]
        if not isinstance(members, (list, tuple)) or not members:
            raise ActionError("bad_argument", f"members must be a non-empty list of lab member ids, got {members!r}")
        seen: set[str] = set()
        for pid in members:
            self._person(pid)
            if pid in seen:
                raise ActionError("bad_argument", f"member {pid!r} is listed twice; list each member once")
            seen.add(pid)
        compute = checks.num(monthly_compute, "monthly_compute", 0.0, w.cfg.max_compute)
        active = sum(1 for pj in w.s.projects.values() if pj.status == "active")
        if active >= w.cfg.max_active_projects:
            raise ActionError(
                "cap_reached",
                f"the lab already runs {active} projects (at most {w.cfg.max_active_projects}); finish or kill one first",
            )
        pj = projects_mod.start_project(w, topic, tier, list(members), compute)
        work = w.cfg.tiers[str(tier)]["work"]
        out: dict[str, Any] = {
            "ok": True,
            "project_id": pj.id,
            "est_months_note": f"tier {tier} needs about {work:g} units of work; two mentored students make roughly one unit a month",
        }
        roles = {pid: w.s.people[pid].role for pid in pj.members}
        notes = [explain_mod.project_start_note(w.cfg, w.s.month), explain_mod.authorless_team_note(roles, pj.members)]
        if note := "; ".join(n for n in notes if n):
            out["note"] = note
        return out

    @api_call(mutating=True)
    def set_compute(self, project_id: Any, monthly_compute: Any) -> dict[str, Any]:
        """Set a project's compute units/month (0 to {rules.caps.compute_per_project}). They are paid at the tick ({rules.costs.compute_unit} × the month's price multiplier)."""
        pj = self._project(project_id)
        compute = checks.num(monthly_compute, "monthly_compute", 0.0, self._w.cfg.max_compute)
        if compute == pj.compute:
            return Unchanged({"ok": True, "monthly_compute": pj.compute})
        projects_mod.set_compute(self._w, pj, compute)
        return {"ok": True, "monthly_compute": pj.compute}

    @api_call(mutating=True)
    def assign(self, project_id: Any, student_id: Any) -> dict[str, Any]:
        """Add an active lab member to an active project (no duplicates)."""
        pj = self._project(project_id)
        p = self._person(student_id)
        if p.id in pj.members:
            raise ActionError("not_allowed", f"{p.id} is already a member of {pj.id}")
        projects_mod.assign(self._w, pj, p.id)
        return {"ok": True, "members": list(pj.members)}

    @api_call(mutating=True)
    def unassign(self, project_id: Any, student_id: Any) -> dict[str, Any]:
        """Remove a member from an active project. A non-member is ignored: nothing changes, nothing is logged."""
        pj = self._project(project_id)
        checks.string_id(student_id, "student id")
        if student_id not in pj.members:
            return Unchanged({"ok": True, "members": list(pj.members)})
        projects_mod.unassign(self._w, pj, student_id)
        return {"ok": True, "members": list(pj.members)}

    @api_call(mutating=True)
    def kill(self, project_id: Any) -> dict[str, Any]:
        """Stop an active project: no draft, and its members' morale suffers."""
        pj = self._project(project_id)
        projects_mod.kill_project(self._w, pj)
        return {"ok": True}
