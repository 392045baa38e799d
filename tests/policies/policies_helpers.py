"""Shared helpers for the policy tests: an API-only proxy and an agent-script runner."""

from __future__ import annotations

from pathlib import Path

from world.api import API_CALLS, ActionError, Api
from world.config import WorldConfig
from world.engine import World

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ROOT / "examples" / "agents"


class StrictNamespace:
    """Exposes only the public calls of one API namespace: no ``_api``, no ``world``."""

    def __init__(self, ns: object, name: str) -> None:
        self._calls = {m: getattr(ns, m) for m in API_CALLS[name]}
        self._name = name

    def __getattr__(self, item: str):
        calls = self.__dict__.get("_calls", {})
        if item in calls:
            return calls[item]
        raise AttributeError(f"{self.__dict__.get('_name')}.{item} is not part of the public API")


class StrictView:
    """What an agent script sees, and nothing more: reaching ``world`` raises."""

    def __init__(self, api: Api) -> None:
        for name in API_CALLS:
            object.__setattr__(self, name, StrictNamespace(getattr(api, name), name))
        object.__setattr__(self, "query", api.query)
        object.__setattr__(self, "memory", api.memory)

    def __getattr__(self, item: str):
        raise AttributeError(f"{item!r} is not part of the agent API")


def script_globals(api: Api) -> dict:
    """The globals an agent script gets in headless mode, bound to ``api`` in-process; as
    there, ``from pibench_agent import lab, time`` imports the same bound names."""
    import builtins
    import types

    g = {name: getattr(api, name) for name in API_CALLS}
    g.update(query=api.query, memory=api.memory, ActionError=ActionError)
    agent_module = types.ModuleType("pibench_agent")
    agent_module.__dict__.update(g)
    real_import = builtins.__import__

    def agent_import(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002
        if name == "pibench_agent" and not level:
            return agent_module
        return real_import(name, globals, locals, fromlist, level)

    g.update(__name__="__agent__", __builtins__={**vars(builtins), "__import__": agent_import})
    return g


def run_script(path: Path, seed: int, config: WorldConfig | None = None) -> World:
    """Exec an agent script in-process against a fresh world; return the world."""
    w = World(config or WorldConfig(), seed)
    exec(compile(path.read_text(), str(path), "exec"), script_globals(Api(w)))
    return w


def cli(argv: list[str]) -> int:
    """``pibench ARGV`` in this process; its exit status (argparse usage errors included)."""
    from pibench_tui.cli.command import main

    try:
        return main(argv)
    except SystemExit as exc:  # argparse usage errors
        return int(exc.code or 0)
