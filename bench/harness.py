"""Benchmark the LLM harness without an LLM, and build a sample report; prints figures.

    python bench/harness.py [--quick] [--out DIR]

Figures (wall clock, this machine):

* harness overhead per turn: an instant in-process backend replies ``pass`` every turn
  (8 turns a month): per turn = LLM bookkeeping + code extraction + one sandbox round
  trip + transcript lines; per month adds the checkpoint (world state, fsync);
* per career: the baseline written as replies (one per month) over the standard
  60-month scenario, against the same policy in-process and piped through headless;
* a report over 3 scripted "models" x 3 seeds (standard scenario, seeds 101-103) plus
  the baseline policy from ``pibench run --json``: ``DIR/report.html`` and the time
  ``pibench report`` takes.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pibench_tui.harness.backends import Completion  # noqa: E402
from pibench_tui.harness.loop import AgentSettings, run_career, run_careers  # noqa: E402
from scenarios import load_scenario  # noqa: E402

BASELINE = ROOT / "examples" / "agents" / "baseline.py"


def baseline_defs(**changes: Any) -> str:
    """The baseline script's definitions, with some constants changed."""
    text = BASELINE.read_text()
    text = text[: text.index("\nresult = lab.dashboard()")] + "\n"
    for name, value in changes.items():
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.startswith(f"{name} = "):
                lines[i] = f"{name} = {value!r}"
        text = "\n".join(lines) + "\n"
    return text


def month_reply(defs: str) -> str:
    return "```python\n" + defs + "_r = play_month()\nprint(_r.get('month'))\n```"


class InstantBackend:
    """Replies at once, in process (no LLM, no HTTP): the harness's own cost only."""

    def __init__(self, reply: str, name: str) -> None:
        self.reply = reply
        self.name = name

    def describe(self) -> dict[str, Any]:
        return {"backend": "instant", "model": self.name}

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        prompt = sum(len(m["content"]) for m in messages) // 4
        return Completion(text=self.reply, prompt_tokens=prompt, completion_tokens=len(self.reply) // 4)


def settings(scenario: str, model: str, **kw: Any) -> AgentSettings:
    scen = load_scenario(scenario)
    return AgentSettings(model=model, label=model, scenario=scen.name, config=scen.config, **kw)


def bench_turns(tmp: Path, scenario: str) -> None:
    s = settings(scenario, "pass-every-turn")
    t0 = time.perf_counter()
    res = run_career(s, InstantBackend("```python\npass\n```", "pass"), 101, tmp / "turns", log=lambda _t: None)
    wall = time.perf_counter() - t0
    turns = res["turns"]
    months = res["months_played"]
    print(
        f"harness, {scenario}: {turns} turns of `pass` in {wall:.2f} s -> {1000 * wall / turns:.1f} ms per turn "
        f"(incl. {months} month checkpoints, {1000 * wall / months:.0f} ms per month of 8 turns)"
    )


def bench_career(tmp: Path, repeat: int) -> None:
    from world.runner import run_career as run_policy

    s = settings("standard", "baseline-replies")
    walls = []
    for i in range(repeat):
        t0 = time.perf_counter()
        res = run_career(
            s, InstantBackend(month_reply(baseline_defs()), "b"), 101, tmp / f"career{i}", log=lambda _t: None
        )
        walls.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    row = run_policy("baseline", 101)
    inproc = time.perf_counter() - t0
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pibench_tui", "headless", "--seed", "101"],
        input=BASELINE.read_text(),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    headless = time.perf_counter() - t0
    digest = proc.stdout.split("state digest    ")[1].split()[0]
    med = statistics.median(walls)
    print(
        f"career (standard, seed 101, baseline as 60 replies): harness {med:.2f} s (median of {repeat}), "
        f"headless pipe {headless:.2f} s, in-process policy {inproc:.2f} s; "
        f"harness/headless {med / headless:.1f}x; per month {1000 * med / res['months_played']:.0f} ms"
    )
    print(
        f"  same result: Impact {res['impact']['total']} vs policy {row['impact']}; digest equal to headless: "
        f"{res['digest'] == digest}"
    )


MODELS = {
    "scripted-baseline": {},
    "scripted-ambitious": {"TARGET": 8, "MAX_HIRES": 4, "TIER": 3, "COMPUTE": 2500, "MIN_HIRE_RUNWAY": 6},
    "scripted-cautious": {"TARGET": 2, "MAX_HIRES": 1, "TIER": 1, "COMPUTE": 500},
}


def sample_report(out: Path, seeds: list[int], scenario: str) -> None:
    runs = out / "runs"
    t0 = time.perf_counter()
    for model, changes in MODELS.items():
        reply = month_reply(baseline_defs(**changes))
        results = run_careers(
            settings(scenario, model),
            lambda r=reply, m=model: InstantBackend(r, m),
            seeds,
            runs,
            jobs=2,
            log=lambda _t: None,
        )
        print(
            f"  {model}: "
            + ", ".join(f"{r['impact']['total']:.1f}" if isinstance(r, dict) else f"error {r}" for r in results)
        )
    play = time.perf_counter() - t0
    policy_json = out / "baseline-policy.json"
    seed_arg = ",".join(str(s) for s in seeds)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pibench_tui",
            "run",
            "baseline",
            "--scenario",
            scenario,
            "--seeds",
            seed_arg,
            "--json",
            str(policy_json),
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pibench_tui",
            "report",
            str(runs),
            str(policy_json),
            "--html",
            str(out / "report.html"),
            "--json",
            str(out / "report.json"),
            "--reference",
            "baseline",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    rep = time.perf_counter() - t0
    print(proc.stdout[-4000:])
    if proc.returncode:
        print(proc.stderr)
    size = (out / "report.html").stat().st_size if (out / "report.html").exists() else 0
    n = len(json.loads((out / "report.json").read_text())["careers"]) if (out / "report.json").exists() else 0
    print(
        f"sample report: {len(MODELS)} models x {len(seeds)} seeds played in {play:.1f} s; `pibench report` over "
        f"{n} careers in {rep:.1f} s; {out / 'report.html'} ({size / 1024:.0f} KiB, self-contained)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="short scenario for the turn figure, one career repeat")
    ap.add_argument("--out", default=None, help="where the sample runs and report go (default: a temporary folder)")
    ap.add_argument("--skip-report", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="pibench-bench-harness-"))
    try:
        bench_turns(tmp, "short-12")
        bench_career(tmp, 1 if args.quick else 3)
        if not args.skip_report:
            out = Path(args.out) if args.out else tmp / "sample"
            if out.exists():
                shutil.rmtree(out)
            out.mkdir(parents=True)
            sample_report(out, [101, 102, 103], "standard")
    finally:
        if args.out is None:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            shutil.rmtree(tmp / "turns", ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
