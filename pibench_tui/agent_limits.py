"""The agent process's default limits, importable without the sandbox package.

``pibench headless --help`` names them (:mod:`pibench_tui.cli.command`); importing them from
:mod:`pibench_tui.sandbox` would load the whole sandbox (dataclasses and inspect, the
policy, the confinement, subprocess ...) for a help text. :mod:`pibench_tui.sandbox`
re-exports them: this module is their one home.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_BLOCK_TIMEOUT",
    "DEFAULT_MAX_OUTPUT",
    "DEFAULT_MEMORY_LIMIT",
    "MIN_MEMORY_LIMIT",
    "memory_limit_problem",
]

#: Default wall-clock limit per block, in seconds (MECHANICS §16; the issue's 10 s).
DEFAULT_BLOCK_TIMEOUT = 10.0
#: Default output cap per block, in characters.
DEFAULT_MAX_OUTPUT = 20_000
#: Default address-space limit of the agent process, in bytes (1 GiB).
DEFAULT_MEMORY_LIMIT = 1 << 30
#: Smallest address-space limit of the agent process that leaves agent code room, in bytes
#: (256 MiB). Measured (2026-12, numpy 2.4, Linux x86-64): the agent process's address space
#: after start-up, numpy and the standard library loaded and confined, is ~182 MiB (VmSize;
#: ~246 MiB peak while starting, before the limit is applied); under 256 MiB it has no room
#: to speak of: at 100 MiB a 10 MB string fails, at 200 MiB a 50 MB one; at 256 MiB a 50 MB
#: string works.
MIN_MEMORY_LIMIT = 256 << 20
#: The agent process's address space once started (MiB, measured as above), for messages.
STARTUP_ADDRESS_SPACE_MIB = 182


def memory_limit_problem(limit: int) -> str | None:
    """Why ``limit`` (bytes; 0 = none) cannot be the agent process's address-space limit, or None."""
    if limit < 0:
        return f"the memory limit must be 0 (none) or at least {MIN_MEMORY_LIMIT >> 20} MiB, got {limit:,} bytes"
    if 0 < limit < MIN_MEMORY_LIMIT:
        return (
            f"a memory limit of {limit / (1 << 20):g} MiB leaves the agent process no room: Python and numpy "
            f"take ~{STARTUP_ADDRESS_SPACE_MIB} MiB of address space once started; use at least "
            f"{MIN_MEMORY_LIMIT >> 20} MiB (or 0 for no limit)"
        )
    return None
