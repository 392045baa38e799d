"""Pivot case sets on disk: ``cases.jsonl`` and the answer key ``key.jsonl`` (PIVOTS.md).

A case set is a folder (or a ``cases.jsonl`` file) written by ``pibench pivots build``; the
layout is documented in ``docs/pivots.md``. Reading is strict: a malformed line, a case
without its plans, a key that does not match its cases, or a file past the size limit is
refused with a :class:`PivotFileError` that names the file, the line and the case, and
nothing is written anywhere.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "BUNDLED_SETS",
    "bundled_folder",
    "bundled_set_of",
    "key_digest",
    "resolve_set",
    "check_sealed_key",
    "sealed_key_sha256",
    "CASE_FORMAT",
    "KINDS",
    "MAX_CASES_BYTES",
    "Case",
    "KeyEntry",
    "PivotFileError",
    "cases_hash",
    "load_cases",
    "load_key",
]

#: ``"format"`` of a case and of a key line.
CASE_FORMAT = 1

#: Decision kinds (PIVOTS.md "Terms"), in the order reports list them.
KINDS: tuple[str, ...] = ("hiring", "venue", "grants", "topics", "staffing", "spending")

#: The largest cases or key file read (bytes): a 1,000-case set with full records is ~30 MB.
MAX_CASES_BYTES = 256 * 1024 * 1024

_PLAN_LABELS = ("A", "B")


class PivotFileError(ValueError):
    """A case set or key that cannot be used; the message names the file, line and case."""


@dataclass(frozen=True)
class Case:
    """One pivot case: a decision point of a career and two plans (PIVOTS.md "What a case holds").

    Attributes:
        id: Unique within the set.
        kind: One of :data:`KINDS`.
        capability: The capability the decision tests (MECHANICS §17 axes, in words).
        career: The career cluster id (``policy/seed`` or a run's id): cases of one career
            share its record, so intervals resample careers as clusters.
        fork_month: The month (1-based) at whose start the plans are played.
        question: The decision in one sentence.
        record: ``{"rules", "dashboard", "reports"}`` as the PI saw them at the fork.
        plans: ``{"A": {"text", "code"}, "B": {...}}``.
        raw: The whole case line as read (scenario, seed or commitment, policy ...).
    """

    id: str
    kind: str
    capability: str
    career: str
    fork_month: int
    question: str
    record: dict[str, Any]
    plans: dict[str, dict[str, str]]
    raw: dict[str, Any]


@dataclass(frozen=True)
class KeyEntry:
    """The answer to one case: which plan earned more Impact over the branches.

    Attributes:
        id: The case's id.
        better: ``"A"`` or ``"B"``.
        delta: Mean over branches of Impact(A) − Impact(B), in citations.
        ci: The paired 95 % bootstrap interval of ``delta`` (citations).
        impact: Per plan, the Impact of each branch (citations), the same branches in order.
        collapse: Per plan, the share of branches that collapsed (0..1).
    """

    id: str
    better: str
    delta: float
    ci: tuple[float, float]
    impact: dict[str, list[float]]
    collapse: dict[str, float]

    @property
    def regret(self) -> float:
        """Impact lost by choosing the worse plan (citations, ≥ 0)."""
        return abs(self.delta)


def _read_lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of a JSON-lines file."""
    try:
        st = path.stat()
    except OSError as exc:
        raise PivotFileError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not path.is_file():
        raise PivotFileError(f"{path}: not a file (give a case set folder or its cases.jsonl)")
    if st.st_size > MAX_CASES_BYTES:
        raise PivotFileError(f"{path}: {st.st_size:,} bytes, over the {MAX_CASES_BYTES:,}-byte limit of a case file")
    out = []
    with open(path, encoding="utf-8", errors="strict") as fh:
        try:
            for number, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise PivotFileError(
                        f"{path}: line {number}{_id_hint(line)} is not JSON ({exc.msg}, character {exc.colno} "
                        "of that line)"
                    ) from None
                if not isinstance(obj, dict):
                    raise PivotFileError(f"{path}: line {number} is not a JSON object")
                out.append((number, obj))
        except UnicodeDecodeError:
            raise PivotFileError(f"{path}: not UTF-8 text") from None
    return out


def _id_hint(line: str) -> str:
    """`` (case ID)`` when a broken JSON line still shows its ``"id"``, else ``""``."""
    found = re.search(r'"id"\s*:\s*"([^"\\]{1,200})"', line)
    return f" (case {found.group(1)})" if found else ""


#: The fields of a case line (``docs/pivots.md`` "Files"; ``actions`` only in cases forked
#: along a recorded run).
CASE_FIELDS = ("format", "id", "scenario", "config_hash", "seed", "commitment", "career", "policy", "fork_month",
               "kind", "capability", "question", "record", "plans", "actions")  # fmt: skip
#: The fields of a key line (``docs/pivots.md`` "Files").
KEY_FIELDS = ("format", "id", "better", "delta", "ci", "branches", "impact", "collapse", "p_a_beats_b", "stability")


def _need(
    obj: dict[str, Any], name: str, kind: type | tuple[type, ...], where: str, fields: tuple[str, ...] = CASE_FIELDS
) -> Any:
    """``obj[name]`` of type ``kind``; a missing field is named with the fields a line holds."""
    if name not in obj:
        what = "case" if fields is CASE_FIELDS else "key"
        raise PivotFileError(f"{where}: the field {name!r} is missing (a {what} line holds {', '.join(fields)})")
    value = obj.get(name)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        want = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise PivotFileError(f"{where}: field {name!r} must be {want}, got {type(value).__name__}")
    return value


def _case(obj: dict[str, Any], where: str) -> Case:
    if isinstance(obj.get("id"), str):
        where = f"{where} (case {obj['id']})"
    if "format" not in obj:
        _need(obj, "format", int, where)
    if obj.get("format") != CASE_FORMAT:
        raise PivotFileError(f"{where}: format {obj.get('format')!r} is not {CASE_FORMAT} (rebuild the set)")
    cid = _need(obj, "id", str, where)
    kind = _need(obj, "kind", str, where)
    if kind not in KINDS:
        raise PivotFileError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    plans = _need(obj, "plans", dict, where)
    if sorted(plans) != list(_PLAN_LABELS):
        raise PivotFileError(f"{where}: plans must be exactly A and B, got {sorted(plans)!r}")
    for label in _PLAN_LABELS:
        plan = plans[label]
        if not isinstance(plan, dict) or not isinstance(plan.get("text"), str) or not plan["text"].strip():
            raise PivotFileError(f"{where}: plan {label} needs a non-empty 'text'")
        if not isinstance(plan.get("code"), str):
            raise PivotFileError(f"{where}: plan {label} needs its 'code' (a string)")
    record = _need(obj, "record", dict, where)
    for part, kind_ in (("rules", dict), ("dashboard", dict), ("reports", list)):
        if not isinstance(record.get(part), kind_):
            raise PivotFileError(f"{where}: record.{part} must be a JSON {'object' if kind_ is dict else 'list'}")
    month = _need(obj, "fork_month", int, where)
    if month < 1:
        raise PivotFileError(f"{where}: fork_month must be 1 or more, got {month}")
    return Case(
        id=cid,
        kind=kind,
        capability=str(obj.get("capability") or kind),
        career=str(obj.get("career") or cid),
        fork_month=month,
        question=str(obj.get("question") or "Which plan should the PI follow this month?"),
        record=record,
        plans={k: {"text": plans[k]["text"], "code": plans[k]["code"]} for k in _PLAN_LABELS},
        raw=obj,
    )


#: Case sets shipped with pibench (``pibench_tui/pivots/sets/<name>``), named on the command line.
BUNDLED_SETS = ("dev",)


def bundled_folder(name: str) -> Path:
    """The folder of the bundled set ``name`` (one of :data:`BUNDLED_SETS`), in pibench's package."""
    return Path(__file__).with_name("sets") / name


def resolve_set(text: str) -> str:
    """A case set named on the command line: a path as it is, or a bundled set's folder when
    ``text`` is one of :data:`BUNDLED_SETS` and no such path exists here."""
    if text in BUNDLED_SETS and not Path(text).exists():
        return str(bundled_folder(text))
    return text


def cases_path(path: str | os.PathLike[str]) -> Path:
    """``path/cases.jsonl`` for a folder, else ``path`` itself."""
    p = Path(path)
    return p / "cases.jsonl" if p.is_dir() else p


def load_cases(path: str | os.PathLike[str]) -> list[Case]:
    """Every case of a set, in file order.

    Args:
        path: A case set folder or its ``cases.jsonl``.

    Raises:
        PivotFileError: The file is missing, too large, not JSON lines, or a case is
            malformed or repeated (the message names the line and the case).
    """
    file = cases_path(path)
    cases: list[Case] = []
    seen: set[str] = set()
    for number, obj in _read_lines(file):
        case = _case(obj, f"{file}: line {number}")
        if case.id in seen:
            raise PivotFileError(f"{file}: line {number}: case id {case.id!r} appears twice")
        seen.add(case.id)
        cases.append(case)
    if not cases:
        raise PivotFileError(f"{file}: holds no case")
    return cases


def _number(value: Any, where: str, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise PivotFileError(f"{where}: {name} must be a finite number, got {value!r}")
    return float(value)


def _key_numbers(obj: dict[str, Any], where: str) -> tuple[float, float, float, dict[str, list[float]]]:
    """``(delta, ci low, ci high, impact per plan)`` of a key line, each a finite number."""
    delta = _number(obj.get("delta"), where, "delta")
    ci = obj.get("ci")
    if not isinstance(ci, list) or len(ci) != 2:
        raise PivotFileError(f"{where}: 'ci' must be [low, high]")
    lo, hi = (_number(v, where, "ci") for v in ci)
    impact = obj.get("impact") or {}
    if not isinstance(impact, dict):
        raise PivotFileError(f"{where}: 'impact' must be an object of per-branch lists")
    per = {k: [_number(v, where, f"impact.{k}") for v in impact.get(k, [])] for k in _PLAN_LABELS}
    return delta, lo, hi, per


def _check_key_consistent(
    where: str, better: str, delta: float, lo: float, hi: float, per: dict[str, list[float]]
) -> None:
    """A key whose answer disagrees with its own numbers was edited by hand (or is corrupt)."""
    if (delta > 0 and better != "A") or (delta < 0 and better != "B"):
        raise PivotFileError(f"{where}: 'better' is {better} but delta is {delta:+g}: the key is inconsistent")
    if per["A"] and per["B"]:
        if len(per["A"]) != len(per["B"]):
            raise PivotFileError(f"{where}: impact.A and impact.B must hold one value per branch each")
        mean = sum(a - b for a, b in zip(per["A"], per["B"], strict=True)) / len(per["A"])
        if abs(mean - delta) > 1e-6 * max(1.0, abs(delta)):
            raise PivotFileError(
                f"{where}: delta {delta:g} is not the mean of its branches' differences ({mean:g}): "
                "the key is inconsistent"
            )
    if not lo <= delta <= hi:
        raise PivotFileError(f"{where}: delta {delta:g} lies outside its interval [{lo:g}, {hi:g}]")


def _key_entry(obj: dict[str, Any], where: str) -> KeyEntry:
    cid = _need(obj, "id", str, where, KEY_FIELDS)
    where = f"{where} (case {cid})"
    better = obj.get("better")
    if better not in _PLAN_LABELS:
        raise PivotFileError(f"{where}: 'better' must be 'A' or 'B', got {better!r}")
    delta, lo, hi, per = _key_numbers(obj, where)
    collapse_raw = obj.get("collapse") or {}
    if not isinstance(collapse_raw, dict):
        raise PivotFileError(f"{where}: 'collapse' must be an object of per-plan rates")
    collapse = {k: _number(collapse_raw.get(k, 0.0), where, f"collapse.{k}") for k in _PLAN_LABELS}
    _check_key_consistent(where, str(better), delta, lo, hi, per)
    return KeyEntry(id=cid, better=str(better), delta=delta, ci=(lo, hi), impact=per, collapse=collapse)


def key_path(path: str | os.PathLike[str]) -> Path:
    """``path/key.jsonl`` for a folder, else ``path`` itself."""
    p = Path(path)
    return p / "key.jsonl" if p.is_dir() else p


def load_key(path: str | os.PathLike[str], cases: list[Case] | None = None) -> dict[str, KeyEntry]:
    """The answer key, case id → :class:`KeyEntry`.

    Args:
        path: A ``key.jsonl`` or the folder holding it.
        cases: When given, the key must answer exactly these cases.

    Raises:
        PivotFileError: Missing, malformed, inconsistent (``better`` against ``delta``, the
            mean of the branches, the interval), or not matching ``cases``.
    """
    file = key_path(path)
    out: dict[str, KeyEntry] = {}
    for number, obj in _read_lines(file):
        entry = _key_entry(obj, f"{file}: line {number}")
        if entry.id in out:
            raise PivotFileError(f"{file}: line {number}: case id {entry.id!r} appears twice")
        out[entry.id] = entry
    if cases is not None:
        ids = {c.id for c in cases}
        missing = sorted(ids - set(out))
        extra = sorted(set(out) - ids)
        if missing:
            raise PivotFileError(f"{file}: no answer for {len(missing)} case(s), e.g. {missing[0]!r}")
        if extra:
            raise PivotFileError(f"{file}: answers {len(extra)} case(s) not in the set, e.g. {extra[0]!r}")
    return out


def sealed_key_sha256(cases: str | os.PathLike[str]) -> str | None:
    """The SHA-256 a sealed set's ``build.json`` commits its key to, or ``None`` for a set
    that is not sealed (or has no readable ``build.json``)."""
    folder = Path(cases) if Path(cases).is_dir() else Path(cases).parent
    try:
        meta = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    want = (meta.get("sealed") or {}).get("key_sha256") if isinstance(meta, dict) else None
    return str(want) if want else None


def check_sealed_key(cases: str | os.PathLike[str], key: str | os.PathLike[str], *, given: bool = True) -> None:
    """A sealed set's key must be the one it was built with: the SHA-256 of the key file's
    bytes equals ``build.json["sealed"]["key_sha256"]`` beside the cases (sets that are not
    sealed have nothing to check).

    ``given=False`` means ``key`` is only the default place (beside the cases): when no key
    is there the error says the set is sealed and how to give its key.

    Raises:
        PivotFileError: The key differs from the commitment, or cannot be read.
    """
    folder = Path(cases) if Path(cases).is_dir() else Path(cases).parent
    want = sealed_key_sha256(cases)
    if not want:
        return
    file = key_path(key)
    if not given and not file.exists():
        raise PivotFileError(
            f"the case set {folder} is sealed: its answer key is kept apart from the cases. Give it with "
            "--key FILE (key.jsonl in the build's private --seal folder), or put the published key.jsonl "
            "beside the cases once the set is unsealed"
        )
    try:
        got = hashlib.sha256(file.read_bytes()).hexdigest()
    except OSError as exc:
        raise PivotFileError(f"{file}: cannot read the answer key ({exc.strerror})") from None
    if got != want:
        raise PivotFileError(
            f"{file}: not the answer key this sealed set was built with (its SHA-256 {got[:12]}... differs from "
            f"the commitment {want[:12]}... in {folder / 'build.json'})"
        )


def cases_hash(cases: list[Case]) -> str:
    """SHA-256 (hex) of the cases as sorted-key JSON: an eval run is tied to one set."""
    h = hashlib.sha256()
    for case in cases:
        h.update(json.dumps(case.raw, sort_keys=True, separators=(",", ":")).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


#: The cases hash of each bundled set, once known in this process (pibench's own files:
#: loading and hashing the dev set's 208 cases takes ~1.5 s, which every pivot run read by
#: ``pivots score`` or ``report`` would otherwise pay again; a run of the set where it lies
#: in the package gives it for free).
_BUNDLED_HASHES: dict[str, str] = {}


def bundled_set_of(digest: str, folder: str | os.PathLike[str] | None = None) -> str | None:
    """The name of the bundled set (:data:`BUNDLED_SETS`) whose cases hash to ``digest``
    (:func:`cases_hash`), or ``None``: a set identical to a bundled one is that set, wherever
    its copy lies, and is scored with the key pibench ships for it. ``folder``: where the
    cases of ``digest`` were read (a bundled set's own folder tells its hash)."""
    for name in BUNDLED_SETS:
        home = bundled_folder(name)
        if folder is not None and name not in _BUNDLED_HASHES:
            here = Path(folder) if Path(folder).is_dir() else Path(folder).parent
            if here.resolve() == home.resolve():
                _BUNDLED_HASHES[name] = digest
        if name not in _BUNDLED_HASHES:
            _BUNDLED_HASHES[name] = cases_hash(load_cases(home))
        if _BUNDLED_HASHES[name] == digest:
            return name
    return None


def key_digest(entries: dict[str, KeyEntry]) -> str:
    """SHA-256 (hex) of an answer key's entries as sorted-key JSON (the same answers hash
    alike whatever the file's formatting): which key a run was scored with."""
    rows = [asdict(entries[cid]) for cid in sorted(entries)]
    return hashlib.sha256(json.dumps(rows, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()
