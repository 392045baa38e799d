"""A transcript check the budget cuts short proves nothing, so the report does not count it,
and a run's own claims cannot spend the budget (QA pass 6 F9).

The forgery: an idle career's folder with another career's action log, Impact and digest
pasted in (issue 25's hidden-oracle paste, INVALID under the check), plus a first block that
"timed out" at 3,600 s with result.json's block time-out edited to 3,600 s (and, for a
forgery the check cannot contradict, the recorded system prompt and its hashes too; left as
they were, the records contradict each other: INVALID). Before, the check
spent its whole budget on that block and called the log "unchecked"; the report then counted
the pasted Impact in the label's mean and pairs, and only a footnote said so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pibench_tui.cli import main as pibench_main
from tests.evidence.test_transcript_check import _report, _rewrite_transcript, _run
from tests.harness.scripted_pi import baseline_reply

LOOP = "```python\nwhile True:\n    pass\n```"


def _forge(runs: Path, *, prompt_too: bool = True) -> Path:
    """``runs/noop``'s career with ``runs/base``'s log, Impact and digest, and a first block
    recorded as stopped at a 3,600 s time-out; ``prompt_too``: the system prompt the
    transcript records says 3,600 s per block too, and its hash is edited wherever recorded
    (a forgery consistent in every record the check reads)."""
    import hashlib

    base, noop = runs / "base" / "short-12-101", runs / "noop" / "short-12-101"
    b = json.loads((base / "result.json").read_text())
    n = json.loads((noop / "result.json").read_text())
    n["impact"], n["digest"] = b["impact"], b["digest"]
    n["harness"]["block_timeout"] = 3600.0
    if prompt_too:
        lines = [json.loads(line) for line in (noop / "transcript.jsonl").read_text().splitlines()]
        (system,) = [e["content"] for e in lines if e.get("event") == "system"]
        assert system.endswith("; 20 s per block.")
        forged = system.replace("; 20 s per block.", "; 3600 s per block.")
        sha = hashlib.sha256(forged.encode("utf-8")).hexdigest()
        n["harness"]["prompt_sha256"] = sha

        def prompt(e: dict) -> dict:
            if e.get("event") == "system":
                return {**e, "content": forged}
            if e.get("event") == "start":
                return {**e, "settings": {**e["settings"], "prompt_sha256": sha}}
            return e

        _rewrite_transcript(noop, prompt)
    (noop / "result.json").write_text(json.dumps(n))
    for name in ("actions.jsonl", "months.jsonl", "eval.json"):
        shutil.copy(base / name, noop / name)
    message = "the block ran longer than 3600 s and was stopped"

    def loop_first(e: dict) -> dict:
        if (e.get("month"), e.get("turn")) != (1, 1):
            return e
        if e.get("event") == "llm":
            return {**e, "reply": LOOP}
        if e.get("event") == "block":
            error = {"type": "BlockTimeout", "message": message, "line": 1, "source": "pibench"}
            return {**e, "code": "while True:\n    pass\n", "ok": False, "output": "", "calls": 0, "seconds": 3600.2,
                    "error": error, "integrity": ["timeout"]}  # fmt: skip
        return e

    _rewrite_transcript(noop, loop_first)
    return noop


def test_a_check_cut_short_by_its_budget_keeps_the_career_out_of_every_figure(tmp_path, capsys):
    """Through the real commands: `pibench replay` of the forged folder says ``unchecked``
    (exit 2) without spending the budget on a 3,600 s block it cannot finish; `pibench report
    --check-transcripts --check-budget 5` shows that career as unverified: not in the mean,
    no pair with the label it was pasted from, counted as missing and named in a note; with
    ``--trust-unverified`` it is counted, marked. Before, it was valid and its pasted Impact
    entered the mean."""
    runs = tmp_path / "runs"
    _run(runs, "base", [baseline_reply()] * 12)
    _run(runs, "noop", [])
    logs = [(runs / m / "short-12-101" / "actions.jsonl").read_text() for m in ("base", "noop")]
    assert logs[0] != logs[1], "the pasted log must be another career's for the test to mean anything"
    pasted = json.loads((runs / "base" / "short-12-101" / "result.json").read_text())["impact"]["total"]
    noop = _forge(runs)
    capsys.readouterr()
    assert pibench_main(["replay", str(noop), "--check-budget", "5"]) == 2
    out = capsys.readouterr().out
    assert "unchecked" in out and "budget exhausted after 0 of" in out, out
    rep = _report([runs], tmp_path, "--check-transcripts", "--check-budget", "5")
    text = capsys.readouterr().out
    careers = {c["label"]: c for c in rep["careers"]}
    assert careers["base"]["status"] == "valid", careers["base"]
    forged = careers["noop"]
    assert forged["status"] == "unverified" and forged["counted"] is False, forged
    assert "transcript check did not finish" in forged["invalid_reason"], forged
    assert "month 1 turn 1: the transcript records the block stopped at its 3600 s time-out" in forged["invalid_reason"]
    rows = {r["label"]: r for r in rep["leaderboard"]}
    assert rows["noop"]["mean"] is None and rows["noop"]["n"] == 0, rows["noop"]
    assert rows["noop"]["missing"] == 1, rows["noop"]
    assert all(p.get("n", 0) == 0 for p in rep.get("pairs", []) if "noop" in (p.get("a"), p.get("b"))), rep["pairs"]
    assert "whose transcript check did not finish" in " ".join(text.split()), text
    trusted = _report([runs], tmp_path, "--check-transcripts", "--check-budget", "5", "--trust-unverified")
    row = next(r for r in trusted["leaderboard"] if r["label"] == "noop")
    assert row["mean"] == pasted and row["unverified_seeds"] == ["101"], row


def test_a_time_out_edited_in_result_json_and_the_block_but_not_in_the_prompt_is_invalid(tmp_path, capsys):
    """Issue 25 residue: the forgery above with the system prompt (and its hashes) left as the
    model saw them, "20 s per block": the records contradict each other, so `pibench replay`
    and `pibench report --check-transcripts` call the career INVALID, naming both time-outs;
    before, it came out unverified (not counted, but not refused). A system prompt edited
    without its recorded hash is invalid too."""
    runs = tmp_path / "runs"
    _run(runs, "base", [baseline_reply()] * 12)
    _run(runs, "noop", [])
    noop = _forge(runs, prompt_too=False)
    capsys.readouterr()
    assert pibench_main(["replay", str(noop), "--check-budget", "5"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    said = "result.json's block time-out (3600 s, harness.block_timeout) is not the 20 s the career's system prompt"
    assert said in out, out
    careers = {
        c["label"]: c for c in _report([runs], tmp_path, "--check-transcripts", "--check-budget", "5")["careers"]
    }
    assert careers["noop"]["status"] == "invalid" and said in careers["noop"]["invalid_reason"], careers["noop"]
    assert careers["base"]["status"] == "valid", careers["base"]
    _rewrite_transcript(
        runs / "base" / "short-12-101",
        lambda e: {**e, "content": e["content"] + " "} if e.get("event") == "system" else e,
    )
    assert pibench_main(["replay", str(runs / "base" / "short-12-101")]) == 1
    assert "is not the one the transcript's start entry names (prompt_sha256" in capsys.readouterr().out


def test_a_block_recorded_as_fast_that_runs_on_is_a_divergence_not_a_timeout(tmp_path, monkeypatch):
    """A block entry recording a quick, successful block under a reply whose code loops: the
    re-run is stopped at its recorded seconds × CHECK_SLOWDOWN + CHECK_MARGIN (made 1 × and
    0.5 s here) and the career is invalid, the block named; before, the loop ran until the
    block's time-out or the budget and the career came out "log unchecked", counted."""
    from pibench_tui.harness import defaults

    runs = tmp_path / "runs"
    run = _run(runs, "fast", ["```python\nprint('hi')\n```"])
    _rewrite_transcript(run, lambda e: {**e, "reply": LOOP} if e.get("event") == "llm" and e.get("turn") == 1
                        and e.get("month") == 1 else e)  # fmt: skip
    monkeypatch.setattr(defaults, "CHECK_SLOWDOWN", 1.0, raising=False)
    monkeypatch.setattr(defaults, "CHECK_MARGIN", 0.5, raising=False)
    (career,) = _report([runs], tmp_path, "--check-transcripts", "--check-budget", "10")["careers"]
    assert career["status"] == "invalid", career
    reason = career["invalid_reason"]
    assert "month 1 turn 1: the re-run block was still running after" in reason, reason
    assert "the transcript records it finished in" in reason, reason


def test_a_recorded_time_out_at_another_limit_than_the_careers_is_a_divergence(tmp_path, capsys):
    """A block recorded as stopped at 3,600 s while result.json says the career's time-out was
    1 s: invalid, both named (the re-run would not stop where the transcript says it did);
    a block time-out above what the harness allows is invalid too."""
    runs = tmp_path / "runs"
    run = _run(runs, "t", [LOOP], block_timeout=1.0)

    def claim(e: dict) -> dict:
        if e.get("event") == "block" and e.get("error"):
            return {**e, "error": {**e["error"], "message": "the block ran longer than 3600 s and was stopped"}}
        return e

    _rewrite_transcript(run, claim)
    (career,) = _report([runs], tmp_path, "--check-transcripts")["careers"]
    assert career["status"] == "invalid", career
    assert "stopped at a time-out of 3600 s, but the career's block time-out" in career["invalid_reason"], career
