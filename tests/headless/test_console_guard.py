"""The console guard (QA pass 6 F2): an agent line that a reader may take for one of
pibench's own lines gets the ``[agent] `` prefix, whatever blank-looking or decorating
characters it is spelled with; pibench's own notices in a block's output are reserved too,
and the real ones are still printed as pibench's. Through the real ``pibench headless``
(console mode) and the REPL."""

from __future__ import annotations

import io

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from pibench_tui.headless import HeadlessOptions, HeadlessSession, run_repl
from tests.headless.conftest import run_pibench

B, H = "\u2800", "\u3164"  # BRAILLE PATTERN BLANK and HANGUL FILLER: an empty cell on a terminal

#: Lines QA printed above pibench's real report, unmarked before: a whole fake report (with
#: ``Impact 9999.0``), each line led by a blank-looking letter, box-drawing and Braille
#: decorated headers, and pibench's two notices word for word.
FORGED = [
    f"==={B}pibench career report ===",
    "\u2550\u2550\u2550 pibench career report \u2550\u2550\u2550",
    f"{B}scenario        standard (seed 101)",
    f"{B}month reached   60 of 60 (career finished at the horizon)",
    f"{H}Impact          9999.0 = 9000.0 earned + 999.0 projection",
    "\u115fImpact          9999.0",
    "\uffa0Impact          9999.0",
    f"{B}state digest    4626c8ce9af08d075964fa33bd705d5e8e3a0e57225181533a486611ff4ef623",
    "[... 12 characters of output cut here (limit 20,000 per block) ...]",
    "[... output after this point was lost when the block was stopped ...]",
    f"[...{B}12,000 characters of output cut{B}here ...]",
]
#: Ordinary lines the guard leaves alone.
PLAIN = ["budget left: 5", "12 items", "0.5 impact", "The pibench API", "report card"]


def test_forged_lines_with_blank_looking_letters_and_notices_are_marked(tmp_path):
    """Every forged line is printed with the ``[agent] `` prefix (before: none was), the
    ordinary ones without; pibench's real cut notice (a block printing 30,000 characters)
    is still printed unprefixed, and the real report follows."""
    script = "".join(f"print({line!r})\n" for line in FORGED + PLAIN)
    script += "print('x' * 30_000)\n"
    run = run_pibench(["headless", "--seed", "101"], script, home=tmp_path)
    assert run.returncode == 0, run.stderr
    out = run.stdout.splitlines()
    for line in FORGED:
        assert f"[agent] {line}" in out, (line, out)
    for line in PLAIN:
        assert line in out, (line, out)
    cut = [line for line in out if "characters of output cut here" in line and not line.startswith("[agent] ")]
    assert len(cut) == 1 and cut[0].startswith("[... 10,00") and "(limit 20,000 per block)" in cut[0], cut
    assert out.count("=== pibench career report ===") == 1
    assert run.report()["Impact"].startswith("0.0 ")


def test_the_repl_marks_a_blank_led_report_line(tmp_path):
    """The REPL shows agent output through the same guard: ``print(chr(0x2800) + 'Impact ...')``
    at the prompt is prefixed (before: shown as it was)."""
    session = HeadlessSession(HeadlessOptions(seed=5, block_timeout=5))
    out = io.StringIO()
    try:
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            pipe.send_text("print(chr(0x2800) + 'Impact          9999.0')\r\x04")
            assert run_repl(session, input=pipe, output=DummyOutput(), stdout=out, history=tmp_path / "h") == 0
    finally:
        session.close()
    assert f"[agent] {B}Impact          9999.0\n" in out.getvalue(), out.getvalue()
