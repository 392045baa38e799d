"""The transcript check (issue 25 §1) re-runs a career's recorded code and compares more
than the calls: the integrity incidents, errors and output the re-run observes must be the
ones the transcript records (a QA tester blanked a flooding career's block entries and
`--check-transcripts` called it valid with 0 flags), and each block gets no more time than
the harness allows (a result.json saying ``block_timeout: 1e9`` made a check that never
ended)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pibench_tui.cli import main as pibench_main
from pibench_tui.harness.backends import Completion
from pibench_tui.harness.loop import run_careers
from tests.harness.conftest import settings_for

IDLE = "```python\ntime.next_month()\n```"
#: A reply the sandbox refuses (a module outside the allowed ones): one ``import_refused`` incident.
POKE = "```python\nimport os\n```"
#: A reply that closes the month and prints nothing: the same calls and output on every seed.
QUIET = "```python\n_ = time.next_month()\n```"


class _Script:
    """A backend that answers with ``replies`` in turn, then ``IDLE`` forever."""

    def __init__(self, replies: list[str]) -> None:
        self.replies, self.name = list(replies), "script"

    def describe(self):
        return {"backend": "script"}

    def complete(self, messages):
        text = self.replies.pop(0) if self.replies else IDLE
        return Completion(text=text, prompt_tokens=100, completion_tokens=10)


def _run(out: Path, model: str, replies: list[str], **settings) -> Path:
    res = run_careers(
        settings_for("short-12", model=model, **settings),
        lambda: _Script(replies),
        [101],
        out,
        log=lambda _t: None,
    )
    assert all(isinstance(r, dict) for r in res), res
    return out / model / "short-12-101"


def _report(paths: list[Path], tmp_path: Path, *extra: str) -> dict:
    out = tmp_path / "report.json"
    assert pibench_main(["report", *map(str, paths), "--json", str(out), *extra]) == 0
    return json.loads(out.read_text())


def _rewrite_transcript(run: Path, change) -> None:
    lines = [json.loads(line) for line in (run / "transcript.jsonl").read_text().splitlines()]
    kept = [e for e in (change(e) for e in lines) if e is not None]
    (run / "transcript.jsonl").write_text("".join(json.dumps(e) + "\n" for e in kept))


def _blank_block(e: dict) -> dict:
    if e.get("event") == "block":
        return {**e, "integrity": [], "ok": True, "error": None, "output": ""}
    return e


def test_integrity_incidents_blanked_in_the_transcript_fail_the_transcript_check(tmp_path, capsys):
    """A career whose agent poked at the sandbox once (flags 1): blanking its block entries
    (integrity, ok, error, output) hides the flag from a report that reads the transcript,
    but `pibench replay --check-transcripts` and `pibench report --check-transcripts` re-run
    the block, observe the incident the transcript lacks and call the career invalid,
    naming month 1 turn 1 and the incident; a block entry removed is named too. The
    untouched career passes, and its flags after the check are the re-run's."""
    runs = tmp_path / "runs"
    _run(runs, "g", [POKE])
    blanked = _run(runs, "b", [POKE])
    removed = _run(runs, "r", [POKE])
    _rewrite_transcript(blanked, _blank_block)
    _rewrite_transcript(removed, lambda e: None if e.get("event") == "block" else e)
    before = {c["label"]: c["flags"] for c in _report([runs], tmp_path)["careers"]}
    assert before == {"g": 1, "b": 0, "r": 0}, "from the files alone the flag is gone"
    capsys.readouterr()
    assert pibench_main(["replay", str(blanked), "--check-transcripts"]) == 1
    out = capsys.readouterr().out
    assert "month 1 turn 1: the re-run observed integrity incidents import_refused" in out, out
    rep = _report([runs], tmp_path, "--check-transcripts")
    careers = {c["label"]: c for c in rep["careers"]}
    assert careers["g"]["status"] == "valid" and careers["g"]["flags"] == 1
    assert careers["g"]["integrity"] == {"import_refused": 1}
    assert careers["b"]["status"] == "invalid" and careers["b"]["flags"] == 1
    assert "the transcript records none" in careers["b"]["invalid_reason"]
    assert careers["r"]["status"] == "invalid"
    assert "month 1 turn 1: the reply's code ran, but the transcript records no block" in careers["r"]["invalid_reason"]


def test_a_block_output_edited_in_the_transcript_fails_the_transcript_check(tmp_path):
    """The output a block printed, edited in its transcript entry (the calls unchanged), is
    named as the block's output differing from the re-run's."""
    runs = tmp_path / "runs"
    run = _run(runs, "o", ["```python\nprint('hello')\n```"])
    _rewrite_transcript(run, lambda e: {**e, "output": "other"} if e.get("event") == "block" else e)
    (career,) = _report([runs], tmp_path, "--check-transcripts")["careers"]
    assert career["status"] == "invalid", career
    assert "month 1 turn 1: the block's output in the transcript is" in career["invalid_reason"]


def test_a_block_time_out_above_what_the_harness_allows_fails_the_transcript_check(tmp_path, monkeypatch, capsys):
    """A career whose first block loops forever (stopped at its 1 s time-out) and whose
    result.json then says ``block_timeout: 1e9``: no run of pibench records more than the
    harness's largest time-out (made 2 s here), so `pibench replay --check-transcripts` calls
    the run invalid at once, saying why (before, 1e9 made a check that never ended; then it
    was re-run with the bound and passed)."""
    from pibench_tui.harness import defaults

    runs = tmp_path / "runs"
    run = _run(runs, "h", ["```python\nwhile True:\n    pass\n```"], block_timeout=1.0)
    res = json.loads((run / "result.json").read_text())
    assert res["harness"]["block_timeout"] == 1.0
    res["harness"]["block_timeout"] = 1e9
    (run / "result.json").write_text(json.dumps(res))
    monkeypatch.setattr(defaults, "MAX_BLOCK_TIMEOUT", 2.0)
    capsys.readouterr()
    assert pibench_main(["replay", str(run), "--check-transcripts"]) == 1
    out = capsys.readouterr().out
    assert "block time-out 1e+09 s is more than the harness allows (2 s" in out, out


def test_a_transcript_check_has_a_total_budget_and_an_exhausted_one_is_never_valid(tmp_path, capsys):
    """A run whose recorded blocks each take their whole time-out (two loops forever, 1 s each:
    what a crafted run of many 3,600 s blocks does at scale) checked with ``--check-budget 1``
    through the real commands: `pibench replay` stops when the budget is spent, says
    ``unchecked ... log unchecked (budget exhausted after N of M blocks)`` (never ``valid``),
    records ``transcript_checked: false`` and exits 2; `pibench report --check-transcripts
    --check-budget 1` shows the career as unverified (kept out of every figure: an unfinished
    check proves nothing) and says why. Before, there was no budget: the check ran every
    block whatever it cost."""
    loop = "```python\nwhile True:\n    pass\n```"
    runs = tmp_path / "runs"
    run = _run(runs, "slow", [loop, loop], block_timeout=1.0)
    transcript = [json.loads(line) for line in (run / "transcript.jsonl").read_text().splitlines()]
    replies = sum(1 for e in transcript if e.get("event") == "llm")
    capsys.readouterr()
    assert pibench_main(["replay", str(run), "--check-budget", "1"]) == 2
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if str(run) in ln)
    assert line.startswith("unchecked  "), out
    assert re.search(rf"log unchecked \(budget exhausted after [01] of {replies} blocks\)", line), line
    res = json.loads((run / "result.json").read_text())
    assert res["replay"]["transcript_checked"] is False, res["replay"]
    rep = _report([runs], tmp_path, "--check-transcripts", "--check-budget", "1")
    text = capsys.readouterr().out
    assert "whose transcript check did not finish" in text and "budget exhausted after" in text, text
    (career,) = rep["careers"]
    assert career["status"] == "unverified" and career["counted"] is False, career
    assert career["transcript_check"] is None
    assert re.search(rf"budget exhausted after [01] of {replies} blocks", career["transcript_unchecked"])
    (row,) = rep["leaderboard"]
    assert row["mean"] is None and row["missing"] == 1, row


def test_the_check_budget_is_an_option_with_a_default_in_help(capsys):
    """``--check-budget`` shows its default in both commands' ``--help`` and refuses what is
    not a number of seconds it can use (0, NaN, inf)."""
    from pibench_tui.harness.defaults import CHECK_BUDGET

    for cmd in (["replay", "x"], ["report", "x"]):
        try:
            pibench_main([cmd[0], "--help"])
        except SystemExit:
            pass
        help_text = " ".join(capsys.readouterr().out.split())
        assert "--check-budget SECONDS" in help_text and f"(default {CHECK_BUDGET:g} s)" in help_text, help_text
        for bad in ("0", "nan", "inf", "soon"):
            try:
                code = pibench_main([*cmd, "--check-budget", bad])
            except SystemExit as exc:
                code = exc.code
            assert code == 2, (cmd, bad)
            assert "--check-budget" in capsys.readouterr().err


def test_a_transcript_of_another_seed_fails_the_transcript_check(tmp_path, capsys):
    """Seed 101's transcript copied into seed 102's run folder (the same quiet replies make the
    same calls and print nothing on both seeds, so the code re-runs cleanly): the conversation it records is
    not this career's. The check compares the start entry's seed and the month message the
    model was shown with what the re-run world shows, so `pibench replay` and `pibench report
    --check-transcripts` call the career invalid, naming the difference; before, both said
    "the 12 recorded replies make exactly the 12 logged calls" and the other career's tokens
    were counted. A start entry edited to say 102 still fails at the first month message that differs."""
    runs = tmp_path / "runs"
    res = run_careers(
        settings_for("short-12", model="m"), lambda: _Script([QUIET] * 12), [101, 102], runs, log=lambda _t: None
    )
    assert all(isinstance(r, dict) for r in res), res
    own, other = runs / "m" / "short-12-102", runs / "m" / "short-12-101"
    (own / "transcript.jsonl").write_bytes((other / "transcript.jsonl").read_bytes())
    capsys.readouterr()
    assert pibench_main(["replay", str(own)]) == 1
    out = capsys.readouterr().out
    assert "the transcript's start entry records seed 101, result.json seed 102" in out, out
    careers = {c["key"]: c for c in _report([runs], tmp_path, "--check-transcripts")["careers"]}
    assert careers["101"]["status"] == "valid", careers["101"]
    assert careers["102"]["status"] == "invalid", careers["102"]
    _rewrite_transcript(own, lambda e: {**e, "seed": 102} if e.get("event") == "start" else e)
    careers = {c["key"]: c for c in _report([runs], tmp_path, "--check-transcripts")["careers"]}
    assert careers["102"]["status"] == "invalid", careers["102"]
    assert (
        "turn 0: the month message in the transcript is not the one the re-run world shows"
        in (careers["102"]["invalid_reason"])
    )
