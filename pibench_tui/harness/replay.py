"""``pibench replay RUN_DIR``: re-simulate a run's action log and confirm its result.

The world is rebuilt from ``result.json``'s config and seed and ``actions.jsonl`` with
``world.api.replay``; the agent's final notes (part of the world state) are restored; the
Impact split and the state digest must equal those in ``result.json``. The verdict is
written back into ``result.json`` (``valid`` and ``replay``) so reports can mark a result
that does not replay as invalid.

A sealed run (``pibench agent --seeds @FILE``) has ``seed: null`` and ``seed_commitment``;
after the evaluation, ``pibench replay RUN_DIR --seal FILE`` takes its seed from the seal file
(verified by :func:`pibench_tui.seeds.read_seal`; the row whose commitment is the run's).
``result.json`` keeps ``seed: null``: the seal file stays the one place the seed is written.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pibench_tui.harness.rundir import atomic_write_json, read_json, read_jsonl

__all__ = ["replay_run", "verify_run"]


def sealed_seed(res: dict[str, Any], seal: str | Path) -> int:
    """The seed of a sealed run from its seal file: the row whose commitment equals
    ``res["seed_commitment"]`` (each row's commitment is recomputed from seed and salt).

    Raises:
        ValueError: The run is not sealed, the file is unusable (:class:`SealError`), or no
            seed of the file has this run's commitment.
    """
    from pibench_tui.seeds import read_seal

    commitment = res.get("seed_commitment")
    if not commitment:
        raise ValueError("the run is not sealed (no seed_commitment); replay it without --seal")
    data = read_seal(seal)
    for row in data["seeds"]:
        if row["commitment"] == commitment:
            return int(row["seed"])
    raise ValueError(f"no seed of {seal} has this run's commitment {str(commitment)[:12]}...")


def verify_run(path: str | Path, seal: str | Path | None = None) -> dict[str, Any]:
    """Re-simulate the run in ``path`` (nothing is written); ``seal``: the seal file that
    reveals a sealed run's seed (:func:`sealed_seed`).

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
    out: dict[str, Any] = {
        "valid": False,
        "impact": None,
        "digest": None,
        "expected_impact": res.get("impact"),
        "expected_digest": res.get("digest"),
        "actions": 0,
        "seconds": 0.0,
    }
    try:
        actions = read_jsonl(path / "actions.jsonl", strict=True)
    except ValueError as exc:  # a completed run's log has no torn or foreign lines
        out["message"] = f"the action log is damaged: {exc}"
        return out
    out["actions"] = len(actions)
    seed = res.get("seed")
    if seed is None and seal is not None:
        seed = sealed_seed(res, seal)
    if seed is None:
        out["sealed"] = True  # not checked: neither valid nor invalid
        out["message"] = (
            "not checked: the seed is sealed; after the evaluation, replay with --seal FILE "
            "(the file of `pibench seal`)"
        )
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
    out["message"] = (
        "; ".join(problems)
        if problems
        else (f"confirmed: Impact {got_impact['total']:.1f} and digest {got_digest[:12]}... replay exactly")
    )
    return out


def replay_run(path: str | Path, seal: str | Path | None = None) -> dict[str, Any]:
    """:func:`verify_run`, then record the verdict in ``result.json`` (``valid``, ``replay``);
    a sealed run replayed without its seal file (``verdict["sealed"]``) was not checked, and
    nothing is recorded."""
    path = Path(path)
    verdict = verify_run(path, seal)
    if verdict.get("sealed"):
        return verdict
    res = read_json(path / "result.json")
    res["valid"] = bool(verdict["valid"])
    res["replay"] = {
        "valid": verdict["valid"],
        "message": verdict["message"],
        "digest": verdict["digest"],
        "impact": verdict["impact"],
        "checked_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    atomic_write_json(path / "result.json", res)
    return verdict
