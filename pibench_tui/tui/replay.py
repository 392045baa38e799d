"""Replays for the viewer (``pibench play --replay SAVE|RUN_DIR``): open a save or a run
directory and re-simulate the career month by month, read-only.

A run directory (``DIR/<label>/<scenario>-<seed>/``, written by ``pibench agent`` and
``pibench run --save-runs``) gives ``result.json`` (config and seed), ``actions.jsonl`` (the
world's action log), ``months.jsonl`` (each closed month's report and dashboard) and, for
agent runs, ``transcript.jsonl``. A save gives the world, whose action log, config and seed
are enough. Either way :class:`Replayer` rebuilds the world as it stood at any month
(re-simulating from the seed with the logged actions, so every panel shows what the PI saw),
and checks the final digest when the run recorded one. Nothing here imports Textual.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pibench_tui.harness.rundir import RUN_FORMAT, read_json, read_jsonl
from pibench_tui.tui.game import Game
from world.career import Career
from world.config import WorldConfig


class ReplayError(Exception):
    """The save or run directory cannot be replayed; the message says what is wrong."""


@dataclass
class ReplaySource:
    """A career to replay.

    Attributes:
        kind: ``"save"``, ``"agent"`` or ``"policy"``.
        label: what to call it (save name, or ``label · model/policy``).
        scenario: the scenario's name.
        config: the world parameters.
        seed: the world seed.
        log: the world's action log (``[month, "ns.method", kwargs]`` rows).
        months: ``{month: {"report": ..., "dashboard": ...}}`` from ``months.jsonl`` (may be empty).
        transcript: the agent's transcript entries (agent runs only).
        result: ``result.json`` (run directories) or ``{}``.
        path: where it came from.
        seed_commitment: a sealed career's public commitment (its seed is never shown).
    """

    kind: str
    label: str
    scenario: str
    config: WorldConfig
    seed: int
    log: list
    months: dict[int, dict] = field(default_factory=dict)
    transcript: list[dict] = field(default_factory=list)
    result: dict = field(default_factory=dict)
    path: str = ""
    seed_commitment: str | None = None

    @property
    def seed_text(self) -> str:
        """The seed as the viewer may show it: ``seed N``, or ``sealed:<commitment prefix>``
        for a sealed career's save (the seed is withheld until unsealed)."""
        return f"sealed:{self.seed_commitment[:12]}" if self.seed_commitment else f"seed {self.seed}"

    def transcript_for(self, month: int) -> list[dict]:
        """The transcript entries of ``month`` (empty for saves and policy runs)."""
        return [e for e in self.transcript if e.get("month") == month]


def _jsonl(path: Path) -> list[Any]:
    """A JSON-lines file of the run directory, size-limited and split at ``\n`` only
    (:func:`pibench_tui.harness.rundir.read_jsonl`)."""
    try:
        return read_jsonl(path, strict=True)
    except (OSError, ValueError) as exc:
        raise ReplayError(str(exc)) from exc


def open_run_dir(path: str | Path) -> ReplaySource:
    """Read a run directory (``result.json``, ``actions.jsonl``, ``months.jsonl``, ``transcript.jsonl``).

    Raises:
        ReplayError: a file is missing or unreadable, the format is unknown, or the seed is
            still sealed (``null``).
    """
    p = Path(path)
    try:
        result = read_json(p / "result.json")
    except FileNotFoundError as exc:
        raise ReplayError(f"{p} is not a run directory: it has no result.json") from exc
    except (OSError, ValueError) as exc:
        raise ReplayError(str(exc)) from exc
    if not isinstance(result, dict):
        raise ReplayError(f"{p / 'result.json'} is not a pibench run result")
    if result.get("format") != RUN_FORMAT:
        raise ReplayError(f"{p / 'result.json'}: format {result.get('format')!r}, expected {RUN_FORMAT!r}")
    if result.get("seed") is None:
        raise ReplayError(
            f"{p}: the seed is sealed (null); reveal it before replaying (seed commitment "
            f"{result.get('seed_commitment')})"
        )
    if not (p / "actions.jsonl").exists():
        raise ReplayError(f"{p} has no actions.jsonl: the career cannot be re-simulated")
    try:
        config = WorldConfig.from_dict(result["config"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"{p / 'result.json'}: no usable config ({exc})") from exc
    log = [
        [row["month"], row["call"], row.get("kwargs", {})] if isinstance(row, dict) else row
        for row in _jsonl(p / "actions.jsonl")
    ]
    months = {int(r["month"]): r for r in _jsonl(p / "months.jsonl") if "month" in r}
    kind = str(result.get("kind") or "policy")
    who = result.get("model") or result.get("policy") or ""
    label = " · ".join(dict.fromkeys(str(x) for x in (result.get("label"), who) if x))  # once when label == policy
    return ReplaySource(
        kind=kind,
        label=label or p.name,
        scenario=str(result.get("scenario") or "custom"),
        config=config,
        seed=int(result["seed"]),
        log=log,
        months=months,
        transcript=_jsonl(p / "transcript.jsonl") if kind == "agent" else [],
        result=result,
        path=str(p),
    )


def open_save(name: str, saves_dir: str | None = None, store: Any = None) -> ReplaySource:
    """Read a save (by name or career) of the save store.

    Raises:
        ReplayError: no such save, or it cannot be read.
    """
    from saves import SaveError, SaveStore

    try:
        store = store or SaveStore(saves_dir)
        world, record = store.load_world(name)
    except SaveError as exc:
        raise ReplayError(str(exc)) from exc
    scenario = str((record.scenario or {}).get("name") or "custom")
    commitment = (record.scenario or {}).get("seed_commitment")
    return ReplaySource(
        kind="save",
        label=record.info.name,
        scenario=scenario,
        seed_commitment=commitment if isinstance(commitment, str) and commitment else None,
        config=WorldConfig.from_dict(world.cfg.to_dict()),
        seed=world.seed,
        log=[list(row) for row in world.s.action_log],
        result={"digest": world.digest(), "memory_final": world.s.memory},
        path=str(store.path),
    )


def open_source(target: str, saves_dir: str | None = None) -> ReplaySource:
    """A run directory when ``target`` is a folder with ``result.json``, else a save name.

    Raises:
        ReplayError: neither can be read (the message says which was tried).
    """
    p = Path(target)
    if p.is_dir():
        return open_run_dir(p)
    try:
        return open_save(target, saves_dir)
    except ReplayError as exc:
        if p.exists():  # a file: neither a save's name nor a run directory
            raise ReplayError(f"{exc}; {target} is a file, not a run directory (a folder with result.json)") from None
        raise


def _is_tick(row: list) -> bool:
    return row[1] == "time.next_month"


class Replayer:
    """Re-simulates a :class:`ReplaySource` and hands out the world at any month.

    ``game_at(m)`` is the career as the PI left month ``m``: every action of month ``m``
    applied, the month not yet closed (for the last month of a finished career: the end).
    Going forward continues the simulation; going back restores a snapshot kept on the way.

    Raises:
        ReplayError: a logged call is refused (the log does not fit this world).
    """

    def __init__(self, source: ReplaySource) -> None:
        self.source = source
        #: The re-simulated career (replaced by a restored snapshot when going back).
        self.career = Career.new(WorldConfig.from_dict(source.config.to_dict()), source.seed)
        self.game = Game(self.career, scenario=source.scenario)
        self._next = 0  # index of the next log row to apply
        self._snapshots: dict[int, tuple[dict, int]] = {}
        self.reports: dict[int, dict] = {}  # month -> its report, as re-simulated
        self.first_month = 1
        # Re-simulate the whole log once: the last month is where the career stopped (a finished
        # career's last tick does not move the month on: that month is shown as the career ended).
        self.ended = False
        self.last_month = 10**9
        self._advance_to(self.last_month)
        self.last_month = self.world.month
        self.ended = bool(self.world.finished)
        self.month = self.last_month

    @property
    def world(self) -> Any:
        """The re-simulated ``World`` (the career's)."""
        return self.career.world

    def _apply(self, row: list) -> None:
        month, name, kwargs = row[0], row[1], row[2] if len(row) > 2 else {}
        if self.world.month != month:
            raise ReplayError(
                f"action log out of step: {name} logged in month {month}, the world is in month {self.world.month}"
            )
        if _is_tick(row):
            self.reports[int(month)] = self.game.next_month()
            return
        ns, method = name.split(".", 1)
        try:
            self.career.api.call(ns, method, [], kwargs)
        except Exception as exc:  # noqa: BLE001 - ActionError: the log does not fit
            raise ReplayError(f"replaying {name}({kwargs}) in month {month} failed: {exc}") from exc

    def _advance_to(self, month: int) -> None:
        log = self.source.log
        while self._next < len(log):
            row = log[self._next]
            if _is_tick(row) and int(row[0]) >= month and not (self.ended and month == self.last_month):
                break
            if self.world.month not in self._snapshots:
                self._snapshots[self.world.month] = (self.world.to_state(), self._next)
            self._apply(row)
            self._next += 1

    def goto(self, month: int) -> Game:
        """The career as the PI left ``month`` (clamped to the career's months)."""
        month = max(self.first_month, min(self.last_month, int(month)))
        if month < self.month:
            state, index = self._snapshots.get(month) or self._snapshots[self.first_month]
            self.career = Career.restore(state)
            self.game = Game(self.career, scenario=self.source.scenario)
            self._next = index
        self._advance_to(month)
        self.month = month
        return self.game

    def game_after(self, month: int) -> Game:
        """The career just after ``month``'s close: the world its report speaks of (who left,
        in which month, what they left behind), not the world of the month's actions that
        :meth:`goto` shows. A new game on the state kept at the start of ``month + 1``; for
        the last month (the viewer is on it when it asks), :attr:`game`."""
        kept = self._snapshots.get(int(month) + 1)
        if kept is None:  # the last month: its close is where the re-simulation stopped
            return self.game
        return Game(Career.restore(kept[0]), scenario=self.source.scenario)

    def report(self, month: int) -> dict | None:
        """The month report of ``month`` (as recorded in ``months.jsonl``, else as re-simulated;
        ``None`` for a month that was not closed)."""
        rec = self.source.months.get(month)
        if rec and rec.get("report"):
            return rec["report"]
        return self.reports.get(month)

    def check_digest(self) -> str | None:
        """``None`` when the final world digest matches the recorded one, else a sentence saying it does not."""
        want = self.source.result.get("digest")
        if not want:
            return None
        self.goto(self.last_month)
        # The agent's notes are part of the state but not of the action log: the digest was
        # taken with the notes the career ended with (as `pibench replay` checks it).
        shown = self.world.s.memory
        self.world.s.memory = str(self.source.result.get("memory_final") or "")
        try:
            got = self.world.digest()
        finally:
            self.world.s.memory = shown
        return None if got == want else f"re-simulated digest {got[:12]} differs from the recorded {str(want)[:12]}"
