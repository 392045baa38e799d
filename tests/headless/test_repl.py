"""The REPL (stdin is a terminal), driven with prompt-toolkit's pipe input and DummyOutput."""

from __future__ import annotations

import io

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from pibench_tui.headless import (
    HeadlessOptions,
    HeadlessSession,
    _prompt_text,
    choose_mode,
    make_completer,
    repl_input_complete,
    run_repl,
)


@pytest.fixture
def session():
    s = HeadlessSession(HeadlessOptions(seed=5, block_timeout=5))
    yield s
    s.close()


def drive(session, keys: str, tmp_path) -> str:
    """Type ``keys`` into the REPL; return what it printed (block output and report)."""
    out = io.StringIO()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text(keys)
        assert run_repl(session, input=pipe, output=DummyOutput(), stdout=out, history=tmp_path / "history") == 0
    return out.getvalue()


def test_statements_multiline_input_and_report(session, tmp_path):
    """Enter runs a complete statement; a compound statement waits for a blank line;
    Ctrl-C cancels the line; Ctrl-D ends with the career report; history is kept."""
    keys = (
        "x = 2\r"
        "x * 21\r"
        "for i in range(2):\r"
        "print('loop', i)\r"
        "\r"
        "this line is cancelled\x03"
        "time.next_month()['month']\r"
        "1/0\r"
        "\x04"
    )
    printed = drive(session, keys, tmp_path)
    assert "42\n" in printed
    assert "loop 0\nloop 1\n" in printed
    assert "2\n" in printed
    assert "Error on line 1: ZeroDivisionError: division by zero" in printed
    assert "cancelled" not in printed
    assert "=== pibench career report ===" in printed
    assert "month reached   2 of 60" in printed
    history = (tmp_path / "history").read_text()
    assert "x * 21" in history and "for i in range(2):" in history


def test_prompt_shows_month_budget_and_attention(session):
    """The prompt shows the month, the budget and the attention left."""
    text = _prompt_text(session)
    assert text.startswith("[M1/60 $600,000 ")
    assert "h left] >>> " in text


def test_enter_rules():
    """Enter runs simple statements at once and compound ones after a blank line."""
    assert repl_input_complete("x = 1")
    assert repl_input_complete("")
    assert not repl_input_complete("for i in range(3):")
    assert not repl_input_complete("for i in range(3):\n    print(i)")
    assert repl_input_complete("for i in range(3):\n    print(i)\n")
    assert not repl_input_complete("x = (1,")
    assert repl_input_complete("x = = 1")  # an error runs (and is reported)


def completions(text: str) -> list[str]:
    completer = make_completer()
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent(completion_requested=True))]


def test_completion_of_namespaces_calls_and_arguments():
    """Tab completes namespaces, their calls, argument names and topic/venue values."""
    assert "students" in completions("stu")
    assert "dashboard(" in completions("lab.da")  # a call: Enter does not print <API call ...>
    assert set(completions("time.")) == {"next_month(", "last_report("}
    assert "ledger(" in completions("lab.")
    assert "query(" in completions("que") and "help(" in completions("hel")
    assert completions("lab.ledger(") == ["n="]
    assert "topic=" in completions("projects.start(")
    assert "tier=" in completions("projects.start(topic='theory', t")
    assert "reasoning'" in completions("projects.start(topic='rea")
    assert "NAIC'" in completions("papers.submit('D1', venue='NA")
    assert completions("memory.wr") == ["write("]


def test_mode_choice_never_starts_prompt_toolkit_on_a_pipe():
    """REPL only when stdin and stdout are terminals; --jsonl always wins."""

    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert choose_mode(False, io.StringIO(), io.StringIO()) == "console"
    assert choose_mode(False, Tty(), io.StringIO()) == "console"
    assert choose_mode(False, Tty(), Tty()) == "repl"
    assert choose_mode(True, Tty(), Tty()) == "jsonl"
    with open("/dev/null") as devnull:
        assert choose_mode(False, devnull, Tty()) == "console"


def test_help_lines_are_never_taken_for_agent_forgeries(session, tmp_path):
    """help(), help(namespace) for every namespace, help(call) for every call, and help of
    query, the memory functions and help itself print the API's own lines: none of them gets
    the ``[agent]`` prefix that marks agent lines passing for pibench's (``students: list, ...``
    and ``students.list()`` started like the report's ``students`` label, and help(query)'s
    table line ``publications(id, ...)`` like its ``publications`` label)."""
    from world.api import API_CALLS

    keys = "help()\r" + "".join(f"help({ns})\r" for ns in API_CALLS)
    keys += "".join(f"help({ns}.{method})\r" for ns, calls in API_CALLS.items() for method in calls)
    keys += "help(query)\rhelp(read_memory)\rhelp(write_memory)\rhelp(help)\r\x04"
    printed = drive(session, keys, tmp_path)
    body = printed.split("=== pibench career report ===")[0]
    assert "students: list" in body and "students.set_mentoring(hours)" in body
    assert "[agent]" not in body
    assert "- publications(id, " in body


def test_a_dict_result_is_printed_one_key_a_line(session, tmp_path):
    """``time.next_month()`` at the prompt prints the reply readably: a long dict is broken
    one key a line (pprint, keys in the API's order), not one line of a thousand characters;
    a short result is printed as before."""
    printed = drive(session, "time.next_month()\r{'a': 1}\r\x04", tmp_path)
    body = printed.split("=== pibench career report ===")[0]
    assert "\n 'label': 'Y1M2',\n" in body and "{'month': 2,\n" in body
    reply = body[body.index("{'month': 2,") : body.index("{'a': 1}\n")]
    assert reply.count("\n") > 20 and max(len(line) for line in reply.splitlines()) <= 120
