# The rule-based baseline PI (MECHANICS §17), as a plain agent script.
#
#   pibench headless --seed 101 < examples/agents/baseline.py
#
# It uses only the public API (lab, recruit, students, projects, papers, grants, field,
# events, time) and plays every month until the career is over. It is the same policy as
# world/policies/baseline.py (default config); tests check both give the same Impact.

from pibench_agent import events, field, grants, lab, papers, projects, recruit, students, time

TARGET = 4  # researchers wanted
MAX_HIRES = 2  # at most this many wanted per season
INTERVIEW = True
TIER = 2
COMPUTE = 1500  # units per month per project
MENTORING = 5.0  # hours per researcher, at most 60 h in all
PROPOSAL_HOURS = 25
POLISH_HOURS = 8
REVISE_HOURS = 8
FALLBACK_TOPIC = "reasoning"
MIN_HIRE_RUNWAY = 18  # months
TIF_RUNWAY = 24  # months
EVENT_HOURS = 20
RULES = lab.rules()  # this scenario's caps, hours and calendars (never typed in here)


def runway_of(dash):
    r = dash["runway_months"]
    return 99.0 if r is None else float(r)


def hottest_topic():
    counts: dict[str, int] = {}
    for item in field.news(40):
        if item["kind"] == "field" and item["topic"] is not None:
            counts[item["topic"]] = counts.get(item["topic"], 0) + 1
    best, best_n = FALLBACK_TOPIC, 0
    for topic in field.topics():
        if counts.get(topic, 0) > best_n:
            best, best_n = topic, counts[topic]
    return best


topic_of_month: dict[int, str] = {}


def month_topic(month):
    # the hottest topic, read from the news at its first use in a month (the news move only
    # with the tick): a month that starts no project and writes no proposal reads no news
    if month not in topic_of_month:
        topic_of_month.clear()
        topic_of_month[month] = hottest_topic()
    return topic_of_month[month]


def idle_researchers(dash):
    busy = set()
    for pj in dash["active_projects"]:
        busy.update(pj["members"])
    return [p["id"] for p in dash["students"] if p["id"] not in busy]


def hire(dash):
    n = len(dash["students"])
    want = min(MAX_HIRES, max(0, TARGET - n))
    if runway_of(dash) < MIN_HIRE_RUNWAY or want == 0:
        return
    apps = [a for a in recruit.applicants() if a["status"] == "pending"]
    apps.sort(key=lambda a: -(a["transcript"] + a["letter"]))
    if INTERVIEW:
        short = apps[: 2 * want + 2]
        fits = int((lab.attention()["left"] + 1e-9) // RULES["hours"]["interview"])
        new = [a for a in short if a["interview"] is None]
        if len(new) > fits:
            short = [a for a in short if a["interview"] is not None] + new[:fits]
        if not short:
            return
        scores = recruit.interview([a["id"] for a in short])["interview_scores"]
        short.sort(key=lambda a: -(0.6 * scores[a["id"]] + 0.25 * a["transcript"] + 0.15 * a["letter"]))
        ranked = short
    else:
        ranked = apps
    committed = n + len([a for a in recruit.applicants() if a["status"] == "offered"])
    for a in ranked[: want + 1]:
        if committed >= RULES["caps"]["researchers"]:
            break
        recruit.offer(a["id"])
        committed += 1


def mentor(dash):
    people = dash["students"]
    if not people:
        return
    h = min(MENTORING, 60.0 / len(people))
    room = dash["attention"]["pool"] - dash["attention"]["oneoff_used"] - 0.02
    if h * len(people) > room:
        h = max(0.0, int(100 * room / len(people)) / 100.0)
    want = {}
    for p in people:
        if abs(p["mentoring_hours"] - h) > 1e-9:
            want[p["id"]] = h
    if want:
        students.set_mentoring(want)


def start_projects():
    dash = lab.dashboard()
    idle = idle_researchers(dash)
    active = len(dash["active_projects"])
    for i in range(0, len(idle), 2):
        if active >= RULES["caps"]["active_projects"]:
            break
        projects.start(month_topic(dash["month"]), TIER, idle[i : i + 2], COMPUTE)
        active += 1


def handle_drafts():
    dash = lab.dashboard()
    if not dash["available_drafts"]:
        return  # nothing to polish, revise or submit
    open_confs = dash["venue_deadlines_this_month"]
    rejected: dict[str, list[str]] = {}
    for sub in papers.submissions():
        if sub["status"] == "reject":
            rejected.setdefault(sub["draft_id"], []).append(sub["venue"])
    people = set(p["id"] for p in dash["students"])
    for d in dash["available_drafts"]:
        rej = rejected.get(d["id"], [])
        if not d["salvage"] and d["polish_hours"] == 0 and lab.attention()["left"] >= POLISH_HOURS:
            papers.polish(d["id"], POLISH_HOURS)
        if rej and d["revisions"] == 0 and lab.attention()["left"] >= REVISE_HOURS:
            authors = [x["authors"] for x in papers.drafts() if x["id"] == d["id"]][0]
            if not authors or any(a in people for a in authors):
                papers.revise(d["id"], REVISE_HOURS)
        if d["salvage"]:
            ladder = ["W-SHOP"]
        else:
            ladder = (["NAIC"] if d["tier"] >= 2 and not rej else []) + ["CLAR", "W-SHOP"]
        # the venues of the ladder that have not rejected the draft; W-SHOP again once all have
        choices = [v for v in ladder if v not in rej] or ["W-SHOP"]
        for venue in choices:
            if venue == "W-SHOP" or venue in open_confs:
                papers.submit(d["id"], venue)
                break


def can_propose(call, month):
    # only the grant rules refuse: a call already applied to gets another proposal when they allow
    agency = call["agency"]
    terms = RULES["agencies"][agency]
    props = grants.proposals()
    if terms["once"] and any(p["agency"] == agency and p["status"] == "funded" for p in props):
        return False
    live = len([a for a in grants.awards() if a["agency"] == agency and a["end_month"] >= month])
    live += len([p for p in props if p["agency"] == agency and p["status"] == "pending"])
    if live >= terms["max_concurrent"]:
        return False
    if terms["cooldown_months"]:
        last = [p["submitted_month"] for p in props if p["agency"] == agency]
        if last and month - max(last) < terms["cooldown_months"]:
            return False
    return True


def propose():
    dash = lab.dashboard()
    m = dash["month"]
    for call in dash["open_grant_calls"]:
        if call["agency"] == "TIF" and runway_of(dash) > TIF_RUNWAY:
            continue
        if not can_propose(call, m):
            continue
        if lab.attention()["left"] < PROPOSAL_HOURS:
            break
        topic = month_topic(m)
        pubs = papers.publications()
        same = [p["id"] for p in pubs if p["topic"] == topic]
        if same:
            attach = same[:4]
        elif pubs:
            attach = [p["id"] for p in pubs[:4]]
        else:
            attach = [d["id"] for d in lab.dashboard()["available_drafts"][:2]]
        grants.propose(call["id"], topic, PROPOSAL_HOURS, attach)
        dash = lab.dashboard()


def answer_events():
    for ev in events.pending():
        left = lab.attention()["left"]
        kind = ev["kind"]
        if kind == "student_crisis":
            if left >= RULES["hours"]["crisis"]:
                events.respond(ev["id"], "support")
        elif kind in ("invited_talk", "review_request"):
            events.respond(ev["id"], "accept" if left > EVENT_HOURS else "decline")
        elif kind == "collaboration_offer":
            d = lab.dashboard()
            if d["students"] or d["staff"]:
                events.respond(ev["id"], "accept")


def play_month():
    dash = lab.dashboard()
    if dash["month"] % 12 == RULES["season"]["pool_opens"]:
        hire(dash)
    mentor(lab.dashboard())
    start_projects()
    handle_drafts()
    propose()
    answer_events()
    return time.next_month()


result = lab.dashboard()
while not result.get("simulation_over") and not result.get("finished"):
    result = play_month()
print("baseline finished: Impact", result.get("impact"), "collapsed", result.get("collapsed"))
