"""A headless session: one career behind the sandbox (the world, its API, the agent
process, saves) and its end-of-session report (MECHANICS §12, §15-16)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from pibench_tui.sandbox import (
    DEFAULT_BLOCK_TIMEOUT,
    DEFAULT_MAX_OUTPUT,
    DEFAULT_MEMORY_LIMIT,
    AgentProcess,
    BlockResult,
    SandboxStartError,
)
from pibench_tui.sandbox.factory import open_sandbox

#: Bytes of memory held in reserve for the final save and report (freed on MemoryError).
_RESERVE_BYTES = 8 << 20

#: The first line of pibench's own career report (console mode, REPL).
REPORT_HEADER = "=== pibench career report ==="


class HeadlessError(Exception):
    """A problem that stops headless mode before it starts (a damaged save ...).

    The command prints the message and exits with status 1 (2 for a
    :class:`HeadlessUsageError`).
    """


class HeadlessUsageError(HeadlessError):
    """The command line names what is not there or not valid: an unknown, missing or invalid
    ``--scenario``, a ``--load`` name no save has. The command exits with status 2."""


def _load_error(flag: str, exc: BaseException) -> HeadlessError:
    """``exc`` of the save store about ``flag`` (``--load NAME``, ``--save NAME``): a usage
    error when no save has that name, else a failure."""
    from saves import SaveNotFoundError

    kind = HeadlessUsageError if isinstance(exc, SaveNotFoundError) else HeadlessError
    return kind(f"{flag}: {exc}")


@dataclass(frozen=True)
class HeadlessOptions:
    """Everything ``pibench headless`` can be told.

    Attributes:
        scenario: Bundled scenario name or path of a ``.toml`` file; ``None`` = default.
        seed: World seed replacing the scenario's; ``None`` keeps it.
        jsonl: JSON-lines protocol instead of console mode.
        block_timeout: Wall-clock limit per block, in seconds (MECHANICS §16).
        max_output: Output cap per block, in characters.
        memory_limit: Address-space limit of the agent process, in bytes (0 = none).
        save: Career name to save under (autosave when the month changes, and at the end).
        load: Save (or career) name to resume.
        saves_dir: Folder of the save store (``None``: ``$PIBENCH_HOME`` or the user
            data dir).
        sealed: The seed's public commitment when ``seed`` is a sealed seed (``pibench
            seal``): the seed is then never shown -- not in API results, reports or errors --
            and the agent's ``random`` is seeded from secret entropy.
        report_json: File the final report is written to as JSON (by this process).
        allow_incomplete_confinement: Run a sealed career even when the agent process
            proves its OS confinement incomplete (``--allow-incomplete-confinement``); the
            report still says what was missing.
    """

    scenario: str | None = None
    seed: int | None = None
    jsonl: bool = False
    block_timeout: float = DEFAULT_BLOCK_TIMEOUT
    max_output: int = DEFAULT_MAX_OUTPUT
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    save: str | None = None
    load: str | None = None
    saves_dir: str | None = None
    sealed: str | None = None
    report_json: str | None = None
    allow_incomplete_confinement: bool = False


class HeadlessSession:
    """One career behind the sandbox: the world, its API, the agent process, saves.

    Args:
        options: What to play and the sandbox's limits.
        process: An agent process started earlier (so it boots while the world is built).

    Raises:
        HeadlessError: The scenario or the save cannot be used.
        SandboxStartError: The agent process cannot be started.
    """

    def __init__(self, options: HeadlessOptions, *, process: AgentProcess | None = None) -> None:
        from world.career import Career

        world, self.scenario = _open_world(options)
        options = _sealed_options(options, self.scenario)
        if options.sealed is not None:  # saves of this career keep the commitment (issue 25 §3)
            self.scenario = replace(self.scenario, seed_commitment=options.sealed)
        # The plain API: the agent process keeps its own cache of results (bounded by bytes,
        # sandbox/reads.py); a read cache here too cost ~6 % CPU and bought nothing (bench/machinery.py).
        #: The career: the world, its API, the SQL mirror (:class:`world.career.Career`).
        self.career = Career(world)
        # A resumed career keeps saving under its own name without --save; until the session
        # changes it, there is nothing new to save (the world's version and the notes as loaded).
        self._unchanged_since: tuple[int, str] | None = None
        flag = "--save" if options.save is not None else "--load"
        #: The new career this session saves under when ``--load`` named an older save of a
        #: career (``SaveStore.branch_name``): playing on from it never replaces the career's save.
        self.branch: str | None = None
        resuming: str | None = None
        load = options.load
        if load is not None:
            store = _open_store(options.saves_dir)
            resuming = str(store.resolve(load).career)
            if options.save is None:
                self.branch = store.branch_name(load)
                options = replace(options, save=self.branch or resuming)
                self._unchanged_since = (self.world.version, self.world.s.memory)
            if self.branch is not None:
                from saves.names import branch_notice

                print(f"pibench headless: {branch_notice(load, resuming, self.branch)}", file=sys.stderr)
        self.options = options
        self.store = None
        #: The career's session lock while this session may write its saves (released by close()).
        self.career_lock: Any = None
        if options.save is not None:
            from saves import CareerSaves

            self.store = _open_store(options.saves_dir)
            self.career.saves = CareerSaves(self.store)  # keeps the store's caches of this world
            try:  # one session per career; a valid name, a writable store, no other career under it
                self.career_lock = self.store.hold_session(
                    options.save, "pibench headless", resuming=None if self.branch else resuming
                )
            except Exception as exc:  # SaveError
                self._release_career()
                raise _load_error(flag, exc) from exc
        try:
            self._start(options, process)
        except BaseException:
            self._release_career()
            raise

    @property
    def world(self) -> Any:
        """The career's ``World``."""
        return self.career.world

    @property
    def api(self) -> Any:
        """The career's ``Api``."""
        return self.career.api

    def _start(self, options: HeadlessOptions, process: AgentProcess | None) -> None:
        """The rest of :meth:`__init__`: the sandbox."""
        # A resumed career's month is already saved: autosaving it again at the first block
        # would make that save the career's newest (a look at NAME@m02 then sent the next
        # `--load NAME` back to month 2). It is autosaved once the month moves.
        loaded = self._unchanged_since is not None
        self._saved_month: tuple[int, bool] | None = (self.world.month, self.world.finished) if loaded else None
        # Memory held back for the final save and report, freed if pibench ever runs out.
        self._reserve = bytes(_RESERVE_BYTES)
        self.blocks = 0
        self.sandbox = open_sandbox(
            self._call,
            self.world,
            block_timeout=options.block_timeout,
            max_output=options.max_output,
            memory_limit=options.memory_limit,
            process=process,
            prefetch=True,  # read-only calls here change nothing, and a refusal is only a reply
            version=lambda: self.world.version,  # what the agent process's cache holds is valid for
            plain_results=True,  # the world API's results are plain JSON data (tests/headless/test_plain_results.py)
            # a sealed run: every agent process must prove its confinement complete
            require_complete=options.sealed is not None and not options.allow_incomplete_confinement,
        )
        self.sandbox.secret_random = options.sealed is not None
        # Agent queries run in a query worker the OS bounds, and stop at the block's deadline:
        # set up before the first query (the SQL mirror is built then, not at start-up).
        self._queries_isolated = False

    # running --------------------------------------------------------------------------
    def _call(self, namespace: str, method: str, args: list, kwargs: dict) -> Any:
        """Serve one API call of agent code; in a sealed run no result carries the seed."""
        if namespace == "query" and not self._queries_isolated:
            self._isolate_queries()
        value = self.api.call(namespace, method, args, kwargs)
        if self.options.sealed is not None and isinstance(value, dict) and "seed" in value:
            value = {k: v for k, v in value.items() if k != "seed"}
        return value

    def _isolate_queries(self) -> None:
        """Run this world's agent queries in a query worker the OS bounds (time, memory,
        disk), each stopped at the running block's deadline (:mod:`world.sqlworker`)."""
        self.career.observer.isolate(deadline=lambda: self.sandbox.deadline)
        self._queries_isolated = True

    def run_block(
        self,
        code: str,
        *,
        filename: str = "<stdin>",
        first_line: int = 1,
        on_output: Callable[[str], None] | None = None,
    ) -> BlockResult:
        """Run one block of agent code and autosave if the month moved.

        Args:
            code: Agent Python source.
            filename: Name of the agent's text in errors.
            first_line: Line of the block's first line in the agent's text (1-based).
            on_output: Receives output while the block runs.

        Returns:
            The sandbox's :class:`~pibench_tui.sandbox.BlockResult`.
        """
        self.blocks += 1
        try:
            return self.sandbox.run(code, filename=filename, first_line=first_line, on_output=on_output)
        except SandboxStartError:
            raise
        except Exception as exc:  # noqa: BLE001 - MemoryError included: pibench never dies of agent input
            self._reserve = b""  # free the reserve so the report and the save can still be written
            try:
                self.sandbox._restart()
            except Exception:  # noqa: BLE001
                pass
            return BlockResult(
                ok=False,
                error={
                    "type": "InternalError",
                    "message": (
                        f"pibench could not finish serving this block ({type(exc).__name__}); the agent "
                        "process was restarted (variables are gone); the career continues"
                    ),
                    "line": first_line,
                    "source": "pibench",
                },
                restarted=True,
            )
        finally:
            self.autosave()
            if not self._reserve:
                try:
                    self._reserve = bytes(_RESERVE_BYTES)
                except MemoryError:
                    pass

    def status(self) -> dict[str, Any]:
        """``{"month", "done", "impact": {"total", "earned", "projection"}}`` (MECHANICS §12),
        as an agent may see it: until the career is over ``projection`` is ``None`` and
        ``total`` equals ``earned`` (see :func:`public_impact`)."""
        return {"month": self.world.month, "done": self.world.finished, "impact": public_impact(self.world)}

    def prompt_facts(self) -> dict[str, Any]:
        """Month, horizon, budget (dollars) and attention left (hours) for the REPL prompt."""
        dash = self.api.lab.dashboard()
        return {
            "month": dash.get("month"),
            "months": dash.get("months_total"),
            "budget": dash.get("budget"),
            "left": (dash.get("attention") or {}).get("left"),
            "finished": self.world.finished,
        }

    # saves ----------------------------------------------------------------------------
    def autosave(self) -> None:
        """Autosave the career (``--save NAME``) when its month changed since the last one."""
        name = self.options.save
        if self.store is None or name is None:
            return
        key = (self.world.month, self.world.finished)
        if key == self._saved_month:
            return
        try:
            self.career.autosave(name, scenario=self.scenario)
        except Exception as exc:  # noqa: BLE001 - a failed autosave must not end the career
            print(f"pibench headless: warning: autosave failed: {exc}", file=sys.stderr)
            return
        self._saved_month = key

    def final_save(self) -> str | None:
        """Write the career's save ``NAME`` (``--save NAME``); return a line saying so.

        A career resumed with ``--load`` alone is saved only if the session changed it: a
        look at an older autosave must not replace the career's newer save (as quitting the
        TUI without changes writes nothing either). ``None`` when nothing was written."""
        name = self.options.save
        if self.store is None or name is None:
            return None
        if self._unchanged_since == (self.world.version, self.world.s.memory):
            return None
        try:
            info = self.career.save(name, scenario=self.scenario, career=name)
        except Exception as exc:  # noqa: BLE001 - SaveError and OS errors alike
            raise HeadlessError(f"could not save {name!r}: {exc}") from exc
        return f"saved as {info.name!r} (month {info.month}) in {self.store.path}"

    # report ---------------------------------------------------------------------------
    def report_data(self) -> dict[str, Any]:
        """The end-of-session report as data (the JSON-lines ``end`` event; the console
        report prints the same fields): scenario, seed, month reached, state, collapse,
        Impact, papers, grants, students, final budget, digest (MECHANICS §12).

        Impact is :func:`public_impact`: until the career is over (horizon or collapse)
        only what was earned, with ``projection`` ``None`` (withheld): the session may end
        mid-career and a harness may hand this report to the agent, so it must not carry
        the projection replies withhold. After the career the full split."""
        w = self.world
        s = w.summary()
        if w.collapsed:
            state = f"collapsed in month {s.get('collapse_month')}"
        elif w.finished:
            state = "career finished at the horizon"
        else:
            state = "career in progress"
        return {
            "scenario": getattr(self.scenario, "name", "custom"),
            "seed": None if self.options.sealed is not None else w.seed,
            "seed_commitment": self.options.sealed,
            "month": w.month,
            "months": w.cfg.months,
            "state": state,
            "done": w.finished,
            "collapsed": bool(w.collapsed),
            "impact": public_impact(w),
            "publications": s.get("publications", 0),
            "top_publications": s.get("top_publications", 0),
            "h_index": s.get("h_index", 0),
            "grants_won": s.get("grants_won", 0),
            "grant_dollars": s.get("grant_dollars", 0),
            "students_hired": s.get("hires", 0),
            "students_graduated": s.get("students_graduated", 0),
            "students_quit": s.get("students_quit", 0),
            "final_budget": s.get("final_budget", 0),
            "digest": self.career.digest(),
            "confinement": self.confinement().to_dict(),
            "query_worker_confinement": self.career.observer.worker_confinement(),
        }

    def report(self) -> str:
        """The end-of-session report: month reached, collapse, Impact (earned + projection
        once the career is over; earned only before, the projection withheld), papers,
        grants, students (MECHANICS §12)."""
        from world.sqlworker import describe_confinement

        r = self.report_data()
        seed_text = (
            f"seed {r['seed']}" if r["seed_commitment"] is None else f"sealed seed, commitment {r['seed_commitment']}"
        )
        imp = r["impact"]
        if imp["projection"] is None:
            impact_line = f"{imp['earned']:.1f} earned so far (projection {PROJECTION_WITHHELD})"
        else:
            impact_line = f"{imp['total']:.1f} = {imp['earned']:.1f} earned + {imp['projection']:.1f} projection"
        lines = [
            REPORT_HEADER,
            f"scenario        {r['scenario']} ({seed_text})",
            f"month reached   {r['month']} of {r['months']} ({r['state']})",
            f"collapsed       {'yes' if r['collapsed'] else 'no'}",
            f"Impact          {impact_line}",
            f"publications    {r['publications']} ({r['top_publications']} at NAIC), h-index {r['h_index']}",
            f"grants won      {r['grants_won']} (${r['grant_dollars']:,.0f} face value)",
            f"students        {r['students_hired']} hired, {r['students_graduated']} graduated, "
            f"{r['students_quit']} quit",
            f"final budget    ${r['final_budget']:,.0f}",
            f"confinement     {self.confinement().describe().removeprefix('OS confinement: ')}",
            f"query worker    {describe_confinement(r['query_worker_confinement'])}",
            f"state digest    {r['digest']}",
        ]
        return "\n".join(lines) + "\n"

    def write_report_json(self, extra: dict[str, Any] | None = None) -> None:
        """Write the final report to ``--report-json FILE`` (atomically; this process writes
        it, the agent process cannot reach it): :meth:`report_data` plus, in a sealed run,
        the seeds given to the agent's ``random`` (for the evaluator)."""
        if self.options.report_json is None:
            return
        import contextlib
        import json
        import os

        data: dict[str, Any] = {"format": "pibench-headless-report/1", **self.report_data(), **(extra or {})}
        data["agent_random_seeds"] = list(self.sandbox.random_seeds)
        path = self.options.report_json
        tmp = f"{path}.tmp{os.getpid()}"
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1)
                fh.write("\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):  # no stray temporary file beside it
                os.unlink(tmp)
            raise

    def close(self) -> None:
        """Stop the agent process and the query worker, and release the career's lock."""
        try:
            self.sandbox.close()
            self.career.close()
        finally:
            self._release_career()

    def confinement(self) -> Any:
        """The OS confinement the agent processes of this session proved in their
        handshakes (:attr:`pibench_tui.sandbox.Sandbox.proved`), never pibench's own
        forecast; before any handshake, nothing proved (incomplete, said so in its notes)."""
        proved = self.sandbox.proved
        if proved is not None:
            return proved
        from pibench_tui.sandbox import Confinement

        return Confinement.from_dict(None)

    def _release_career(self) -> None:
        """Let another session write this career (after the final save; see :meth:`close`)."""
        if self.career_lock is not None:
            self.career_lock.release()


#: How reports say the projection is not shown mid-career.
PROJECTION_WITHHELD = "withheld until the career ends"


def public_impact(world: Any) -> dict[str, Any]:
    """Impact as agent-facing replies show it: ``{"total", "earned", "projection"}``.

    Until the career is over ``projection`` is ``None`` and ``total`` equals ``earned``:
    the projection is a deterministic function of hidden paper quality, topic hotness and
    reputation, so its month-to-month changes would reveal them. After the horizon or a
    collapse the full split is given (MECHANICS §12).
    """
    from world.scoring import earned, impact

    if world.finished:
        return impact(world)
    e = float(earned(world))  # impact()'s "earned", without the projection it would compute
    return {"total": e, "earned": e, "projection": None}


def _sealed_options(options: HeadlessOptions, scenario: Any) -> HeadlessOptions:
    """``options`` sealed again when ``--load`` opened a sealed career's save: its seed stays
    withheld from the agent, the report and ``--report-json`` (issue 25 §3).

    Raises:
        HeadlessError: ``--seeds @FILE`` names another commitment than the save's.
    """
    commitment = getattr(scenario, "seed_commitment", None)
    if commitment is None:
        return options
    if options.sealed is not None and options.sealed != commitment:
        raise HeadlessError(
            f"--load {options.load}: the save is the sealed career of commitment {commitment[:12]}..., "
            f"not {options.sealed[:12]}..."
        )
    if options.sealed is None:  # --seeds @FILE checked this already
        from pibench_tui.cli.seeds import require_confinement

        refusal = require_confinement(allow_incomplete=options.allow_incomplete_confinement)
        if refusal:
            raise HeadlessError(f"--load {options.load}: a sealed career's save; {refusal}")
    return replace(options, sealed=commitment)


def _open_world(options: HeadlessOptions) -> tuple[Any, Any]:
    """Build the world from ``--load`` or ``--scenario``/``--seed``."""
    if options.load is not None:
        from saves import SaveError
        from scenarios import Scenario

        store = _open_store(options.saves_dir)
        try:
            world, record = store.load_world(options.load)
        except (SaveError, ValueError, KeyError) as exc:
            raise _load_error(f"--load {options.load}", exc) from exc
        scen = record.scenario or {}
        from scenarios import scenario_title

        name = scenario_title(str(scen.get("name", "custom")), world.cfg)  # never passes for the bundled one
        commitment = scen.get("seed_commitment")
        scenario = Scenario(
            name=name,
            description=str(scen.get("description", "")),
            seed=world.seed,
            config=world.cfg,
            source="save",
            seed_commitment=commitment if isinstance(commitment, str) and commitment else None,
        )
        return world, scenario
    from scenarios import ScenarioError, load_scenario
    from world.engine import World

    try:
        scenario = load_scenario(options.scenario, seed=options.seed)
    except ScenarioError as exc:
        raise HeadlessUsageError(str(exc)) from exc
    from scenarios import scenario_title

    scenario = replace(
        scenario, name=scenario_title(scenario.name, scenario.config)
    )  # a file named after a bundled one
    return World(scenario.config, scenario.seed), scenario


def _open_store(saves_dir: str | None) -> Any:
    from saves import SaveError, SaveStore

    try:
        return SaveStore(saves_dir)
    except SaveError as exc:
        raise HeadlessError(f"save store: {exc}") from exc
