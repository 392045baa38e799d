"""``pibench replay RUN_DIR``: re-simulate a run's action log and confirm its result.

The world is rebuilt from ``result.json``'s config and seed and ``actions.jsonl`` with
``world.api.replay``; the agent's final notes (part of the world state) are restored; the
Impact split and the state digest must equal those in ``result.json``. The verdict is
written back into ``result.json`` (``valid`` and ``replay``) so reports can mark a result
that does not replay as invalid.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pibench_tui.harness.rundir import atomic_write_json, read_json, read_jsonl

__all__ = ["replay_run", "verify_run"]


def verify_run(path: str | Path) -> dict[str, Any]:
    """Re-simulate the run in ``path`` (nothing is written).

    Returns:
        ``{"valid": bool, "message": str, "impact": {...} | None, "digest": str | None,
        "expected_impact", "expected_digest", "actions": int, "seconds": float}``.

    Raises:
        FileNotFoundError: No ``result.json`` in ``path``.
        ValueError: ``result.json`` is not a run result.
    """
    from world.api import ActionError, replay
    from world.config import WorldConfig
    from world.scoring import impact

    path = Path(path)
    res = read_json(path / "result.json")
    if not isinstance(res, dict) or "config" not in res:
        raise ValueError(f"{path}/result.json is not a pibench run result (no config)")
    actions = read_jsonl(path / "actions.jsonl")
    out: dict[str, Any] = {"valid": False, "impact": None, "digest": None,
                           "expected_impact": res.get("impact"), "expected_digest": res.get("digest"),
                           "actions": len(actions), "seconds": 0.0}
    seed = res.get("seed")
    if seed is None:
        out["message"] = "the seed is sealed: reveal it (pibench seal) before replaying"
        return out
    started = time.monotonic()
    try:
        cfg = WorldConfig.from_dict(res["config"])
        world = replay(cfg, int(seed), [list(a) for a in actions])
    except ActionError as exc:
        out["message"] = f"the action log does not replay: {exc.message}"
        return out
    except (ValueError, TypeError, KeyError) as exc:
        out["message"] = f"the action log or config is malformed: {type(exc).__name__}: {exc}"
        return out
    world.s.memory = str(res.get("memory_final") or "")
    got_impact, got_digest = impact(world), world.digest()
    out.update(impact=got_impact, digest=got_digest, seconds=round(time.monotonic() - started, 3))
    problems = []
    if not world.finished:
        problems.append(f"the action log stops in month {world.month}, before the career's end")
    exp = res.get("impact") or {}
    for key in ("total", "earned", "projection"):
        if exp.get(key) != got_impact[key]:
            problems.append(f"Impact {key} {got_impact[key]} != {exp.get(key)} in result.json")
    if res.get("digest") != got_digest:
        problems.append("the state digest differs from result.json's")
    out["valid"] = not problems
    out["message"] = "; ".join(problems) if problems else (
        f"confirmed: Impact {got_impact['total']:.1f} and digest {got_digest[:12]}... replay exactly"
    )
    return out


def replay_run(path: str | Path) -> dict[str, Any]:
    """:func:`verify_run`, then record the verdict in ``result.json`` (``valid``, ``replay``)."""
    path = Path(path)
    verdict = verify_run(path)
    res = read_json(path / "result.json")
    res["valid"] = bool(verdict["valid"])
    res["replay"] = {"valid": verdict["valid"], "message": verdict["message"], "digest": verdict["digest"],
                     "impact": verdict["impact"], "checked_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    atomic_write_json(path / "result.json", res)
    return verdict
