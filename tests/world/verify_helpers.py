"""Hand-made world states for the MECHANICS §7-§15 verification tests.

Tests build a real :class:`World`, then set fields of ``w.s`` directly, so each expected
value can be computed by hand from MECHANICS.md.
"""

from __future__ import annotations

from world.api import Api
from world.config import TOPICS, WorldConfig
from world.engine import World
from world.state import Draft, Person, Publication


def make_world(seed: int = 1, **cfg) -> tuple[World, Api]:
    """A fresh world (and its API) with optional config overrides."""
    w = World(WorldConfig.from_dict(cfg) if cfg else WorldConfig(), seed)
    return w, Api(w)


def flat_hotness(w: World, value: float | dict = 1.0) -> None:
    """Make every month's hotness equal (a number, or a {topic: H} dict)."""
    row = [float(value[t]) if isinstance(value, dict) else float(value) for t in TOPICS]
    w.s.trajectory = [list(row) for _ in w.s.trajectory]


def set_hotness(w: World, month: int, topic: str, value: float) -> None:
    """Set H_topic(month) (copying the row so other months are untouched)."""
    row = list(w.s.trajectory[month])
    row[TOPICS.index(topic)] = float(value)
    w.s.trajectory[month] = row


def add_person(
    w: World,
    role: str = "phd",
    *,
    resilience: float = 0.5,
    morale: float = 0.7,
    ability: float = 0.6,
    skill: float = 0.5,
    independence: float = 0.7,
    status: str = "active",
) -> Person:
    """Add a lab member with chosen traits under the next sequential id."""
    prefix = {"phd": "S", "postdoc": "PD", "ra": "RA", "manager": "MGR"}[role]
    pid = w.s.next_id(prefix)
    pay = {"phd": w.cfg.pay_phd, "postdoc": w.cfg.pay_postdoc, "ra": w.cfg.pay_ra, "manager": w.cfg.pay_manager}[role]
    p = Person(
        id=pid,
        name=f"Test {pid}",
        role=role,
        arrived_month=w.s.month,
        ability=ability,
        speed=1.0,
        resilience=resilience,
        independence=independence,
        growth=1.0,
        skill=skill,
        morale=morale,
        stipend=pay,
        status=status,
        contract_end=w.s.month + 24 if role == "postdoc" else None,
    )
    w.s.people[pid] = p
    return p


def add_draft(
    w: World,
    q: float = 5.0,
    *,
    topic: str = "reasoning",
    tier: int = 2,
    authors: list | None = None,
    collab: bool = False,
    status: str = "available",
    polish: float = 0.0,
) -> Draft:
    """Add a draft with latent quality ``q`` under the next sequential id."""
    did = w.s.next_id("D")
    d = Draft(
        id=did,
        project_id=None,
        topic=topic,
        tier=tier,
        q=q,
        created_month=w.s.month,
        authors=list(authors or []),
        collab=collab,
        status=status,
        polish_hours=polish,
    )
    w.s.drafts[did] = d
    return d


def add_publication(
    w: World,
    q: float = 5.0,
    *,
    venue: str = "NAIC",
    topic: str = "reasoning",
    tier: int = 2,
    published_month: int = 1,
    collab: bool = False,
) -> Publication:
    """Add a publication (and its accepted draft) with quality ``q``."""
    d = add_draft(w, q, topic=topic, tier=tier, collab=collab, status="accepted")
    pid = w.s.next_id("P")
    pub = Publication(
        id=pid,
        draft_id=d.id,
        venue=venue,
        topic=topic,
        tier=tier,
        q=q,
        authors=[],
        collab=collab,
        accepted_month=published_month,
        published_month=published_month,
    )
    w.s.publications[pid] = pub
    return pub


def advance(api: Api, n: int = 1) -> None:
    """Run ``n`` ticks through the API."""
    for _ in range(n):
        api.time.next_month()


def goto_month(w: World, m: int) -> None:
    """Jump the clock to month ``m`` without ticking (hand-made states only)."""
    w.s.month = m
    w.s.oneoff_used = 0.0
