"""The shipped development set (issue 24 part 2): every kind represented, loadable by the
strict readers, and rebuilt bit for bit from the dev preset."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from pibench_tui.pivots.build import PRESETS, run_task
from pibench_tui.pivots.cases import load_cases, load_key, resolve_set
from world.pivots import KINDS

DEV = Path(resolve_set("dev"))


def test_the_dev_set_ships_with_its_key_and_build_summary() -> None:
    """`dev` names the shipped folder; its cases load with their key (every answer consistent
    with its numbers); build.json's settings are the dev preset's, every one, and its counts
    the file's."""
    cases = load_cases(DEV)
    key = load_key(DEV, cases)
    assert len(key) == len(cases)
    build = json.loads((DEV / "build.json").read_text())
    preset = PRESETS["dev"]
    assert build["settings"] == json.loads(json.dumps(asdict(preset)))
    assert build["cases"] == len(cases)
    counts: dict[str, int] = {}
    for c in cases:
        counts[c.kind] = counts.get(c.kind, 0) + 1
    assert build["by_kind"] == dict(sorted(counts.items()))
    assert all(c.raw["seed"] in preset.seeds for c in cases)


def test_the_dev_set_meets_the_issues_floor_and_stability_target() -> None:
    """Issue 24 §2's floor for the shipped set: at least 200 cases, every kind at least 20, on
    public seeds; and its build's stability re-check agrees in sign for at least 95 % of the
    kept cases (the target)."""
    cases = load_cases(DEV)
    counts = {kind: sum(c.kind == kind for c in cases) for kind in KINDS}
    assert len(cases) >= 200
    assert min(counts.values()) >= 20, counts
    assert all(c.raw["seed"] is not None and c.raw["commitment"] is None for c in cases)
    stability = json.loads((DEV / "build.json").read_text())["stability"]
    assert stability["checked"] >= len(cases)
    assert stability["agree"] >= 0.95 * stability["checked"], stability


def test_three_dev_cases_rebuild_bit_for_bit() -> None:
    """Three cases of three kinds (the latest forks: the shortest futures) are built again
    from the dev preset: the same case line and key line, byte for byte."""
    lines = {json.loads(x)["id"]: x for x in (DEV / "cases.jsonl").read_text().splitlines()}
    keys = {json.loads(x)["id"]: x for x in (DEV / "key.jsonl").read_text().splitlines()}
    latest: dict[str, dict] = {}
    for text in lines.values():
        case = json.loads(text)
        if case["kind"] not in latest or case["fork_month"] > latest[case["kind"]]["fork_month"]:
            latest[case["kind"]] = case
    chosen = sorted(latest.values(), key=lambda c: -c["fork_month"])[:3]
    assert len(chosen) == 3
    for case in chosen:
        out = run_task((PRESETS["dev"], case["seed"], case["fork_month"], [case["kind"]]))
        (again,) = [k for k in out["kept"] if k["case"]["id"] == case["id"]]
        assert json.dumps(again["case"], sort_keys=True) == lines[case["id"]]
        assert json.dumps(again["key"], sort_keys=True) == keys[case["id"]]


def test_the_docs_show_the_shipped_sets_counts_as_its_build_summary_has_them() -> None:
    """docs/pivots.md's table of the shipped set gives, per kind and in all, the decisions found,
    screened and kept and the cases that build.json counts, and its stability sentence the
    agreement build.json holds (numbers copied from `bench/pivots_devset.py`, never typed)."""
    import re

    build = json.loads((DEV / "build.json").read_text())
    docs = (Path(__file__).resolve().parents[2] / "docs" / "pivots.md").read_text()
    section = docs.split("### The shipped development set", 1)[1].split("\n### ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 5 and cells[0] in (*build["funnel_by_kind"], "all"):
            rows[cells[0]] = [int(c.replace(",", "")) for c in cells[1:5]]
    funnel = build["funnel_by_kind"]
    want = {k: [f["found"], f["screened"], f["kept"], build["by_kind"].get(k, 0)] for k, f in funnel.items()}
    want["all"] = [sum(f[x] for f in funnel.values()) for x in ("found", "screened", "kept")] + [build["cases"]]
    assert rows == want
    agree = re.search(r"agreed in sign for ([\d,]+) of ([\d,]+) kept cases", section)
    assert agree is not None
    assert [int(x.replace(",", "")) for x in agree.groups()] == [
        build["stability"]["agree"],
        build["stability"]["checked"],
    ]
