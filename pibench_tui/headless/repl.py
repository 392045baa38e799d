"""The REPL (stdin and stdout are terminals): prompt-toolkit with history, completion of the
API and multi-line input. prompt-toolkit is imported only when the REPL runs."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import IO, Any

from pibench_tui.headless.console import _completeness
from pibench_tui.headless.output import _AgentOutput, _finish_session, _format_error, _Writer
from pibench_tui.headless.session import HeadlessSession


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


def make_completer(api_calls: dict | None = None, docs: dict[str, dict[str, str]] | None = None) -> Any:
    """A prompt-toolkit completer of the API: namespaces, their calls, the calls' argument
    names, and topic/venue values (MECHANICS §15).

    Args:
        api_calls: ``world.api.API_CALLS`` (default: imported).
        docs: ``world.api.call_docs(config)``: the calls' help with the scenario's numbers
            (default: the registry's, with the default numbers).
    """
    from prompt_toolkit.completion import Completer, Completion

    if api_calls is None:
        from world.api import API_CALLS

        api_calls = API_CALLS
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
                last = re.search(r"(\w*)$", inside)
                assert last is not None  # always matches (possibly empty)
                word = last.group(1)
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
                        doc = (docs or {}).get(ns, {}).get(name) or (getattr(spec, "doc", "") if spec else "")
                        doc = (doc or "").split("\n")[0]
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


def _scenario_docs(session: HeadlessSession) -> dict[str, dict[str, str]]:
    """The API help with this session's scenario numbers (``world.api.call_docs``)."""
    from world.api import call_docs

    return call_docs(session.world.cfg)


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

    prompt: PromptSession[str] = PromptSession(
        history=hist,
        completer=make_completer(docs=_scenario_docs(session)),
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
