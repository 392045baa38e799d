"""A small run directory written by the tests themselves (format ``pibench-run/1``), so the
replay viewer's tests do not depend on the harness or the policy runner."""

from __future__ import annotations

import json
from pathlib import Path

from scenarios import load_scenario
from world.api import Api
from world.engine import World


def write_run_dir(
    root: Path, *, kind: str = "agent", scenario: str = "short-12", months: int = 6, hire: bool = True
) -> Path:
    """Play ``months`` months of ``scenario`` (two RAs on a tier-1 project, a W-SHOP submission
    when a draft is ready; with ``hire=False`` nobody is hired: the lab stays empty) and write ``root/test/<scenario>-<seed>/`` with result.json,
    actions.jsonl, months.jsonl and (agent runs) a transcript of one code block per month."""
    sc = load_scenario(scenario)
    w = World(sc.config, sc.seed)
    api = Api(w)
    transcript: list[dict] = [{"event": "start", "model": "scripted", "seed": sc.seed}]
    month_rows: list[dict] = []
    for _ in range(months):
        m = w.month
        code = "time.next_month()"
        if m == 1 and hire:
            api.recruit.hire_ra()
            api.recruit.hire_ra()
            api.projects.start("reasoning", 1, ["RA001", "RA002"], 1500)
            code = (
                "recruit.hire_ra(); recruit.hire_ra()\nprojects.start('reasoning', 1, ['RA001', 'RA002'], 1500)\n"
                + code
            )
        drafts = api.lab.dashboard()["available_drafts"]
        if drafts:
            api.papers.submit(drafts[0]["id"], "W-SHOP")
            code = f"papers.submit({drafts[0]['id']!r}, 'W-SHOP')\n" + code
        reply = api.time.next_month()
        transcript.append(
            {
                "event": "block",
                "month": m,
                "turn": 1,
                "code": code,
                "output": f"month {m} closed",
                "ok": True,
                "error": None,
                "seconds": 0.01,
            }
        )
        month_rows.append({"month": m, "report": reply.get("report") or {}, "dashboard": api.lab.dashboard()})
        if w.finished:
            break
    run = root / "test" / f"{scenario}-{sc.seed}"
    run.mkdir(parents=True)
    result = {
        "format": "pibench-run/1",
        "kind": kind,
        "label": "test",
        "scenario": scenario,
        ("model" if kind == "agent" else "policy"): "scripted",
        "config": w.cfg.to_dict(),
        "seed": sc.seed,
        "seed_commitment": None,
        "months_played": w.month,
        "digest": w.digest(),
        "collapsed": w.collapsed,
    }
    (run / "result.json").write_text(json.dumps(result))
    (run / "actions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in w.s.action_log))
    (run / "months.jsonl").write_text("".join(json.dumps(r) + "\n" for r in month_rows))
    if kind == "agent":
        (run / "transcript.jsonl").write_text("".join(json.dumps(r) + "\n" for r in transcript))
    return run
