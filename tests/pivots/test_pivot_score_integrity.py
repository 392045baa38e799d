"""`pibench pivots score` and `pibench report` re-derive every pivot answer and say what the
run's records held (issue 25 §1 "the report re-derives, never believes", for pivot runs):
choices come from the recorded replies, never the stored `answer` field; missing,
duplicate and conflicting records are counted; a damaged answers file is a clean error; two
runs claiming one row conflict."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pibench_tui.pivots.cases import load_cases, load_key
from pibench_tui.pivots.play import open_session
from pibench_tui.pivots.score import check_answers, score_run
from tests.pivots.casesets import make_set


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A six-case set (keys alternate A/B) and the scripted judge `first`'s run over it."""
    root = tmp_path_factory.mktemp("pvi")
    cases = make_set(root / "set")
    run = root / "first"
    r = pibench("pivots", "eval", "--cases", str(cases), "--judge", "first", "--out", str(run))
    assert r.returncode == 0, r.stderr
    return cases, run


def pibench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pibench_tui", *args], capture_output=True, text=True, timeout=300, check=False
    )


def _lines(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "answers.jsonl").read_text().splitlines()]


def _write(run: Path, lines: list) -> None:
    (run / "answers.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def _copy(run: Path, to: Path) -> Path:
    shutil.copytree(run, to, ignore=shutil.ignore_patterns(".lock"))
    return to


def test_score_rederives_choices_from_the_replies_and_flags_edited_answers(
    first_run: tuple[Path, Path], tmp_path: Path
) -> None:
    """A run of the judge `first` whose stored `answer` fields were edited to the key's plan
    (its replies still say `ANSWER: 1`) scores what its replies say, not 1.0: each edited
    session counts wrong and is named (INVALID ... mismatched) in the text, the JSON and
    `pibench report`'s notes. Before, score and report both showed 1.0 with no note."""
    cases, run = first_run
    key = load_key(cases)
    bad = _copy(run, tmp_path / "edited")
    lines = _lines(bad)
    _write(bad, [{**x, "answer": key[x["id"]].better} for x in lines])
    edited = sorted(f"{x['id']} {x['order']}" for x in lines if x["answer"] != key[x["id"]].better)
    assert len(edited) == 6  # one order of each case: `first` is right in the other
    out = tmp_path / "s.json"
    r = pibench("pivots", "score", str(bad), "--json", str(out))
    assert r.returncode == 0, r.stderr
    row = json.loads(out.read_text())["runs"][0]
    assert row["overall"]["accuracy"] == 0.5  # the unedited sessions: right once per case
    assert sorted(row["integrity"]["mismatched"]) == edited
    assert row["overall"]["invalid"] == 6
    assert "INVALID: 6 sessions mismatched" in r.stdout and edited[0] in r.stdout
    rep = tmp_path / "r.json"
    page = tmp_path / "r.html"
    r = pibench("report", str(bad), "--json", str(rep), "--html", str(page))
    assert r.returncode == 0, r.stderr
    prow = json.loads(rep.read_text())["pivots"]["rows"][0]
    assert prow["overall"]["accuracy"] == 0.5 and prow["overall"]["invalid"] == 6
    assert "mismatched" in r.stderr and edited[0] in r.stderr
    assert "6 sessions mismatched" in page.read_text() and edited[0] in page.read_text()


def test_an_edited_reconsidered_answer_is_flagged_too(first_run: tuple[Path, Path]) -> None:
    """The reconsideration turn is re-derived from `raw_reconsidered` alike: a stored
    `reconsidered` that disagrees with it makes the session mismatched (counted wrong)."""
    cases_dir, _ = first_run
    cases = load_cases(cases_dir)
    key = load_key(cases_dir, cases)
    c = cases[0]
    wrong = "B" if key[c.id].better == "A" else "A"
    shown = lambda pick, order: f"ANSWER: {1 if order[0] == pick else 2}"  # noqa: E731
    lines = [
        {"id": c.id, "order": o, "answer": wrong, "raw": shown(wrong, o), "raw_reconsidered": shown(wrong, o),
         "reconsidered": key[c.id].better}
        for o in ("AB", "BA")
    ]  # fmt: skip
    sessions, integrity = check_answers(cases, lines)
    assert integrity["mismatched"] == [f"{c.id} AB", f"{c.id} BA"]
    assert score_run(cases, key, lines)["overall"]["reconsidered"]["accuracy"] == 0.0
    honest = [{**x, "reconsidered": wrong} for x in lines]
    assert check_answers(cases, honest)[1]["mismatched"] == []


def test_missing_duplicate_conflicting_and_stray_records_are_counted(
    first_run: tuple[Path, Path], tmp_path: Path
) -> None:
    """Four genuine lines plus one pair repeated five times (the QA case of 100 lines and a
    pair repeated 30 times): the output counts the sessions answered and missing (counted
    wrong), the cases answered in full and with no answer, and the duplicate records
    (ignored); a session recorded twice differently is conflicting (counted wrong); a line of
    no case is stray. Before: only "cases 6, acc ..." with no word of any of it."""
    _, run = first_run
    lines = _lines(run)
    dup = _copy(run, tmp_path / "dup")
    _write(dup, lines[:4] + lines[4:6] * 5)
    out = tmp_path / "s.json"
    r = pibench("pivots", "score", str(dup), "--json", str(out))
    assert r.returncode == 0, r.stderr
    i = json.loads(out.read_text())["runs"][0]["integrity"]
    assert (i["sessions"], i["answered"], i["missing"], i["duplicates"]) == (12, 6, 6, 8)
    assert (i["cases_answered"], i["cases_missing"]) == (3, 3)
    assert "6 of 12 answered" in r.stdout and "6 missing" in r.stdout and "8 duplicates" in r.stdout
    assert json.loads(out.read_text())["runs"][0]["overall"]["accuracy"] == 0.25
    other = {**lines[0], "raw": "ANSWER: 2", "answer": lines[0]["order"][1]}
    _write(dup, [*lines, other, {"id": "t-9999", "order": "AB", "answer": "A", "raw": "ANSWER: 1"}, [1]])
    r = pibench("pivots", "score", str(dup), "--json", str(out))
    assert r.returncode == 0, r.stderr
    i = json.loads(out.read_text())["runs"][0]["integrity"]
    assert i["conflicting"] == [f"{lines[0]['id']} {lines[0]['order']}"] and i["stray"] == 2
    assert "conflicting" in r.stdout and "2 stray" in r.stdout


def test_cases_count_as_answered_only_when_their_sessions_have_a_choice(first_run: tuple[Path, Path], tmp_path: Path):
    """QA pass 6 F7 e: every reply unreadable (no choice in it): the line said "0 of 12
    answered ... cases: 6 answered in full" (cases counted recorded sessions); now no case
    is answered and all six have none."""
    _, run = first_run
    junk = _copy(run, tmp_path / "junk")
    _write(junk, [{**x, "raw": "I cannot decide.", "answer": None} for x in _lines(run)])
    out = tmp_path / "s.json"
    r = pibench("pivots", "score", str(junk), "--json", str(out))
    assert r.returncode == 0, r.stderr
    i = json.loads(out.read_text())["runs"][0]["integrity"]
    assert (i["answered"], i["cases_answered"], i["cases_missing"], i["cases"]) == (0, 0, 6, 6), i
    flat = " ".join(r.stdout.split())
    assert "0 of 12 answered" in flat and "cases: 0 of 6 with every session answered, 6 with none" in flat, r.stdout


def test_a_damaged_answers_file_is_a_clean_error_and_other_runs_are_still_scored(
    first_run: tuple[Path, Path], tmp_path: Path
) -> None:
    """An answers line nested 100,000 deep: `pivots score` names the file and line, exits 1
    without a traceback, and still scores the other run given; `pibench report` lists the
    run as not scored with the same reason. Before: a ValueError traceback."""
    _, run = first_run
    bad = _copy(run, tmp_path / "deep")
    with open(bad / "answers.jsonl", "a") as fh:
        fh.write("[" * 100_000 + "]" * 100_000 + "\n")
    out = tmp_path / "s.json"
    r = pibench("pivots", "score", str(run), str(bad), "--json", str(out))
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert f"{bad / 'answers.jsonl'}: line 13: JSON nested deeper than 100 levels" in r.stderr
    assert [x["run"] for x in json.loads(out.read_text())["runs"]] == [str(run)]
    rep = tmp_path / "r.json"
    r = pibench("report", str(bad), "--json", str(rep))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "line 13: JSON nested deeper" in json.loads(rep.read_text())["pivots"]["rows"][0]["error"]


def test_two_runs_of_one_label_conflict_and_one_run_given_twice_counts_once(
    first_run: tuple[Path, Path], tmp_path: Path
) -> None:
    """Two run folders of one label, condition and case set holding different answers: `pivots
    score` says they conflict, naming both (stderr, JSON, each row) and pairs neither;
    `pibench report` scores neither (as for conflicting careers). The same folder given twice
    counts once, with a note. Before: two rows of one label with different accuracies, no note."""
    _, run = first_run
    other = _copy(run, tmp_path / "other")
    _write(other, _lines(run)[:-1])
    out = tmp_path / "s.json"
    r = pibench("pivots", "score", str(run), str(other), str(run), "--json", str(out))
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert len(data["runs"]) == 2 and all("conflict" in x for x in data["runs"])
    assert f"conflicting runs for first · record: {run}, {other}" in r.stderr
    assert f"{run}: the same run as {run}; counted once" in r.stderr
    assert "CONFLICT" in r.stdout
    rep = tmp_path / "r.json"
    r = pibench("report", str(run), str(other), "--json", str(rep))
    assert r.returncode == 0, r.stderr
    rows = json.loads(rep.read_text())["pivots"]["rows"]
    assert len(rows) == 2 and all("conflicting runs for first" in x["error"] for x in rows)
    assert "conflicting runs for first" in r.stderr


def test_a_torn_last_answer_is_cut_before_resuming_and_damage_is_a_clean_error(
    first_run: tuple[Path, Path], tmp_path: Path
) -> None:
    """`pivots eval` resumed after a kill that tore the last answer line cuts that line first:
    the answer asked again starts a line of its own and every session is scored (before, it
    was glued to the torn line, and that line and all after it were lost to every reader at
    every resume). An answers file damaged elsewhere (a line that is not JSON, a line nested
    100,000 deep) is refused naming the file and line, with nothing asked and nothing
    written, by `pivots eval`, `pivots score` and `play --pivots`; before: tracebacks, or the
    lines after the damage silently dropped."""
    cases, run = first_run
    torn = _copy(run, tmp_path / "torn")
    text = (torn / "answers.jsonl").read_text().splitlines(keepends=True)
    (torn / "answers.jsonl").write_text("".join(text[:-1]) + text[-1][:25])
    r = pibench("pivots", "eval", "--cases", str(cases), "--judge", "first", "--out", str(torn))
    assert r.returncode == 0, r.stderr
    assert "12 of 12 sessions answered" in r.stderr and "(1 asked now)" in r.stderr
    assert [json.loads(x) for x in (torn / "answers.jsonl").read_text().splitlines()] == _lines(run)
    for damage, where in (("not json\n", "line 7 is not JSON"), ("[" * 100_000 + "]" * 100_000 + "\n", "line 7: JSON")):
        bad = tmp_path / f"bad{len(damage)}"
        _copy(run, bad)
        text = (bad / "answers.jsonl").read_text().splitlines(keepends=True)
        before = "".join(text[:6]) + damage + "".join(text[6:])
        (bad / "answers.jsonl").write_text(before)
        human = tmp_path / f"human{len(damage)}"
        session = open_session(str(cases), None, str(human))
        for case in session.cases:
            session.record(case, 1, "a")
        (human / "answers.jsonl").write_text("".join(text[:6]) + damage)
        for args, folder in (
            (("pivots", "eval", "--cases", str(cases), "--judge", "first", "--out", str(bad)), bad),
            (("pivots", "score", str(bad)), bad),
            (("play", "--pivots", str(cases), "--answers", str(human)), human),
        ):
            r = pibench(*args)
            assert r.returncode == 1, (args, r.stderr)
            assert "Traceback" not in r.stderr and f"{folder / 'answers.jsonl'}: {where}" in r.stderr, (args, r.stderr)
        assert (bad / "answers.jsonl").read_text() == before
