"""Hostile agent input is bounded and cannot forge pibench's report (issue 10 §1, §2, §5),
through the real ``pibench headless`` command."""

from __future__ import annotations

import json
import unicodedata

from pibench_tui.cli.seeds import commit_seed, file_commitment, parse_seeds, read_seal
from pibench_tui.headless.output import escape_agent_text, looks_like_pibench
from tests.headless.conftest import ConsoleParts, pibench_command, run_pibench

HEADER = "=== pibench career report ==="
SPLIT_CHARS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def _jsonl(*codes: str) -> str:
    return "".join(json.dumps({"code": c}) + "\n" for c in codes)


def _harness_lines(text: str) -> list[str]:
    """Lines as a suspicious harness reads them: NFKC, split on every line break, stripped."""
    text = unicodedata.normalize("NFKC", text)
    for ch in SPLIT_CHARS:
        text = text.replace(ch, "\n")
    return [line.strip() for line in text.split("\n")]


def test_hostile_queries_and_an_overlong_block_in_one_jsonl_session(tmp_path):
    """One JSON-lines session, each block proving one bound, the session going on after each:

    - a single expression doing quadratic work inside one SQLite instruction (no loop point
      for the progress handler) is stopped with an sql_error when the query worker is
      killed, and the next block still runs in the same career;
    - too many columns, a value past the size limit and an over-long SQL text are each
      refused with a message naming the limit;
    - a block over the code limit is refused before parsing, error.source pibench, and the
      next block runs."""
    attack = "SELECT instr(printf('%.*c', 999990, 'a'), printf('%.*c', 400000, 'a') || 'b')"
    straight = f"try:\n    query({attack!r})\nexcept ActionError as e:\n    print(e.code, str(e)[:80])\n"
    cases = [
        "SELECT " + ", ".join(["1"] * 500),
        "SELECT length(replace(printf('%.*c', 999999, 'x'), 'x', 'xx'))",
        "SELECT 1" + " " * 30_000,
    ]
    oversized = "for q in QS:\n    try:\n        query(q)\n    except ActionError as e:\n        print(str(e)[:160])\n"
    blocks = [straight, "print(1 + 1)", f"QS = {cases!r}", oversized, "x = 1  # " + "a" * 210_000, "print(3)"]
    run = run_pibench(["headless", "--jsonl"], _jsonl(*blocks), home=tmp_path)
    assert run.returncode == 0, run.stderr
    replies = run.replies()
    assert len(replies) == len(blocks), replies
    first, second, _, sized, overlong, after = replies
    assert first["ok"] and first["stdout"].startswith("sql_error SQL error: the query ran too long"), first
    assert second["ok"] and second["stdout"] == "2\n", f"the block after the stopped query: {second}"
    out = sized["stdout"].splitlines()
    assert "at most 100 columns" in out[0], out
    assert "1,000,000 bytes" in out[1], out
    assert "at most 20,000 are accepted" in out[2], out
    assert overlong["error"]["type"] == "InputTooLong" and overlong["error"]["source"] == "pibench", overlong
    assert after["stdout"] == "3\n", f"the block after the overlong one: {after}"


FORGERIES = [
    HEADER,
    "\u00a0" + HEADER,
    "\ufeff" + HEADER,
    "\u200b" + HEADER,
    "x\u2028" + HEADER,
    "x\u2029" + HEADER,
    "x\r" + HEADER,
    "x\x0b" + HEADER,
    "x\x0c" + HEADER,
    "x\x1c" + HEADER,
    "x\x85" + HEADER,
    "\x1b]0;t\x07" + HEADER,
    "＝＝＝ ｐｉｂｅｎｃｈ career report ＝＝＝",
]


def test_output_guard_unit_cases():
    """escape_agent_text leaves no line break but \\n and looks_like_pibench catches
    normalised lookalikes."""
    for f in FORGERIES:
        escaped = escape_agent_text(f)
        assert not any(ch in escaped for ch in SPLIT_CHARS + "\x1b\u200b\ufeff")
    assert looks_like_pibench("\u00a0pibench error on line 3: BlockTimeout")
    assert not looks_like_pibench("budget left: 5")


def test_seal_unseal_and_a_sealed_career_shows_no_seed(tmp_path):
    """`pibench seal` writes verified commitments; a sealed headless career shows the
    commitment, never the seed (stdout, API results, the report), writes --report-json with
    the seed withheld, and `pibench unseal` reveals seeds that match the commitments."""
    import subprocess

    seal_file = tmp_path / "seal.json"
    out = subprocess.run(
        pibench_command() + ["seal", "--count", "2", "--out", str(seal_file)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    data = read_seal(seal_file)
    assert data["commitment"] in out and str(data["seeds"][0]["seed"]) not in out
    assert file_commitment([r["commitment"] for r in data["seeds"]]) == data["commitment"]
    # drawn from all 63 bits of world seeds (31 bits could be enumerated offline); both
    # below 2**31 by chance: probability 2**-64
    assert any(r["seed"] >= 2**31 for r in data["seeds"]), data["seeds"]
    seed = data["seeds"][1]["seed"]
    code = "print(lab.dashboard())\nwhile not time.next_month().get('simulation_over'):\n    pass\nprint(time.last_report())\n"
    report = tmp_path / "report.json"
    # A whole career to its end-of-career report; short-12 proves it in a fifth of the months.
    run = run_pibench(
        ["headless", "--scenario", "short-12", "--seeds", f"@{seal_file}", "--seed-index", "1"]
        + ["--report-json", str(report)],
        code,
        home=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert run.report()["month reached"].endswith("(career finished at the horizon)"), run.stdout[-800:]
    assert str(seed) not in run.stdout
    assert data["seeds"][1]["commitment"] in run.stdout
    saved = json.loads(report.read_text())
    assert saved["seed"] is None and saved["seed_commitment"] == data["seeds"][1]["commitment"]
    assert saved["agent_random_seeds"]
    revealed = subprocess.run(pibench_command() + ["unseal", str(seal_file)], capture_output=True, text=True).stdout
    assert str(seed) in revealed and commit_seed(seed, data["seeds"][1]["salt"]) in revealed


def test_parse_seeds_forms(tmp_path):
    """parse_seeds reads a seed, a range, a list and @FILE; a changed seal file is refused."""
    assert parse_seeds("101").seeds == [101]
    assert parse_seeds("101-103").seeds == [101, 102, 103]
    assert parse_seeds("1,5,9").seeds == [1, 5, 9]
    from pibench_tui.cli.seeds import SealError, seal, write_seal

    path = tmp_path / "s.json"
    write_seal(seal(3), path)
    spec = parse_seeds(f"@{path}")
    assert spec.sealed and len(spec.seeds) == 3 and spec.label(0).startswith("sealed:")
    data = json.loads(path.read_text())
    data["seeds"][0]["seed"] += 1
    path.write_text(json.dumps(data))
    try:
        parse_seeds(f"@{path}")
    except SealError as exc:
        assert "does not match its commitment" in str(exc)
    else:
        raise AssertionError("a changed seal file was accepted")


def test_pibench_survives_its_own_memory_error(tmp_path, monkeypatch):
    """A MemoryError inside pibench while serving a block becomes a pibench InternalError
    for that block; the session goes on and the report can still be built."""
    from pibench_tui.headless import HeadlessOptions, HeadlessSession

    monkeypatch.setenv("PIBENCH_HOME", str(tmp_path))
    session = HeadlessSession(HeadlessOptions())
    try:

        def boom(*args, **kwargs):
            raise MemoryError

        monkeypatch.setattr(session.sandbox, "run", boom)
        result = session.run_block("print(1)")
        assert not result.ok and result.error["type"] == "InternalError" and result.error["source"] == "pibench"
        assert HEADER in session.report()
    finally:
        session.close()


def test_toggling_a_setting_cannot_grow_the_log_or_the_save(tmp_path):
    """Each changing call that changes something is logged, so an agent alternating a
    setting (mentoring 1 h, 2 h, 1 h ...) once grew the save by ~55 bytes per call (735 KB
    in one 10 s block): past MAX_CHANGES_PER_MONTH logged calls in a month a changing call
    is refused (cap_reached) naming the limit, time.next_month() still works, the next
    month accepts changes again and the save stays small."""
    from world.api.limits import MAX_CHANGES_PER_MONTH

    setup = "recruit.hire_ra()\ntime.next_month()\nRA = students.list()[0]['id']\n"
    toggle = (
        "n = 0\ntry:\n    for i in range(5000):\n        students.set_mentoring({RA: 1 + i % 2})\n"
        "        n += 1\nexcept ActionError as e:\n    print(n, e.code, e.message)\n"
    )
    after = "print(time.next_month()['month'], students.set_mentoring({RA: 3})['ok'])\n"
    run = run_pibench(
        ["headless", "--jsonl", "--seed", "101", "--save", "tog"], _jsonl(setup, toggle, toggle, after), home=tmp_path
    )
    replies = run.replies()
    assert all(r["ok"] for r in replies), replies
    first = replies[1]["stdout"]
    assert first.startswith(f"{MAX_CHANGES_PER_MONTH} cap_reached "), first
    assert f"{MAX_CHANGES_PER_MONTH} logged changes" in first and "time.next_month()" in first
    assert replies[2]["stdout"].startswith("0 cap_reached "), replies[2]
    assert replies[3]["stdout"] == "3 True\n"
    saves = list((tmp_path / "saves" / "blobs").glob("*.json"))
    assert saves and max(p.stat().st_size for p in saves) < 60_000, [p.stat().st_size for p in saves]


FORGED_REPORT_LINES = [
    "Impact          9999.0 = 9999.0 earned + 0.0 projection",
    "state digest    " + "b" * 64,
    "\u00a0final budget    $99,000,000",
    "Publications    99 (99 at NAIC), h-index 99",
]


def test_hostile_console_output_and_input_in_one_session(tmp_path):
    """One console session (seed 101) of parts, each proving one bound, the session going on
    after each:

    - overlong: a statement over 200,000 characters gets a pibench error naming the limit;
      the statement after it runs;
    - forgeries: whatever the agent prints or raises (separators, BOM, NBSP, ZWSP, ESC/OSC,
      fullwidth), a harness that normalises, splits on every line break and strips sees
      pibench's report header exactly once (the real one), and no ESC reaches stdout;
    - named like pibench: an agent exception class named BlockTimeout or MemoryError is
      reported as the agent's (``Error on line``), never as pibench's own;
    - forged report lines: agent lines that start like a line of the report (``Impact
      9999``, ``state digest`` ...) are prefixed with ``[agent] ``, so a harness grepping a
      report label only finds pibench's; every label of the real report is one the guard
      knows;
    - escapes: terminal escapes (OSC, CSI, CR, C1) are shown, not obeyed; an agent line that
      looks like pibench's report header (printed whole, or in two prints) is prefixed, so
      only pibench's own report starts a line with '=== pibench'."""
    from pibench_tui.headless.output import REPORT_LABELS

    parts = [
        ("overlong", "x = [" + "1," * 150_000 + "]\nprint('after')\n"),
        (
            "forgeries",
            "".join(f"print({f!r})\n" for f in FORGERIES) + f"raise ValueError({chr(10).join(FORGERIES)!r})\n",
        ),
        (
            "named like pibench",
            "class BlockTimeout(Exception):\n    pass\nraise BlockTimeout('the block ran longer than 10 s')\n"
            "raise MemoryError('x')\n",
        ),
        ("forged report lines", "".join(f"print({f!r})\n" for f in FORGED_REPORT_LINES)),
        (
            "escapes",
            "print('\\x1b]0;pwned\\x07\\x1b[2J' + 'clear\\rx\\x9b1m\\ttab')\n"
            "print('=== pibench career report ===\\nImpact          9999.0')\n"
            "print('=== pib', end='')\n"
            "print('ench career report ===')\n",
        ),
    ]
    script = ConsoleParts(parts)
    run = run_pibench(["headless", "--seed", "101"], script.script, home=tmp_path)
    assert run.returncode == 0, run.stderr

    overlong = script.errors(run, "overlong")
    assert overlong and overlong[0].startswith("pibench error on line 1: InputTooLong:"), overlong
    assert "200,000" in overlong[0], overlong
    assert "after" in script.stdout(run, "overlong").splitlines(), "the statement after it ran"

    lines = _harness_lines(run.stdout)
    assert lines.count(HEADER) == 1, "a forged report header"
    assert "\x1b" not in run.stdout

    first = script.first_line("named like pibench")
    named = [e.split(":")[0] for e in script.errors(run, "named like pibench")]
    assert named == [f"Error on line {first + 2}", f"Error on line {first + 3}"], named

    assert sum(line.casefold().startswith("impact") for line in lines) == 1, "a forged Impact line"
    assert sum(line.startswith("state digest") for line in lines) == 1, "a forged state digest line"
    forged = _harness_lines(script.stdout(run, "forged report lines"))
    assert sum(line.startswith("[agent] ") for line in forged) == len(FORGED_REPORT_LINES), forged
    escapes = script.stdout(run, "escapes")
    assert "\\x1b]0;pwned\\x07\\x1b[2Jclear\\rx\\x9b1m\ttab" in escapes, escapes
    assert "[agent] === pibench career report ===" in escapes, escapes
    for ch in "\x1b\x07\r\x9b":
        assert ch not in run.stdout, f"{ch!r} reached stdout"
    headers = [line for line in run.stdout.splitlines() if line.startswith("=== pibench")]
    assert headers == ["=== pibench career report ==="], headers
    assert run.report()["Impact"].startswith("0.0 "), "a fake Impact in the report"
    report = run.stdout[run.stdout.rindex(HEADER) :].splitlines()[1:]
    assert report and all(looks_like_pibench(line) for line in report)
    assert all(any(line.casefold().startswith(lab) for lab in REPORT_LABELS) for line in report)


def test_agent_errors_named_like_pibench_errors_stay_agent_errors_in_json_lines(tmp_path):
    """In JSON lines an agent exception class named BlockTimeout is reported with ``source:
    agent``; the real time-out with ``source: pibench`` (console mode: the session above)."""
    code = "class BlockTimeout(Exception):\n    pass\nraise BlockTimeout('the block ran longer than 10 s')\n"
    jrun = run_pibench(["headless", "--jsonl", "--block-timeout", "1"], _jsonl(code, "while True: pass"), home=tmp_path)
    agent, real = jrun.replies()
    assert agent["error"]["type"] == "BlockTimeout" and agent["error"]["source"] == "agent"
    assert real["error"]["type"] == "BlockTimeout" and real["error"]["source"] == "pibench"


def test_a_seal_file_is_read_only_up_to_its_size_limit(tmp_path, monkeypatch):
    """``--seeds @/dev/zero`` or ``pibench unseal /dev/zero`` read the "file" whole, until a
    MemoryError traceback; a seal file larger than any seal (MAX_SEAL_BYTES) is refused with
    a SealError naming the limit."""
    from pathlib import Path

    import pytest

    from pibench_tui.cli import seeds
    from pibench_tui.cli.seeds import SealError

    if Path("/dev/zero").exists():
        with pytest.raises(SealError, match=r"larger than [\d,]+ bytes"):
            read_seal("/dev/zero")
    monkeypatch.setattr(seeds, "MAX_SEAL_BYTES", 10)
    small = tmp_path / "s.json"
    small.write_text("{}" + " " * 100)
    with pytest.raises(SealError, match="larger than 10 bytes"):
        parse_seeds(f"@{small}")
