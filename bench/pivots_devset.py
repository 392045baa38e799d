"""What a pivot case set holds and what the scripted judges score on it (issue 24 §3: "report
what each scores on the dev set"). Prints figures; asserts nothing.

Run: ``python bench/pivots_devset.py [--cases dev] [--runs DIR] [--judges first,baseline,lookahead]``.
Asks each scripted judge every case in both orders (``pibench pivots eval --judge J``; the runs
go to ``--runs`` and resume there, else to a temporary folder), scores them against the set's
key (``pibench pivots score``), and prints: the set's counts and funnel by kind from its
``build.json``, the stability agreement, each judge's accuracy by kind and overall with the 95 %
case-bootstrap interval, and the prompt per case in tokens (characters / 4) with the record
and with the plans only. The last block is the table ``docs/pivots.md`` shows.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pibench_tui.pivots.cases import cases_hash, load_cases, load_key, resolve_set  # noqa: E402
from pibench_tui.pivots.evaluate import (  # noqa: E402
    BaselineJudge,
    EvalSettings,
    FirstJudge,
    LookaheadJudge,
    evaluate,
    read_answers,
)
from pibench_tui.pivots.prompt import approx_tokens, case_messages  # noqa: E402
from pibench_tui.pivots.score import score_run  # noqa: E402
from world.pivots import KINDS  # noqa: E402

JUDGES = {"first": FirstJudge, "baseline": BaselineJudge, "lookahead": LookaheadJudge}


def _tokens(cases: list, condition: str) -> list[int]:
    """Prompt tokens (characters / 4) of each case, order AB, under ``condition``."""
    return [sum(approx_tokens(m["content"]) for m in case_messages(c, "AB", condition)) for c in cases]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="dev", help="a case set folder or a shipped set's name (default: dev)")
    ap.add_argument("--runs", help="keep the judges' runs here (resumable); default: a temporary folder")
    ap.add_argument("--judges", default=",".join(JUDGES), help="comma-separated scripted judges")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args()
    folder = Path(resolve_set(args.cases))
    cases = load_cases(folder)
    key = load_key(folder, cases)
    build = json.loads((folder / "build.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(args.runs or tmp)
        scores = {}
        for name in args.judges.split(","):
            cls = JUDGES[name]
            settings = EvalSettings(
                label=name,
                model=name,
                condition="record",
                reconsider=False,
                cases=str(folder.resolve()),
                cases_hash=cases_hash(cases),
                backend=cls().describe(),
            )
            t = time.perf_counter()
            evaluate(cases, cls, settings, runs / name)
            seconds = time.perf_counter() - t
            scores[name] = score_run(cases, key, read_answers(runs / name))
            o = scores[name]["overall"]
            lo, hi = o["ci_cases"]
            print(
                f"{name}: accuracy {o['accuracy']:.3f} [{lo:.3f}, {hi:.3f}] over {o['cases']} cases ({seconds:.0f} s)"
            )
    record, plans = _tokens(cases, "record"), _tokens(cases, "plans")
    print(
        f"prompt tokens a case (chars/4): with the record mean {statistics.fmean(record):,.0f} "
        f"({min(record):,}-{max(record):,}), plans only mean {statistics.fmean(plans):,.0f}"
    )
    stab = build["stability"]
    print(
        f"stability: {stab['agree']} of {stab['checked']} kept cases agree in sign "
        f"({100 * stab['agree'] / max(1, stab['checked']):.1f} %)"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "judges": {n: {"overall": s["overall"], "by_kind": s["by_kind"]} for n, s in scores.items()},
                    "tokens": {"record": record, "plans": plans},
                    "stability": stab,
                },
                indent=1,
            )
        )
    funnel = build["funnel_by_kind"]
    names = list(scores)
    print()
    print("| kind | found | screened | kept | cases | " + " | ".join(f"`{n}`" for n in names) + " |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(names))
    for kind in [k for k in KINDS if k in funnel]:
        f = funnel[kind]
        acc = [scores[n]["by_kind"].get(kind, {}).get("accuracy") for n in names]
        cells = " | ".join("" if a is None else f"{a:.3f}" for a in acc)
        print(
            f"| {kind} | {f['found']:,} | {f['screened']:,} | {f['kept']:,} | {build['by_kind'].get(kind, 0):,} | {cells} |"
        )
    total = [sum(f[k] for f in funnel.values()) for k in ("found", "screened", "kept")]
    cells = " | ".join(f"{scores[n]['overall']['accuracy']:.3f}" for n in names)
    print(f"| all | {total[0]:,} | {total[1]:,} | {total[2]:,} | {build['cases']:,} | {cells} |")


if __name__ == "__main__":
    main()
