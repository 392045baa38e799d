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

import hashlib
import json
import math
import os
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pibench_tui.harness.rundir import RunFileMissing, read_action_log, read_json, read_jsonl
from pibench_tui.words import count

__all__ = [
    "NONDETERMINISM_NOTE",
    "TRANSCRIPT_UNCHECKED",
    "check_block_timeout",
    "check_transcript",
    "replay_run",
    "verify_run",
]


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
        actions = read_action_log(path)
    except RunFileMissing as exc:  # a missing file, not a world that differs
        out["message"] = str(exc)
        return out
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


def replay_run(
    path: str | Path,
    seal: str | Path | None = None,
    *,
    check_transcripts: bool = True,
    check_budget: float | None = None,
) -> dict[str, Any]:
    """:func:`verify_run`, then record the verdict in ``result.json`` (``valid``, ``replay``);
    a sealed run replayed without its seal file (``verdict["sealed"]``) was not checked, and
    nothing is recorded. ``check_transcripts`` (``pibench replay``'s default): an agent run
    that replays must also pass :func:`check_transcript` (its verdict is
    ``verdict["transcript"]``); without it, the verdict of a valid agent run says that its
    transcript was not checked (:data:`TRANSCRIPT_UNCHECKED`) and ``verdict["transcript"]`` is
    ``None``. ``check_budget``: the transcript check's wall-clock budget in seconds (default
    :data:`~pibench_tui.harness.defaults.CHECK_BUDGET`); a check it cuts short leaves the
    run valid as replayed but its log unchecked: ``verdict["unchecked"]`` says why (``log
    unchecked (budget exhausted after N of M blocks)``), ``verdict["transcript"]`` is
    ``None`` and the recorded ``transcript_checked`` false, as with ``--no-check-transcripts``.

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
    if verdict["valid"]:
        if check_transcripts:
            _check_transcript_too(path, seal, verdict, check_budget)
        elif read_json(path / "result.json").get("kind", "agent") == "agent":
            verdict["transcript"] = None
            verdict["message"] += f"; {TRANSCRIPT_UNCHECKED}"
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
        "transcript_checked": bool(verdict.get("transcript")),
        "checked_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    from saves.storage import atomic_write

    text = json.dumps(res, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    atomic_write(path / "result.json", text.encode("utf-8"), mode=mode)
    return verdict


def _check_transcript_too(path: Path, seal: str | Path | None, verdict: dict[str, Any], budget: float | None) -> None:
    """Add :func:`check_transcript`'s verdict to a replay verdict (agent runs)."""
    from world.config import WorldConfig

    res = read_json(path / "result.json")
    if res.get("kind", "agent") != "agent":
        return
    seed = res.get("seed")
    if seed is None and seal is not None:
        seed = sealed_seed(res, seal)
    check = check_transcript(path, res, int(seed), WorldConfig.from_dict(res["config"]), budget=budget)
    if check["unchecked"]:
        verdict["transcript"] = None
        verdict["unchecked"] = check["message"]
        verdict["message"] += f"; {check['message']}"
        return
    verdict["transcript"] = check
    if not check["valid"]:
        verdict["valid"] = False
        verdict["message"] = f"the transcript does not record what its code does: {check['message']}"
    else:
        verdict["message"] += f"; {check['message']}"


#: Said of a valid agent run replayed with ``--no-check-transcripts``.
TRANSCRIPT_UNCHECKED = (
    "its transcript was NOT checked (--no-check-transcripts): the action log is consistent with the world, "
    "not proved to come from the model's replies"
)

#: Said of every divergence: the check assumes agent code that does the same given the same world.
NONDETERMINISM_NOTE = (
    "agent code that reads the wall clock, object ids, hash order of strings or its own timing is "
    "not deterministic, and its career cannot be confirmed this way"
)


def _row_text(row: Any) -> str:
    return json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


class _Diverged(Exception):
    """The re-run code made other calls than the action log holds."""


class _Exhausted(Exception):
    """The check's wall-clock budget ran out before every recorded block was re-run."""


def budget_exhausted_text(checked: int, total: int) -> str:
    """What a check cut short by its budget says: ``log unchecked (budget exhausted after N
    of M blocks)``."""
    return f"log unchecked (budget exhausted after {checked} of {total} blocks)"


def check_block_timeout(recorded: Any) -> tuple[float, str | None]:
    """The time-out per block of a transcript check, in seconds, and what to say of it:
    ``result.json``'s ``harness.block_timeout`` (the career's own limit) when it is a positive
    number no larger than the harness allows (:data:`~pibench_tui.harness.defaults.MAX_BLOCK_TIMEOUT`,
    the bound of ``pibench agent --block-timeout``); never more than that bound (the file is
    editable: ``1e9`` made a check that never ended); the harness default when the file
    names no time-out."""
    from pibench_tui.harness import defaults

    bound = defaults.MAX_BLOCK_TIMEOUT
    if not isinstance(recorded, (int, float)) or isinstance(recorded, bool) or not recorded > 0:
        return defaults.BLOCK_TIMEOUT, (
            f"result.json records no block time-out ({str(recorded)[:40]!r}): blocks were re-run with the "
            f"harness default, {defaults.BLOCK_TIMEOUT:g} s"
        )
    if not recorded <= bound:  # NaN and inf too
        return bound, (
            f"result.json's block time-out {recorded:g} s is more than the harness allows ({bound:g} s, "
            "pibench agent --block-timeout): no run of pibench records it"
        )
    return float(recorded), None


#: How a recorded ``BlockTimeout`` names the limit it was stopped at (the sandbox's message).
_TIMEOUT_LIMIT = re.compile(r"ran longer than ([0-9][0-9.e+-]*) s\b")


def _recorded_seconds(entry: Any) -> float | None:
    """A recorded block entry's ``seconds`` when it is a finite number ≥ 0, else ``None``."""
    secs = entry.get("seconds") if isinstance(entry, dict) else None
    if isinstance(secs, bool) or not isinstance(secs, (int, float)) or not math.isfinite(secs) or secs < 0:
        return None
    return float(secs)


#: The fields of a transcript's ``block`` entry the re-run must reproduce, with how a
#: divergence names them.
_BLOCK_FIELDS = (("ok", "ok"), ("restarted", "restarted"), ("error", "error"), ("output", "output"))


def _kinds_text(kinds: list[Any]) -> str:
    return ", ".join(str(k) for k in kinds) if kinds else "none"


class _TranscriptRun:
    """Re-runs a transcript's replies in a fresh agent process against a replayed world, and
    compares what the re-run observes (calls, output, errors, integrity incidents) with what
    the transcript records."""

    def __init__(
        self,
        core: Any,
        logged: list[Any],
        sealed_seeds: list[int] | None,
        *,
        block_timeout: float = float("inf"),
        deadline: float = float("inf"),
    ) -> None:
        self.core = core
        #: The time-out each block gets, unless less of the budget is left.
        self.block_timeout = block_timeout
        #: ``time.monotonic()`` at which the check's budget is spent.
        self.deadline = deadline
        self.logged = [_row_text(r) for r in logged]
        self.sealed_seeds = list(sealed_seeds) if sealed_seeds is not None else None
        self.checked = 0  # world log rows compared so far
        self.blocks = 0
        #: Integrity incidents the re-run observed, by kind (the career's flags after a check).
        self.kinds: Counter[str] = Counter()
        #: The re-run's step of the last reply whose code ran, until its ``block`` entry is read.
        self.pending: tuple[str, dict[str, Any]] | None = None
        #: ``(month, turn, observation)`` the re-run's step answered, until the ``user`` entry.
        self.answer: tuple[Any, Any, str] | None = None

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

    def _block(self, e: dict[str, Any], where: str) -> None:
        """A ``block`` entry must record what the re-run of its reply observed: the same
        integrity incidents (kinds, in order), ok, restart, error and output (a block that
        timed out: the same error type, its output and message depend on the machine's speed)."""
        if self.pending is None:
            raise _Diverged(f"{where}: the transcript records a block, but no reply whose code ran comes before it")
        pwhere, info = self.pending
        self.pending = None
        got_kinds = list(info["integrity"])
        rec_kinds = e.get("integrity")
        if not isinstance(rec_kinds, list) or rec_kinds != got_kinds:
            raise _Diverged(
                f"{pwhere}: the re-run observed integrity incidents {_kinds_text(got_kinds)}, the transcript "
                f"records {_kinds_text(rec_kinds) if isinstance(rec_kinds, list) else repr(rec_kinds)[:80]}"
            )
        timed_out = "timeout" in got_kinds
        for key, name in _BLOCK_FIELDS:
            want: Any = info[key]
            have: Any = e.get(key)
            if timed_out and key == "output":
                continue
            if timed_out and key == "error":
                want = want.get("type") if isinstance(want, dict) else want
                have = have.get("type") if isinstance(have, dict) else have
            if _row_text(want) != _row_text(have):
                raise _Diverged(
                    f"{pwhere}: the block's {name} in the transcript is {_row_text(have)[:160]}, the re-run's is "
                    f"{_row_text(want)[:160]}"
                )

    def event(self, e: dict[str, Any], recorded: dict[str, Any] | None = None) -> None:
        """Apply one transcript entry (replies run, failed calls advance, resumes restart) and
        check the entries that record what a reply's code did (``block``, the next ``user``);
        ``recorded``: for an ``llm`` entry, the ``block`` entry the transcript records for its
        code (``None``: none), which bounds the re-run's time (:meth:`_budget_block`)."""
        from pibench_tui.harness import defaults
        from pibench_tui.harness.codeblock import find_code

        ev = e.get("event")
        where = f"month {e.get('month')} turn {e.get('turn')}"
        if ev == "block":
            self._block(e, where)
            return
        if self.pending is not None:
            raise _Diverged(f"{self.pending[0]}: the reply's code ran, but the transcript records no block for it")
        if ev == "system" and e.get("content") != self.core.system_prompt:
            raise _Diverged(
                "the system prompt in the transcript is not the one this career's config and settings make "
                "(a transcript of another career?)"
            )
        if ev == "user" and e.get("turn") == 0:
            self._month_message(e, where)
        if ev == "user" and self.answer is not None:
            month, turn, text = self.answer
            self.answer = None
            if (e.get("month"), e.get("turn")) == (month, turn) and e.get("content") != text:
                raise _Diverged(f"{where}: the output shown to the model in the transcript is not the re-run's")
        if ev == "llm":
            if "reply_chars" in e:
                raise _Diverged(f"{where}: the reply was cut in the transcript (longer than it keeps); not checkable")
            if self.core.world.finished:
                raise _Diverged(f"{where}: a reply after the career's end")
            if (e.get("month"), e.get("turn")) != (self.core.month, self.core.turn + 1):
                raise _Diverged(
                    f"{where}: the re-run is at month {self.core.month} turn {self.core.turn + 1} (a turn of the "
                    "transcript is missing, added or renumbered)"
                )
            limit, bound = self._budget_block(recorded, where)
            obs, _r, _t, _u, info = self.core.step(find_code(str(e.get("reply") or "")).code or "")
            if bound == "budget" and "timeout" in info["integrity"]:
                raise _Exhausted  # stopped by the budget, not by its own time-out: not checked
            if bound == "recorded" and "timeout" in info["integrity"]:
                secs = _recorded_seconds(recorded)
                said = (
                    f"the transcript records it finished in {secs:g} s"
                    if recorded is not None
                    else "the transcript records no block for the reply"
                )
                raise _Diverged(
                    f"{where}: the re-run block was still running after {limit:g} s and was stopped; {said} (a "
                    f"check gives a block {defaults.CHECK_SLOWDOWN:g} times its recorded seconds plus "
                    f"{defaults.CHECK_MARGIN:g} s)"
                )
            self.blocks += 1
            self.compare(where)
            self.answer = None
            if info["code_ran"]:
                self.kinds.update(str(k) for k in info["integrity"])
                result = self.core.last_result
                self.pending = (where, {**info, "ok": bool(info["ok"]), "restarted": bool(result and result.restarted)})
                if not info["advanced"] and "timeout" not in info["integrity"]:
                    self.answer = (e.get("month"), e.get("turn"), obs)
        elif ev == "llm_failed" or (ev == "auto_advance" and e.get("reason") == "llm_failures_exhausted"):
            self.core.advance()
            self.compare(where)
        elif ev == "resume":
            closed = self.core.closed_months[-1] if self.core.closed_months else None
            self.core.reset(options={"world": self.core.world, "last_close": closed})
            self._given_seeds()

    def _month_message(self, e: dict[str, Any], where: str) -> None:
        """A month's opening ``user`` entry is what the model was shown of the world: it must be
        the month message of the re-run world at that point (a transcript copied from another
        seed's career re-runs cleanly when its code prints nothing of the world, but its
        conversation was about another world, and its tokens are that career's)."""
        if self.core.world.finished or e.get("month") != self.core.month:
            raise _Diverged(
                f"{where}: the transcript opens month {str(e.get('month'))[:20]} where the re-run is at month "
                f"{self.core.month} (a month of the transcript is missing, added or renumbered)"
            )
        if e.get("content") != self.core.observation():
            raise _Diverged(
                f"{where}: the month message in the transcript is not the one the re-run world shows (a "
                "transcript of another career?)"
            )

    def _budget_block(self, recorded: dict[str, Any] | None, where: str) -> tuple[float, str]:
        """Set the next block's time-out in the re-run, from what the transcript records of it,
        and say which bound it is: ``(seconds, "own" | "recorded" | "budget")``.

        * Recorded as stopped at a time-out: the career's own time-out (an honest re-run is
          stopped there too); the limit the entry names must be that time-out (else
          :class:`_Diverged`), and when less of the budget is left the check ends at once
          (:class:`_Exhausted`: the block would spend the rest for nothing).
        * Recorded as finished in ``seconds``: at most ``CHECK_SLOWDOWN × seconds +
          CHECK_MARGIN`` (``"recorded"``: still running there is a divergence), never more than
          the career's time-out; no block entry for the reply counts as 0 s.
        * Either way never more than what is left of the budget (``"budget"``); nothing left:
          :class:`_Exhausted`.
        """
        from pibench_tui.harness import defaults

        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise _Exhausted
        own = self.block_timeout
        kinds = recorded.get("integrity") if isinstance(recorded, dict) else None
        if isinstance(kinds, list) and "timeout" in kinds:
            error = recorded.get("error") if isinstance(recorded, dict) else None
            named = _TIMEOUT_LIMIT.search(str(error.get("message") or "")) if isinstance(error, dict) else None
            if named is not None and named.group(1) != f"{own:g}":
                raise _Diverged(
                    f"{where}: the transcript records the block stopped at a time-out of {named.group(1)[:20]} s, "
                    f"but the career's block time-out (result.json harness.block_timeout) is {own:g} s"
                )
            if remaining < own:
                raise _Exhausted(
                    f"{where}: the transcript records the block stopped at its {own:g} s time-out, more than the "
                    f"{remaining:.0f} s left of"
                )
            limit, bound = own, "own"
        else:
            secs = 0.0 if recorded is None else _recorded_seconds(recorded)
            slow = own if secs is None else secs * defaults.CHECK_SLOWDOWN + defaults.CHECK_MARGIN
            limit, bound = (own, "own") if own <= slow else (slow, "recorded")
            if remaining < limit:
                limit, bound = remaining, "budget"
        sandbox = self.core.sandbox
        if sandbox is not None:
            sandbox.block_timeout = limit
        return limit, bound

    def finish(self) -> None:
        """The transcript's end: the last reply's block must have been recorded."""
        if self.pending is not None:
            raise _Diverged(f"{self.pending[0]}: the reply's code ran, but the transcript records no block for it")


def _stated_block_timeout(prompt: str) -> float | None:
    """The block time-out a system prompt states, in seconds, read by the sentence this
    pibench writes (:data:`~pibench_tui.harness.prompt.CODING_TIPS`' ``{timeout:g} s per
    block``); ``None`` when it states none that way (another version's wording)."""
    from pibench_tui.harness.prompt import CODING_TIPS

    tail = CODING_TIPS.split("{timeout:g}", 1)[1].split(".", 1)[0]
    found = re.findall(r"(?<![0-9.])([0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)" + re.escape(tail), prompt)
    return float(found[-1]) if found else None


def _prompt_contradiction(
    transcript: list[Any], settings: dict[str, Any], harness: dict[str, Any], recorded_timeout: Any
) -> str | None:
    """What in a run's own records contradicts its block time-out, or ``None``: the system
    prompt the transcript records must be the one its start entry and ``result.json`` name
    (``prompt_sha256``, where recorded), and the block time-out it states must be
    ``result.json``'s ``harness.block_timeout``. A time-out edited in ``result.json`` (and in
    a block entry's message) to one the check's budget cannot wait out made the career
    unverified instead of invalid (issue 25; the prompt the model was shown still said 20 s)."""
    system = next((e for e in transcript if isinstance(e, dict) and e.get("event") == "system"), None)
    prompt = system.get("content") if isinstance(system, dict) else None
    if not isinstance(prompt, str):
        return None
    digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
    for where, named in (("the transcript's start entry", settings), ("result.json's harness", harness)):
        recorded = named.get("prompt_sha256")
        if isinstance(recorded, str) and recorded != digest:
            return (
                f"the system prompt transcript.jsonl records (sha256 {digest[:12]}) is not the one {where} names "
                f"(prompt_sha256 {recorded[:12]}): a record was edited"
            )
    stated = _stated_block_timeout(prompt)
    if (
        stated is not None
        and isinstance(recorded_timeout, (int, float))
        and not isinstance(recorded_timeout, bool)
        and float(recorded_timeout) != stated
    ):
        return (
            f"result.json's block time-out ({recorded_timeout:g} s, harness.block_timeout) is not the {stated:g} s "
            "the career's system prompt (transcript.jsonl) states: a record was edited"
        )
    return None


def _block_entry_after(transcript: list[Any], i: int) -> dict[str, Any] | None:
    """The ``block`` entry the transcript records for the reply at index ``i`` (the first
    before the next reply), or ``None``."""
    for e in transcript[i + 1 :]:
        if isinstance(e, dict):
            if e.get("event") == "block":
                return e
            if e.get("event") == "llm":
                return None
    return None


def check_transcript(
    path: str | Path, res: dict[str, Any], seed: int, config: Any, *, budget: float | None = None
) -> dict[str, Any]:
    """Confirm that the action log and the integrity record come from the transcript: the
    recorded replies' code blocks are re-run, in order, in a fresh agent process against a
    world replayed from ``seed`` and ``config`` (failed LLM calls and resumes as recorded);
    they must make exactly the calls of ``actions.jsonl``, and each ``block`` entry must
    record what the re-run observed of its block: the same integrity incidents (protocol
    violations, refusals, time-outs, output floods), ok, error, restart and output, and the
    output shown to the model (the next ``user`` entry) must be the re-run's. The
    conversation must be this career's: the start entry's seed and seed commitment are
    ``res``'s, the ``system`` entry is the prompt the recorded config and settings make, and
    each month's opening ``user`` entry is the month message of the re-run world (a
    transcript copied from another seed's career). A log pasted
    from another career (the hidden-state oracle's), an entry edited by hand (incidents
    blanked to hide a flag) or a block entry removed fails at its first divergence, which is
    named. The career's integrity flags after a check are the re-run's (``integrity``).

    Time: a block the transcript records as stopped at a time-out gets ``result.json``'s block
    time-out, which must be no more than the harness allows (:func:`check_block_timeout`;
    more is invalid: no run records it) and the limit the entry names; a block recorded as
    finished in ``seconds`` gets at most ``CHECK_SLOWDOWN × seconds + CHECK_MARGIN``
    (:mod:`pibench_tui.harness.defaults`) and is a divergence when still running then (a
    run's own claims cannot spend the budget). The whole check gets at most ``budget``
    seconds of wall clock (default :data:`~pibench_tui.harness.defaults.CHECK_BUDGET`): a
    block gets what is left (a recorded time-out longer than that is not started), and a
    check the budget cuts short is neither valid nor invalid: ``unchecked`` is true and the
    message says ``log unchecked (budget exhausted after N of M blocks)``
    (:func:`budget_exhausted_text`; a block stopped by the budget is not counted); the report
    keeps such a career out of every figure as unverified.

    Agent code must be deterministic for this to hold (:data:`NONDETERMINISM_NOTE`): a
    divergence says so. A sealed career's agent ``random`` gets the seeds ``result.json``
    recorded for it (``agent_random_seeds``). Not checkable: the model's replies themselves
    (a reply removed with its block and the later turns renumbered is another, consistent
    transcript).

    Returns:
        ``{"valid": bool, "unchecked": bool, "message": str, "blocks": int, "of": int,
        "integrity": {kind: count}, "block_timeout": float}``; ``blocks`` of ``of`` recorded
        replies were re-run; ``integrity`` holds the incidents the re-run observed (up to the
        divergence, when there is one).
    """
    from pibench_tui.harness import defaults
    from pibench_tui.harness.core import LabCore

    path = Path(path)
    started = time.monotonic()
    budget = defaults.CHECK_BUDGET if budget is None else float(budget)
    harness: dict[str, Any] = res["harness"] if isinstance(res.get("harness"), dict) else {}
    recorded_timeout = harness.get("block_timeout")
    timeout, timeout_note = check_block_timeout(recorded_timeout)
    base: dict[str, Any] = {
        "valid": False,
        "unchecked": False,
        "blocks": 0,
        "of": 0,
        "integrity": {},
        "block_timeout": timeout,
    }
    try:
        transcript = read_jsonl(path / "transcript.jsonl", strict=True)
        logged = read_action_log(path)
    except (OSError, ValueError) as exc:
        return {**base, "message": str(exc)}
    if timeout_note and isinstance(recorded_timeout, (int, float)) and recorded_timeout > 0:
        return {**base, "message": timeout_note}  # more than the harness allows: no run records it
    start = next((e for e in transcript if isinstance(e, dict) and e.get("event") == "start"), None)
    if start is None:
        return {**base, "message": "transcript.jsonl has no start entry"}
    for field, name in (("seed", "seed"), ("seed_commitment", "seed commitment")):
        if _row_text(start.get(field)) != _row_text(res.get(field)):
            return {
                **base,
                "message": f"the transcript's start entry records {name} {_row_text(start.get(field))[:80]}, "
                f"result.json {name} {_row_text(res.get(field))[:80]}: it is another career's transcript",
            }
    settings: dict[str, Any] = start["settings"] if isinstance(start.get("settings"), dict) else {}
    contradiction = _prompt_contradiction(transcript, settings, harness, recorded_timeout)
    if contradiction is not None:
        return {**base, "message": contradiction}
    base["of"] = sum(1 for e in transcript if isinstance(e, dict) and e.get("event") == "llm")
    sealed = bool(res.get("seed_commitment"))
    seeds = res.get("agent_random_seeds")
    core = LabCore(
        config,
        seed=seed,
        max_turns=int(settings.get("max_turns") or 8),
        memory=bool(settings.get("memory", True)),
        block_timeout=timeout,
        sealed=sealed,
    )
    run = _TranscriptRun(
        core,
        logged,
        [int(s) for s in seeds if isinstance(s, int)] if sealed and isinstance(seeds, list) else None,
        block_timeout=timeout,
        deadline=started + budget,
    )
    note = f"; {timeout_note}" if timeout_note else ""
    try:
        core.reset(seed=seed)
        run._given_seeds()
        for i, e in enumerate(transcript):
            if isinstance(e, dict):
                run.event(e, _block_entry_after(transcript, i) if e.get("event") == "llm" else None)
        run.finish()
        run.compare("at the end")
        if run.checked != len(run.logged):
            raise _Diverged(
                f"the re-run code made {count(run.checked, 'call')}, actions.jsonl holds {len(run.logged)}: the next logged "
                f"call {run.logged[run.checked][:200]} was never made"
            )
    except _Exhausted as exc:
        why = (
            f"{exc} the transcript check's budget of {budget:g} s (--check-budget), so it was not started"
            if str(exc)
            else f"the transcript check's budget of {budget:g} s (--check-budget) was spent before every recorded block was re-run"
        )
        return {
            **base,
            "unchecked": True,
            "message": f"{budget_exhausted_text(run.blocks, base['of'])}: {why}{note}",
            "blocks": run.blocks,
        }
    except _Diverged as exc:
        return {
            **base,
            "message": f"{exc} (note: {NONDETERMINISM_NOTE}){note}",
            "blocks": run.blocks,
            "integrity": dict(sorted(run.kinds.items())),
        }
    except Exception as exc:  # noqa: BLE001 - CareerOver, ActionError, SandboxStartError: named, never raised
        return {
            **base,
            "message": f"the transcript cannot be re-run: {type(exc).__name__}: {exc}{note}",
            "blocks": run.blocks,
            "integrity": dict(sorted(run.kinds.items())),
        }
    finally:
        core.close()
    return {
        **base,
        "valid": True,
        "message": f"the {run.blocks} recorded replies make exactly the {run.checked} logged calls and the recorded "
        f"block results and integrity incidents ({sum(run.kinds.values())}){note}",
        "blocks": run.blocks,
        "integrity": dict(sorted(run.kinds.items())),
    }
