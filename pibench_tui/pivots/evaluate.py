"""``pibench pivots eval``: ask a model (or a scripted judge) every case in both plan orders.

Each (case, order) is a fresh conversation (PIVOTS.md "How it is used"); with
``reconsider`` one more turn asks the model to look again. Answers are appended to
``RUN/answers.jsonl`` as they come (flushed and fsynced), so a killed evaluation resumes
with the same command and asks only what is missing. ``RUN/run.json`` holds the settings:
a run directory of other settings (another model, condition, case set ...) is refused.

Backends, retries, time-outs and token accounting are the LLM harness's
(:mod:`pibench_tui.harness.backends`). A call that fails for good after its retries writes
no answer: the case is asked again by the next run of the same command.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..harness.backends import Completion, LLMCallFailed
from ..harness.rundir import JsonlFile, atomic_write_json, iter_jsonl, read_json
from .cases import (
    Case,
    KeyEntry,
    PivotFileError,
    bundled_folder,
    bundled_set_of,
    cases_hash,
    check_sealed_key,
    key_digest,
    key_path,
    load_cases,
    load_key,
)
from .prompt import ORDERS, approx_tokens, case_messages, conversation_digest, parse_answer, reconsider_messages

__all__ = [
    "EVAL_FORMAT",
    "BaselineJudge",
    "LookaheadJudge",
    "EvalSettings",
    "FirstJudge",
    "Judge",
    "PivotRun",
    "RunConflict",
    "evaluate",
    "load_run",
    "read_answers",
]

#: ``run.json["format"]`` of a pivot evaluation run directory.
EVAL_FORMAT = "pibench-pivots-eval/1"


_WHERE = ("base_url", "api_key_env", "command")
"""Backend settings that say where answers come from, not what answers: not compared."""


class RunConflict(Exception):
    """The run directory holds an evaluation of other settings, or is held by another process."""


class Judge(Protocol):
    """Anything that answers a conversation: an LLM backend or a scripted judge."""

    name: str

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        """Reply to ``messages``; raise :class:`LLMCallFailed` when it cannot."""
        ...  # pragma: no cover - protocol

    def describe(self) -> dict[str, Any]:
        """Settings for ``run.json`` (never a key)."""
        ...  # pragma: no cover - protocol


class FirstJudge:
    """The scripted judge ``first``: always the plan shown first.

    Over both orders it is right exactly once per case: 50 % accuracy, a calibration line
    for the scorer (an order bias of 100 %).
    """

    name = "first"

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        """Always ``ANSWER: 1``."""
        return Completion(text="The first plan.\nANSWER: 1", prompt_tokens=0, completion_tokens=0)

    def describe(self) -> dict[str, Any]:
        """``{"backend": "scripted", "judge": "first"}``."""
        return {"backend": "scripted", "judge": "first"}


class BaselineJudge:
    """The scripted judge ``baseline``: the continuation policy's own preference. At the fork
    (re-played from the case's seed) the case's policy acts once; if it makes plan A's calls
    it answers A, plan B's calls B; where it makes neither it has no preference and answers
    nothing (scored wrong, like any unparseable answer)."""

    name = "baseline"

    def decide(self, case: Case, order: str) -> Completion:
        """``ANSWER: 1|2`` for the plan the policy's own calls match (in the shown order)."""
        from world.api import Api
        from world.pivots import KIND_CALLS
        from world.policies import ORACLE, make_policy
        from world.runner import AgentView

        from .fork_record import plan_calls, world_at_fork

        world = world_at_fork(case).fork(1)
        api = Api(world)
        policy = str(case.raw.get("policy") or "baseline")
        before = len(world.s.action_log)
        make_policy(policy).act(api if policy == ORACLE else AgentView(api))
        made = [
            (row[1], row[2])
            for row in world.s.action_log[before:]
            if row[0] == case.fork_month and row[1] in KIND_CALLS[case.kind]
        ]
        pick = None
        for label in ("A", "B"):
            want = [(f"{ns}.{m}", kw) for ns, m, kw in plan_calls(case, label)]
            if made == want:
                pick = label
                break
        if pick is None:
            return Completion(text="The policy prefers neither plan.", prompt_tokens=0, completion_tokens=0)
        shown = "1" if order[0] == pick else "2"
        return Completion(
            text=f"The policy's own calls are plan {pick}'s.\nANSWER: {shown}", prompt_tokens=0, completion_tokens=0
        )

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        """Not used: this judge reads the case (:meth:`decide`)."""
        raise LLMCallFailed("bad_request", "the baseline judge answers cases, not conversations", [], 0.0, 1)

    def describe(self) -> dict[str, Any]:
        """``{"backend": "scripted", "judge": "baseline"}``."""
        return {"backend": "scripted", "judge": "baseline"}


LOOKAHEAD_BRANCHES = tuple(range(1_000_001, 1_000_009))
"""The lookahead judge's own branches: 8, disjoint from any key's (keys use 1..S+2C)."""


class LookaheadJudge:
    """The scripted judge ``lookahead``: an upper reference that sees hidden state. It plays
    both plans on :data:`LOOKAHEAD_BRANCHES` (its own futures, never the key's) and picks the
    plan with more mean Impact."""

    name = "lookahead"

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def decide(self, case: Case, order: str) -> Completion:
        """``ANSWER: 1|2`` for the plan its own branches favour (both orders share the work)."""
        if case.id not in self._seen:
            from world.api import ActionError
            from world.pivots import Decision, Plan, truth

            from .fork_record import plan_calls, world_at_fork

            d = Decision(
                case.kind,
                case.question,
                Plan(case.plans["A"]["text"], plan_calls(case, "A")),
                Plan(case.plans["B"]["text"], plan_calls(case, "B")),
            )
            policy = str(case.raw.get("policy") or "baseline")
            try:
                t = truth(world_at_fork(case), d, LOOKAHEAD_BRANCHES, policy)
            except ActionError as exc:
                raise PivotFileError(
                    f"case {case.id}: a plan is refused at the fork month {case.fork_month} ({exc.message}); "
                    "the case set does not fit its record"
                ) from None
            self._seen[case.id] = "A" if t.delta >= 0 else "B"
        pick = self._seen[case.id]
        shown = "1" if order[0] == pick else "2"
        return Completion(
            text=f"Plan {pick} did better in my futures.\nANSWER: {shown}", prompt_tokens=0, completion_tokens=0
        )

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        """Not used: this judge reads the case (:meth:`decide`)."""
        raise LLMCallFailed("bad_request", "the lookahead judge answers cases, not conversations", [], 0.0, 1)

    def describe(self) -> dict[str, Any]:
        """``{"backend": "scripted", "judge": "lookahead", "branches": ...}``."""
        return {
            "backend": "scripted",
            "judge": "lookahead",
            "branches": [LOOKAHEAD_BRANCHES[0], LOOKAHEAD_BRANCHES[-1]],
        }


@dataclass(frozen=True)
class EvalSettings:
    """What makes an evaluation run: two runs of other settings never share a directory.

    Attributes:
        label: The row name in scores and reports (default: the model).
        model: The model (or scripted judge) name.
        condition: ``record`` or ``plans`` (:data:`pibench_tui.pivots.prompt.CONDITIONS`).
        reconsider: Ask one more turn ("look again") after the first answer.
        cases: The case set's path as given (for ``score`` to find the key).
        cases_hash: :func:`~pibench_tui.pivots.cases.cases_hash` of the set.
        backend: The backend's :meth:`describe` (model, endpoint, temperature, tokens ...).
    """

    label: str
    model: str
    condition: str
    reconsider: bool
    cases: str
    cases_hash: str
    backend: dict[str, Any] = field(default_factory=dict)

    def fingerprint(self) -> str:
        """SHA-256 of every setting except the case set's path (a moved set is the same set)
        and where the endpoint is reached (the same model behind another URL or key variable
        is the same evaluation)."""
        data = asdict(self)
        data.pop("cases")
        data["backend"] = {k: v for k, v in self.backend.items() if k not in _WHERE}
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


@contextmanager
def _held(run: Path) -> Iterator[None]:
    """Hold ``RUN/.lock`` (``flock``) for the evaluation; a second one fails at once, and a
    file where the folder (or a folder above it) goes is a :class:`RunConflict` naming it."""
    try:
        run.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in (run, *run.parents) if p.exists() and not p.is_dir()), run)
        raise RunConflict(f"{run}: {blocker} is a file, not a folder; use another --out") from None
    fd = os.open(run / ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            raise RunConflict(f"{run} is being evaluated by {holder}; wait for it or use another --out") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)


def read_answers(run: str | os.PathLike[str]) -> list[Any]:
    """The answer lines of an evaluation run (a torn last line from a kill is ignored; lines
    are returned as parsed, not necessarily objects).

    Raises:
        ValueError: The file is damaged beyond a torn last line (a line that is not JSON, a
            line nested too deep, a line or file too large, a symbolic link): the message
            names the file and line.
    """
    return list(iter_jsonl(Path(run) / "answers.jsonl", strict=True, torn_tail=True))


@dataclass(frozen=True)
class PivotRun:
    """An evaluation run directory, read for scoring (:func:`load_run`).

    Attributes:
        path: The run directory.
        meta: Its ``run.json``.
        cases: The case set it answered (unchanged since: its hash is checked).
        key: The answer key.
        answers: The ``answers.jsonl`` lines, as read (the scorer re-derives every choice).
        sessions_per_case: 2 (a model) or 1 (a person).
        case_set: The bundled set's name (``dev``) when the cases are a bundled set's, else
            the case set's path as ``run.json`` names it.
        key_sha256: :func:`~pibench_tui.pivots.cases.key_digest` of the key it is scored with.
        bundled: Whether its cases are a set bundled with pibench (scored with pibench's own key).
        torn: Whether ``answers.jsonl`` ends in a cut line (a killed evaluation): that answer is
            not among :attr:`answers` (scored as missing) until ``pivots eval`` resumes the run.
    """

    path: Path
    meta: dict[str, Any]
    cases: list[Case]
    key: dict[str, KeyEntry]
    answers: list[Any]
    sessions_per_case: int
    case_set: str = ""
    key_sha256: str = ""
    bundled: bool = False
    torn: bool = False

    @property
    def condition(self) -> str:
        """The condition its ``run.json`` names (the scorer re-derives each model session's
        conversation under it: :func:`~pibench_tui.pivots.score.check_answers`)."""
        return str(self.meta.get("condition"))

    def reference_reply(self) -> Callable[[Case, str], str | None] | None:
        """For a run of a scripted judge (``run.json``'s backend ``scripted``), the reply that
        judge gives to a case in an order, played again here (``None`` where it refuses the
        case); ``None`` for a model or a person, whose replies only the record holds."""
        return scripted_reply(self.meta.get("backend"))


SCRIPTED_JUDGES: dict[str, Callable[[], Judge]] = {
    "first": FirstJudge,
    "baseline": BaselineJudge,
    "lookahead": LookaheadJudge,
}
"""The scripted judges by name (``pibench pivots eval --judge``)."""


def scripted_reply(backend: Any) -> Callable[[Case, str], str | None] | None:
    """The reply function of the scripted judge a run's ``backend`` settings name (see
    :meth:`PivotRun.reference_reply`), or ``None`` when they name none. Deterministic: a
    scripted judge's reply depends only on the case and the order (the lookahead judge plays
    its own fixed branches), so a reply it did not give shows."""
    if not isinstance(backend, dict) or backend.get("backend") != "scripted":
        return None
    make = SCRIPTED_JUDGES.get(str(backend.get("judge")))
    if make is None:
        return lambda case, order: None  # a scripted judge this pibench does not have: no reply is its
    judge = make()

    def reply(case: Case, order: str) -> str | None:
        decide = getattr(judge, "decide", None)
        try:
            return (decide(case, order) if decide is not None else judge.complete([])).text
        except (LLMCallFailed, PivotFileError):  # it refuses the case: it gave no reply
            return None

    return reply


def load_run(run: str | os.PathLike[str], key: str | os.PathLike[str] | None = None) -> PivotRun:
    """Read a run directory, its case set and answer key for ``pibench pivots score`` and
    ``pibench report`` (one home: both read a run alike).

    Args:
        run: The run directory.
        key: The answer key (default: ``key.jsonl`` beside the run's case set; a sealed set's
            key must match its commitment).

    Raises:
        PivotFileError: Not a pivot evaluation run, a damaged ``run.json`` or
            ``answers.jsonl``, a case set changed since the run, a missing or wrong key: the
            message names the run directory, the file and (for a damaged line) its number.
    """
    path = Path(run)
    try:
        meta = read_json(path / "run.json")
    except (OSError, ValueError) as exc:
        raise PivotFileError(f"{run}: not a pivot evaluation run ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != EVAL_FORMAT:
        raise PivotFileError(f"{run}: not a pivot evaluation run (no {EVAL_FORMAT} run.json)")
    where = meta.get("cases")
    if not isinstance(where, str) or not where:
        raise PivotFileError(f"{run}: run.json names no case set")
    cases = load_cases(where)
    digest = cases_hash(cases)
    if digest != meta.get("cases_hash"):
        raise PivotFileError(f"{run}: the case set at {where} changed since this run was made")
    folder = Path(where) if Path(where).is_dir() else Path(where).parent
    key_file = key if key is not None else folder / "key.jsonl"
    bundled = bundled_set_of(digest, where)
    if bundled is not None:
        entries = _bundled_key(bundled, cases, key_file, run)
    else:
        check_sealed_key(where, key_file, given=key is not None)
        entries = load_key(key_file, cases)
    try:
        answers = read_answers(path)
    except ValueError as exc:
        raise PivotFileError(f"{run}: answers cannot be read: {exc}") from None
    backend = meta.get("backend")
    sessions = 1 if isinstance(backend, dict) and backend.get("sessions_per_case") == 1 else 2
    return PivotRun(
        path,
        meta,
        cases,
        entries,
        answers,
        sessions,
        bundled or where,
        key_digest(entries),
        bundled is not None,
        ends_torn(path / "answers.jsonl"),
    )


def ends_torn(path: Path) -> bool:
    """Whether the file at ``path`` ends in a line without its newline (what a kill mid-write
    leaves, and :func:`read_answers` leaves out); ``False`` for a missing or empty file."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell() == 0:
                return False
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) != b"\n"
    except OSError:
        return False


def _bundled_key(
    name: str, cases: list[Case], key_file: str | os.PathLike[str], run: str | os.PathLike[str]
) -> dict[str, KeyEntry]:
    """The key of the bundled set ``name``, which a run of its cases is scored with: the key
    pibench ships, never one beside a copy of the set that ``run.json`` points to. A key
    there (or given) that answers otherwise is refused, naming it (a QA tester's copy of
    ``dev`` with a key rewritten consistently, answers and branches, scored a coin-flip model
    0.80 beside runs scored on the real key, with no word)."""
    shipped = key_path(bundled_folder(name))
    entries = load_key(shipped, cases)
    other = key_path(key_file)
    if os.path.lexists(other) and other.resolve() != shipped.resolve():
        if load_key(other, cases) != entries:
            raise PivotFileError(
                f"{run}: {other} is not the answer key of the bundled case set {name!r} (its cases are that "
                "set's): a run of a bundled set is scored with the key pibench ships, and this one answers "
                "otherwise (an edited copy)"
            )
    return entries


def _check_settings(run: Path, settings: EvalSettings) -> None:
    meta = run / "run.json"
    if not meta.exists():
        if (run / "answers.jsonl").exists():
            raise RunConflict(f"{run} holds answers but no run.json: not a pivot evaluation run; use another --out")
        atomic_write_json(meta, {"format": EVAL_FORMAT, "fingerprint": settings.fingerprint(), **asdict(settings)})
        return
    try:
        old = read_json(meta)
    except (OSError, ValueError) as exc:
        raise RunConflict(f"{meta}: unreadable ({exc}); use another --out") from None
    if not isinstance(old, dict) or old.get("format") != EVAL_FORMAT:
        raise RunConflict(f"{meta} is not a pivot evaluation run ({EVAL_FORMAT}); use another --out")
    if old.get("fingerprint") != settings.fingerprint():
        diff = [
            k for k in ("label", "model", "condition", "reconsider", "cases_hash") if old.get(k) != asdict(settings)[k]
        ]
        raise RunConflict(
            f"{run} holds an evaluation of other settings ({', '.join(diff) or 'backend settings'} differ); "
            "use another --out to evaluate these settings"
        )


def _usage(c: Completion, messages: list[dict[str, str]]) -> dict[str, Any]:
    return {
        "prompt": c.prompt_tokens,
        "completion": c.completion_tokens,
        "prompt_estimate": approx_tokens("".join(m["content"] for m in messages)),
        "attempts": c.attempts,
        "seconds": round(c.seconds, 3),
        "conversation_sha256": conversation_digest(messages),
    }


def _ask(judge: Judge, case: Case, order: str, settings: EvalSettings) -> dict[str, Any]:
    """One session: the answer line for ``case`` in ``order`` (raises :class:`LLMCallFailed`).
    A scripted judge that reads the case itself (a ``decide(case, order)`` method) is asked that."""
    messages = case_messages(case, order, settings.condition)
    decide = getattr(judge, "decide", None)
    first = decide(case, order) if decide is not None else judge.complete(messages)
    line: dict[str, Any] = {
        "id": case.id,
        "order": order,
        "answer": parse_answer(first.text, order),
        "raw": first.text,
        "tokens": [_usage(first, messages)],
    }
    if settings.reconsider:
        again = reconsider_messages(messages, first.text)
        second = judge.complete(again)
        line["reconsidered"] = parse_answer(second.text, order)
        line["raw_reconsidered"] = second.text
        line["tokens"].append(_usage(second, again))
    return line


def _drop_torn_tail(answers: JsonlFile) -> None:
    """Cut a last line a kill left without its newline, so the next answer starts a line of
    its own (appended to the torn one, both would be lost to every reader)."""
    if ends_torn(answers.path):
        answers.truncate(answers.lines)


def evaluate(
    cases: list[Case],
    judge_factory: Callable[[], Judge],
    settings: EvalSettings,
    out: str | os.PathLike[str],
    *,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Ask every case in both orders; resume where ``out`` stopped.

    Args:
        cases: The case set.
        judge_factory: Builds one judge per worker thread (an LLM backend or a scripted judge).
        settings: The run's settings (checked against ``out/run.json``).
        out: The run directory.
        jobs: Sessions asked at once (threads).
        progress: Called with ``(done, total)`` sessions after each answer.

    Returns:
        ``{"asked": n, "done": n, "total": n, "failed": [{"id", "order", "kind", "message"}]}``.

    Raises:
        RunConflict: ``out`` holds another evaluation or is in use.
    """
    run = Path(out)
    with _held(run):
        _check_settings(run, settings)
        try:
            previous = read_answers(run)
        except ValueError as exc:
            raise RunConflict(
                f"{run}: its answers cannot be read ({exc}); nothing was asked: move the damaged "
                "answers.jsonl aside or use another --out"
            ) from None
        done = {(a.get("id"), a.get("order")) for a in previous if isinstance(a, dict)}
        todo = [(c, o) for c in cases for o in ORDERS if (c.id, o) not in done]
        total = 2 * len(cases)
        answers = JsonlFile(run / "answers.jsonl")
        _drop_torn_tail(answers)
        lock = threading.Lock()
        failed: list[dict[str, Any]] = []
        state = {"done": total - len(todo)}
        local = threading.local()

        def one(task: tuple[Case, str]) -> None:
            case, order = task
            if not hasattr(local, "judge"):
                local.judge = judge_factory()
            try:
                line = _ask(local.judge, case, order, settings)
            except LLMCallFailed as exc:
                with lock:
                    failed.append({"id": case.id, "order": order, "kind": exc.kind, "message": exc.message})
                return
            with lock:
                answers.append(line)
                answers.sync()
                state["done"] += 1
                if progress is not None:
                    progress(state["done"], total)

        try:
            if jobs <= 1:
                for task in todo:
                    one(task)
            else:
                with ThreadPoolExecutor(max_workers=jobs) as pool:
                    list(pool.map(one, todo))
        finally:
            answers.close()
        return {"asked": len(todo), "done": state["done"], "total": total, "failed": failed}


def run_row_key(run: PivotRun) -> tuple[str, str, str]:
    """What names a run's row in scores and reports: (label, condition, case set hash)."""
    return (str(run.meta.get("label")), str(run.meta.get("condition")), str(run.meta.get("cases_hash")))


def sort_out_runs(runs: list[PivotRun]) -> tuple[list[PivotRun], list[str], dict[Path, str]]:
    """Drop a run given twice and find runs that claim one row (the career report's rule for
    conflicting careers, :func:`pibench_tui.report.load.drop_duplicates`).

    The same run read twice (one folder named twice, or a copy: the same settings and the
    same answer lines) counts once. Different runs under one label, condition and case set
    conflict: which one is "the" row must never depend on the order of the paths. Runs of
    one case set scored with different answer keys conflict too (a set has one key), and a
    run of a set not bundled with pibench gets a note naming its key's digest.

    Returns:
        ``(kept, notes, conflicts)``: the runs to show (first copies, in the order given),
        one note per dropped copy, and for each run in a conflict the reason naming every
        folder of its row.
    """
    kept: list[PivotRun] = []
    notes: list[str] = []
    for run in runs:
        twin = next((k for k in kept if _same_run(k, run)), None)
        if twin is not None:
            notes.append(f"{run.path}: the same run as {twin.path}; counted once")
            continue
        kept.append(run)
    rows: dict[tuple[str, str, str], list[PivotRun]] = {}
    for run in kept:
        rows.setdefault(run_row_key(run), []).append(run)
    conflicts: dict[Path, str] = {}
    for (label, condition, _h), members in rows.items():
        if len(members) < 2:
            continue
        names = ", ".join(str(m.path) for m in members)
        why = (
            f"conflicting runs for {label} · {condition}: {names} hold different answers of this label, "
            "condition and case set; keep one run folder per row, or evaluate again with --label"
        )
        for m in members:
            conflicts[m.path] = why
    by_set: dict[str, list[PivotRun]] = {}
    for run in kept:
        by_set.setdefault(str(run.meta.get("cases_hash")), []).append(run)
    for members in by_set.values():
        if len({m.key_sha256 for m in members}) < 2:
            continue
        names = ", ".join(f"{m.path} (key SHA-256 {m.key_sha256[:12]}...)" for m in members)
        why = (
            f"runs of one case set scored with different answer keys: {names}; a set has one key (its "
            "builder's): score them with the same --key"
        )
        for m in members:
            conflicts[m.path] = why
    for run in kept:
        if not run.bundled:
            notes.append(
                f"{run.path}: its case set {run.case_set} is not bundled with pibench: scored with the key "
                f"beside it (SHA-256 {run.key_sha256[:12]}...), which only the set's builder vouches for"
            )
    return kept, notes, conflicts


def _same_run(a: PivotRun, b: PivotRun) -> bool:
    try:
        if a.path.resolve() == b.path.resolve():
            return True
    except OSError:
        pass
    return a.meta == b.meta and a.answers == b.answers
