"""Files a report reads on the word of the evidence (QA pass 8, issue 25 §1-2): a `run
--json` file names its scenario, a run folder may hold more than a run's files, and a
transcript may be damaged in its middle. Each is either read within the rules (size
limits, no links, only pibench's own scenarios) or makes the career visibly invalid; none
hangs the report, hides a career or silently shortens a count. Mounted through the real
``pibench`` command."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from tests.evidence.test_run_dirs import _agent_run
from tests.headless.conftest import run_pibench


def _report(paths: list[Path], tmp_path: Path) -> tuple[dict, str]:
    out = tmp_path / "r.json"
    rep = run_pibench(["report", *map(str, paths), "--json", str(out)], home=tmp_path / "home", timeout=90)
    assert rep.returncode == 0 and "Traceback" not in rep.stderr, rep.stderr
    return json.loads(out.read_text()), rep.stdout + rep.stderr


def test_a_run_json_file_names_only_a_bundled_scenario(tmp_path):
    """A `pibench run --json` file records its scenario by name (never a path or a config).
    One whose `scenario` names a FIFO `x.toml` hung `pibench report` for ever (it opened the
    file to load the scenario); one naming any other path read that file. Now only a bundled
    scenario's name is loaded: the rows of another are unverified, saying why, and the report
    ends. The genuine file's rows are re-derived as before."""
    base = tmp_path / "base.json"
    rc = run_pibench(["run", "baseline", "--scenario", "short-12", "--seeds", "101", "--json", str(base)])
    assert rc.returncode == 0, rc.stderr
    fifo = tmp_path / "evil.toml"
    os.mkfifo(fifo)
    data = json.loads(base.read_text())
    data["scenario"] = str(fifo)
    planted = tmp_path / "planted.json"
    planted.write_text(json.dumps(data))
    rep, text = _report([base, planted], tmp_path)
    statuses = {c["source"]: c for c in rep["careers"]}
    assert statuses[str(base)]["status"] == "valid", statuses
    odd = statuses[str(planted)]
    assert odd["status"] == "unverified", odd
    assert "is not a scenario bundled with pibench" in odd["invalid_reason"], odd


def test_a_folder_inside_a_run_folder_is_listed_not_skipped(tmp_path):
    """A bad seed's run folder moved inside another run folder (`short-12-101/short-12-102`)
    vanished from `pibench report`: the walk stopped at the outer run folder. A run folder
    holds no folders, so each one found there is listed as not a run, naming the folder, by
    the report and by `pibench replay`."""
    runs = tmp_path / "runs"
    run = _agent_run(runs)
    hidden = run / "short-12-102"
    shutil.copytree(run, hidden)
    rep, text = _report([runs], tmp_path)
    foreign = {f["source"]: f["reason"] for f in rep["foreign"]}
    assert str(hidden) in foreign, rep["foreign"]
    assert "a folder inside the run folder" in foreign[str(hidden)]
    assert "a folder inside the run folder" in text
    rp = run_pibench(["replay", str(runs)], home=tmp_path / "home")
    assert f"not a run  {hidden}: " in rp.stdout and rp.returncode == 0, rp.stdout + rp.stderr


def test_an_abandoned_transcript_that_is_a_link_or_a_fifo_makes_the_career_invalid(tmp_path):
    """The transcripts of careers set aside by `--redo-failed` (`abandoned-N.transcript.jsonl`)
    hold tokens the report counts as abandoned. One replaced by a link (to /dev/zero) or a
    FIFO was skipped in silence, so its tokens vanished from the cost; a run folder's file
    that is a link or not a regular file makes its career invalid, as for every other file."""
    run = _agent_run(tmp_path / "runs")
    os.symlink("/dev/zero", run / "abandoned-1.transcript.jsonl")
    rep, _text = _report([run], tmp_path)
    (career,) = rep["careers"]
    assert career["status"] == "invalid", career
    assert "abandoned-1.transcript.jsonl is a symbolic link" in career["invalid_reason"], career
    os.remove(run / "abandoned-1.transcript.jsonl")
    os.mkfifo(run / "abandoned-1.transcript.jsonl")
    rep, _text = _report([run], tmp_path)
    (career,) = rep["careers"]
    assert career["status"] == "invalid", career
    assert "not a regular file" in career["invalid_reason"], career


def test_a_transcript_line_that_is_not_json_makes_the_career_invalid(tmp_path):
    """A finished career's transcript with a line that is not JSON (invalid UTF-8 bytes) in
    its middle: the report stopped reading there and counted the calls before it (1 call,
    the tokens of month 1), a valid career with a shortened cost. The line is damage: the
    career is invalid, naming the file and the line."""
    run = _agent_run(tmp_path / "runs")
    lines = (run / "transcript.jsonl").read_bytes().split(b"\n")
    lines.insert(5, b"\xff\xfe not json")
    (run / "transcript.jsonl").write_bytes(b"\n".join(lines))
    rep, _text = _report([run], tmp_path)
    (career,) = rep["careers"]
    assert career["status"] == "invalid", career
    assert "transcript.jsonl: line 6 is not JSON" in career["invalid_reason"], career


def test_an_unfinished_careers_month_is_a_number_or_unknown(tmp_path):
    """An unfinished career (checkpoint.json, no result.json) whose checkpoint's `month` is a
    100,000-character text: the report quoted it whole in its reason, in the terminal's "not
    counted" lines and the HTML page. The month shown is a number or "unknown"."""
    run = _agent_run(tmp_path / "runs")
    os.remove(run / "result.json")
    (run / "checkpoint.json").write_text(json.dumps({"month": "\x1b]0;x\x07" * 20_000}))
    rep, text = _report([run], tmp_path)
    (career,) = rep["careers"]
    assert career["status"] == "unfinished", career
    assert career["invalid_reason"].startswith("the career stopped in month unknown"), career["invalid_reason"][:200]
    assert len(career["invalid_reason"]) < 200 and len(text) < 20_000


def test_prompt_token_counts_edited_down_are_noted(tmp_path):
    """Token counts are the provider's as each `llm` entry records them; a career's counts
    edited down (every call 1 prompt token) passed `pibench report --check-transcripts` as
    valid with 12 tokens, no word. The report holds them against the characters / 4 of the
    requests the transcript records and notes a career below half of that, naming it; an
    honest count (here the backend reports characters / 4) gets no note."""
    from pibench_tui.harness.backends import Completion
    from pibench_tui.harness.limits import estimate_tokens
    from pibench_tui.harness.loop import run_careers
    from tests.harness.conftest import settings_for

    class Honest:
        name = "honest"

        def describe(self):
            return {"backend": "instant"}

        def complete(self, messages):
            return Completion(text="```python\n_ = time.next_month()\n```", prompt_tokens=estimate_tokens(messages),
                              completion_tokens=5)  # fmt: skip

    runs = tmp_path / "runs"
    run_careers(settings_for("short-12", model="honest"), Honest, [101, 102], runs, log=lambda _t: None)
    rep, text = _report([runs, "--check-transcripts"], tmp_path)
    assert all(c["status"] == "valid" for c in rep["careers"]), rep["careers"]
    assert "prompt tokens than half" not in text
    run = runs / "honest" / "short-12-102"
    lines = [json.loads(x) for x in (run / "transcript.jsonl").read_text().splitlines()]
    edited = [{**e, "prompt_tokens": 1} if e.get("event") == "llm" else e for e in lines]
    (run / "transcript.jsonl").write_text("".join(json.dumps(e) + "\n" for e in edited))
    rep, text = _report([runs, "--check-transcripts"], tmp_path)
    careers = {c["key"]: c for c in rep["careers"]}
    assert careers["102"]["status"] == "valid" and careers["102"]["prompt_tokens"] == 12, careers["102"]
    flat = " ".join(text.split())
    assert "honest: 1 career record fewer prompt tokens than half the characters / 4" in flat, flat[-3000:]
    assert "102: 12 of ~" in flat
