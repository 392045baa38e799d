"""Small pivot case sets for the tests: real records from baseline careers, synthetic keys.

The records (rules, month reports, dashboard) are what a baseline career showed at the fork;
the plans are two valid code blocks of the decision's kind; the key is made up here (the
evaluation and scoring tests need a key, not the truth of the world).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from world.api import Api
from world.engine import World
from world.policies import make_policy
from world.runner import AgentView

KIND_CYCLE = ("hiring", "venue", "grants", "topics", "staffing", "spending")


def record_at(seed: int, month: int) -> dict[str, Any]:
    """``{"rules", "dashboard", "reports"}`` at the start of ``month`` of a baseline career."""
    world = World(seed=seed)
    api = Api(world)
    view = AgentView(api)
    policy = make_policy("baseline")
    reports = []
    while world.s.month < month:
        before = world.s.month
        policy.act(view)
        if world.s.month == before:
            api.call("time", "next_month", [], {})
        reports.append(api.call("time", "last_report", [], {}))
    return {
        "rules": api.call("lab", "rules", [], {}),
        "dashboard": api.call("lab", "dashboard", [], {}),
        "reports": reports,
    }


def make_set(folder: Path, *, careers: int = 3, per_career: int = 2, month: int = 4, better: str = "A") -> Path:
    """Write ``cases.jsonl`` and ``key.jsonl`` into ``folder``: ``careers`` × ``per_career`` cases.

    Case ``i``'s better plan alternates from ``better`` so a judge that always picks one
    label scores 50 %.
    """
    folder.mkdir(parents=True, exist_ok=True)
    cases, keys = [], []
    n = 0
    for c in range(careers):
        seed = 101 + c
        record = record_at(seed, month + c)
        for _ in range(per_career):
            n += 1
            cid = f"t-{n:04d}"
            kind = KIND_CYCLE[(n - 1) % len(KIND_CYCLE)]
            cases.append(
                {
                    "format": 1,
                    "id": cid,
                    "scenario": "standard",
                    "config_hash": "test",
                    "seed": seed,
                    "commitment": None,
                    "career": f"baseline/{seed}",
                    "policy": "baseline",
                    "fork_month": month + c,
                    "kind": kind,
                    "capability": f"capability of {kind}",
                    "question": f"Question {cid}?",
                    "record": record,
                    "plans": {
                        "A": {"text": f"Plan alpha of {cid}: read the field news.", "code": "field.news()\n"},
                        "B": {"text": f"Plan beta of {cid}: do nothing this month.", "code": "pass\n"},
                    },
                }
            )
            right = better if n % 2 else ("B" if better == "A" else "A")
            sign = 1.0 if right == "A" else -1.0
            ia = [100.0 + sign * 10.0 + k for k in range(4)]
            ib = [100.0 + k for k in range(4)]
            delta = sum(a - b for a, b in zip(ia, ib, strict=True)) / 4
            keys.append(
                {
                    "format": 1,
                    "id": cid,
                    "better": right,
                    "delta": delta,
                    "ci": sorted([delta - 5.0, delta + 5.0]),
                    "branches": [1, 2, 3, 4],
                    "impact": {"A": ia, "B": ib},
                    "collapse": {"A": 0.0, "B": 0.0},
                    "p_a_beats_b": 1.0 if right == "A" else 0.0,
                }
            )
    (folder / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    (folder / "key.jsonl").write_text("".join(json.dumps(k) + "\n" for k in keys), encoding="utf-8")
    return folder
