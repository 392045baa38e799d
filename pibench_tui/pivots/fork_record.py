"""The career of a pivot case up to its fork, re-played from its public seed.

A case of a public set names its scenario, seed and the policy that played up to the fork;
playing that policy again gives the world at the fork exactly (determinism), which the
TUI's panels can show. The re-played dashboard must equal the case's record: a case whose
record does not come from its seed and policy is refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from world.career import Career
from world.engine import World
from world.policies import ORACLE
from world.runner import AgentView, build_policy

from .cases import Case, PivotFileError

__all__ = ["action_log_to_fork", "plan_calls", "sealed_seeds", "world_at_fork"]


def sealed_seeds(path: str) -> dict[str, int]:
    """Commitment → seed from a ``pibench seal`` file (``@FILE`` or ``FILE``).

    Raises:
        PivotFileError: The file cannot be used (the message says why).
    """
    from pibench_tui.cli.seeds import SealError, read_seal

    try:
        data = read_seal(path[1:] if path.startswith("@") else path)
    except SealError as exc:
        raise PivotFileError(str(exc)) from None
    return {str(r["commitment"]): int(r["seed"]) for r in data["seeds"]}


def world_at_fork(case: Case, seeds: Mapping[str, int] | None = None) -> World:
    """The world at the start of ``case``'s fork month, re-played from its seed and policy.

    Raises:
        PivotFileError: As :func:`action_log_to_fork`.
    """
    from world.api import replay

    config, seed, log = action_log_to_fork(case, seeds)
    return replay(config, seed, log)


def plan_calls(case: Case, label: str) -> tuple[tuple[str, str, dict[str, Any]], ...]:
    """The calls of plan ``label`` read from its code without running it: each line must be
    ``namespace.method(name=literal, ...)`` (as ``pibench pivots build`` writes them) or
    ``pass``.

    Raises:
        PivotFileError: A line of another shape (the message names the case and plan).
    """
    import ast

    calls = []
    for line in case.plans[label]["code"].splitlines():
        text = line.strip()
        if not text or text == "pass":
            continue
        try:
            node = ast.parse(text, mode="eval").body
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and not node.args
            ):
                raise ValueError("not a call of namespace.method with keyword arguments")
            kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg is not None}
        except (SyntaxError, ValueError) as exc:
            raise PivotFileError(f"case {case.id}: plan {label}'s line {text!r} cannot be read ({exc})") from None
        calls.append((node.func.value.id, node.func.attr, kwargs))
    return tuple(calls)


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def action_log_to_fork(case: Case, seeds: Mapping[str, int] | None = None) -> tuple[Any, int, list[Any]]:
    """``(config, seed, action log)`` of ``case``'s career up to the start of its fork month.

    ``seeds`` maps a sealed case's commitment to its seed (the evaluator's seal file,
    :func:`sealed_seeds`); the seed is used to replay, never shown.

    Raises:
        PivotFileError: The set is sealed (no seed), the scenario or policy is unknown, or
            the re-played dashboard differs from the case's record.
    """
    from scenarios import ScenarioError, load_scenario

    seed = case.raw.get("seed")
    if seed is None and seeds is not None:
        seed = seeds.get(str(case.raw.get("commitment")))
        if seed is None:
            raise PivotFileError(f"case {case.id}: its commitment is not in the seal file given")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise PivotFileError(
            f"case {case.id}: its seed is sealed; give the seal file the set was built from (--seal FILE)"
        )
    try:
        scen = load_scenario(str(case.raw.get("scenario") or "standard"))
    except ScenarioError as exc:
        raise PivotFileError(f"case {case.id}: {exc}") from None
    if "actions" in case.raw:  # forked along an agent's run: its own calls up to the fork
        return _from_actions(case, scen.config, seed)
    career = Career.new(scen.config, seed, cached=True)  # a policy never alters what it reads
    world, api = career.world, career.api
    policy_name = str(case.raw.get("policy") or "baseline")
    try:
        policy = build_policy(policy_name, world)
    except KeyError:
        raise PivotFileError(f"case {case.id}: unknown policy {policy_name!r}") from None
    view: Any = api if policy_name == ORACLE else AgentView(api)
    while world.s.month < case.fork_month and not world.s.finished:
        month = world.s.month
        policy.act(view)
        if world.s.month == month and not world.s.finished:
            api.call("time", "next_month", [], {})
    if world.s.finished or world.s.month != case.fork_month:
        raise PivotFileError(f"case {case.id}: the career ends before its fork month {case.fork_month}")
    if _canon(api.call("lab", "dashboard", [], {})) != _canon(case.record.get("dashboard")):
        raise PivotFileError(
            f"case {case.id}: its record is not the career of seed {seed} played by {policy_name} "
            f"to month {case.fork_month} (the dashboards differ)"
        )
    return scen.config, seed, list(world.s.action_log)


def _from_actions(case: Case, config: Any, seed: int) -> tuple[Any, int, list[Any]]:
    """:func:`action_log_to_fork` for a case that carries its career's calls (``actions``)."""
    from world.api import ActionError, replay

    log = case.raw["actions"]
    if not isinstance(log, list) or any(not isinstance(r, list) or len(r) != 3 for r in log):
        raise PivotFileError(f"case {case.id}: 'actions' must be [month, \"ns.method\", kwargs] rows")
    try:
        world = replay(config, seed, log)
    except (ActionError, ValueError, TypeError) as exc:
        raise PivotFileError(f"case {case.id}: its actions do not replay ({exc})") from None
    if world.s.finished or world.s.month != case.fork_month:
        raise PivotFileError(f"case {case.id}: its actions end in month {world.s.month}, not at the fork")
    from world.api import Api

    if _canon(Api(world).call("lab", "dashboard", [], {})) != _canon(case.record.get("dashboard")):
        raise PivotFileError(f"case {case.id}: its record is not the career its actions make (the dashboards differ)")
    return config, seed, list(log)
