"""The §16 month loop as an environment: the core of the harness and of ``pibench/Lab-v0``.

:class:`LabCore` has the Gymnasium API (``reset`` / ``step``) without importing
Gymnasium; :class:`pibench_tui.harness.gym_env.LabEnv` adds the spaces. The LLM harness
(:mod:`pibench_tui.harness.loop`) is a thin loop over it, so any agent framework that
drives the environment plays under exactly the same contract (MECHANICS §16, Decisions 11):

* an observation is always the next message for the agent: a month opens with the
  month message (header, notes, last month's report, dashboard JSON); a turn answers
  with ``OUTPUT (turn t/N)`` and the block's output as the sandbox cut it (head and tail
  within 6,000 characters, :data:`~pibench_tui.harness.defaults.OUTPUT_LIMIT`);
* an action is the code of one turn; an empty action is a turn without code (a nudge);
* the code runs in the same sandboxed agent process as headless mode, one per career,
  whose namespace persists across turns and months;
* at most ``max_turns`` turns a month: after the last one an un-advanced month advances;
  a block may close the month once (``time.next_month()``); calls that would change the
  world after that, in the same block, are refused: :meth:`LabCore._handle` raises
  ``ActionError`` (code ``"month_closed"``) in the agent's code before the call reaches the
  world, and records an ``after_month_closed`` incident (``month`` = the month the block
  closed, ``turn`` = the block's turn, ``message`` = ``"namespace.method"``) in
  :attr:`LabCore.integrity`; the kind is counted but never flags the run
  (:data:`pibench_tui.harness.integrity.BENIGN_KINDS`);
* reward = citations earned during the step; ``terminated`` = collapse, ``truncated`` =
  the horizon.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pibench_tui.agent_limits import DEFAULT_MAX_OUTPUT
from pibench_tui.harness import defaults
from pibench_tui.harness.agent_process import ALLOWED_MODULES, DEFAULT_MEMORY_LIMIT, BlockResult, Refusal, open_sandbox
from pibench_tui.harness.integrity import IntegrityLog
from pibench_tui.harness.prompt import (
    OUTPUT_LIMIT,
    api_cheatsheet,
    month_message,
    nudge_text,
    system_prompt,
    turn_output,
)
from pibench_tui.harness.rules import scenario_rules
from pibench_tui.textsafe import clean_tree

__all__ = ["DEFAULT_BLOCK_TIMEOUT", "DEFAULT_MAX_TURNS", "CareerOver", "LabCore", "harness_system_prompt"]

#: Turns per month (MECHANICS §16).
DEFAULT_MAX_TURNS = defaults.MAX_TURNS
#: Wall-clock limit per block in the harness, in seconds (MECHANICS §16).
DEFAULT_BLOCK_TIMEOUT = defaults.BLOCK_TIMEOUT

NO_MEMORY_NOTE = "memory is switched off in this run (--no-memory): nothing was saved"


def harness_system_prompt(
    config: Any,
    *,
    max_turns: int = DEFAULT_MAX_TURNS,
    output_limit: int = OUTPUT_LIMIT,
    block_timeout: float = DEFAULT_BLOCK_TIMEOUT,
) -> str:
    """The system prompt of every call of a career under ``config`` (a ``WorldConfig``):
    byte-identical for the same arguments (the one text :class:`LabCore` sends, and the one
    ``pibench agent`` hashes into a career's settings)."""
    from world.api import API_CALLS, REQUIRED, call_docs
    from world.observe import SCHEMA

    rules = scenario_rules(config)
    return system_prompt(
        rules,
        api_cheatsheet(API_CALLS, REQUIRED, SCHEMA, call_docs(config), rules),
        max_turns=max_turns,
        output_limit=output_limit,
        allowed_modules=tuple(ALLOWED_MODULES),
        block_timeout=block_timeout,
    )


class CareerOver(RuntimeError):
    """``step`` was called after the career ended; call ``reset``."""


def _error_text(error: dict[str, Any] | None) -> str:
    if not error:
        return ""
    line = error.get("line")
    where = f" (line {line})" if line is not None else ""
    message = str(error.get("message") or "")[:2_000]
    return f"\nError{where}: {error.get('type', 'Error')}: {message}".rstrip() + "\n"


class LabCore:
    """One career under the §16 contract, driven by ``reset`` and ``step``.

    Args:
        config: The world's ``WorldConfig`` (``None``: the default world).
        seed: The default world seed for ``reset()`` without a seed.
        max_turns: Code turns per month.
        memory: ``False`` makes memory writes no-ops (the harness ablation of §16).
        output_limit: Characters of output shown per turn (6,000).
        block_timeout: Wall-clock limit per block, in seconds (20 s).
        memory_limit: Address-space limit of the agent process, in bytes.
        sealed: A sealed evaluation (``pibench agent --seeds @FILE``): the world seed is
            never shown to the agent (no API result, dashboard or ``info`` carries it) and
            the agent's ``random`` is seeded from secret entropy
            (``self.sandbox.random_seeds`` records it for the evaluator).
        require_confinement: Every agent process must prove complete OS confinement
            before it runs code (``Sandbox(require_complete=True)``; a sealed evaluation
            unless ``--allow-incomplete-confinement``).

    Agent ``query()`` calls run in the world's query worker process, bounded by the OS and
    cut at the running block's deadline (``career.observer.isolate``), as in headless
    mode (MECHANICS Decisions 9).
    """

    def __init__(
        self,
        config: Any = None,
        *,
        seed: int = 0,
        max_turns: int = DEFAULT_MAX_TURNS,
        memory: bool = True,
        output_limit: int = OUTPUT_LIMIT,
        block_timeout: float = DEFAULT_BLOCK_TIMEOUT,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        sealed: bool = False,
        require_confinement: bool = False,
    ) -> None:
        from world.api import API_CALLS
        from world.config import WorldConfig

        if max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {max_turns}")
        self.config = config if config is not None else WorldConfig()
        self.default_seed = int(seed)
        self.max_turns = int(max_turns)
        self.memory_enabled = bool(memory)
        self.output_limit = int(output_limit)
        self.block_timeout = float(block_timeout)
        self.memory_limit = int(memory_limit)
        self.sealed = bool(sealed)
        self.require_confinement = bool(require_confinement)
        self.rules = scenario_rules(self.config)
        self.system_prompt = harness_system_prompt(
            self.config, max_turns=self.max_turns, output_limit=self.output_limit, block_timeout=self.block_timeout
        )
        self._mutating = {(ns, name) for ns, calls in API_CALLS.items() for name, c in calls.items() if c.mutating}
        #: The career being played (:class:`world.career.Career`; ``None`` before ``reset``).
        self.career: Any = None
        self.sandbox: Any = None
        self.turn = 0
        self.integrity = IntegrityLog()
        self.last_result: BlockResult | None = None
        self.closed_months: list[dict[str, Any]] = []
        self._block_month: int | None = None
        self._closed_in_block = False
        self._turn_for_handler = 0

    # ------------------------------------------------------------------ state
    @property
    def world(self) -> Any:
        """The career's ``World`` (``None`` before ``reset``)."""
        return self.career.world if self.career is not None else None

    @property
    def api(self) -> Any:
        """The career's ``Api`` (``None`` before ``reset``)."""
        return self.career.api if self.career is not None else None

    @property
    def month(self) -> int:
        """The world's current month (1-based)."""
        return int(self.world.month)

    @property
    def finished(self) -> bool:
        """Whether the career is over (horizon or collapse)."""
        return bool(self.world is not None and self.world.finished)

    def observation(self) -> str:
        """The month message of the current month (or the end text once the career is over)."""
        w = self.world
        if w.finished:
            return self._end_text()
        dash = self._unseeded(self.api.lab.dashboard())
        report = self.closed_months[-1]["report"] if self.closed_months else self._last_report()
        return month_message(
            month=w.month,
            months=w.cfg.months,
            label=str(dash.get("label", "")),
            max_turns=self.max_turns,
            memory=w.s.memory,
            memory_limit=int(w.cfg.memory_max_chars),
            dashboard=dash,
            report=report,
        )

    def _end_text(self) -> str:
        from world.scoring import impact

        w = self.world
        imp = impact(w)
        how = f"the lab collapsed in month {w.s.collapse_month}" if w.collapsed else "the horizon was reached"
        return (
            f"=== The career is over: {how}. Impact {imp['total']:.1f} = {imp['earned']:.1f} citations earned + "
            f"{imp['projection']:.1f} projected. ==="
        )

    def _last_report(self) -> dict[str, Any] | None:
        from world.api import ActionError

        try:
            rep = self.api.call("time", "last_report")
        except ActionError:
            return None
        return dict(rep) if isinstance(rep, dict) else None

    # ------------------------------------------------------------------ gym API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start a career (or continue one from a saved world state).

        Args:
            seed: World seed; ``None`` keeps the last one (first: the constructor's).
            options: ``{"state": World.to_state() dict}`` or ``{"world": World}``
                continues that world exactly (a resumed run), with ``"last_close"`` (the last ``months.jsonl`` entry)
                so the month message shows last month's report as it would have; the
                agent process starts fresh either way.

        Returns:
            ``(month message, info)``; ``info`` has ``month`` and ``seed``.
        """
        from world.career import Career

        self.close()
        if seed is not None:
            self.default_seed = int(seed)
        state = (options or {}).get("state")
        given = (options or {}).get("world")
        if given is not None:
            career = Career(given)
        elif state is not None:
            career = Career.restore(state)
        else:
            career = Career.new(dataclasses.replace(self.config), self.default_seed)
        self.career = career
        world = career.world
        self.default_seed = int(world.seed)
        self.turn = 0
        self.integrity = IntegrityLog()
        self.closed_months = []
        last_close = (options or {}).get("last_close")
        if (state is not None or given is not None) and isinstance(last_close, dict):
            self.closed_months.append(last_close)
        self.last_result = None
        self.sandbox = open_sandbox(
            self._handle,
            world,
            block_timeout=self.block_timeout,
            max_output=self.output_limit,
            memory_limit=self.memory_limit,
            require_complete=self.require_confinement,
        )
        self.sandbox.secret_random = self.sealed
        # Agent queries run in the query worker the OS bounds, cut at the block's deadline
        # (the same code path as headless mode).
        sandbox = self.sandbox
        career.observer.isolate(deadline=lambda: sandbox.deadline)
        return self.observation(), {"month": world.month, "seed": None if self.sealed else world.seed}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play one turn: run ``action`` (code; empty = a turn without code).

        Returns:
            ``(observation, reward, terminated, truncated, info)``: the next message for
            the agent; citations earned during the step; collapse; horizon; and ``info``
            with ``month`` (the month the turn was played in), ``turn``, ``code_ran``,
            ``ok``, ``error``, ``output`` (what the block printed, cut), ``integrity``
            (kinds), ``advanced``, ``auto_advanced``, ``reports`` (reports of the months
            closed by the step).

        Raises:
            CareerOver: The career already ended.
            TypeError: ``action`` is not a string (the code of one turn).
        """
        if not isinstance(action, str):
            raise TypeError(f"action must be the code of one turn (a str), got {type(action).__name__}")
        if self.world is None or self.world.finished:
            raise CareerOver("the career is over; call reset() to start another")
        from world.scoring import earned

        month = self.world.month
        before = earned(self.world)
        n_closed = len(self.closed_months)
        self.turn += 1
        turn = self.turn
        info: dict[str, Any] = {
            "month": month,
            "turn": turn,
            "code_ran": False,
            "ok": False,
            "error": None,
            "output": "",
            "integrity": [],
            "advanced": False,
            "auto_advanced": False,
        }
        code = action if isinstance(action, str) else ""
        if code.strip():
            self._block_month = month
            self._closed_in_block = False
            self._turn_for_handler = turn
            try:
                result = self.sandbox.run(code, filename=f"<turn {turn}>", rebind=True)
            finally:
                self._block_month = None
            self.last_result = result
            # The sandbox made the output and the error safe where they entered pibench and kept
            # the output's head and tail within output_limit (its max_output): shown as it is.
            error = result.error
            shown = result.stdout + _error_text(error)
            # The sandbox keeps head and tail of the display cut and counts the rest: what the
            # block printed is about the cut plus what was omitted. Past the headless output
            # cap it is a flood (flags the run); below it a benign display cut (issue 26 §2).
            printed = self.output_limit + int(result.omitted or 0)
            kinds = self.integrity.record_block(
                month,
                turn,
                error,
                result.truncated,
                result.restarted,
                flood=printed > max(DEFAULT_MAX_OUTPUT, self.output_limit),
                printed=printed if result.truncated else None,
                # and what it saw of the query worker during the block (a seccomp kill)
                observed=(*result.observed, *self.career.observer.take_worker_incidents()),
            )
            info.update(code_ran=True, ok=result.ok, error=error, output=shown, integrity=kinds)
            reply = turn_output(turn, self.max_turns, shown)
        else:
            self.last_result = None
            reply = nudge_text(turn, self.max_turns, unclosed=False)
            info["output"] = reply
        advanced = self.world.finished or self.world.month != month
        if not advanced and turn >= self.max_turns:
            self._tick()
            info["auto_advanced"] = True
            advanced = True
        info["advanced"] = advanced
        info["reports"] = [c["report"] for c in self.closed_months[n_closed:]]
        if advanced:
            self.turn = 0
            obs = self.observation()
        else:
            obs = reply
        reward = float(earned(self.world) - before)
        return obs, reward, bool(self.world.collapsed), bool(self.world.finished and not self.world.collapsed), info

    def advance(self) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Close the current month without a turn (the harness's auto-advance after failed
        LLM calls); same return value as :meth:`step`."""
        if self.world is None or self.world.finished:
            raise CareerOver("the career is over; call reset() to start another")
        from world.scoring import earned

        month = self.world.month
        before = earned(self.world)
        n_closed = len(self.closed_months)
        self._tick()
        self.turn = 0
        info = {
            "month": month,
            "turn": 0,
            "code_ran": False,
            "ok": True,
            "error": None,
            "output": "",
            "integrity": [],
            "advanced": True,
            "auto_advanced": True,
            "reports": [c["report"] for c in self.closed_months[n_closed:]],
        }
        reward = float(earned(self.world) - before)
        return (
            self.observation(),
            reward,
            bool(self.world.collapsed),
            bool(self.world.finished and not self.world.collapsed),
            info,
        )

    def close(self) -> None:
        """Stop the agent process and the world's query worker."""
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None
        if self.career is not None:
            self.career.close()

    def _unseeded(self, value: Any) -> Any:
        """``value`` without its ``seed`` key in a sealed career (what the agent may see)."""
        if self.sealed and isinstance(value, dict) and "seed" in value:
            return {k: v for k, v in value.items() if k != "seed"}
        return value

    # ------------------------------------------------------------------ internals
    def _tick(self) -> Any:
        """Advance the month from the harness (logged in the action log like an agent's call)."""
        value = self.api.call("time", "next_month")
        self._record_close(value)
        return value

    def _record_close(self, value: Any) -> None:
        w = self.world
        closed = w.month if w.finished else w.month - 1
        report = value.get("report") if isinstance(value, dict) else None
        if not isinstance(report, dict):  # time.last_report() says the same (Decisions 8)
            report = self._last_report() or {"month": closed}
        dashboard = self._unseeded(self.api.lab.dashboard())
        self.closed_months.append({"month": closed, "report": report, "dashboard": dashboard})

    def _handle(self, ns: str, method: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Serve one API call of agent code (the sandbox's handler).

        The ``after_month_closed`` hook: while a block runs (``self._block_month`` is its
        month), a mutating call made after the world left that month (the block called
        ``time.next_month()``) is refused with ``Refusal("month_closed", ...)`` (the agent
        sees ``ActionError`` with that code) and recorded as one ``after_month_closed``
        incident (month closed, the block's turn, ``"ns.method"``); it never flags the run.
        """
        from world.api import ActionError

        args, kwargs = clean_tree(args), clean_tree(kwargs)  # agent text entering the world: made safe
        month = self._block_month
        if month is not None and (self.world.finished or self.world.month != month):
            if (ns, method) in self._mutating:
                self.integrity.add("after_month_closed", month, self._turn_for_handler, f"{ns}.{method}")
                raise Refusal(
                    "month_closed",
                    f"{ns}.{method}() refused: this block already ended month {month}; the next month "
                    "starts with a new conversation after this block",
                )
        if ns == "memory" and method == "write" and not self.memory_enabled:
            return {"ok": True, "chars": 0, "note": NO_MEMORY_NOTE}
        try:
            value = self.api.call(ns, method, args, kwargs)
        except ActionError as exc:
            self.integrity.refused_call(exc.code)
            raise
        if ns == "time" and method == "next_month":
            self._record_close(value)
        return self._unseeded(value)
