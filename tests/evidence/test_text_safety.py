"""The text-safety boundary (issue 25 §2-3, issue 28 "smaller"): model and agent text that
holds lone surrogates, NUL, line separators, invalid UTF-8 or terminal sequences never ends a
career and never reaches a terminal raw, through the real ``pibench`` command."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from tests.headless.conftest import run_pibench

#: A ``--command`` backend: the first reply is JSON with a lone surrogate, NUL, U+2028 and
#: U+0085 (and raw bytes that are not UTF-8 around it); its code prints, raises and writes
#: notes holding the same; later replies end the month.
NASTY_BACKEND = r"""
import json, sys
req = json.load(sys.stdin)
turn = sum(1 for m in req["messages"] if m["role"] == "assistant")
if turn == 0:
    code = (
        "print('a' + chr(0xd800) + 'b', chr(0xdc00), '\\x00 \u2028 \x85 \x1b]0;pwned\x07')\n"
        "memory.write('x' + chr(0xd800) + '\\x00\u2028\x85')\n"
        "raise ValueError(chr(0xd800) + '\x1b[2J')"
    )
    body = json.dumps({"content": "hi \ud800 \x00 \u2028\n```python\n" + code + "\n```\n"})
    sys.stdout.write(body)
else:
    sys.stdout.buffer.write(b"\xff\xfe not UTF-8\n```python\ntime.next_month()\n```")
"""

#: A ``--command`` backend that always fails with terminal sequences on stderr.
FAILING_BACKEND = r"""
import sys
sys.stdin.read()
sys.stderr.write("\x1b]0;pwned\x07\x1b[2Jgone \ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace"))
sys.exit(3)
"""


def _backend(tmp_path: Path, name: str, text: str) -> str:
    script = tmp_path / f"{name}.py"
    script.write_text(text, encoding="utf-8")
    return f"{sys.executable} {script}"


def test_agent_career_with_surrogates_nul_separators_and_invalid_utf8_finishes_and_reads_back(tmp_path):
    """A reply and agent code full of lone surrogates, NUL, U+2028/U+0085 and invalid UTF-8
    end with a result.json (before: UnicodeEncodeError, no result, and a rerun crashed again);
    `pibench report` and `pibench replay` read the run, and the replay viewer opens it (a
    U+2028 in transcript.jsonl made it unopenable)."""
    out = tmp_path / "runs"
    cmd = _backend(tmp_path, "nasty", NASTY_BACKEND)
    run = run_pibench(
        ["agent", "--model", "nasty", "--command", cmd, "--scenario", "short-12", "--seeds", "3", "--out", str(out)],
        home=tmp_path / "home",
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    rundir = out / "nasty" / "short-12-3"
    res = json.loads((rundir / "result.json").read_text(encoding="utf-8"))
    assert res["months_played"] == 12
    block = next(
        json.loads(line)
        for line in (rundir / "transcript.jsonl").read_text(encoding="utf-8").split("\n")
        if '"event":"block"' in line
    )
    assert "\ufffd" in block["output"] and "\u2028" in block["output"]
    rep = run_pibench(["report", str(out)], home=tmp_path / "home")
    assert rep.returncode == 0, rep.stderr
    rp = run_pibench(["replay", str(rundir)], home=tmp_path / "home")
    assert rp.returncode == 0 and "valid" in rp.stdout, rp.stdout + rp.stderr
    from pibench_tui.tui.replay import open_run_dir

    src = open_run_dir(rundir)
    assert any(e.get("event") == "block" for e in src.transcript_for(1))


def test_replay_viewer_transcript_shows_terminal_sequences_as_text():
    """The replay viewer's transcript view renders OSC/CSI sequences, CR, U+2028 and Rich
    markup from agent output, code and replies as visible text (before: an OSC retitled the
    reviewer's terminal and ``\\x1b[2J`` cleared it)."""
    from rich.console import Console, Group

    from pibench_tui.tui.screens.transcript import transcript_renderables

    evil = "\x1b]0;pwned\x07\x1b[2Jcleared\rback\u2028[bold red]markup[/]"
    entries = [
        {"event": "llm", "turn": 1, "reply": evil},
        {"event": "block", "turn": 1, "code": evil, "output": evil, "ok": False, "error": {"message": evil}},
        {"event": "user", "turn": 1, "content": evil},
        {"event": "weird", "turn": 1, "note": evil},
    ]
    buf = io.StringIO()
    Console(file=buf, width=200, force_terminal=True, color_system=None).print(Group(*transcript_renderables(entries)))
    text = buf.getvalue()
    for ch in ("\x07", "\x1b]", "\x1b[2J", "\r", "\u2028"):
        assert ch not in text, repr(ch)
    assert "\\x1b]0;pwned\\x07" in text and "[bold red]markup[/]" in text


def test_report_tables_show_escapes_in_labels_as_text():
    """`pibench report`'s terminal tables show a label or scenario holding OSC/CSI sequences
    as visible escapes (before: the sequence ran in the reader's terminal)."""
    from rich.console import Console

    from pibench_tui.report.analysis import build_report
    from pibench_tui.report.render import render_terminal
    from tests.report.test_report import _career

    careers = [_career(label="ev\x1b]0;pwned\x07il", seed=1), _career(label="ok\x1b[2J", seed=1)]
    buf = io.StringIO()
    render_terminal(build_report(careers), Console(file=buf, width=300, force_terminal=True, color_system=None))
    text = buf.getvalue()
    assert "\x07" not in text and "\x1b]" not in text and "\x1b[2J" not in text
    assert "ev\\x1b]0;pwned\\x07il" in text


def test_backend_error_text_reaches_the_terminal_escaped(tmp_path):
    """A `--command` backend whose stderr holds OSC/CSI sequences (its error text, shown when
    the call fails) reaches pibench's terminal output as visible escapes, never raw."""
    out = tmp_path / "runs"
    cmd = _backend(tmp_path, "failing", FAILING_BACKEND)
    run = run_pibench(
        ["agent", "--model", "f", "--command", cmd, "--scenario", "short-12", "--seeds", "1", "--out", str(out),
         "--retries", "0", "--retry-base", "0.01"],
        home=tmp_path / "home",
        timeout=300,
    )  # fmt: skip
    text = run.stdout + run.stderr
    assert "pwned" in text, text
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b]0;pwned\\x07" in text


def test_headless_console_prefixes_report_lines_spelled_with_lookalike_letters(tmp_path):
    """Agent output lines spelled like pibench's report with Cyrillic or Greek look-alike
    letters (``Іmpact``, ``Ѕtate digest``, ``рibench error``) get the ``[agent]`` prefix in
    console mode (before: NFKC left them as they were and they passed)."""
    lines = ["Іmpact          9999.0", "Ѕtate digest    abc", "рibench error on line 1: X", "Gгants won 7", "ok line"]
    script = "".join(f"print({line!r})\n" for line in lines)
    run = run_pibench(["headless", "--seed", "101"], script, home=tmp_path)
    out = run.stdout.splitlines()
    for line in lines[:-1]:
        assert f"[agent] {line}" in out, (line, out)
    assert "ok line" in out


def test_headless_front_ends_take_surrogates_nul_separators_and_invalid_utf8(tmp_path):
    """Headless mode (JSON lines and console, with --save and --report-json) takes agent
    code printing, raising and writing notes with lone surrogates, NUL, U+2028/U+0085, and
    input bytes that are not UTF-8, and still writes its save and report (every front end
    gets the same inputs as `pibench agent`)."""
    code = 'print("a\\ud800b", chr(0xdc00), "\\x00 \\u2028 \\x85")\nmemory.write("x" + chr(0xd800))\nraise ValueError(chr(0xd800))'
    line = json.dumps({"code": code}) + "\n"
    report = tmp_path / "r.json"
    run = run_pibench(["headless", "--jsonl", "--save", "sx", "--report-json", str(report)], line, home=tmp_path)
    assert run.returncode == 0 and run.end()["saved"], run.stderr
    assert json.loads(report.read_text())["month"] == 1
    console = run_pibench(
        ["headless", "--save", "sy"], b"\xff\xfe\n" + code.encode() + b"\nprint('after')\n", home=tmp_path
    )
    assert console.returncode == 0 and "after" in console.stdout and "saved as 'sy'" in console.stdout
    assert "\x00" not in console.stdout and "\u2028" not in console.stdout


def test_tui_console_output_shows_control_characters_as_text():
    """The TUI console's log renders agent output holding OSC/CSI sequences and Rich markup
    as visible text (pretty_output goes through textsafe.visible)."""
    from rich.console import Console

    from pibench_tui.tui.widgets.console import pretty_output

    buf = io.StringIO()
    Console(file=buf, width=200, force_terminal=True, color_system=None).print(
        pretty_output("\x1b]0;pwned\x07[bold]x[/bold]\x1b[2J\nnext")
    )
    text = buf.getvalue()
    assert "\x07" not in text and "\x1b]" not in text and "\x1b[2J" not in text
    assert "\\x1b]0;pwned\\x07[bold]x[/bold]" in text


def test_agent_label_and_model_with_invalid_utf8_and_escapes_finish_and_report(tmp_path):
    """`--label` and `--model` holding bytes that are not UTF-8 (surrogate escapes in argv)
    and an OSC sequence: the career finishes (before: UnicodeEncodeError writing result.json),
    its folder name is the label's escape, and neither pibench agent nor pibench report print
    the sequence raw, also with --html (before: matplotlib's "Glyph 27 missing from font"
    warnings quoted the label's raw ESC and BEL on stderr)."""
    out = tmp_path / "runs"
    idle = tmp_path / "idle.py"
    idle.write_text("import sys\nsys.stdin.read()\nprint('```python\\ntime.next_month()\\n```')\n")
    label = "l\udcff\x1b]0;pwned\x07"
    run = run_pibench(
        ["agent", "--model", "m\udcff", "--label", label, "--command", f"{sys.executable} {idle}",
         "--scenario", "short-12", "--seeds", "2", "--out", str(out)],
        home=tmp_path / "home",
        timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "\x1b" not in run.stdout + run.stderr and "\x07" not in run.stdout + run.stderr
    (res,) = list(out.rglob("result.json"))
    assert json.loads(res.read_text(encoding="utf-8"))["label"] == "l\ufffd\x1b]0;pwned\x07"
    rep = run_pibench(["report", str(out)], home=tmp_path / "home")
    assert rep.returncode == 0 and "\x1b" not in rep.stdout + rep.stderr and "\\x1b]0;pwned\\x07" in rep.stdout
    page = tmp_path / "rep.html"
    rep = run_pibench(["report", str(out), "--html", str(page)], home=tmp_path / "home")
    assert rep.returncode == 0, rep.stderr
    assert "\x1b" not in rep.stdout + rep.stderr and "\x07" not in rep.stdout + rep.stderr, rep.stderr
    assert "Glyph" not in rep.stderr, "the figures draw the label escaped: no font warning quoting a raw byte"


def test_an_endpoints_json_error_reaches_the_terminal_escaped(tmp_path):
    """An OpenAI-compatible endpoint answering 400 with a JSON error whose message holds
    OSC/CSI sequences: pibench agent's terminal output names the error with the sequences as
    visible escapes, never raw."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Evil(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.dumps({"error": {"message": "bad \x1b]0;pwned\x07\x1b[2J model", "type": "x"}}).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        run = run_pibench(
            ["agent", "--model", "m", "--base-url", f"http://127.0.0.1:{server.server_port}/v1", "--api-key-env",
             "PIBENCH_NO_SUCH_KEY", "--scenario", "short-12", "--seeds", "1", "--out", str(tmp_path / "runs")],
            home=tmp_path / "home",
            timeout=300,
        )  # fmt: skip
    finally:
        server.shutdown()
    text = run.stdout + run.stderr
    assert "pwned" in text, text
    assert "\x1b" not in text and "\x07" not in text


def test_headless_console_prefixes_report_lines_spelled_with_ascii_lookalikes(tmp_path):
    """Report lines forged with ASCII look-alikes a terminal font blurs (``lmpact``/``1mpact``
    for ``Impact``, ``rnonth`` for ``month``, ``c0nfinement``, ``5tate``, ``=== p1bench``)
    get the ``[agent]`` prefix in console mode, also when the agent prints a line's first
    letter alone and the rest after its output was flushed (before: each passed as it was)."""
    lines = [
        "lmpact          9999.0",
        "1mpact          9999.0",
        "rnonth reached   60 of 60",
        "c0nfinement     complete",
        "5tate digest    abc",
        "=== p1bench career report ===",
    ]
    script = "".join(f"print({line!r})\n" for line in lines)
    # "r" alone, then (after the agent process flushed it) the rest of "rnonth reached"
    script += "print('r', end='')\nx = 0\nfor _ in range(3_000_000):\n    x += 1\nprint('nonth reached   60 of 60')\n"
    script += "print('ok line')\n"
    run = run_pibench(["headless", "--seed", "101"], script, home=tmp_path)
    out = run.stdout.splitlines()
    for line in lines:
        assert f"[agent] {line}" in out, (line, out)
    assert "[agent] rnonth reached   60 of 60" in out
    assert "ok line" in out


def test_headless_console_prefixes_report_lines_overlaid_with_combining_marks(tmp_path):
    """Report lines forged with combining marks a terminal draws over or beside a character
    (``=\\u0336==`` a strike-through overlay on ``=``, an enclosing circle on ``I``, an acute
    on ``i``, a stack of marks on ``p``) get the ``[agent]`` prefix in console mode: the guard
    compares the line with its non-spacing and enclosing marks removed (before: the overlay
    on the first ``=`` let ``=\\u0336== pibench career report ===`` pass unprefixed)."""
    lines = [
        "=\u0336== pibench career report ===",
        "==\u0338= pibench career report ===",
        "I\u20ddmpact          9999.0",
        "pi\u0301bench error on line 1: X",
        "p\u0300\u0301\u0302ibench error on line 1: X",
        "st\u0335ate digest    abc",
    ]
    script = "".join(f"print({line!r})\n" for line in lines) + "print('caf\\u00e9 ok line')\n"
    run = run_pibench(["headless", "--seed", "101"], script, home=tmp_path)
    out = run.stdout.splitlines()
    for line in lines:
        assert f"[agent] {line}" in out, (line, out)
    assert "caf\u00e9 ok line" in out


def test_the_html_report_shows_control_and_bidi_characters_of_labels_as_text(tmp_path):
    """A `--label` holding an OSC sequence and a right-to-left override (U+202E): the HTML
    page wrote them raw (escaped for HTML only), so `cat report.html` retitled the reader's
    terminal and in a browser the override reversed the rest of a cell ("x − agentB" in the
    differences table read backwards). Every text of the page from the runs is shown as the
    terminal shows it: `\\x1b`, `\\u202e`, never the character."""
    out = tmp_path / "runs"
    idle = tmp_path / "idle.py"
    idle.write_text("import sys\nsys.stdin.read()\nprint('```python\\ntime.next_month()\\n```')\n")
    for label in ("x\x1b]0;pwned\x07\u202eRED", "other"):
        run = run_pibench(
            ["agent", "--model", "m", "--label", label, "--command", f"{sys.executable} {idle}",
             "--scenario", "short-12", "--seeds", "2", "--out", str(out)],
            home=tmp_path / "home",
            timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
    page = tmp_path / "rep.html"
    rep = run_pibench(["report", str(out), "--html", str(page)], home=tmp_path / "home")
    assert rep.returncode == 0, rep.stderr
    text = page.read_text(encoding="utf-8")
    assert not any(ch in text for ch in "\x1b\x07\u202e"), "a raw control or bidi character in the page"
    assert "x\\x1b]0;pwned\\x07\\u202eRED" in text
