"""JSON-lines mode: exactly one reply line per request line, never a crash."""

from __future__ import annotations

import json

REPLY_KEYS = {"ok", "stdout", "error", "truncated", "month", "done", "impact", "month_report"}


def lines(*codes: str) -> str:
    return "".join(json.dumps({"code": c}) + "\n" for c in codes)


def test_reply_shape_values_and_month_reports(pibench):
    """One JSON-lines session:

    - each reply has exactly the documented keys (the first also ``confinement``); output,
      month and impact are right;
    - MECHANICS Decisions 8: a reply carries the report of the last month its block closed
      (the one ``time.last_report()`` returns in the agent process), else ``null``."""
    run = pibench(
        ["headless", "--jsonl", "--seed", "11"],
        lines(
            "x = 6\nprint(x * 7)",
            "x",
            "time.next_month()['month']",
            "r = time.next_month()['report']\nprint(r['month'], r['label'])",
            "time.next_month(); time.next_month()\nprint(time.last_report() == time.last_report())",
            "print(time.last_report()['month'])",
        ),
    )
    assert run.returncode == 0, run.stderr
    replies = run.replies()
    assert len(replies) == 6
    for i, reply in enumerate(replies):
        assert set(reply) == REPLY_KEYS | ({"confinement"} if i == 0 else set()), reply
        assert set(reply["impact"]) == {"total", "earned", "projection"}
        assert reply["done"] is False
    assert replies[0] == {**replies[0], "ok": True, "stdout": "42\n", "error": None, "truncated": False, "month": 1}
    assert replies[1]["stdout"] == "6\n"
    assert replies[2]["stdout"] == "2\n" and replies[2]["month"] == 2
    assert replies[0]["month_report"] is None and replies[1]["month_report"] is None
    assert replies[2]["month_report"]["month"] == 1
    first, second, third = replies[3:]
    assert first["stdout"] == "2 Y1M2\n" and first["month_report"]["month"] == 2
    assert first["month_report"]["label"] == "Y1M2" and "money" in first["month_report"]
    assert second["month"] == 5 and second["month_report"]["month"] == 4
    assert third["stdout"] == "4\n" and third["month_report"] is None


def test_end_event_confinement_and_the_same_world_in_every_mode(pibench, tmp_path):
    """The same actions (seed 7) through JSON-lines mode, console mode and in-process:

    - at EOF one last line {"event": "end", "report": {...}}: the console report's fields
      and the state digest, equal to what console mode prints for the same actions;
    - determinism across interfaces: the same Impact and the same world digest in both
      modes and in-process (the last reply's month and impact too);
    - the first JSON-lines reply (and only it) carries `confinement` as
      confinement_status().to_dict(); the end event's report and --report-json carry it
      too; console mode says it in one stderr line before the first block and in its report;
    - a JSON-lines session ended at once still ends with its end event (month 1)."""
    from pibench_tui.sandbox import confinement_status
    from scenarios import load_scenario
    from world.api import Api
    from world.engine import World
    from world.scoring import impact

    codes = ["recruit.hire_ra()", "time.next_month()", "time.next_month()", "lab.ledger(3)"]
    scen = load_scenario(None, seed=7)
    world = World(scen.config, scen.seed)
    api = Api(world)
    api.recruit.hire_ra()
    api.time.next_month()
    api.time.next_month()
    earned = impact(world)["earned"]
    expected = confinement_status().to_dict()

    out = tmp_path / "report.json"
    run = pibench(["headless", "--jsonl", "--seed", "7", "--report-json", str(out)], lines(*codes))
    assert run.returncode == 0, run.stderr
    replies = run.replies()
    assert len(replies) == len(codes)
    assert replies[0]["confinement"] == expected and all("confinement" not in r for r in replies[1:])
    assert replies[-1]["month"] == world.month == 3
    assert replies[-1]["impact"] == {"total": earned, "earned": earned, "projection": None}
    end = run.end()
    assert set(end) == {"event", "report"}
    report = end["report"]
    assert {
        "scenario",
        "seed",
        "month",
        "months",
        "state",
        "collapsed",
        "impact",
        "publications",
        "h_index",
        "grants_won",
        "students_hired",
        "final_budget",
        "digest",
    } <= set(report)
    assert report["month"] == 3 and report["seed"] == 7
    assert report["digest"] == world.digest(), "JSON lines and in-process differ"
    assert report["impact"] == {"total": earned, "earned": earned, "projection": None}
    assert report["confinement"] == expected
    assert json.loads(out.read_text())["confinement"] == expected

    console = pibench(["headless", "--seed", "7"], "\n".join(codes) + "\n")
    assert console.returncode == 0, console.stderr
    said = [ln for ln in console.stderr.splitlines() if "OS confinement:" in ln]
    assert said == [f"pibench headless: {confinement_status().describe()}"]
    fields = console.report()
    assert fields["state digest"] == report["digest"], "console and JSON lines differ"
    assert fields["Impact"] == f"{earned:.1f} earned so far (projection withheld until the career ends)"
    assert fields["confinement"].startswith("complete" if expected["complete"] else "INCOMPLETE")

    empty = pibench(["headless", "--jsonl", "--seed", "7"], "")
    assert empty.replies() == [] and empty.end()["report"]["month"] == 1


def test_session_end_reports_withhold_the_projection_mid_career(pibench):
    """A session that ends mid-career (one session per turn with
    --save/--load) must not learn the projection from its report: the JSON-lines end
    event has projection null and total = earned, the console report says the
    projection is withheld; once the career is over both give the full split."""
    codes = ["recruit.hire_ra()", "for _ in range(5):\n    time.next_month()"]
    mid = pibench(["headless", "--jsonl", "--scenario", "short-12", "--save", "c1"], lines(*codes))
    report = mid.end()["report"]
    assert report["done"] is False and report["month"] == 6
    assert report["impact"]["projection"] is None
    assert report["impact"]["total"] == report["impact"]["earned"]
    console = pibench(["headless", "--load", "c1", "--save", "c1"], "")
    assert console.report()["Impact"].endswith("earned so far (projection withheld until the career ends)")
    assert "projection" not in console.stdout.replace("projection withheld until the career ends", "")
    done = pibench(["headless", "--load", "c1"], "for _ in range(7):\n    time.next_month()\n")
    assert done.report()["month reached"].endswith("(career finished at the horizon)")
    assert " earned + " in done.report()["Impact"] and done.report()["Impact"].endswith(" projection")
    end = pibench(["headless", "--jsonl", "--load", "c1"], lines("for _ in range(7):\n    time.next_month()"))
    assert isinstance(end.end()["report"]["impact"]["projection"], float)


def test_agent_random_is_not_repeated_after_a_restart(pibench):
    """random is seeded from (career seed, agent-process start, month): after a
    BlockTimeout restart it does not repeat the numbers of the first process, and the
    whole sequence is reproducible run to run."""
    from pibench_tui.sandbox import agent_random_seed

    codes = lines("import random\nrandom.random()", "while True:\n    pass", "import random\nrandom.random()")
    run = pibench(["headless", "--jsonl", "--seed", "9", "--block-timeout", "1"], codes)
    first, stopped, again = run.replies()
    assert stopped["error"]["type"] == "BlockTimeout"
    assert first["stdout"] != again["stdout"]
    import random

    assert first["stdout"] == f"{random.Random(agent_random_seed(9, 0, 1)).random()!r}\n"
    assert again["stdout"] == f"{random.Random(agent_random_seed(9, 1, 1)).random()!r}\n"
    assert agent_random_seed(9, 0, 1) != agent_random_seed(9, 0, 2) != agent_random_seed(10, 0, 2)


def test_one_session_of_ordinary_blocks(pibench):
    """One JSON-lines session (default scenario and seed) of blocks that each prove a property:

    - bad lines: invalid JSON, a non-object, a missing or non-string code get ok false and a
      ProtocolError (with every reply key; the first reply also ``confinement``); blank lines
      are ignored; a sandbox refusal (``import os``) is a SandboxError; the session goes on;
    - an exception in agent code reports its type, message and the line within the block,
      with the output printed before it;
    - globals, functions and classes persist between blocks;
    - a request line longer than the limit gets ok false (ProtocolError); the next line runs;
    - memory.read/write and read_memory/write_memory; notes are cut to 6,000 characters with
      a notice;
    - an error raised inside library code (a namedtuple's generated constructor) or inside an
      agent function defined in an earlier block points at the agent's own line;
    - a block starting with a UTF-8 byte-order mark runs; help(query) and help(help) are real
      help texts without internal names or addresses;
    - newlines and non-ASCII text in output stay inside one ASCII reply line: stdout holds
      exactly one line per reply plus the end event."""
    bad = 'not json\n[1, 2]\n{"nocode": 1}\n{"code": 5}\n\n   \n{"code": "1 + 1"}\n{"code": "import os"}\n'
    segments = [
        ("bad lines", bad, 6),
        ("error", lines("a = 1\nb = 0\nprint('before')\nc = a / b\nprint('never')"), 1),
        (
            "persist",
            lines(
                "def double(n):\n    return 2 * n",
                "class Box:\n    def __init__(self):\n        self.v = 4",
                "double(Box().v)",
            ),
            3,
        ),
        ("overlong", json.dumps({"code": "x = '" + "a" * 2_100_000 + "'"}) + "\n" + lines("'next'"), 2),
        (
            "memory",
            lines(
                "memory.read()",
                "write_memory('plan: hire in month 1')",
                "read_memory()",
                "r = memory.write('x' * 7000)\nprint(r['chars'], r['note'])",
                "len(memory.read())",
            ),
            5,
        ),
        (
            "error lines",
            lines(
                "from collections import namedtuple\nP = namedtuple('P', 'x y')\n\nP(1)",
                "def f():\n    return {}['missing']",
                "f()",
            ),
            3,
        ),
        ("help", lines("\ufeffx = 1\nx", "help(query)", "help(help)", "def f():\n    pass\nhelp(f)"), 4),
        ("ascii", lines("print('a\\nb\\u2028c é')"), 1),
    ]
    run = pibench(["headless", "--jsonl"], "".join(text for _, text, _ in segments))
    assert run.returncode == 0, run.stderr
    replies = run.replies()
    assert len(replies) == sum(n for _, _, n in segments)
    got: dict[str, list[dict]] = {}
    for name, _, n in segments:
        got[name], replies = replies[:n], replies[n:]

    for i, reply in enumerate(got["bad lines"][:4]):
        assert reply["ok"] is False
        assert reply["error"]["type"] == "ProtocolError"
        assert set(reply) == REPLY_KEYS | ({"confinement"} if i == 0 else set())
    assert got["bad lines"][4]["ok"] is True and got["bad lines"][4]["stdout"] == "2\n"
    assert got["bad lines"][5]["ok"] is False and got["bad lines"][5]["error"]["type"] == "SandboxError"

    (reply,) = got["error"]
    assert reply["ok"] is False
    assert reply["stdout"] == "before\n"
    assert reply["error"] == {"type": "ZeroDivisionError", "message": "division by zero", "line": 4, "source": "agent"}

    assert got["persist"][-1]["stdout"] == "8\n"

    first, second = got["overlong"]
    assert first["ok"] is False and first["error"]["type"] == "ProtocolError"
    assert second["stdout"] == "'next'\n"

    out = [r["stdout"] for r in got["memory"]]
    assert out[0] == "''\n"
    assert out[2] == "'plan: hire in month 1'\n"
    assert out[3].startswith("6000 cut to 6000")
    assert out[4] == "6000\n"

    first, _, third = got["error lines"]
    assert first["error"]["type"] == "TypeError" and first["error"]["line"] == 4
    assert third["error"] == {"type": "KeyError", "message": "'missing'", "line": 2, "source": "agent"}

    bom, hq, hh, hf = got["help"]
    assert bom["ok"] and bom["stdout"] == "1\n"
    assert hq["stdout"].startswith("query(sql)\n") and "SELECT" in hq["stdout"]
    assert hh["stdout"].startswith("help(")
    for text in (hq["stdout"], hh["stdout"], hf["stdout"]):
        assert "0x" not in text and "<locals>" not in text and "_Runtime" not in text and "safe_" not in text
    assert hf["stdout"] == "no help for f\n"

    assert got["ascii"][0]["stdout"] == "a\nb\u2028c é\n"
    assert run.stdout.count("\n") == len(run.replies()) + 1  # one line per reply, then the end event
    assert run.stdout.isascii()


def test_a_short_career_to_its_horizon(pibench):
    """One short-12 career in JSON-lines mode:

    - replies never carry the live projection (its changes would reveal hidden quality,
      hotness and reputation): projection null and total = earned until done; then the full
      split, equal to the end event's;
    - done turns true at the horizon with month at the last month; a further
      ``time.next_month()`` is an ActionError saying the simulation is over."""
    run = pibench(
        ["headless", "--jsonl", "--scenario", "short-12"],
        lines(
            "recruit.hire_ra()", "for _ in range(11):\n    time.next_month()", "time.next_month()", "time.next_month()"
        ),
    )
    replies = run.replies()
    assert len(replies) == 4
    for reply in replies[:2]:
        assert reply["done"] is False
        assert reply["impact"]["projection"] is None
        assert reply["impact"]["total"] == reply["impact"]["earned"]
    last = replies[2]
    assert last["ok"] and last["done"] is True and last["month"] == 12
    assert isinstance(last["impact"]["projection"], float)
    assert last["impact"] == run.end()["report"]["impact"]
    after = replies[3]
    assert after["ok"] is False and after["error"]["type"] == "ActionError"
    assert "simulation is over" in after["error"]["message"]


def test_a_report_json_path_that_cannot_be_written_is_refused_before_the_career(pibench, tmp_path):
    """--report-json naming a folder, or a file in a folder that does not exist, is refused at
    once (exit 2, naming the option and what is wrong) before any block runs. It was found
    only after the whole session, and a folder left a stray ``FOLDER.tmpPID`` file beside it
    (``--report-json /tmp`` wrote ``/tmp.tmpPID``)."""
    folder = tmp_path / "reports"
    folder.mkdir()
    for target, says in ((folder, "is a folder"), (tmp_path / "missing" / "r.json", "does not exist")):
        run = pibench(["headless", "--seed", "7", "--report-json", str(target)], "print('ran')\n")
        assert run.returncode == 2, run
        assert "--report-json" in run.stderr and says in run.stderr, run.stderr
        assert "ran" not in run.stdout, run.stdout
    assert not [p.name for p in tmp_path.iterdir() if ".tmp" in p.name]
    assert list(folder.iterdir()) == []


def test_memory_write_cuts_any_length_with_the_same_note_as_in_process(pibench):
    """``memory.write`` cuts notes longer than ``memory_max_chars`` with a note in the reply,
    however long (docs/headless.md, MECHANICS §16): 7,000 and 2,000,000 characters (over the
    agent process's 1,000,000-character argument limit, which refused it as 'arguments too
    large') give the reply and the notes the in-process API gives for the same text."""
    from world.api import Api
    from world.config import WorldConfig
    from world.engine import World

    blocks = []
    for n in (7_000, 2_000_000):
        blocks.append(
            f"r = memory.write('ab' * {n // 2})\nprint(r)\n"
            f"w = write_memory('cd' * {n // 2})\nprint(w == {{**r, 'note': w['note']}}, len(read_memory()))"
        )
    run = pibench(["headless", "--jsonl"], lines(*blocks))
    assert run.returncode == 0, run.stderr
    replies = run.replies()
    api = Api(World(WorldConfig(), 1))
    limit = WorldConfig().memory_max_chars
    for n, reply in zip((7_000, 2_000_000), replies, strict=True):
        assert reply["ok"], reply
        expected = api.call("memory", "write", ["ab" * (n // 2)])
        assert reply["stdout"] == f"{expected}\nTrue {limit}\n"
        assert expected["note"] == f"cut to {limit} characters (of {n})"
