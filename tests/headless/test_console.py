"""Console mode: piped Python runs statement by statement, errors do not stop the career."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from pibench_tui.headless import iter_statements
from tests.headless.conftest import ConsoleParts


def split(text: str) -> list[tuple[str, int]]:
    return list(iter_statements(io.StringIO(text)))


class TestStatementSplitting:
    """iter_statements: a statement is complete at the next column-0 line or at EOF."""

    def test_simple_statements(self):
        """Three one-line statements come out as three statements, each with its own 1-based line
        number."""
        assert split("a = 1\nb = 2\nprint(a)\n") == [("a = 1\n", 1), ("b = 2\n", 2), ("print(a)\n", 3)]

    def test_blank_lines_inside_a_function_are_fine(self):
        """Blank lines inside an indented body do not end the statement: the function stays one
        block and the next column-0 line starts a new one at its true line number."""
        text = "def f():\n    x = 1\n\n\n    return x\nf()\n"
        assert split(text) == [("def f():\n    x = 1\n\n\n    return x\n", 1), ("f()\n", 6)]

    def test_else_elif_except_finally_continue_the_statement(self):
        """Column-0 ``elif``/``else``/``except``/``finally`` belong to the statement above: an if-
        chain and a try-chain are one statement each."""
        text = "if x:\n    a()\nelif y:\n    b()\nelse:\n    c()\ntry:\n    d()\nexcept E:\n    e()\nfinally:\n    f()\ng()\n"
        parts = split(text)
        assert [line for _, line in parts] == [1, 7, 13]

    def test_brackets_strings_decorators_and_backslashes_span_column_0(self):
        """An open bracket, a triple-quoted string, a decorator and a backslash continuation each
        keep the statement going across lines that start at column 0."""
        text = 'x = (1,\n2)\ns = """a\nb\n"""\n@dec\ndef f():\n    pass\ny = 1 + \\\n2\nz = 3\n'
        assert [line for _, line in split(text)] == [1, 3, 6, 9, 11]

    def test_comments_at_column_0_do_not_end_a_statement(self):
        """A comment at column 0 inside a function body does not split the function in two."""
        text = "def f():\n    x = 1\n# a comment\n    return x\nf()\n"
        assert [line for _, line in split(text)] == [1, 5]

    def test_a_syntax_error_does_not_swallow_the_rest(self):
        """A line that does not parse is yielded on its own, and the statements after it are still
        split normally."""
        text = "x = = 1\ny = 2\n"
        assert split(text) == [("x = = 1\n", 1), ("y = 2\n", 2)]

    def test_eof_without_newline_and_only_comments(self):
        """A last statement without a trailing newline is still yielded; input of only comments and
        blank lines, or nothing at all, yields no statement."""
        assert split("a = 1") == [("a = 1", 1)]
        assert split("# only a comment\n\n") == []
        assert split("") == []

    def test_a_statement_before_an_overlong_line_still_runs(self):
        """A line too long to read (``None`` from the bounded reader) after a complete statement
        does not swallow that statement: it is yielded at its own line, and the overlong one is
        reported at its true first line; a compound statement left open stays with it."""
        lines = ["print('one')\n", None, "print('three')\n", "for i in x:\n", "    a(i)\n", None, "b = 2\n"]
        assert list(iter_statements(lines, limit=100)) == [
            ("print('one')\n", 1),
            (None, 2),
            ("print('three')\n", 3),
            (None, 4),
            ("b = 2\n", 7),
        ]

    def test_streams_lazily(self):
        """A statement is yielded as soon as the next column-0 line arrives (a harness can
        interleave), without reading to EOF."""
        consumed = []

        def lines():
            for line in ["a = 1\n", "b = 2\n", "c = 3\n"]:
                consumed.append(line)
                yield line

        gen = iter_statements(lines())
        assert next(gen) == ("a = 1\n", 1)
        assert len(consumed) == 2


def test_empty_input_prints_the_report(pibench):
    """EOF at once: the report for month 1 and exit 0."""
    run = pibench(["headless", "--seed", "9"], "")
    assert run.returncode == 0
    report = run.report()
    assert report["month reached"].startswith("1 of 60")
    assert report["collapsed"] == "no"
    assert report["Impact"] == "0.0 earned so far (projection withheld until the career ends)"
    for key in ("publications", "grants won", "students", "state digest"):
        assert key in report


def test_whole_career_in_one_for_loop(pibench):
    """A whole agent script (a loop over 60 months) runs; after the horizon, mutating calls
    are refused with 'career over' and queries still work; the result is the same world as
    the same actions in-process."""
    script = (
        "for month in range(60):\n"
        "    result = time.next_month()\n"
        "result['simulation_over']\n"
        "time.next_month()\n"
        "recruit.hire_ra()\n"
        "len(query('select * from lab_monthly')) > 0\n"
    )
    run = pibench(["headless", "--seed", "101"], script)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "True"
    assert lines[1].startswith("Error on line 4: ActionError: simulation is over")
    assert lines[2].startswith("Error on line 5: ActionError: simulation is over")
    assert lines[3] == "True"
    report = run.report()
    assert report["month reached"] == "60 of 60 (career finished at the horizon)"

    from scenarios import load_scenario
    from world.api import Api
    from world.engine import World

    scen = load_scenario(None, seed=101)
    world = World(scen.config, scen.seed)
    api = Api(world)
    for _ in range(60):
        api.time.next_month()
    assert report["state digest"] == world.digest()


def test_collapse_ends_the_career(pibench, tmp_path):
    """A month that ends below zero collapses the lab: mutating calls are refused as
    career over, queries still work, the report says collapsed and Impact keeps only what
    was earned (projection 0)."""
    scenario = tmp_path / "poor.toml"
    scenario.write_text('name = "poor"\nstart_budget = 1000\n')
    script = (
        "recruit.hire_ra()['ok']\n"
        "time.next_month()['collapsed']\n"
        "recruit.hire_ra()\n"
        "len(query('select * from ledger')) > 0\n"
    )
    run = pibench(["headless", "--scenario", str(scenario)], script)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[:2] == ["True", "True"]
    assert lines[2].startswith("Error on line 3: ActionError: simulation is over: the lab collapsed in month 1")
    assert lines[3] == "True"
    report = run.report()
    assert report["collapsed"] == "yes"
    assert report["month reached"] == "1 of 60 (collapsed in month 1)"
    assert report["Impact"].endswith("+ 0.0 projection")


_LINES = st.sampled_from(
    [
        "x = 1",
        "",
        "# note",
        "def f():",
        "    return 1",
        "    ",
        "if x:",
        "else:",
        "    pass",
        "y = (1,",
        "2)",
        "'''",
        "print(x)",
        "@dec",
        "class A:",
        "x = = 1",
        "\tz = 3",
        "for i in range(2):",
        "elif y:",
        "\\",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES, max_size=25))
def test_splitting_loses_and_moves_nothing(lines):
    """Property: the statements concatenate back to the piped text (when it holds any
    code), and each statement's first line is its line in the text."""
    text = "".join(line + "\n" for line in lines)
    parts = split(text)
    has_code = any(line.strip() and not line.strip().startswith("#") for line in lines)
    assert "".join(source for source, _ in parts) == (text if has_code else "")
    offset = 1
    for source, first_line in parts:
        assert first_line == offset
        offset += source.count("\n")


def test_splitting_is_linear_for_column_0_lines_inside_brackets_and_strings(monkeypatch):
    """10,000 column-0 lines inside an open bracket, and a CSV pasted at column 0 inside a
    triple-quoted string, are split with linear compile work (the characters handed to the
    compiler stay a small multiple of the input, where recompiling the growing statement at
    every column-0 line would hand it ~n²/2 lines); a stray bracket still ends its statement
    with an error and the script goes on (the splitter here; pibench headless in
    :func:`test_one_console_session_of_ordinary_scripts`)."""
    import codeop

    compiled: list[int] = []
    real_compile = codeop.compile_command

    def counting(source, *args, **kwargs):
        compiled.append(len(source))
        return real_compile(source, *args, **kwargs)

    n = 10_000
    bracket = "x = (\n" + "1,\n" * n + ")\nprint(len(x))\n"
    csv = 'data = """\n' + "a,(b,c\n" * n + '"""\nprint(len(data.splitlines()))\n'
    monkeypatch.setattr(codeop, "compile_command", counting)
    assert split(bracket) == [("x = (\n" + "1,\n" * n + ")\n", 1), ("print(len(x))\n", n + 3)]
    assert len(split(csv)) == 2
    assert split("x = (1 2\nprint('after')\n") == [("x = (1 2\n", 1), ("print('after')\n", 2)]
    monkeypatch.undo()
    assert compiled, "the splitter compiles the statements it checks"
    assert sum(compiled) < 20 * (len(bracket) + len(csv))
    # The same script through pibench headless: the "brackets and strings" part of
    # test_one_console_session_of_ordinary_scripts.


def test_one_console_session_of_ordinary_scripts(pibench):
    """One console session (default scenario, seed 3) of parts, each proving one property,
    the session going on after each (:class:`ConsoleParts`):

    - byte-order mark: Python accepts a UTF-8 BOM at the start of a file; so does console mode;
    - main guard: a plain script (functions, a main() and the ``__main__`` guard) runs as piped;
    - expressions: bare expressions echo like the Python console (``None`` prints nothing);
      an error names type, message and line in the piped text; the next statement still runs;
    - syntax and sandbox: a syntax error or a refused construct is reported with the line in
      the piped text;
    - API errors: a refused API call raises ActionError with the API's message; agent code
      may catch it;
    - brackets and strings: 10,000 column-0 lines inside an open bracket and a CSV pasted at
      column 0 inside a triple-quoted string run as one statement each; a stray bracket
      ends its statement with an error and the script goes on;
    - garbage: binary garbage, NUL bytes and stray text are reported as errors, never a crash;

    and the session ends with exit 0 and the career report."""
    n = 10_000
    script = ConsoleParts(
        [
            ("bom", "\ufeffx = 20\nprint(x + 1)\n"),
            (
                "main guard",
                "import math\n"
                "\n"
                "def main():\n"
                "    for _ in range(3):\n"
                "        time.next_month()\n"
                "    print('month', lab.dashboard()['month'], math.floor(2.5))\n"
                "\n"
                "\n"
                "if __name__ == '__main__':\n"
                "    main()\n",
            ),
            (
                "expressions",
                "x = 20\n"  # +0
                "x + 1\n"  # +1 -> 21
                "None\n"  # +2 -> nothing
                "'text'\n"  # +3 -> 'text'
                "def f(n):\n"  # +4
                "    if n > 2:\n"  # +5
                "        raise ValueError('too big: %d' % n)\n"  # +6
                "\n"  # +7
                "    return n\n"  # +8
                "f(1)\n"  # +9 -> 1
                "f(5)\n"  # +10 -> error raised on line +6
                "undefined_name\n"  # +11 -> NameError line +11
                "print('still running')\n",  # +12
            ),
            ("syntax and sandbox", "a = 1\n\n\nb = (\n  2 +\n)\nimport os\nprint('after', a)\n"),
            (
                "API errors",
                "projects.start('no_such_topic', 1, [])\n"
                "try:\n"
                "    papers.polish('D999', 5)\n"
                "except ActionError as e:\n"
                "    print('caught', e.code, '|', e.message[:20])\n",
            ),
            (
                "brackets and strings",
                "x = (\n"
                + "1,\n" * n
                + ")\nprint(len(x))\n"
                + 'data = """\n'
                + "a,(b,c\n" * n
                + '"""\nprint(len(data.splitlines()))\n'
                + "x = (1 2\nprint('after')\n",
            ),
            ("garbage", b"\x00\xff\xfe garbage ((( \n\x89PNG\r\n\x1a\n}}}\n\tindented\nprint('ok')\n"),
        ]
    )
    run = pibench(["headless", "--seed", "3"], script.script)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr, run.stderr

    assert script.errors(run, "bom") == [], run.errors()
    assert script.stdout(run, "bom") == "21\n"

    assert script.stdout(run, "main guard") == "month 4 2\n"

    e = script.first_line("expressions")
    out = script.stdout(run, "expressions").splitlines()
    assert out[:4] == ["21", "'text'", "1", f"Error on line {e + 6}: ValueError: too big: 5"], out
    assert out[4] == f"Error on line {e + 11}: NameError: name 'undefined_name' is not defined", out
    assert out[5:] == ["still running"], out

    s = script.first_line("syntax and sandbox")
    errors = script.errors(run, "syntax and sandbox")
    assert errors[0].startswith(f"pibench error on line {s + 5}: SyntaxError:") or errors[0].startswith(
        f"pibench error on line {s + 3}: SyntaxError:"
    ), errors
    assert errors[1].startswith(f"pibench error on line {s + 6}: SandboxError: import of 'os' is not allowed"), errors
    assert "after 1" in script.stdout(run, "syntax and sandbox")

    a = script.first_line("API errors")
    assert script.errors(run, "API errors")[0].startswith(f"Error on line {a}: ActionError:"), run.errors()
    caught = script.stdout(run, "API errors")
    assert "caught unknown_id |" in caught or "caught bad_argument |" in caught, caught

    b = script.first_line("brackets and strings")
    assert script.stdout(run, "brackets and strings").startswith(f"{n}\n{n + 1}\n")
    errors = script.errors(run, "brackets and strings")
    assert errors and errors[0].startswith(f"pibench error on line {b + 2 * n + 6}: SyntaxError"), errors
    assert "after\n" in script.stdout(run, "brackets and strings")

    assert "ok" in script.stdout(run, "garbage").splitlines()
    assert "=== pibench career report ===" in run.stdout
