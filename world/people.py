"""People: applicant pools, offers, PhD students, postdocs, staff, attention (MECHANICS §3, §5)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from .config import POOLS
from .kinds import PersonStatus, Role, StaffRole
from .numbers import round2
from .rules import OFFER_MONTHS
from .state import Applicant, Person, Posting, Project

if TYPE_CHECKING:  # pragma: no cover
    from .config import WorldConfig
    from .engine import World

_FIRST = (
    "Ada",
    "Bo",
    "Chen",
    "Dara",
    "Eli",
    "Farah",
    "Goran",
    "Hana",
    "Ivo",
    "Jun",
    "Kemal",
    "Lena",
    "Mira",
    "Nico",
    "Oya",
    "Pavel",
    "Qi",
    "Rosa",
    "Sami",
    "Tomas",
    "Uma",
    "Vera",
    "Wen",
    "Xavi",
    "Yara",
    "Zeno",
    "Amir",
    "Bea",
    "Caio",
    "Dev",
    "Esme",
    "Femi",
    "Gita",
    "Hugo",
    "Ines",
    "Jonas",
)
_LAST = (
    "Abara",
    "Berg",
    "Costa",
    "Dahl",
    "Ekwueme",
    "Fischer",
    "Garcia",
    "Hoang",
    "Ito",
    "Jensen",
    "Kaur",
    "Lindqvist",
    "Moreau",
    "Nakamura",
    "Okafor",
    "Petrov",
    "Quispe",
    "Rossi",
    "Sato",
    "Tanaka",
    "Usman",
    "Varga",
    "Weber",
    "Xu",
    "Yilmaz",
    "Zhou",
    "Alvarez",
    "Banerjee",
    "Cohen",
    "Dubois",
    "Eriksen",
    "Farouk",
    "Gupta",
    "Haddad",
    "Ivanova",
    "Kowalski",
)

RESEARCHER_ROLES: tuple[Role, ...] = ("phd", "postdoc")


def _name(gen: np.random.Generator) -> str:
    return f"{_FIRST[int(gen.integers(len(_FIRST)))]} {_LAST[int(gen.integers(len(_LAST)))]}"


def taken_names(w: World) -> set[str]:
    """The names of every applicant and lab member of this world (for :func:`unique_name`)."""
    s = w.s
    return {a.name for a in s.applicants.values()} | {p.name for p in s.people.values()}


def unique_name(w: World, name: str, taken: set[str] | None = None) -> str:
    """``name`` if no applicant or lab member of this world has it yet, else the next unused
    name of the fixed list (last names first, then first names, wrapping around).

    Names are drawn first and made unique afterwards, without any random draw, so every
    stream of world/rng.py and every outcome stays as it was; only a name that would have
    repeated within the world changes. ``taken`` is :func:`taken_names` if the caller has
    it already (it is not modified).
    """
    if taken is None:
        taken = taken_names(w)
    if name not in taken:
        return name
    first, last = name.split(" ", 1)
    i, j = _FIRST.index(first), _LAST.index(last)
    n_first, n_last = len(_FIRST), len(_LAST)
    start = i * n_last + j
    for k in range(1, n_first * n_last):
        idx = (start + k) % (n_first * n_last)
        cand = f"{_FIRST[idx // n_last]} {_LAST[idx % n_last]}"
        if cand not in taken:
            return cand
    return name  # every combination is taken (more than 1,296 people): repeat


def season_year(month: int) -> int:
    """Season year y (0-based) of month m: months 12y+1..12y+12 (§5)."""
    return (month - 1) // 12


def in_offer_season(month: int) -> bool:
    """Offers are allowed while m mod 12 ∈ {1, 2, 3} (``rules.OFFER_MONTHS``) (§5)."""
    return month % 12 in OFFER_MONTHS


# ---------------------------------------------------------------------------------- counts
def active_people(w: World, roles: tuple[Role, ...] | None = None) -> list[Person]:
    """Active lab members in creation order, optionally of the given roles."""
    people = w.s.people.values()
    if roles is None:
        return [p for p in people if p.status == "active"]
    return [p for p in people if p.status == "active" and p.role in roles]


def count_active(w: World, roles: tuple[str, ...]) -> int:
    """How many active lab members have one of ``roles`` (``len(active_people(w, roles))``)."""
    n = 0
    for p in w.s.people.values():
        if p.status == "active" and p.role in roles:
            n += 1
    return n


def researcher_commitments(w: World) -> int:
    """Researchers counted against the cap of 12 (Decisions §1).

    Active PhD students and postdocs + outstanding offers + accepted PhDs not yet arrived +
    unresolved postdoc postings.
    """
    s = w.s
    n = len(active_people(w, RESEARCHER_ROLES))
    n += sum(1 for a in s.applicants.values() if a.status in ("offered", "accepted"))
    n += sum(1 for p in s.postings.values() if p.status == "open")
    return n


# ---------------------------------------------------------------------------------- attention
def oversight_hours(cfg: WorldConfig, researchers: int, ras: int, managers: int) -> float:
    """Oversight hours: per × (#PhD+postdoc) + 1.5 × #RAs, per = max(1, 4 − 2 × #managers) (§3)."""
    per = cfg.oversight_per_researcher - cfg.oversight_manager_relief * managers
    lo = cfg.oversight_min_per_researcher
    return (per if per > lo else lo) * researchers + cfg.oversight_per_ra * ras  # max(lo, per), without the call


def oversight_tax(w: World) -> float:
    """:func:`oversight_hours` of the lab's active members (§3)."""
    return attention_totals(w)[0]


def attention_pool(w: World, oversight: float | None = None) -> float:
    """Hours available this month: base − oversight − service tax, floored (§3).

    Args:
        w: the world.
        oversight: the oversight tax if already computed (hours), else it is computed.
    """
    cfg = w.cfg
    if oversight is None:
        oversight = oversight_tax(w)
    if cfg.unlimited_attention:
        return cfg.attention_unlimited_base - oversight
    pool = cfg.attention_base - oversight
    if w.s.month % 12 == cfg.service_tax_month:
        pool -= cfg.service_tax_hours
    floor = cfg.attention_floor
    return pool if pool > floor else floor  # max(floor, pool), without the call


def mentoring_reserved(w: World) -> float:
    """Σ standing mentoring hours of active people (§3)."""
    reserved: float = sum([p.mentoring for p in w.s.people.values() if p.status == "active"])
    return reserved


def attention_totals(w: World) -> tuple[float, float, float]:
    """``(oversight_tax(w), attention_pool(w), mentoring_reserved(w))``, hours (§3), from one
    walk over the active lab members: their head counts by role for :func:`oversight_hours`,
    and their standing mentoring hours in creation order (the same sum of the same list as
    :func:`mentoring_reserved`)."""
    researchers = ras = managers = 0
    hours = []
    for p in w.s.people.values():
        if p.status != "active":
            continue
        hours.append(p.mentoring)
        role = p.role
        if role in RESEARCHER_ROLES:
            researchers += 1
        elif role == "ra":
            ras += 1
        elif role == "manager":
            managers += 1
    oversight = oversight_hours(w.cfg, researchers, ras, managers)
    reserved: float = sum(hours)
    return oversight, attention_pool(w, oversight), reserved


def attention_left(w: World) -> float:
    """Pool − mentoring − one-off hours used this month (may be negative after a hire) (§3)."""
    return attention_pool(w) - mentoring_reserved(w) - w.s.oneoff_used


def spend_attention(w: World, hours: float) -> None:
    """Charge one-off PI hours to this month (§3); the caller has checked they are left."""
    w.s.oneoff_used += hours


def set_mentoring(w: World, hours: dict[str, float]) -> None:
    """Set standing monthly mentoring hours ``{person id: h}``; others keep theirs (§3, §5).

    The caller has checked the ids (active people), the range and the attention pool.
    """
    for pid, h in hours.items():
        w.s.people[pid].mentoring = h


def rescale_mentoring(w: World) -> None:
    """At month open: shrink every mentoring allocation if the total no longer fits (§3)."""
    _, pool, total = attention_totals(w)
    if total <= 0:
        return
    available = pool - w.s.oneoff_used
    if total > available:
        factor = max(0.0, available) / total
        for p in active_people(w):
            if p.mentoring:
                p.mentoring = round2(p.mentoring * factor)


# ---------------------------------------------------------------------------------- pools
def generate_pool(w: World, m: int) -> None:
    """Generate the applicant pool at the open of month 12y+1 (§5).

    Every pool always draws its 12 candidates from the generator keyed by the year, so
    reputation changes only how many are revealed (keyed by year×pool), never who exists.
    """
    cfg, s = w.cfg, w.s
    y = season_year(m)
    lift = min(cfg.alumni_lift_cap, cfg.alumni_lift * s.alumni)
    gen = w.rng.keyed("applicants", y)
    n = cfg.pool_candidates
    # Every candidate's draws, pool by pool in a fixed order; only the revealed ones are then
    # made into applicants (a candidate's values depend on its own draws only). A pool draws,
    # n values each: ability ~ N, speed ~ N, resilience ~ U, independence ~ U, growth ~ N,
    # transcript, letter and interview noise ~ N, then first and last names. numpy computes
    # N(loc, sd) as loc + sd × (a standard normal) and U(a, b) as a + (b − a) × (a uniform
    # double), element by element in draw order, so the raw draws are taken in four calls
    # (the two normals, the two uniforms, the four normals, the names) and scaled below for
    # the revealed candidates alone: the same IEEE operations on the same draws, the same
    # floats (tests/world/test_mech_s5_people.py compares with the nine numpy calls).
    drawn: dict[str, tuple[list[float], list[float], list[float], list[int]]] = {}
    standard_normal, random, integers = gen.standard_normal, gen.random, gen.integers
    for pool in POOLS:
        z_ab_sp = standard_normal(2 * n).tolist()
        u_re_ind = random(2 * n).tolist()
        z_rest = standard_normal(4 * n).tolist()
        if len(_FIRST) == len(_LAST):
            # first names then last names from one call: the same bounded 32-bit draws in the
            # same order as two calls of n (numpy fills element by element, and PCG64 keeps
            # its spare 32-bit half between calls)
            names = integers(len(_FIRST), size=2 * n).tolist()
        else:
            names = integers(len(_FIRST), size=n).tolist() + integers(len(_LAST), size=n).tolist()
        drawn[pool] = (z_ab_sp, u_re_ind, z_rest, names)
    boost = cfg.pool_boost if y in s.boosted_years else 1.0
    amin, amax = cfg.ability_min, cfg.ability_max
    gmin = cfg.growth_min
    sp_mean, sp_sd = cfg.applicant_speed_mean, cfg.applicant_speed_sd
    re_lo, re_span = cfg.applicant_resilience_low, cfg.applicant_resilience_high - cfg.applicant_resilience_low
    ind_lo, ind_span = (
        cfg.applicant_independence_low,
        cfg.applicant_independence_high - cfg.applicant_independence_low,
    )
    gr_mean, gr_sd, iv_sd = cfg.applicant_growth_mean, cfg.applicant_growth_sd, cfg.interview_noise_sd
    if not (math.isfinite(re_span) and math.isfinite(ind_span)):  # numpy's uniform refused these
        raise OverflowError("applicant resilience/independence range: high - low is not finite")
    revealed: list[dict[str, Any]] = []
    for pool in POOLS:
        pp = cfg.pools[pool]
        lam = (
            pp["volume"] * (1.0 + cfg.pool_reputation_volume * max(0.0, s.reputation - cfg.reputation_baseline)) * boost
        )
        k = min(cfg.pool_max_revealed, int(w.rng.keyed("pool_count", y, pool).poisson(lam)), n)
        bias = pp["letter_bias"]
        ab_mean, ab_sd = pp["ability_mean"] + lift, pp["ability_sd"]
        tn_sd, ln_sd = pp["transcript_noise"], pp["letter_noise"]
        z_ab_sp, u_re_ind, z_rest, names = drawn[pool]
        # np.clip's and np.maximum's results are min(hi, max(lo, v)) and max(lo, v) for these
        # never-NaN draws; the arithmetic on Python floats is the same IEEE arithmetic as numpy's.
        # The clamps are conditional expressions (max(lo, v) is v only if v > lo, min(hi, x) is
        # x only if x < hi): the same floats without the calls
        for i in range(k):
            ab = ab_mean + ab_sd * z_ab_sp[i]
            ab = ab if ab > amin else amin
            ab = ab if ab < amax else amax
            gr = gr_mean + gr_sd * z_rest[i]
            tr = ab + (0.0 + tn_sd * z_rest[n + i])
            le = ab + bias + (0.0 + ln_sd * z_rest[2 * n + i])
            iv = ab + (0.0 + iv_sd * z_rest[3 * n + i])
            revealed.append(
                {
                    "ability": ab,
                    "speed": sp_mean + sp_sd * z_ab_sp[n + i],
                    "resilience": re_lo + re_span * u_re_ind[i],
                    "independence": ind_lo + ind_span * u_re_ind[n + i],
                    "growth": gr if gr > gmin else gmin,
                    "transcript": round2((tr if tr < 1.0 else 1.0) if tr > 0.0 else 0.0),
                    "letter": round2((le if le < 1.0 else 1.0) if le > 0.0 else 0.0),
                    "interview_score": round2((iv if iv < 1.0 else 1.0) if iv > 0.0 else 0.0),
                    "name": f"{_FIRST[names[i]]} {_LAST[names[n + i]]}",
                    "pool": pool,
                }
            )
    order = w.rng.keyed("shuffle", y).permutation(len(revealed)).tolist() if revealed else []
    taken = taken_names(w)
    for idx in order:
        row = revealed[idx]
        aid = s.next_id("APP")
        row["name"] = name = unique_name(w, row["name"], taken)
        taken.add(name)
        s.applicants[aid] = Applicant(id=aid, season_year=y, **row)


def resolve_offers(w: World, m: int) -> None:
    """Tick of m ≡ 3: offered candidates accept or decline; pending ones expire (§5)."""
    cfg, s = w.cfg, w.s
    y = season_year(m)
    for a in s.applicants.values():
        if a.season_year != y:
            continue
        if a.status == "offered":
            pp = cfg.pools[a.pool]
            p = min(
                cfg.offer_p_max,
                max(
                    cfg.offer_p_min, pp["accept_base"] + pp["accept_per_rep"] * (s.reputation - cfg.reputation_baseline)
                ),
            )
            a.status = "accepted" if float(w.rng.keyed("offer", a.id).random()) < p else "declined"
            w.note_fact("offers", {"applicant_id": a.id, "name": a.name, "pool": a.pool, "outcome": a.status})
        elif a.status == "pending":
            a.status = "expired"
            w.note_fact("offers", {"applicant_id": a.id, "name": a.name, "pool": a.pool, "outcome": "expired"})


def phd_arrivals(w: World, m: int) -> None:
    """Tick of m ≡ 4: accepted candidates join as PhD students arriving in month m+1 (§5)."""
    cfg, s = w.cfg, w.s
    y = season_year(m)
    for a in s.applicants.values():
        if a.season_year == y and a.status == "accepted":
            pid = s.next_id("S")
            s.people[pid] = Person(
                id=pid,
                name=a.name,
                role="phd",
                arrived_month=m + 1,
                ability=a.ability,
                speed=a.speed,
                resilience=a.resilience,
                independence=a.independence,
                growth=a.growth,
                skill=cfg.phd_skill_base + cfg.phd_skill_per_ability * a.ability,
                morale=cfg.initial_morale,
                stipend=cfg.pay_phd,
                pool=a.pool,
                applicant_id=a.id,
            )
            a.status = "joined"
            w.eval_event("hire", pid)
            w.note_fact("arrivals", {"id": pid, "name": a.name, "role": "phd", "arrived_month": m + 1})
            w.add_news("lab", None, f"{a.name} joined the lab as a PhD student.")


# ---------------------------------------------------------------------------------- postdocs
def resolve_postings(w: World, m: int) -> None:
    """Postdoc searches due at this tick (posting month + 2) fill or fail (§5)."""
    cfg, s = w.cfg, w.s
    for post in s.postings.values():
        if post.status != "open" or post.resolve_month != m:
            continue
        if len(active_people(w, RESEARCHER_ROLES)) >= cfg.researcher_cap:
            post.status = "paused"
            w.note_fact("postdoc_searches", {"posting_id": post.id, "outcome": "paused", "postdoc_id": None})
            w.add_news("lab", None, f"Postdoc search {post.id} {SEARCH_NEWS['paused']}; the fee is lost.")
            continue
        p = min(
            cfg.postdoc_fill_max,
            cfg.postdoc_fill_base + cfg.postdoc_fill_per_rep * (s.reputation - cfg.reputation_baseline),
        )
        gen = w.rng.keyed("posting", post.id)
        u = float(gen.random())
        a = min(
            cfg.postdoc_ability_max,
            max(cfg.postdoc_ability_min, float(gen.normal(cfg.postdoc_ability_mean, cfg.postdoc_ability_sd))),
        )
        speed = float(gen.normal(cfg.postdoc_speed_mean, cfg.postdoc_speed_sd))
        resilience = float(gen.uniform(cfg.postdoc_resilience_low, cfg.postdoc_resilience_high))
        independence = float(gen.uniform(cfg.postdoc_independence_low, cfg.postdoc_independence_high))
        growth = max(cfg.growth_min, float(gen.normal(cfg.postdoc_growth_mean, cfg.postdoc_growth_sd)))
        name = _name(gen)
        if u >= p:
            post.status = "unfilled"
            w.note_fact("postdoc_searches", {"posting_id": post.id, "outcome": "unfilled", "postdoc_id": None})
            w.add_news("lab", None, f"Postdoc search {post.id} {SEARCH_NEWS['unfilled']}.")
            continue
        pid = s.next_id("PD")
        name = unique_name(w, name)
        s.people[pid] = Person(
            id=pid,
            name=name,
            role="postdoc",
            arrived_month=m,
            ability=a,
            speed=speed,
            resilience=resilience,
            independence=independence,
            growth=growth,
            skill=cfg.postdoc_skill_base + cfg.postdoc_skill_per_ability * a,
            morale=cfg.initial_morale,
            stipend=cfg.pay_postdoc,
            contract_end=m + cfg.postdoc_contract_months,
        )
        post.status = "filled"
        post.person_id = pid
        w.eval_event("hire", pid)
        w.note_fact("postdoc_searches", {"posting_id": post.id, "outcome": "filled", "postdoc_id": pid})
        w.note_fact("arrivals", {"id": pid, "name": name, "role": "postdoc", "arrived_month": m})
        w.add_news(
            "lab",
            None,
            f"Postdoc search {post.id} filled: {name} ({pid}) joins on a {cfg.postdoc_contract_months}-month contract.",
        )


# ---------------------------------------------------------------------------------- staff
def hire_staff(w: World, role: StaffRole) -> Person:
    """Hire an RA or a lab manager now (keyed by the hire counter) (§5)."""
    cfg, s = w.cfg, w.s
    s.hire_counter += 1
    gen = w.rng.keyed("hire", s.hire_counter)
    if role == "ra":
        pid = s.next_id("RA")
        ability = float(gen.uniform(cfg.ra_ability_low, cfg.ra_ability_high))
        speed = float(gen.normal(cfg.ra_speed_mean, cfg.ra_speed_sd))
        name = unique_name(w, _name(gen))
        person = Person(
            id=pid,
            name=name,
            role="ra",
            arrived_month=s.month,
            ability=ability,
            speed=speed,
            resilience=cfg.ra_resilience,
            independence=cfg.ra_independence,
            growth=0.0,
            skill=cfg.ra_skill,
            morale=cfg.ra_morale,
            stipend=cfg.pay_ra,
        )
    else:
        pid = s.next_id("MGR")
        name = unique_name(w, _name(gen))
        person = Person(
            id=pid,
            name=name,
            role="manager",
            arrived_month=s.month,
            ability=0.0,
            speed=1.0,
            resilience=1.0,
            independence=1.0,
            growth=0.0,
            skill=0.0,
            morale=0.7,
            stipend=cfg.pay_manager,
        )
    s.people[pid] = person
    return person


def dismiss_staff(w: World, p: Person) -> None:
    """Dismiss an active RA or lab manager: they leave at this month's tick, paid for it (Decisions §1)."""
    p.dismiss_at_tick = True


def apply_dismissals(w: World, m: int) -> None:
    """Dismissals take effect at the tick, after this month's pay (Decisions §1)."""
    left: set[str] = set()
    for p in w.s.people.values():
        if p.status == "active" and p.dismiss_at_tick:
            _depart(p, "dismissed", m)
            left.add(p.id)
    w.remove_all_from_projects(left)


# ---------------------------------------------------------------------------------- monthly step
def quit_probability(cfg: WorldConfig, morale: float) -> float:
    """Monthly quit hazard min(0.25, 0.5 σ(−(morale − 0.35)/0.07)) (§5)."""
    z = -(morale - cfg.quit_center) / cfg.quit_scale
    sig = 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0
    p = cfg.quit_p_scale * sig
    return p if p < cfg.quit_p_max else cfg.quit_p_max  # min(quit_p_max, p), without the call


def researcher_step(w: World, m: int) -> None:
    """Tick step 7 (§5 "Researchers' monthly step"): each active PhD and postdoc in turn grows
    in skill, takes the month's morale, writes the monthly report, then may leave (quit,
    contract end, graduation); who leaves is taken off their projects in one pass at the end.
    Staff have no morale dynamics: their queued impulses are dropped."""
    researchers = _researchers_dropping_staff_impulses(w)
    if not researchers:
        return
    cfg = w.cfg
    n_projects = active_memberships(w.s.projects.values())
    mean_morale = sum(p.morale for p in researchers) / len(researchers)  # before this month's updates
    stress = runway_stress(w)
    reports = w.s.student_reports
    left: set[str] = set()
    for p in researchers:
        n = n_projects.get(p.id, 0)
        grow_skill(cfg, p, n)
        p.morale = new_morale(cfg, p, n, mean_morale, stress)
        p.impulse = 0.0
        z_report, z_sentiment, u_quit = _person_month_draws(w, p.id, m)
        reports.append([p.id, m, *monthly_report(cfg, p, z_report, z_sentiment)])
        if _leaves(w, p, m, u_quit):
            left.add(p.id)
    w.remove_all_from_projects(left)


def _researchers_dropping_staff_impulses(w: World) -> list[Person]:
    """The active PhDs and postdocs in id order; an active staff member's queued impulse is
    dropped on the way (staff have no morale dynamics, §5)."""
    researchers = []
    for p in w.s.people.values():
        if p.status == "active":
            if p.role in RESEARCHER_ROLES:
                researchers.append(p)
            else:
                p.impulse = 0.0
    return researchers


def active_memberships(projects: Iterable[Project]) -> dict[str, int]:
    """n_i of §6: how many active projects list each person (a duplicate listing counts twice)."""
    counts: dict[str, int] = {}
    for pj in projects:
        if pj.status == "active":
            for pid in pj.members:
                counts[pid] = counts.get(pid, 0) + 1
    return counts


def runway_stress(w: World) -> bool:
    """Runway stress of §5: 0 < budget < ``runway_stress_months`` × max(1, burn)."""
    burn = w.burn_rate()
    return 0.0 < w.s.budget < w.cfg.runway_stress_months * (burn if burn > 1.0 else 1.0)  # max(1.0, burn)


def grow_skill(cfg: WorldConfig, p: Person, n_projects: int) -> None:
    """Skill growth of §5 for a researcher on ``n_projects`` active projects: on at least one,
    skill += 0.012 × growth × (1 + 1.2 × min(mentor h, 8)/8), capped at 1.2."""
    if n_projects >= 1:
        # min(a, b) is b only if b < a: conditional expressions, the same floats without the calls
        mentor_hours = cfg.skill_mentor_hours
        mentoring = p.mentoring
        gain = 1.0 + cfg.skill_mentor_gain * (mentor_hours if mentor_hours < mentoring else mentoring) / mentor_hours
        skill = p.skill + cfg.skill_growth * p.growth * gain
        cap = cfg.skill_cap
        p.skill = skill if skill < cap else cap


def new_morale(cfg: WorldConfig, p: Person, n_projects: int, mean_morale: float, stress: bool) -> float:
    """This month's morale of §5: the queued impulse, overload, neglect, runway stress and the
    pull towards the lab's mean morale make I; clip(x + 0.06(0.70 − x) + I, 0, 1)."""
    impulse = p.impulse
    if n_projects > cfg.overload_projects:
        impulse += cfg.overload_impulse
    if p.mentoring < cfg.neglect_hours:
        impulse += cfg.neglect_impulse * (1.0 - p.independence)
    if stress:
        impulse += cfg.runway_stress_impulse
    morale = p.morale
    impulse += cfg.peer_morale_rate * (mean_morale - morale)
    x = morale + cfg.morale_reversion * (cfg.morale_target - morale) + impulse
    x = x if x > 0.0 else 0.0  # max(0.0, x) and min(1.0, x) below, without the calls
    return x if x < 1.0 else 1.0


def _person_month_draws(w: World, pid: str, m: int) -> tuple[float, float, float]:
    """The person's draws of month ``m`` (§13, keyed by person and month), in their order:
    the report's and the sentiment's standard normals, then the quit uniform."""
    gen = w.rng.keyed_text(f"person_month|{pid}|{m}")
    # numpy's gen.normal(0.0, sd) is 0.0 + sd × a standard normal: both drawn in one call, the
    # same draws in the same order (monthly_report scales them)
    z_report, z_sentiment = gen.standard_normal(2).tolist()
    return z_report, z_sentiment, gen.random()  # a scalar draw is a Python float


def monthly_report(cfg: WorldConfig, p: Person, z_report: float, z_sentiment: float) -> tuple[float, float | None]:
    """The monthly report of §5 from the new morale: report quality max(0, skill × ability ×
    (0.6 + 0.4 morale) + N(0, 0.15)) and the meeting sentiment clip(morale + N(0, 0.18), 0, 1)
    (``None`` under ``sentiment_min_hours`` of mentoring), both to 2 dp; ``z_*`` are the
    standard normals of :func:`_person_month_draws`."""
    morale = p.morale
    noise = 0.0 + cfg.report_noise_sd * z_report
    # max(0.0, x) and min(1.0, x) as conditional expressions: the same floats without the calls
    x = p.skill * p.ability * (cfg.report_morale_base + cfg.report_morale_gain * morale) + noise
    report = round2(x if x > 0.0 else 0.0)
    if p.mentoring < cfg.sentiment_min_hours:
        return report, None
    x = morale + (0.0 + cfg.sentiment_noise_sd * z_sentiment)
    x = x if x > 0.0 else 0.0
    return report, round2(x if x < 1.0 else 1.0)


def _leaves(w: World, p: Person, m: int, u_quit: float) -> bool:
    """Whether the researcher leaves at this tick, checked in §5's order: quit (``u_quit``
    against :func:`quit_probability`), postdoc contract end, PhD graduation."""
    if u_quit < quit_probability(w.cfg, p.morale):
        _quit(w, p, m)
    elif p.role == "postdoc" and p.contract_end is not None and m >= p.contract_end:
        _end_contract(w, p, m)
    elif graduates(w.cfg, p, m):
        _graduate(w, p, m)
    else:
        return False
    return True


def graduates(cfg: WorldConfig, p: Person, m: int) -> bool:
    """A PhD graduates at month ≡ 5 (mod 12) after 48 months in the lab with 2 accepted papers (§5)."""
    return (
        p.role == "phd"
        and m % 12 == cfg.graduation_month
        and m - p.arrived_month >= cfg.graduation_min_months
        and p.papers_accepted >= cfg.graduation_min_papers
    )


SEARCH_NEWS: dict[str, str] = {"unfilled": "ended without a hire", "paused": "paused: the lab is at its researcher cap"}
"""The words of the lab news that tell how a postdoc search ended (§5), by outcome; the
explanations (``world.explain``) find the outcomes by them."""


def _depart(p: Person, status: PersonStatus, m: int) -> None:
    """Mark a person gone at month ``m`` with ``status``; their mentoring hours are freed."""
    p.status = status
    p.left_month = m
    p.mentoring = 0.0


def _quit(w: World, p: Person, m: int) -> None:
    """A researcher quits (§5): lab news and the eval log's quit event."""
    _depart(p, "quit", m)
    w.eval_event("quit", p.id)
    w.note_fact("quits", {"id": p.id, "name": p.name, "role": p.role})
    w.add_news("lab", None, f"{p.name} ({p.id}) quit the lab.")


def _end_contract(w: World, p: Person, m: int) -> None:
    """A postdoc's contract ends (§5): no news."""
    _depart(p, "contract_ended", m)
    w.note_fact("contracts_ended", {"id": p.id, "name": p.name})


def _graduate(w: World, p: Person, m: int) -> None:
    """A PhD graduates (§5): a one-off reputation impulse, one more alumnus, lab news."""
    _depart(p, "graduated", m)
    w.reputation_impulse("graduation", w.cfg.graduation_reputation)
    w.s.alumni += 1
    w.note_fact("graduations", {"id": p.id, "name": p.name})
    w.add_news("lab", None, f"{p.name} ({p.id}) graduated.")


# ---------------------------------------------------------------------------------- recruiting actions
def boost_next_season(w: World) -> None:
    """An accepted talk or a conference trip boosts next season-year's pool (§5, §11)."""
    y = season_year(w.s.month) + 1
    if y not in w.s.boosted_years:
        w.s.boosted_years.append(y)


def interview(w: World, new: list[Applicant]) -> None:
    """Interview applicants not interviewed before: ``interview_hours`` each, charged at once (§5)."""
    spend_attention(w, w.cfg.interview_hours * len(new))
    for a in new:
        a.interviewed = True


def make_offer(w: World, a: Applicant) -> None:
    """Send a PhD offer to a pending applicant; it is answered at the tick of month ≡ 3 (§5)."""
    a.status = "offered"


def post_postdoc_search(w: World) -> Posting:
    """Open a postdoc search now: pay the fee, resolve ``postdoc_search_months`` later (§5)."""
    s, cfg = w.s, w.cfg
    pid = s.next_id("PDsearch")
    post = Posting(id=pid, month=s.month, resolve_month=s.month + cfg.postdoc_search_months)
    s.postings[pid] = post
    w.spend(-cfg.postdoc_search_fee, "recruiting", pid)
    return post


def renew_postdoc(w: World, p: Person) -> None:
    """Extend a postdoc's contract by ``postdoc_renewal_months`` (§5); the caller checked the window."""
    assert p.contract_end is not None  # every postdoc has a contract end
    p.contract_end += w.cfg.postdoc_renewal_months
