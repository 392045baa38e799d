"""``pibench replay RUN_DIR``: re-simulate a run's action log and confirm its result.

The world is rebuilt from ``result.json``'s config and seed and ``actions.jsonl`` with
``world.api.replay``; the agent's final notes (part of the world state) are restored; the
Impact split and the state digest must equal those in ``result.json``. The verdict is
written back into ``result.json`` (``valid`` and ``replay``) so reports can mark a result
that does not replay as invalid.

A sealed run (``pibench agent --seeds @FILE``) has ``seed: null`` and ``seed_commitment``;
after the evaluation, ``pibench replay RUN_DIR --seal FILE`` takes its seed from the seal file
(verified by :func:`pibench_tui.cli.seeds.read_seal`; the row whose commitment is the run's).
``result.json`` keeps ``seed: null``: the seal file stays the one place the seed is written.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from pibench_tui.harness.rundir import read_json, read_jsonl
from pibench_tui.words import count

__all__ = ["NONDETERMINISM_NOTE", "check_transcript", "replay_run", "verify_run"]


def sealed_seed(res: dict[str, Any], seal: str | Path) -> int:
    """The seed of a sealed run from its seal file: the row whose commitment equals
    ``res["seed_commitment"]`` (each row's commitment is recomputed from seed and salt).

    Raises:
        ValueError: The run is not sealed, the file is unusable (:class:`SealError`), or no
            seed of the file has this run's commitment.
    """
    from pibench_tui.cli.seeds import read_seal

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

    A result whose folder is not the one its label, scenario and seed name (a copied run
    folder: :func:`~pibench_tui.harness.runcheck.folder_problem`, the report's rule) is
    invalid without a replay.

    Raises:
        FileNotFoundError: No ``result.json`` in ``path``.
        ValueError: ``result.json`` is not a run result
            (:func:`~pibench_tui.harness.runcheck.result_problem`: the message names the field).
    """
    from pibench_tui.harness.runcheck import folder_problem, result_problem
    from world.api import ActionError, replay
    from world.config import WorldConfig
    from world.scoring import impact

    path = Path(path)
    res = read_json(path / "result.json")
    problem = result_problem(res, path / "result.json")
    if problem is not None:
        raise ValueError(problem)
    out: dict[str, Any] = {
        "valid": False,
        "impact": None,
        "digest": None,
        "expected_impact": res.get("impact"),
        "expected_digest": res.get("digest"),
        "actions": 0,
        "seconds": 0.0,
    }
    problem = folder_problem(path, res)
    if problem is not None:  # the report's rule: never this folder's career
        out["message"] = problem
        return out
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


def replay_run(path: str | Path, seal: str | Path | None = None, *, check_transcripts: bool = False) -> dict[str, Any]:
    """:func:`verify_run`, then record the verdict in ``result.json`` (``valid``, ``replay``);
    a sealed run replayed without its seal file (``verdict["sealed"]``) was not checked, and
    nothing is recorded. ``check_transcripts``: an agent run that replays must also pass
    :func:`check_transcript` (its verdict is ``verdict["transcript"]``).

    Files are read without following symbolic links (a link is a damaged run:
    :class:`~pibench_tui.harness.rundir.RunFileIsLink`), and the verdict is recorded only in a
    folder ``pibench agent`` would write to (:func:`saves.paths.foreign_folder_problem`: this
    user's own, not writable by others, not a link); otherwise ``verdict["not_recorded"]`` says
    why and nothing is written. The new ``result.json`` keeps the old one's permissions.
    """
    from saves.paths import foreign_folder_problem

    path = Path(path)
    verdict = verify_run(path, seal)
    if verdict.get("sealed"):
        return verdict
    if check_transcripts and verdict["valid"]:
        _check_transcript_too(path, seal, verdict)
    problem = foreign_folder_problem(path, "the run folder", "a copy of it (cp -r) that is yours")
    if problem is not None:
        verdict["not_recorded"] = problem
        return verdict
    res = read_json(path / "result.json")
    mode = os.lstat(path / "result.json").st_mode & 0o666
    res["valid"] = bool(verdict["valid"])
    res["replay"] = {
        "valid": verdict["valid"],
        "message": verdict["message"],
        "digest": verdict["digest"],
        "impact": verdict["impact"],
        "checked_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    from saves.storage import atomic_write

    text = json.dumps(res, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    atomic_write(path / "result.json", text.encode("utf-8"), mode=mode)
    return verdict


def _check_transcript_too(path: Path, seal: str | Path | None, verdict: dict[str, Any]) -> None:
    """Add :func:`check_transcript`'s verdict to a replay verdict (agent runs)."""
    from world.config import WorldConfig

    res = read_json(path / "result.json")
    if res.get("kind", "agent") != "agent":
        return
    seed = res.get("seed")
    if seed is None and seal is not None:
        seed = sealed_seed(res, seal)
    check = check_transcript(path, res, int(seed), WorldConfig.from_dict(res["config"]))
    verdict["transcript"] = check
    if not check["valid"]:
        verdict["valid"] = False
        verdict["message"] = f"the transcript does not make the logged calls: {check['message']}"
    else:
        verdict["message"] += f"; {check['message']}"


#: Said of every divergence: the check assumes agent code that does the same given the same world.
NONDETERMINISM_NOTE = (
    "agent code that reads the wall clock, object ids, hash order of strings or its own timing is "
    "not deterministic, and its career cannot be confirmed this way"
)


def _row_text(row: Any) -> str:
    return json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


class _Diverged(Exception):
    """The re-run code made other calls than the action log holds."""


class _TranscriptRun:
    """Re-runs a transcript's replies in a fresh agent process against a replayed world."""

    def __init__(self, core: Any, logged: list[Any], sealed_seeds: list[int] | None) -> None:
        self.core = core
        self.logged = [_row_text(r) for r in logged]
        self.sealed_seeds = list(sealed_seeds) if sealed_seeds is not None else None
        self.checked = 0  # world log rows compared so far
        self.blocks = 0

    def _given_seeds(self) -> None:
        """A sealed career's agent ``random`` was seeded from secret entropy, recorded in
        ``result.json``: the re-run's agent processes get the same seeds, in order."""
        sandbox = self.core.sandbox
        if self.sealed_seeds is None or sandbox is None:
            return
        seeds = self.sealed_seeds

        def given(month: int) -> int:
            value = seeds.pop(0) if seeds else 0
            sandbox.random_seeds.append(value)
            return value

        sandbox._agent_seed = given

    def compare(self, where: str) -> None:
        """Every call the re-run made so far must be the logged one at the same place."""
        made = self.core.world.s.action_log
        for i in range(self.checked, len(made)):
            got = _row_text(made[i])
            if i >= len(self.logged):
                raise _Diverged(f"{where}: the code made {got[:200]}, past the end of actions.jsonl")
            if got != self.logged[i]:
                raise _Diverged(
                    f"{where}: call {i + 1} of the log is {self.logged[i][:200]}, the re-run code made {got[:200]}"
                )
        self.checked = len(made)

    def event(self, e: dict[str, Any]) -> None:
        """Apply one transcript entry (replies run, failed calls advance, resumes restart)."""
        from pibench_tui.harness.codeblock import find_code

        ev = e.get("event")
        where = f"month {e.get('month')} turn {e.get('turn')}"
        if ev == "llm":
            if "reply_chars" in e:
                raise _Diverged(f"{where}: the reply was cut in the transcript (longer than it keeps); not checkable")
            if self.core.world.finished:
                raise _Diverged(f"{where}: a reply after the career's end")
            self.core.step(find_code(str(e.get("reply") or "")).code or "")
            self.blocks += 1
            self.compare(where)
        elif ev == "llm_failed" or (ev == "auto_advance" and e.get("reason") == "llm_failures_exhausted"):
            self.core.advance()
            self.compare(where)
        elif ev == "resume":
            closed = self.core.closed_months[-1] if self.core.closed_months else None
            self.core.reset(options={"world": self.core.world, "last_close": closed})
            self._given_seeds()


def check_transcript(path: str | Path, res: dict[str, Any], seed: int, config: Any) -> dict[str, Any]:
    """Confirm that the action log comes from the transcript: the recorded replies' code
    blocks are re-run, in order, in a fresh agent process against a world replayed from
    ``seed`` and ``config`` (failed LLM calls and resumes as recorded), and must make exactly
    the calls of ``actions.jsonl``. A log pasted from another career (the hidden-state
    oracle's) or edited by hand fails at its first divergence, which is named.

    Agent code must be deterministic for this to hold (:data:`NONDETERMINISM_NOTE`): a
    divergence says so. A sealed career's agent ``random`` gets the seeds ``result.json``
    recorded for it (``agent_random_seeds``).

    Returns:
        ``{"valid": bool, "message": str, "blocks": int}``.
    """
    from pibench_tui.harness.core import LabCore

    path = Path(path)
    try:
        transcript = read_jsonl(path / "transcript.jsonl", strict=True)
        logged = read_jsonl(path / "actions.jsonl", strict=True)
    except (OSError, ValueError) as exc:
        return {"valid": False, "message": str(exc), "blocks": 0}
    start = next((e for e in transcript if isinstance(e, dict) and e.get("event") == "start"), None)
    if start is None:
        return {"valid": False, "message": "transcript.jsonl has no start entry", "blocks": 0}
    settings: dict[str, Any] = start["settings"] if isinstance(start.get("settings"), dict) else {}
    harness: dict[str, Any] = res["harness"] if isinstance(res.get("harness"), dict) else {}
    sealed = bool(res.get("seed_commitment"))
    seeds = res.get("agent_random_seeds")
    core = LabCore(
        config,
        seed=seed,
        max_turns=int(settings.get("max_turns") or 8),
        memory=bool(settings.get("memory", True)),
        block_timeout=float(harness.get("block_timeout") or 20.0),
        sealed=sealed,
    )
    run = _TranscriptRun(
        core, logged, [int(s) for s in seeds if isinstance(s, int)] if sealed and isinstance(seeds, list) else None
    )
    try:
        core.reset(seed=seed)
        run._given_seeds()
        for e in transcript:
            if isinstance(e, dict):
                run.event(e)
        run.compare("at the end")
        if run.checked != len(run.logged):
            raise _Diverged(
                f"the re-run code made {count(run.checked, 'call')}, actions.jsonl holds {len(run.logged)}: the next logged "
                f"call {run.logged[run.checked][:200]} was never made"
            )
    except _Diverged as exc:
        return {"valid": False, "message": f"{exc} (note: {NONDETERMINISM_NOTE})", "blocks": run.blocks}
    except Exception as exc:  # noqa: BLE001 - CareerOver, ActionError, SandboxStartError: named, never raised
        return {
            "valid": False,
            "message": f"the transcript cannot be re-run: {type(exc).__name__}: {exc}",
            "blocks": run.blocks,
        }
    finally:
        core.close()
    return {
        "valid": True,
        "message": f"the {run.blocks} recorded replies make exactly the {run.checked} logged calls",
        "blocks": run.blocks,
    }
