"""Hand-made worlds for the MECHANICS §1-§6 verification tests.

A test builds a :class:`World`, then sets fields on ``w.s``, people and projects directly,
so expected values can be computed by hand from MECHANICS.md.
"""

from __future__ import annotations

import dataclasses

from world.config import WorldConfig
from world.engine import World
from world.state import Person, Project

QUIET = {
    # No random events and no quitting, so a hand-made tick does only what a test sets up.
    "crisis_p": 0.0,
    "review_p": 0.0,
    "talk_p_base": 0.0,
    "talk_p_per_rep": 0.0,
    "collab_p_per_rep": 0.0,
    "shock_p": 0.0,
    "quit_p_max": 0.0,
}


def make_world(seed: int = 1, quiet: bool = True, **overrides) -> World:
    """A fresh world at the open of month 1; ``quiet`` switches off events, shocks and quits."""
    params = dict(QUIET) if quiet else {}
    params.update(overrides)
    return World(WorldConfig.from_dict(params), seed)


PAY = {"phd": "pay_phd", "postdoc": "pay_postdoc", "ra": "pay_ra", "manager": "pay_manager"}
PREFIX = {"phd": "S", "postdoc": "PD", "ra": "RA", "manager": "MGR"}


def add_person(
    w: World,
    role: str = "phd",
    *,
    ability: float = 0.6,
    speed: float = 1.0,
    skill: float | None = None,
    morale: float = 0.7,
    independence: float = 0.65,
    resilience: float = 0.8,
    growth: float = 1.0,
    mentoring: float = 0.0,
    arrived: int | None = None,
    contract_end: int | None = None,
) -> Person:
    """Add an active lab member with the given hidden traits (ids follow §13 prefixes)."""
    s = w.s
    pid = s.next_id(PREFIX[role])
    if skill is None:
        skill = 0.35 + 0.30 * ability
    if role == "postdoc" and contract_end is None:
        contract_end = s.month + 24
    p = Person(
        id=pid,
        name=f"Test {pid}",
        role=role,
        arrived_month=s.month if arrived is None else arrived,
        ability=ability,
        speed=speed,
        resilience=resilience,
        independence=independence,
        growth=growth,
        skill=skill,
        morale=morale,
        stipend=getattr(w.cfg, PAY[role]),
        mentoring=mentoring,
        contract_end=contract_end,
    )
    s.people[pid] = p
    return p


def add_project(
    w: World,
    members: list[str],
    *,
    topic: str = "reasoning",
    tier: int = 2,
    compute: float = 0.0,
    feasible: bool = True,
    novelty: float = 1.0,
    progress: float = 0.0,
) -> Project:
    """Add an active project bypassing the API (no feasibility/novelty draw)."""
    s = w.s
    pid = s.next_id("PJ")
    pj = Project(
        id=pid,
        topic=topic,
        tier=tier,
        members=list(members),
        compute=float(compute),
        started_month=s.month,
        work=float(w.cfg.tiers[str(tier)]["work"]),
        feasible=feasible,
        novelty=novelty,
        progress=progress,
    )
    s.projects[pid] = pj
    return pj


def replace_cfg(w: World, **changes) -> None:
    """Swap in a modified config on a built world (the config is a frozen dataclass)."""
    w.cfg = dataclasses.replace(w.cfg, **changes)
