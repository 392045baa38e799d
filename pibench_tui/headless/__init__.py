"""Headless mode: a career played from stdin (MECHANICS §15-16; issue 3).

Three ways in, one set of rules (the sandbox of :mod:`pibench_tui.sandbox`):

* **console mode** (stdin is a pipe or a file, the default): the text runs top-level
  statement by top-level statement; a statement runs once the next line starting at
  column 0 (or EOF) shows it is complete; bare top-level expressions print their
  ``repr``; an error is reported with its type, message and line in the piped text, and
  the next statement still runs; at EOF a career report is printed. No prompts.
* **JSON-lines mode** (``--jsonl``): one ``{"code": "..."}`` per input line, exactly one
  reply line per input line (:func:`run_jsonl`).
* **REPL** (stdin and stdout are terminals): a prompt-toolkit session with history,
  completion of the API and multi-line input (:func:`run_repl`).

This module never imports textual; prompt-toolkit is imported only for the REPL.
"""

from __future__ import annotations

import codeop
import io
import json
import re
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator

from pibench_tui.interrupts import Terminated, install_headless_handlers, signal_exit_code
from pibench_tui.sandbox import (
    DEFAULT_BLOCK_TIMEOUT,
    DEFAULT_MAX_OUTPUT,
    DEFAULT_MEMORY_LIMIT,
    AgentProcess,
    BlockResult,
    Sandbox,
    spec_from_api_calls,
)

__all__ = [
    "HeadlessError",
    "HeadlessOptions",
    "HeadlessSession",
    "choose_mode",
    "iter_statements",
    "main",
    "run_console",
    "run_jsonl",
    "run_repl",
]

#: Longest JSON-lines input line accepted, in characters.
MAX_JSONL_LINE = 2_000_000


class HeadlessError(Exception):
    """A problem that stops headless mode before it starts (bad scenario, bad save ...).

    The command prints the message and exits with status 1.
    """


@dataclass(frozen=True)
class HeadlessOptions:
    """Everything ``pibench headless`` can be told.

    Attributes:
        scenario: Bundled scenario name or path of a ``.toml`` file; ``None`` = default.
        seed: World seed replacing the scenario's; ``None`` keeps it.
        jsonl: JSON-lines protocol instead of console mode.
        block_timeout: Wall-clock limit per block, in seconds (MECHANICS §16).
        max_output: Output cap per block, in characters.
        memory_limit: Address-space limit of the agent process, in bytes (0 = none).
        save: Career name to save under (autosave when the month changes, and at the end).
        load: Save (or career) name to resume.
        saves_dir: Folder of the save store (``None``: ``$PIBENCH_HOME`` or the user
            data dir).
    """

    scenario: str | None = None
    seed: int | None = None
    jsonl: bool = False
    block_timeout: float = DEFAULT_BLOCK_TIMEOUT
    max_output: int = DEFAULT_MAX_OUTPUT
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    save: str | None = None
    load: str | None = None
    saves_dir: str | None = None


class HeadlessSession:
    """One career behind the sandbox: the world, its API, the agent process, saves.

    Args:
        options: What to play and the sandbox's limits.
        process: An agent process started earlier (so it boots while the world is built).

    Raises:
        HeadlessError: The scenario or the save cannot be used.
        SandboxStartError: The agent process cannot be started.
    """

    def __init__(self, options: HeadlessOptions, *, process: AgentProcess | None = None) -> None:
        from world.api import API_CALLS, REQUIRED, Api

        self.options = options
        self.world, self.scenario = _open_world(options)
        self.api = Api(self.world)
        self.store = None
        if options.save is not None:
            self.store = _open_store(options.saves_dir)
            try:  # a valid name, a writable store, and no other career under that name
                resuming = self.store.resolve(options.load).career if options.load is not None else None
                self.store.check_new_career(options.save, resuming=resuming)
            except Exception as exc:  # SaveError
                raise HeadlessError(f"--save: {exc}") from exc
        self._saved_month: tuple[int, bool] | None = None
        self.blocks = 0
        self.sandbox = Sandbox(
            self.api.call,
            spec_from_api_calls(API_CALLS, REQUIRED),
            block_timeout=options.block_timeout,
            max_output=options.max_output,
            memory_limit=options.memory_limit,
            seed=self.world.seed,
            month=lambda: self.world.month,
            process=process,
        )

    # running --------------------------------------------------------------------------
    def run_block(
        self,
        code: str,
        *,
        filename: str = "<stdin>",
        first_line: int = 1,
        on_output: Callable[[str], None] | None = None,
    ) -> BlockResult:
        """Run one block of agent code and autosave if the month moved.

        Args:
            code: Agent Python source.
            filename: Name of the agent's text in errors.
            first_line: Line of the block's first line in the agent's text (1-based).
            on_output: Receives output while the block runs.

        Returns:
            The sandbox's :class:`~pibench_tui.sandbox.BlockResult`.
        """
        self.blocks += 1
        try:
            return self.sandbox.run(code, filename=filename, first_line=first_line, on_output=on_output)
        finally:
            self.autosave()

    def status(self) -> dict[str, Any]:
        """``{"month", "done", "impact": {"total", "earned", "projection"}}`` (MECHANICS §12),
        as an agent may see it: until the career is over ``projection`` is ``None`` and
        ``total`` equals ``earned`` (see :func:`public_impact`)."""
        return {"month": self.world.month, "done": self.world.finished, "impact": public_impact(self.world)}

    def prompt_facts(self) -> dict[str, Any]:
        """Month, horizon, budget (dollars) and attention left (hours) for the REPL prompt."""
        dash = self.api.lab.dashboard()
        return {
            "month": dash.get("month"),
            "months": dash.get("months_total"),
            "budget": dash.get("budget"),
            "left": (dash.get("attention") or {}).get("left"),
            "finished": self.world.finished,
        }

    # saves ----------------------------------------------------------------------------
    def autosave(self) -> None:
        """Autosave the career (``--save NAME``) when its month changed since the last one."""
        if self.store is None:
            return
        key = (self.world.month, self.world.finished)
        if key == self._saved_month:
            return
        try:
            self.store.autosave(self.options.save, self.world, scenario=self.scenario)
        except Exception as exc:  # noqa: BLE001 - a failed autosave must not end the career
            print(f"pibench headless: warning: autosave failed: {exc}", file=sys.stderr)
            return
        self._saved_month = key

    def final_save(self) -> str | None:
        """Write the career's save ``NAME`` (``--save NAME``); return a line saying so."""
        if self.store is None:
            return None
        try:
            info = self.store.save(self.options.save, self.world, scenario=self.scenario, career=self.options.save)
        except Exception as exc:  # noqa: BLE001 - SaveError and OS errors alike
            raise HeadlessError(f"could not save {self.options.save!r}: {exc}") from exc
        return f"saved as {info.name!r} (month {info.month}) in {self.store.path}"

    # report ---------------------------------------------------------------------------
    def report_data(self) -> dict[str, Any]:
        """The end-of-session report as data (the JSON-lines ``end`` event; the console
        report prints the same fields): scenario, seed, month reached, state, collapse,
        Impact, papers, grants, students, final budget, digest (MECHANICS §12).

        Impact is :func:`public_impact`: until the career is over (horizon or collapse)
        only what was earned, with ``projection`` ``None`` (withheld): the session may end
        mid-career and a harness may hand this report to the agent, so it must not carry
        the projection replies withhold. After the career the full split."""
        w = self.world
        s = w.summary()
        if w.collapsed:
            state = f"collapsed in month {s.get('collapse_month')}"
        elif w.finished:
            state = "career finished at the horizon"
        else:
            state = "career in progress"
        return {
            "scenario": getattr(self.scenario, "name", "custom"),
            "seed": w.seed,
            "month": w.month,
            "months": w.cfg.months,
            "state": state,
            "done": w.finished,
            "collapsed": bool(w.collapsed),
            "impact": public_impact(w),
            "publications": s.get("publications", 0),
            "top_publications": s.get("top_publications", 0),
            "h_index": s.get("h_index", 0),
            "grants_won": s.get("grants_won", 0),
            "grant_dollars": s.get("grant_dollars", 0),
            "students_hired": s.get("hires", 0),
            "students_graduated": s.get("students_graduated", 0),
            "students_quit": s.get("students_quit", 0),
            "final_budget": s.get("final_budget", 0),
            "digest": w.digest(),
        }

    def report(self) -> str:
        """The end-of-session report: month reached, collapse, Impact (earned + projection
        once the career is over; earned only before, the projection withheld), papers,
        grants, students (MECHANICS §12)."""
        r = self.report_data()
        imp = r["impact"]
        if imp["projection"] is None:
            impact_line = f"{imp['earned']:.1f} earned so far (projection {PROJECTION_WITHHELD})"
        else:
            impact_line = f"{imp['total']:.1f} = {imp['earned']:.1f} earned + {imp['projection']:.1f} projection"
        lines = [
            REPORT_HEADER,
            f"scenario        {r['scenario']} (seed {r['seed']})",
            f"month reached   {r['month']} of {r['months']} ({r['state']})",
            f"collapsed       {'yes' if r['collapsed'] else 'no'}",
            f"Impact          {impact_line}",
            f"publications    {r['publications']} ({r['top_publications']} at NAIC), h-index {r['h_index']}",
            f"grants won      {r['grants_won']} (${r['grant_dollars']:,.0f} face value)",
            f"students        {r['students_hired']} hired, {r['students_graduated']} graduated, "
            f"{r['students_quit']} quit",
            f"final budget    ${r['final_budget']:,.0f}",
            f"state digest    {r['digest']}",
        ]
        return "\n".join(lines) + "\n"

    def close(self) -> None:
        """Stop the agent process."""
        self.sandbox.close()


#: How reports say the projection is not shown mid-career.
PROJECTION_WITHHELD = "withheld until the career ends"


def public_impact(world: Any) -> dict[str, Any]:
    """Impact as agent-facing replies show it: ``{"total", "earned", "projection"}``.

    Until the career is over ``projection`` is ``None`` and ``total`` equals ``earned``:
    the projection is a deterministic function of hidden paper quality, topic hotness and
    reputation, so its month-to-month changes would reveal them. After the horizon or a
    collapse the full split is given (MECHANICS §12).
    """
    from world.scoring import impact

    imp = impact(world)
    if world.finished:
        return imp
    return {"total": imp["earned"], "earned": imp["earned"], "projection": None}


def _open_world(options: HeadlessOptions) -> tuple[Any, Any]:
    """Build the world from ``--load`` or ``--scenario``/``--seed``."""
    if options.load is not None:
        from saves import SaveError
        from scenarios import Scenario

        store = _open_store(options.saves_dir)
        try:
            world, record = store.load_world(options.load)
        except (SaveError, ValueError, KeyError) as exc:
            raise HeadlessError(f"--load {options.load}: {exc}") from exc
        scen = record.scenario or {}
        scenario = Scenario(
            name=str(scen.get("name", "custom")),
            description=str(scen.get("description", "")),
            seed=world.seed,
            config=world.cfg,
            source="save",
        )
        return world, scenario
    from scenarios import ScenarioError, load_scenario
    from world.engine import World

    try:
        scenario = load_scenario(options.scenario, seed=options.seed)
    except ScenarioError as exc:
        raise HeadlessError(str(exc)) from exc
    return World(scenario.config, scenario.seed), scenario


def _open_store(saves_dir: str | None) -> Any:
    from saves import SaveError, SaveStore

    try:
        return SaveStore(saves_dir)
    except SaveError as exc:
        raise HeadlessError(f"save store: {exc}") from exc


def _finish_session(session: HeadlessSession, write: "_Writer") -> int:
    """Print the career report and, with ``--save``, the final save's line; exit status 0."""
    write.line(session.report())
    saved = session.final_save()
    if saved:
        write.line(saved + "\n")
    write.flush()
    return 0


# --------------------------------------------------------------------------------------
# console mode
# --------------------------------------------------------------------------------------

_CONTINUES = re.compile(r"(else|elif|except|finally)\b")


def _completeness(source: str) -> str:
    """``"complete"``, ``"incomplete"`` or ``"invalid"`` for a piece of Python source."""
    if source.rstrip("\r\n").endswith("\\"):
        return "incomplete"  # a backslash continuation (codeop calls it an error)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            code = codeop.compile_command(source, "<stdin>", "exec")
        except SyntaxError as exc:
            return "incomplete" if "unexpected EOF" in str(exc.msg) else "invalid"
        except (ValueError, OverflowError, MemoryError, RecursionError):
            return "invalid"
    return "incomplete" if code is None else "complete"


def _starts_statement(line: str) -> bool:
    return bool(line) and line[0] not in " \t\f\r\n#" and bool(line.strip())


def _has_code(line: str) -> bool:
    text = line.strip()
    return bool(text) and not text.startswith("#")


def iter_statements(lines: Iterable[str]) -> Iterator[tuple[str, int]]:
    """Split piped Python into top-level statements, yielding each as soon as it is complete.

    A statement is complete when the next line that starts at column 0 (not a comment,
    not ``else``/``elif``/``except``/``finally``) arrives and the text so far compiles —
    or cannot become valid by adding lines — or at EOF. Blank lines and comments never
    end a statement, so blank lines inside functions and loops are fine.

    Splitting takes time linear in the text: a light scan of each line keeps the bracket
    depth, any open string and a trailing backslash, and a column-0 line inside an open
    bracket or string (which cannot end a statement) is compiled only when the pending
    text has doubled since the last try (so a stray bracket is still noticed).

    Args:
        lines: The piped text, line by line (newlines kept).

    Yields:
        ``(source, first_line)``: the statement's text (with any comments before it) and
        the 1-based line number of its first line in the piped text.
    """
    buf: list[str] = []
    size = 0  # characters in buf
    tried = 0  # size of buf at the last compile try inside an open bracket or string
    start = 1
    has_code = False
    lineno = 0
    lex = _LexState()
    for line in lines:
        lineno += 1
        if lineno == 1 and line.startswith("\ufeff"):
            line = line[1:]  # a UTF-8 byte-order mark, as Python accepts in files
        if has_code and _starts_statement(line) and not _CONTINUES.match(line):
            if lex.clear():
                done = _completeness("".join(buf)) != "incomplete"
            elif size >= 2 * tried:
                tried = size
                done = _completeness("".join(buf)) == "invalid"
            else:
                done = False
            if done:
                yield "".join(buf), start
                buf, has_code, size, tried = [], False, 0, 0
                lex = _LexState()
        if not buf:
            start = lineno
        buf.append(line)
        size += len(line)
        lex.scan(line)
        has_code = has_code or _has_code(line)
    if has_code:
        yield "".join(buf), start


class _LexState:
    """Bracket depth, open string and trailing backslash after the lines scanned so far
    (a light tokenizer: enough to know a statement cannot have ended)."""

    __slots__ = ("depth", "quote", "backslash")

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""  # the open string's quote: ', ", ''' or """
        self.backslash = False

    def clear(self) -> bool:
        """Whether a statement may end here (no open bracket, string or continuation)."""
        return self.depth <= 0 and not self.quote and not self.backslash

    def scan(self, line: str) -> None:
        self.backslash = False
        i, n = 0, len(line)
        while i < n:
            quote = self.quote
            if quote:
                while i < n:
                    ch = line[i]
                    if ch == "\\":
                        i += 2
                    elif line.startswith(quote, i):
                        i += len(quote)
                        self.quote = ""
                        break
                    elif ch == "\n" and len(quote) == 1:
                        self.quote = ""  # an unterminated string: the compiler says so
                        i += 1
                        break
                    else:
                        i += 1
                continue
            ch = line[i]
            if ch == "#":
                return
            if ch in "([{":
                self.depth += 1
            elif ch in ")]}":
                self.depth -= 1
            elif ch in "'\"":
                self.quote = ch * 3 if line.startswith(ch * 3, i) else ch
                i += len(self.quote)
                continue
            elif ch == "\\" and not line[i + 1 :].strip("\r\n"):
                self.backslash = True
            i += 1


def _format_error(error: dict) -> str:
    line = error.get("line")
    where = f"Error on line {line}" if line is not None else "Error"
    message = error.get("message") or ""
    return f"{where}: {error.get('type', 'Error')}: {message}".rstrip() + "\n"


class _Writer:
    """Writes output pieces to a text stream and remembers whether it ended a line."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.at_line_start = True

    def __call__(self, text: str) -> None:
        if text:
            self.out.write(text)
            self.out.flush()  # output shows while a long block runs (few, large pieces)
            self.at_line_start = text.endswith("\n")

    def line(self, text: str) -> None:
        if not self.at_line_start:
            self.out.write("\n")
        self(text)

    def flush(self) -> None:
        self.out.flush()


#: Control characters shown as escapes in agent output: C0 except tab and newline, DEL, C1.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: Agent output lines starting like pibench's own report get this prefix.
AGENT_LINE_PREFIX = "[agent] "
REPORT_HEADER = "=== pibench career report ==="
_LINES = re.compile(r"[^\n]*\n|[^\n]+")


def _escape_control(match: re.Match[str]) -> str:
    return {"\r": "\\r"}.get(match.group(), f"\\x{ord(match.group()):02x}")


class _AgentOutput:
    """Agent output on the console (console mode, REPL): control characters other than
    newline and tab become visible escapes (``\x1b`` is shown as ``\\x1b``: no title
    changes, screen clears or cursor tricks), and a line that starts like pibench's own
    lines (``=== pibench``) is prefixed with ``[agent] ``, so the career report printed by
    pibench cannot be faked."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self.at_line_start = True
        self.held = ""  # the start of a line too short to tell yet

    def __call__(self, text: str) -> None:
        if not text:
            return
        text = _CONTROL.sub(_escape_control, self.held + text)
        self.held = ""
        out: list[str] = []
        for piece in _LINES.findall(text):
            if self.at_line_start:
                if not piece.endswith("\n") and len(piece) < len("=== pibench") and "=== pibench".startswith(piece):
                    self.held = piece  # maybe the start of "=== pibench": wait for more
                    break
                if piece.startswith("=== pibench"):
                    piece = AGENT_LINE_PREFIX + piece
            out.append(piece)
            self.at_line_start = piece.endswith("\n")
        if out:
            self.write("".join(out))

    def flush(self) -> None:
        """Write what was held back (the block ended): prefixed, since the next block
        could complete it to ``=== pibench``."""
        if self.held:
            held, self.held = self.held, ""
            self.write(AGENT_LINE_PREFIX + held)
            self.at_line_start = False


def run_console(session: HeadlessSession, stdin: IO[str], stdout: IO[str]) -> int:
    """Console mode: run piped Python statement by statement, then print the report.

    Args:
        session: The career.
        stdin: The piped agent text.
        stdout: Where output, errors and the report go.

    Returns:
        The exit status (0).
    """
    write = _Writer(stdout)
    agent = _AgentOutput(write)
    for source, first_line in iter_statements(stdin):
        result = session.run_block(source, filename="<stdin>", first_line=first_line, on_output=agent)
        agent.flush()
        if result.error is not None:
            write.line(_format_error(result.error))
        write.flush()
    return _finish_session(session, write)


# --------------------------------------------------------------------------------------
# JSON-lines mode
# --------------------------------------------------------------------------------------


def _read_bounded_lines(stream: IO[str], limit: int) -> Iterator[str | None]:
    """Lines of ``stream``; ``None`` for a line longer than ``limit`` (skipped to its end)."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith("\n"):
            while True:  # discard the rest of the overlong line
                more = stream.readline(1 << 20)
                if not more or more.endswith("\n"):
                    break
            yield None
            continue
        yield line


def jsonl_reply(session: HeadlessSession, result: BlockResult | None, error: dict | None = None) -> dict:
    """Build one JSON-lines reply: ``{"ok", "stdout", "error", "truncated", "month", "done",
    "impact"}``."""
    status = session.status()
    if result is None:
        return {
            "ok": False,
            "stdout": "",
            "error": error,
            "truncated": False,
            "month": status["month"],
            "done": status["done"],
            "impact": status["impact"],
        }
    return {
        "ok": result.ok,
        "stdout": result.stdout,
        "error": result.error,
        "truncated": result.truncated,
        "month": status["month"],
        "done": status["done"],
        "impact": status["impact"],
    }


def run_jsonl(session: HeadlessSession, stdin: IO[str], stdout: IO[str]) -> int:
    """JSON-lines mode: each line ``{"code": "..."}`` gets exactly one reply line.

    Blank lines are ignored. A line that is not a JSON object with a string ``code`` gets
    an ``ok: false`` reply with error type ``ProtocolError``; the session goes on.

    Args:
        session: The career.
        stdin: Request lines.
        stdout: Reply lines (ASCII JSON, one per request).

    Returns:
        The exit status (0).
    """
    lineno = 0
    for line in _read_bounded_lines(stdin, MAX_JSONL_LINE):
        lineno += 1
        if line is not None and not line.strip():
            continue
        reply = None
        if line is None:
            reply = jsonl_reply(
                session, None, _protocol_error(f"line {lineno} is longer than {MAX_JSONL_LINE:,} characters")
            )
        else:
            try:
                request = json.loads(line)
            except (ValueError, RecursionError) as exc:
                reply = jsonl_reply(session, None, _protocol_error(f"line {lineno} is not valid JSON: {exc}"))
            else:
                if not isinstance(request, dict) or not isinstance(request.get("code"), str):
                    reply = jsonl_reply(
                        session,
                        None,
                        _protocol_error(f'line {lineno}: expected an object like {{"code": "..."}} with a string "code"'),
                    )
                else:
                    result = session.run_block(request["code"], filename=f"<block {session.blocks + 1}>")
                    reply = jsonl_reply(session, result)
        stdout.write(json.dumps(reply, ensure_ascii=True) + "\n")
        stdout.flush()
    saved = session.final_save()
    end: dict[str, Any] = {"event": "end", "report": session.report_data()}
    if saved:
        end["saved"] = saved
    stdout.write(json.dumps(end, ensure_ascii=True) + "\n")
    stdout.flush()
    return 0


def _protocol_error(message: str) -> dict:
    return {"type": "ProtocolError", "message": message, "line": None}


# --------------------------------------------------------------------------------------
# REPL
# --------------------------------------------------------------------------------------


def history_path() -> Path:
    """Where the REPL keeps its history: ``$PIBENCH_HOME/headless_history`` or the user
    state dir (platformdirs)."""
    import os

    home = os.environ.get("PIBENCH_HOME", "").strip()
    if home:
        return Path(home).expanduser() / "headless_history"
    import platformdirs

    return Path(platformdirs.user_state_dir("pibench", appauthor=False)) / "headless_history"


def _prompt_text(session: HeadlessSession) -> str:
    try:
        f = session.prompt_facts()
    except Exception:  # noqa: BLE001 - the prompt must never fail
        return ">>> "
    if f["finished"]:
        return f"[M{f['month']}/{f['months']} career over] >>> "
    left = f["left"]
    left_text = f"{left:g} h" if isinstance(left, (int, float)) else "? h"
    budget = f["budget"]
    budget_text = f"${budget:,.0f}" if isinstance(budget, (int, float)) else "$?"
    return f"[M{f['month']}/{f['months']} {budget_text} {left_text} left] >>> "


def repl_input_complete(text: str) -> bool:
    """Whether Enter should run the REPL input (else it starts a new line).

    Like the Python console: a simple statement runs at once; a compound statement (or
    an unfinished bracket, string or decorator) waits for a blank last line.
    """
    if not text.strip():
        return True
    status = _completeness(text)
    if status == "incomplete":
        return False
    if status == "invalid":
        return True
    lines = text.rstrip("\n").split("\n")
    if len(lines) == 1 and not lines[0].rstrip().endswith(":"):
        return True
    return not text.split("\n")[-1].strip()


def make_completer(api_calls: dict | None = None) -> Any:
    """A prompt-toolkit completer of the API: namespaces, their calls, the calls' argument
    names, and topic/venue values (MECHANICS §15).

    Args:
        api_calls: ``world.api.API_CALLS`` (default: imported).
    """
    from prompt_toolkit.completion import Completer, Completion

    if api_calls is None:
        from world.api import API_CALLS as api_calls  # noqa: N811
    from world.api import REQUIRED
    from world.config import TOPICS, VENUES

    calls: dict[str, dict[str, Any]] = {ns: dict(c) for ns, c in api_calls.items()}
    memory_calls = {"read": (), "write": (("text", REQUIRED),)}
    top = [*calls, "query", "memory", "read_memory", "write_memory", "help", "print", "ActionError"]
    top_calls = {"query", "read_memory", "write_memory", "help", "print"}  # completed with "("
    values = {"topic": TOPICS, "venue": VENUES}

    def params_of(ns: str, method: str) -> tuple:
        if ns == "memory":
            return memory_calls.get(method, ())
        spec = calls.get(ns, {}).get(method)
        return tuple(getattr(spec, "params", ())) if spec is not None else ()

    def signature(ns: str, method: str) -> str:
        parts = [p if d is REQUIRED else f"{p}={d!r}" for p, d in params_of(ns, method)]
        return f"({', '.join(parts)})"

    class ApiCompleter(Completer):
        def get_completions(self, document, complete_event):  # noqa: ANN001 - prompt-toolkit API
            before = document.text_before_cursor
            arg = re.search(r"\b([a-z_]+)\.([a-z_]+)\(([^()]*)$", before)
            if arg:
                ns, method, inside = arg.groups()
                quoted = re.search(r"""(\w+)\s*=\s*(['"])(\w*)$""", inside)
                if quoted and quoted.group(1) in values:
                    word = quoted.group(3)
                    for v in values[quoted.group(1)]:
                        if v.startswith(word):
                            yield Completion(v + quoted.group(2), -len(word))
                    return
                word = re.search(r"(\w*)$", inside).group(1)
                used = set(re.findall(r"(\w+)\s*=", inside))
                for pname, default in params_of(ns, method):
                    if pname.startswith(word) and pname not in used:
                        meta = "required" if default is REQUIRED else f"default {default!r}"
                        yield Completion(pname + "=", -len(word), display_meta=meta)
                return
            dotted = re.search(r"\b([a-z_]+)\.(\w*)$", before)
            if dotted:
                ns, word = dotted.groups()
                names = list(memory_calls) if ns == "memory" else list(calls.get(ns, {}))
                for name in names:
                    if name.startswith(word):
                        spec = calls.get(ns, {}).get(name)
                        doc = (getattr(spec, "doc", "") or "").split("\n")[0] if spec else ""
                        yield Completion(
                            name + "(", -len(word), display=name + signature(ns, name), display_meta=doc[:60]
                        )
                return
            plain = re.search(r"(\w+)$", before)
            if plain:
                word = plain.group(1)
                for name in top:
                    if name.startswith(word) and name != word:
                        yield Completion(name + "(" if name in top_calls else name, -len(word))

    return ApiCompleter()


def run_repl(
    session: HeadlessSession,
    *,
    input: Any = None,  # noqa: A002 - prompt-toolkit's name
    output: Any = None,
    stdout: IO[str] | None = None,
    history: Path | None = None,
) -> int:
    """The REPL (stdin is a terminal): prompt-toolkit with history, completion of the API,
    multi-line input; Ctrl-C cancels the line (or stops a running block), Ctrl-D ends and
    prints the report.

    Args:
        session: The career.
        input: prompt-toolkit input (tests pass ``create_pipe_input()``).
        output: prompt-toolkit output (tests pass ``DummyOutput()``).
        stdout: Where block output and the report go (default ``sys.stdout``).
        history: History file (default :func:`history_path`).

    Returns:
        The exit status (0).
    """
    from prompt_toolkit import PromptSession
    from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
    from prompt_toolkit.history import FileHistory, InMemoryHistory
    from prompt_toolkit.key_binding import KeyBindings

    stdout = stdout if stdout is not None else sys.stdout
    path = history if history is not None else history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        hist: Any = FileHistory(str(path))
    except OSError:
        hist = InMemoryHistory()

    kb = KeyBindings()

    @kb.add("enter")
    def _enter(event) -> None:  # noqa: ANN001
        buf = event.current_buffer
        if buf.document.is_cursor_at_the_end and repl_input_complete(buf.text):
            buf.validate_and_handle()
            return
        line = buf.document.current_line_before_cursor
        indent = len(line) - len(line.lstrip(" "))
        if line.rstrip().endswith(":"):
            indent += 4
        buf.insert_text("\n" + " " * indent)

    @kb.add("escape", "enter")
    def _run_now(event) -> None:  # noqa: ANN001
        event.current_buffer.validate_and_handle()

    prompt = PromptSession(
        history=hist,
        completer=make_completer(),
        auto_suggest=AutoSuggestFromHistory(),
        key_bindings=kb,
        multiline=True,
        prompt_continuation=lambda width, line_number, wrap_count: "... ".rjust(width),
        input=input,
        output=output,
    )
    write = _Writer(stdout)
    agent = _AgentOutput(write)
    write(
        "pibench headless REPL: the API is lab, recruit, students, projects, papers, grants, "
        "field, events, time, query(sql), memory; help() lists the calls.\n"
        "Enter runs a complete statement, Esc Enter runs now, Ctrl-C cancels, Ctrl-D ends the session.\n"
    )
    write.flush()
    block = 0
    while True:
        try:
            text = prompt.prompt(lambda: _prompt_text(session))
        except KeyboardInterrupt:
            continue
        except EOFError:
            break
        if not text.strip():
            continue
        block += 1
        try:
            result = session.run_block(text, filename=f"<input {block}>", on_output=agent)
            agent.flush()
        except KeyboardInterrupt:
            agent.flush()
            write.line("Interrupted: the block was stopped and the agent process restarted (variables are gone).\n")
            write.flush()
            continue
        if result.error is not None:
            write.line(_format_error(result.error))
        write.flush()
    return _finish_session(session, write)


# --------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------


def choose_mode(jsonl: bool, stdin: IO[str], stdout: IO[str]) -> str:
    """``"jsonl"``, ``"repl"`` (stdin and stdout are terminals) or ``"console"``.

    prompt-toolkit is never started on a pipe, a file or ``/dev/null``.
    """
    if jsonl:
        return "jsonl"
    try:
        if stdin.isatty() and stdout.isatty():
            return "repl"
    except (AttributeError, ValueError, OSError):
        pass
    return "console"


def main(options: HeadlessOptions, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Run ``pibench headless`` (called by :mod:`pibench_tui.cli`).

    Args:
        options: Parsed options.
        stdin: Agent input (default: ``sys.stdin`` decoded as UTF-8, bad bytes replaced).
        stdout: Output (default: ``sys.stdout`` as UTF-8).

    Returns:
        The exit status: 0 when the session ran; 1 on a runtime error (bad scenario, bad
        save, no agent process), reported on stderr.
    """
    from pibench_tui.sandbox import SandboxStartError

    stdin = stdin if stdin is not None else _utf8_stdin()
    stdout = stdout if stdout is not None else _utf8_stdout()
    mode = choose_mode(options.jsonl, stdin, stdout)
    try:
        process = AgentProcess()  # boots while the world is built
    except SandboxStartError as exc:
        print(f"pibench headless: {exc}", file=sys.stderr)
        return 1
    session = None
    restore_signals = install_headless_handlers()
    try:
        session = HeadlessSession(options, process=process)
        session.sandbox.start()
        if mode == "jsonl":
            return run_jsonl(session, stdin, stdout)
        if mode == "repl":
            return run_repl(session, stdout=stdout)
        return run_console(session, stdin, stdout)
    except (HeadlessError, SandboxStartError) as exc:
        print(f"pibench headless: {exc}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, Terminated) as exc:  # Ctrl-C, SIGTERM: save, then stop
        return _interrupted(session, exc)
    finally:
        restore_signals()
        if session is not None:
            session.close()
        else:
            process.close()


def _interrupted(session: HeadlessSession | None, exc: BaseException) -> int:
    """Write the final save (``--save``) after SIGINT/SIGTERM; the exit status."""
    what = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
    try:
        saved = session.final_save() if session is not None else None
    except HeadlessError as err:
        saved = str(err)
    print(f"pibench headless: {what}" + (f"; {saved}" if saved else ""), file=sys.stderr)
    return signal_exit_code(exc)


def _utf8_stdin() -> IO[str]:
    try:
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline=None)
    except AttributeError:  # already a text stream without a buffer (embedded use)
        return sys.stdin


def _utf8_stdout() -> IO[str]:
    try:
        sys.stdout.reconfigure(encoding="utf-8", errors="backslashreplace")  # type: ignore[union-attr]
    except (AttributeError, ValueError):
        pass
    return sys.stdout
