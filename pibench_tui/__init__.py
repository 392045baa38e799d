"""pibench front ends: the ``pibench`` command, headless mode, the agent sandbox, the TUI.

Importing this package imports nothing heavy: each front end imports what it needs
when it runs (headless mode never imports textual).
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
