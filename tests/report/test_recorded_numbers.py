"""Every number `pibench report` shows from a run folder is re-derived or checked against a
clear bound (issue 25 §1): a result.json's ``cost_usd``, abandoned token counts, time-out
estimate, price and odd values of fields the report reads, edited by hand, are never shown
as valid figures and never crash the report."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pibench_tui.cli.command import main as pibench_main
from pibench_tui.harness.backends import Completion
from pibench_tui.harness.loop import run_careers
from tests.harness.conftest import settings_for

IDLE = "```python\ntime.next_month()\n```"
PRICE = {"prompt": 2.0, "completion": 8.0, "cached_prompt": None, "unit": "USD per million tokens"}


class _Instant:
    def __init__(self, name: str) -> None:
        self.name = name

    def describe(self):
        return {"backend": "instant", "model": self.name}

    def complete(self, messages):
        return Completion(text=IDLE, prompt_tokens=1000, completion_tokens=50)


def _career(out: Path, label: str) -> Path:
    res = run_careers(settings_for("short-12", model=label), lambda: _Instant(label), [101], out, log=lambda _t: None)
    assert isinstance(res[0], dict), res
    return out / label / "short-12-101"


def _edit(run: Path, change) -> None:
    res = json.loads((run / "result.json").read_text())
    change(res)
    (run / "result.json").write_text(json.dumps(res))


def test_recorded_costs_and_token_counts_are_re_derived_or_refused(tmp_path, capsys):
    """Four copies of one idle career, each with its recorded price (2 and 8 USD per million
    tokens): ``ok`` untouched; ``forged`` with ``cost_usd`` 1e300, abandoned tokens -5 and
    1e300, reasoning and cached counts that are a string and negative, and harness settings
    of a 400-digit max_turns, a NaN temperature and "lots" of max tokens (shown as unknown,
    never as settings); ``estimate`` with a
    time-out estimate of 10^12 tokens but no time-out in its transcript; ``noprice`` with a
    negative price. `pibench report` exits 0; the forged career costs exactly what the
    untouched one does (its transcript's tokens at its price: the recorded cost and abandoned
    counts are not read) and shows 0 abandoned tokens; the estimate makes its career invalid,
    naming the field and the bound; a career with an invalid price has no cost; no 1e300
    reaches the report. Before, the label's cost was 1e300 and its abandoned tokens per career
    -5."""
    out = tmp_path / "runs"
    runs = {label: _career(out, label) for label in ("ok", "forged", "estimate", "noprice")}
    for run in runs.values():
        _edit(run, lambda r: r.update(price=dict(PRICE)))

    def forge(r):
        r["cost_usd"] = 1e300
        r["tokens"]["abandoned"].update(prompt=-5, completion=1e300)
        r["tokens"]["reasoning"] = "lots"
        r["tokens"]["cached_prompt"] = -1
        r["harness"].update(max_turns=int("9" * 400), temperature=float("nan"), max_tokens="lots")

    _edit(runs["forged"], forge)
    _edit(runs["estimate"], lambda r: r["tokens"]["abandoned"]["timed_out"].update(prompt_estimated=10**12))
    _edit(runs["noprice"], lambda r: r.update(price={**PRICE, "prompt": -1.0}))
    capsys.readouterr()
    assert pibench_main(["report", str(out), "--json", str(tmp_path / "r.json")]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    rows = {r["label"]: r for r in report["leaderboard"]}
    careers = {c["label"]: c for c in report["careers"]}
    ok = careers["ok"]
    expected = (ok["prompt_tokens"] * 2.0 + ok["completion_tokens"] * 8.0) / 1e6
    assert ok["prompt_tokens"] > 0 and abs(rows["ok"]["cost_per_career"] - expected) < 1e-12
    assert careers["forged"]["status"] == "valid"
    assert rows["forged"]["cost_per_career"] == rows["ok"]["cost_per_career"]
    assert rows["forged"]["abandoned_tokens_per_career"] == 0
    assert careers["forged"]["abandoned_prompt_tokens"] == 0 and careers["forged"]["abandoned_completion_tokens"] == 0
    assert careers["estimate"]["status"] == "invalid"
    reason = careers["estimate"]["invalid_reason"]
    assert "time-out estimate" in reason and "1000000000000" in reason and "from 0 to 0" in reason, reason
    assert careers["noprice"]["status"] == "valid" and rows["noprice"]["cost_per_career"] is None
    assert rows["forged"]["harness"]["max_turns"] == [None] and rows["forged"]["harness"]["temperature"] == [None]
    assert rows["forged"]["harness"]["max_tokens"] == [None] and rows["ok"]["harness"]["max_turns"] == [8]
    shown = capsys.readouterr().out + json.dumps(report)
    assert "1e+300" not in shown and "9" * 30 not in shown and not re.search(r"\bnan\b", shown, re.I)


def test_a_run_result_with_a_400_digit_impact_is_a_problem_not_a_crash():
    """A JSON integer too large for a float (400 digits) as a recorded Impact is named as not
    an Impact split; before, ``math.isfinite`` raised ``OverflowError`` and `pibench report`
    and `pibench replay` crashed on that folder."""
    from pibench_tui.harness.runcheck import RUN_FORMAT, finite_number, result_problem

    huge = json.loads("1" + "0" * 400)
    assert not finite_number(huge) and finite_number(10**300) and not finite_number(True)
    res = {"format": RUN_FORMAT, "seed": 1, "config": {}, "impact": {"total": huge}}
    assert "is not an Impact split" in result_problem(res)


def test_huge_integers_in_a_run_result_make_that_career_invalid_and_the_report_still_prints(tmp_path, capsys):
    """QA pass 6 F6: a JSON integer too large for a float (10**309) as ``impact.total``,
    ``impact.earned``, ``config.start_budget`` or ``config.months``: `pibench report` prints
    its leaderboard with that career invalid (the field named) beside the untouched one, and
    `pibench replay` calls it invalid; before, ``config.start_budget`` ended the report in an
    ``OverflowError`` traceback (float() of the integer in the config check)."""
    huge = 10**309
    runs = tmp_path / "runs"
    ok = _career(runs, "ok")
    fields = {"total": ("impact", "total"), "earned": ("impact", "earned"), "budget": ("config", "start_budget")}
    fields["months"] = ("config", "months")
    for name, (part, key) in fields.items():
        run = _career(runs, name)
        _edit(run, lambda r, part=part, key=key: r[part].__setitem__(key, huge))
    out = tmp_path / "report.json"
    assert pibench_main(["report", str(runs), "--json", str(out)]) == 0
    careers = {c["label"]: c for c in json.loads(out.read_text())["careers"]}
    assert careers["ok"]["status"] == "valid", careers["ok"]
    for name, (_part, key) in fields.items():
        assert careers[name]["status"] == "invalid", careers[name]
        reason = careers[name]["invalid_reason"]
        assert key in reason and "OverflowError" not in reason, reason
    capsys.readouterr()
    assert pibench_main(["replay", str(runs / "budget"), str(ok), "--no-check-transcripts"]) == 1
    text = capsys.readouterr().out
    assert "start_budget" in text and "OverflowError" not in text, text


def test_resume_entries_claiming_impossible_lost_tokens_make_the_career_invalid(tmp_path):
    """The abandoned tokens of a resumed career come from its transcript's ``resume`` entries,
    each checked: a negative count, a non-integer, or more than the per-call bound times the
    turns lost is refused with the field named (the career is then invalid); honest entries
    add up, with the in-flight estimates apart."""
    import pytest

    from pibench_tui.report.load import MAX_CALL_TOKENS, _tally

    path = tmp_path / "transcript.jsonl"
    honest = [
        {"event": "resume", "month": 3, "lost_turns": 2, "lost_prompt_tokens": 900, "lost_completion_tokens": 40},
        {
            "event": "resume",
            "month": 5,
            "lost_turns": 0,
            "lost_prompt_tokens": 0,
            "in_flight": {"prompt_estimated": 77},
        },
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in honest))
    t = _tally(path, "transcript.jsonl")
    assert (t.lost_prompt, t.lost_completion, t.in_flight) == (900, 40, 77)
    for bad in (-3, 1.5, "9", 2 * MAX_CALL_TOKENS + 1):
        path.write_text(json.dumps({"event": "resume", "month": 3, "lost_turns": 2, "lost_prompt_tokens": bad}) + "\n")
        with pytest.raises(ValueError, match="lost_prompt_tokens"):
            _tally(path, "transcript.jsonl")
