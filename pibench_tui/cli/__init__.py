"""The ``pibench`` command: one parser for every command and its dispatch (``command``), the
policy commands (``run_cmds``), argument types, sealed-seed specs and signal handling.

Importing it stays light (argparse): each command imports its front end when it runs.
"""

from __future__ import annotations

from pibench_tui.cli.command import main

__all__ = ["main"]
