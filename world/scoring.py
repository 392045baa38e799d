"""Impact = citations earned + a deterministic 36-month projection (MECHANICS §12)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .config import TOPIC_INDEX
from .field import hotness
from .numbers import round1, round2
from .papers import citation_rates

if TYPE_CHECKING:  # pragma: no cover
    from .engine import World
    from .state import Publication


def earned(w: World) -> int:
    """Σ citations drawn so far over all publications."""
    return sum([p.citations for p in w.s.publications.values()])


def _projected_rates(w: World) -> Iterator[tuple[Publication, list[float]]]:
    """Each paper published by T with its expected citations in months T+1..T+36 (§12)."""
    s, cfg = w.s, w.cfg
    t = s.month
    h = hotness(w, t)
    for pub in s.publications.values():
        if pub.published_month > t:
            continue
        hk = h[TOPIC_INDEX[pub.topic]]
        yield pub, citation_rates(w, pub, range(t + 1, t + cfg.projection_months + 1), hk, s.reputation, s.alumni)


def projection(w: World) -> float:
    """Expected citations over months T+1..T+36 of papers published by T (§12).

    T is the current month; hotness frozen at H(T), reputation and alumni frozen at their
    current values. 0 after a collapse.
    """
    if w.s.collapsed:
        return 0.0
    total = 0.0
    for _pub, rates in _projected_rates(w):
        for r in rates:
            total += r
    return total


def projection_by_paper(w: World) -> dict[str, float]:
    """Publication id → its share of :func:`projection` (expected citations, §12); 0.0 each after a collapse."""
    if w.s.collapsed:
        return {p.id: 0.0 for p in w.s.publications.values() if p.published_month <= w.s.month}
    return {pub.id: sum(rates) for pub, rates in _projected_rates(w)}


def impact(w: World) -> dict[str, float]:
    """Impact split as ``{"total", "earned", "projection"}``, each rounded to 0.1 (§12)."""
    e = earned(w)
    p = projection(w)
    return {"total": round1(e + p), "earned": float(e), "projection": round1(p)}


def h_index(citations: list[int]) -> int:
    """The h-index of a list of citation counts."""
    h = 0
    for i, c in enumerate(sorted(citations, reverse=True), start=1):
        if c >= i:
            h = i
    return h


def summary(w: World) -> dict[str, Any]:
    """The end-of-career summary of §12 (also valid mid-career)."""
    s = w.s
    pubs = [p for p in s.publications.values() if p.published_month <= s.month]
    imp = impact(w)
    return {
        "seed": w.seed,
        "months_survived": s.collapse_month if s.collapsed else (s.month if s.finished else s.month - 1),
        "collapsed": s.collapsed,
        "collapse_month": s.collapse_month,
        "impact": imp["total"],
        "citations": imp["earned"],
        "projected": imp["projection"],
        "h_index": h_index([p.citations for p in pubs]),
        "publications": len(pubs),
        "top_publications": sum(1 for p in pubs if p.venue == "NAIC"),
        "grants_won": len(s.awards),
        "grant_dollars": float(sum(a.total for a in s.awards.values())),
        "students_graduated": sum(1 for p in s.people.values() if p.status == "graduated"),
        "students_quit": sum(1 for p in s.people.values() if p.status == "quit"),
        "hires": sum(1 for p in s.people.values() if p.role in ("phd", "postdoc")),
        "final_budget": round2(s.budget),
        "final_reputation": round(s.reputation, 3),
    }
