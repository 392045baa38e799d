"""Projects: start, monthly progress, scooping, dead ends, completion into drafts (MECHANICS §6)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .config import TOPIC_INDEX, TOPICS
from .field import hotness
from .kinds import ProjectEnd
from .numbers import round1
from .people import active_memberships
from .state import Draft, Person, Project

if TYPE_CHECKING:  # pragma: no cover
    from .config import WorldConfig
    from .engine import World


def effectiveness(cfg: WorldConfig, person: Person, n_projects: int) -> float:
    """Member effectiveness e_i (§6).

    speed × skill × (0.5 + 0.5 morale) × (ι + (1 − ι) min(mentor h, 6)/6) / max(1, n_i).
    """
    # min(a, b) is b only if b < a, max(a, b) only if b > a: conditional expressions, the same
    # numbers without the calls
    hours, mentoring = cfg.mentor_effect_hours, person.mentoring
    mentor = (hours if hours < mentoring else mentoring) / hours
    e = (
        person.speed
        * person.skill
        * (cfg.effect_morale_base + cfg.effect_morale_gain * person.morale)
        * (person.independence + (1.0 - person.independence) * mentor)
    )
    return e / (n_projects if n_projects > 1 else 1)


def progress_increment(cfg: WorldConfig, effort: float, units: float, noise: float) -> float:
    """0.9 E^0.9 (1 + 0.30 ln(1 + units/800)) max(0.1, noise) for E > 0 (§6); ``noise`` ~ N(1, 0.22)."""
    if effort <= 0:
        return 0.0
    inc: float = (
        cfg.progress_rate
        * effort**cfg.progress_exponent
        * (1.0 + cfg.compute_gain * math.log1p(units / cfg.compute_scale))
        * (noise if noise > cfg.progress_noise_floor else cfg.progress_noise_floor)  # max(floor, noise)
    )
    return inc


def progress_pct(pj: Project) -> float:
    """The public progress of a project in percent of its tier's work, capped at 100, to 0.1 (§6, §15)."""
    pct = 100.0 * pj.progress / pj.work
    return round1(pct if pct < 100.0 else 100.0)  # min(100.0, pct): pct only if pct < 100.0


def count_active(w: World) -> int:
    """How many projects are active."""
    n = 0
    for pj in w.s.projects.values():
        if pj.status == "active":
            n += 1
    return n


def start_project(w: World, topic: str, tier: int, members: list[str], compute: float) -> Project:
    """Create an active project; feasibility and novelty keyed by the project id (§6).

    Arguments are assumed valid (the API validates them).
    """
    cfg, s = w.cfg, w.s
    m = s.month
    k = TOPICS.index(topic)
    busy = {pid for pj in s.projects.values() if pj.status == "active" for pid in pj.members}
    idle = sum(
        1 for p in s.people.values() if p.status == "active" and p.role in ("phd", "postdoc") and p.id not in busy
    )
    runway = s.budget / max(1.0, w.burn_rate())  # the runway the PI saw, before this project's compute
    pid = s.next_id("PJ")
    gen = w.rng.keyed("project", pid)
    feasible = float(gen.random()) >= cfg.tiers[str(tier)]["p_infeasible"]
    novelty = min(
        cfg.novelty_max,
        max(
            cfg.novelty_min,
            float(gen.normal(cfg.novelty_start_mean, cfg.novelty_start_sd))
            - cfg.novelty_crowding * (s.crowding[k] - 1.0),
        ),
    )
    pj = Project(
        id=pid,
        topic=topic,
        tier=int(tier),
        members=list(members),
        compute=float(compute),
        started_month=m,
        work=float(cfg.tiers[str(tier)]["work"]),
        feasible=feasible,
        novelty=novelty,
    )
    s.projects[pid] = pj
    h_now = hotness(w, m)[k]
    # hotness(w, mm)[k] for the next 12 months, the row index clamped to the trajectory's last
    # row as hotness() clamps it (mm >= 2 here): the same rows without twelve calls
    traj = w.s.trajectory
    last = len(traj) - 1
    future = [traj[mm if mm < last else last][k] for mm in range(m + 1, m + 13)]
    s.eval_log.setdefault("projects", {})[pid] = {
        "tier": int(tier),
        "topic": topic,
        "start": m,
        "end": None,
        "status": "active",
        "h_start": h_now,
        "h_next12": sum(future) / len(future),
        "runway": runway,
        "idle": idle,
        "feasible": feasible,
        "scoops": 0,
        "paper": None,
    }
    return pj


def set_compute(w: World, pj: Project, compute: float) -> None:
    """Set an active project's compute units per month, paid at the tick (§2, §6)."""
    pj.compute = compute


def assign(w: World, pj: Project, pid: str) -> None:
    """Add an active lab member (not yet a member) to an active project (§6)."""
    pj.members.append(pid)


def unassign(w: World, pj: Project, pid: str) -> None:
    """Remove a member from an active project (§6)."""
    pj.members = [x for x in pj.members if x != pid]


def _member_impulse(w: World, pj: Project, value: float) -> None:
    """Queue ``value``/ρ for every active member of ``pj``."""
    for pid in pj.members:
        p = w.s.people.get(pid)
        if p is not None and p.status == "active":
            p.impulse += value / p.resilience


def end_project(w: World, pj: Project, status: ProjectEnd) -> None:
    """Mark a project ended with ``status`` (completed, deadend, killed)."""
    pj.status = status
    pj.ended_month = w.s.month
    rec = w.s.eval_log.get("projects", {}).get(pj.id)
    if rec is not None:
        rec["status"] = status
        rec["end"] = w.s.month


def kill_project(w: World, pj: Project) -> None:
    """Kill: no draft; −0.15/ρ to active members (§6)."""
    _member_impulse(w, pj, w.cfg.impulse_killed)
    end_project(w, pj, "killed")


def _new_draft(
    w: World,
    pj: Project | None,
    topic: str,
    tier: int,
    q: float,
    authors: list[str],
    salvage: bool = False,
    collab: bool = False,
) -> Draft:
    s = w.s
    did = s.next_id("D")
    d = Draft(
        id=did,
        project_id=pj.id if pj else None,
        topic=topic,
        tier=int(tier),
        q=float(q),
        created_month=s.month,
        authors=list(authors),
        salvage=salvage,
        collab=collab,
    )
    s.drafts[did] = d
    if pj is not None:
        pj.draft_id = did
        rec = s.eval_log.get("projects", {}).get(pj.id)
        if rec is not None:
            rec["paper"] = did
    return d


def draft_quality(w: World, pj: Project) -> float:
    """Latent draft quality at completion, keyed by the project (§6)."""
    cfg = w.cfg
    ka = pj.ka_sum / pj.ka_weight if pj.ka_weight > 0 else cfg.unstaffed_ka
    avg_compute = pj.compute_sum / pj.ticks if pj.ticks else 0.0
    gen = w.rng.keyed("quality", pj.id)
    noise = float(gen.normal(0.0, cfg.quality_noise_sd))
    breakthrough = float(gen.random()) < cfg.breakthrough_p
    q: float = (
        cfg.tiers[str(pj.tier)]["base_quality"]
        + cfg.quality_ka * ka
        + cfg.quality_novelty * (pj.novelty - cfg.quality_novelty_center)
        + cfg.quality_compute * math.log1p(avg_compute / cfg.compute_scale)
        + noise
    )
    if pj.tier == 3 and breakthrough:
        q += cfg.breakthrough_bonus
    return min(cfg.quality_max, max(cfg.quality_min, q))


def projects_step(w: World, m: int) -> None:
    """Tick step 2 (§6): the scoop news due this month, then each active project's month in
    turn: its team's effort, progress, novelty bleed, a scoop draw, a dead end or completion."""
    cfg, s = w.cfg, w.s
    if s.pending_scoop_news:
        _scoop_news_due(w, m)
    active = [pj for pj in s.projects.values() if pj.status == "active"]
    if not active:
        return
    n_projects = active_memberships(active)
    for pj in active:  # a project ended in this loop is never one still to come
        effort = _staff_month(w, pj, n_projects)
        noise, u_scoop = _project_month_draws(w, pj.id, m)
        if effort > 0:
            pj.progress += progress_increment(cfg, effort, pj.compute, noise)
        crowding = s.crowding[TOPIC_INDEX[pj.topic]]
        novelty = pj.novelty - cfg.novelty_bleed * crowding
        pj.novelty = novelty if novelty > cfg.novelty_min else cfg.novelty_min  # max(novelty_min, novelty)
        if scooped(cfg, pj, crowding, u_scoop):
            _scoop(w, pj, m)
        if not pj.feasible and pj.progress >= cfg.deadend_progress * pj.work:
            _dead_end(w, pj)
        elif pj.feasible and pj.progress >= pj.work:
            _complete(w, pj)


def _scoop_news_due(w: World, m: int) -> None:
    """Write the scoop news due at the tick of ``m`` (a scoop of month m − 1, §6's delay)."""
    s = w.s
    due = [row for row in s.pending_scoop_news if row[0] == m]
    if due:
        s.pending_scoop_news = [row for row in s.pending_scoop_news if row[0] != m]
        for _, pid, topic in due:
            w.add_news("scoop", topic, f"A competing group published work overlapping project {pid} ({topic}).")
            w.dirty.add(("projects", pid))  # its scooped_times counts this scoop from now (it may have ended)
            w.note_fact("scoops", {"project_id": pid, "topic": topic})


def _staff_month(w: World, pj: Project, n_projects: dict[str, int]) -> float:
    """The project's team this month (§6): effort E = Σ e_i over listed members still active,
    and the month added to the accumulators (ticks, compute sum, the effort-weighted mean of
    skill × ability). Returns E."""
    cfg, people = w.cfg, w.s.people
    effort = 0.0
    ka = []
    for pid in pj.members:
        p = people[pid]
        if p.status != "active":
            continue
        effort += effectiveness(cfg, p, n_projects.get(pid, 1))
        ka.append(p.skill * p.ability)
    pj.ticks += 1
    pj.compute_sum += pj.compute
    if ka:
        weight = effort if effort > 1e-6 else 1e-6  # max(effort, 1e-6), without the call
        pj.ka_sum += weight * (sum(ka) / len(ka))
        pj.ka_weight += weight
    return effort


def _project_month_draws(w: World, project_id: str, m: int) -> tuple[float, float]:
    """The project's draws of month ``m`` (§13, keyed by project and month): the progress
    noise ~ N(1, ``progress_noise_sd``), then the scoop uniform."""
    gen = w.rng.keyed_text(f"project_month|{project_id}|{m}")
    # numpy's gen.normal(1.0, sd) is 1.0 + sd × a standard normal: the same draw and float
    # without its argument checks (scalar draws are Python floats)
    noise = 1.0 + w.cfg.progress_noise_sd * gen.standard_normal()
    return noise, gen.random()


def scooped(cfg: WorldConfig, pj: Project, crowding: float, u_scoop: float) -> bool:
    """Whether the project is scooped this month (§6): progress/W ≥ 0.25 after this month's
    progress and ``u_scoop`` < 0.010 C_k (``crowding`` C_k of its topic); never under ``no_scooping``."""
    return not cfg.no_scooping and pj.progress / pj.work >= cfg.scoop_progress and u_scoop < cfg.scoop_rate * crowding


def _scoop(w: World, pj: Project, m: int) -> None:
    """A scoop (§6): novelty × 0.45, the count, −0.20/ρ to active members, news at m + 1."""
    cfg = w.cfg
    pj.novelty *= cfg.scoop_factor
    pj.scoops += 1
    rec = w.s.eval_log.get("projects", {}).get(pj.id)
    if rec is not None:
        rec["scoops"] += 1
    _member_impulse(w, pj, cfg.impulse_scooped)
    w.s.pending_scoop_news.append([m + 1, pj.id, pj.topic])


def _dead_end(w: World, pj: Project) -> None:
    """An infeasible project reaches its dead end (§6): −0.15/ρ to active members, status
    deadend, and with p ``salvage_p`` (keyed by project) a salvage draft of the same tier."""
    cfg = w.cfg
    _member_impulse(w, pj, cfg.impulse_killed)
    end_project(w, pj, "deadend")
    g = w.rng.keyed("salvage", pj.id)
    salvage_id = None
    if float(g.random()) < cfg.salvage_p:
        q = float(g.uniform(cfg.salvage_q_low, cfg.salvage_q_high))
        salvage_id = _new_draft(w, pj, pj.topic, pj.tier, q, _authors(w, pj), salvage=True).id
    w.note_fact("dead_ends", {"project_id": pj.id, "topic": pj.topic, "tier": pj.tier, "salvage_draft_id": salvage_id})


def _complete(w: World, pj: Project) -> None:
    """A feasible project completes (§6): status completed, its draft at :func:`draft_quality`."""
    q = draft_quality(w, pj)
    end_project(w, pj, "completed")
    d = _new_draft(w, pj, pj.topic, pj.tier, q, _authors(w, pj))
    w.note_fact(
        "drafts_completed",
        {"project_id": pj.id, "draft_id": d.id, "topic": d.topic, "tier": d.tier, "collab": False},
    )


AUTHOR_ROLES: tuple[str, ...] = ("phd", "postdoc")
"""The roles a draft's authors are drawn from (§6: draft authors = project members with role
PhD/postdoc); an RA adds effort but never authors, a manager adds neither (§5)."""


def _authors(w: World, pj: Project) -> list[str]:
    """Members with role in :data:`AUTHOR_ROLES`, in member-list order (§6)."""
    return [pid for pid in pj.members if w.s.people[pid].role in AUTHOR_ROLES]


def collaboration_draft(w: World, event_id: str, topic: str) -> Draft:
    """A collaboration draft delivered at the tick (§7, §11): no authors, tier 2, q keyed by event."""
    cfg = w.cfg
    q = min(
        cfg.collab_q_max,
        max(cfg.collab_q_min, float(w.rng.keyed("collab", event_id).normal(cfg.collab_q_mean, cfg.collab_q_sd))),
    )
    return _new_draft(w, None, topic, cfg.collab_tier, q, [], collab=True)
