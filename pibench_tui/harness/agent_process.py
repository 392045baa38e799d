"""The harness's one coupling to the sandbox: the same agent process as headless mode.

Everything the harness needs from :mod:`pibench_tui.sandbox` goes through this module, so
a change of the sandbox's interface is absorbed here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pibench_tui.sandbox import (
    ALLOWED_MODULES,
    DEFAULT_MEMORY_LIMIT,
    BlockResult,
    Refusal,
    Sandbox,
)
from pibench_tui.sandbox.factory import open_sandbox as _open_sandbox

__all__ = ["ALLOWED_MODULES", "DEFAULT_MEMORY_LIMIT", "BlockResult", "Refusal", "open_sandbox"]


def open_sandbox(
    handler: Callable[[str, str, list[Any], dict[str, Any]], Any],
    world: Any,
    *,
    block_timeout: float,
    max_output: int,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    require_complete: bool = False,
) -> Sandbox:
    """A :class:`~pibench_tui.sandbox.Sandbox` over ``world``'s API, built by the one sandbox
    factory (:func:`pibench_tui.sandbox.factory.open_sandbox`) as headless mode builds it: the
    same spec, with this scenario's numbers in the help and its harness limits.

    Args:
        handler: ``handler(namespace, method, args, kwargs)`` applies one API call (the
            harness wraps ``Api.call``).
        world: The career's ``World`` (its seed and month seed the agent's ``random``).
        block_timeout: Wall-clock limit per block, in seconds (MECHANICS §16: 20 s).
        max_output: Output cap per block inside the sandbox, in characters.
        memory_limit: Address-space limit of the agent process, in bytes.
        require_complete: Every agent process must prove complete OS confinement (a
            sealed evaluation; see :class:`~pibench_tui.sandbox.Sandbox`).
    """
    return _open_sandbox(
        handler,
        world,
        block_timeout=block_timeout,
        max_output=max_output,
        memory_limit=memory_limit,
        require_complete=require_complete,
    )
