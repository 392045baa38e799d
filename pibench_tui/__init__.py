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
