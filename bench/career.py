"""Career benchmarks (issue 2): prints figures, asserts nothing.

Run: ``python bench/career.py [--repeat N]``. Prints the median wall time of a 60-month
career for (a) the do-nothing lab, (b) a busy lab (hires to the cap, runs ten projects,
submits everything), (c) the baseline policy when ``world.policies`` provides it; the median
month tick of the busy lab; and the median ``query()`` time at month 60 for a join over
publications and citations.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from world.api import ActionError, Api  # noqa: E402
from world.config import TOPICS, WorldConfig  # noqa: E402
from world.engine import World  # noqa: E402


def do_nothing(seed: int) -> World:
    w = World(WorldConfig(), seed)
    api = Api(w)
    while not w.finished:
        api.time.next_month()
    return w


def busy(seed: int, ticks: list[float] | None = None) -> World:
    """A career that keeps the lab busy each month (offers, postdoc posts, projects, submissions,
    proposals); each tick's wall seconds appended to ``ticks``."""
    w = World(WorldConfig(), seed)
    api = Api(w)
    while not w.finished:
        d = api.lab.dashboard()
        m = d["month"]
        if m % 12 == 1:
            _offer_to_all(api)
        if m % 6 == 0:
            try:
                api.recruit.post_postdoc()
            except ActionError:
                pass
        _start_idle_pairs(api, d, m)
        _submit_drafts(api, d)
        _propose_to_open_calls(api, d)
        t0 = time.perf_counter()
        api.time.next_month()
        if ticks is not None:
            ticks.append(time.perf_counter() - t0)
    return w


def _offer_to_all(api: Api) -> None:
    """An offer to every applicant, until one is refused."""
    for a in api.recruit.applicants():
        try:
            api.recruit.offer(a["id"])
        except ActionError:
            break


def _start_idle_pairs(api: Api, d: dict, m: int) -> None:
    """Idle researchers in pairs start tier-2 projects, topic by month, up to 10 projects."""
    studs = [s["id"] for s in d["students"]]
    busy_ids = {x for p in d["active_projects"] for x in p["members"]}
    idle = [s for s in studs if s not in busy_ids]
    k = 0
    while idle and len(d["active_projects"]) + k < 10:
        try:
            api.projects.start(TOPICS[(m + k) % len(TOPICS)], 2, idle[:2], 2000)
        except ActionError:
            break
        idle = idle[2:]
        k += 1


def _submit_drafts(api: Api, d: dict) -> None:
    """Every available draft to the first venue that takes it."""
    for dr in d["available_drafts"]:
        for v in ("NAIC", "CLAR", "JMR", "W-SHOP"):
            try:
                api.papers.submit(dr["id"], v)
                break
            except ActionError:
                pass


def _propose_to_open_calls(api: Api, d: dict) -> None:
    """A 10-hour proposal on reasoning to every open call (refusals ignored)."""
    for c in d["open_grant_calls"]:
        try:
            api.grants.propose(c["id"], "reasoning", 10, [])
        except ActionError:
            pass


def median_time(fn, repeat: int) -> float:
    times = []
    for i in range(repeat):
        t0 = time.perf_counter()
        fn(100 + i)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15, help="careers per figure (default 15)")
    args = ap.parse_args()
    print(f"do-nothing career: {median_time(do_nothing, args.repeat) * 1e3:8.2f} ms (median of {args.repeat})")
    print(f"busy career:       {median_time(busy, args.repeat) * 1e3:8.2f} ms")
    try:
        from world.runner import run_career

        def baseline(seed: int) -> None:
            run_career("baseline", seed, WorldConfig())

        print(f"baseline career:   {median_time(baseline, args.repeat) * 1e3:8.2f} ms")
    except Exception as exc:  # the policies issue may not have landed
        print(f"baseline career:   n/a ({type(exc).__name__}: {exc})")
    ticks: list[float] = []
    w = busy(7, ticks)
    print(f"month tick (busy): {statistics.median(ticks) * 1e3:8.3f} ms median, {max(ticks) * 1e3:.3f} ms max")
    api = Api(w)
    sql = (
        "select p.id, p.venue, sum(c.citations) as c from publications p "
        "join citations_monthly c on c.publication_id = p.id group by p.id order by c desc"
    )
    api.query(sql)
    qt = []
    for _ in range(200):
        w.version += 1  # force a sync, as after an action
        t0 = time.perf_counter()
        api.query(sql)
        qt.append(time.perf_counter() - t0)
    print(f"query at month 60 (join, after a change): {statistics.median(qt) * 1e3:.3f} ms median")
    qt = []
    for _ in range(200):
        t0 = time.perf_counter()
        api.query(sql)
        qt.append(time.perf_counter() - t0)
    print(f"query at month 60 (join, no change):      {statistics.median(qt) * 1e3:.3f} ms median")


if __name__ == "__main__":
    main()
