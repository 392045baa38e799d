"""Pivot evaluation and scoring (PIVOTS.md "How it is used"; issue 24 part 3): the real
`pibench pivots` command against a local chat-completions server, strict answers, both
orders, resume after a kill, refused bad input, and the two bootstraps."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pibench_tui.pivots.cases import PivotFileError, load_cases, load_key
from pibench_tui.pivots.prompt import approx_tokens, case_messages, parse_answer
from pibench_tui.pivots.score import case_scores, paired_difference, score_run
from tests.harness.fakellm import FakeLLM, Reply, Sleep
from tests.pivots.casesets import make_set, record_at


@pytest.fixture(scope="module")
def caseset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six cases from three baseline careers, keys alternating A/B."""
    return make_set(tmp_path_factory.mktemp("pv") / "set")


def pibench(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pibench_tui", *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def _line(case_id: str, order: str, pick: str) -> dict[str, str]:
    """An answer line as `pivots eval` writes it: the reply names the shown number of ``pick``."""
    return {"id": case_id, "order": order, "answer": pick, "raw": f"ANSWER: {1 if order[0] == pick else 2}"}


def _key(caseset: Path) -> dict[str, str]:
    return {k.id: k.better for k in load_key(caseset / "key.jsonl").values()}


def _oracle_brain(caseset: Path, garbage_ids: set[str] = frozenset()):  # type: ignore[assignment]
    """Answers each session with the key's plan, translated to the shown order; cases in
    ``garbage_ids`` get a reply without an ANSWER line."""
    key = _key(caseset)

    def brain(request: dict, index: int) -> Reply:
        content = request["messages"][1]["content"]
        cid = re.search(r"Question (t-\d{4})\?", content).group(1)  # type: ignore[union-attr]
        if cid in garbage_ids:
            return Reply("I think the first one is better, probably.")
        shown_first = "A" if "Plan 1: Plan alpha" in content else "B"
        pick = "1" if key[cid] == shown_first else "2"
        return Reply(f"Reasoning.\nANSWER: {pick}")

    return brain


def test_first_judge_scores_exactly_half_over_both_orders(caseset: Path, tmp_path: Path) -> None:
    """The scripted judge `first` (always the plan shown first) is right in exactly one order
    of every case: accuracy 0.5 with a degenerate interval, and 100 % first-plan picks."""
    run = tmp_path / "first"
    r = pibench("pivots", "eval", "--cases", str(caseset), "--judge", "first", "--out", str(run))
    assert r.returncode == 0, r.stderr
    assert "12 of 12 sessions answered" in r.stderr
    out = tmp_path / "score.json"
    s = pibench("pivots", "score", str(run), "--json", str(out))
    assert s.returncode == 0, s.stderr
    overall = json.loads(out.read_text())["runs"][0]["overall"]
    assert overall["accuracy"] == 0.5
    assert overall["ci_cases"] == [0.5, 0.5]
    assert overall["first_plan_share"] == 1.0


def test_score_table_and_json_have_a_row_per_kind_and_per_capability(caseset: Path, tmp_path: Path) -> None:
    """`pivots score` prints, under each run's row, a row per decision kind and a row per
    capability (PIVOTS.md: per kind AND per capability; before, only kinds were printed),
    and the JSON's by_capability names the kinds each capability covers."""
    run = tmp_path / "first"
    assert pibench("pivots", "eval", "--cases", str(caseset), "--judge", "first", "--out", str(run)).returncode == 0
    out = tmp_path / "score.json"
    s = pibench("pivots", "score", str(run), "--json", str(out))
    assert s.returncode == 0, s.stderr
    caps = {c.capability: c.kind for c in load_cases(caseset)}
    table = s.stdout.split("by capability:")[1]
    for cap in caps:
        assert cap in table, cap
    assert "by kind:" in s.stdout
    by_cap = json.loads(out.read_text())["runs"][0]["by_capability"]
    assert {k: v["kinds"] for k, v in by_cap.items()} == {k: [v] for k, v in caps.items()}
    assert all(v["accuracy"] == 0.5 for v in by_cap.values())


def test_eval_against_a_chat_server_asks_both_orders_and_maps_answers_back(caseset: Path, tmp_path: Path) -> None:
    """Against a real local chat-completions server, each case is asked in two fresh
    conversations with the plans swapped; a model that always names the key's plan scores 1.0
    (so the mapping from 'Plan 1/2' back to A/B is right in both orders); garbage replies
    (no ANSWER line) score wrong and are counted unanswered."""
    garbage = {"t-0003"}
    with FakeLLM(_oracle_brain(caseset, garbage)) as server:
        run = tmp_path / "m"
        r = pibench(
            "pivots", "eval", "--cases", str(caseset), "--model", "fake", "--base-url", server.base_url,
            "--api-key-env", "PIBENCH_TEST_NO_KEY", "--out", str(run),
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        assert len(server.requests) == 12
        firsts = {(req["messages"][1]["content"].find("Plan 1: Plan alpha") >= 0) for req in server.requests}
        assert firsts == {True, False}  # both orders were shown
        assert all(len(req["messages"]) == 2 for req in server.requests)  # fresh conversations
    cases = load_cases(caseset)
    answers = [json.loads(x) for x in (run / "answers.jsonl").read_text().splitlines()]
    scored = score_run(cases, load_key(caseset, cases), answers)
    assert scored["overall"]["unanswered"] == 2
    assert scored["overall"]["accuracy"] == pytest.approx(5 / 6)
    per = {c["id"]: c["accuracy"] for c in scored["cases"]}
    assert per["t-0003"] == 0.0 and per["t-0001"] == 1.0


def test_eval_resumes_after_kill_9_asking_only_what_is_missing(caseset: Path, tmp_path: Path) -> None:
    """A `pibench pivots eval` killed with SIGKILL mid-way keeps its answered sessions; the
    same command asks only the missing ones, and every (case, order) is answered once."""

    def brain(request: dict, index: int) -> Reply | Sleep:
        if index >= 4:
            return Sleep(30.0)  # the kill comes while this one waits
        return Reply("ANSWER: 1")

    run = tmp_path / "killed"
    with FakeLLM(brain) as server:
        args = [
            sys.executable, "-m", "pibench_tui", "pivots", "eval", "--cases", str(caseset), "--model", "fake",
            "--base-url", server.base_url, "--api-key-env", "PIBENCH_TEST_NO_KEY", "--out", str(run),
            "--request-timeout", "60",
        ]  # fmt: skip
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(server.requests) < 5:
            time.sleep(0.05)
        assert len(server.requests) >= 5
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    kept = (run / "answers.jsonl").read_text().splitlines()
    assert len(kept) == 4
    with FakeLLM(lambda req, i: Reply("ANSWER: 2")) as server:
        r = pibench(
            "pivots", "eval", "--cases", str(caseset), "--model", "fake", "--base-url", server.base_url,
            "--api-key-env", "PIBENCH_TEST_NO_KEY", "--out", str(run), "--request-timeout", "60",
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        assert len(server.requests) == 8
    lines = [json.loads(x) for x in (run / "answers.jsonl").read_text().splitlines()]
    assert sorted((x["id"], x["order"]) for x in lines) == sorted({(x["id"], x["order"]) for x in lines})
    assert len(lines) == 12


def test_a_run_directory_of_other_settings_is_refused(caseset: Path, tmp_path: Path) -> None:
    """Evaluating another condition (or judge) into a run directory that holds answers of
    other settings fails naming what differs, and leaves the answers as they were."""
    run = tmp_path / "r"
    assert pibench("pivots", "eval", "--cases", str(caseset), "--judge", "first", "--out", str(run)).returncode == 0
    before = (run / "answers.jsonl").read_bytes()
    r = pibench(
        "pivots", "eval", "--cases", str(caseset), "--judge", "first", "--condition", "plans", "--out", str(run)
    )
    assert r.returncode == 1
    assert "condition" in r.stderr and "other settings" in r.stderr
    assert (run / "answers.jsonl").read_bytes() == before


def test_a_run_directory_in_use_is_refused_naming_the_holder(caseset: Path, tmp_path: Path) -> None:
    """A second evaluation on a run directory another process is evaluating fails at once."""
    from pibench_tui.pivots.evaluate import _held

    run = tmp_path / "busy"
    with _held(run):
        r = pibench("pivots", "eval", "--cases", str(caseset), "--judge", "first", "--out", str(run))
    assert r.returncode == 1
    assert f"pid {os.getpid()}" in r.stderr


@pytest.mark.parametrize("inside", [False, True])
def test_an_out_that_is_a_file_is_refused_naming_it(caseset: Path, tmp_path: Path, inside: bool) -> None:
    """`pivots eval --out F` with F a regular file (or --out F/x): before, a traceback
    (FileExistsError / NotADirectoryError from mkdir); now exit 1 naming F as a file where
    a folder goes and --out, and F is left as it was."""
    blocker = tmp_path / "afile"
    blocker.write_text("mine")
    out = blocker / "x" if inside else blocker
    r = pibench("pivots", "eval", "--cases", str(caseset), "--judge", "first", "--out", str(out))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"{blocker} is a file, not a folder" in r.stderr and "--out" in r.stderr
    assert blocker.read_text() == "mine"


def test_malformed_case_files_and_tampered_keys_are_refused_naming_the_case(caseset: Path, tmp_path: Path) -> None:
    """A line that is not JSON, a case without its kind or plan B, and a key whose 'better'
    was flipped (it no longer agrees with its own delta) are each refused with the file,
    the line in the file and the case id (read from a broken line where it can be); a
    missing field is named with the fields a case line holds."""
    bad = tmp_path / "bad"
    bad.mkdir()
    lines = (caseset / "cases.jsonl").read_text().splitlines()
    (bad / "cases.jsonl").write_text(lines[0] + "\n{oops\n")
    with pytest.raises(PivotFileError, match=r"line 2 is not JSON"):
        load_cases(bad)
    (bad / "cases.jsonl").write_text(lines[0] + "\n" + lines[1][:-40] + "\n")  # cut short: the id is still readable
    with pytest.raises(PivotFileError) as cut:
        load_cases(bad)
    assert f"{bad / 'cases.jsonl'}: line 2 (case t-0002) is not JSON" in str(cut.value)
    assert "line 1 column" not in str(cut.value)  # not the decoder's own line count within the line
    case = json.loads(lines[1])
    del case["kind"]
    (bad / "cases.jsonl").write_text(lines[0] + "\n" + json.dumps(case) + "\n")
    with pytest.raises(
        PivotFileError,
        match=r"line 2 \(case t-0002\): the field 'kind' is missing \(a case line holds .*fork_month.*plans",
    ):
        load_cases(bad)
    case = json.loads(lines[1])
    del case["plans"]["B"]
    (bad / "cases.jsonl").write_text(json.dumps(case) + "\n")
    with pytest.raises(PivotFileError, match=r"case t-0002\): plans must be exactly A and B"):
        load_cases(bad)
    keys = (caseset / "key.jsonl").read_text().splitlines()
    k = json.loads(keys[0])
    k["better"] = "B"
    (bad / "key.jsonl").write_text(json.dumps(k) + "\n" + "\n".join(keys[1:]) + "\n")
    with pytest.raises(PivotFileError, match=r"case t-0001\).*inconsistent"):
        load_key(bad / "key.jsonl")
    run = tmp_path / "run"
    assert pibench("pivots", "eval", "--cases", str(caseset), "--judge", "first", "--out", str(run)).returncode == 0
    r = pibench("pivots", "score", str(run), "--key", str(bad / "key.jsonl"))
    assert r.returncode == 1 and "t-0001" in r.stderr and "Traceback" not in r.stderr


def test_answers_are_parsed_strictly() -> None:
    """Only a line `ANSWER: 1|2` counts; both plans named, none named, or prose is None; the
    shown number maps back to the case's plan by the order."""
    assert parse_answer("x\nANSWER: 1", "AB") == "A"
    assert parse_answer("x\nanswer: **2**", "AB") == "B"
    assert parse_answer("ANSWER: 1", "BA") == "B"
    assert parse_answer("ANSWER: 1\nANSWER: 2", "AB") is None
    assert parse_answer("I choose plan 1", "AB") is None
    assert parse_answer("ANSWER: 1 because", "AB") is None
    assert parse_answer("", "AB") is None


def test_record_prompt_stays_under_6000_tokens_late_in_a_career() -> None:
    """At the start of month 40 of a baseline career, the record prompt (rules, month
    reports, dashboard, plans) is at most ~6,000 tokens (characters/4) and still holds the
    newest month report whole; plans-only is at most ~1,500 tokens."""
    record = record_at(101, 40)
    case = load_cases_from_record(record)
    msgs = case_messages(case, "AB", "record")
    tokens = approx_tokens("".join(m["content"] for m in msgs))
    assert tokens <= 6000, tokens
    newest = json.dumps(record["reports"][-1]["month"])
    assert f'"month":{newest}' in msgs[1]["content"]
    plans = case_messages(case, "BA", "plans")
    assert approx_tokens("".join(m["content"] for m in plans)) <= 1500
    assert plans[1]["content"].index("Plan 1: Plan beta") < plans[1]["content"].index("Plan 2: Plan alpha")


def load_cases_from_record(record: dict) -> object:
    from pibench_tui.pivots.cases import _case

    return _case(
        {
            "format": 1,
            "id": "late",
            "kind": "spending",
            "fork_month": 40,
            "record": record,
            "plans": {"A": {"text": "Plan alpha", "code": ""}, "B": {"text": "Plan beta", "code": ""}},
        },
        "test",
    )


def test_career_cluster_interval_is_wider_when_a_careers_cases_agree(caseset: Path) -> None:
    """When every case of a career is answered alike (all right or all wrong), resampling
    careers gives a wider interval than resampling cases; both are reproducible (fixed seed)."""
    cases = load_cases(caseset)
    key = load_key(caseset, cases)
    # right on every case of careers 101 and 102, wrong on 103
    answers = []
    for c in cases:
        pick = key[c.id].better if c.career != "baseline/103" else ("B" if key[c.id].better == "A" else "A")
        answers += [_line(c.id, o, pick) for o in ("AB", "BA")]
    a = score_run(cases, key, answers)["overall"]
    b = score_run(cases, key, answers)["overall"]
    assert a == b
    assert a["accuracy"] == pytest.approx(2 / 3)
    width = lambda ci: ci[1] - ci[0]  # noqa: E731
    assert width(a["ci_careers"]) > width(a["ci_cases"])
    assert a["regret"] == pytest.approx(10.0 / 3)


def test_record_versus_plans_is_a_paired_difference(caseset: Path) -> None:
    """The difference of two conditions is taken case by case over the cases both scored."""
    cases = load_cases(caseset)
    key = load_key(caseset, cases)
    right = [_line(c.id, o, key[c.id].better) for c in cases for o in ("AB", "BA")]
    first = [_line(c.id, o, o[0]) for c in cases for o in ("AB", "BA")]
    d = paired_difference(case_scores(cases, key, right), case_scores(cases, key, first))
    assert d["cases"] == 6 and d["difference"] == pytest.approx(0.5) and d["ci"] == [0.5, 0.5]


def test_a_plan_refused_at_the_fork_and_a_sealed_case_are_clear_errors_for_judges_that_play(
    caseset: Path, tmp_path: Path
) -> None:
    """The lookahead judge plays each plan at the fork: a plan whose call the world refuses
    there ends the evaluation with exit 1 naming the case (no traceback; the run directory
    stays); the judges that replay a career refuse a sealed case before asking anything."""
    lines = (caseset / "cases.jsonl").read_text().splitlines()
    case = json.loads(lines[0])
    case["plans"]["A"]["code"] = 'papers.submit(draft_id="D999", venue="NAIC")\n'
    bad = tmp_path / "refused"
    bad.mkdir()
    (bad / "cases.jsonl").write_text(json.dumps(case) + "\n")
    run = tmp_path / "run"
    r = pibench("pivots", "eval", "--cases", str(bad), "--judge", "lookahead", "--out", str(run))
    assert r.returncode == 1 and f"case {case['id']}: a plan is refused at the fork" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and (run / "run.json").exists()
    sealed = dict(json.loads(lines[0]), seed=None, commitment="ab" * 32)
    (bad / "cases.jsonl").write_text(json.dumps(sealed) + "\n")
    for judge in ("baseline", "lookahead"):
        r = pibench("pivots", "eval", "--cases", str(bad), "--judge", judge, "--out", str(tmp_path / judge))
        assert r.returncode == 1 and "sealed" in r.stderr and sealed["id"] in r.stderr, r.stderr


def test_record_prompt_shows_the_offers_the_pi_made_not_the_never_offered_as_expired() -> None:
    """A record that stores the month reports whole (as the first dev set's cases do) lists the
    season's applicants never offered a place as offers with outcome "expired"; the prompt
    shows the reports as the PI was told them (world.report.pi_view): the offers made and the
    pool's counts, no "expired" offer."""
    from world.api import Api
    from world.engine import World
    from world.policies import make_policy
    from world.runner import AgentView

    world = World(seed=101)
    api = Api(world)
    view, policy = AgentView(api), make_policy("baseline")
    stored = []
    while world.s.month < 6:
        before = world.s.month
        policy.act(view)
        if world.s.month == before:
            api.call("time", "next_month", [], {})
        assert world.last_report is not None
        stored.append(world.last_report.to_dict())
    record = {**record_at(101, 6), "reports": stored}
    assert any(o["outcome"] == "expired" for r in stored for o in r["offers"])  # the stored form lists them
    text = case_messages(load_cases_from_record(record), "AB", "record")[1]["content"]
    assert '"expired"' not in text.split("DASHBOARD AT THE FORK")[0]
    assert '"applicant_pool":{"applicants":' in text


def test_score_names_a_cut_last_answer_line(caseset: Path, tmp_path: Path) -> None:
    """A killed evaluation leaves answers.jsonl ending in a cut line: `pivots score` scores that
    answer as missing and says so on stderr, naming the file and how to resume (before, it
    was counted wrong with no word); a whole file gets no such note."""
    run = tmp_path / "first"
    assert pibench("pivots", "eval", "--cases", str(caseset), "--judge", "first", "--out", str(run)).returncode == 0
    whole = pibench("pivots", "score", str(run))
    assert whole.returncode == 0, whole.stderr
    assert "cut line" not in whole.stderr
    answers = run / "answers.jsonl"
    data = answers.read_bytes()
    answers.write_bytes(data[: len(data) - 20])  # the last line loses its end and newline
    s = pibench("pivots", "score", str(run))
    assert s.returncode == 0, s.stderr
    assert f"{answers} ends in a cut line" in s.stderr
    assert "pibench pivots eval" in s.stderr
