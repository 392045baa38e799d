"""pibench front ends: the ``pibench`` command, headless mode, the agent sandbox, the TUI.

Importing this package imports nothing heavy: each front end imports what it needs
when it runs (headless mode never imports textual).
"""

from __future__ import annotations

__all__ = ["__version__"]


def _version() -> str:
    """The installed distribution's version (one source: pyproject.toml's ``version``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pibench")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> str:
    """``__version__`` is read from the package metadata on first use (start-up stays fast)."""
    if name == "__version__":
        value = _version()
        globals()["__version__"] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _register_gym_env() -> None:
    """Register ``pibench/Lab-v0`` when Gymnasium is already imported, so
    ``import gymnasium, pibench_tui; gymnasium.make("pibench/Lab-v0")`` works (Gymnasium 1.x
    has no plugin registration for installed packages). Without Gymnasium loaded nothing is
    imported (start-up stays fast): then ``gymnasium.make("pibench_tui.harness.gym_env:pibench/Lab-v0")``
    imports and registers it."""
    import sys

    if "gymnasium" in sys.modules:
        import pibench_tui.harness.gym_env  # noqa: F401  (registers pibench/Lab-v0 on import)


_register_gym_env()
