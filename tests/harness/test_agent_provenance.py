"""One label is one configuration (issue 26 §1): a finished career of other settings is
refused like an unfinished one, result.json records where it came from, the endpoint is
checked before any career, --redo-failed plays again the careers whose LLM never answered,
and request options reach the endpoint (a 400 naming a parameter is reported as such)."""

from __future__ import annotations

import json

import pytest

from pibench_tui.cli.command import main as pibench_main
from tests.harness.fakellm import FakeLLM, Reply, Status

NEXT = "```python\ntime.next_month()\n```"


def _args(url: str, out, *extra: str) -> list[str]:
    return [
        "agent",
        "--model",
        "m",
        "--base-url",
        url,
        "--api-key-env",
        "PIBENCH_NO_SUCH_KEY",
        "--scenario",
        "short-12",
        "--out",
        str(out),
        "--retries",
        "0",
        *extra,
    ]


def test_a_finished_career_of_other_settings_is_refused_not_reused(tmp_path, capsys):
    """After seed 101 finished at the default temperature, the same command at --temperature 0
    over seeds 101-102 does not reuse 101 ("already complete"): it is refused naming the
    setting, seed 102 is played, and the command exits 1. The same settings reuse it."""
    out = tmp_path / "runs"
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101")) == 0
        capsys.readouterr()
        rc = pibench_main(_args(srv.base_url, out, "--seeds", "101-102", "--temperature", "0"))
        err = capsys.readouterr().err
        assert rc == 1
        assert "finished career played with other settings" in err and "temperature: 0.4 there, 0.0 now" in err
        assert json.loads((out / "m" / "short-12-101" / "result.json").read_text())["harness"]["temperature"] == 0.4
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101")) == 0
        assert "already complete" in capsys.readouterr().err


def test_result_json_records_provenance_model_ids_request_ids_and_token_details(tmp_path):
    """result.json has the settings hash, pibench's version, the git commit (this is a
    checkout), the system prompt's SHA-256, the model id the provider returned (not the one
    asked for), its request ids, and reasoning / cached prompt tokens when reported."""
    import hashlib

    from pibench_tui.harness.core import harness_system_prompt
    from scenarios import load_scenario

    usage = {
        "prompt_tokens": 1000,
        "completion_tokens": 50,
        "total_tokens": 1050,
        "prompt_tokens_details": {"cached_tokens": 800},
        "completion_tokens_details": {"reasoning_tokens": 30},
    }
    out = tmp_path / "runs"
    with FakeLLM(lambda req, i: Reply(NEXT, usage=usage, model="m-2026-01-01")) as srv:
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101")) == 0
    res = json.loads((out / "m" / "short-12-101" / "result.json").read_text())
    prov = res["provenance"]
    prompt = harness_system_prompt(load_scenario("short-12").config)
    assert prov["system_prompt_sha256"] == hashlib.sha256(prompt.encode()).hexdigest()
    assert prov["system_prompt_sha256"] == res["harness"]["prompt_sha256"]
    assert prov["settings_sha256"] == res["settings_sha256"] and len(res["settings_sha256"]) == 64
    assert prov["pibench_version"] and prov["git_commit"] and len(prov["git_commit"].split("+")[0]) == 40
    assert prov["provider_model_ids"] == {"m-2026-01-01": 12}
    assert len(prov["request_ids"]) == 12 and all(r.startswith("chatcmpl-test-") for r in prov["request_ids"])
    assert res["tokens"]["cached_prompt"] == 12 * 800 and res["tokens"]["reasoning"] == 12 * 30


def test_the_endpoint_check_refuses_a_wrong_model_before_any_career(tmp_path, capsys):
    """An endpoint answering 404 for a mistyped model fails the one-request check: exit 1,
    nothing written, the error named; --no-endpoint-check skips the request."""
    out = tmp_path / "runs"
    with FakeLLM(lambda req, i: Status(404)) as srv:
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101")) == 1
        assert len(srv.requests) == 1
    assert "the endpoint check failed, no career was started: bad_request" in capsys.readouterr().err
    assert not out.exists()


def test_redo_failed_plays_again_the_careers_whose_llm_never_answered(tmp_path, capsys):
    """A career recorded while the endpoint refused every call is reused by a plain re-run;
    --redo-failed plays it again with the working endpoint, keeps the old result beside as
    abandoned-1.result.json (its transcript as abandoned-1.transcript.jsonl) and counts its
    tokens as abandoned; the new career is a new one, not recorded as resumed (no resume event,
    resumes empty). A healthy career is kept."""
    out = tmp_path / "runs"
    broken = True

    def brain(req, i):
        return Status(500) if broken else Reply(NEXT)

    with FakeLLM(brain) as srv:
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101", "--no-endpoint-check")) == 1
        broken = False
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101-102")) == 1  # 101 still never answered
        capsys.readouterr()
        healthy = (out / "m" / "short-12-102" / "result.json").read_bytes()
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101-102", "--redo-failed")) == 0
    err = capsys.readouterr().err
    assert "seed 101: the LLM never answered; playing it again" in err
    run = out / "m" / "short-12-101"
    res = json.loads((run / "result.json").read_text())
    assert res["llm"]["failed_calls"] == 0 and res["llm"]["calls"] == 12
    assert (run / "abandoned-1.result.json").is_file()
    assert res["tokens"]["abandoned"]["redone"][0]["file"] == "abandoned-1.result.json"
    assert res["resumes"] == [] and "resuming" not in err
    events = [json.loads(line)["event"] for line in (run / "transcript.jsonl").read_text().splitlines()]
    assert events[:2] == ["start", "system"] and "resume" not in events
    old_events = [json.loads(line)["event"] for line in (run / "abandoned-1.transcript.jsonl").read_text().splitlines()]
    assert "llm_failed" in old_events and "llm" not in old_events
    assert (out / "m" / "short-12-102" / "result.json").read_bytes() == healthy


def test_request_options_reach_the_endpoint_and_a_refused_parameter_is_named(tmp_path, capsys):
    """--max-completion-tokens, --no-temperature, --reasoning-effort, --extra-body and --header
    shape every request; they are part of the settings (result.json; a header by its name and
    a value that is no secret), where no temperature
    is recorded when none is sent, and --temperature beside --no-temperature is a usage
    error (as in a plan). An endpoint that
    refuses max_tokens with a 400 naming it is reported as a refused parameter."""
    out = tmp_path / "runs"

    def brain(req, i):
        assert "max_tokens" not in req and req["max_completion_tokens"] == 900
        assert "temperature" not in req and req["reasoning_effort"] == "low" and req["top_p"] == 0.5
        return Reply(NEXT)

    with FakeLLM(brain) as srv:
        opts = ["--max-completion-tokens", "900", "--no-temperature", "--reasoning-effort", "low"]
        opts += ["--extra-body", '{"top_p": 0.5}', "--header", "X-Route:fast"]
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101", *opts)) == 0
        seen_headers = srv.headers
    assert any(h.get("x-route") == "fast" for h in seen_headers)
    res = json.loads((out / "m" / "short-12-101" / "result.json").read_text())
    assert res["harness"]["request"] == {
        "extra_body": {"top_p": 0.5},
        "no_temperature": True,
        "reasoning_effort": "low",
        "token_param": "max_completion_tokens",
        "headers": {"x-route": "fast"},  # a route is a setting; a secret header's value never is
    }
    assert res["harness"]["backend"]["request"]["header_names"] == ["X-Route"]
    assert res["harness"]["temperature"] is None  # none was sent (QA26: 0.4 was recorded and reported)
    # QA7 F5: the backend's record said temperature 0.4 (the unsent default), in result.json and
    # the transcript's start entry
    start = json.loads((out / "m" / "short-12-101" / "transcript.jsonl").read_text().splitlines()[0])
    assert res["harness"]["backend"]["temperature"] is None and start["backend"]["temperature"] is None
    both = _args(srv.base_url, tmp_path / "c", "--seeds", "101", "--no-temperature", "--temperature", "0.9")
    assert pibench_main(both) == 2
    assert "--temperature and --no-temperature exclude each other" in capsys.readouterr().err

    def refuse(req, i):
        return Status(400, body={"error": {"message": "Unsupported parameter: 'max_tokens'", "param": "max_tokens"}})

    with FakeLLM(refuse) as srv:
        assert pibench_main(_args(srv.base_url, tmp_path / "b", "--seeds", "101")) == 1
    err = capsys.readouterr().err
    assert "bad_parameter: the endpoint refused the request parameter 'max_tokens' (HTTP 400)" in err


def test_the_report_says_a_temperature_was_not_sent_not_unknown(tmp_path):
    """QA7 F5: between a label played with --no-temperature and one at the default, the
    report's note of differing harness settings said "—" (its mark of an unknown value) for
    the first; now it says the temperature was not sent."""
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.load import load_careers

    out = tmp_path / "runs"
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101", "--no-temperature", "--label", "a")) == 0
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101", "--label", "b")) == 0
    (line,) = [x for x in build_report(load_careers([str(out)]))["harness_differences"] if "temperature" in x]
    assert line == "temperature: a not sent (--no-temperature); b 0.4", line


def test_counts_of_one_are_singular_in_the_agent_summary_and_progress(tmp_path, capsys):
    """One career played: the summary says "over 1 finished career", the progress line "1/1
    career done" and the career's line "1 call" counts in the singular where the count is 1
    (before: "1 finished career(s)", "1/1 careers done"); other counts stay plural."""
    out = tmp_path / "runs"
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101")) == 0
    captured = capsys.readouterr()
    assert "over 1 finished career: tokens per career" in captured.out
    assert "1/1 career done, 0 in play; 12/12 months" in captured.err
    assert "12 calls ->" in captured.err and "career(s)" not in captured.out + captured.err


def test_a_finished_career_without_request_options_is_refused_by_a_command_with_them(tmp_path, capsys):
    """Request options are settings both ways (QA F6): after seed 101 finished with none, the
    same command with --reasoning-effort, --extra-body, --max-completion-tokens or
    --no-temperature does not reuse it ("already complete", exit 0 before this fix): each is
    refused naming ``request`` and the command exits 1; the career is left as it was."""
    out = tmp_path / "runs"
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101")) == 0
        before = (out / "m" / "short-12-101" / "result.json").read_text()
        for extra in (
            ["--reasoning-effort", "high"],
            ["--extra-body", '{"top_p": 0.1}'],
            ["--max-completion-tokens", "4000"],
            ["--no-temperature"],
        ):
            capsys.readouterr()
            rc = pibench_main(_args(srv.base_url, out, "--seeds", "101", "--no-endpoint-check", *extra))
            err = capsys.readouterr().err
            assert rc == 1, (extra, err)
            assert "already complete" not in err and "finished career played with other settings" in err, extra
            assert "request: None there" in err, (extra, err)
        assert (out / "m" / "short-12-101" / "result.json").read_text() == before
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101")) == 0
        assert "already complete" in capsys.readouterr().err


def test_a_career_whose_llm_never_answered_is_missing_in_the_report_not_a_zero_in_the_mean(tmp_path, capsys):
    """QA F10: seed 101 played against a dead endpoint (--no-endpoint-check, every call
    refused) and seed 102 against a working one. `pibench report --json F` counts one career
    (n 1; before, n 2 with the dead career a valid 0 in the mean), lists 101 as missing with
    the reason "the LLM never answered" and --redo-failed; the terminal report names it in
    its careers table. After --redo-failed both careers count."""
    out = tmp_path / "runs"
    broken = True

    def brain(req, i):
        return Status(500) if broken else Reply(NEXT)

    with FakeLLM(brain) as srv:
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101", "--no-endpoint-check")) == 1
        broken = False
        assert pibench_main(_args(srv.base_url, out, "--seeds", "102")) == 0
        capsys.readouterr()
        rep_file = tmp_path / "rep.json"
        assert pibench_main(["report", str(out), "--json", str(rep_file)]) == 0
        (row,) = [r for r in json.loads(rep_file.read_text())["leaderboard"] if r["label"] == "m"]
        assert row["n"] == 1 and row["missing"] == 1 and list(row["seeds"]) == ["102"]
        assert row["missing_seeds"] == {"101": "never answered"}
        assert any(
            "the LLM never answered (8 failed calls)" in r and "--redo-failed" in r for r in row["missing_reasons"]
        )
        assert "never answered" in capsys.readouterr().out
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101-102", "--redo-failed")) == 0
        assert pibench_main(["report", str(out), "--json", str(rep_file)]) == 0
        (row,) = [r for r in json.loads(rep_file.read_text())["leaderboard"] if r["label"] == "m"]
        assert row["n"] == 2 and row["missing"] == 0


def test_secrets_in_extra_body_are_sent_but_never_recorded(tmp_path):
    """QA F13: ``--extra-body '{"api_key": ...}'`` was written verbatim into result.json and
    the transcript. Fields named like a secret (api_key, nested accessToken, authorization,
    client_secret, password), at any depth, reach the endpoint but are recorded as
    "<redacted>"; settings such as top_p and budget_tokens are recorded as given."""
    from pibench_tui.harness.backends import is_secret_name

    body = {
        "api_key": "sk-SECRET1",
        "top_p": 0.5,
        "provider": {"accessToken": "SECRET2", "order": ["a"]},
        "authorization": "Bearer SECRET3",
        "thinking": {"budget_tokens": 1024},
        "extra": [{"client_secret": "SECRET4", "password": "SECRET5"}],
    }
    seen = []

    def brain(req, i):
        seen.append(req)
        return Reply(NEXT)

    out = tmp_path / "runs"
    with FakeLLM(brain) as srv:
        assert pibench_main(_args(srv.base_url, out, "--seeds", "101", "--extra-body", json.dumps(body))) == 0
    assert seen[-1]["api_key"] == "sk-SECRET1" and seen[-1]["provider"]["accessToken"] == "SECRET2"
    run = out / "m" / "short-12-101"
    for name in ("result.json", "transcript.jsonl", "checkpoint.json"):
        if (run / name).exists():
            assert "SECRET" not in (run / name).read_text(), name
    res = json.loads((run / "result.json").read_text())
    recorded = res["harness"]["request"]["extra_body"]
    assert recorded["api_key"] == "<redacted>" and recorded["provider"] == {"accessToken": "<redacted>", "order": ["a"]}
    assert recorded["top_p"] == 0.5 and recorded["thinking"] == {"budget_tokens": 1024}
    assert not any(is_secret_name(k) for k in ("max_tokens", "budget_tokens", "top_k", "reasoning_effort"))
    # QA7 F17: a *_token field holding a plain word is a key; a special token is a setting.
    from pibench_tui.harness.backends import redact_secrets

    assert redact_secrets({"github_token": "hunter2pass", "hf_token": "abcdefgh12", "eos_token": "</s>"}) == {
        "github_token": "<redacted>",
        "hf_token": "<redacted>",
        "eos_token": "</s>",
    }


def test_a_request_in_flight_at_a_kill_is_counted_as_abandoned_on_resume(tmp_path, capsys):
    """QA F9 (low d): `pibench agent` killed (SIGKILL) while the server holds its 4th request
    resumes and records that request as abandoned: tokens.abandoned.in_flight (1 request, its
    prompt estimated at characters / 4, labelled) and in the resume note; before, lost tokens
    were 0 and nothing was estimated, while time-outs were. The summary, the report's note and
    result.json's cost note call it in flight at a kill (QA7 F8: "abandoned at a time-out")."""
    import os
    import signal
    import subprocess
    import sys
    import threading
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "runs"
    release = threading.Event()
    held = threading.Event()

    def brain(req, i):
        if i >= 3 and not release.is_set():
            held.set()
            release.wait(120)
        return Reply(NEXT)

    with FakeLLM(brain) as srv:
        args = _args(srv.base_url, out, "--seeds", "101", "--no-endpoint-check")
        child = subprocess.Popen(
            [sys.executable, "-m", "pibench_tui", *args],
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env={**os.environ, "PYTHONPATH": str(root)},
        )
        try:
            assert held.wait(120)  # a cap, not a timing: the 4th request is at the server
        finally:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            release.set()
        capsys.readouterr()
        assert pibench_main([*args, "--price", "m=2,8"]) == 0
    run = out / "m" / "short-12-101"
    res = json.loads((run / "result.json").read_text())
    flight = res["tokens"]["abandoned"]["in_flight"]
    assert flight["requests"] == 1 and flight["prompt_estimated"] > 100 and "characters / 4" in flight["note"]
    (resume,) = res["resumes"]
    assert resume["in_flight"]["prompt_estimated"] == flight["prompt_estimated"]
    assert not (run / "request-in-flight.json").exists()
    summary = capsys.readouterr().out
    assert "requests in flight at a kill 1.0 per career" in summary and "time-out" not in summary, summary
    assert "of it estimated: prompts of requests in flight at a kill)" in summary, summary
    assert "or in flight at a kill (tokens.abandoned.in_flight.prompt_estimated)" in res["cost"]["note"]
    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.load import load_careers
    from pibench_tui.report.render import leaderboard_notes

    (note,) = [n for n in leaderboard_notes(build_report(load_careers([str(out)]))) if "ESTIMATED" in n]
    assert " of requests in flight at a kill" in note and "time-out" not in note, note


def _all_text(folder) -> str:
    return "".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())


def test_headers_are_settings_by_name_and_non_secret_value_and_secrets_never_reach_disk(tmp_path, capsys):
    """--header takes part in a label's configuration (issue 26 §1): after seed 101 finished
    with ``X-Route: fast`` and a secret ``Authorization``, the same command reuses it with the
    names in another case and another key (a key is no setting), but refuses it ("request:
    ... there ... now", exit 1, the career untouched) with another route, without the
    Authorization header, or with one more header. What is recorded holds the names (lower
    case) and the route, never the key: no file of the run folder contains it. A name given
    twice (in any case) is a usage error. Before, headers were no setting at all: another
    route was reused "already complete"."""
    out = tmp_path / "runs"
    key1, key2 = "Bearer sk-test-1a2b3c4d5e6f7a8b9c0d", "Bearer sk-test-9z8y7x6w5v4u3t2s1r0q"
    base = ["--seeds", "101", "--no-endpoint-check"]
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        first = ["--header", "X-Route:fast", "--header", f"Authorization:{key1}"]
        assert pibench_main(_args(srv.base_url, out, *base, *first)) == 0
        run = out / "m" / "short-12-101"
        res = json.loads((run / "result.json").read_text())
        assert res["harness"]["request"]["headers"] == {"authorization": "<redacted>", "x-route": "fast"}
        assert "sk-test" not in _all_text(out)
        before = (run / "result.json").read_text()
        capsys.readouterr()
        same = ["--header", "x-route:fast", "--header", f"AUTHORIZATION:{key2}"]
        assert pibench_main(_args(srv.base_url, out, *base, *same)) == 0
        assert "already complete" in capsys.readouterr().err
        for other in (
            ["--header", "X-Route:slow", "--header", f"Authorization:{key1}"],
            ["--header", "X-Route:fast"],
            [*first, "--header", "X-Provider:azure"],
        ):
            rc = pibench_main(_args(srv.base_url, out, *base, *other))
            err = capsys.readouterr().err
            assert rc == 1, (other, err)
            assert "finished career played with other settings" in err and "request:" in err, (other, err)
        assert (run / "result.json").read_text() == before
        assert "sk-test" not in _all_text(out)
    twice = _args("http://127.0.0.1:9/v1", tmp_path / "t", *base, "--header", "X-A:1", "--header", "x-a:2")
    assert pibench_main(twice) == 2
    assert "--header x-a is given twice" in capsys.readouterr().err


def test_a_secret_header_is_recognised_by_its_name_or_its_value():
    """Which header values are never recorded: secret-looking names (Authorization, *-Key,
    tokens, cookies, sessions, signatures, Helicone-Auth) and credential-looking values under
    any name (a bearer scheme, an ``sk-`` key, an opaque run of letters and digits); routes,
    versions and regions are recorded as they are."""
    from pibench_tui.harness.backends import REDACTED, header_settings

    secret = {
        "Authorization": "Bearer x",
        "X-Api-Key": "abc",
        "api-key": "abc",
        "Helicone-Auth": "x",
        "X-Amz-Security-Token": "x",
        "Cookie": "a=b",
        "X-Session-Id": "s",
        "X-Request-Signature": "s",
        "X-Custom": "Bearer abc",
        "X-Other": "sk-abc",
        "X-Opaque": "q1w2e3r4t5y6u7i8o9p0as",
    }
    plain = {"X-Route": "fast", "anthropic-version": "2023-06-01", "X-Region": "us-east-1", "X-Title": "pibench eval"}
    recorded = header_settings({**secret, **plain})
    assert {k for k, v in recorded.items() if v == REDACTED} == {k.lower() for k in secret}
    assert {k: v for k, v in recorded.items() if v != REDACTED} == {k.lower(): v for k, v in plain.items()}


def test_the_report_splits_a_label_whose_careers_were_sent_other_headers(tmp_path, capsys):
    """Seeds 101 and 102 of label m played through the real command with ``X-Route: fast``
    and ``X-Route: slow`` (a gateway sending them to other models): `pibench report` shows one
    row per configuration, not one mean; the settings hash it splits by is derived from the
    recorded settings, so a ``settings_sha256`` edited to the other career's does not merge
    them. Before, headers were no setting and both careers were averaged as one model."""
    out = tmp_path / "runs"
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        for seed, route in (("101", "fast"), ("102", "slow")):
            assert pibench_main(_args(srv.base_url, out, "--seeds", seed, "--header", f"X-Route:{route}")) == 0
    forged = out / "m" / "short-12-102" / "result.json"
    res = json.loads(forged.read_text())
    res["settings_sha256"] = json.loads((out / "m" / "short-12-101" / "result.json").read_text())["settings_sha256"]
    forged.write_text(json.dumps(res))
    capsys.readouterr()
    assert pibench_main(["report", str(out), "--json", str(tmp_path / "r.json")]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    rows = [r["label"] for r in report["leaderboard"]]
    assert len(rows) == 2 and all(r.startswith("m · settings ") for r in rows), rows
    assert "holds careers of 2 different harness settings" in capsys.readouterr().out


def test_credentials_in_the_base_url_and_key_like_extra_body_values_never_reach_disk(tmp_path, capsys):
    """QA6 F4: a --base-url with a password in its user information and a key in its query
    (``http://user:PW@host/v1?api-key=KEY``), and an --extra-body value that is plainly a key
    under an innocent name (``{"user": "sk-proj-..."}``) were written in clear to result.json
    and transcript.jsonl. The request still goes where the URL says (the query reaches the
    endpoint, the value is sent), but no file of the run folder and nothing printed holds
    the secrets; what is recorded names them ``<redacted>`` and keeps the rest of the URL."""
    seen: list[dict] = []

    def brain(req, i):
        seen.append(req)
        return Reply(NEXT)

    out = tmp_path / "runs"
    body = {"user": "sk-proj-VALUESECRET", "prompt_cache_key": "run-42", "eos_token": "</s>"}
    with FakeLLM(brain) as srv:
        url = srv.base_url.replace("http://", "http://user:hunter2@") + "?api-key=QUERYSECRET&api-version=2024-06-01"
        rc = pibench_main(_args(url, out, "--seeds", "101", "--extra-body", json.dumps(body)))
        assert rc == 0
        # the query is sent as the URL's query (before, the client appended the route after it: 404)
        assert srv.paths[-1] == "/v1/chat/completions?api-key=QUERYSECRET&api-version=2024-06-01", srv.paths[-1]
    printed = capsys.readouterr()
    assert seen and seen[-1]["user"] == "sk-proj-VALUESECRET"
    for secret in ("hunter2", "QUERYSECRET", "VALUESECRET"):
        assert secret not in _all_text(out), secret
        assert secret not in printed.out + printed.err, secret
    res = json.loads((out / "m" / "short-12-101" / "result.json").read_text())
    recorded = res["harness"]["backend"]["base_url"]
    assert recorded == url.replace("hunter2", "<redacted>").replace("QUERYSECRET", "<redacted>")
    extra = res["harness"]["request"]["extra_body"]
    # precise names: a cache key and an end-of-sequence token are settings, recorded as given
    assert extra == {"user": "<redacted>", "prompt_cache_key": "run-42", "eos_token": "</s>"}


def test_a_secret_value_is_told_by_the_one_detector_and_a_redacted_field_still_counts_by_presence():
    """Which --extra-body fields are recorded as ``<redacted>``: names that always hold a
    secret (api_key, accessToken, client_secret, password, authorization, a bare key or
    token), and any value that looks like a credential whatever its name (the same detector
    as headers); ``prompt_cache_key``, ``eos_token``, ``stop_token`` or a long model name are
    settings. A redacted field keeps its name, so two configurations that differ in having
    one differ in their settings."""
    from pibench_tui.harness.backends import REDACTED, RequestOptions, is_secret_name, redact_url

    secret_names = (
        "api_key",
        "apiKey",
        "x-api-key",
        "accessToken",
        "client_secret",
        "password",
        "authorization",
        "key",
        "token",
    )
    assert all(is_secret_name(n) for n in secret_names)
    settings_names = (
        "prompt_cache_key",
        "eos_token",
        "stop_token",
        "pad_token",
        "max_tokens",
        "budget_tokens",
        "top_k",
        "user",
    )
    assert not any(is_secret_name(n) for n in settings_names)
    body = {
        "prompt_cache_key": "a1b2c3d4e5f6a7b8c9d0e1f2",
        "model_version": "meta-llama-3.1-70b-instruct",
        "eos_token": "</s>",
    }
    recorded = RequestOptions(extra_body=body).settings()["extra_body"]
    assert recorded == {**body, "prompt_cache_key": REDACTED}
    with_key = RequestOptions(extra_body={"user": "sk-1"}).settings()
    assert with_key != RequestOptions(extra_body={}).settings() and with_key["extra_body"] == {"user": REDACTED}
    assert redact_url("https://tok3n0123456789abcdefgh@h.example/v1/?key=abc&v=2#x") == (
        "https://<redacted>@h.example/v1/?key=<redacted>&v=2"
    )
    assert redact_url("http://[::1") == REDACTED


def test_another_endpoint_is_another_configuration_and_the_report_splits_and_names_model_ids(tmp_path, capsys):
    """QA6 F3: `pibench agent` with another --base-url reused the finished careers of the
    first endpoint ("already complete"), played the other seeds on the second, and the report
    showed one row n=4 with no note, although base_url and the model ids the providers
    returned differed. Now the endpoint (scheme, host, port, path; never its credentials) is
    a setting: the same endpoint spelled otherwise (a password, a trailing '/') reuses, another
    one is refused naming it (also for a result.json of an earlier pibench that recorded no
    endpoint: its backend's base_url is compared), and `pibench report` shows the label as one
    row per endpoint. Careers of one configuration that the provider says were answered by
    different model ids are one row with a note naming the row and the ids."""
    out = tmp_path / "runs"
    served = {"id": "served-a"}
    with (
        FakeLLM(lambda req, i: Reply(NEXT, model=served["id"])) as one,
        FakeLLM(lambda req, i: Reply(NEXT, model="totally-different-model-2")) as two,
    ):
        assert pibench_main(_args(one.base_url, out, "--seeds", "101-102")) == 0
        res = json.loads((out / "m" / "short-12-101" / "result.json").read_text())
        assert res["harness"]["endpoint"] == one.base_url
        capsys.readouterr()
        same = one.base_url.replace("http://", "http://user:pw@") + "/"
        assert pibench_main(_args(same, out, "--seeds", "101-102")) == 0
        assert capsys.readouterr().err.count("already complete") == 2
        # a run folder of an earlier pibench: no endpoint recorded, its backend's base_url says it
        old = out / "m" / "short-12-102" / "result.json"
        res = json.loads(old.read_text())
        del res["harness"]["endpoint"]
        old.write_text(json.dumps(res))
        rc = pibench_main(_args(two.base_url, out, "--seeds", "101-104"))
        err = capsys.readouterr().err
        assert rc == 1, err
        assert err.count("finished career played with other settings") == 2 and "endpoint: " in err, err
        assert (out / "m" / "short-12-104" / "result.json").is_file()
        served["id"] = "served-b"  # the same endpoint now answers as another model
        assert pibench_main(_args(one.base_url, out, "--seeds", "105")) == 0
    capsys.readouterr()
    assert pibench_main(["report", str(out), "--json", str(tmp_path / "r.json")]) == 0
    printed = capsys.readouterr().out
    report = json.loads((tmp_path / "r.json").read_text())
    rows = {r["label"]: r["n"] for r in report["leaderboard"]}
    assert len(rows) == 2 and sorted(rows.values()) == [2, 3], rows
    first = next(label for label, n in rows.items() if n == 3)
    assert report["model_id_mix"] == {first: {"served-a": 2, "served-b": 1}}
    assert "model ids" in printed and "'served-a' (2 careers), 'served-b' (1 career)" in printed
    assert "holds careers of 2 different harness settings" in printed


def test_an_endpoint_echoing_the_key_url_or_headers_in_its_error_is_scrubbed(tmp_path, capsys, monkeypatch):
    """An endpoint's error text may echo what it was sent (its URL with a query key, the API
    key, a secret header, a key-like body value): errors are printed (the endpoint check) and
    recorded (result.json, the transcript), so each secret the backend sends is replaced by
    ``<redacted>`` in them, the rest of the message kept."""
    monkeypatch.setenv("PIBENCH_TEST_KEY", "sk-test-APIKEYSECRET0123")
    srv = FakeLLM(lambda req, i: Reply(NEXT))

    def echo(req, i):
        if i == 0:
            h = srv.headers[-1]
            said = f"{h['authorization']} {h['x-api-key']} {req['user']} at ?api-key=QUERYSECRET"
            return Status(400, body={"error": {"message": f"refused: {said}", "type": "test"}})
        return Reply(NEXT)

    srv.brain = echo
    out = tmp_path / "runs"
    body = json.dumps({"user": "sk-proj-VALUESECRET"})
    extra = ["--seeds", "101", "--extra-body", body, "--header", "X-Api-Key:HEADERSECRET1"]
    with srv:
        url = srv.base_url + "?api-key=QUERYSECRET"
        common = _args(url, out, *extra)
        common[common.index("PIBENCH_NO_SUCH_KEY")] = "PIBENCH_TEST_KEY"
        assert pibench_main(common) == 1  # the endpoint check failed, naming the endpoint's words
        printed = capsys.readouterr()
        assert "refused: Bearer <redacted> <redacted> <redacted> at ?api-key=<redacted>" in printed.err
        assert "APIKEYSECRET" not in printed.err and not out.exists()
        srv.requests.clear()
        srv.headers.clear()
        # user information in the URL: the client sends it as Basic auth (base64 of user:password)
        common = _args(srv.base_url.replace("http://", "http://user:hunter2@") + "?api-key=QUERYSECRET", out, *extra)
        assert pibench_main([*common, "--no-endpoint-check"]) == 3  # one failed call: partway
        printed = capsys.readouterr()
    import base64

    basic = base64.b64encode(b"user:hunter2").decode()
    for secret in ("QUERYSECRET", "VALUESECRET", "HEADERSECRET", "hunter2", basic):
        assert secret not in _all_text(out), secret
        assert secret not in printed.out + printed.err, secret
    res = json.loads((out / "m" / "short-12-101" / "result.json").read_text())
    assert (
        "refused: Basic <redacted> <redacted> <redacted> at ?api-key=<redacted>" in res["llm"]["errors"][0]["message"]
    )


def test_a_key_on_the_command_line_of_a_command_backend_is_not_recorded(tmp_path, capsys):
    """A --command line may carry a key (``--api-key sk-...``, ``TOKEN=...``, a bare key
    word): result.json and the transcript recorded the command verbatim. Now such words are
    ``<redacted>`` in what is recorded; the command runs as typed and the rest of it is kept."""
    from pibench_tui.harness.backends import redact_command

    script = tmp_path / "reply.py"
    script.write_text(
        'import sys, json\nsys.stdin.read()\nprint(json.dumps({"content": "```python\\ntime.next_month()\\n```"}))\n'
    )
    line = f"python3 {script} --api-key sk-proj-CMDSECRET1 --mode fast --token=TOKSECRET22 q1w2e3r4t5y6u7i8o9p0OPAQUE"
    out = tmp_path / "runs"
    argv = ["agent", "--model", "m", "--command", line, "--scenario", "short-12", "--seeds", "101", "--out", str(out)]
    assert pibench_main([*argv, "--no-endpoint-check"]) == 0
    capsys.readouterr()
    for secret in ("CMDSECRET1", "TOKSECRET22", "OPAQUE"):
        assert secret not in _all_text(out), secret
    res = json.loads((out / "m" / "short-12-101" / "result.json").read_text())
    assert res["harness"]["backend"]["command"] == (
        f"python3 {script} --api-key <redacted> --mode fast --token=<redacted> <redacted>"
    )
    plain = "/opt/models/llama3/bin/serve2 --max-tokens 400 --eos-token </s>"
    assert redact_command(plain) == plain
    # QA7 F17: names the header rule holds (MY_TOKEN=, GITHUB_TOKEN=, --github-token=) were kept,
    # and a quoted script lost everything after its secret.
    assert redact_command("env MY_TOKEN=abc123SECRETq GITHUB_TOKEN=ghs12345678 a --github-token=tok123456") == (
        "env MY_TOKEN=<redacted> GITHUB_TOKEN=<redacted> a --github-token=<redacted>"
    )
    assert redact_command("sh -c 'TOKEN=abcdef123 python a.py --max-tokens 1000'") == (
        "sh -c 'TOKEN=<redacted> python a.py --max-tokens 1000'"
    )


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"temperature": 1.5}, "temperature (use --temperature / --no-temperature)"),
        ({"max_tokens": 5}, "max_tokens (use --max-tokens)"),
        ({"reasoning_effort": "high", "top_p": 0.5}, "reasoning_effort (use --reasoning-effort)"),
        ({"stream": True}, "stream"),
    ],
)
def test_extra_body_may_not_set_a_field_the_harness_sends_and_records(tmp_path, capsys, body, named):
    """QA7 F6: ``--extra-body '{"temperature": 1.5}'`` was sent on every request while
    result.json and the report said 0.4 (and ``max_tokens`` 5 sent, 4000 recorded). A field
    the harness sends itself is refused before anything runs, naming the option that owns it;
    no run folder is written."""
    out = tmp_path / "runs"
    try:
        code = pibench_main(_args("http://127.0.0.1:9/v1", out, "--seeds", "101", "--extra-body", json.dumps(body)))
    except SystemExit as exc:  # argparse's usage error, where the parser exits itself
        code = exc.code
    assert code == 2
    assert named in capsys.readouterr().err
    assert not out.exists()


def test_the_per_career_line_says_unknown_or_at_least_tokens_when_usage_is_missing(tmp_path, capsys):
    """QA7 F1: the stderr line "Impact X (horizon); N tokens, M calls" follows the summary's
    rule: no call with a token count -> "unknown tokens"; some without -> "≥N tokens"."""
    with FakeLLM(lambda req, i: Reply(NEXT, usage={})) as srv:
        assert pibench_main(_args(srv.base_url, tmp_path / "none", "--seeds", "101")) == 0
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "(horizon);" in x)
    assert "unknown tokens, 12 calls" in line, line
    with FakeLLM(lambda req, i: Reply(NEXT, usage={} if i % 2 else None)) as srv:
        assert pibench_main(_args(srv.base_url, tmp_path / "half", "--seeds", "101")) == 0
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "(horizon);" in x)
    assert "; ≥" in line and " tokens, 12 calls" in line, line


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (("--reasoning-effort", ""), "--reasoning-effort must be a non-empty level"),
        (("--reasoning-effort", "  "), "--reasoning-effort must be a non-empty level"),
        (("--max-tokens", "100", "--max-completion-tokens", "100"), "give one of --max-tokens and --max-completion"),
    ],
)
def test_an_empty_reasoning_effort_or_both_token_limits_is_a_usage_error(tmp_path, capsys, extra, said):
    """QA7 F7: '--reasoning-effort ""' would send reasoning_effort "", and --max-tokens with
    --max-completion-tokens sent one silently: both are usage errors, before any request."""
    out = tmp_path / "runs"
    with FakeLLM(lambda req, i: Reply(NEXT)) as srv:
        try:
            rc = pibench_main(_args(srv.base_url, out, "--seeds", "101", *extra))
        except SystemExit as exc:
            rc = exc.code
        assert srv.requests == []
    assert rc == 2
    assert said in capsys.readouterr().err
    assert not (out / "m").exists()
