"""Costs a lab can budget (issue 26 §3): USD per career beside tokens per career in the
`pibench agent` summary and in `pibench report`, cached prompt tokens at their own price,
tokens of abandoned attempts counted apart and priced, and clear errors for a bad --price."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pibench_tui.cli.command import main as pibench_main
from pibench_tui.pricing import PRICE_FORM, Price, cost_usd, parse_price
from pibench_tui.report.analysis import build_report
from pibench_tui.report.load import Career
from pibench_tui.report.render import leaderboard_notes, leaderboard_rows
from tests.harness.fakellm import FakeLLM, Reply

ROOT = Path(__file__).resolve().parents[2]
NEXT = "```python\ntime.next_month()\n```"


def test_cached_prompt_tokens_are_priced_at_the_cached_price():
    """1M prompt tokens of which 400k cached, 100k completion at $2 in, $8 out, $0.5 cached:
    600k × 2 + 400k × 0.5 + 100k × 8 = $2.20; without a cached price all prompt tokens cost $2."""
    assert parse_price("gpt-x=2,8,0.5") == ("gpt-x", Price(2.0, 8.0, 0.5))
    assert cost_usd(Price(2.0, 8.0, 0.5), 1_000_000, 100_000, 400_000) == pytest.approx(2.2)
    assert cost_usd(Price(2.0, 8.0), 1_000_000, 100_000, 400_000) == pytest.approx(2.8)
    assert cost_usd(Price(2.0, 8.0, 0.5), 1_000_000, 100_000, None) == pytest.approx(2.8)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("m", "no '='"),
        ("=1,2", "name before '=' is empty"),
        ("m=1", "1 price after"),
        ("m=1,2,3,4", "4 prices after"),
        ("m=1,x", "out price 'x' is not a number"),
        ("m=1,2,-1", "cached price -1.0 must be a finite number from 0 to 10,000"),
        ("m=nan,2", "in price nan must be a finite number from 0 to 10,000"),
        ("m=1e308,1e308", "in price 1e+308 must be a finite number from 0 to 10,000"),  # QA F12: a crash in --html
        ("m=1,2,3", "cached price 3.0 is above the in price 1.0; it must be at most the in price"),
    ],
)
def test_a_bad_price_names_what_was_wrong_and_the_valid_form(text, names, capsys):
    """parse_price refuses each bad form saying what was wrong and the form; `pibench agent
    --price` and `pibench report --price` exit 2 with the same words."""
    with pytest.raises(ValueError) as err:
        parse_price(text)
    assert names in str(err.value) and PRICE_FORM in str(err.value)
    for argv in (["agent", "--model", "m", "--price", text], ["report", "runs", "--price", text]):
        assert pibench_main(argv) == 2
        err_text = capsys.readouterr().err
        assert "argument --price" in err_text and names in err_text


def _career(seed: int, **kw) -> Career:
    base = dict(
        label="m",
        kind="agent",
        scenario="s",
        seed=seed,
        source="x",
        impact=100.0,
        earned=50.0,
        projection=50.0,
        collapsed=False,
        collapse_month=None,
        months=60,
        months_played=60,
        publications=5,
        grants=1,
        hires=4,
        quits=0,
        valid=True,
    )
    base.update(kw)
    return Career(**base)


def test_report_cost_per_career_prices_cached_and_abandoned_tokens():
    """Two careers of 1M prompt (500k cached) + 100k completion tokens, one with 200k prompt +
    20k completion abandoned: at $2/$8/$0.5 per Mtok a career costs $2.05 (+ $0.56 abandoned),
    so $2.33 per career; abandoned tokens per career (110k) are said under the leaderboard and
    are not in tokens/career."""
    tok = dict(tokens=1_100_000, prompt_tokens=1_000_000, completion_tokens=100_000, cached_prompt_tokens=500_000)
    careers = [
        _career(1, **tok),
        _career(2, **tok, abandoned_prompt_tokens=200_000, abandoned_completion_tokens=20_000),
    ]
    rep = build_report(careers, prices={"m": Price(2.0, 8.0, 0.5)})
    row = rep["leaderboard"][0]
    assert row["cost_per_career"] == pytest.approx((2.05 + 2.05 + 0.56) / 2)
    assert row["tokens_per_career"] == 1_100_000 and row["abandoned_tokens_per_career"] == 110_000
    head, rows = leaderboard_rows(rep)
    assert rows[0][head.index("$\n/career")] == "$2.33"
    assert any("abandoned tokens per career" in n and n.startswith("m:") for n in leaderboard_notes(rep))


def _agent(base_url: str, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pibench_tui", "agent", "--model", "m", "--base-url", base_url]
        + ["--api-key-env", "PIBENCH_TEST_NO_KEY", "--scenario", "short-12", "--seeds", "101,102"]
        + ["--out", str(out), "--retries", "0", "--no-endpoint-check", *extra],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env={**os.environ, "PIBENCH_TEST_NO_KEY": ""},
    )


def test_agent_summary_shows_cost_per_career_with_cached_tokens_and_abandoned_apart(tmp_path):
    """Two short careers against the fake endpoint, every reply 1,000 prompt tokens (400 cached)
    and 100 completion: with --price m=2,8,0.5 each career's row has its USD and the summary says
    the cost per career and tokens per career, cached and abandoned apart; result.json records the
    cached prompt tokens. Without --price the summary says how to get a cost."""
    usage = {
        "prompt_tokens": 1000,
        "completion_tokens": 100,
        "total_tokens": 1100,
        "prompt_tokens_details": {"cached_tokens": 400},
    }
    with FakeLLM(lambda req, i: Reply(NEXT, usage=usage)) as llm:
        proc = _agent(llm.base_url, tmp_path / "runs", "--price", "m=2,8,0.5")
        again = _agent(llm.base_url, tmp_path / "runs")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(next((tmp_path / "runs").rglob("result.json")).read_text())
    calls = result["llm"]["calls"]
    assert result["tokens"]["cached_prompt"] == 400 * calls
    per = (600 * 2 + 400 * 0.5 + 100 * 8) * calls / 1e6
    assert f"cost per career ${per:,.2f}" in proc.stdout
    assert f"tokens per career {1100 * calls:,}" in proc.stdout
    assert f"cached prompt {400 * calls:,}" in proc.stdout and "abandoned 0" in proc.stdout
    assert f"{per:.2f}" in proc.stdout.splitlines()[1]  # seed 101's row
    assert again.returncode == 0 and "cost: give --price m=IN,OUT[,CACHED]" in again.stdout


def test_result_json_records_the_cost_at_the_given_price_and_the_report_prefers_the_tokens(tmp_path, capsys):
    """With --price (by model name) each career's result.json records cost_usd (its tokens at
    that price) and the price; `pibench report` without --price shows that recorded cost, with
    another --price re-derives the cost from the tokens (before, result.json had no cost and the
    report, without --price, none)."""
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}
    out = tmp_path / "runs"
    argv = ["agent", "--model", "m", "--label", "lab-m", "--api-key-env", "PIBENCH_TEST_NO_KEY"]
    argv += ["--scenario", "short-12", "--seeds", "101", "--out", str(out), "--retries", "0", "--no-endpoint-check"]
    with FakeLLM(lambda req, i: Reply(NEXT, usage=usage)) as llm:
        os.environ["PIBENCH_TEST_NO_KEY"] = ""
        try:
            assert pibench_main([*argv, "--base-url", llm.base_url, "--price", "m=2,8"]) == 0
        finally:
            del os.environ["PIBENCH_TEST_NO_KEY"]
    result = json.loads(next(out.rglob("result.json")).read_text())
    calls = result["llm"]["calls"]
    assert result["cost_usd"] == pytest.approx((1000 * 2 + 100 * 8) * calls / 1e6)
    assert result["price"] == {
        "prompt": 2.0,
        "completion": 8.0,
        "cached_prompt": None,
        "unit": "USD per million tokens",
    }
    capsys.readouterr()
    recorded, derived = tmp_path / "recorded.json", tmp_path / "derived.json"
    assert pibench_main(["report", str(out), "--json", str(recorded)]) == 0
    assert pibench_main(["report", str(out), "--json", str(derived), "--price", "lab-m=1,1"]) == 0
    row = json.loads(recorded.read_text())["leaderboard"][0]
    assert row["cost_per_career"] == pytest.approx(result["cost_usd"])
    row = json.loads(derived.read_text())["leaderboard"][0]
    assert row["cost_per_career"] == pytest.approx(1100 * calls / 1e6)


def test_a_price_naming_no_label_or_model_of_the_run_is_a_usage_error(capsys):
    """`--price typo=2,8` beside `--model m` exits 2 naming the price's name, the labels and the
    models (before, the price was silently unused and the run had no cost)."""
    assert pibench_main(["agent", "--model", "m", "--seeds", "101", "--price", "typo=2,8"]) == 2
    err = capsys.readouterr().err
    assert "--price typo=...: no label or model of this run is named 'typo'" in err and "the models: m" in err


def test_requests_abandoned_at_a_time_out_have_their_prompt_tokens_estimated_and_labelled(tmp_path):
    """A backend whose first call met one time-out before answering and whose second call failed
    after two time-outs: result.json's tokens.abandoned.timed_out counts the 3 requests and their
    prompt tokens as characters / 4 of each prompt sent, labelled estimated, outside the counted
    prompt tokens (before, only llm.errors said they happened; their tokens were unknown). With a
    price they are in cost_usd, and result.json's cost says which part is that estimate; the
    report prices them the same way."""
    import dataclasses

    from pibench_tui.harness.backends import Completion, LLMCallFailed
    from pibench_tui.harness.limits import estimate_tokens
    from pibench_tui.harness.loop import AgentSettings, run_career
    from scenarios import load_scenario

    timeout = {"kind": "timeout", "status": None, "message": "no answer", "seconds": 1.0}
    sent: list[int] = []

    class TimingOut:
        def __init__(self) -> None:
            self.calls = 0

        def describe(self) -> dict:
            return {"backend": "scripted", "model": "m"}

        def complete(self, messages):
            self.calls += 1
            if self.calls == 1:
                sent.append(estimate_tokens(messages))
                return Completion(NEXT, 10, 5, attempts=2, errors=[dict(timeout)])
            if self.calls == 2:
                sent.append(2 * estimate_tokens(messages))
                raise LLMCallFailed("timeout", "no answer", [dict(timeout), dict(timeout)], 2.0, 2)
            return Completion(NEXT, 10, 5)

    scen = load_scenario("short-12")
    config = dataclasses.replace(scen.config, months=3)
    settings = AgentSettings(model="m", label="m", scenario=scen.name, config=config)
    result = run_career(settings, TimingOut(), 101, tmp_path, log=lambda _t: None, price=Price(2.0, 8.0))
    timed = result["tokens"]["abandoned"]["timed_out"]
    assert timed["requests"] == 3 and timed["prompt_estimated"] == sum(sent) > 0
    # pibench agent's summary line says so beside "abandoned 0" (QA pass 6 F7 g: it said only that)
    import contextlib
    import io

    from pibench_tui.harness.cli import _summary_cost

    line = io.StringIO()
    with contextlib.redirect_stdout(line):
        _summary_cost([("101", result)], None, "m")
    assert "abandoned 0" in line.getvalue(), line.getvalue()
    said = f"requests abandoned at a time-out 3.0 per career (~{sum(sent):,} prompt tokens ESTIMATED"
    assert said in line.getvalue() and "in flight" not in line.getvalue(), line.getvalue()  # QA7 F8: not lumped
    priced = io.StringIO()
    with contextlib.redirect_stdout(priced):
        _summary_cost([("101", result)], Price(2.0, 8.0), "m")
    assert "of it estimated: prompts of requests abandoned at a time-out)" in priced.getvalue(), priced.getvalue()
    assert "estimated" in timed["note"] and result["tokens"]["prompt"] == 20
    # priced as an estimate (before, left out of cost_usd): at $2 per M prompt tokens
    estimate = sum(sent) * 2.0 / 1e6
    assert result["cost"]["timed_out_estimated_usd"] == pytest.approx(estimate, abs=1e-6)
    assert result["cost_usd"] == pytest.approx((20 * 2 + 10 * 8) / 1e6 + estimate, abs=1e-6)
    assert result["cost"]["timed_out_estimated"] is True and "ESTIMATE" in result["cost"]["note"]
    # the report prices them too, and says so under the leaderboard
    careers = [_career(1, tokens=30, prompt_tokens=20, completion_tokens=10, timed_out_prompt_estimate=sum(sent))]
    rep = build_report(careers, prices={"m": Price(2.0, 8.0)})
    assert rep["leaderboard"][0]["cost_per_career"] == pytest.approx(result["cost_usd"], abs=1e-6)
    assert any("ESTIMATED" in n and "time-out" in n for n in leaderboard_notes(rep))


def test_a_cost_under_a_cent_never_reads_as_free(tmp_path, capsys):
    """Costs under $0.01 show two significant digits, in `pibench report`'s cells and in the
    `pibench agent` summary (before, both showed $0.00 for a career that cost $0.00013);
    $0 is $0.00, cents and dollars keep two decimals, from $1,000 none."""
    from pibench_tui.pricing import format_usd
    from pibench_tui.report.render import career_rows

    assert [format_usd(v) for v in (0.0, 0.0034, 0.000012, 1e-9, 0.00999, 0.5, 12.345, 1234.5, None)] == [
        "$0.00",
        "$0.0034",
        "$0.000012",
        "<$0.000001",
        "$0.01",
        "$0.50",
        "$12.35",
        "$1,234",
        "—",
    ]
    rep = build_report([_career(1, tokens=1100, prompt_tokens=1000, completion_tokens=100)], prices={"m": Price(1, 1)})
    head, rows = leaderboard_rows(rep)
    assert rows[0][head.index("$\n/career")] == "$0.0011"
    chead, crows = career_rows(rep)
    assert crows[0][chead.index("$")] == "$0.0011"
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}
    argv = ["agent", "--model", "m", "--api-key-env", "PIBENCH_NO_SUCH_KEY", "--scenario", "short-12"]
    argv += ["--seeds", "101", "--out", str(tmp_path / "runs"), "--retries", "0", "--no-endpoint-check"]
    with FakeLLM(lambda req, i: Reply(NEXT, usage=usage)) as llm:
        assert pibench_main([*argv, "--base-url", llm.base_url, "--price", "m=0.01,0.01"]) == 0
    out = capsys.readouterr().out
    assert "cost per career $0.00013 at $0.01 in" in out  # 12 calls × 1,100 tokens at $0.01 per Mtok
    assert " $0.00013 " in out.splitlines()[1]  # seed 101's row


def test_an_absurd_token_count_in_a_transcript_makes_the_career_invalid_with_the_reason(tmp_path, capsys):
    """QA F12: an ``llm`` event of 10^300 prompt tokens was accepted and printed a 300-digit
    tokens column; now `pibench report` marks that career invalid (counted as 0) naming the
    call, the count and the limit, and the leaderboard shows no such number."""
    out = tmp_path / "runs"
    argv = ["agent", "--model", "m", "--api-key-env", "PIBENCH_TEST_NO_KEY", "--scenario", "short-12"]
    argv += ["--seeds", "101", "--out", str(out), "--retries", "0", "--no-endpoint-check"]
    with FakeLLM(lambda req, i: Reply(NEXT)) as llm:
        assert pibench_main([*argv, "--base-url", llm.base_url]) == 0
    transcript = out / "m" / "short-12-101" / "transcript.jsonl"
    events = [json.loads(line) for line in transcript.read_text().splitlines()]
    first = next(e for e in events if e["event"] == "llm")
    first["prompt_tokens"] = 10**300
    transcript.write_text("".join(json.dumps(e) + "\n" for e in events))
    capsys.readouterr()
    rep = tmp_path / "rep.json"
    assert pibench_main(["report", str(out), "--json", str(rep)]) == 0
    assert "0" * 100 not in capsys.readouterr().out
    (row,) = json.loads(rep.read_text())["leaderboard"]
    assert row["invalid"] == 1
    assert any(
        "LLM call 1 records prompt_tokens 1e+300, more than any call counts" in r for r in row["invalid_reasons"]
    )


def test_a_plan_price_above_the_limit_or_a_cached_price_above_the_input_is_refused():
    """A plan's ``price`` follows --price's rules: 1e308 (QA F12) and a cached price above
    the input price are refused naming the key and what is valid."""
    from pibench_tui.harness.plan import PlanError, parse_plan

    base = 'seeds = "101"\n[endpoints.e]\nbase_url = "http://127.0.0.1:9/v1"\n[[models]]\nlabel = "m"\nendpoint = "e"\nmodel = "m"\n'
    for price, says in (("[1e308, 1]", "from 0 to 10,000"), ("[1, 2, 3]", "at most the in price")):
        with pytest.raises(PlanError) as err:
            parse_plan(base + f"price = {price}\n")
        assert "models[1].price" in str(err.value) and says in str(err.value)
