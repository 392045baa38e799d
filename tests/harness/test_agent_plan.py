"""Evaluation plans (issue 26 §4): `pibench agent --plan FILE.toml` plays models × scenarios ×
seeds into one run directory per label, under per-endpoint limits shared by every career
(requests in flight, requests and tokens a minute, a 429's Retry-After), resumes an
interrupted plan, and refuses a bad file before anything runs, naming the key and line."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest

from pibench_tui.cli.command import main as pibench_main
from pibench_tui.harness.limits import WINDOW, EndpointLimiter
from pibench_tui.harness.plan import PlanError, load_plan, parse_plan
from tests.harness.fakellm import FakeLLM, Reply

NEXT = "```python\ntime.next_month()\n```"
#: A three-month world (the default rules cut short): careers of a few requests.
TINY = 'name = "tiny-3"\ndescription = "The default world cut to three months (plan tests)."\nseed = 101\nmonths = 3\n'


def _plan(tmp_path: Path, url: str, *, extra_endpoint: str = "", jobs: int = 1, seeds: str = "101-102") -> Path:
    """A plan over two fake models (labels a-t0 and b) × the tiny scenario × ``seeds``."""
    (tmp_path / "tiny.toml").write_text(TINY)
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f"""\
out = "runs"
seeds = "{seeds}"
scenarios = ["tiny.toml"]
jobs = {jobs}

[endpoints.fake]
base_url = "{url}"
api_key_env = "PIBENCH_TEST_NO_KEY"
retries = 0
{extra_endpoint}

[[models]]
label = "a-t0"
endpoint = "fake"
model = "m1"
temperature = 0.0

[[models]]
label = "b"
endpoint = "fake"
model = "m2"
max_turns = 2
"""
    )
    return plan


def test_a_plan_of_two_models_and_two_seeds_writes_a_run_dir_per_label_and_the_report_has_a_row_per_label(
    tmp_path, capsys
):
    """Two model entries × one scenario × seeds 101-102: four careers, each in OUT/LABEL/
    (OUT and the scenario file relative to the plan file), each with its model's settings;
    the endpoint saw both models; `pibench report OUT` has one leaderboard row per label."""
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        plan = _plan(tmp_path, srv.base_url, jobs=2)
        assert pibench_main(["agent", "--plan", str(plan)]) == 0
        models = sorted({r["model"] for r in srv.requests})
    out = tmp_path / "runs"
    results = {p.relative_to(out).as_posix(): json.loads(p.read_text()) for p in sorted(out.glob("*/*/result.json"))}
    assert sorted(results) == [
        "a-t0/tiny-3-101/result.json",
        "a-t0/tiny-3-102/result.json",
        "b/tiny-3-101/result.json",
        "b/tiny-3-102/result.json",
    ]
    assert models == ["m1", "m2"]
    a, b = results["a-t0/tiny-3-101/result.json"], results["b/tiny-3-102/result.json"]
    assert (a["label"], a["model"], a["harness"]["temperature"], a["months_played"]) == ("a-t0", "m1", 0.0, 3)
    assert (b["label"], b["model"], b["harness"]["max_turns"]) == ("b", "m2", 2)
    err = capsys.readouterr().err
    assert "4 careers (2 labels x 1 scenario x 2 seeds)" in err
    assert "4/4 careers done" in err
    report = tmp_path / "report.json"
    assert pibench_main(["report", str(out), "--json", str(report)]) == 0
    board = json.loads(report.read_text())["leaderboard"]
    assert sorted(r["label"] for r in board) == ["a-t0", "b"]
    assert all(r["n"] == 2 for r in board)


def test_the_endpoint_limit_of_requests_in_flight_is_shared_by_every_career_of_the_plan(tmp_path):
    """Four careers played at once (jobs = 4) of two models on one endpoint with
    max_concurrent = 2: the fake server never has more than 2 requests in flight (counted
    on the server, each request held 30 ms), and every request was answered."""
    lock = threading.Lock()
    state = {"now": 0, "max": 0}
    gate = threading.Event()

    def brain(req, i):
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        gate.wait(0.03)
        with lock:
            state["now"] -= 1
        return Reply(NEXT)

    with FakeLLM(brain) as srv:
        plan = _plan(tmp_path, srv.base_url, jobs=4, extra_endpoint="max_concurrent = 2")
        assert pibench_main(["agent", "--plan", str(plan), "--no-endpoint-check"]) == 0
        n = len(srv.requests)
    assert n == 4 * 3  # four careers of three months, one reply a month
    assert 1 <= state["max"] <= 2


class FakeClock:
    """A clock that only moves when slept on (shared by threads)."""

    def __init__(self) -> None:
        self.t = 0.0
        self.lock = threading.Lock()

    def now(self) -> float:
        with self.lock:
            return self.t

    def sleep(self, s: float) -> None:
        with self.lock:
            self.t += max(s, 1e-6)


def _most_in_a_window(times: list[float]) -> int:
    """The most of ``times`` in any half-open window of :data:`WINDOW` seconds."""
    times = sorted(times)
    return max(sum(1 for u in times if t <= u < t + WINDOW) for t in times)


def test_requests_per_minute_are_shared_by_every_career_of_the_plan(tmp_path):
    """Four careers at once on one endpoint of requests_per_minute = 5, on a fake clock
    that moves only when the limiter waits: every request the server saw was admitted by
    the shared limiter, and no 60 s of the fake clock holds more than 5 of them (12
    requests need at least two minutes)."""
    from pibench_tui.harness.planrun import PlanDisplay, careers_of, limiters_of, run_planned

    clock = FakeClock()
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        plan = load_plan(_plan(tmp_path, srv.base_url, jobs=4, extra_endpoint="requests_per_minute = 5"))
        limiters = limiters_of(plan, clock=clock.now, sleep=clock.sleep)
        careers = careers_of(plan, limiters)
        with PlanDisplay(careers, rich=False, stream=open(os.devnull, "w")) as display:  # noqa: SIM115
            results = run_planned(careers, jobs=4, display=display)
        n = len(srv.requests)
    assert all(isinstance(r, dict) for r in results)
    times = [t for t, _tokens in limiters["fake"].admitted]
    assert len(times) == n == 12
    assert _most_in_a_window(times) == 5
    assert clock.now() >= 2 * WINDOW


def test_tokens_per_minute_and_retry_after_hold_back_every_request_of_the_endpoint():
    """On a fake clock: with tokens_per_minute = 1000 and requests of 400 tokens, at most two
    start in any 60 s (a third would make 1,200); a request's reported usage replaces its
    estimate; a pause (a 429's Retry-After) holds back the next request however free the
    window is."""
    clock = FakeClock()
    lim = EndpointLimiter("e", tokens_per_minute=1000, clock=clock.now, sleep=clock.sleep)
    for _ in range(5):
        with lim.slot(400) as slot:
            slot.tokens = 400
    times = [t for t, _ in lim.admitted]
    assert times[:2] == [0.0, 0.0] and times[2] >= WINDOW and times[4] >= 2 * WINDOW
    assert _most_in_a_window(times) == 2
    with lim.slot(10) as slot:
        slot.tokens = 900  # the endpoint's usage: the window now holds 900 of this request
    before = clock.now()
    with lim.slot(200):
        pass
    assert clock.now() >= before + WINDOW - 1e-6  # 900 + 200 > 1000: waited for it to expire
    free = EndpointLimiter("f", requests_per_minute=100, clock=clock.now, sleep=clock.sleep)
    free.pause(30.0)
    start = clock.now()
    with free.slot(1):
        pass
    assert free.admitted[0][0] >= start + 30.0


def test_an_interrupted_plan_run_again_reuses_its_finished_careers_and_plays_the_rest(tmp_path, capsys):
    """A plan stopped by Ctrl-C (SIGINT once a first career has finished) exits 1 with
    careers left unfinished; the same plan run again says "already complete" for each
    finished career, leaves its result.json byte for byte, plays the rest, and exits 0."""
    out = tmp_path / "runs"
    sent = threading.Event()

    def brain(req, i):
        if not sent.is_set() and any(out.glob("*/*/result.json")):
            sent.set()
            os.kill(os.getpid(), signal.SIGINT)
        return Reply(NEXT)

    with FakeLLM(brain) as srv:
        plan = _plan(tmp_path, srv.base_url, jobs=2)
        assert pibench_main(["agent", "--plan", str(plan)]) == 1
        assert "interrupted" in capsys.readouterr().err
        finished = {p: p.read_bytes() for p in out.glob("*/*/result.json")}
        assert 1 <= len(finished) < 4
        assert pibench_main(["agent", "--plan", str(plan)]) == 0
    err = capsys.readouterr().err
    assert err.count("already complete") == len(finished)
    assert all(p.read_bytes() == data for p, data in finished.items())
    assert len(list(out.glob("*/*/result.json"))) == 4


def test_a_finished_career_of_a_changed_plan_entry_is_refused_not_reused(tmp_path, capsys):
    """After a plan ran, the same plan with label a-t0's temperature changed refuses a-t0's
    finished careers (naming the setting) and exits 1; label b's careers are reused. The
    refused plan leaves no copy of itself beside the runs (before, plan-<sha>.toml of the
    edited plan was kept as if its runs were there): only the first plan's copy is."""
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        plan = _plan(tmp_path, srv.base_url, seeds="101")
        assert pibench_main(["agent", "--plan", str(plan)]) == 0
        copies = sorted(p.name for p in (tmp_path / "runs").glob("plan-*.toml"))
        plan.write_text(plan.read_text().replace("temperature = 0.0", "temperature = 0.7"))
        capsys.readouterr()
        assert pibench_main(["agent", "--plan", str(plan)]) == 1
    err = capsys.readouterr().err
    assert "a-t0 tiny-3 seed 101: RunConflict" in err and "temperature: 0.0 there, 0.7 now" in err
    assert err.count("already complete") == 1
    assert len(copies) == 1 and sorted(p.name for p in (tmp_path / "runs").glob("plan-*.toml")) == copies
    assert "1 career of this plan (a-t0) will be refused" in err and "no copy of the plan is kept" in err


BASE = """\
seeds = "101"
[endpoints.local]
base_url = "http://127.0.0.1:9/v1"
[[models]]
label = "m"
endpoint = "local"
model = "m"
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("out = [1\n", "not valid TOML"),
        (BASE + "temprature = 0.1\n", "models[1].temprature (line 8): unknown key; did you mean 'temperature'?"),
        (BASE.replace("[[models]]", "max_concurent = 2\n[[models]]"), "endpoints.local.max_concurent (line 4)"),
        (
            BASE.replace('endpoint = "local"', 'endpoint = "remote"'),
            "no endpoint 'remote'; the plan's endpoints: local",
        ),
        (BASE + '[[models]]\nlabel = "m"\nendpoint = "local"\nmodel = "m2"\n', "models[2].label (line 9): label 'm'"),
        (BASE + "temperature = 3\n", "models[1].temperature (line 8): must be a number from 0 to 2, got 3"),
        (BASE.replace('seeds = "101"', 'seeds = "10x"'), "seeds (line 1):"),
        (BASE.replace('base_url = "http://127.0.0.1:9/v1"', 'api_key = "sk-123"'), "the key itself never goes"),
        (BASE.replace('model = "m"\n', ""), "models[1] (line 4): missing 'model'"),
        (BASE + 'scenarios = ["nope"]\n', "scenarios"),
        ('seeds = "101"\n', "endpoints: a plan needs at least one [endpoints.NAME] table"),
        (BASE.replace("[endpoints.local]", "[endpoints.local]\nrequests_per_minute = 0"), "at least 1, got 0"),
        (BASE + "extra_body = {temperature = 1.9}\n", "may not set temperature (use temperature / no_temperature)"),
        (BASE + "extra_body = {max_tokens = 5, stream = true}\n", "may not set stream, max_tokens (use max_tokens)"),
    ],
)
def test_a_bad_plan_is_refused_before_anything_runs_naming_the_key_its_line_and_what_is_valid(text, expected):
    """Bad TOML, unknown keys (with the nearest valid one), a model's missing endpoint, two
    models of one label, values out of range, a key written into the file: each is a
    PlanError naming the key (and its line)."""
    with pytest.raises(PlanError) as err:
        parse_plan(text, source="p.toml")
    assert expected in str(err.value)


def test_plan_with_a_configuration_option_or_a_bad_file_is_a_usage_error(tmp_path, capsys):
    """`--plan` beside an option the plan file says (--model, --temperature) exits 2 naming
    them; a plan file with an unknown key exits 2 naming the file, the key and its line;
    a missing file too. Nothing is written."""
    plan = tmp_path / "p.toml"
    plan.write_text(BASE + "temprature = 0.1\n")
    assert pibench_main(["agent", "--plan", str(plan), "--model", "x", "--temperature", "0"]) == 2
    assert "--model, --temperature cannot be given with --plan" in capsys.readouterr().err
    assert pibench_main(["agent", "--plan", str(plan)]) == 2
    assert f"{plan}: models[1].temprature (line 8): unknown key" in capsys.readouterr().err
    assert pibench_main(["agent", "--plan", str(tmp_path / "none.toml")]) == 2
    assert "cannot read the plan" in capsys.readouterr().err
    assert pibench_main(["agent"]) == 2
    assert "--model NAME is required (or --plan FILE.toml)" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_the_plan_display_on_a_terminal_draws_careers_months_and_messages(tmp_path):
    """The rich display (what a terminal gets) shows the careers and months bars and a
    career's messages, and counts a failed career; the plain display writes a status line
    naming careers done, failed and months as a career ends."""
    import io

    from pibench_tui.harness.planrun import PlanDisplay, careers_of, limiters_of

    plan = load_plan(_plan(tmp_path, "http://127.0.0.1:9/v1"))
    careers = careers_of(plan, limiters_of(plan))
    screen = io.StringIO()
    with PlanDisplay(careers, stream=screen, rich=True) as display:
        display.month(careers[0].key, 1, 3)
        display.log("[a-t0 tiny-3 101] resuming at month 2")
        display.finished(careers[0].key, 3, ok=True)
        display.finished(careers[1].key, 3, ok=False)
    drawn = screen.getvalue()
    assert "careers" in drawn and "months" in drawn and "resuming at month 2" in drawn
    assert "2/4" in drawn
    plain = io.StringIO()
    with PlanDisplay(careers, stream=plain, rich=False) as display:
        display.finished(careers[0].key, 3, ok=True)
        display.finished(careers[1].key, 3, ok=False)
    assert "2/4 careers done, 1 failed, 0 in play; 3/12 months" in plain.getvalue()


def test_a_plan_plays_sealed_seeds_from_a_seal_file_beside_it(tmp_path, capsys):
    """`seeds = "@seal.json"` (relative to the plan file) plays each label on the sealed
    seed: run directories named by the commitment prefix, `seed: null` in result.json, the
    seed in no summary line; the endpoint on this machine gets the seal's note, naming the
    plan's endpoint table."""
    from pibench_tui.cli.seeds import read_seal

    assert pibench_main(["seal", "--count", "1", "--out", str(tmp_path / "seal.json")]) == 0
    row = read_seal(tmp_path / "seal.json")["seeds"][0]
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        plan = _plan(tmp_path, srv.base_url, seeds="@seal.json")
        # the fake endpoint runs as this user, who may read the seal: trusted explicitly
        assert pibench_main(["agent", "--plan", str(plan), "--trust-local-endpoint"]) == 0
    captured = capsys.readouterr()
    assert "[endpoints.fake]" in captured.err and "is served on this machine" in captured.err
    assert str(row["seed"]) not in captured.out and f"sealed:{row['commitment'][:12]}" in captured.out
    for label in ("a-t0", "b"):
        res = json.loads(
            (tmp_path / "runs" / label / f"tiny-3-sealed-{row['commitment'][:12]}" / "result.json").read_text()
        )
        assert res["seed"] is None and res["seed_commitment"] == row["commitment"] and res["months_played"] == 3


def test_a_429_with_retry_after_pauses_every_request_of_the_shared_endpoint(tmp_path):
    """A backend sharing an endpoint's limiter meets a 429 with Retry-After 0.02 s: its own
    retry obeys it and answers; and the limiter (on a fake clock that only the limiter's
    waits move) holds back the next request of any career until the pause is over."""
    from pibench_tui.harness.backends import OpenAIBackend
    from tests.harness.conftest import fast_policy
    from tests.harness.fakellm import Status

    clock = FakeClock()
    lim = EndpointLimiter("e", max_concurrent=4, clock=clock.now, sleep=clock.sleep)
    with FakeLLM(lambda req, i: Status(429, retry_after=0.02) if i == 0 else Reply(NEXT)) as srv:
        backend = OpenAIBackend(
            "m", base_url=srv.base_url, api_key_env="PIBENCH_TEST_NO_KEY", policy=fast_policy(cap=1.0)
        )
        backend.limiter = lim
        comp = backend.complete([{"role": "user", "content": "hi"}])
    assert comp.attempts == 2 and comp.text == NEXT
    with lim.slot(1):  # another career's request after the 429
        pass
    assert [t for t, _ in lim.admitted][0] == 0.0 and lim.admitted[-1][0] >= 0.02


def test_plan_defaults_prices_per_model_and_a_copy_of_the_plan_in_the_output_folder(tmp_path, capsys):
    """A [defaults] table gives every model its endpoint and max_turns unless the model says its
    own; a model's price (plan file) and a --price by label (which wins) make each result.json
    record cost_usd at that model's price; the summary prices each label; the output folder holds
    a byte-identical copy of the plan named by its hash. Before, [defaults] and price were unknown
    keys and no copy was kept."""
    (tmp_path / "tiny.toml").write_text(TINY)
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}
    with FakeLLM(lambda req, i: Reply(NEXT, usage=usage)) as srv:
        text = f"""\
out = "runs"
seeds = "101"
scenarios = ["tiny.toml"]

[endpoints.fake]
base_url = "{srv.base_url}"
api_key_env = "PIBENCH_TEST_NO_KEY"
retries = 0

[defaults]
endpoint = "fake"
max_turns = 3
price = [1, 1]

[[models]]
label = "a"
model = "m1"
price = [2, 8]

[[models]]
label = "b"
model = "m2"
max_turns = 2

[[models]]
label = "c"
model = "m3"
"""
        plan = tmp_path / "plan.toml"
        plan.write_text(text)
        assert pibench_main(["agent", "--plan", str(plan), "--price", "c=4,4"]) == 0
    out = tmp_path / "runs"
    res = {label: json.loads(next((out / label).rglob("result.json")).read_text()) for label in "abc"}
    assert [res[x]["harness"]["max_turns"] for x in "abc"] == [3, 2, 3]
    for label, (pin, pout) in {"a": (2, 8), "b": (1, 1), "c": (4, 4)}.items():
        calls = res[label]["llm"]["calls"]
        assert res[label]["cost_usd"] == pytest.approx((1000 * pin + 100 * pout) * calls / 1e6), label
    copies = list(out.glob("plan-*.toml"))
    assert len(copies) == 1 and copies[0].read_text() == text
    assert "cost per career" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (BASE + "price = [2]\n", "models[1].price (line 8): must be [IN, OUT] or [IN, OUT, CACHED]"),
        (BASE + "price = [2, -1]\n", "must be [IN, OUT] or [IN, OUT, CACHED]"),
        (BASE + "[defaults]\nlabel = 'x'\n", "defaults.label (line 9): a label is one configuration"),
        (
            BASE + "[defaults]\ntemprature = 1\n",
            "defaults.temprature (line 9): unknown key; did you mean 'temperature'?",
        ),
        (BASE + "[defaults]\nendpoint = 'nope'\n", "defaults.endpoint (line 9): no endpoint 'nope'"),
        (BASE + "[defaults]\nmax_tokens = 9\nmax_completion_tokens = 9\n", "give one of max_tokens and"),
    ],
)
def test_a_bad_price_or_defaults_entry_in_a_plan_names_the_key_and_line(text, expected):
    """A price that is not 2 or 3 numbers >= 0, a label or an unknown key in [defaults], a default
    endpoint the plan lacks, two exclusive defaults: each a PlanError naming the key and line."""
    with pytest.raises(PlanError) as err:
        parse_plan(text, source="p.toml")
    assert expected in str(err.value)


def test_a_models_own_key_replaces_the_default_it_excludes():
    """A model saying no_temperature drops the default temperature, one saying max_completion_tokens
    the default max_tokens; a model without them takes the defaults."""
    text = BASE.replace('model = "m"\n', 'model = "m"\nno_temperature = true\nmax_completion_tokens = 50\n')
    text += (
        '[[models]]\nlabel = "n"\nendpoint = "local"\nmodel = "n"\n[defaults]\ntemperature = 0.2\nmax_tokens = 900\n'
    )
    m, n = parse_plan(text, source="p.toml").models
    assert (m.no_temperature, m.max_completion_tokens, m.max_tokens) == (True, 50, 50)
    assert (n.temperature, n.max_tokens, n.max_completion_tokens) == (0.2, 900, None)


def test_result_json_names_the_plan_it_ran_under_and_the_report_checks_its_copy(tmp_path, capsys):
    """Each career of a plan records plan.sha256, the SHA-256 of the plan file's text, and
    the name of its copy in the output folder (before, nothing tied a result to its plan);
    the report finds the copy with that hash (plan_copy "verified"), says "differs" and a
    note under the leaderboard when the copy was edited afterwards. A single command records
    plan null."""
    import hashlib

    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.load import load_careers
    from pibench_tui.report.render import leaderboard_notes

    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        plan = _plan(tmp_path, srv.base_url, seeds="101")
        assert pibench_main(["agent", "--plan", str(plan)]) == 0
        sha = hashlib.sha256(plan.read_bytes()).hexdigest()
        out = tmp_path / "runs"
        results = [json.loads(p.read_text()) for p in sorted(out.glob("*/*/result.json"))]
        assert len(results) == 2 and all(r["plan"]["sha256"] == sha for r in results)
        assert results[0]["plan"]["copy"] == f"plan-{sha[:12]}.toml" and (out / results[0]["plan"]["copy"]).is_file()
        careers = load_careers([str(out)], simulate=False)
        assert {c.plan_copy for c in careers} == {"verified"}
        copy = out / f"plan-{sha[:12]}.toml"
        copy.write_text(copy.read_text() + "# edited\n")
        rep = build_report(load_careers([str(out)], simulate=False), trust_unverified=True)
        assert {c["plan_copy"] for c in rep["careers"]} == {"differs"}
        assert any(n.startswith(f"2 careers ran under plan {sha[:12]}") for n in leaderboard_notes(rep))
        single = tmp_path / "single"
        argv = ["agent", "--model", "m", "--base-url", srv.base_url, "--api-key-env", "PIBENCH_TEST_NO_KEY"]
        argv += ["--scenario", "short-12", "--seeds", "101", "--out", str(single), "--retries", "0"]
        os.environ["PIBENCH_TEST_NO_KEY"] = ""
        try:
            assert pibench_main(argv) == 0
        finally:
            del os.environ["PIBENCH_TEST_NO_KEY"]
    assert json.loads(next(single.rglob("result.json")).read_text())["plan"] is None


def test_a_plan_entry_given_request_options_after_it_ran_is_refused_not_reused(tmp_path, capsys):
    """A plan entry edited after its run to add ``reasoning_effort`` and ``extra_body`` (QA F6:
    before, "already complete", exit 0, and a second plan copy beside the runs) refuses the
    finished career naming ``request``, exits 1 and keeps no copy of the edited plan."""
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        plan = _plan(tmp_path, srv.base_url, seeds="101")
        assert pibench_main(["agent", "--plan", str(plan)]) == 0
        copies = sorted(p.name for p in (tmp_path / "runs").glob("plan-*.toml"))
        plan.write_text(
            plan.read_text().replace(
                'model = "m2"\n', 'model = "m2"\nreasoning_effort = "high"\nextra_body = {top_p = 0.1}\n'
            )
        )
        capsys.readouterr()
        assert pibench_main(["agent", "--plan", str(plan)]) == 1
    err = capsys.readouterr().err
    assert "b tiny-3 seed 101: RunConflict" in err and "request: None there" in err
    assert err.count("already complete") == 1  # a-t0's career, unchanged
    assert sorted(p.name for p in (tmp_path / "runs").glob("plan-*.toml")) == copies


def test_plan_headers_are_case_insensitive_settings_model_over_endpoint():
    """A plan's headers: a name twice in one table (in any case) is refused naming it; a
    model's header replaces the endpoint's of the same name in any case, and what is recorded
    (the settings) holds each name once, in lower case, a secret's value redacted."""
    from pibench_tui.harness.planrun import request_settings

    twice = BASE.replace("[endpoints.local]", '[endpoints.local]\nheaders = {X-Route = "a", x-route = "b"}')
    with pytest.raises(PlanError, match="named twice"):
        parse_plan(twice, source="p.toml")
    text = BASE.replace("[endpoints.local]", '[endpoints.local]\nheaders = {X-Route = "a", X-Api-Key = "k1"}')
    text = text.replace('model = "m"\n', 'model = "m"\nheaders = {x-route = "b"}\n')
    plan = parse_plan(text, source="p.toml")
    (m,) = plan.models
    recorded = request_settings(m, plan.endpoints[m.endpoint])
    assert recorded["headers"] == {"x-api-key": "<redacted>", "x-route": "b"}


@pytest.mark.parametrize("seeds", ["[101, 101]", '"101,101"', '"101-103,102"'])
def test_a_seed_given_twice_in_a_plan_is_refused_naming_it(seeds):
    """QA7 F14: seeds = [101, 101] played one career and reported the other as "in use by
    another command" (its own pid): a seed given twice is refused whole, naming it."""
    dup = 102 if "103" in seeds else 101
    with pytest.raises(PlanError, match=f"seed {dup} is given twice"):
        parse_plan(BASE.replace('seeds = "101"', f"seeds = {seeds}"), source="p.toml")


def test_a_seed_given_twice_on_the_command_line_is_a_usage_error(tmp_path, capsys):
    """QA7 F14: --seeds 101,101 is a usage error naming the seed, before any request."""
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        args = ["agent", "--model", "m", "--base-url", srv.base_url, "--api-key-env", "PIBENCH_TEST_NO_KEY"]
        try:
            rc = pibench_main([*args, "--seeds", "101,101", "--scenario", "short-12", "--out", str(tmp_path / "r")])
        except SystemExit as exc:
            rc = exc.code
        assert srv.requests == []
    assert rc == 2
    assert "seed 101 is given twice" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_the_plan_copy_in_the_output_folder_keeps_no_secret(tmp_path):
    """A plan whose endpoint has a key in its base URL's query and a bearer header, whose
    model sends an api_key in extra_body and whose comment holds a key: the copy kept in the
    output folder (before, the file's text as it was) holds none of them, reads back as the
    plan with each secret <redacted> (other values kept), and is the copy the careers'
    result.json name and the report verifies."""
    import hashlib
    import tomllib

    from pibench_tui.report.load import load_careers

    secrets = ["qk7Hx2Lm9Pz4Rt8Vw3Ys6", "hunter2Bearer99xyz", "abc123SECRETbody", "sk-commentkeyabcdefghij12345678"]
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        plan = _plan(
            tmp_path,
            f"{srv.base_url}?api-key={secrets[0]}&route=eu",
            extra_endpoint=f'headers = {{ Authorization = "Bearer {secrets[1]}", "X-Route" = "fast" }}',
            seeds="101",
        )
        text = plan.read_text().replace(
            'model = "m1"\n', f'model = "m1"\nextra_body = {{ api_key = "{secrets[2]}" }}\n'
        )
        plan.write_text(f"# our key: {secrets[3]}\n" + text)
        assert pibench_main(["agent", "--plan", str(plan)]) == 0
        assert any(secrets[1] in h.get("authorization", "") for h in srv.headers)  # the requests had them
    out = tmp_path / "runs"
    (copy,) = out.glob("plan-*.toml")
    kept = copy.read_text()
    assert not [s for s in secrets if s in kept], kept
    data = tomllib.loads(kept)
    fake = data["endpoints"]["fake"]
    assert fake["base_url"].endswith("?api-key=<redacted>&route=eu") and fake["retries"] == 0
    assert fake["headers"] == {"Authorization": "<redacted>", "X-Route": "fast"}
    assert data["models"][0]["extra_body"] == {"api_key": "<redacted>"} and data["models"][1]["max_turns"] == 2
    sha = hashlib.sha256(copy.read_bytes()).hexdigest()
    results = [json.loads(p.read_text()) for p in sorted(out.glob("*/*/result.json"))]
    assert len(results) == 2 and all(r["plan"]["sha256"] == sha for r in results)
    assert {c.plan_copy for c in load_careers([str(out)], simulate=False)} == {"verified"}
