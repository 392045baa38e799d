"""The agent process's default limits, importable without the sandbox package.

``pibench headless --help`` names them (:mod:`pibench_tui.cli`); importing them from
:mod:`pibench_tui.sandbox` would load the whole sandbox (dataclasses and inspect, the
policy, the confinement, subprocess ...) for a help text. :mod:`pibench_tui.sandbox`
re-exports them: this module is their one home.
"""

from __future__ import annotations

__all__ = ["DEFAULT_BLOCK_TIMEOUT", "DEFAULT_MAX_OUTPUT", "DEFAULT_MEMORY_LIMIT"]

#: Default wall-clock limit per block, in seconds (MECHANICS §16; the issue's 10 s).
DEFAULT_BLOCK_TIMEOUT = 10.0
#: Default output cap per block, in characters.
DEFAULT_MAX_OUTPUT = 20_000
#: Default address-space limit of the agent process, in bytes (1 GiB).
DEFAULT_MEMORY_LIMIT = 1 << 30
