"""`pibench agent --seeds @FILE`: sealed careers (MECHANICS Decisions 10), and the agent's
`query()` going through the bounded query worker as in headless mode (Decisions 9)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pibench_tui.cli.command import main as pibench_main
from pibench_tui.cli.seeds import read_seal
from tests.harness.conftest import play
from tests.harness.fakellm import FakeLLM, Reply

#: A month of agent code that shows everything it can: the dashboard, the rules, the last
#: report, a failing call, an error of its own, and notes in memory.
CURIOUS = """```python
import json
d = lab.dashboard()
print(json.dumps(d)[:3000])
print(json.dumps(lab.rules())[:2000])
try:
    print(time.last_report())
except Exception as e:
    print(type(e).__name__, e)
try:
    lab.no_such_call()
except Exception as e:
    print(type(e).__name__, e)
memory.write("month notes: " + json.dumps(d)[:200])
time.next_month()
```"""


def _seal(tmp_path: Path, count: int = 1) -> Path:
    path = tmp_path / "seal.json"
    assert pibench_main(["seal", "--count", str(count), "--out", str(path)]) == 0
    return path


def test_a_sealed_agent_career_never_shows_its_seed_and_replays_after_unsealing(tmp_path, capsys):
    """`pibench agent --seeds @FILE` names the run directory by the commitment prefix,
    writes `seed: null` with the commitment in result.json, seeds the agent's random from
    secret entropy (recorded in result.json), and the seed appears in nothing the agent saw
    (every request sent to the LLM) nor in any file of the run directory; `pibench replay`
    leaves the run unchecked and unmarked without the seal file (exit 2) and confirms it with
    `--seal FILE`. An endpoint on this machine (the fake one) gets a note on stderr: the seal
    trusts its server not to read the seal file or the runs."""
    seal_path = _seal(tmp_path)
    row = read_seal(seal_path)["seeds"][0]
    seed, commitment = str(row["seed"]), row["commitment"]
    out = tmp_path / "runs"
    with FakeLLM(lambda req, i: Reply(CURIOUS)) as srv:
        rc = pibench_main(
            [
                "agent",
                "--model",
                "m",
                "--base-url",
                srv.base_url,
                "--api-key-env",
                "PIBENCH_NO_SUCH_KEY",
                "--scenario",
                "short-12",
                "--seeds",
                f"@{seal_path}",
                "--out",
                str(out),
                "--trust-local-endpoint",  # the fake server runs as this user
            ]
        )
        requests = list(srv.requests)
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert seed not in captured.out and f"sealed:{commitment[:12]}" in captured.out
    # the endpoint is served on this machine: the evaluator is told what the seal trusts
    assert "is served on this machine; a sealed evaluation trusts its server" in captured.err
    run = out / "m" / f"short-12-sealed-{commitment[:12]}"
    res = json.loads((run / "result.json").read_text())
    assert res["seed"] is None and res["seed_commitment"] == commitment
    assert res["months_played"] == 12 and res["agent_random_seeds"]
    assert str(res["agent_random_seeds"][0]) != seed
    assert res["confinement"]["complete"] is True
    # Nothing the agent saw holds the seed: every prompt, and every file of the run.
    assert len(requests) == 13  # the endpoint check, then 12 months
    assert all(seed not in json.dumps(r) for r in requests)
    transcript = (run / "transcript.jsonl").read_text()
    assert "month notes" in (run / "memory.txt").read_text() and '"dashboard"' in (run / "months.jsonl").read_text()
    assert "no_such_call" in transcript  # the agent's errors are in it
    for f in sorted(run.iterdir()):
        assert seed not in f.read_text(), f"the sealed seed appears in {f.name}"
    # Replay: not checked (and nothing recorded) until the seal file is given, then confirmed.
    before = (run / "result.json").read_bytes()
    assert pibench_main(["replay", str(run)]) == 2
    out = capsys.readouterr().out
    assert out.startswith("sealed ") and "--seal" in out and "INVALID" not in out
    assert (run / "result.json").read_bytes() == before
    assert pibench_main(["replay", str(run), "--seal", str(seal_path)]) == 0
    verdict = json.loads((run / "result.json").read_text())
    assert verdict["valid"] is True and verdict["seed"] is None
    # A seal file without this run's commitment cannot stand in for it.
    other = tmp_path / "other"
    other.mkdir()
    assert pibench_main(["replay", str(run), "--seal", str(_seal(other))]) == 1


def test_a_sealed_agent_run_is_refused_without_complete_confinement(tmp_path, monkeypatch, capsys):
    """Without complete OS confinement `pibench agent --seeds @FILE` refuses to start
    (exit 1, the reason named, no run directory), whereas public seeds still play."""
    import pibench_tui.cli.seeds as seeds

    monkeypatch.setattr(
        seeds, "require_confinement", lambda **_: "the OS confinement of agent processes is incomplete (test)"
    )
    seal_path = _seal(tmp_path)
    out = tmp_path / "runs"
    rc = pibench_main(
        [
            "agent",
            "--model",
            "m",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--api-key-env",
            "PIBENCH_NO_SUCH_KEY",
            "--scenario",
            "short-12",
            "--seeds",
            f"@{seal_path}",
            "--out",
            str(out),
        ]
    )
    assert rc == 1
    assert "sealed evaluation is refused" in capsys.readouterr().err
    assert not out.exists()


#: One row of 95 columns, each a sum of five million-character values: straight-line work
#: SQLite's progress handler barely sees (the issue-10 attack), under every size limit.
HOSTILE_SQL = "SELECT " + ", ".join([" + ".join(["length(printf('%.*c', 999999, 'x'))"] * 5)] * 95)
HOSTILE_BLOCK = (
    f"try:\n    r = query({HOSTILE_SQL!r})\n    print('rows', len(r))\n"
    "except Exception as e:\n    print('refused:', type(e).__name__, str(e)[:300])\n"
    "print('still here')\n"
)


def test_agent_queries_run_in_the_query_worker_that_cuts_them_off():
    """The harness core runs the agent's query() in the world's query worker (as headless
    mode does): the hostile query is killed there at the query limit (the worker counts
    the kill), the agent gets the error, its process survives, and the career goes on."""
    from pibench_tui.harness.core import LabCore
    from scenarios import load_scenario

    core = LabCore(load_scenario("short-12").config, seed=5)
    try:
        core.reset()
        worker = core.career.observer.worker
        assert worker is not None
        _obs, _r, _t, _tr, info = core.step(HOSTILE_BLOCK)
        assert "refused: ActionError" in info["output"] and "still here" in info["output"]
        assert "rows" not in info["output"]
        assert worker.kills >= 1
        _obs, _r, _t, _tr, info = core.step("print(query('SELECT 1 AS one'))\ntime.next_month()\n")
        assert info["ok"] and "'one': 1" in info["output"] and core.month == 2
    finally:
        core.close()
    assert core.career.observer.worker is None  # closed with the career


def test_a_hostile_query_in_a_reply_does_not_stop_the_career(out):
    """A scripted reply whose query() is the hostile one is refused (the error reaches the
    agent), the agent process survives, and the career goes on to the horizon."""
    hostile = "```python\n" + HOSTILE_BLOCK + "time.next_month()\n```"

    def brain(req, i):
        return Reply(hostile if i < 1 else "```python\ntime.next_month()\n```")

    with FakeLLM(brain) as srv:
        res = play(srv, out)
    assert res["months_played"] == 12 and not res["collapsed"]
    events = [json.loads(x) for x in (out / "fake" / "short-12-101" / "transcript.jsonl").read_text().splitlines()]
    first = next(e for e in events if e.get("event") == "block")
    assert "refused: ActionError" in first["output"] and "still here" in first["output"]
    assert "rows" not in first["output"]


def test_a_sealed_run_refuses_a_local_endpoint_whose_user_may_read_the_seal(tmp_path, capsys):
    """An endpoint served on this machine by a user who may read the seal file (here the test
    process itself, listening on 127.0.0.1) could read the seeds: the sealed evaluation is
    refused (exit 1) before any request, naming the listener's uid, the seal file and
    --trust-local-endpoint; nothing is written under --out. Before, pibench printed a note
    and played."""
    import os

    seal_path = _seal(tmp_path)
    out = tmp_path / "runs"
    with FakeLLM(lambda req, i: Reply(CURIOUS)) as srv:
        url = srv.base_url.replace("localhost", "127.0.0.1")
        rc = pibench_main(
            ["agent", "--model", "m", "--base-url", url, "--api-key-env", "PIBENCH_NO_SUCH_KEY",
             "--scenario", "short-12", "--seeds", f"@{seal_path}", "--out", str(out)]
        )  # fmt: skip
        requests = list(srv.requests)
    err = capsys.readouterr().err
    assert rc == 1, err
    assert f"listens as uid {os.getuid()}" in err and str(seal_path) in err and "--trust-local-endpoint" in err
    assert requests == [] and not out.exists()


@pytest.mark.parametrize("spelling", ["127.1", "0x7f000001", "2130706433", "[::ffff:127.0.0.1]"])
def test_a_local_endpoint_is_found_however_its_address_is_spelled(tmp_path, capsys, spelling):
    """127.0.0.1 spelled another way (a QA tester's find: the short, hex, decimal and
    IPv4-mapped forms ran the whole sealed evaluation against a root-owned local server, with
    no refusal and no note) is this machine: refused like 127.0.0.1, before any request."""
    import os
    from urllib.parse import urlsplit

    seal_path = _seal(tmp_path)
    out = tmp_path / "runs"
    with FakeLLM(lambda req, i: Reply(CURIOUS)) as srv:
        port = urlsplit(srv.base_url).port
        url = f"http://{spelling}:{port}/v1"
        rc = pibench_main(
            ["agent", "--model", "m", "--base-url", url, "--api-key-env", "PIBENCH_NO_SUCH_KEY",
             "--scenario", "short-12", "--seeds", f"@{seal_path}", "--out", str(out)]
        )  # fmt: skip
        requests = list(srv.requests)
    err = capsys.readouterr().err
    assert rc == 1, err
    assert f"listens as uid {os.getuid()}" in err
    assert requests == [] and not out.exists()


def test_this_machines_own_address_is_local():
    """The address this machine's own interface carries is this machine (only a local address
    can be bound); a documentation-range address that is not ours is not."""
    import socket

    from pibench_tui.harness.cli import _local_address

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # no packet is sent: picks the outgoing interface's address
            own = s.getsockname()[0]
        except OSError:
            own = "127.0.0.1"
    assert _local_address(own)
    assert _local_address("::ffff:" + own)
    assert not _local_address("198.51.100.77")


def test_the_local_endpoint_note_says_the_check_cannot_see_a_relay(tmp_path, capsys):
    """The sealed run's check of an endpoint on this machine sees only the user of the
    listening socket, not who answers behind it (QA4: a relay run as another user in front
    of a root server passed with a bare note). Every endpoint on this machine gets a note
    that says exactly that: a relay passes, and a sealed evaluation should use a remote
    endpoint or run the model server itself as a user with no access to the seal."""
    from types import SimpleNamespace

    from pibench_tui.harness import cli as harness_cli

    seal_path = _seal(tmp_path)
    with FakeLLM(lambda req, i: Reply(CURIOUS)) as srv:
        ep = SimpleNamespace(base_url=srv.base_url, command=None)
        plan = SimpleNamespace(source=None)
        rc = harness_cli._sealed_endpoint(plan, "m", ep, str(seal_path), True)
    err = capsys.readouterr().err
    assert rc is None, err
    assert "is served on this machine" in err
    assert "listening on that port, not who answers behind it" in err and "relay" in err
    assert "use a remote endpoint" in err and "model server itself" in err
