"""`pibench report` re-derives, it never believes (issue 25 §1, issue 28 "smaller"): every
Impact shown as valid was re-simulated by the report itself; sealed careers are keyed by
their commitment; a scenario is its content; careers that did not finish are listed and
counted as missing; the action log must come from the transcript."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pibench_tui.cli import main as pibench_main
from pibench_tui.cli.seeds import read_seal
from pibench_tui.harness.backends import Completion
from pibench_tui.harness.loop import run_careers
from tests.harness.conftest import settings_for

IDLE = "```python\ntime.next_month()\n```"
MENTOR = "```python\nfor e in events.pending():\n    events.respond(e['id'], 'decline')\ntime.next_month()\n```"


class _Instant:
    """A backend that gives the same reply every turn."""

    def __init__(self, reply: str) -> None:
        self.reply, self.name = reply, "instant"

    def describe(self):
        return {"backend": "instant"}

    def complete(self, messages):
        return Completion(text=self.reply, prompt_tokens=100, completion_tokens=10)


def _runs(out: Path, model: str, seeds: list[int], reply: str = IDLE, commitments: list[str] | None = None) -> None:
    res = run_careers(
        settings_for("short-12", model=model),
        lambda: _Instant(reply),
        seeds,
        out,
        log=lambda _t: None,
        commitments=commitments,
    )
    assert all(isinstance(r, dict) for r in res), res


def _report(paths: list[Path], tmp_path: Path, *extra: str, rc: int = 0) -> dict:
    out = tmp_path / "report.json"
    assert pibench_main(["report", *map(str, paths), "--json", str(out), *extra]) == rc
    return json.loads(out.read_text())


def _edit(run: Path, **changes) -> None:
    res = json.loads((run / "result.json").read_text())
    for k, v in changes.items():
        if v is _DROP:
            res.pop(k, None)
        else:
            res[k] = v
    (run / "result.json").write_text(json.dumps(res))


_DROP = object()


def _seal(tmp_path: Path, count: int) -> tuple[Path, list[dict]]:
    path = tmp_path / "seal.json"
    assert pibench_main(["seal", "--count", str(count), "--out", str(path)]) == 0
    return path, read_seal(path)["seeds"]


def test_report_counts_an_impact_only_when_it_re_simulated_the_career(tmp_path):
    """A result.json edited to Impact 5000 (seed null with a made-up commitment), to 777
    without its config, or to a string seed / a non-numeric impact, is never counted as
    that Impact: the made-up commitment is unverified (listed, counted as missing, out of the
    mean), the others invalid (Impact 0, with reasons); nothing crashes the report; the
    Impact shown for a valid career is the re-simulated one."""
    runs = tmp_path / "runs"
    _runs(runs, "m", [101, 102, 103, 104, 105])
    base = runs / "m"
    genuine = json.loads((base / "short-12-101" / "result.json").read_text())["impact"]["total"]
    made_up = "ab" * 32
    shutil.move(base / "short-12-102", base / f"short-12-sealed-{made_up[:12]}")
    _edit(base / f"short-12-sealed-{made_up[:12]}", seed=None, seed_commitment=made_up, impact={"total": 5000.0})
    _edit(base / "short-12-103", config=_DROP, impact={"total": 777.0, "earned": 777.0, "projection": 0.0})
    _edit(base / "short-12-104", seed="104")
    _edit(base / "short-12-105", impact="lots")
    rep = _report([runs], tmp_path)
    (row,) = rep["leaderboard"]
    status = {c["key"]: c["status"] for c in rep["careers"]}
    assert status == {"101": "valid", f"sealed:{made_up[:12]}": "unverified", "103": "invalid", "104": "invalid",
                      "105": "invalid"}, status  # fmt: skip
    assert row["seeds"] == {"101": genuine, "103": 0.0, "104": 0.0, "105": 0.0}
    assert row["missing"] == 1 and row["mean"] == genuine / 4
    reasons = " ".join(row["invalid_reasons"])
    assert "no config" in reasons and "'104' is not an integer" in reasons and "'lots'" in reasons
    trusted = _report([runs], tmp_path, "--trust-unverified")
    (row,) = trusted["leaderboard"]
    assert row["seeds"][f"sealed:{made_up[:12]}"] == 5000.0 and row["missing"] == 0


def test_a_sealed_career_edited_after_unsealing_is_invalid_and_sealed_careers_pair_by_commitment(tmp_path):
    """Two models with identical play on the same two sealed seeds pair by commitment: Δ 0,
    wins 0/2, both careers in each row under `sealed:<prefix>` columns (before: every sealed
    career was keyed None, Δ −204 and one career vanished). Without --seal they are
    unverified and out of every mean; with --seal they are re-simulated, and one edited after
    `pibench replay --seal` (which wrote valid: true) is invalid."""
    seal, rows = _seal(tmp_path, 2)
    seeds, commits = [int(r["seed"]) for r in rows], [r["commitment"] for r in rows]
    runs = tmp_path / "runs"
    _runs(runs, "a", seeds, commitments=commits)
    _runs(runs, "b", seeds, commitments=commits)
    keys = {f"sealed:{c[:12]}" for c in commits}
    blind = _report([runs], tmp_path)
    assert all(r["n"] == 0 and r["missing"] == 2 for r in blind["leaderboard"])
    rep = _report([runs], tmp_path, "--seal", str(seal), "--reference", "a")
    board = {r["label"]: r for r in rep["leaderboard"]}
    assert set(board["a"]["seeds"]) == keys and set(board["b"]["seeds"]) == keys
    assert board["b"]["vs_reference"]["n"] == 2 and board["b"]["vs_reference"]["mean"] == 0.0
    assert board["b"]["vs_reference"]["wins"] == 0
    assert all(c["seed"] is None for c in rep["careers"]), "the report never names a sealed seed"
    one = runs / "b" / f"short-12-sealed-{commits[0][:12]}"
    assert pibench_main(["replay", str(one), "--seal", str(seal)]) == 0
    _edit(one, impact={"total": 5000.0, "earned": 5000.0, "projection": 0.0})
    rep = _report([runs], tmp_path, "--seal", str(seal), "--reference", "a")
    board = {r["label"]: r for r in rep["leaderboard"]}
    assert board["b"]["invalid"] == 1 and board["b"]["seeds"][f"sealed:{commits[0][:12]}"] == 0.0


def test_a_scenario_is_its_content_not_its_name(tmp_path):
    """Careers of a scenario file named like a bundled one with one changed parameter are
    shown as modified (with their config hash) and never paired with the bundled
    scenario's careers; the bundled one is shown by its name."""
    toml = (Path(__file__).parents[2] / "scenarios" / "short-12.toml").read_text()
    fake = tmp_path / "short-12.toml"
    fake.write_text(toml.replace("months = 12", "months = 12\nstart_budget = 5000000.0", 1))
    real_dir, fake_dir = tmp_path / "real", tmp_path / "fake"
    for scen, out in (("short-12", real_dir), (str(fake), fake_dir)):
        assert pibench_main(["run", "do-nothing", "--scenario", scen, "--seeds", "101", "--save-runs", str(out)]) == 0
    assert (
        pibench_main(["run", "baseline", "--scenario", "short-12", "--seeds", "101", "--save-runs", str(real_dir)]) == 0
    )
    rep = _report([real_dir, fake_dir], tmp_path, "--reference", "baseline · short-12")
    scenarios = sorted(rep["scenarios"])
    assert scenarios[0] == "short-12" and scenarios[1].startswith("short-12 (modified "), scenarios
    board = {r["label"]: r for r in rep["leaderboard"]}
    assert board["do-nothing · short-12"]["vs_reference"]["n"] == 1
    modified = next(k for k in board if "modified" in k)
    assert board[modified]["vs_reference"] is None
    hashes = {c["scenario"]: c["config_hash"] for c in rep["careers"]}
    assert hashes["short-12"] != hashes[scenarios[1]] and scenarios[1].endswith(f"{hashes[scenarios[1]][:8]})")


def test_unfinished_crashed_and_copied_careers_are_listed_and_never_lift_a_mean(tmp_path):
    """An unfinished career (a checkpoint), a crashed one (a transcript only) are listed in
    rows of their own and counted in the label's "missing" column; a good seed's run folder
    copied over a bad seed's is invalid under the bad seed (before: it lifted the mean with
    only a note)."""
    runs = tmp_path / "runs"
    _runs(runs, "m", [101], reply=MENTOR)
    _runs(runs, "m", [102])
    base = runs / "m"
    good = json.loads((base / "short-12-101" / "result.json").read_text())["impact"]["total"]
    shutil.rmtree(base / "short-12-102")
    shutil.copytree(base / "short-12-101", base / "short-12-102")
    (base / "short-12-103").mkdir()
    (base / "short-12-103" / "checkpoint.json").write_text(json.dumps({"month": 5, "settings": {}}))
    (base / "short-12-104").mkdir()
    (base / "short-12-104" / "transcript.jsonl").write_text('{"event":"start"}\n')
    rep = _report([runs], tmp_path)
    (row,) = rep["leaderboard"]
    assert row["seeds"] == {"101": good, "102": 0.0} and row["invalid_seeds"] == ["102"]
    assert row["missing"] == 2 and row["missing_seeds"] == {"103": "unfinished", "104": "crashed"}
    assert "copied run folder" in row["invalid_reasons"][0]


def test_another_labels_run_folder_copied_in_counts_as_zero_for_this_label(tmp_path):
    """Model B's crashed seed replaced by model A's finished folder of the same seed: the
    copy is invalid and counted as 0 under B (before: it went to A's row as a duplicate and
    B's row lost its bad seed)."""
    runs = tmp_path / "runs"
    _runs(runs, "a", [101, 102])
    _runs(runs, "b", [101])
    shutil.copytree(runs / "a" / "short-12-102", runs / "b" / "short-12-102")
    rep = _report([runs], tmp_path, "--reference", "a")
    board = {r["label"]: r for r in rep["leaderboard"]}
    assert board["b"]["invalid_seeds"] == ["102"] and board["b"]["n"] == 2
    assert board["a"]["n"] == 2 and board["a"]["invalid"] == 0


def test_an_action_log_pasted_from_another_career_fails_the_transcript_check(tmp_path, capsys):
    """The hidden-state oracle's action log (and its Impact and digest) pasted into an LLM's
    run directory replays as valid from the files alone (`pibench replay
    --no-check-transcripts`, which says the transcript was not checked), but `pibench replay`
    (its default) and `pibench report --check-transcripts` re-run the recorded code in a
    fresh agent process, find calls other than the logged ones, and name the first
    divergence; the genuine career passes the check. Without the check, the report marks
    the pasted career's Impact "log unchecked" and says under the table that the action logs
    were not checked against the transcripts."""
    runs = tmp_path / "runs"
    _runs(runs, "m", [101, 102])
    oracle = tmp_path / "oracle"
    assert pibench_main(["run", "oracle", "--scenario", "short-12", "--seeds", "101", "--save-runs", str(oracle)]) == 0
    (odir,) = [d for d in oracle.rglob("result.json")]
    ores = json.loads(odir.read_text())
    target = runs / "m" / "short-12-101"
    shutil.copy(odir.parent / "actions.jsonl", target / "actions.jsonl")
    _edit(target, impact=ores["impact"], digest=ores["digest"], memory_final="")
    capsys.readouterr()
    assert pibench_main(["replay", str(target), "--no-check-transcripts"]) == 0, "from the files alone it replays"
    assert "its transcript was NOT checked (--no-check-transcripts)" in capsys.readouterr().out
    assert json.loads((target / "result.json").read_text())["replay"]["transcript_checked"] is False
    assert pibench_main(["replay", str(target)]) == 1, "pibench replay checks the transcript by default"
    assert "month 1 turn 1: call 1 of the log is" in capsys.readouterr().out
    assert pibench_main(["replay", str(target), "--check-transcripts"]) == 1
    unchecked = _report([runs], tmp_path)
    assert {c["key"]: c["log_unchecked"] for c in unchecked["careers"]} == {"101": True, "102": True}
    capsys.readouterr()
    html_path = tmp_path / "r.html"
    assert pibench_main(["report", str(runs), "--html", str(html_path)]) == 0
    shown = capsys.readouterr().out
    assert "§ log unchecked: the action logs of 2 agent careers were NOT checked against their transcripts" in (
        " ".join(shown.split())
    ), shown
    assert "log unchecked" in html_path.read_text() and "were NOT checked against their transcripts" in (
        html_path.read_text()
    )
    rep = _report([runs], tmp_path, "--check-transcripts")
    status = {c["key"]: (c["status"], c["invalid_reason"]) for c in rep["careers"]}
    assert status["102"] == ("valid", None)
    assert status["101"][0] == "invalid" and "month 1 turn 1: call 1 of the log is" in status["101"][1], status
    assert "not deterministic" in status["101"][1]
    assert not any(c["log_unchecked"] for c in rep["careers"])


#: Agent code whose calls depend on its own ``random`` and on its variables across turns.
RANDOM_PLAY = """```python
import random
try:
    seen += 1
except NameError:
    seen = 0
for e in events.pending():
    events.respond(e['id'], 'accept' if random.random() < 0.5 else 'decline')
if random.random() < 0.3 or seen > 2:
    time.next_month()
```"""


class _Stopping(_Instant):
    """Sets ``stop`` after ``after`` replies (a Ctrl-C in the middle of a month)."""

    def __init__(self, reply: str, stop, after: int) -> None:
        super().__init__(reply)
        self.stop, self.after, self.n = stop, after, 0

    def complete(self, messages):
        self.n += 1
        if self.n == self.after:
            self.stop.set()
        return super().complete(messages)


def test_the_transcript_check_passes_resumed_and_sealed_careers_whose_code_uses_random(tmp_path):
    """A genuine career interrupted mid-month and resumed (its agent variables lost, a fresh
    agent process), and sealed careers whose agent ``random`` was seeded from secret entropy,
    pass `pibench report --check-transcripts` (the re-run gets the recorded seeds and restarts
    where the career did); tokens and flags are the transcript's even when result.json says
    otherwise."""
    import threading

    from pibench_tui.harness.loop import CareerInterrupted, run_career

    runs = tmp_path / "runs"
    stop = threading.Event()
    settings = settings_for("short-12", model="r")
    try:
        run_career(settings, _Stopping(RANDOM_PLAY, stop, 9), 101, runs, log=lambda _t: None, stop=stop)
    except CareerInterrupted:
        pass
    else:
        raise AssertionError("the career was not interrupted")
    run_career(settings, _Instant(RANDOM_PLAY), 101, runs, log=lambda _t: None)
    transcript = (runs / "r" / "short-12-101" / "transcript.jsonl").read_text()
    assert '"event":"resume"' in transcript
    seal, rows = _seal(tmp_path, 2)
    _runs(runs, "s", [int(r["seed"]) for r in rows], RANDOM_PLAY, [r["commitment"] for r in rows])
    _edit(runs / "r" / "short-12-101", tokens={"prompt": 1, "completion": 0, "total": 1})
    rep = _report([runs], tmp_path, "--seal", str(seal), "--check-transcripts")
    checks = {c["key"]: (c["status"], c["transcript_check"]) for c in rep["careers"]}
    assert all(status == "valid" and "make exactly" in check for status, check in checks.values()), checks
    r_row = next(r for r in rep["leaderboard"] if r["label"] == "r")
    llm_lines = [json.loads(line) for line in transcript.splitlines() if '"event":"llm"' in line]
    assert r_row["tokens_total"] == sum(e["prompt_tokens"] + e["completion_tokens"] for e in llm_lines) > 1


def test_junk_result_fields_and_a_copy_with_its_seed_edited_never_crash_or_count(tmp_path):
    """Held-out spellings of the report attacks: result.json as a list, a float or a
    63-bit-overflowing seed, a bool or NaN-string Impact, junk token counts, and a good seed's
    folder copied over a bad seed's with its ``seed`` edited to match the folder. ``pibench
    report`` still writes its leaderboard; each such career is invalid and counted as 0."""
    runs = tmp_path / "runs"
    _runs(runs, "m", [101, 102, 103, 104, 105], reply=MENTOR)
    base = runs / "m"
    (base / "short-12-101" / "result.json").write_text("[1, 2]")
    _edit(base / "short-12-102", seed=102.0, impact=True)
    _edit(base / "short-12-103", seed=10**400, tokens={"total": "x"}, llm="y")
    shutil.rmtree(base / "short-12-104")
    shutil.copytree(base / "short-12-105", base / "short-12-104")
    _edit(base / "short-12-104", seed=104)
    rep = _report([runs], tmp_path)
    (row,) = rep["leaderboard"]
    assert row["n"] == 5 and row["invalid_seeds"] == ["101", "102", "103", "104"], row
    assert row["seeds"] == dict.fromkeys(["101", "102", "103", "104"], 0.0) | {"105": row["seeds"]["105"]}
    assert any("copied run folder" in r or "digest differs" in r for r in row["invalid_reasons"])
