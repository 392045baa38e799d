# A seeded agent that takes random valid and invalid actions every month, for smoke and
# robustness tests. Every refused call raises ActionError, which it catches and counts.
#
#   pibench headless --seed 7 < examples/agents/random_agent.py

import random

from pibench_agent import ActionError, events, field, grants, lab, papers, projects, query, recruit, students, time

RNG = random.Random(12345)
TOPICS = field.topics()
VENUES = ["NAIC", "CLAR", "W-SHOP", "JMR", "NOPE"]
JUNK: list[object] = [None, -1, 0, 3.5, 1e9, "", "X999", [], {}, "reasoning", True]
stats = {"ok": 0, "refused": 0}


def ids(rows, key="id"):
    return [r[key] for r in rows]


def pick(seq):
    return RNG.choice(seq) if seq else RNG.choice(JUNK)


def maybe_junk(value):
    return RNG.choice(JUNK) if RNG.random() < 0.2 else value


def one_action():
    dash = lab.dashboard()
    people = ids(dash["students"]) + ids(dash["staff"])
    projs = ids(dash["active_projects"])
    drafts = ids(dash["available_drafts"])
    subs = ids(dash["submissions_under_review"])
    evs = dash["pending_events"]
    calls = ids(dash["open_grant_calls"])
    apps = recruit.applicants()
    choice = RNG.randrange(16)
    if choice == 0:
        recruit.interview(maybe_junk([pick(ids(apps)) for _ in range(RNG.randint(1, 3))]))
    elif choice == 1:
        recruit.offer(maybe_junk(pick(ids(apps))))
    elif choice == 2:
        members = RNG.sample(people, min(len(people), RNG.randint(1, 3))) if people else ["S001"]
        projects.start(
            maybe_junk(pick(TOPICS)),
            maybe_junk(RNG.randint(0, 4)),
            maybe_junk(members),
            maybe_junk(RNG.choice([0, 500, 1500, 60000])),
        )
    elif choice == 3:
        projects.set_compute(maybe_junk(pick(projs)), maybe_junk(RNG.choice([0, 800, 2000, -5])))
    elif choice == 4:
        students.set_mentoring(maybe_junk({(RNG.choice(people) if people else "S001"): RNG.choice([0, 2, 5, 8, 50])}))
    elif choice == 5:
        papers.polish(maybe_junk(pick(drafts)), maybe_junk(RNG.choice([2, 6, 12, -1])))
    elif choice == 6:
        papers.submit(maybe_junk(pick(drafts)), pick(VENUES))
    elif choice == 7:
        papers.revise(maybe_junk(pick(drafts)), RNG.choice([4, 8, 10]))
    elif choice == 8:
        papers.withdraw(maybe_junk(pick(subs)))
    elif choice == 9:
        grants.propose(
            maybe_junk(pick(calls)), maybe_junk(pick(TOPICS)), maybe_junk(RNG.choice([5, 25, 40, 200])), maybe_junk([])
        )
    elif choice == 10:
        if evs:
            events.respond(
                maybe_junk(RNG.choice(evs)["id"]), RNG.choice(["accept", "decline", "support", "ignore", "maybe"])
            )
        else:
            events.respond(RNG.choice(JUNK), "accept")
    elif choice == 11:
        field.attend_conference()
    elif choice == 12:
        if RNG.random() < 0.3:
            recruit.hire_ra()
        else:
            recruit.dismiss(maybe_junk(pick(people)))
    elif choice == 13:
        recruit.post_postdoc() if RNG.random() < 0.3 else recruit.renew_postdoc(maybe_junk(pick(people)))
    elif choice == 14:
        projects.kill(maybe_junk(pick(projs))) if RNG.random() < 0.2 else projects.assign(
            maybe_junk(pick(projs)), maybe_junk(pick(people))
        )
    else:
        # 42 is deliberate junk: the call is refused with an ActionError.
        query(RNG.choice(["SELECT COUNT(*) AS n FROM students", "DELETE FROM students", "SELECT * FROM nope", 42]))  # type: ignore[arg-type]


over = False
while not over:
    for _ in range(RNG.randint(0, 8)):
        try:
            one_action()
            stats["ok"] += 1
        except ActionError:
            stats["refused"] += 1
    try:
        over = bool(time.next_month().get("simulation_over"))
    except ActionError:
        over = True
print("random agent:", stats["ok"], "accepted,", stats["refused"], "refused;", lab.dashboard()["month"], "months")
