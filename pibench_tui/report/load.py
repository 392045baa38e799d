"""Read careers for ``pibench report``: run directories (agent and policy) and
``pibench run --json`` / ``pibench compare --json`` outputs.

The report re-derives, it never believes (issue 25 §1). Each career becomes a
:class:`Career` whose ``status`` says what this invocation proved:

* ``valid`` -- re-simulated here, from its action log and the full config its run recorded
  (policy careers, folders and ``run --json`` rows: the named policy played again, which is
  deterministic, making exactly the logged calls; a sealed row, ``seed`` null and
  ``seed_commitment``, with the seed ``--seal`` reveals); the world reached the recorded end,
  Impact and state digest. Its Impact is the *re-simulated* one.
* ``invalid`` -- it does not re-simulate, a file is damaged, too large or not a run result,
  its folder is another career's (a copied run folder) or is named as a run folder but
  holds none of a run's files, a policy career's log is not its
  policy's, or another career of its label and seed conflicts with it
  (:func:`drop_duplicates`). Counts as Impact 0 and shows no figures of its files.
* ``unverified`` -- it could not be re-simulated here: a sealed seed without ``--seal``, a
  policy this pibench does not know, or ``--no-simulate``; or ``--check-transcripts`` was
  asked and its transcript check did not finish (the budget ran out). Shows no figures of its files
  (as an invalid one); kept out of every aggregate unless ``--trust-unverified``, which
  counts its recorded Impact and collapse (:attr:`Career.recorded_impact`,
  :attr:`Career.recorded_collapsed`), marked wherever they enter a figure.
* ``unfinished`` / ``crashed`` -- a run directory with a checkpoint (the career stopped and
  can be resumed) or with its files but neither a checkpoint nor a result.
* ``foreign`` -- a folder among the runs that is not a run folder: its name is not
  ``<scenario>-<seed>`` and it holds no run result (``{"hello": 1}``, only a log, a link to
  a folder). Listed with its reason; it is no career: no row, no scenario, no seed.

Careers are keyed by :attr:`Career.key`: the seed, or ``sealed:<first 12 hex digits of the
commitment>`` for a sealed career (pairing for Δ and wins uses it). A scenario is its
content: :attr:`Career.scenario` is the bundled name only when the config's
:meth:`~world.config.WorldConfig.content_hash` is the bundled scenario's, else
``"<name> (modified <hash>)"``. Token counts, LLM calls and integrity flags of agent runs
come from ``transcript.jsonl``, not from ``result.json``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote

from pibench_tui.harness.runcheck import RUN_NAME, find_run_folders, finite_number, folder_problem, result_problem
from pibench_tui.harness.rundir import (
    MAX_JSON_BYTES,
    MAX_JSONL_BYTES,
    RUN_FORMAT,
    RunFileMissing,
    iter_jsonl,
    read_action_log,
    read_json,
)
from pibench_tui.words import count

__all__ = [
    "FOLDER_KEY",
    "HARNESS_SETTINGS",
    "MISSING_STATUSES",
    "Career",
    "LoadError",
    "LoadProgress",
    "canonical_scenario",
    "drop_duplicates",
    "load_careers",
    "scenario_label",
    "tokens_known",
]

#: The start of the key of a folder whose name is not ``<scenario>-<seed>`` (``folder:<name>``):
#: no seed, so no other label is ever counted as missing it.
FOLDER_KEY = "folder:"
#: Statuses of careers that are listed but kept out of aggregates (``unverified`` is
#: counted with ``--trust-unverified``).
MISSING_STATUSES = ("unfinished", "crashed", "unverified", "never answered")
#: The status of an agent career whose LLM never answered (:func:`_unanswered`): listed and
#: counted in the "missing" column, kept out of every mean.
NEVER_ANSWERED = "never answered"


#: Statuses of careers whose files' figures are not shown (:meth:`Career.clear_figures`).
_UNBELIEVED = ("invalid", "unverified")


class LoadError(ValueError):
    """A path given to ``pibench report`` holds nothing it can read."""


@dataclass
class Career:
    """One career as the report sees it.

    Attributes:
        label: The leaderboard row (model or policy label).
        kind: ``"agent"`` or ``"policy"``.
        scenario: Scenario as the report groups it (:func:`scenario_label`).
        seed: World seed (``None`` while sealed, also after ``--seal``: the seal file stays
            the one place the seed is written).
        key: The seed's column: ``str(seed)`` or ``sealed:<commitment prefix>``.
        status: ``valid``, ``invalid``, ``unverified``, ``unfinished``, ``crashed`` or ``foreign``
            (module docstring).
        config_hash: The config's content hash (``None`` when unknown).
        impact / earned / projection: Impact split (MECHANICS §12): re-simulated for valid
            careers; 0 for the others, whose files are not believed (:meth:`clear_figures`);
            ``recorded_impact`` / ``recorded_collapsed``: what the files said (counted for an
            unverified career with ``--trust-unverified`` only).
        months: Horizon of the scenario; ``months_played``: months survived.
        earned_by_month / budget_by_month: Citations earned and budget (USD) at the end
            of each closed month (index 0 = month 1), when re-simulated.
        best_paper: Citations earned + projected of the single best paper.
        axes: ``world.axes.capability_axes`` output (``{"axes", "pool"}``), re-simulated careers only.
        tokens / calls / failed_calls / blocks / block_errors: agent runs, from the transcript.
        calls_without_usage: Answered LLM calls whose transcript entry records no token count
            (the provider sent no usable ``usage``): ``tokens`` and the cost are then a lower
            bound, or unknown when no answered call has one (:func:`tokens_known`).
        flags / integrity: integrity incidents (agent runs), from the transcript.
        valid: ``True`` (valid), ``False`` (invalid) or ``None`` (neither proved).
        transcript_check: the verdict of ``--check-transcripts`` (``None``: not checked).
        transcript_unchecked: Why a ``--check-transcripts`` check did not finish (``log
            unchecked (budget exhausted after N of M blocks) ...``); the career is then
            ``unverified``: kept out of every figure unless ``--trust-unverified`` (a run's
            own claims must not turn a failed check into a counted career). ``None``:
            checked, or not asked.
        price: The price result.json recorded beside its cost (``price``), when it is a valid
            one (:func:`pibench_tui.pricing.price_problem`), else ``None``: the report prices
            the career's re-derived tokens at it when no ``--price`` is given (the ``cost_usd``
            a result.json records is not read: an edited one was shown as the cost).
        fingerprint: SHA-256 of the career's action log (canonical JSON rows), from
            actions.jsonl or from the policy played again; with the seed and config it is the
            career. Two careers of one label, scenario and seed are the same career when
            their fingerprints are (:func:`drop_duplicates`). ``None`` when unknown.
        dropped_as: Why :func:`drop_duplicates` dropped the career (``None``: kept).
        harness: The harness settings a reader compares labels by (:data:`HARNESS_SETTINGS`:
            max turns, block timeout, temperature, max tokens) as result.json's ``harness``
            recorded them (agent runs; ``None`` when not recorded).
        abandoned_prompt_tokens / abandoned_completion_tokens: Tokens paid for and not in
            the counts, re-derived: turns lost to an interruption (the transcript's ``resume``
            entries) and careers set aside by ``--redo-failed`` (their
            ``abandoned-N.transcript.jsonl``), each bounded like a call's tokens.
        timed_out_prompt_estimate: The prompt tokens of requests abandoned at a time-out or
            in flight at a kill, estimated: the in-flight ones from the transcript's
            ``resume`` entries, the timed-out ones from result.json
            (``tokens.abandoned.timed_out.prompt_estimated``) checked against the time-outs
            the transcript records (at most :data:`MAX_CALL_TOKENS` each, none without one);
            priced into the cost at the prompt price, as an estimate.
        in_flight_prompt_estimate: The in-flight part of ``timed_out_prompt_estimate``
            (notes name the two kinds apart).
        plan_sha256 / plan_copy: The plan file's SHA-256 its result.json recorded (``plan``;
            ``None``: not run from a plan) and whether the copy in the output folder has
            that hash (:func:`_plan_copy`: ``verified``, ``differs``, ``missing``).
        settings_hash: The harness settings' SHA-256, derived from its ``harness`` record
            (``result.json["settings_sha256"]`` only without one); ``None`` when
            unknown. The report splits a label whose careers differ in it.
        model_ids: The model ids the provider said answered (:func:`_model_ids`; agent
            runs): the report notes a row whose careers were answered by different ones.
    """

    label: str
    kind: str
    scenario: str
    seed: int | None
    source: str
    impact: float
    earned: float
    projection: float
    collapsed: bool
    collapse_month: int | None
    months: int
    months_played: int
    publications: int
    grants: int
    hires: int
    quits: int
    model: str | None = None
    tokens: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    calls: int | None = None
    failed_calls: int | None = None
    blocks: int | None = None
    block_errors: int | None = None
    flags: int | None = None
    integrity: dict[str, int] = field(default_factory=dict)
    valid: bool | None = None
    invalid_reason: str | None = None
    earned_by_month: list[float] = field(default_factory=list)
    budget_by_month: list[float] = field(default_factory=list)
    best_paper: float | None = None
    axes: dict[str, Any] | None = None
    key: str = ""
    status: str = ""
    config_hash: str | None = None
    recorded_impact: float | None = None
    recorded_collapsed: bool | None = None
    dropped_as: str | None = None
    transcript_check: str | None = None
    transcript_unchecked: str | None = None
    settings_hash: str | None = None
    price: tuple[float, float, float | None] | None = None
    cached_prompt_tokens: int | None = None
    calls_without_usage: int = 0
    #: Characters / 4 of what its answered calls sent (each request's messages, as the
    #: transcript records the conversation): what its ``prompt_tokens`` are held against
    #: (:func:`pibench_tui.report.render.token_count_notes`).
    prompt_tokens_estimated: int | None = None
    abandoned_prompt_tokens: int = 0
    abandoned_completion_tokens: int = 0
    timed_out_prompt_estimate: int = 0
    in_flight_prompt_estimate: int = 0
    fingerprint: str | None = None
    harness: dict[str, Any] | None = None
    plan_sha256: str | None = None
    plan_copy: str | None = None
    model_ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.key:
            self.key = str(self.seed)
        if not self.status:
            self.status = {True: "valid", False: "invalid", None: "unverified"}[self.valid]

    def mark(self, status: str, reason: str | None = None) -> None:
        """Set :attr:`status` (and :attr:`valid`); a reason is kept for every status but ``valid``."""
        self.status = status
        self.valid = True if status == "valid" else False if status == "invalid" else None
        if reason is not None:
            self.invalid_reason = reason if not self.invalid_reason else f"{self.invalid_reason}; {reason}"

    def clear_figures(self) -> None:
        """Forget every figure of the career's world (Impact split, counts, collapse,
        trajectories, best paper, axes): an invalid or unverified career's files are not
        believed, so it shows none of their figures (an invalid one counts as Impact 0). The
        recorded Impact and collapse stay apart (``recorded_*``); token counts, re-derived
        from the transcript, stay: they were spent."""
        self.impact = self.earned = self.projection = 0.0
        self.collapsed, self.collapse_month = False, None
        self.months_played = self.publications = self.grants = self.hires = self.quits = 0
        self.earned_by_month, self.budget_by_month = [], []
        self.best_paper, self.axes = None, None
        self.harness = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict (trajectories included)."""
        return dataclasses.asdict(self)


# ---------------------------------------------------------------------------- scenarios
def tokens_known(calls: int | None, failed: int | None, without_usage: int) -> str:
    """How much of an agent career's (or label's) token count is known: ``"all"``,
    ``"partial"`` (some answered calls recorded no count: the tokens are a lower bound) or
    ``"none"`` (no answered call recorded one: the tokens, and so the cost, are unknown,
    never 0)."""
    answered = (calls or 0) - (failed or 0)
    if without_usage <= 0:
        return "all"
    return "none" if without_usage >= answered else "partial"


def canonical_scenario(name: Any) -> str:
    """The scenario's name as reports group it: ``pibench run`` without ``--scenario`` calls
    the standard scenario ``"default"`` while ``pibench agent`` calls it ``"standard"`` (the
    same WorldConfig), so both become ``"standard"`` and their careers pair by seed."""
    text = str(name or "")
    return "standard" if text in ("", "default") else text


def scenario_label(name: Any, config_hash: str | None) -> str:
    """The scenario as the report shows and pairs it: the bundled name when ``config_hash``
    is the bundled scenario's content hash, else ``"<name> (modified <8 hex digits>)"`` (a
    file named "standard" with one changed parameter is not the standard scenario), or
    ``"<name> (config unknown)"`` without a hash."""
    from scenarios import bundled_hash, modified_name

    text = canonical_scenario(name)
    if config_hash is None:  # a career that cannot count but as 0 (or is not counted): with the name it claims
        return text
    try:
        bundled = bundled_hash(text)
    except Exception:  # noqa: BLE001 - a broken bundled file: nothing is "standard" then
        bundled = None
    return text if bundled == config_hash else modified_name(text, config_hash)


def _sealed_key(commitment: Any) -> str:
    return f"sealed:{str(commitment)[:12]}"


def _same_career(a: Career, b: Career) -> bool:
    """Whether ``a`` and ``b`` (same label, kind, scenario and key) are one career given twice:
    the same folder, or the same action log (:attr:`Career.fingerprint`), or, where a log is
    unknown (not re-simulated, damaged), the same recorded Impact."""
    if os.path.realpath(a.source) == os.path.realpath(b.source):
        return True
    if a.fingerprint is not None and b.fingerprint is not None:
        return a.fingerprint == b.fingerprint
    return a.recorded_impact is not None and a.recorded_impact == b.recorded_impact


def _career_brief(c: Career) -> str:
    figure = f", Impact {c.impact:,.1f}" if c.status == "valid" else ""
    return f"{c.source} ({c.status}{figure})"


def _copy_note(copy: Career, kept: Career) -> str:
    """What is said of ``copy``, dropped as the career ``kept`` holds: the same career read
    again, or, when the copy's files say something else (it is invalid while the kept one is
    not, or its recorded Impact differs), an invalid copy naming why: a duplicate with other
    content is never passed off as the same career."""
    differs = copy.status != kept.status or copy.recorded_impact != kept.recorded_impact
    if copy.status == "invalid" or differs:
        why = copy.invalid_reason or f"its result.json records Impact {copy.recorded_impact!r}"
        return (
            f"an invalid copy of the career in {kept.source} ({kept.status}): the same action log, other "
            f"files: {why}; not counted (the career counts once, as {kept.status})"
        )
    return "the same career was already read; counted once"


def drop_duplicates(careers: list[Career]) -> tuple[list[Career], list[Career]]:
    """Split ``careers`` into (kept, dropped), one career per label, kind, scenario and key.

    The same career given twice (e.g. ``run --json`` and its ``--save-runs`` folder, or one
    folder named twice: :func:`_same_career`) counts once: the later copies are dropped (a
    valid copy is kept before one that is not), each with :attr:`Career.dropped_as` saying
    so (an invalid copy, one whose files were edited, is named as such). Different careers under one label, scenario
    and seed (two folders holding two runs of the model on seed 101) conflict: which one
    counts must never depend on the order of the paths, so none does. The first is kept as
    the seed's career, marked invalid (Impact 0, no figures) with a reason naming every
    folder; the others are dropped with :attr:`Career.invalid_reason` saying what they
    conflict with."""
    groups: dict[tuple[str, str, str, str], list[int]] = {}
    keep: set[int] = set()
    for i, c in enumerate(careers):
        if c.status == "foreign":  # no career: listed as it is
            keep.add(i)
        else:
            groups.setdefault((c.label, c.kind, c.scenario, c.key), []).append(i)
    for members in groups.values():
        order = sorted(members, key=lambda i: (careers[i].status != "valid", i))
        first = careers[order[0]]
        distinct = [first]
        for i in order[1:]:
            if not any(_same_career(careers[i], d) for d in distinct):
                distinct.append(careers[i])
        keep.add(order[0])
        if len(distinct) == 1:
            for i in order[1:]:
                careers[i].dropped_as = _copy_note(careers[i], first)
            continue
        names = "; ".join(_career_brief(d) for d in distinct)
        head = min(members)  # the first given holds the conflict (its position in the listing)
        keep.discard(order[0])
        keep.add(head)
        held = careers[head]
        why = (
            f"conflicting careers for {held.label} · {held.scenario} {held.key}: {names} hold different careers "
            "of this label on this seed; none is counted (Impact 0): keep one run folder per seed"
        )
        held.invalid_reason = None
        held.mark("invalid", why)
        held.clear_figures()
        for i in members:
            if i != head:
                careers[i].invalid_reason = careers[i].dropped_as = why
    kept = [c for i, c in enumerate(careers) if i in keep]
    dropped = [c for i, c in enumerate(careers) if i not in keep]
    return kept, dropped


# ---------------------------------------------------------------------------- simulation
def _paper_values(world: Any) -> list[float]:
    """Per published paper: citations earned + its share of the §12 projection
    (:func:`world.scoring.projection_by_paper`)."""
    from world.scoring import projection_by_paper

    shares = projection_by_paper(world)
    return [float(pub.citations) + shares.get(pub.id, 0.0) for pub in world.s.publications.values() if pub.id in shares]


def _take_world(career: Career, world: Any, earned: list[float], budget: list[float]) -> None:
    """Career numbers from the re-simulated ``world``: Impact, counts, trajectories, axes."""
    from world.axes import capability_axes
    from world.scoring import impact

    got = impact(world)
    s = world.summary()
    career.impact, career.earned, career.projection = (
        float(got["total"]),
        float(got["earned"]),
        float(got["projection"]),
    )
    career.collapsed = bool(world.collapsed)
    career.collapse_month = s["collapse_month"]
    career.months_played = int(s["months_survived"])
    career.publications = int(s["publications"])
    career.grants = int(s["grants_won"])
    career.hires = int(s["hires"])
    career.quits = int(s["students_quit"])
    career.months = int(world.cfg.months)
    career.earned_by_month = earned
    career.budget_by_month = budget
    values = _paper_values(world)
    career.best_paper = max(values) if values else 0.0
    career.axes = capability_axes(world)


def _judge(career: Career, world: Any, recorded: dict[str, Any] | None, digest: Any) -> None:
    """Mark ``career`` (whose numbers are the re-simulated ``world``'s) valid or invalid:
    the world must have reached the end, the recorded Impact split and the state digest."""
    problems = []
    if not world.finished:
        problems.append(f"the action log stops in month {world.month}")
    got = {"total": career.impact, "earned": career.earned, "projection": career.projection}
    for key, want in (recorded or {}).items():
        if key in got and not (_is_number(want) and abs(float(want) - got[key]) <= 0.05):
            problems.append(f"re-simulated Impact {key} {got[key]} != recorded {want!r}")
    if digest is not None and world.digest() != digest:
        problems.append("re-simulated state digest differs")
    if problems:
        career.mark("invalid", "; ".join(problems))
    else:
        career.mark("valid")


def _replay_with_trajectory(config: Any, seed: int, actions: list[Any]) -> tuple[Any, list[float], list[float]]:
    """Replay an action log, recording earned citations and budget after every tick."""
    from world import career as career_mod
    from world.errors import ActionError
    from world.scoring import earned

    held = career_mod.Career.new(config, seed)
    w, api = held.world, held.api
    e_traj: list[float] = []
    b_traj: list[float] = []
    for row in actions:
        if not isinstance(row, list) or len(row) != 3 or not isinstance(row[1], str) or "." not in row[1]:
            raise ActionError("bad_argument", f"action log row {str(row)[:80]} is not [month, 'ns.method', kwargs]")
        month, name, kwargs = row
        if w.s.month != month:
            raise ActionError("bad_argument", f"action log out of step at {name} (month {month})")
        ns, method = name.split(".", 1)
        api.call(ns, method, [], kwargs if isinstance(kwargs, dict) else {})
        if name == "time.next_month":
            e_traj.append(float(earned(w)))
            b_traj.append(float(w.s.budget))
    return w, e_traj, b_traj


def _play_policy_with_trajectory(
    policy: str, seed: int, config: Any, baseline_config: Any = None
) -> tuple[Any, list[float], list[float]]:
    """Play ``policy`` (deterministic) on ``seed``, as ``pibench run`` does, recording earned
    citations and budget after every month. Raises ``KeyError`` for an unknown policy."""
    from world import career as career_mod
    from world.errors import ActionError
    from world.runner import AgentView, build_policy
    from world.scoring import earned

    held = career_mod.Career.new(dataclasses.replace(config), seed, cached=True)
    w, api = held.world, held.api
    pol = build_policy(policy, w, baseline_config)
    view: Any = api if policy == "oracle" else AgentView(api)
    e_traj: list[float] = []
    b_traj: list[float] = []
    while not w.s.finished:
        month = w.s.month
        try:
            pol.act(view)
        except ActionError:
            pass
        if not w.s.finished and w.s.month == month:
            api.time.next_month()
        while len(e_traj) < (w.s.month if w.s.finished else w.s.month - 1):
            e_traj.append(float(earned(w)))
            b_traj.append(float(w.s.budget))
    return w, e_traj, b_traj


def _row_text(row: Any) -> str:
    """An action-log row as canonical JSON (a tuple and a list of the same values agree)."""
    return json.dumps(list(row) if isinstance(row, tuple) else row, sort_keys=True, separators=(",", ":"))


def log_fingerprint(rows: list[Any]) -> str:
    """SHA-256 of an action log's rows as canonical JSON, one per line."""
    digest = hashlib.sha256()
    for row in rows:
        digest.update(_row_text(row).encode("utf-8") + b"\n")
    return digest.hexdigest()


def _first_difference(played: list[Any], logged: list[Any]) -> str | None:
    """Where the policy's own calls and the logged ones first differ, or ``None``."""
    for i, (a, b) in enumerate(zip(played, logged, strict=False)):
        if _row_text(a) != _row_text(b):
            return f"call {i + 1} of the log is {_row_text(b)[:160]}, the policy makes {_row_text(a)[:160]}"
    if len(played) != len(logged):
        return f"the policy makes {count(len(played), 'call')}, the log holds {len(logged)}"
    return None


# ---------------------------------------------------------------------------- numbers
def _is_number(v: Any) -> bool:
    return finite_number(v)


def _num(v: Any, default: float = 0.0) -> float:
    """A recorded number, or ``default`` when it is not a finite number."""
    return float(v) if _is_number(v) else default


def _int(v: Any) -> int:
    return int(v) if _is_number(v) else 0


def _seed(v: Any) -> int | None:
    """A recorded seed: an int (not a bool), else ``None``."""
    return v if isinstance(v, int) and not isinstance(v, bool) else None


# ---------------------------------------------------------------------------- run dirs
@dataclass
class _Options:
    simulate: bool = True
    seal: str | None = None
    check_transcripts: bool = False
    check_budget: float | None = None


def _folder_identity(path: Path) -> tuple[str, str, str]:
    """``(label, scenario, key)`` as the folder names say them (``OUT/<label>/<scenario>-<seed>``)."""
    label = unquote(path.parent.name) if path.parent.name != "%" else ""
    m = RUN_NAME.match(path.name)
    if not m:
        return label, unquote(path.name), f"{FOLDER_KEY}{path.name}"
    key = _sealed_key(m.group("commit")) if m.group("commit") else str(int(m.group("seed")))
    return label, unquote(m.group("scenario")), key


def _blank(path: Path, label: str, kind: str, scenario: str, key: str) -> Career:
    """A career of which nothing is proved yet (Impact 0 until re-simulated)."""
    return Career(
        label=label or path.parent.name,
        kind=kind,
        scenario=scenario,
        seed=int(key) if key.lstrip("-").isdigit() else None,
        source=str(path),
        impact=0.0,
        earned=0.0,
        projection=0.0,
        collapsed=False,
        collapse_month=None,
        months=0,
        months_played=0,
        publications=0,
        grants=0,
        hires=0,
        quits=0,
        key=key,
        status="unverified",
    )


#: The kind of a career whose result could not be read, until :func:`_settle_kinds` gives it its label's.
_KIND_UNKNOWN = "unknown"


def _settle_kinds(careers: list[Career]) -> None:
    """A career whose result could not be read takes the kind of its label's other careers
    when they all have one (an unreadable folder among a policy's is the policy's: no
    "(agent run)" row of its own), ``policy`` when the label has a policy career or reads as
    a policy's name (``pibench agent`` refuses such labels), else ``agent``."""
    kinds: dict[str, set[str]] = {}
    for c in careers:
        if c.kind != _KIND_UNKNOWN:
            kinds.setdefault(c.label, set()).add(c.kind)
    from pibench_tui.textsafe import reads_as
    from world.policies import ALL_NAMES

    for c in careers:
        if c.kind == _KIND_UNKNOWN:
            known = kinds.get(c.label, set())
            policy = "policy" if reads_as(c.label, ALL_NAMES) is not None else "agent"
            c.kind = next(iter(known)) if len(known) == 1 else "policy" if "policy" in known else policy


def _unreadable(path: Path, reason: str, *, foreign: bool = False) -> Career:
    """A folder whose result cannot be read as a run's (damaged, not a run result, a link):
    an invalid career of the label, scenario and seed its names say, or, when its name is not
    ``<scenario>-<seed>`` or it is ``foreign`` (a folder inside a run folder), a ``foreign``
    folder (no career, no scenario of its own)."""
    label, scen, key = _folder_identity(path)
    c = _blank(path, label, _KIND_UNKNOWN, scen, key)
    if foreign:
        c.mark("foreign", reason)
        return c
    if key.startswith(FOLDER_KEY):
        c.mark("foreign", f"not a run folder (its name is not <scenario>-<seed>): {reason}")
        return c
    c.mark("invalid", reason)
    c.scenario = scenario_label(scen, None)
    return c


def _without_result(path: Path) -> Career:
    """A run directory without result.json: unfinished (a checkpoint) or crashed; a
    ``foreign`` folder when its name is not a run folder's."""
    label, scen, key = _folder_identity(path)
    if key.startswith(FOLDER_KEY):
        return _unreadable(path, "it holds no result.json")
    # a checkpoint or a transcript is written by `pibench agent` only; anything else (an
    # action log alone) is its label's kind (_settle_kinds): never an "(agent run)" row of a policy
    agent = any(os.path.lexists(path / f) for f in ("checkpoint.json", "transcript.jsonl"))
    c = _blank(path, label, "agent" if agent else _KIND_UNKNOWN, scen, key)
    ckpt_hash = None
    if (path / "checkpoint.json").is_file():
        try:
            ckpt = read_json(path / "checkpoint.json")
            ckpt_hash = ((ckpt.get("settings") or {}).get("config_sha256")) if isinstance(ckpt, dict) else None
            month = ckpt.get("month") if isinstance(ckpt, dict) else None
        except (OSError, ValueError) as exc:
            month, ckpt_hash = None, None
            c.invalid_reason = str(exc)
        if isinstance(month, bool) or not isinstance(month, int):  # a checkpoint's text is no month (QA pass 8)
            month = "unknown (checkpoint.json records no month number)"
        c.mark("unfinished", f"the career stopped in month {month}; the same command resumes it")
    else:
        c.mark("crashed", "the run directory has neither result.json nor checkpoint.json")
    c.scenario = scenario_label(scen, ckpt_hash if isinstance(ckpt_hash, str) else None)
    return c


def _recorded(c: Career, res: dict[str, Any]) -> None:
    """What result.json says (shown for careers that are not re-simulated; never trusted)."""
    imp = res.get("impact")
    imp = imp if isinstance(imp, dict) else {"total": imp}
    c.impact, c.earned, c.projection = _num(imp.get("total")), _num(imp.get("earned")), _num(imp.get("projection"))
    c.recorded_impact = float(imp["total"]) if _is_number(imp.get("total")) else None
    c.collapsed = c.recorded_collapsed = bool(res.get("collapsed"))
    c.collapse_month = _seed(res.get("collapse_month"))
    cfg = res.get("config")
    c.months = _int((cfg or {}).get("months")) if isinstance(cfg, dict) else 0
    c.months_played = _int(res.get("months_played"))
    for name in ("publications", "grants", "hires", "quits"):
        setattr(c, name, _int(res.get(name)))
    model = res.get("model") or res.get("policy")
    c.model = str(model) if model is not None else None
    c.price = _recorded_price(res.get("price"))


def _recorded_price(raw: Any) -> tuple[float, float, float | None] | None:
    """result.json's ``price`` (:func:`pibench_tui.pricing.price_record`) as ``(prompt,
    completion, cached)`` USD per million tokens, or ``None`` when absent or not a valid price
    (:func:`pibench_tui.pricing.price_problem`: finite, 0 to the largest price, cached at most
    the prompt price)."""
    from pibench_tui.pricing import price_problem

    if not isinstance(raw, dict):
        return None
    prompt, completion, cached = raw.get("prompt"), raw.get("completion"), raw.get("cached_prompt")
    values: list[Any] = [prompt, completion] + ([] if cached is None else [cached])
    if not all(_is_number(v) for v in values):
        return None
    floats = [_num(v) for v in values]
    if price_problem(floats) is not None:
        return None
    return floats[0], floats[1], floats[2] if len(floats) == 3 else None


def _plan_copy(res: dict[str, Any], path: Path) -> tuple[str | None, str | None]:
    """The plan a career's ``result.json`` says it ran under (``plan.sha256``) and what its
    copy in the output folder (two folders up, ``plan-<first 12 hex digits>.toml``) says:
    ``"verified"`` (its text has that SHA-256), ``"differs"`` (it has not: edited after the
    run), ``"missing"`` (no such file), or ``None`` (no plan recorded)."""
    plan = res.get("plan")
    sha = plan.get("sha256") if isinstance(plan, dict) else None
    if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{64}", sha):
        return None, None
    copy = path.parent.parent / f"plan-{sha[:12]}.toml"
    try:
        if copy.is_symlink() or not copy.is_file() or copy.stat().st_size > MAX_JSON_BYTES:
            return sha, "missing"
        return sha, "verified" if hashlib.sha256(copy.read_bytes()).hexdigest() == sha else "differs"
    except OSError:
        return sha, "missing"


#: Tokens one LLM call can count (prompt, completion or cached): far above any context
#: window; a larger count in a transcript is not a provider's (a 10^300 one squashed the
#: leaderboard) and makes the career invalid.
MAX_CALL_TOKENS = 100_000_000


def _call_tokens(e: dict[str, Any], key: str, call: int) -> int:
    """An ``llm`` event's token count ``key`` (0 when not a number).

    Raises:
        ValueError: Above :data:`MAX_CALL_TOKENS` (the career is then invalid)."""
    n = _int(e.get(key))
    if n > MAX_CALL_TOKENS:
        raise ValueError(
            f"transcript.jsonl: LLM call {call} records {key} {n:.3g}, more than any call counts "
            f"(at most {MAX_CALL_TOKENS:,})"
        )
    return n


def _bounded(value: Any, most: int, what: str) -> int:
    """A recorded token count: 0 when absent, else an int from 0 to ``most``.

    Raises:
        ValueError: Not a whole number, negative, NaN/inf or above ``most`` (the career is
            then invalid, the message naming ``what`` and the bound)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
        raise ValueError(f"{what} is {str(value)[:40]!r}: not a whole number of tokens from 0 to {most:,}")
    return value


def _timeouts(e: dict[str, Any], key: str) -> int:
    """How many of an ``llm``/``llm_failed`` entry's errors (``key``) were time-outs."""
    errors = e.get(key)
    return (
        sum(1 for x in errors if isinstance(x, dict) and x.get("kind") == "timeout") if isinstance(errors, list) else 0
    )


@dataclass
class _Tally:
    """Token counts of one transcript (transcript.jsonl or a set-aside abandoned-N one)."""

    prompt: int = 0
    completion: int = 0
    cached: int | None = None
    calls: int = 0
    failed: int = 0
    #: Answered calls that recorded no token count at all (no usable ``usage`` came back).
    without_usage: int = 0
    blocks: int = 0
    block_errors: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    lost_prompt: int = 0
    lost_completion: int = 0
    in_flight: int = 0
    timeouts: int = 0
    #: Characters / 4 of the answered calls' requests, from the texts.
    estimated: int = 0


def _tally(path: Path, name: str) -> _Tally:
    """Re-derive a transcript's counts: its calls' tokens (each within :data:`MAX_CALL_TOKENS`;
    cached tokens at most the call's prompt tokens), blocks and incidents, the tokens its
    ``resume`` entries say were lost (at most :data:`MAX_CALL_TOKENS` a lost turn) and the
    in-flight estimates (at most :data:`MAX_CALL_TOKENS` each), and its time-outs.

    Raises:
        ValueError: A count out of its bound (named)."""
    t = _Tally()
    system = sent = 0  # characters of the system prompt, and of the month's conversation so far
    # a finished career's transcript is whole: a line that is not JSON is damage (read past
    # it, the counts before it passed for the career's; QA pass 8)
    for e in iter_jsonl(path, strict=True):
        if not isinstance(e, dict):
            continue
        ev = e.get("event")
        text = e.get("content") if ev in ("system", "user") else e.get("reply") if ev == "llm" else None
        size = len(text) if isinstance(text, str) else 0
        if ev == "system":
            system = size
        elif ev == "user":
            sent = (system if e.get("turn") == 0 else sent) + size
        if ev == "llm":
            t.estimated += (sent + 3) // 4
            sent += size
            t.calls += 1
            t.without_usage += not _is_number(e.get("prompt_tokens")) and not _is_number(e.get("completion_tokens"))
            ptok = _call_tokens(e, "prompt_tokens", t.calls)
            t.prompt += ptok
            t.completion += _call_tokens(e, "completion_tokens", t.calls)
            if _is_number(e.get("cached_tokens")):  # a subset of the prompt: never more than it
                t.cached = (t.cached or 0) + min(_call_tokens(e, "cached_tokens", t.calls), ptok)
            t.timeouts += _timeouts(e, "retried_errors")
        elif ev == "llm_failed":
            t.calls += 1
            t.failed += 1
            t.timeouts += _timeouts(e, "errors")
        elif ev == "block":
            t.blocks += 1
            t.block_errors += not e.get("ok")
            t.kinds.update(str(k) for k in (e.get("integrity") or []) if isinstance(k, str))
        elif ev == "resume":
            turns = _bounded(e.get("lost_turns"), 10_000, f"{name}: a resume's lost_turns")
            most = max(turns, 1) * MAX_CALL_TOKENS
            t.lost_prompt += _bounded(e.get("lost_prompt_tokens"), most, f"{name}: a resume's lost_prompt_tokens")
            t.lost_completion += _bounded(
                e.get("lost_completion_tokens"), most, f"{name}: a resume's lost_completion_tokens"
            )
            flight = e.get("in_flight")
            if isinstance(flight, dict):
                t.in_flight += _bounded(
                    flight.get("prompt_estimated"), MAX_CALL_TOKENS, f"{name}: a resume's in-flight estimate"
                )
    return t


def _transcript_stats(c: Career, path: Path, res: dict[str, Any] | None = None) -> None:
    """Tokens, LLM calls, blocks and integrity flags re-derived from transcript.jsonl; the
    abandoned tokens from its ``resume`` entries and the set-aside ``abandoned-N.transcript.jsonl``
    files; the time-out estimate of ``res`` checked against the time-outs recorded.

    Raises:
        ValueError: A count out of its bound (the career is then invalid)."""
    from pibench_tui.harness.integrity import BENIGN_KINDS

    t = _tally(path / "transcript.jsonl", "transcript.jsonl")
    c.prompt_tokens, c.completion_tokens, c.tokens = t.prompt, t.completion, t.prompt + t.completion
    c.cached_prompt_tokens = t.cached
    c.calls, c.failed_calls, c.blocks, c.block_errors = t.calls, t.failed, t.blocks, t.block_errors
    c.calls_without_usage = t.without_usage
    c.prompt_tokens_estimated = t.estimated
    c.integrity = dict(sorted(t.kinds.items()))
    c.flags = sum(n for k, n in t.kinds.items() if k not in BENIGN_KINDS)
    abandoned_prompt, abandoned_completion = t.lost_prompt, t.lost_completion
    timeouts = t.timeouts
    for old in sorted(path.glob("abandoned-*.transcript.jsonl")):
        # a link or a FIFO is refused by the reader (the career is invalid), never skipped:
        # skipped, the tokens of the careers set aside vanished from the cost (QA pass 8)
        earlier = _tally(old, old.name)
        abandoned_prompt += earlier.prompt  # what the harness counts of a career set aside
        abandoned_completion += earlier.completion
    c.abandoned_prompt_tokens, c.abandoned_completion_tokens = abandoned_prompt, abandoned_completion
    c.timed_out_prompt_estimate = t.in_flight + _timed_out_estimate(res or {}, timeouts)
    c.in_flight_prompt_estimate = t.in_flight


def _timed_out_estimate(res: dict[str, Any], timeouts: int) -> int:
    """result.json's estimate of the prompt tokens of requests abandoned at a time-out
    (``tokens.abandoned.timed_out.prompt_estimated``), checked: a whole number, at most
    :data:`MAX_CALL_TOKENS` for each of the ``timeouts`` the transcript records (0 when it
    records none).

    Raises:
        ValueError: Out of that bound, or another number of time-outs than the transcript's."""
    tok = res.get("tokens")
    ab = tok.get("abandoned") if isinstance(tok, dict) else None
    timed = ab.get("timed_out") if isinstance(ab, dict) else None
    if not isinstance(timed, dict):
        return 0
    requests = timed.get("requests")
    if requests is not None and requests != timeouts:
        raise ValueError(
            f"result.json records {str(requests)[:40]} requests abandoned at a time-out, the transcript {timeouts}"
        )
    return _bounded(
        timed.get("prompt_estimated"),
        timeouts * MAX_CALL_TOKENS,
        f"result.json's time-out estimate (for {timeouts} time-outs in the transcript)",
    )


def _sealed_seed(c: Career, res: dict[str, Any], opts: _Options) -> int | None:
    """The seed to re-simulate with: the public one, or a sealed one from ``--seal``."""
    seed = _seed(res.get("seed"))
    if seed is not None:  # its shape is checked (result_problem): an int, or null with a commitment
        return seed
    if opts.seal is None:
        c.mark("unverified", "sealed: re-simulated only with --seal FILE (after the evaluation)")
        return None
    from pibench_tui.harness.replay import sealed_seed

    try:
        return sealed_seed(res, opts.seal)
    except (OSError, ValueError) as exc:
        c.mark("unverified", f"sealed: {exc}")
        return None


def _resimulate(c: Career, path: Path, res: dict[str, Any], opts: _Options) -> None:
    """Re-simulate the career from actions.jsonl and result.json's full config."""
    from world.config import WorldConfig
    from world.errors import ActionError

    seed = _sealed_seed(c, res, opts)
    if seed is None or c.status == "invalid":
        return
    try:
        cfg = WorldConfig.from_dict(res["config"])
        actions = read_action_log(path)
        c.fingerprint = log_fingerprint(actions)
        if c.kind == "policy":
            played = _policy_career(c, res, cfg, seed, actions)
            if played is None:
                return
            world, e_traj, b_traj = played
        else:
            world, e_traj, b_traj = _replay_with_trajectory(cfg, seed, actions)
    except RunFileMissing as exc:  # a missing file, not a log that replays to another world
        c.mark("invalid", str(exc))
        return
    except (ActionError, ValueError, TypeError, KeyError) as exc:
        c.mark("invalid", f"the action log does not replay: {exc}")
        return
    memory = res.get("memory_final")
    world.s.memory = memory if isinstance(memory, str) else ""
    imp = res.get("impact")
    _take_world(c, world, e_traj, b_traj)
    _judge(c, world, imp if isinstance(imp, dict) else {"total": imp}, res.get("digest"))
    if c.status == "valid" and opts.check_transcripts and c.kind == "agent":
        _check_transcript(c, path, res, seed, cfg, opts)


def _policy_career(
    c: Career, res: dict[str, Any], cfg: Any, seed: int, actions: list[Any]
) -> tuple[Any, list[float], list[float]] | None:
    """A policy career is its policy's: the named policy (deterministic) is played again on
    the seed and config and must make exactly the logged calls, and a label that reads as a
    policy's name must be that policy's, with its own settings. Returns the played world and
    trajectories, or ``None`` with ``c`` marked (invalid, or unverified for a policy this
    pibench does not know). An agent's or another policy's log under the baseline's name
    (a forged ``kind: policy``) is invalid with the first differing call."""
    from pibench_tui.textsafe import reads_as
    from world.policies import ALL_NAMES

    policy = res.get("policy")
    named = reads_as(c.label, ALL_NAMES)
    if not isinstance(policy, str) or not policy:
        c.mark("invalid", "a policy career whose result.json names no policy")
        return None
    if named is not None and named != policy:
        c.mark("invalid", f"the label {c.label!r} names the policy {named!r}, but the career says it was {policy!r}")
        return None
    bcfg = res.get("baseline_config")
    if named is not None and bcfg is not None:
        c.mark(
            "invalid", f"the label {c.label!r} names the policy {named!r}, but the career ran it with other settings"
        )
        return None
    if policy not in ALL_NAMES:
        c.mark("unverified", f"the policy {policy!r} is not one this pibench knows")
        return None
    baseline_config = None
    if bcfg is not None:
        from world.policies.baseline import BaselineConfig

        if not isinstance(bcfg, dict) or policy != "baseline":
            c.mark("invalid", f"baseline_config {str(bcfg)[:80]!r} is not a baseline's settings")
            return None
        baseline_config = BaselineConfig(**bcfg)
    world, e_traj, b_traj = _play_policy_with_trajectory(policy, seed, cfg, baseline_config)
    diff = _first_difference(world.s.action_log, actions)
    if diff is not None:
        c.mark("invalid", f"the action log is not what the policy {policy!r} plays on this seed: {diff}")
        return None
    return world, e_traj, b_traj


def _check_transcript(c: Career, path: Path, res: dict[str, Any], seed: int, cfg: Any, opts: _Options) -> None:
    from pibench_tui.harness.integrity import BENIGN_KINDS
    from pibench_tui.harness.replay import check_transcript

    verdict = check_transcript(path, res, seed, cfg, budget=opts.check_budget)
    if verdict["unchecked"]:  # asked for, not finished: not proved, so not counted (unverified)
        c.transcript_unchecked = verdict["message"]
        c.mark(
            "unverified",
            f"its transcript check did not finish ({verdict['message']}): kept out of every figure unless "
            "--trust-unverified",
        )
        return
    c.transcript_check = verdict["message"]
    # The flags are what the re-run observed, not what the transcript's entries say.
    kinds = verdict.get("integrity") or {}
    c.integrity = dict(sorted(kinds.items()))
    c.flags = sum(n for k, n in kinds.items() if k not in BENIGN_KINDS)
    if not verdict["valid"]:
        c.mark("invalid", f"the transcript does not record what its code does: {verdict['message']}")


def _from_run_dir(path: Path, opts: _Options) -> Career:
    """One run directory as a career: never raises for what its files hold."""
    if not os.path.lexists(path / "result.json"):  # a FIFO or a folder named result.json is damage
        return _without_result(path)
    label, scen, key = _folder_identity(path)
    try:
        res = read_json(path / "result.json")
    except (OSError, ValueError) as exc:
        return _unreadable(path, str(exc))
    problem = result_problem(res, path / "result.json")
    if not isinstance(res, dict) or res.get("format") != RUN_FORMAT:
        return _unreadable(path, str(problem))
    kind = "policy" if res.get("kind") == "policy" else "agent"
    folder_label = label
    label = str(res.get("label") or res.get("model") or res.get("policy") or label)
    commitment = res.get("seed_commitment")
    seed = _seed(res.get("seed"))
    own_key = str(seed) if seed is not None else _sealed_key(commitment) if isinstance(commitment, str) else key
    c = _blank(path, label, kind, scen, own_key)
    _recorded(c, res)
    c.settings_hash = _settings_hash(res)
    c.model_ids = _model_ids(res) if kind == "agent" else ()
    c.harness = _harness(res) if kind == "agent" else None
    c.plan_sha256, c.plan_copy = _plan_copy(res, path)
    cfg_hash = _config_hash(res.get("config"))
    c.config_hash = cfg_hash
    c.scenario = scenario_label(res.get("scenario") or "custom", cfg_hash)
    problem = problem or folder_problem(path, res)
    if problem is not None:
        c.mark("invalid", problem)
    if c.status == "invalid":
        c.key = key  # counted under the label and seed its folders name
        c.label = folder_label or c.label
        c.impact = 0.0
    if kind == "agent":
        try:
            _transcript_stats(c, path, res)
        except (OSError, ValueError) as exc:
            c.mark("invalid", str(exc))
    _read_axes(c, path)
    if c.status != "invalid":
        if opts.simulate:
            _resimulate(c, path, res, opts)
        else:
            c.mark("unverified", "not re-simulated (--no-simulate)")
    if c.status in _UNBELIEVED:
        c.clear_figures()
    _unanswered(c)
    return c


def _unanswered(c: Career) -> None:
    """Mark an agent career in which every LLM call failed (a dead or mistyped endpoint,
    played with ``--no-endpoint-check``) :data:`NEVER_ANSWERED`: its Impact is the world's
    auto-advance, not evidence about the model, so it is listed and counted missing, never
    averaged in as a 0 (before, it was a valid 0 in the mean). An invalid career stays
    invalid (counted as 0: its files are not believed). ``pibench agent --redo-failed`` plays
    it again."""
    if c.kind != "agent" or c.status == "invalid" or not c.calls or (c.failed_calls or 0) < c.calls:
        return
    c.mark(
        NEVER_ANSWERED,
        f"the LLM never answered ({c.failed_calls} failed calls): not evidence about the model, not counted; "
        "`pibench agent --redo-failed` plays it again",
    )


#: ``result.json["harness"]`` keys the report compares between labels (key -> how notes name it).
HARNESS_SETTINGS = {
    "max_turns": "max turns",
    "block_timeout": "block timeout (s)",
    "temperature": "temperature",
    "max_tokens": "max tokens",
}


def _harness(res: dict[str, Any]) -> dict[str, Any] | None:
    """The :data:`HARNESS_SETTINGS` of result.json's ``harness``: each value one the harness
    accepts (:func:`pibench_tui.harness.plan.setting_in_bounds`), else ``None`` (shown as
    unknown: a NaN temperature or a 400-digit max_turns is no setting); a temperature not sent
    (``request.no_temperature``) is :data:`TEMPERATURE_NOT_SENT`."""
    from pibench_tui.harness.plan import setting_in_bounds

    harness = res.get("harness")
    if not isinstance(harness, dict):
        return None
    out = {k: harness.get(k) if setting_in_bounds(k, harness.get(k)) else None for k in HARNESS_SETTINGS}
    request = harness.get("request")
    if harness.get("temperature") is None and isinstance(request, dict) and request.get("no_temperature") is True:
        out["temperature"] = TEMPERATURE_NOT_SENT  # not unknown ("—"): none was sent
    return out


#: A career's temperature in the report's notes when its requests carried none (``--no-temperature``).
TEMPERATURE_NOT_SENT = "not sent (--no-temperature)"


#: Provider model ids a career's row keeps (more are summed up as "N more"), and characters of each.
MAX_MODEL_IDS, MAX_MODEL_ID_CHARS = 8, 120


def _model_ids(res: dict[str, Any]) -> tuple[str, ...]:
    """The model ids the provider said answered the career's calls
    (``provenance.provider_model_ids``' names, sorted; at most :data:`MAX_MODEL_IDS` of at
    most :data:`MAX_MODEL_ID_CHARS` characters each, a longer one cut and marked ``…``);
    empty when not recorded or malformed."""
    prov = res.get("provenance")
    ids = prov.get("provider_model_ids") if isinstance(prov, dict) else None
    if not isinstance(ids, dict):
        return ()
    names = sorted(str(k) for k in ids)
    cut = [n if len(n) <= MAX_MODEL_ID_CHARS else n[:MAX_MODEL_ID_CHARS] + "…" for n in names[:MAX_MODEL_IDS]]
    if len(names) > MAX_MODEL_IDS:
        cut.append(f"{len(names) - MAX_MODEL_IDS} more")
    return tuple(cut)


#: ``result.json["harness"]`` keys that are not settings of the career (how it was run).
_NOT_SETTINGS = frozenset({"block_timeout", "backend", "max_failed_calls"})


def _settings_hash(res: dict[str, Any]) -> str | None:
    """The career's settings hash, derived from the settings ``harness`` records (the
    fingerprint plus how it was run: :data:`_NOT_SETTINGS`), never the recorded
    ``settings_sha256`` alone: an edited hash would merge careers of other settings into one
    row. The recorded hash only when there is no ``harness``."""
    harness = res.get("harness")
    if not isinstance(harness, dict):
        recorded = res.get("settings_sha256")
        return recorded if isinstance(recorded, str) and recorded else None
    from pibench_tui.harness.loop import settings_hash, with_endpoint

    try:
        harness = with_endpoint(harness)  # a run of an earlier pibench: the endpoint its backend names
        return settings_hash({k: v for k, v in harness.items() if k not in _NOT_SETTINGS})
    except (TypeError, ValueError):
        return None


def _read_axes(c: Career, path: Path) -> None:
    """The recorded capability axes (replaced by the re-simulated ones when the career replays)."""
    ev = path / "eval.json"
    if ev.is_file():
        try:
            data = read_json(ev)
        except (OSError, ValueError):
            return
        axes = data.get("axes") if isinstance(data, dict) else None
        c.axes = axes if isinstance(axes, dict) else None


def _config_hash(config: Any) -> str | None:
    """The content hash of a recorded config (``None`` when it is missing or not a config)."""
    from world.config import WorldConfig

    if not isinstance(config, dict):
        return None
    try:
        return WorldConfig.from_dict(config).content_hash()
    except (ValueError, TypeError, KeyError):
        return None


# ---------------------------------------------------------------------------- run --json
def _config_for(scenario: str) -> Any:
    """The config of a ``run --json`` file's scenario. The file records a name, never a path
    or a config, so only a bundled scenario is loaded: a name that is a path would have the
    report open a file the evidence names (a FIFO ``x.toml`` hung it for ever).

    Raises:
        ValueError: Not a scenario bundled with pibench (the rows stay unverified)."""
    from world.config import WorldConfig

    if canonical_scenario(scenario) == "standard":
        return WorldConfig()
    from scenarios import bundled_names, load_scenario

    if scenario not in bundled_names():
        raise ValueError(f"{scenario!r} is not a scenario bundled with pibench")
    return load_scenario(scenario).config


def _run_json_groups(path: Path, data: dict[str, Any]) -> dict[str, list[Any]]:
    if "policy" in data and isinstance(data.get("rows"), list):
        return {str(data["policy"]): data["rows"]}
    if isinstance(data.get("rows"), dict):
        return {str(k): v for k, v in data["rows"].items() if isinstance(v, list)}
    raise LoadError(f"{path}: a JSON file from `pibench run --json` or `pibench compare --json` was expected")


def _row_seed(c: Career, row: dict[str, Any], opts: _Options) -> int | None:
    """The seed to play a ``run --json`` row's career with: its public seed, or for a
    sealed row (``seed`` null, ``seed_commitment``) the seed ``--seal`` reveals; ``None``
    with ``c`` marked (invalid, or unverified for a sealed row without ``--seal``)."""
    commitment = row.get("seed_commitment")
    if row.get("seed") is None and isinstance(commitment, str) and commitment:
        return _sealed_seed(c, {"seed": None, "seed_commitment": commitment}, opts)
    seed = _seed(row.get("seed"))
    if seed is None:
        c.mark("invalid", f"the row's seed {row.get('seed')!r} is not an integer")
    return seed


def _from_run_json_row(
    path: Path,
    policy: str,
    row: Any,
    name: str,
    config: Any,
    opts: _Options,
    why: str | None = None,
    recorded_hash: str | None = None,
) -> Career:
    config_hash = config.content_hash() if config is not None else recorded_hash
    scenario = scenario_label(name, config_hash)
    row = row if isinstance(row, dict) else {}
    seed = _seed(row.get("seed"))
    commitment = row.get("seed_commitment")
    sealed = row.get("seed") is None and isinstance(commitment, str) and bool(commitment)
    key = _sealed_key(commitment) if sealed else str(seed) if seed is not None else f"row:{row.get('seed')!r}"
    c = _blank(path, policy, "policy", scenario, key)
    c.label, c.model, c.scenario, c.seed = policy, policy, scenario, seed
    c.config_hash = config_hash
    c.impact = c.earned = _num(row.get("impact"))
    c.recorded_impact = float(row["impact"]) if _is_number(row.get("impact")) else None
    c.projection = _num(row.get("projection"))
    c.earned = _num(row.get("earned"))
    c.collapse_month = _seed(row.get("collapse_month"))
    c.collapsed = c.recorded_collapsed = c.collapse_month is not None
    c.months = int(config.months) if config is not None else 0
    c.months_played = _int(row.get("months"))
    c.publications, c.grants, c.hires, c.quits = (_int(row.get(k)) for k in ("papers", "grants_won", "hires", "quits"))
    if not opts.simulate:
        if not sealed and seed is None:
            c.mark("invalid", f"the row's seed {row.get('seed')!r} is not an integer")
        else:
            c.mark("unverified", "not re-simulated (--no-simulate)")
    elif (played_seed := _row_seed(c, row, opts)) is None:
        pass
    elif config is None:
        c.mark("unverified", f"the scenario {name!r} cannot be loaded here ({why})")
    else:
        try:
            world, e_traj, b_traj = _play_policy_with_trajectory(policy, played_seed, config)
        except KeyError:
            c.mark("unverified", f"the policy {policy!r} is not one this pibench knows")
        else:
            c.fingerprint = log_fingerprint(world.s.action_log)
            _take_world(c, world, e_traj, b_traj)
            _judge(c, world, {"total": row.get("impact")}, None)
    if c.status in _UNBELIEVED:
        c.clear_figures()
    return c


def _from_run_json(path: Path, data: dict[str, Any], opts: _Options) -> list[Career]:
    name = canonical_scenario(data.get("scenario"))
    groups = _run_json_groups(path, data)
    try:
        config, why = _config_for(name), None
    except Exception as exc:  # noqa: BLE001 - ScenarioError, not bundled: the rows stay unverified
        config, why = None, str(exc)
    recorded = data.get("config_hash")  # since `run --json` records it; older files have none
    recorded = recorded if isinstance(recorded, str) and recorded else None
    if config is not None and recorded is not None and recorded != config.content_hash():
        # an edited copy of a bundled scenario: the file has no config to play it with
        config, why = None, f"its config (hash {recorded[:8]}) is not the bundled scenario's"
    return [
        _from_run_json_row(path, policy, row, name, config, opts, why, recorded)
        for policy, rows in groups.items()
        for row in rows
    ]


# ---------------------------------------------------------------------------- paths
def _from_file(p: Path, raw: str, opts: _Options) -> list[Career]:
    try:  # a `compare --json` of many seeds is larger than a run directory's files may be
        # a file named on the command line may be a link; a run folder's result.json never is
        data = read_json(p, limit=MAX_JSONL_BYTES, follow_links=True) if p.name != "result.json" else read_json(p)
    except (OSError, ValueError) as exc:
        why = str(exc).removeprefix(f"{p}: ")  # read_json names the file itself (QA9: named twice)
        raise LoadError(f"{raw}: {why}") from None
    if isinstance(data, dict) and data.get("format") == RUN_FORMAT:
        return [_from_run_dir(p.parent, opts)]
    if isinstance(data, dict):
        return _from_run_json(p, data, opts)
    raise LoadError(f"{raw}: not a pibench result")


class LoadProgress(Protocol):
    """What :func:`load_careers` tells a progress display (``pibench report``'s bar)."""

    def walked(self, path: str, folders: int) -> None:
        """``folders`` folders below ``path`` looked at so far, looking for run folders."""

    def reading(self, path: str, runs: int) -> None:
        """``runs`` run folders found below ``path``, about to be read (re-simulated)."""

    def read(self) -> None:
        """One more run folder read."""


def load_careers(
    paths: list[str],
    *,
    simulate: bool = True,
    seal: str | None = None,
    check_transcripts: bool = False,
    check_budget: float | None = None,
    progress: LoadProgress | None = None,
) -> list[Career]:
    """Every career under ``paths`` (run directories, folders of them, or ``run --json``
    files): completed careers and, in rows of their own, unfinished and crashed ones; the
    folders found that are not runs (links to folders, folders of other things; many of the
    latter below one path as one entry counting them,
    :data:`pibench_tui.harness.runcheck.PLAIN_LISTED`) come as ``foreign`` entries
    (:func:`pibench_tui.report.analysis.build_report` lists them apart).

    Args:
        simulate: Re-simulate careers (``False``: every career is ``unverified``).
        seal: A seal file (``pibench seal``) that reveals sealed careers' seeds for re-simulation.
        check_transcripts: Re-run each valid agent career's recorded code blocks in a fresh
            agent process and require exactly the logged calls (:func:`pibench_tui.harness.replay.check_transcript`).
        check_budget: Wall-clock budget of each career's check, in seconds (default
            :data:`pibench_tui.harness.defaults.CHECK_BUDGET`); a check it cuts short leaves
            the career's log unchecked (:attr:`Career.transcript_unchecked` says so).
        progress: Told of the walk and of each run folder read (:class:`LoadProgress`).

    Raises:
        LoadError: A path does not exist or holds no career.
    """
    opts = _Options(simulate=simulate, seal=seal, check_transcripts=check_transcripts, check_budget=check_budget)
    careers: list[Career] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise LoadError(f"{raw}: no such file or folder")
        if p.is_file():
            careers.extend(_from_file(p, raw, opts))
            continue
        found = find_run_folders(p, None if progress is None else partial(progress.walked, raw))
        if not found:
            raise LoadError(f"{raw}: no completed run (no result.json) in this folder")
        runs = sum(1 for f in found if f.problem is None)
        if progress is not None:
            progress.reading(raw, runs)
        for f in found:
            if f.problem is not None:
                careers.append(_unreadable(f.path, f.problem, foreign=f.foreign))
                continue
            careers.append(_from_run_dir(f.path, opts))
            if progress is not None:
                progress.read()
    _settle_kinds(careers)
    return careers
