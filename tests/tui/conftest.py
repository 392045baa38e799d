"""Shared helpers for the TUI tests: build the app on a fixed world, drive it, record toasts.

Driving the app: :func:`press` posts keys and waits for the condition that matters (a screen,
a panel, a focus, anything); :func:`drain` lets the app handle every message queued so far.
Neither relies on Textual's CPU-idle guess (``pilot.press``/``pilot.pause`` sleep in 20 ms
steps until the process looks idle: at least 40 ms per key, and a CPU-starved process passes
the guess falsely), so the tests are both faster and exact on a loaded machine.
"""

from __future__ import annotations

import asyncio
import time
import unicodedata
from collections.abc import Callable

import pytest
from textual import events
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

from pibench_tui.tui.app import PibenchApp, make_app
from scenarios import load_scenario
from world.engine import World


def new_world(scenario: str = "standard", seed: int | None = None) -> World:
    """A fresh world of a bundled scenario."""
    sc = load_scenario(scenario, seed=seed)
    return World(sc.config, sc.seed)


def build(world: World | None = None, tmp_path=None, **kw) -> PibenchApp:
    """The app in test mode (no blink, no animation), baseline off unless asked."""
    kw.setdefault("run_baseline", False)
    app = make_app(
        world=world or new_world(),
        scenario="standard",
        saves_dir=str(tmp_path / "saves") if tmp_path else None,
        test_mode=True,
        **kw,
    )
    app.toasts = []  # type: ignore[attr-defined]
    original = app.notify

    def notify(message, *args, **kwargs):
        app.toasts.append((str(message), kwargs.get("severity", "information")))  # type: ignore[attr-defined]
        return original(message, *args, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return app


WAIT_BOUND_S = 30.0
"""How long :func:`wait_for` lets the app work before it fails (a bound for a hung test, not
a timing: every wait ends as soon as its condition holds)."""


def _quiet(app: PibenchApp) -> bool:
    """True when the app and every widget of the active screen have no message waiting."""
    return app.message_queue_size == 0 and all(
        node.message_queue_size == 0 for node in app.screen.walk_children(with_self=True)
    )


def _refresh_pending(app: PibenchApp) -> bool:
    """True when the active screen has a refresh to make: a layout, a repaint, a recompose, or
    callbacks waiting for the refresh (``call_after_refresh``): what its update timer does next."""
    screen = app.screen
    if app._batch_count or not screen.is_current:
        return False
    return bool(
        screen._layout_required
        or screen._scroll_required
        or screen._repaint_required
        or screen._recompose_required
        or screen._dirty_widgets
        or screen._callbacks
    )


async def drain(pilot, bound_s: float | None = None) -> None:
    """Let the app handle every message queued so far and those they post in turn, and refresh
    the screen, until nothing is left: Textual's ``_wait_for_screen`` (each node of the active
    screen handles what it had queued), then the refresh the screen's update timer would make
    (layout, repaint, ``call_after_refresh`` callbacks: what ``pilot.pause`` forces), and any
    animation (a scroll is one, even at animation level "none": it ends on the animator's next
    tick), again until no queue holds anything and no refresh or animation is pending. What runs outside the app's
    messages (a worker thread, a timer, a subprocess) is awaited by its condition
    (:func:`wait_for`).

    Raises:
        pytest.fail.Exception: still busy after ``bound_s`` (default :data:`WAIT_BOUND_S`)
            seconds of wall time (an app that never settles).
    """
    app = pilot.app
    deadline = time.monotonic() + (WAIT_BOUND_S if bound_s is None else bound_s)
    while True:
        await pilot._wait_for_screen()
        if not _quiet(app):
            await asyncio.sleep(0)
        elif _refresh_pending(app):
            app.screen._on_timer_update()
        elif not app.animator._complete_event.is_set():
            await app.animator.wait_until_complete()
        else:
            return
        if time.monotonic() > deadline:
            pytest.fail(f"the app never settled; the screen is {type(app.screen).__name__}")


def _key_event(key: str) -> events.Key:
    """The Key event a terminal sends for ``key`` (as Textual's own ``Pilot.press`` builds it)."""
    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char: str | None = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


async def send_keys(pilot, *keys: str) -> None:
    """Post each key to the app as the terminal would and :func:`drain` after each one, so a key
    reaches the widget its predecessor left focused (no idle sleep; see the module docstring)."""
    app = pilot.app
    for key in keys:
        event = _key_event(key)
        event.set_sender(app)
        app.post_message(event)
        await drain(pilot)


async def settle(pilot, app: PibenchApp) -> None:
    """Wait until no month is being closed and the screen has refreshed: the month's worker
    completes (Textual's wait), then its MonthAdvanced message is handled (:func:`wait_for`).
    A month only started by a key must be awaited first (:func:`close_month`)."""
    await drain(pilot)
    await app.workers.wait_for_complete()
    await wait_for(pilot, lambda: not app.busy, "the month being closed to finish")
    await drain(pilot)


async def close_month(pilot, app: PibenchApp) -> None:
    """Close the month with the keys a player uses (n, then enter in the confirmation) and wait
    until the app has handled the closed month (``months_advanced`` counts it)."""
    before = app.months_advanced
    await press(pilot, "n", to="ConfirmNextMonth")
    await press(pilot, "enter", until=lambda: app.months_advanced > before, what="the month closed")
    await settle(pilot, app)


async def run_console_line(pilot, app: PibenchApp) -> None:
    """Press enter on the console's line and, if that ran a block (in the sandbox, on a worker
    thread), wait until it has finished and its output is in the log. The console marks itself
    running as it handles the line (before :func:`press` returns), so "not running" afterwards
    means the block is done, or the line only continued a block."""
    console = app.console_panel
    await press(pilot, "enter")
    await wait_for(pilot, lambda: not console.running, "the console block's end")
    await drain(pilot)  # the BlockFinished message reaches the app


POLL_S = 0.005
"""How long :func:`wait_for` sleeps between two looks at its condition once the app's queues are
empty (the condition then waits on a worker, a timer or a subprocess)."""


async def wait_for(pilot, condition: Callable[[], bool], what: str, bound_s: float = WAIT_BOUND_S) -> None:
    """Let the app process its messages (:func:`drain`) until ``condition()`` holds.

    Textual's own waits (``pilot.press``/``pilot.pause``) decide the app is idle by its CPU use,
    which a CPU-starved process passes falsely: a key can then land before the screen it is
    meant for is mounted. Waiting for the condition that matters is exact on any machine.

    Raises:
        pytest.fail.Exception: ``condition()`` still false after ``bound_s`` seconds of
            wall time; the message names ``what`` was awaited.
    """
    deadline = time.monotonic() + bound_s
    await drain(pilot)
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {bound_s:g} s for {what}; the screen is {type(pilot.app.screen).__name__}")
        await asyncio.sleep(POLL_S)
        await drain(pilot)


def screen_ready(app: PibenchApp, name: str) -> bool:
    """True when the active screen is a ``name`` (class name; ``"LabScreen"`` is the main one),
    mounted, and -- if it has anything to focus -- its focus is placed, so keys reach it."""
    screen = app.screen
    if type(screen).__name__ != name or not screen.is_mounted:
        return False
    return screen.focused is not None or not screen.focus_chain


def panel_ready(app: PibenchApp, panel: str) -> bool:
    """True when the tab ``panel`` (an id of ``TABS``: "applicants", "papers", ...) is shown on
    the main screen and the focus is inside it (where its keys act)."""
    if not screen_ready(app, "LabScreen") or app.tabs.active != panel:
        return False
    focused = app.focused
    return focused is not None and any(node.id == panel for node in focused.ancestors_with_self)


async def press(
    pilot,
    *keys: str,
    to: str | None = None,
    panel: str | None = None,
    focus: str | None = None,
    until: Callable[[], bool] | None = None,
    what: str = "",
) -> None:
    """Press keys, then wait until their effect is there.

    Args:
        keys: pressed in order (they must not change screens midway: split the call there).
        to: the screen the keys open or return to (class name, ``"LabScreen"`` for the main
            one): waits until it is active and focused (:func:`screen_ready`).
        panel: the tab the keys show: waits until it is active and focused (:func:`panel_ready`).
        focus: the id of the widget the keys move the focus to (``"field-1"``): waits for it.
        until: any other condition to wait for (``what`` names it for the failure message).
    """
    await send_keys(pilot, *keys)
    app = pilot.app
    after = " ".join(keys)
    if to is not None:
        await wait_for(pilot, lambda: screen_ready(app, to), f"the {to} screen after {after!r}")
    if panel is not None:
        await wait_for(pilot, lambda: panel_ready(app, panel), f"the {panel} panel after {after!r}")
    if focus is not None:
        await wait_for(
            pilot, lambda: app.focused is not None and app.focused.id == focus, f"the focus on #{focus} after {after!r}"
        )
    if until is not None:
        await wait_for(pilot, until, f"{what or 'the condition'} after {after!r}")


@pytest.fixture
def world() -> World:
    """The standard scenario's world (seed 1001)."""
    return new_world()


def screen_text(app: PibenchApp) -> str:
    """The text of what the active screen shows (one line per terminal row)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())
