"""``pibench scenarios list|show``: the command functions.

For ``pibench_tui/cli/command.py`` (which owns the top-level parser), the contract is:

``add_scenarios_parser(subparsers) -> argparse.ArgumentParser``
    Adds ``scenarios list`` and ``scenarios show NAME|PATH [--seed N] [--full|--toml]``;
    each subcommand sets ``args.func``.

``cmd_list(args, out=sys.stdout, err=sys.stderr) -> int``
    Reads ``args.json`` (default False).

``cmd_show(args, out=sys.stdout, err=sys.stderr) -> int``
    Reads ``args.name`` (a bundled name or a ``.toml`` path), ``args.seed`` (None),
    ``args.full`` (False: every parameter with unit, section and range), ``args.toml``
    (False: print a scenario file that reproduces this scenario), ``args.json`` (False).

Return value = exit status: 0 ok, 1 error (the validation message on ``err``, starting
with ``error:``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from scenarios.loader import SHORTCUTS, Scenario, ScenarioError, list_scenarios, load_scenario
from world.config import WorldConfig

__all__ = ["add_scenarios_parser", "cmd_list", "cmd_show", "scenario_toml"]


def cmd_list(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """List the bundled scenarios.

    Returns:
        Exit status (0 ok, 1 if a bundled file is broken).
    """
    out, err = out or sys.stdout, err or sys.stderr
    try:
        scens = list_scenarios()
    except ScenarioError as exc:
        print(f"error: {exc}", file=err)
        return 1
    if getattr(args, "json", False):
        json.dump(
            [{"name": s.name, "seed": s.seed, "months": s.config.months, "description": s.description} for s in scens],
            out,
            ensure_ascii=False,
            indent=1,
        )
        print(file=out)
        return 0
    width = max(len(s.name) for s in scens)
    print(f"{'NAME'.ljust(width)}  {'SEED':>5}  {'MONTHS':>6}  DESCRIPTION", file=out)
    for s in scens:
        print(f"{s.name.ljust(width)}  {s.seed:>5}  {s.config.months:>6}  {s.description}", file=out)
    print("Use one with --scenario NAME, or write your own file: pibench scenarios show standard --toml", file=out)
    return 0


def _fmt(value: Any) -> str:
    """A value in TOML syntax (scalars, arrays, inline tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        text = repr(value)
        return text if ("." in text or "e" in text or "n" in text) else text + ".0"
    if isinstance(value, list):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_fmt(v)}" for k, v in value.items()) + " }"
    return str(value)


def _key(k: Any) -> str:
    k = str(k)
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else json.dumps(k)


def scenario_toml(scen: Scenario) -> str:
    """A scenario file that reproduces ``scen`` (its changes from the default world only).

    Args:
        scen: any scenario.

    Returns:
        TOML text that :func:`scenarios.read_scenario_text` reads back to an equal scenario.
    """
    lines = [f"name = {_fmt(scen.name)}", f"description = {_fmt(scen.description)}", f"seed = {scen.seed}"]
    default = WorldConfig()
    current = scen.config
    world: list[str] = []
    tables: list[str] = []
    for f in dataclasses.fields(WorldConfig):
        old, new = getattr(default, f.name), getattr(current, f.name)
        if old == new:
            continue
        if isinstance(new, dict):
            tables.extend(_table_lines(f"world.{f.name}", old, new))
        elif f.name in SHORTCUTS:
            lines.append(f"{f.name} = {_fmt(new)}")
        else:
            world.append(f"{f.name} = {_fmt(new)}")
    if world:
        lines += ["", "[world]", *world]
    if tables:
        lines += tables
    return "\n".join(lines) + "\n"


def _table_lines(header: str, old: dict, new: dict) -> list[str]:
    flat = [f"{_key(k)} = {_fmt(v)}" for k, v in new.items() if not isinstance(v, dict) and old.get(k) != v]
    out = ["", f"[{header}]", *flat] if flat else []
    for k, v in new.items():
        if isinstance(v, dict) and old.get(k) != v:
            out += _table_lines(f"{header}.{_key(k)}", old.get(k) or {}, v)
    return out


def cmd_show(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Show one scenario: what it changes from the default world (or everything).

    Returns:
        Exit status (0 ok, 2 unknown name, missing or invalid file: a usage error; the message
        lists the problems and the bundled names).
    """
    out, err = out or sys.stdout, err or sys.stderr
    try:
        scen = load_scenario(args.name, seed=getattr(args, "seed", None))
    except ScenarioError as exc:
        print(f"error: {exc}", file=err)
        return 2
    if getattr(args, "toml", False):
        out.write(scenario_toml(scen))
        return 0
    if getattr(args, "json", False):
        data = scen.to_dict()
        data["source"] = scen.source
        data["changes"] = {k: {"default": a, "value": b} for k, a, b in ((k, *v) for k, v in scen.changes().items())}
        json.dump(data, out, ensure_ascii=False, indent=1)
        print(file=out)
        return 0
    cfg = scen.config
    print(f"name         {scen.name}", file=out)
    print(f"description  {scen.description or '-'}", file=out)
    print(f"source       {scen.source}", file=out)
    print(f"seed         {scen.seed}", file=out)
    print(f"horizon      {cfg.months} months", file=out)
    print(f"start budget ${cfg.start_budget:,.0f}", file=out)
    switches = [n for n in ("frozen_field", "no_scooping", "unlimited_attention") if getattr(cfg, n, False)]
    print(f"switches     {', '.join(switches) or 'none'}", file=out)
    meta: dict[str, Mapping[str, Any]] = {f.name: f.metadata for f in dataclasses.fields(WorldConfig)}
    if getattr(args, "full", False):
        print("\nEvery parameter (value, unit, MECHANICS section, valid range):", file=out)
        for f in dataclasses.fields(WorldConfig):
            m = f.metadata
            rng = ""
            if m.get("min") is not None or m.get("max") is not None:
                rng = f"  [{m.get('min', '')} .. {m.get('max', '')}]"
            print(
                f"  {f.name} = {_fmt(getattr(cfg, f.name))}  ({m.get('unit', '')}, {m.get('section', '')}){rng}",
                file=out,
            )
        return 0
    changes = scen.changes()
    if not changes:
        print("\nEvery world parameter has its default value.", file=out)
    else:
        print("\nChanged from the default world:", file=out)
        for path, (old, new) in changes.items():
            unit = meta.get(path.split(".")[0], {}).get("unit", "")
            print(f"  {path} = {_fmt(new)}  (default {_fmt(old)}{', ' + unit if unit else ''})", file=out)
    return 0


def add_scenarios_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``scenarios list|show`` on an argparse subparsers object.

    Args:
        subparsers: the result of ``parser.add_subparsers()``.

    Returns:
        The ``scenarios`` parser (its subcommands set ``args.func``).
    """
    p = subparsers.add_parser(
        "scenarios",
        help="list and show scenarios (world rules, seed, horizon)",
        description="List the bundled scenarios or show one.",
    )
    sub = p.add_subparsers(dest="scenarios_command", metavar="COMMAND", required=True)
    s = sub.add_parser("list", help="list the bundled scenarios", description="List the bundled scenarios.")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_list)
    s = sub.add_parser("show", help="show one scenario", description="Show a scenario: a bundled name or a .toml file.")
    s.add_argument("name", metavar="NAME|PATH")
    s.add_argument("--seed", type=int, default=None, help="override the scenario's seed")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--full", action="store_true", help="list every parameter with unit, section and range")
    g.add_argument(
        "--toml", action="store_true", help="print a scenario file that reproduces it (a start for your own)"
    )
    g.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_show)
    return p
