"""Run directories of policy careers (``pibench run --save-runs DIR``).

One directory per career, in the run-directory format shared with ``pibench agent``
(read by ``pibench report``, ``pibench replay`` and the replay viewer):
``DIR/<label>/<scenario>-<seed>/`` (``<scenario>-sealed-<commitment prefix>`` for a sealed
seed) with ``actions.jsonl`` (the world's action log, enough
for :func:`world.api.replay`), ``months.jsonl`` (per closed month the month report and the
dashboard after the tick), ``eval.json`` (the hidden evaluation log and the capability axes,
as for agent runs) and ``result.json`` (kind ``policy``; written last, so its presence means
the directory is complete).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

from world.config import WorldConfig

from ..harness.rundir import RUN_FORMAT, atomic_write_json, atomic_write_text, career_dir, read_json, seed_fields

__all__ = ["RUN_FORMAT", "recorded_career", "sealed_row", "write_run"]


def _month_report(api: Any, reply: Any) -> Any:
    """The month report of the tick that just ran: from ``time.next_month()``'s reply, else
    ``time.last_report()`` where the API has it, else ``None``."""
    if isinstance(reply, dict) and "report" in reply:
        return reply["report"]
    last = getattr(api.time, "last_report", None)
    if last is not None:
        try:
            return last()
        except Exception:  # noqa: BLE001 - no report yet is not an error of the run
            return None
    return None


def recorded_career(
    policy: str, seed: int, config: WorldConfig, baseline_config: Any = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Play one career as :func:`world.runner.play` does, recording what the PI saw.

    Returns:
        ``(row, run)``: the per-seed row of :func:`world.runner.result_row` (identical to an
        unrecorded career's) and the run data ``{"result", "actions", "months_jsonl",
        "eval_json"}`` (the texts of ``months.jsonl`` and ``eval.json``); the result lacks
        ``label`` and ``scenario`` (the sweep fills them in).
    """
    from world.api import ActionError
    from world.career import Career
    from world.runner import AgentView, build_policy, result_row

    t0 = time.perf_counter()
    career = Career.new(copy.copy(config), seed, cached=True)  # as dataclasses.replace did, without re-running __init__
    world, api = career.world, career.api
    pol = build_policy(policy, world, baseline_config)
    view: Any = api if policy == "oracle" else AgentView(api)
    pol.errors = []  # type: ignore[attr-defined]
    months: list[str] = []  # JSON lines, serialised at once (API results may be shared, cached objects)
    while not world.s.finished:
        month = world.s.month
        try:
            pol.act(view)
        except ActionError as exc:
            pol.errors.append([month, exc.code, exc.message])  # type: ignore[attr-defined]
        reply = None
        if not world.s.finished and world.s.month == month:
            reply = api.time.next_month()
        entry = {"month": month, "report": _month_report(api, reply), "dashboard": api.lab.dashboard()}
        months.append(json.dumps(entry, separators=(",", ":"), allow_nan=False) + "\n")
    row = result_row(world, pol)
    s = world.summary()
    from pibench_tui import _version
    from world.scoring import impact

    result = {
        "format": RUN_FORMAT,
        "kind": "policy",
        "label": None,
        "policy": policy,
        "scenario": None,
        "config": world.cfg.to_dict(),
        "config_hash": world.cfg.content_hash(),
        "seed": seed,
        "seed_commitment": None,
        "impact": impact(world),
        "collapsed": s["collapsed"],
        "collapse_month": s["collapse_month"],
        "months_played": s["months_survived"],
        "publications": s["publications"],
        "grants": s["grants_won"],
        "hires": s["hires"],
        "quits": s["students_quit"],
        "digest": world.digest(),
        "pibench_version": _version(),
        "wall_s": round(time.perf_counter() - t0, 3),
        "baseline_config": dataclasses.asdict(baseline_config)
        if dataclasses.is_dataclass(baseline_config) and not isinstance(baseline_config, type)
        else None,
        "summary": s,
        "refused": len(pol.refused),
        "errors": len(pol.errors),  # type: ignore[attr-defined]
    }
    evaluation = json.dumps({"eval_log": world.s.eval_log, "axes": row["axes"]}, separators=(",", ":"), allow_nan=False)
    vars(api).clear()  # the Api and its namespaces refer to each other: free the world now (see run_career)
    return row, {
        "result": result,
        "actions": [list(e) for e in world.s.action_log],
        "months_jsonl": "".join(months),
        "eval_json": evaluation + "\n",
    }


def _jsonl(rows: list[Any]) -> str:
    return "".join(json.dumps(r, separators=(",", ":"), allow_nan=False) + "\n" for r in rows)


def sealed_row(row: dict[str, Any], commitment: str | None) -> dict[str, Any]:
    """A career's row (:func:`world.runner.result_row`) as files may hold it: itself when the
    seed is public, else with ``seed`` null and ``seed_commitment`` after it
    (:func:`~pibench_tui.harness.rundir.seed_fields`)."""
    if commitment is None:
        return row
    out: dict[str, Any] = {}
    for k, v in row.items():
        if k == "seed":
            out.update(seed_fields(int(v), commitment))
        else:
            out[k] = v
    return out


def write_run(root: str | Path, label: str, scenario: str, run: dict[str, Any], commitment: str | None = None) -> Path:
    """Write one career's run directory (``result.json`` last, every file atomically).
    ``commitment``: the seed's commitment when it is sealed (``--seeds @FILE``): the folder
    is named by its prefix and ``result.json`` has ``seed`` null and ``seed_commitment``, as
    ``pibench agent`` writes a sealed career (:func:`~pibench_tui.harness.rundir.seed_fields`).

    Returns:
        The directory.

    Raises:
        OSError: it cannot be written; ``FileExistsError`` when the directory holds the run of
            another label (two labels that differ only in case, on a case-insensitive file system).
    """
    seed = int(run["result"]["seed"])
    result = {**run["result"], "label": label, "scenario": scenario, **seed_fields(seed, commitment)}
    if commitment is not None and isinstance(result.get("summary"), dict):  # the world's summary names its seed
        result["summary"] = {k: v for k, v in result["summary"].items() if k != "seed"}
    d = career_dir(root, label, scenario, result["seed"], commitment)
    if (d / "result.json").exists():
        other = read_json(d / "result.json").get("label", label)
        if other != label:
            raise FileExistsError(
                f"{d} holds the run of label {other!r}, not {label!r}; use another --save-runs folder"
            )
    d.mkdir(parents=True, exist_ok=True)
    atomic_write_text(d / "actions.jsonl", _jsonl(run["actions"]))
    atomic_write_text(d / "months.jsonl", run["months_jsonl"])
    atomic_write_text(d / "eval.json", run["eval_json"])
    atomic_write_json(d / "result.json", result)
    return d
