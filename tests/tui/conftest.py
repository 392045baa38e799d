"""Shared helpers for the TUI tests: build the app on a fixed world, drive it, record toasts."""

from __future__ import annotations

import pytest

from pibench_tui.app import PibenchApp, make_app
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


async def settle(pilot, app: PibenchApp) -> None:
    """Wait until no month is being closed and the screen has refreshed: the month's worker
    completes (Textual's wait), then its MonthAdvanced message is handled (a few message-loop
    turns; no wall-clock limit, so a loaded machine only makes it slower)."""
    await pilot.pause()
    await app.workers.wait_for_complete()
    for _ in range(1000):
        if not app.busy:
            break
        await pilot.pause()
    await pilot.pause()


async def press(pilot, *keys: str) -> None:
    """Press keys one at a time, letting screens mount in between."""
    await pilot.press(*keys)
    await pilot.pause()


@pytest.fixture
def world() -> World:
    """The standard scenario's world (seed 1001)."""
    return new_world()


def screen_text(app: PibenchApp) -> str:
    """The text of what the active screen shows (one line per terminal row)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())
