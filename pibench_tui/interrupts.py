"""SIGTERM and SIGINT end a ``play`` or ``headless`` session cleanly, with a final save.

``pibench headless`` and ``pibench play`` write the career's save ``NAME`` when ``--save NAME``
was given and the session is ended by a signal (a terminal closing, ``kill``, a CI timeout),
as they do at a normal end. The world is only ever saved between two API calls, never in
the middle of one:

* headless: SIGINT raises ``KeyboardInterrupt`` as usual; SIGTERM raises :class:`Terminated`.
  While an API call is being applied the sandbox blocks SIGINT (``_sigint_deferred``), so a
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

__all__ = ["Terminated", "install_headless_handlers", "run_app_with_signals", "signal_exit_code"]


class Terminated(BaseException):
    """The process got SIGTERM (a ``BaseException``, like ``KeyboardInterrupt``)."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = int(signum)


def signal_exit_code(exc: BaseException) -> int:
    """Exit status after a signal: 143 for SIGTERM, 1 for Ctrl-C (pibench's usual runtime error)."""
    return 128 + exc.signum if isinstance(exc, Terminated) else 1


def install_headless_handlers() -> Callable[[], None]:
    """Make SIGTERM raise :class:`Terminated` in the main thread (never inside an API call).

    Returns:
        A function restoring the previous handlers (a no-op off the main thread, where
        handlers cannot be installed).
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    state = {"term": False}

    def on_int(signum: int, frame: Any) -> None:
        if state["term"]:
            raise Terminated(signal.SIGTERM)
        raise KeyboardInterrupt

    def on_term(signum: int, frame: Any) -> None:
        state["term"] = True
        if hasattr(signal, "pthread_sigmask") and signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []):
            # An API call is being applied (SIGINT is held): finish it first. (Our SIGINT
            # handler again: prompt-toolkit restores Python's default one after a prompt.)
            signal.signal(signal.SIGINT, on_int)
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)
            return
        raise Terminated(signum)

    old_int = signal.signal(signal.SIGINT, on_int)
    old_term = signal.signal(signal.SIGTERM, on_term)

    def restore() -> None:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)

    return restore


def run_app_with_signals(app: Any, final_save: Callable[[], str | None], prog: str = "pibench play") -> int:
    """Run a Textual app; on SIGTERM/SIGINT stop it (after any month being closed) and save.

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
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(sig, on_signal, sig)
                installed.append(sig)
            except (NotImplementedError, RuntimeError, ValueError):  # pragma: no cover - Windows
                pass
    try:
        app.run(loop=loop)
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        loop.close()
    if not got:
        return int(app.return_code or 0)
    exc: BaseException = Terminated(got[0]) if got[0] == signal.SIGTERM else KeyboardInterrupt()
    what = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
    try:
        saved = final_save()
    except Exception as err:  # noqa: BLE001 - SaveError, OS errors: say so
        print(f"{prog}: {what}; could not save: {err}", file=sys.stderr)
        return signal_exit_code(exc)
    print(f"{prog}: {what}" + (f"; {saved}" if saved else ""), file=sys.stderr)
    return signal_exit_code(exc)
