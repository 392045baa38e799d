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

import io
import json
import sys
from typing import IO, TYPE_CHECKING, Any

from pibench_tui.cli.interrupts import (
    Terminated,
    ended_how,
    install_headless_handlers,
    say,
    signal_exit_code,
    signal_name,
)
from pibench_tui.headless.session import (
    PROJECTION_WITHHELD,
    REPORT_HEADER,
    HeadlessError,
    HeadlessOptions,
    HeadlessSession,
    HeadlessUsageError,
    public_impact,
)
from pibench_tui.sandbox import AgentProcess

if TYPE_CHECKING:
    from pibench_tui.headless.console import iter_statements, run_console
    from pibench_tui.headless.jsonl import MAX_JSONL_LINE, jsonl_reply, run_jsonl
    from pibench_tui.headless.output import AGENT_LINE_PREFIX
    from pibench_tui.headless.repl import _prompt_text as _prompt_text  # noqa: F401 - tests
    from pibench_tui.headless.repl import history_path, make_completer, repl_input_complete, run_repl

#: The names of the three modes' modules, imported on first use: JSON-lines mode (a
#: harness's) starts without the console's and the REPL's (their patterns, unicodedata).
_LAZY = {
    "iter_statements": "console",
    "run_console": "console",
    "MAX_JSONL_LINE": "jsonl",
    "jsonl_reply": "jsonl",
    "run_jsonl": "jsonl",
    "AGENT_LINE_PREFIX": "output",
    "_prompt_text": "repl",
    "history_path": "repl",
    "make_completer": "repl",
    "repl_input_complete": "repl",
    "run_repl": "repl",
}


def __getattr__(name: str) -> Any:
    """The names of :data:`_LAZY`, from their module (imported now)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "AGENT_LINE_PREFIX",
    "MAX_JSONL_LINE",
    "PROJECTION_WITHHELD",
    "REPORT_HEADER",
    "HeadlessError",
    "HeadlessUsageError",
    "HeadlessOptions",
    "HeadlessSession",
    "choose_mode",
    "history_path",
    "iter_statements",
    "jsonl_reply",
    "main",
    "make_completer",
    "public_impact",
    "repl_input_complete",
    "run_console",
    "run_jsonl",
    "run_repl",
]

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


def main(
    options: HeadlessOptions,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    *,
    process: AgentProcess | None = None,
) -> int:
    """Run ``pibench headless`` (called by :mod:`pibench_tui.cli.command`).

    Args:
        options: Parsed options.
        stdin: Agent input (default: ``sys.stdin`` decoded as UTF-8, bad bytes replaced).
        stdout: Output (default: ``sys.stdout`` as UTF-8).
        process: The agent process, started by the caller as early as it could (it then
            belongs to this function, which closes it); ``None``: started here.

    Returns:
        The exit status: 0 when the session ran; 2 on a usage error (an unknown or invalid
        scenario, a ``--load`` name no save has); 1 on a runtime error (a damaged save, no
        agent process), reported on stderr.
    """
    from pibench_tui.sandbox import SandboxStartError

    stdin = stdin if stdin is not None else _utf8_stdin()
    stdout = stdout if stdout is not None else _utf8_stdout()
    mode = choose_mode(options.jsonl, stdin, stdout)
    if process is None:
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
        if mode != "jsonl":  # JSON lines: the first reply's "confinement" says it
            # what the agent process proved in its handshake, not what pibench expects
            print(f"pibench headless: {session.confinement().describe()}", file=sys.stderr, flush=True)
        if mode == "jsonl":
            from pibench_tui.headless.jsonl import run_jsonl

            return run_jsonl(session, stdin, stdout)
        if mode == "repl":
            from pibench_tui.headless.repl import run_repl

            return run_repl(session, stdout=stdout)
        from pibench_tui.headless.console import run_console

        return run_console(session, stdin, stdout)
    except HeadlessUsageError as exc:
        print(f"pibench headless: error: {exc}", file=sys.stderr)
        return 2
    except (HeadlessError, SandboxStartError) as exc:
        print(f"pibench headless: {exc}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, Terminated) as exc:  # Ctrl-C, SIGTERM, SIGHUP: save, then stop
        return _interrupted(session, exc, stdout if mode == "jsonl" else None)
    except Exception as exc:  # noqa: BLE001 - pibench's own failure: still save and report
        if session is None:
            raise
        session._reserve = b""
        print(
            f"pibench headless: internal error ({type(exc).__name__}: {exc}); writing the save and report",
            file=sys.stderr,
        )
        try:
            stdout.write("\n" + session.report())
            saved = session.final_save()
            if saved:
                stdout.write(saved + "\n")
            stdout.flush()
        except Exception as err:  # noqa: BLE001
            print(f"pibench headless: {err}", file=sys.stderr)
        return 1
    finally:
        restore_signals()
        if session is not None:
            try:
                session.write_report_json()
            except OSError as exc:
                print(f"pibench headless: could not write --report-json: {exc}", file=sys.stderr)
            session.close()
        else:
            process.close()


def _interrupted(session: HeadlessSession | None, exc: BaseException, jsonl_out: IO[str] | None = None) -> int:
    """Write the final save (``--save``) after SIGINT/SIGTERM/SIGHUP and, in JSON-lines mode
    (``jsonl_out``), an ``end`` event with ``"interrupted": "SIGTERM"|"SIGHUP"|"SIGINT"`` (the
    request that was running gets no reply); the exit status."""
    name = signal_name(exc)
    what = ended_how(exc)
    try:
        saved = session.final_save() if session is not None else None
    except HeadlessError as err:
        saved = str(err)
    if jsonl_out is not None and session is not None:
        from pibench_tui.headless.jsonl import end_event

        try:
            jsonl_out.write(json.dumps(end_event(session, saved, interrupted=name), ensure_ascii=True) + "\n")
            jsonl_out.flush()
        except (OSError, ValueError):  # the harness closed our stdout: stderr still says it
            pass
    say(f"pibench headless: {what}" + (f"; {saved}" if saved else ""))
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
