"""Papers, review and citations (MECHANICS §7, §8)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .config import TOPIC_INDEX
from .field import hotness
from .kinds import DecisionOutcome
from .numbers import round1
from .people import spend_attention
from .state import Publication, Submission

if TYPE_CHECKING:  # pragma: no cover
    from .config import WorldConfig
    from .engine import World
    from .state import Draft


def q_eff(w: World, d: Draft) -> float:
    """Effective quality q + 0.5 × min(polish, 12)/12 (§7)."""
    return d.q_eff(w.cfg.polish_gain, w.cfg.polish_cap_hours)


def review(w: World, d: Draft, venue: str, submitted_month: int, m: int) -> tuple[float, list[float]]:
    """Review score and reviewer scores for a decision in month ``m`` (§7).

    Keyed by (draft, venue, submission month): score = q_eff + 0.35(H − 1) + 0.15(R − 2) +
    N(0, 0.5); reviewer_i = score + z_i − mean(z), rounded to 0.1.
    """
    cfg = w.cfg
    gen = w.rng.keyed("review", d.id, venue, submitted_month)
    noise = float(gen.normal(0.0, cfg.review_noise_sd))
    z = [float(x) for x in gen.normal(0.0, cfg.reviewer_noise_sd, size=cfg.reviewers)]
    h = hotness(w, m)[TOPIC_INDEX[d.topic]]
    score = (
        q_eff(w, d)
        + cfg.review_hotness * (h - 1.0)
        + cfg.review_reputation * (w.s.reputation - cfg.reputation_baseline)
        + noise
    )
    zbar = sum(z) / len(z)
    reviewers = [round1(score + zi - zbar) for zi in z]
    return score, reviewers


def decision_month(cfg: WorldConfig, venue: str, submitted_month: int) -> int:
    """The month a submission to ``venue`` made in ``submitted_month`` is decided (§7: the
    venue's decision delay after it). The world's submission sets ``Submission.decision_month``
    with it, and a front end may ask it for a submission not yet made.

    Raises:
        KeyError: ``venue`` is not one of ``cfg.venues``.
    """
    return submitted_month + int(cfg.venues[venue]["delay"])


def publication_month(cfg: WorldConfig, venue: str, decision_month: int) -> int:
    """The month a paper accepted at ``venue`` in ``decision_month`` is published (§7 Accept).

    Conference: decision + months to the venue's next deadline month (12 if 0) + 1 (with the
    standard deadlines always decision + 4); workshop/journal: the decision month. The world's
    acceptance sets ``Publication.published_month`` with it, and a front end may ask it for a
    submission not yet made. A paper published after the horizon (``cfg.months``) never earns
    citations or projection (§7, §8, §12).

    Raises:
        KeyError: ``venue`` is not one of ``cfg.venues``.
    """
    v = cfg.venues[venue]
    if not v["conference"]:
        return decision_month
    deadlines = v["deadlines"]
    gap: int = min(((dl - decision_month) % 12) for dl in deadlines)
    if gap == 0:
        gap = 12
    return decision_month + gap + 1


def last_useful_draft_month(cfg: WorldConfig) -> int:
    """The last month whose tick can still produce a draft that counts in the career: a draft
    made at the tick of month t (a completed project §6, a delivered collaboration §11) can be
    submitted in month t + 1 and decided at t + 1 + the shortest decision delay of
    ``cfg.venues`` (§7); only a decision by the horizon ``cfg.months`` can count (an
    acceptance's reputation impulse moves the final reputation, §10, §12). So
    ``cfg.months − 1 − min(decision delay)``: 58 with the standard venues (a workshop decides
    in 1 month). A draft made later, or a project started later (it completes at a tick no
    earlier than its start month's), provably adds nothing to Impact.
    """
    return cfg.months - 1 - min(int(v["delay"]) for v in cfg.venues.values())


def decisions_step(w: World, m: int) -> None:
    """Tick step 3: review decisions due this month (§7)."""
    cfg, s = w.cfg, w.s
    for sub in s.submissions.values():  # the loop adds publications, never submissions
        if sub.status != "under_review" or sub.decision_month != m:
            continue
        d = s.drafts[sub.draft_id]
        score, reviewers = review(w, d, sub.venue, sub.submitted_month, m)
        sub.score = score
        sub.reviewer_scores = reviewers
        sub.decided_month = m
        venue = cfg.venues[sub.venue]
        outcome: DecisionOutcome = "accept" if score >= venue["bar"] else "reject"
        w.note_fact(
            "decisions",
            {
                "submission_id": sub.id,
                "draft_id": d.id,
                "venue": sub.venue,
                "outcome": outcome,
                "reviewer_scores": list(reviewers),
            },
        )
        if score >= venue["bar"]:
            sub.status = "accept"
            d.status = "accepted"
            pid = s.next_id("P")
            s.publications[pid] = Publication(
                id=pid,
                draft_id=d.id,
                venue=sub.venue,
                topic=d.topic,
                tier=d.tier,
                q=q_eff(w, d),
                authors=list(d.authors),
                collab=d.collab,
                accepted_month=m,
                published_month=publication_month(cfg, sub.venue, m),
            )
            w.reputation_impulse(f"accept {sub.venue}", venue["reputation"])
            for i, aid in enumerate(d.authors):
                p = s.people.get(aid)
                if p is None:
                    continue
                p.papers_accepted += 1
                if i == 0:
                    p.first_author_accepted += 1
                if p.status == "active":  # a departed author's morale no longer matters
                    p.impulse += cfg.impulse_accept_first if i == 0 else cfg.impulse_accept_other
                w.dirty.add(("students", aid))
        else:
            sub.status = "reject"
            d.status = "available"
            if sub.venue not in d.rejected_venues:
                d.rejected_venues.append(sub.venue)
            for aid in d.authors:
                p = s.people.get(aid)
                if p is not None and p.status == "active":
                    p.impulse += cfg.impulse_reject / p.resilience


def citation_rate(w: World, pub: Publication, month: int, h: float, reputation: float, alumni: int) -> float:
    """Expected citations λ of ``pub`` in ``month`` (§8), given hotness, R and alumni
    (:func:`citation_rates` for one month)."""
    return citation_rates(w, pub, (month,), h, reputation, alumni)[0]


def citation_rates(
    w: World, pub: Publication, months: Iterable[int], h: float, reputation: float, alumni: int
) -> list[float]:
    """Expected citations λ of ``pub`` in each of ``months`` (§8), hotness, R and alumni held
    at the values given (the §12 projection's 36 months at once; the tick asks for one).

    λ = visibility × exp(slope × (q − center)) × h × ramp × decay × (1 + c_R (R − R₀)) ×
    (1 + c_A × alumni) [× the collaboration factor], at least 0, with ramp = min(1, (age + 1) /
    ramp months) and decay = 0.5^(max(0, age − decay start) / half-life), age = month −
    published month.
    """
    cfg = w.cfg
    venue = cfg.venues[pub.venue]
    # the factors that do not depend on the month, multiplied in the formula's order (left to right)
    base = venue["visibility"] * math.exp(cfg.citation_quality_slope * (pub.q - cfg.citation_quality_center)) * h
    rep = 1.0 + cfg.citation_reputation * (reputation - cfg.reputation_baseline)
    alum = 1.0 + cfg.alumni_citation_bonus * alumni
    ramp_months, decay_start, half_life = cfg.citation_ramp_months, cfg.citation_decay_start, venue["half_life"]
    collab = cfg.collab_citation_factor if pub.collab else None
    published = pub.published_month
    out = []
    # min(a, b) is b only if b < a, max(a, b) only if b > a: conditional expressions, the same
    # numbers (and types) without the calls
    for month in months:
        age = month - published
        ramp = (age + 1) / ramp_months
        ramp = ramp if ramp < 1.0 else 1.0
        late = age - decay_start
        lam: float = base * ramp * 0.5 ** ((late if late > 0.0 else 0.0) / half_life) * rep * alum
        if collab is not None:
            lam *= collab
        out.append(lam if lam > 0.0 else 0.0)
    return out


def citations_step(w: World, m: int) -> None:
    """Tick step 4: Poisson citations for every publication published by month ``m`` (§8),
    each drawn at its :func:`citation_rate`."""
    cfg, s = w.cfg, w.s
    if not s.publications:
        w.month_citations = 0
        return
    h = hotness(w, m)
    total = 0
    by_publication: dict[str, int] = {}
    keyed_text = w.rng.keyed_text
    reputation, alumni = s.reputation, s.alumni
    report = w.report
    for pub in s.publications.values():
        published = pub.published_month
        if published > m:
            continue
        if published == m and report is not None:
            report.publications.append(
                {
                    "publication_id": pub.id,
                    "draft_id": pub.draft_id,
                    "venue": pub.venue,
                    "topic": pub.topic,
                    "tier": pub.tier,
                }
            )
        lam = citation_rate(w, pub, m, h[TOPIC_INDEX[pub.topic]], reputation, alumni)
        # a draw only for a positive rate (a scalar Poisson draw is a Python int)
        n = keyed_text(f"citations|{pub.id}|{m}").poisson(lam) if lam > 0.0 else 0
        if n:
            pub.citations += n
            total += n
            s.citations_monthly.append([pub.id, m, n])
            by_publication[pub.id] = n
    w.month_citations = total
    if report is not None:
        report.citations["by_publication"] = by_publication
    if total:
        w.reputation_impulse("citations", cfg.citation_reputation_gain * math.log1p(total))


# ---------------------------------------------------------------------------------- the PI's actions on papers
def polish(w: World, d: Draft, hours: float) -> None:
    """Spend ``hours`` of PI attention polishing an available draft (§7); gains saturate in ``q_eff``."""
    spend_attention(w, hours)
    d.polish_hours += hours


def submit(w: World, d: Draft, venue: str) -> Submission:
    """Submit an available draft to ``venue`` (open this month); the decision comes ``delay`` months later (§7)."""
    s = w.s
    m = s.month
    sid = s.next_id("SUB")
    sub = Submission(
        id=sid, draft_id=d.id, venue=venue, submitted_month=m, decision_month=decision_month(w.cfg, venue, m)
    )
    s.submissions[sid] = sub
    d.status = "under_review"
    return sub


def revise_refusal(w: World, draft_id: str) -> str | None:
    """Why the PI may not revise the draft ``draft_id`` this month (§7: only an available draft
    that a venue has rejected, once a month), in the words ``papers.revise`` refuses with, or
    ``None`` when they may (the hours are checked apart). It reads only what the PI sees (the
    draft's status, its submissions' decisions, the month of its last revision), so a front end
    may ask it before offering to revise. A draft's departed authors do not matter (README
    design notes, issue 27 §2)."""
    d = w.s.drafts.get(draft_id)
    if d is None:
        return f"no draft {draft_id!r}"
    if d.status != "available":
        return f"{d.id} is {d.status.replace('_', ' ')}, not available; only available drafts can be revised"
    if not any(sub.draft_id == d.id and sub.status == "reject" for sub in w.s.submissions.values()):
        return f"{d.id} has not been rejected yet; only rejected drafts can be revised"
    if d.revised_month == w.s.month:
        return f"{d.id} was already revised this month; revise again next month"
    return None


def revise(w: World, d: Draft, hours: float) -> None:
    """Revise a rejected draft (§7): q += gain × min(h, cap)/cap × decay^revisions, at most q_max.

    Charges ``hours`` of PI attention; the caller checked the draft may be revised this month.
    """
    cfg = w.cfg
    spend_attention(w, hours)
    d.q = min(
        cfg.quality_max,
        d.q + cfg.revise_gain * min(hours, cfg.revise_cap_hours) / cfg.revise_cap_hours * cfg.revise_decay**d.revisions,
    )
    d.revisions += 1
    d.revised_month = w.s.month


def withdraw(w: World, sub: Submission) -> None:
    """Withdraw a submission under review; its draft is available again (§7)."""
    sub.status = "withdrawn"
    sub.decided_month = w.s.month
    w.s.drafts[sub.draft_id].status = "available"
