"""``pibench agent``: an LLM plays careers under the §16 contract (Decisions 11).

A thin loop over :class:`~pibench_tui.harness.core.LabCore` (the environment behind
``pibench/Lab-v0``): every month a fresh conversation (system prompt + the month
message); each reply's first fenced block is the turn's action; the observation is the
next user message; the month closes when the agent calls ``time.next_month()``, after the
last turn, or at once when the LLM call fails for good; after
:data:`MAX_FAILED_CALLS` failed calls the rest of the career advances without the LLM.

Everything is written to the run directory as it happens (:mod:`pibench_tui.harness.rundir`);
a checkpoint at every month boundary lets the same command resume a killed run at the last
completed month.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pibench_tui.harness.backends import Backend, Completion, LLMCallFailed
from pibench_tui.harness.codeblock import find_code
from pibench_tui.harness.core import DEFAULT_BLOCK_TIMEOUT, DEFAULT_MAX_TURNS, LabCore, harness_system_prompt
from pibench_tui.harness.integrity import IntegrityLog
from pibench_tui.harness.prompt import nudge_text
from pibench_tui.harness.rundir import (
    RUN_FORMAT,
    JsonlFile,
    RunDirBusy,
    RunDirLock,
    atomic_write_json,
    atomic_write_text,
    career_dir,
    read_json,
    read_jsonl,
)
from pibench_tui.textsafe import clean, visible
from pibench_tui.words import count, noun

__all__ = [
    "MAX_FAILED_CALLS",
    "AgentSettings",
    "CareerInterrupted",
    "RunConflict",
    "git_commit",
    "never_answered",
    "provenance",
    "run_career",
    "run_careers",
    "set_aside_failed",
    "settings_hash",
]

#: Failed LLM calls after which the rest of the career auto-advances (MECHANICS §16).
MAX_FAILED_CALLS = 8
#: LLM errors kept verbatim in ``result.json`` (all are in the transcript).
MAX_ERRORS_KEPT = 50
#: Characters of one reply, or of one block's code, kept in ``transcript.jsonl``; past it the
#: start is kept with the whole text's length and SHA-256 (a 2 MB reply every turn would
#: otherwise grow a 60-month transcript towards a gigabyte).
MAX_TRANSCRIPT_TEXT = 64_000
#: Provider request ids kept in ``result.json`` (every one is in the transcript).
MAX_REQUEST_IDS = 1_000


def transcript_text(key: str, text: str | None) -> dict[str, Any]:
    """``{key: text}`` for the transcript, or, when ``text`` is longer than
    :data:`MAX_TRANSCRIPT_TEXT` characters, its start with ``{key}_chars`` (the whole
    length) and ``{key}_sha256`` (of its UTF-8)."""
    if text is None or len(text) <= MAX_TRANSCRIPT_TEXT:
        return {key: text}
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return {key: text[:MAX_TRANSCRIPT_TEXT], f"{key}_chars": len(text), f"{key}_sha256": digest}


CHECKPOINT_FORMAT = "pibench-agent-checkpoint/2"


class RunConflict(Exception):
    """The run directory holds a run started with other settings."""


class CareerInterrupted(Exception):
    """The career was stopped (Ctrl-C); the same command resumes it."""


@dataclass(frozen=True)
class AgentSettings:
    """What ``pibench agent`` was told (recorded in ``result.json`` and checked on resume).

    Attributes:
        model: Model name (as sent to the endpoint, and shown in reports).
        label: Run label (the run directory's first level; default the model name).
        scenario: Scenario name (for the run directory and reports).
        config: The scenario's ``WorldConfig``.
        max_turns: Code turns per month (§16: 8).
        temperature: Sampling temperature (§16: 0.4).
        max_tokens: Output tokens per reply (§16: 4,000).
        memory: ``False``: memory writes are no-ops (the §16 ablation).
        block_timeout: Wall-clock limit per block, in seconds (§16: 20).
        request: Request options that change what the model is asked
            (``max_completion_tokens``, ``no_temperature``, ``reasoning_effort``,
            ``extra_body``, ``headers``: names, and values unless secret); empty by default.
        allow_incomplete_confinement: Play sealed seeds even when an agent process proves
            its OS confinement incomplete (``--allow-incomplete-confinement``; not part of
            the fingerprint: the run records what each process proved).
        endpoint: Which endpoint answers
            (:func:`~pibench_tui.harness.backends.endpoint_setting`: scheme, host, port, path
            and query of the base URL, secrets redacted, no user information); ``None`` for a
            command backend. Part of the fingerprint: another endpoint is another configuration.
    """

    model: str
    label: str
    scenario: str
    config: Any
    max_turns: int = DEFAULT_MAX_TURNS
    temperature: float = 0.4
    max_tokens: int = 4000
    memory: bool = True
    block_timeout: float = DEFAULT_BLOCK_TIMEOUT
    request: dict[str, Any] = field(default_factory=dict)
    allow_incomplete_confinement: bool = False
    endpoint: str | None = None

    def __post_init__(self) -> None:
        for name in ("model", "label", "scenario"):  # written into run directories: always UTF-8
            object.__setattr__(self, name, clean(getattr(self, name)))

    @functools.cached_property
    def shown_scenario(self) -> str:
        """The scenario as the command's lines name it (:func:`scenarios.scenario_title`:
        ``standard (modified ad3657df)`` for an edited copy of standard.toml); the run
        directory and ``result.json`` keep :attr:`scenario` beside its ``config_hash``."""
        from scenarios import scenario_title

        return scenario_title(self.scenario, self.config)

    @functools.cached_property
    def system_prompt(self) -> str:
        """The system prompt every call of these settings sends (byte-stable)."""
        return harness_system_prompt(self.config, max_turns=self.max_turns, block_timeout=self.block_timeout)

    def fingerprint(self) -> dict[str, Any]:
        """The settings that must match for a resume, and for a finished career to be
        reused (the config and the system prompt by their SHA-256; ``request``: the
        request options that change what the model is asked, when any is set)."""
        fp: dict[str, Any] = {
            "model": self.model,
            "scenario": self.scenario,
            "config_sha256": self.config.content_hash(),
            "max_turns": self.max_turns,
            # none when none is sent (--no-temperature): a recorded 0.4 was shown in reports
            "temperature": None if self.request.get("no_temperature") else self.temperature,
            "max_tokens": self.max_tokens,
            "memory": self.memory,
            "prompt_sha256": hashlib.sha256(self.system_prompt.encode("utf-8")).hexdigest(),
            "endpoint": self.endpoint,
        }
        if self.request:
            fp["request"] = dict(sorted(self.request.items()))
        return fp

    def settings_hash(self) -> str:
        """SHA-256 of :meth:`fingerprint` (canonical JSON): one value per configuration,
        recorded in ``result.json`` as ``settings_sha256`` (the report's label split)."""
        return settings_hash(self.fingerprint())

    def differences(self, recorded: Any) -> list[str]:
        """How ``recorded`` (a checkpoint's ``settings`` or a result's ``harness``) differs
        from these settings, one ``"key: 'there' there, 'now' now"`` each (empty: the same).
        Keys a run of an older pibench did not record (:data:`ADDED_SETTINGS`) are not
        compared; a missing or malformed record differs in everything. ``request`` is
        compared both ways: absent (no request option) differs from any option present,
        whichever side has it (before, a finished career played without options was reused
        "already complete" by a command that had them). A record without ``endpoint`` (an
        earlier pibench) is compared by the endpoint its ``backend`` names (:func:`with_endpoint`)."""
        theirs = with_endpoint(recorded) if isinstance(recorded, dict) else {}
        mine = self.fingerprint()
        keys = [
            k
            for k in sorted(set(mine) | {"request"})
            if not (k in ADDED_SETTINGS and k not in theirs and theirs) and theirs.get(k) != mine.get(k)
        ]
        out = [f"{k}: {theirs.get(k)!r} there, {mine.get(k)!r} now" for k in keys if k != "prompt_sha256"]
        if "prompt_sha256" not in keys:
            return out
        # The system prompt states --max-turns and --block-timeout: a block time-out of its own
        # is named with both values, not as two prompt hashes (QA7 F15).
        block = theirs.get("block_timeout")
        if isinstance(block, (int, float)) and not isinstance(block, bool) and block != self.block_timeout:
            out.append(f"block timeout: {block:g} s there, {self.block_timeout:g} s now (--block-timeout)")
            try:
                same = dataclasses.replace(self, block_timeout=float(block)).fingerprint()["prompt_sha256"]
            except (TypeError, ValueError, OverflowError):
                same = None
            if same == theirs.get("prompt_sha256"):
                return out  # the block time-out is all that changed the system prompt
        there, now = theirs.get("prompt_sha256"), mine.get("prompt_sha256")
        out.append(
            f"system prompt: sha256 {str(there)[:12]!r} there, {str(now)[:12]!r} now (it states the scenario's "
            "rules, --max-turns and --block-timeout; another pibench version may word it otherwise)"
        )
        return out


#: Settings a run directory of an earlier pibench did not record (not compared when absent).
#: Not ``request``: a record without it was played without request options (the fingerprint
#: leaves it out when none is set), which differs from a command that sets one.
ADDED_SETTINGS = frozenset({"prompt_sha256", "endpoint"})


def with_endpoint(recorded: dict[str, Any]) -> dict[str, Any]:
    """``recorded`` (a result's ``harness``, a checkpoint's ``settings``) with its ``endpoint``
    filled in when an earlier pibench did not record one but its ``backend`` says where the
    replies came from (an ``openai`` backend's ``base_url``: :func:`~pibench_tui.harness.
    backends.endpoint_setting`; a ``command`` backend: ``None``). Unchanged otherwise (a
    checkpoint of an earlier pibench names no backend in its settings: not compared)."""
    backend = recorded.get("backend")
    if "endpoint" in recorded or not isinstance(backend, dict):
        return recorded
    from pibench_tui.harness.backends import endpoint_setting

    kind, url = backend.get("backend"), backend.get("base_url")
    if kind == "command":
        return {**recorded, "endpoint": None}
    if kind == "openai" and (url is None or isinstance(url, str)):
        return {**recorded, "endpoint": endpoint_setting(url)}
    return recorded


def settings_hash(fingerprint: dict[str, Any]) -> str:
    """SHA-256 hex of a settings fingerprint as canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(fingerprint, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class _Meter:
    """Counters of one career (kept in the checkpoint)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    usage_missing: int = 0
    calls: int = 0
    failed_calls: int = 0
    attempts: int = 0
    llm_seconds: float = 0.0
    turns: int = 0
    blocks: int = 0
    nudges: int = 0
    auto_advances: dict[str, int] = field(
        default_factory=lambda: {"turns_exhausted": 0, "llm_failed": 0, "llm_failures_exhausted": 0}
    )
    errors: list[dict[str, Any]] = field(default_factory=list)
    tokens_by_month: list[dict[str, Any]] = field(default_factory=list)
    wall_s: float = 0.0
    resumes: list[dict[str, Any]] = field(default_factory=list)
    month_tokens: dict[str, Any] = field(default_factory=dict)
    agent_random_seeds: list[int] = field(default_factory=list)
    reasoning_tokens: int | None = None
    cached_prompt_tokens: int | None = None
    model_ids: dict[str, int] = field(default_factory=dict)
    request_ids: list[str] = field(default_factory=list)
    lost_prompt_tokens: int = 0
    lost_completion_tokens: int = 0
    timed_out_requests: int = 0
    timed_out_prompt_estimate: int = 0
    in_flight_requests: int = 0
    in_flight_prompt_estimate: int = 0

    def take(self, comp: Any) -> None:
        """Count a completion's provenance: the model id the provider returned, its request
        id (the first :data:`MAX_REQUEST_IDS`), reasoning and cached prompt tokens."""
        if comp.model_id:
            self.model_ids[comp.model_id] = self.model_ids.get(comp.model_id, 0) + 1
        if comp.request_id and len(self.request_ids) < MAX_REQUEST_IDS:
            self.request_ids.append(comp.request_id)
        if comp.reasoning_tokens is not None:
            self.reasoning_tokens = (self.reasoning_tokens or 0) + comp.reasoning_tokens
        if comp.cached_tokens is not None:
            self.cached_prompt_tokens = (self.cached_prompt_tokens or 0) + comp.cached_tokens

    def timed_out(self, errors: list[dict[str, Any]], messages: list[dict[str, str]]) -> None:
        """Count the attempts among ``errors`` abandoned at a time-out (no usage comes back):
        each sent ``messages``, estimated at their characters / 4 prompt tokens."""
        n = sum(1 for e in errors if isinstance(e, dict) and e.get("kind") == "timeout")
        if n:
            from pibench_tui.harness.limits import estimate_tokens

            self.timed_out_requests += n
            self.timed_out_prompt_estimate += n * estimate_tokens(messages)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> _Meter:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def _version() -> str:
    from pibench_tui import __version__

    return __version__


@functools.lru_cache(maxsize=1)
def git_commit() -> str | None:
    """The git commit of the pibench source tree running, when it is a git checkout
    (``None`` otherwise: an installed wheel, or no ``git``); ``+dirty`` appended when
    tracked files differ from it."""
    import shutil
    import subprocess

    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists() or shutil.which("git") is None:
        return None
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (head + ("+dirty" if dirty else "")) or None


def provenance(settings: AgentSettings) -> dict[str, Any]:
    """What produced a career: pibench's version, the git commit when known, the system
    prompt's SHA-256 and the settings hash (``result.json["provenance"]``)."""
    fp = settings.fingerprint()
    return {
        "pibench_version": _version(),
        "git_commit": git_commit(),
        "system_prompt_sha256": fp["prompt_sha256"],
        "settings_sha256": settings_hash(fp),
    }


class _Career:
    """One career in its run directory (see :func:`run_career`)."""

    def __init__(
        self,
        settings: AgentSettings,
        backend: Backend,
        seed: int,
        path: Path,
        log: Callable[[str], None],
        stop: threading.Event | None,
        commitment: str | None = None,
        on_month: Callable[[int, int], None] | None = None,
    ) -> None:
        self.settings = settings
        #: The model's price (``pibench_tui.pricing.Price``): ``result.json`` records ``cost_usd``.
        self.price: Any = None
        #: SHA-256 of the plan file's text (``--plan``), recorded in ``result.json`` as ``plan``.
        self.plan_sha256: str | None = None
        #: Told ``(months completed, months of the career)`` as months close (progress displays).
        self.on_month = on_month
        self.backend = backend
        self.seed = seed
        #: The sealed seed's public commitment (``None``: a public seed).
        self.commitment = commitment
        self.path = path
        self.log = log
        self.stop = stop
        self.meter = _Meter()
        self.core = LabCore(
            settings.config,
            seed=seed,
            max_turns=settings.max_turns,
            memory=settings.memory,
            block_timeout=settings.block_timeout,
            sealed=commitment is not None,
            require_confinement=commitment is not None and not settings.allow_incomplete_confinement,
        )
        self.transcript = JsonlFile(path / "transcript.jsonl")
        self.months = JsonlFile(path / "months.jsonl")
        self.actions = JsonlFile(path / "actions.jsonl")
        self.started = time.monotonic()
        self._random_before: list[int] = []  # agent random seeds of earlier sessions (resumes)

    # ------------------------------------------------------------------ start / resume
    def open(self) -> None:
        ckpt_path = self.path / "checkpoint.json"
        if ckpt_path.exists():
            self._resume(read_json(ckpt_path))
            return
        lost = self.transcript.truncate(0)
        self.months.truncate(0)
        self.actions.truncate(0)
        self.core.reset(seed=self.seed)
        if lost:
            self._note_resume(1, lost, "no month had been completed")
        self.transcript.append(
            {
                "event": "start",
                "model": self.settings.model,
                "seed": self._public_seed(),
                "seed_commitment": self.commitment,
                "settings": self.settings.fingerprint(),
                "backend": self.backend.describe(),
                "pibench_version": _version(),
                "provenance": provenance(self.settings),
            }
        )
        self.transcript.append({"event": "system", "content": self.core.system_prompt})
        self._checkpoint()

    def _resume(self, ckpt: dict[str, Any]) -> None:
        if ckpt.get("format") != CHECKPOINT_FORMAT:
            raise RunConflict(f"{self.path}/checkpoint.json: not a checkpoint of this pibench ({ckpt.get('format')!r})")
        diff = self.settings.differences(ckpt.get("settings"))
        if diff:
            raise RunConflict(
                f"{self.path} holds a run started with other settings ({'; '.join(diff)}); "
                "use another --out or --label, or the original settings to resume it"
            )
        counts = ckpt["lines"]
        lost = self.transcript.truncate(counts["transcript"])
        self.months.truncate(counts["months"])
        self.actions.truncate(counts["actions"])
        world = self._rebuild_world(ckpt)
        self.core.reset(seed=self.seed, options={"world": world, "last_close": ckpt.get("last_close")})
        self.core.integrity = IntegrityLog.from_dict(ckpt.get("integrity", {}))
        self.meter = _Meter.from_dict(ckpt.get("meter", {}))
        self._random_before = list(self.meter.agent_random_seeds)
        if ckpt.get("seed_commitment") != self.commitment:
            raise RunConflict(f"{self.path} holds a run of another seed commitment; the run is damaged")
        self._note_resume(self.core.month, lost, None)

    def _rebuild_world(self, ckpt: dict[str, Any]) -> Any:
        """The world at the checkpoint: the action log replayed (deterministic), the notes restored."""
        from world.api import replay
        from world.errors import ActionError

        rows = [list(r) for r in read_jsonl(self.path / "actions.jsonl")]
        try:
            world = replay(dataclasses.replace(self.settings.config), self.seed, rows)
        except (ActionError, ValueError, TypeError, KeyError) as exc:
            raise RunConflict(f"{self.path}: actions.jsonl does not replay ({exc}); the run is damaged") from None
        world.s.memory = str(ckpt.get("memory") or "")
        if world.month != ckpt.get("month") or round(world.s.budget, 2) != ckpt.get("budget"):
            raise RunConflict(
                f"{self.path}: actions.jsonl replays to month {world.month}, budget {world.s.budget:,.2f}, not the "
                f"checkpoint's month {ckpt.get('month')}, budget {ckpt.get('budget')}; the run is damaged"
            )
        return world

    def _note_resume(self, month: int, lost: list[dict[str, Any]], why: str | None) -> None:
        turns = sum(1 for e in lost if e.get("event") == "llm")
        ptok = sum(int(e.get("prompt_tokens") or 0) for e in lost if e.get("event") == "llm")
        ctok = sum(int(e.get("completion_tokens") or 0) for e in lost if e.get("event") == "llm")
        note = {
            "event": "resume",
            "month": month,
            "lost_turns": turns,
            "lost_prompt_tokens": ptok,
            "lost_completion_tokens": ctok,
            "lost": (
                f"the turns of month {month} played before the interruption (replayed from the month's start) "
                "and the agent's Python variables and functions; the world and the notes are as at the end of "
                f"month {month - 1}"
                if month > 1
                else "the turns played before the interruption"
            ),
        }
        if why:
            note["why"] = why
        in_flight = self._count_in_flight()
        if in_flight is not None:
            note["in_flight"] = {**in_flight, "note": IN_FLIGHT_NOTE}
        self.meter.lost_prompt_tokens += ptok
        self.meter.lost_completion_tokens += ctok
        self.meter.resumes.append({k: v for k, v in note.items() if k != "event"})
        self.transcript.append(note)
        self.log(
            f"resuming at month {month}: lost {count(turns, 'turn')} of that month and the agent's Python variables"
        )

    def _confinement(self) -> dict[str, Any]:
        """What this session's agent processes proved of their OS confinement
        (``Sandbox.proved``; ``Confinement.to_dict()``): never pibench's own forecast, so
        before any agent process answered, nothing is proved (incomplete, said in its notes)."""
        from pibench_tui.sandbox import Confinement

        sandbox = self.core.sandbox
        proved = sandbox.proved if sandbox is not None else None
        return (proved or Confinement.from_dict(None)).to_dict()

    def _worker_confinement(self) -> dict[str, Any] | None:
        """What the career's query worker proved of its OS confinement
        (``world.sqlworker.confine_worker``'s report), ``None`` when no query ran."""
        career = self.core.career
        return None if career is None else career.observer.worker_confinement()

    def _public_seed(self) -> int | None:
        """The seed as the run directory may show it: ``None`` while sealed."""
        return None if self.commitment is not None else self.seed

    def _note_random_seeds(self) -> None:
        """Record every seed given to the agent's ``random`` (secret entropy when sealed)
        for the evaluator: in the checkpoint and ``result.json``, never in the transcript."""
        sandbox = self.core.sandbox
        now = list(sandbox.random_seeds) if sandbox is not None else []
        self.meter.agent_random_seeds = self._random_before + now

    # ------------------------------------------------------------------ checkpoint
    def _checkpoint(self) -> None:
        for f in (self.transcript, self.months, self.actions):
            f.sync()
        self._note_random_seeds()
        w = self.core.world
        self.meter.wall_s += time.monotonic() - self.started
        self.started = time.monotonic()
        integrity = self.core.integrity.to_dict()
        # Copies for people reading the folder; the checkpoint holds both durably.
        atomic_write_text(self.path / "memory.txt", w.s.memory, durable=False)
        atomic_write_json(
            self.path / "integrity.json",
            {**integrity, "confinement": self._confinement(), "query_worker_confinement": self._worker_confinement()},
            durable=False,
        )
        atomic_write_json(
            self.path / "checkpoint.json",
            {
                "format": CHECKPOINT_FORMAT,
                # the block time-out beside the fingerprint (not part of it): a resume with another
                # one is refused naming it, not only by the system prompt's hash
                "settings": {**self.settings.fingerprint(), "block_timeout": self.settings.block_timeout},
                "seed_commitment": self.commitment,
                "month": w.month,
                "budget": round(w.s.budget, 2),
                "memory": w.s.memory,
                "lines": {
                    "transcript": self.transcript.lines,
                    "months": self.months.lines,
                    "actions": self.actions.lines,
                },
                "last_close": self.core.closed_months[-1] if self.core.closed_months else None,
                "meter": self.meter.to_dict(),
                "integrity": integrity,
            },
            indent=None,
        )

    def _month_closed(self, month: int) -> None:
        """Write the closed month (months.jsonl, new actions, tokens) and checkpoint."""
        w = self.core.world
        for entry in self.core.closed_months[-1:]:
            self.months.append(entry)
        log = w.s.action_log
        for row in log[self.actions.lines :]:
            self.actions.append(row)
        tokens = dict(self.meter.month_tokens) or {"prompt": 0, "completion": 0, "calls": 0}
        tokens["month"] = month
        self.meter.tokens_by_month.append(tokens)
        self.meter.month_tokens = {}
        self.transcript.append(
            {
                "event": "month_closed",
                "month": month,
                "tokens": tokens,
                "citations_earned": self.core.closed_months[-1]["report"].get("citations", {}).get("total")
                if self.core.closed_months
                else None,
            }
        )
        self._checkpoint()
        if self.on_month is not None:
            self.on_month(month, w.cfg.months)
        if month % 12 == 0 and not w.finished:
            rep = self.core.closed_months[-1]["report"] if self.core.closed_months else {}
            cit = (rep.get("citations") or {}).get("total")
            self.log(
                f"month {month}/{w.cfg.months}: budget ${w.s.budget:,.0f}, citations {cit}, "
                f"{count(self.meter.prompt_tokens + self.meter.completion_tokens, 'token')}, "
                f"{count(self.meter.failed_calls, 'failed call')}"
            )

    # ------------------------------------------------------------------ the loop
    def play(self) -> None:
        core = self.core
        while not core.finished:
            if self.stop is not None and self.stop.is_set():
                raise CareerInterrupted("stopped")
            month = core.month
            if self.meter.failed_calls >= MAX_FAILED_CALLS:
                core.advance()
                self.meter.auto_advances["llm_failures_exhausted"] += 1
                self.transcript.append({"event": "auto_advance", "month": month, "reason": "llm_failures_exhausted"})
                self._month_closed(month)
                continue
            self._play_month(month)
            self._month_closed(month)

    def _play_month(self, month: int) -> None:
        """One month's conversation: the observation, then turn by turn the model's reply and
        its block run, until the month advances (by the agent, the turn limit or a failed call)."""
        core = self.core
        obs = core.observation()
        messages = [{"role": "system", "content": core.system_prompt}, {"role": "user", "content": obs}]
        self.transcript.append({"event": "user", "month": month, "turn": 0, "content": obs})
        mt = self.meter.month_tokens
        for key in ("prompt", "completion", "calls"):
            mt.setdefault(key, 0)
        while True:
            if self.stop is not None and self.stop.is_set():
                raise CareerInterrupted("stopped")
            turn = core.turn + 1
            self._request_started(month, turn, messages)
            try:
                comp = self.backend.complete(messages)
            except LLMCallFailed as exc:
                self._request_ended()
                self.meter.timed_out(exc.errors, messages)
                self._llm_failed(month, turn, exc)
                return
            self._request_ended()
            self.meter.timed_out(comp.errors, messages)
            self._count_reply(month, turn, comp)
            obs, advanced = self._run_reply(month, turn, comp)
            if advanced:
                return
            messages.append({"role": "assistant", "content": comp.text})
            messages.append({"role": "user", "content": obs})
            self.transcript.append({"event": "user", "month": month, "turn": turn, "content": obs})

    def _request_started(self, month: int, turn: int, messages: list[dict[str, str]]) -> None:
        """Write :data:`IN_FLIGHT_FILE` before a request is sent (flushed to the OS, not
        fsynced): a kill before its answer leaves it, and the resume counts the request as
        abandoned (:meth:`_count_in_flight`)."""
        from pibench_tui.harness.limits import estimate_tokens

        record = {"month": month, "turn": turn, "prompt_estimate": estimate_tokens(messages)}
        atomic_write_text(self.path / IN_FLIGHT_FILE, json.dumps(record) + "\n", durable=False)

    def _request_ended(self) -> None:
        """The request of :meth:`_request_started` came back (answered or failed)."""
        (self.path / IN_FLIGHT_FILE).unlink(missing_ok=True)

    def _count_in_flight(self) -> dict[str, Any] | None:
        """A request in flight when the last session ended (:data:`IN_FLIGHT_FILE` left by a
        kill): counted as abandoned, its prompt estimated at characters / 4 (the server may
        have received it and billed it; no usage came back; before, it was not counted at
        all while time-outs were). The record, or ``None`` when there was none."""
        marker = self.path / IN_FLIGHT_FILE
        try:
            raw = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            marker.unlink(missing_ok=True)
            return None
        marker.unlink(missing_ok=True)
        est = raw.get("prompt_estimate") if isinstance(raw, dict) else None
        if not isinstance(est, int) or isinstance(est, bool) or not 0 < est <= 100_000_000:
            return None
        self.meter.in_flight_requests += 1
        self.meter.in_flight_prompt_estimate += est
        return {"month": raw.get("month"), "turn": raw.get("turn"), "prompt_estimated": est}

    def _llm_failed(self, month: int, turn: int, exc: LLMCallFailed) -> None:
        """A call that failed after its retries: counted and kept (the first
        ``MAX_ERRORS_KEPT`` errors), and the month advanced without the model."""
        meter = self.meter
        meter.calls += 1
        meter.failed_calls += 1
        meter.attempts += exc.attempts
        meter.llm_seconds += exc.seconds
        meter.month_tokens["calls"] += 1
        err = {
            "month": month,
            "turn": turn,
            "kind": exc.kind,
            "message": exc.message[:500],
            "attempts": exc.attempts,
        }
        if len(meter.errors) < MAX_ERRORS_KEPT:
            meter.errors.append(err)
        self.transcript.append({"event": "llm_failed", **err, "errors": exc.errors, "seconds": round(exc.seconds, 3)})
        self.core.advance()
        meter.auto_advances["llm_failed"] += 1
        self.transcript.append({"event": "auto_advance", "month": month, "reason": "llm_failed"})
        self.log(
            f"month {month}: the LLM call failed ({exc.kind}: {exc.message[:120]}); month advanced "
            f"({meter.failed_calls}/{MAX_FAILED_CALLS} failed calls)"
        )

    def _count_reply(self, month: int, turn: int, comp: Completion) -> None:
        """A reply counted (calls, attempts, seconds, tokens in all and this month, the errors
        its retries met) and written to the transcript."""
        meter, mt = self.meter, self.meter.month_tokens
        meter.calls += 1
        meter.attempts += comp.attempts
        meter.llm_seconds += comp.seconds
        meter.turns += 1
        mt["calls"] += 1
        if comp.prompt_tokens is None and comp.completion_tokens is None:
            meter.usage_missing += 1
        meter.take(comp)
        ptok, ctok = int(comp.prompt_tokens or 0), int(comp.completion_tokens or 0)
        meter.prompt_tokens += ptok
        meter.completion_tokens += ctok
        mt["prompt"] += ptok
        mt["completion"] += ctok
        for e in comp.errors:
            if len(meter.errors) < MAX_ERRORS_KEPT:
                meter.errors.append({"month": month, "turn": turn, "retried": True, **e})
        self.transcript.append(
            {
                "event": "llm",
                "month": month,
                "turn": turn,
                **transcript_text("reply", comp.text),
                "prompt_tokens": comp.prompt_tokens,
                "completion_tokens": comp.completion_tokens,
                "seconds": round(comp.seconds, 3),
                "attempts": comp.attempts,
                "retried_errors": comp.errors,
                "finish_reason": comp.finish_reason,
                "model_id": comp.model_id,
                "request_id": comp.request_id,
                "reasoning_tokens": comp.reasoning_tokens,
                "cached_tokens": comp.cached_tokens,
            }
        )

    def _run_reply(self, month: int, turn: int, comp: Completion) -> tuple[str, bool]:
        """The reply's code block run as one step (or a nudge when it has none), written to the
        transcript: ``(the next observation, whether the month advanced)``."""
        block = find_code(comp.text)
        obs, _reward, _term, _trunc, info = self.core.step(block.code or "")
        if info["code_ran"]:
            res = self.core.last_result
            self.meter.blocks += 1
            self.transcript.append(
                {
                    "event": "block",
                    "month": month,
                    "turn": turn,
                    **transcript_text("code", block.code),
                    "output": info["output"],
                    "ok": info["ok"],
                    "error": info["error"],
                    "seconds": round(res.seconds, 3) if res else None,
                    "calls": res.calls if res else None,
                    "truncated": bool(res.truncated) if res else False,
                    "restarted": bool(res.restarted) if res else False,
                    "integrity": info["integrity"],
                }
            )
        else:
            self.meter.nudges += 1
            if block.unclosed and not info["advanced"]:
                obs = nudge_text(turn, self.core.max_turns, unclosed=True)
            self.transcript.append({"event": "nudge", "month": month, "turn": turn, "unclosed": block.unclosed})
        if info["advanced"] and info["auto_advanced"]:
            self.meter.auto_advances["turns_exhausted"] += 1
            self.transcript.append({"event": "auto_advance", "month": month, "reason": "turns_exhausted"})
        return obs, bool(info["advanced"])

    # ------------------------------------------------------------------ the end
    def finish(self) -> dict[str, Any]:
        from world.axes import capability_axes
        from world.scoring import impact

        w = self.core.world
        self.meter.wall_s += time.monotonic() - self.started
        self.started = time.monotonic()
        self._note_random_seeds()
        atomic_write_json(self.path / "eval.json", {"eval_log": w.s.eval_log, "axes": capability_axes(w)}, indent=None)
        integrity = self.core.integrity.to_dict()
        atomic_write_json(
            self.path / "integrity.json",
            {**integrity, "confinement": self._confinement(), "query_worker_confinement": self._worker_confinement()},
        )
        s = w.summary()
        m = self.meter
        result = {
            "format": RUN_FORMAT,
            "kind": "agent",
            "label": self.settings.label,
            "model": self.settings.model,
            "scenario": self.settings.scenario,
            "config": w.cfg.to_dict(),
            "config_hash": w.cfg.content_hash(),
            "seed": self._public_seed(),
            "seed_commitment": self.commitment,
            "impact": impact(w),
            "collapsed": bool(w.collapsed),
            "collapse_month": s["collapse_month"],
            "months_played": s["months_survived"],
            "publications": s["publications"],
            "top_publications": s["top_publications"],
            "grants": s["grants_won"],
            "grant_dollars": s["grant_dollars"],
            "hires": s["hires"],
            "quits": s["students_quit"],
            "graduates": s["students_graduated"],
            "final_budget": s["final_budget"],
            "digest": w.digest(),
            "memory_final": w.s.memory,
            "pibench_version": _version(),
            "settings_sha256": self.settings.settings_hash(),
            "plan": (
                {
                    "sha256": self.plan_sha256,
                    "copy": f"plan-{self.plan_sha256[:12]}.toml",
                    "note": "the plan file (its text's SHA-256) of the command that finished this career; its copy "
                    "is kept in the output folder, two folders up, unless the plan was refused in part",
                }
                if self.plan_sha256
                else None
            ),
            "provenance": {
                **provenance(self.settings),
                "provider_model_ids": dict(sorted(m.model_ids.items())),
                "request_ids": m.request_ids,
            },
            "wall_s": round(m.wall_s, 3),
            "harness": {
                **self.settings.fingerprint(),
                "block_timeout": self.settings.block_timeout,
                "backend": self.backend.describe(),
                "max_failed_calls": MAX_FAILED_CALLS,
            },
            "tokens": {
                "prompt": m.prompt_tokens,
                "completion": m.completion_tokens,
                "total": m.prompt_tokens + m.completion_tokens,
                "calls_without_usage": m.usage_missing,
                "reasoning": m.reasoning_tokens,
                "cached_prompt": m.cached_prompt_tokens,
                "abandoned": _abandoned_tokens(m, self.path),
            },
            "tokens_by_month": m.tokens_by_month,
            "llm": {
                "calls": m.calls,
                "failed_calls": m.failed_calls,
                "attempts": m.attempts,
                "seconds": round(m.llm_seconds, 3),
                "errors": m.errors,
            },
            "turns": m.turns,
            "blocks": m.blocks,
            "nudges": m.nudges,
            "auto_advances": m.auto_advances,
            "integrity": {
                "flagged": integrity["flagged"],
                "flags": integrity["flags"],
                "by_kind": integrity["by_kind"],
            },
            "resumes": m.resumes,
            "agent_random_seeds": m.agent_random_seeds,
            "confinement": self._confinement(),
            "query_worker_confinement": self._worker_confinement(),
            "valid": None,
        }
        if self.price is not None:
            from pibench_tui.pricing import career_cost, price_record, timed_out_cost

            result["cost_usd"] = round(career_cost(result, self.price), 6)
            estimated = timed_out_cost(result, self.price)
            result["cost"] = {
                "counted_usd": round(result["cost_usd"] - estimated, 6),
                "timed_out_estimated_usd": round(estimated, 6),
                "timed_out_estimated": bool(estimated),
                "note": "cost_usd = counted_usd (the tokens the provider reported, abandoned attempts' included) + "
                "timed_out_estimated_usd, an ESTIMATE: the prompt tokens of requests abandoned at a time-out "
                "(tokens.abandoned.timed_out.prompt_estimated) or in flight at a kill "
                "(tokens.abandoned.in_flight.prompt_estimated), characters / 4 of the prompts sent, at the prompt "
                "price; their completion tokens are unknown and not priced",
            }
            result["price"] = price_record(self.price)
        self.transcript.append({"event": "end", "impact": result["impact"], "digest": result["digest"]})
        self.transcript.sync()
        atomic_write_json(self.path / "result.json", result)
        try:
            (self.path / "checkpoint.json").unlink()
        except FileNotFoundError:
            pass
        return result

    def close(self) -> None:
        self.core.close()
        for f in (self.transcript, self.months, self.actions):
            f.close()


#: The requests a career abandoned without usage coming back, by their key in
#: ``result.json["tokens"]["abandoned"]``, and how every summary and note names them (one home:
#: a request in flight at a kill was called "abandoned at a time-out"; QA7 F8).
ABANDONED_REQUESTS = {"timed_out": "abandoned at a time-out", "in_flight": "in flight at a kill"}

#: The file a career writes before each request and removes when it comes back (see
#: :meth:`_Career._request_started`).
IN_FLIGHT_FILE = "request-in-flight.json"
#: How ``result.json`` and the resume note label a request in flight at a kill.
IN_FLIGHT_NOTE = (
    "a request in flight when the run was killed (the server may have received and billed it; no usage came "
    "back): its prompt tokens estimated as the characters / 4 of the prompt sent, completion tokens unknown"
)


def _abandoned_tokens(meter: _Meter, path: Path) -> dict[str, Any]:
    """``result.json["tokens"]["abandoned"]``: tokens paid for that are not in the career's
    prompt/completion counts: turns lost to an interruption before a resume, and earlier
    attempts set aside by ``--redo-failed``; apart, ``timed_out``: the requests abandoned at
    a time-out and their prompt tokens, estimated (characters / 4: no usage comes back)."""
    earlier = _abandoned_results(path)
    return {
        "prompt": meter.lost_prompt_tokens + sum(e["prompt"] for e in earlier),
        "completion": meter.lost_completion_tokens + sum(e["completion"] for e in earlier),
        "interrupted": {"prompt": meter.lost_prompt_tokens, "completion": meter.lost_completion_tokens},
        "redone": earlier,
        "in_flight": {
            "requests": meter.in_flight_requests,
            "prompt_estimated": meter.in_flight_prompt_estimate,
            "note": IN_FLIGHT_NOTE + "; with a price, in cost_usd as an estimate (cost.timed_out_estimated_usd)",
        },
        "timed_out": {
            "requests": meter.timed_out_requests,
            "prompt_estimated": meter.timed_out_prompt_estimate,
            "note": "requests abandoned at a time-out return no usage: their prompt tokens are estimated as "
            "the characters / 4 of the prompt sent, completion tokens unknown; not in prompt/completion above; "
            "with a price, in cost_usd as an estimate (cost.timed_out_estimated_usd)",
        },
        "note": "paid for, not in prompt/completion: turns lost to an interruption (a kill, Ctrl-C) before a "
        "resume, and careers played again with --redo-failed; requests abandoned at a time-out are apart, "
        "estimated (timed_out)",
    }


def settings_conflict(settings: AgentSettings, path: Path) -> list[str]:
    """How the run already in ``path`` (a finished career's ``result.json`` ``harness``, or
    an unfinished one's ``checkpoint.json`` ``settings``) differs from ``settings``
    (:meth:`AgentSettings.differences`): such a run is refused, not reused nor resumed.
    Empty when the folder holds no run, the same settings, or files that cannot be read
    (the career itself then says what is wrong)."""
    ckpt, done = path / "checkpoint.json", path / "result.json"
    try:
        if ckpt.is_file() and not ckpt.is_symlink():
            raw = read_json(ckpt)
            return settings.differences(raw.get("settings")) if isinstance(raw, dict) else []
        if done.is_file() and not done.is_symlink():
            raw = read_json(done)
            return settings.differences(raw.get("harness")) if isinstance(raw, dict) else []
    except (OSError, ValueError):
        return []
    return []


#: What a refusal of a finished career whose LLM never answered adds: the option that plays it
#: again with the command's settings, and what it does (QA7 F2: the refusal named only
#: another --out or --label).
REDO_FAILED_ADVICE = (
    "; the LLM never answered in it: run the same command with --redo-failed to play it again from month 1 "
    "as a new career with these settings (its result.json and transcript.jsonl are kept beside as "
    "abandoned-N.result.json and abandoned-N.transcript.jsonl, their tokens counted as abandoned)"
)


def never_answered(result: dict[str, Any]) -> bool:
    """Whether a finished career's LLM never answered (every call failed for good)."""
    raw = result.get("llm")
    llm: dict[str, Any] = raw if isinstance(raw, dict) else {}
    calls, failed = llm.get("calls"), llm.get("failed_calls")
    return isinstance(calls, int) and isinstance(failed, int) and calls > 0 and failed >= calls


def set_aside_failed(
    settings: AgentSettings, seed: int, out: str | Path, *, commitment: str | None = None
) -> Path | None:
    """``--redo-failed``: when the finished career of ``seed`` under ``out`` is one whose
    LLM never answered (:func:`never_answered`), rename its ``result.json`` to
    ``abandoned-N.result.json`` and its ``transcript.jsonl`` to
    ``abandoned-N.transcript.jsonl`` (N = 1, 2 ... the first free) so the next run plays it
    again from month 1 as a new career (not a resume: no ``resume`` event, ``resumes``
    empty); its tokens are then counted as abandoned in the new result (``redone``).
    Returns the new name of the result, or ``None`` when there was nothing to set aside.

    Raises:
        RunConflict: The run directory is in use by another command.
    """
    path = career_dir(out, settings.label, settings.scenario, None if commitment else seed, commitment)
    done = path / "result.json"
    if not done.is_file() or (path / "checkpoint.json").exists():
        return None
    try:
        result = read_json(done)
    except (OSError, ValueError):
        return None
    if not isinstance(result, dict) or not never_answered(result):
        return None
    lock = RunDirLock(path, doing=f"pibench agent --redo-failed (pid {os.getpid()})")
    try:
        lock.acquire()
    except RunDirBusy as exc:
        raise RunConflict(str(exc)) from None
    try:
        n = 1
        while any(os.path.lexists(path / f"abandoned-{n}.{f}") for f in ("result.json", "transcript.jsonl")):
            n += 1
        target = path / f"abandoned-{n}.result.json"
        transcript = path / "transcript.jsonl"
        if os.path.lexists(transcript):  # kept: the new career's transcript starts empty, not as a resume
            os.replace(transcript, path / f"abandoned-{n}.transcript.jsonl")
        os.replace(done, target)
    finally:
        lock.release()
    return target


def _abandoned_results(path: Path) -> list[dict[str, Any]]:
    """Token counts of the results set aside by ``--redo-failed`` in ``path``."""
    out = []
    for f in sorted(path.glob("abandoned-*.result.json")):
        try:
            res = read_json(f)
        except (OSError, ValueError):
            continue
        if not isinstance(res, dict):
            continue
        raw = res.get("tokens")
        tok: dict[str, Any] = raw if isinstance(raw, dict) else {}
        out.append(
            {
                "file": f.name,
                "why": "the LLM never answered (--redo-failed)",
                "prompt": int(tok.get("prompt") or 0),
                "completion": int(tok.get("completion") or 0),
                "calls": int((res.get("llm") or {}).get("calls") or 0),
            }
        )
    return out


def run_career(
    settings: AgentSettings,
    backend: Backend,
    seed: int,
    out: str | Path,
    *,
    log: Callable[[str], None] | None = None,
    stop: threading.Event | None = None,
    commitment: str | None = None,
    on_month: Callable[[int, int], None] | None = None,
    price: Any = None,
    plan_sha256: str | None = None,
) -> dict[str, Any]:
    """Play (or resume, or skip if complete) one career and return its ``result.json``.

    Args:
        settings: The harness settings.
        backend: Where replies come from.
        seed: The world seed.
        out: The output folder (the run directory is ``out/<label>/<scenario>-<seed>``).
        log: Receives progress lines (default: stderr).
        stop: When set, the career stops at the next turn (:class:`CareerInterrupted`).
        commitment: The public commitment of a sealed ``seed`` (``pibench seal``): the run
            directory is named by its first 12 hex digits, ``result.json`` has ``seed: null``
            and ``seed_commitment``, and nothing the agent sees holds the seed.
        on_month: Told ``(months completed, months of the career)`` when the career starts
            or resumes and as each month closes (a progress display).
        price: The model's :class:`pibench_tui.pricing.Price` (``--price`` or the plan's):
            ``result.json`` then records ``cost_usd`` (its tokens at this price, abandoned
            attempts' included) and ``price``. Not a setting: a finished career is reused
            whatever the price.
        plan_sha256: SHA-256 of the text of the plan file the command runs (``--plan``):
            ``result.json`` records it as ``plan`` (with the name of its copy in ``out``,
            ``plan-<first 12 hex digits>.toml``), else ``plan: null``.

    Raises:
        RunConflict: The run directory holds a run with other settings.
        CareerInterrupted: ``stop`` was set.
        SandboxStartError: The agent process cannot start.
    """
    if commitment is not None:
        path = career_dir(out, settings.label, settings.scenario, None, commitment)
        prefix = f"[{settings.label} {settings.shown_scenario} sealed:{commitment[:12]}] "
    else:
        path = career_dir(out, settings.label, settings.scenario, seed)
        prefix = f"[{settings.label} {settings.shown_scenario} seed {seed}] "
    emit = log or (lambda text: print(text, file=sys.stderr, flush=True))

    def say(text: str) -> None:
        # labels, backend errors and paths may hold control characters: shown, never run
        emit(visible(prefix + text, newlines=True))

    path.mkdir(parents=True, exist_ok=True)
    from saves.paths import foreign_folder_problem

    problem = foreign_folder_problem(path, "the run folder", "--out DIR")
    if problem is not None:  # another user could plant links or swap files under this process
        raise RunConflict(problem)
    lock = RunDirLock(path, doing=f"pibench agent ({settings.label}, pid {os.getpid()})")
    try:
        lock.acquire()
    except RunDirBusy as exc:
        raise RunConflict(str(exc)) from None
    try:
        return _run_locked(settings, backend, seed, path, say, stop, commitment, on_month, price, plan_sha256)
    finally:
        lock.release()


def _run_locked(
    settings: AgentSettings,
    backend: Backend,
    seed: int,
    path: Path,
    say: Callable[[str], None],
    stop: threading.Event | None,
    commitment: str | None,
    on_month: Callable[[int, int], None] | None = None,
    price: Any = None,
    plan_sha256: str | None = None,
) -> dict[str, Any]:
    """:func:`run_career` once the run directory's lock is held."""
    done = path / "result.json"
    if done.exists() and not (path / "checkpoint.json").exists():
        done_result: dict[str, Any] = read_json(done)
        if done_result.get("label", settings.label) != settings.label:  # a case-insensitive file system
            raise RunConflict(
                f"{path} holds the run of label {done_result.get('label')!r}, not {settings.label!r}; "
                "use another --out or --label"
            )
        diff = settings.differences(done_result.get("harness"))
        if diff:
            raise RunConflict(
                f"{path} holds a finished career played with other settings ({'; '.join(diff)}); it is not "
                "reused for these: use another --out or --label, or the original settings"
                + (REDO_FAILED_ADVICE if never_answered(done_result) else "")
            )
        say(f"already complete in {path} (delete it to play again)")
        return done_result
    career = _Career(settings, backend, seed, path, say, stop, commitment, on_month)
    career.price = price
    career.plan_sha256 = plan_sha256
    try:
        career.open()
        if on_month is not None:
            on_month(career.core.month - 1, settings.config.months)
        career.play()
        result = career.finish()
    finally:
        career.close()
    imp = result["impact"]
    total = result["tokens"]["total"]
    outcome = (
        "no Impact: the LLM never answered"  # the auto-advanced world's 0.0 is no figure of the model
        if never_answered(result)
        else f"Impact {imp['total']:.1f} ({'collapsed' if result['collapsed'] else 'horizon'})"
    )
    say(
        f"{outcome}; "
        f"{known_text(f'{total:,}', usage_known(result))} {noun(total, 'token')}, "
        f"{count(result['llm']['calls'], 'call')} -> {path}"
    )
    return result


def count_field(n: Any) -> int:
    """A recorded count: ``n`` when it is a whole number ≥ 0, else 0."""
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 0


def calls_without_usage(res: dict[str, Any]) -> int:
    """result.json's ``tokens.calls_without_usage`` (0 when not a whole number)."""
    return count_field((res.get("tokens") or {}).get("calls_without_usage"))


def usage_known(res: dict[str, Any]) -> str:
    """How much of a finished career's token count is known (``"all"``, ``"partial"``,
    ``"none"``: :func:`pibench_tui.report.load.tokens_known`) from result.json's
    ``tokens.calls_without_usage`` and its answered calls."""
    from pibench_tui.report.load import tokens_known

    llm = res.get("llm") or {}
    calls, failed = llm.get("calls"), llm.get("failed_calls")
    return tokens_known(
        calls if isinstance(calls, int) else 0, failed if isinstance(failed, int) else 0, calls_without_usage(res)
    )


def known_text(text: str, known: str) -> str:
    """A token count or cost as its calls' counts allow (``known`` from :func:`usage_known`):
    as is, ``≥`` before it, or ``unknown``."""
    return "unknown" if known == "none" else f"≥{text}" if known == "partial" else text


def run_careers(
    settings: AgentSettings,
    make_backend: Callable[[], Backend],
    seeds: list[int],
    out: str | Path,
    *,
    jobs: int = 1,
    log: Callable[[str], None] | None = None,
    commitments: list[str] | None = None,
) -> list[dict[str, Any] | Exception]:
    """Run every seed's career, ``jobs`` at a time (threads: the work is waiting for
    replies; each career has its own world and agent process). Results in seed order;
    a career that failed is represented by its exception. Ctrl-C stops every career at
    its next turn; the same command resumes them. ``commitments`` (one per seed) makes
    every career sealed (see :func:`run_career`)."""
    stop = threading.Event()
    commits: list[str | None] = list(commitments) if commitments is not None else [None] * len(seeds)
    if len(commits) != len(seeds):
        raise ValueError(f"{count(len(commits), 'commitment')} for {count(len(seeds), 'seed')}")
    results: dict[int, Any] = {}
    if jobs <= 1 or len(seeds) <= 1:
        for i, seed in enumerate(seeds):
            try:
                results[i] = run_career(settings, make_backend(), seed, out, log=log, stop=stop, commitment=commits[i])
            except CareerInterrupted:
                raise
            except Exception as exc:  # noqa: BLE001 - reported per career (RunConflict, SandboxStartError, OSError ...)
                results[i] = exc
        return [results[i] for i in range(len(seeds))]
    from concurrent.futures import ThreadPoolExecutor, wait

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        futures = {
            ex.submit(run_career, settings, make_backend(), seed, out, log=log, stop=stop, commitment=commits[i]): i
            for i, seed in enumerate(seeds)
        }
        try:
            pending = set(futures)
            while pending:
                _, pending = wait(pending, timeout=0.5)
        except KeyboardInterrupt:
            stop.set()
            raise
        for fut, i in futures.items():
            try:
                results[i] = fut.result()
            except Exception as exc:  # noqa: BLE001 - reported per career
                results[i] = exc
    return [results[i] for i in range(len(seeds))]
