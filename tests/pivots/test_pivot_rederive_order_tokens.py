"""`pibench pivots score` and `pibench report` re-derive a pivot session's plan order and its
token count too (issue 25 §1 "the report re-derives, never believes"; QA pass 3's residue):
the order a record claims must be the one its conversation was asked in (re-built from the
case, the order and the run's condition, bound by the digest `pivots eval` records), and the
token figure is re-derived from the texts, with the provider's own counts shown apart as
"reported by the provider, not re-derived". Mounted through the real `pibench` command."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pibench_tui.pivots.prompt import parse_answer
from tests.harness.fakellm import FakeLLM, Reply
from tests.pivots.casesets import make_set


def pibench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pibench_tui", *args], capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A six-case set and the scripted judge `first`'s run over it (`pivots eval`)."""
    root = tmp_path_factory.mktemp("pvo")
    cases = make_set(root / "set")
    run = root / "first"
    r = pibench("pivots", "eval", "--cases", str(cases), "--judge", "first", "--out", str(run))
    assert r.returncode == 0, r.stderr
    return cases, run


@pytest.fixture(scope="module")
def model_run(first_run: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model's run over the same set (`pivots eval` against a fake endpoint) that always
    chooses plan A, whichever order it is shown in, and reports 1,000 prompt and 10
    completion tokens a call."""
    cases, _ = first_run

    def brain(request: dict, index: int) -> Reply:
        shown_first_a = "Plan 1: Plan alpha" in request["messages"][1]["content"]
        usage = {"prompt_tokens": 1000, "completion_tokens": 10, "total_tokens": 1010}
        return Reply(f"Plan alpha.\nANSWER: {1 if shown_first_a else 2}", usage=usage)

    run = tmp_path_factory.mktemp("pvm") / "model"
    with FakeLLM(brain) as server:
        r = pibench("pivots", "eval", "--cases", str(cases), "--model", "fake", "--base-url", server.base_url,
                    "--api-key-env", "PIBENCH_TEST_NO_KEY", "--out", str(run))  # fmt: skip
    assert r.returncode == 0, r.stderr
    return run


def _lines(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "answers.jsonl").read_text().splitlines()]


def _copy(run: Path, to: Path, lines: list[dict]) -> Path:
    shutil.copytree(run, to, ignore=shutil.ignore_patterns(".lock"))
    (to / "answers.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return to


def _score(run: Path, out: Path) -> tuple[dict, str]:
    r = pibench("pivots", "score", str(run), "--json", str(out))
    assert r.returncode == 0, r.stderr
    return json.loads(out.read_text())["runs"][0], r.stdout


def test_swapping_a_cases_two_orders_with_their_answers_is_named_not_believed(
    first_run: tuple[Path, Path], model_run: Path, tmp_path: Path
) -> None:
    """A model that always chooses plan A is right on the cases whose key is A: accuracy 0.5,
    every record bound. Swapping the `order` of both records of each case whose key is B (so
    each reply now parses to B, the stored answers re-written to agree) would make every
    answer right: before, `pivots score` said 1.0 with no word, the order being the record's
    own. Now the order is re-derived (the conversation its case, order and condition give
    must be the one the record carries the digest of): those sessions are `unbound`, counted
    wrong and named in the text, `--json` and `pibench report`. A record stripped of its
    digest is unbound alike."""
    cases, _ = first_run
    key = {json.loads(x)["id"]: json.loads(x)["better"] for x in (cases / "key.jsonl").read_text().splitlines()}
    run = model_run
    always_a = _lines(run)
    assert all(parse_answer(x["raw"], x["order"]) == x["answer"] == "A" for x in always_a)
    row, _ = _score(run, tmp_path / "a.json")
    assert row["overall"]["accuracy"] == 0.5 and row["overall"]["invalid"] == 0
    assert row["integrity"].get("unbound", []) == []
    forged, moved = [], []
    for x in always_a:
        if key[x["id"]] == "B":
            order = x["order"][::-1]
            x = {**x, "order": order, "answer": parse_answer(x["raw"], order)}
            moved.append(f"{x['id']} {order}")
        forged.append(x)
    assert len(moved) == 6 and all(x["answer"] == key[x["id"]] for x in forged)
    bad = _copy(run, tmp_path / "swapped", forged)
    row, text = _score(bad, tmp_path / "s.json")
    assert row["overall"]["accuracy"] == 0.5 and row["overall"]["invalid"] == 6  # before: 1.0 and 0
    assert row["integrity"]["mismatched"] == []  # each record agrees with itself: only the order binds it
    assert sorted(row["integrity"]["unbound"]) == sorted(moved)
    assert "INVALID: 6 sessions unbound" in text and sorted(moved)[0] in text
    rep = tmp_path / "r.json"
    r = pibench("report", str(bad), "--json", str(rep))
    assert r.returncode == 0, r.stderr
    prow = json.loads(rep.read_text())["pivots"]["rows"][0]
    assert prow["overall"]["accuracy"] == 0.5 and prow["integrity"]["unbound"] == row["integrity"]["unbound"]
    assert "unbound" in r.stderr
    stripped = [{**x, "tokens": [{k: v for k, v in t.items() if k != "conversation_sha256"} for t in x["tokens"]]}
                for x in _lines(run)]  # fmt: skip
    row, _ = _score(_copy(run, tmp_path / "stripped", stripped), tmp_path / "t.json")
    assert row["overall"]["accuracy"] == 0.0 and len(row["integrity"]["unbound"]) == 12


def test_a_scripted_judges_replies_are_played_again(first_run: tuple[Path, Path], tmp_path: Path) -> None:
    """QA's tampered run of the judge `first`, now with its replies edited too: each session
    where `first` is wrong gets the reply (and stored answer) of the key's plan. The records
    agree with themselves and with their conversations, but a scripted judge's reply is
    re-derived by playing the judge again: those sessions are `replaced`, counted wrong and
    named (before: accuracy 1.0, no word)."""
    cases, run = first_run
    key = {json.loads(x)["id"]: json.loads(x)["better"] for x in (cases / "key.jsonl").read_text().splitlines()}
    forged, edited = [], []
    for x in _lines(run):
        if x["answer"] != key[x["id"]]:
            x = {**x, "raw": "The first plan.\nANSWER: 2", "answer": key[x["id"]]}
            edited.append(f"{x['id']} {x['order']}")
        forged.append(x)
    row, text = _score(_copy(run, tmp_path / "replaced", forged), tmp_path / "s.json")
    assert row["overall"]["accuracy"] == 0.5 and row["overall"]["invalid"] == 6  # before: 1.0 and 0
    assert sorted(row["integrity"]["replaced"]) == sorted(edited)
    assert "INVALID: 6 sessions replaced" in text
    honest, _ = _score(run, tmp_path / "h.json")
    assert honest["integrity"]["replaced"] == [] and honest["overall"]["invalid"] == 0


def test_token_counts_are_rederived_and_the_providers_are_marked_as_reported(model_run: Path, tmp_path: Path) -> None:
    """A model's records whose reported counts (1,000 prompt and 10 completion tokens a call)
    and stored estimate were edited to 999,999 each: the re-derived `tokens_per_case` is the
    honest run's (from the re-built conversations and the replies, characters / 4: over 1,000
    a case for the record condition), while the stored counts appear only as
    `provider_tokens_per_case`, which `pibench report` shows in its own column "reported
    tokens/case" with the words "reported by the provider, not re-derived", and prices.
    Before: both commands showed the edited ~4 million tokens a case as the run's."""
    run = model_run
    edited = [
        {**x, "tokens": [{**t, "prompt": 999_999, "prompt_estimate": 999_999, "completion": 999_999}
                         for t in x["tokens"]]}
        for x in _lines(run)
    ]  # fmt: skip
    bad = _copy(run, tmp_path / "tokens", edited)
    honest, _ = _score(run, tmp_path / "h.json")
    row, _ = _score(bad, tmp_path / "s.json")
    derived = honest["overall"]["tokens_per_case"]
    assert row["overall"]["tokens_per_case"] == derived  # before: 3,999,996 against 2,020
    assert derived > 1_000
    assert honest["overall"]["provider_tokens_per_case"] == 2 * 1010
    assert row["overall"]["provider_tokens_per_case"] == 2 * 2 * 999_999
    assert honest["integrity"]["unbound"] == row["integrity"]["unbound"] == []
    rep = tmp_path / "r.json"
    r = pibench("report", str(bad), "--json", str(rep), "--price", "fake=1,1")
    assert r.returncode == 0, r.stderr
    prow = json.loads(rep.read_text())["pivots"]["rows"][0]
    assert prow["overall"]["tokens_per_case"] == derived and prow["cost_from"] == "provider"
    assert prow["cost_per_case"] == pytest.approx(2 * 2 * 999_999 / 1e6)
    words = " ".join(r.stdout.split())  # the caption is wrapped to the terminal
    assert "reported tokens/case: what the provider reported" in words
    assert "reported by the provider, not re-derived" in words
    assert f"~{derived:,.0f}" in r.stdout and "3,999,996" in r.stdout
