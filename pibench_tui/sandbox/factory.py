"""The one sandbox factory: every front end that starts an agent process builds it here.

Headless mode, the LLM harness (``pibench agent`` and the Gymnasium environment) and the
TUI's console all hand the agent process the same description of the API: the call
registry with this scenario's numbers in the help (``world.api.call_docs``) and the
scenario's harness limits (``lab.rules()["harness"]``: memory size, query rows). Before
this factory the harness and the console built their own spec from the registry's default
docs, so ``help(lab.attention)`` in ``pibench agent`` under ``unlimited-attention`` showed
the default world's attention base while headless mode showed the scenario's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pibench_tui.sandbox import Sandbox, spec_from_api_calls

__all__ = ["AgentSpec", "agent_spec", "open_sandbox"]


@dataclass(frozen=True)
class AgentSpec:
    """What an agent process is told about the API at its handshake.

    Attributes:
        calls: namespace -> method -> ``{"params", "doc", "mutating"}``
            (:func:`~pibench_tui.sandbox.spec_from_api_calls` with the scenario's docs).
        limits: ``{"memory_max_chars", "query_max_rows"}`` of the scenario
            (``lab.rules()["harness"]``), named by the help of ``memory`` and ``query``.
        tables: table -> columns ``query(sql)`` reads (``world.observe.SCHEMA``), listed
            by ``help(query)`` (the harness prompt names the tables and points there).
    """

    calls: dict[str, Any]
    limits: dict[str, Any]
    tables: dict[str, list[str]]


def agent_spec(config: Any) -> AgentSpec:
    """The agent process's view of the API under ``config`` (a ``WorldConfig``): the call
    registry with this scenario's rule numbers in every docstring (``call_docs(config)``)
    and its harness limits (``rules(config)["harness"]``). A fresh object each call."""
    from world.api import API_CALLS, REQUIRED, call_docs
    from world.observe import SCHEMA
    from world.rules import rules

    return AgentSpec(
        calls=spec_from_api_calls(API_CALLS, REQUIRED, call_docs(config)),
        limits=dict(rules(config)["harness"]),
        tables={t: list(cols) for t, cols in SCHEMA.items()},
    )


def open_sandbox(
    handler: Callable[[str, str, list[Any], dict[str, Any]], Any],
    world: Any,
    **options: Any,
) -> Sandbox:
    """A :class:`~pibench_tui.sandbox.Sandbox` for the career of ``world``: its spec is
    :func:`agent_spec` of the world's config, the agent's ``random`` is seeded from the
    world's seed and month (:func:`~pibench_tui.sandbox.agent_random_seed`).

    Args:
        handler: ``handler(namespace, method, args, kwargs)`` serves one API call of agent
            code (each front end wraps its ``Api.call``).
        world: the career's ``World`` (``cfg``, ``seed`` and ``month`` are read).
        options: the rest of :class:`~pibench_tui.sandbox.Sandbox`'s keyword arguments
            (``block_timeout``, ``max_output``, ``memory_limit``, ``process``, ``prefetch``
            ...); never ``spec``, ``limits``, ``tables``, ``seed`` or ``month``, which come from
            ``world``.

    Raises:
        TypeError: ``options`` names one of the arguments that come from ``world``.
        ValueError: a bad limit (see :class:`~pibench_tui.sandbox.Sandbox`).
    """
    fixed = {"spec", "limits", "tables", "seed", "month"} & options.keys()
    if fixed:
        raise TypeError(f"open_sandbox() takes {', '.join(sorted(fixed))} from the world, not as an argument")
    spec = agent_spec(world.cfg)
    return Sandbox(
        handler,
        spec.calls,
        limits=spec.limits,
        tables=spec.tables,
        seed=world.seed,
        month=lambda: world.month,
        **options,
    )
