"""SIGTERM, SIGHUP and SIGINT end a ``play`` or ``headless`` session cleanly, with a final save.

``pibench headless`` and ``pibench play`` write the career's save ``NAME`` when ``--save NAME``
was given and the session is ended by a signal (a terminal closing, ``kill``, a CI timeout),
as they do at a normal end. The world is only ever saved between two API calls, never in
the middle of one:

* headless: SIGINT raises ``KeyboardInterrupt`` as usual; SIGTERM and SIGHUP (the terminal
  was closed) raise :class:`Terminated`.
  While an API call is being applied the sandbox blocks SIGINT (``Sandbox._serve``), so a
  SIGTERM arriving then is turned into a SIGINT to the main thread, which lands -- as a
  :class:`Terminated` -- right after the call.
* play: the signals ask the Textual app to exit; while a month is being closed the exit
  waits for it to finish. The save is written after the app has stopped.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = [
    "ENDING_SIGNALS",
    "Terminated",
    "ended_how",
    "install_headless_handlers",
    "run_app_with_signals",
    "say",
    "signal_exit_code",
    "signal_name",
]

ENDING_SIGNALS: tuple[int, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""Signals that end a session like SIGTERM does: ``kill`` and a closed terminal (no SIGHUP on
Windows)."""


class Terminated(BaseException):
    """The process got SIGTERM or SIGHUP (a ``BaseException``, like ``KeyboardInterrupt``)."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = int(signum)


def signal_exit_code(exc: BaseException) -> int:
    """Exit status after a signal: 128 + its number for SIGTERM (143) and SIGHUP (129), 1 for
    Ctrl-C (pibench's usual runtime error)."""
    return 128 + exc.signum if isinstance(exc, Terminated) else 1


def signal_name(exc: BaseException) -> str:
    """``"SIGTERM"``, ``"SIGHUP"`` (a :class:`Terminated`) or ``"SIGINT"`` (anything else: Ctrl-C)."""
    return signal.Signals(exc.signum).name if isinstance(exc, Terminated) else "SIGINT"


def ended_how(exc: BaseException) -> str:
    """The words for how a session was ended, for its last message."""
    name = signal_name(exc)
    return "interrupted" if name == "SIGINT" else f"terminated ({name})"


def install_headless_handlers() -> Callable[[], None]:
    """Make SIGTERM and SIGHUP raise :class:`Terminated` in the main thread (never inside an
    API call).

    Returns:
        A function restoring the previous handlers (a no-op off the main thread, where
        handlers cannot be installed).
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    state = {"term": 0}

    def on_int(signum: int, frame: Any) -> None:
        if state["term"]:
            raise Terminated(state["term"])
        raise KeyboardInterrupt

    def on_term(signum: int, frame: Any) -> None:
        state["term"] = state["term"] or signum
        if hasattr(signal, "pthread_sigmask") and signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []):
            # An API call is being applied (SIGINT is held): finish it first. (Our SIGINT
            # handler again: prompt-toolkit restores Python's default one after a prompt.)
            signal.signal(signal.SIGINT, on_int)
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)
            return
        raise Terminated(signum)

    old: dict[int, Any] = {signal.SIGINT: signal.signal(signal.SIGINT, on_int)}
    for sig in ENDING_SIGNALS:
        old[sig] = signal.signal(sig, on_term)

    def restore() -> None:
        for sig, handler in old.items():
            signal.signal(sig, handler)

    return restore


def run_app_with_signals(app: Any, final_save: Callable[[], str | None], prog: str = "pibench play") -> int:
    """Run a Textual app; on SIGTERM/SIGHUP/SIGINT stop it (after any month being closed) and save.

    Args:
        app: the ``PibenchApp`` (its ``busy`` flag says a month is being closed).
        final_save: writes the final save and returns a line saying so (``None``: nothing to
            save); called only after a signal.
        prog: the command name for messages.

    Returns:
        The app's return code, or :func:`signal_exit_code` after a signal.
    """
    import asyncio

    got: list[int] = []
    loop = asyncio.new_event_loop()

    def on_signal(signum: int) -> None:
        if not got:
            got.append(signum)
        if getattr(app, "busy", False):  # a month is being closed: let it finish
            loop.call_later(0.05, on_signal, signum)
            return
        app.exit(1)

    installed = []
    if threading.current_thread() is threading.main_thread():
        for sig in (*ENDING_SIGNALS, signal.SIGINT):
            try:
                loop.add_signal_handler(sig, on_signal, sig)
                installed.append(sig)
            except (NotImplementedError, RuntimeError, ValueError):  # pragma: no cover - Windows
                pass
    try:
        app.run(loop=loop)
    except OSError:
        if not got:  # pragma: no cover - not a signal's doing
            raise
        # The terminal went away (SIGHUP): restoring it failed, the career is intact: save it.
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        loop.close()
    if not got:
        return int(app.return_code or 0)
    exc: BaseException = KeyboardInterrupt() if got[0] == signal.SIGINT else Terminated(got[0])
    what = ended_how(exc)
    try:
        saved = final_save()
    except Exception as err:  # noqa: BLE001 - SaveError, OS errors: say so
        say(f"{prog}: {what}; could not save: {err}")
        return signal_exit_code(exc)
    say(f"{prog}: {what}" + (f"; {saved}" if saved else ""))
    return signal_exit_code(exc)


def say(line: str) -> None:
    """Print ``line`` on stderr if there is still somewhere to print it (after SIGHUP the
    terminal is gone; the save was written all the same)."""
    try:
        print(line, file=sys.stderr)
    except (OSError, ValueError):
        pass
