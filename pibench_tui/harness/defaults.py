"""The harness contract's defaults (MECHANICS §16), one home for the command line, the
backends and :class:`~pibench_tui.harness.core.LabCore`. Standard library only: the
``pibench`` parser reads them without loading the harness."""

from __future__ import annotations

#: Turns per month.
MAX_TURNS = 8
#: Wall-clock limit per code block, in seconds.
BLOCK_TIMEOUT = 20.0
#: The largest wall-clock limit per code block ``pibench agent --block-timeout`` accepts, in
#: seconds; the transcript check never gives a block more (a run folder's result.json is editable).
MAX_BLOCK_TIMEOUT = 3600.0
#: Wall-clock budget of one career's transcript check (``pibench replay``, ``pibench report
#: --check-transcripts``: ``--check-budget``), in seconds: the recorded blocks are re-run until
#: it is spent, and a check it cuts short leaves the log unchecked, never verified (a crafted
#: run of many blocks of MAX_BLOCK_TIMEOUT each made a reviewer's command run for hours).
CHECK_BUDGET = 600.0
#: A transcript check stops a block the transcript records as finished (no time-out) once the
#: re-run has taken CHECK_SLOWDOWN times the block's recorded ``seconds`` plus CHECK_MARGIN
#: seconds, and calls that a divergence (a run's own claims must not spend the budget: a
#: block recorded as fast whose code loops turned INVALID into "log unchecked"). The slack
#: covers a slower or busier reviewer's machine and an agent process's start.
CHECK_SLOWDOWN = 4.0
CHECK_MARGIN = 10.0
#: Characters of a block's output shown to the model per turn: the sandbox's cap per block in
#: the harness (it keeps head and tail within it behind one notice; nothing cuts again).
OUTPUT_LIMIT = 6_000
#: Request body fields ``--extra-body`` (and a plan's ``extra_body``) may not set, each with the
#: option that owns it (None: the harness alone sends it): a field set there would be sent while
#: result.json and the report stated the option's value (QA: ``{"temperature": 1.5}`` was sent
#: and recorded as 0.4).
EXTRA_BODY_OWNED: dict[str, str | None] = {
    "model": None,
    "messages": None,
    "stream": None,
    "n": None,
    "temperature": "--temperature / --no-temperature",
    "max_tokens": "--max-tokens",
    "max_completion_tokens": "--max-completion-tokens",
    "reasoning_effort": "--reasoning-effort",
}


def extra_body_refusal(body: dict[str, object]) -> str | None:
    """Why ``body`` (an ``--extra-body`` object) is refused, or None: it sets a field the harness
    sends itself (:data:`EXTRA_BODY_OWNED`); the text names each field and the option to use."""
    owned = [k for k in EXTRA_BODY_OWNED if k in body]
    if not owned:
        return None
    said = [f"{k} (use {EXTRA_BODY_OWNED[k]})" if EXTRA_BODY_OWNED[k] else k for k in owned]
    return f"may not set {', '.join(said)}: the harness sends those and records what it sent"


#: Sampling temperature.
TEMPERATURE = 0.4
#: Output tokens per reply.
MAX_TOKENS = 4000
#: Retries of a failed LLM call.
RETRIES = 5
#: First backoff between retries, in seconds (doubled per retry).
RETRY_BASE = 1.0
#: Time-out of one LLM request, in seconds.
REQUEST_TIMEOUT = 300.0
