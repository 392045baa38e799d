"""Read careers for ``pibench report``: run directories (agent and policy) and
``pibench run --json`` / ``pibench compare --json`` outputs.

Each career becomes a :class:`Career`. A career whose seed is known is re-simulated
(run directories: the action log is replayed; ``run --json`` rows: the policy is played
again, which is deterministic), which both checks the recorded result (a mismatch marks
it invalid) and yields what the files do not hold: the earned-citation and budget
trajectories, the capability axes and each paper's share of Impact. A sealed career (seed
unknown) keeps what its files say.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pibench_tui.harness.rundir import RUN_FORMAT, iter_run_dirs, read_json, read_jsonl

__all__ = ["Career", "LoadError", "canonical_scenario", "drop_duplicates", "load_careers"]


class LoadError(ValueError):
    """A path given to ``pibench report`` holds nothing it can read."""


@dataclass
class Career:
    """One career as the report sees it.

    Attributes:
        label: The leaderboard row (model or policy label).
        kind: ``"agent"`` or ``"policy"``.
        scenario: Scenario name; ``seed``: world seed (``None`` while sealed).
        impact / earned / projection: Impact split (MECHANICS §12).
        months: Horizon of the scenario; ``months_played``: months survived.
        earned_by_month / budget_by_month: Citations earned and budget (USD) at the end
            of each closed month (index 0 = month 1), when known.
        best_paper: Citations earned + projected of the single best paper.
        axes: ``world.axes.capability_axes`` output (``{"axes", "pool"}``).
        tokens / calls / failed_calls / blocks / block_errors: agent runs only.
        flags / integrity: integrity incidents (agent runs).
        valid: ``False`` when the recorded result does not re-simulate; ``None`` unknown.
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

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict (trajectories included)."""
        return dataclasses.asdict(self)


# ---------------------------------------------------------------------------- simulation
def _paper_values(world: Any) -> list[float]:
    """Per published paper: citations earned + its share of the §12 projection."""
    from world.config import TOPICS
    from world.field import hotness
    from world.papers import citation_rate

    s, cfg = world.s, world.cfg
    t = s.month
    h = hotness(world, t)
    out = []
    for pub in s.publications.values():
        if pub.published_month > t:
            continue
        proj = 0.0
        if not s.collapsed:
            hk = h[TOPICS.index(pub.topic)]
            for tau in range(t + 1, t + cfg.projection_months + 1):
                proj += citation_rate(world, pub, tau, hk, s.reputation, s.alumni)
        out.append(float(pub.citations) + proj)
    return out


def _finish_from_world(
    career: Career,
    world: Any,
    earned: list[float],
    budget: list[float],
    expected_digest: str | None,
    memory: str | None,
) -> None:
    from world.axes import capability_axes
    from world.scoring import impact

    if memory is not None:
        world.s.memory = memory
    career.earned_by_month = earned
    career.budget_by_month = budget
    values = _paper_values(world)
    career.best_paper = max(values) if values else 0.0
    career.axes = capability_axes(world)
    got = impact(world)
    problems = []
    if not world.finished:
        problems.append(f"the action log stops in month {world.month}")
    if abs(got["total"] - career.impact) > 0.05:
        problems.append(f"re-simulated Impact {got['total']} != recorded {career.impact}")
    if expected_digest is not None and world.digest() != expected_digest:
        problems.append("re-simulated state digest differs")
    if problems:
        career.valid = False
        career.invalid_reason = "; ".join(problems)
    elif career.valid is None:
        career.valid = True


def _replay_with_trajectory(config: Any, seed: int, actions: list[Any]) -> tuple[Any, list[float], list[float]]:
    """Replay an action log, recording earned citations and budget after every tick."""
    from world import career as career_mod
    from world.errors import ActionError
    from world.scoring import earned

    held = career_mod.Career.new(config, seed)
    w, api = held.world, held.api
    e_traj: list[float] = []
    b_traj: list[float] = []
    for month, name, kwargs in actions:
        if w.s.month != month:
            raise ActionError("bad_argument", f"action log out of step at {name} (month {month})")
        ns, method = name.split(".", 1)
        api.call(ns, method, [], kwargs)
        if name == "time.next_month":
            e_traj.append(float(earned(w)))
            b_traj.append(float(w.s.budget))
    return w, e_traj, b_traj


def _play_policy_with_trajectory(policy: str, seed: int, config: Any) -> tuple[Any, list[float], list[float]]:
    from world import career as career_mod
    from world.errors import ActionError
    from world.runner import AgentView, build_policy
    from world.scoring import earned

    held = career_mod.Career.new(dataclasses.replace(config), seed)
    w, api = held.world, held.api
    pol = build_policy(policy, w)
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


def canonical_scenario(name: Any) -> str:
    """The scenario's name as reports group it: ``pibench run`` without ``--scenario`` calls
    the standard scenario ``"default"`` while ``pibench agent`` calls it ``"standard"`` (the
    same WorldConfig), so both become ``"standard"`` and their careers pair by seed."""
    text = str(name or "")
    return "standard" if text in ("", "default") else text


def drop_duplicates(careers: list[Career]) -> tuple[list[Career], list[Career]]:
    """Split ``careers`` into (kept, dropped): a career whose label, kind, scenario and seed
    equal an earlier one's (the same run given twice, e.g. ``run --json`` and its
    ``--save-runs`` folder) is dropped, so no seed counts twice in means and intervals.
    Careers without a seed (sealed) are all kept."""
    seen: set[tuple[str, str, str, int]] = set()
    kept: list[Career] = []
    dropped: list[Career] = []
    for c in careers:
        if c.seed is None:
            kept.append(c)
            continue
        key = (c.label, c.kind, c.scenario, int(c.seed))
        if key in seen:
            dropped.append(c)
        else:
            seen.add(key)
            kept.append(c)
    return kept, dropped


# ---------------------------------------------------------------------------- run dirs
def _from_run_dir(path: Path, simulate: bool) -> Career:
    try:
        res = read_json(path / "result.json")
    except ValueError as exc:
        raise LoadError(str(exc)) from None
    if not isinstance(res, dict) or "impact" not in res:
        raise LoadError(f"{path}/result.json is not a pibench run result")
    imp = res["impact"] if isinstance(res["impact"], dict) else {"total": res["impact"], "earned": 0, "projection": 0}
    cfg_months = int((res.get("config") or {}).get("months", 60))
    kind = str(res.get("kind", "agent"))
    label = str(res.get("label") or res.get("model") or res.get("policy") or path.parent.name)
    tokens = res.get("tokens") or {}
    llm = res.get("llm") or {}
    integ = res.get("integrity") or {}
    c = Career(
        label=label,
        kind=kind,
        scenario=canonical_scenario(res.get("scenario") or "custom"),
        seed=res.get("seed"),
        source=str(path),
        impact=float(imp.get("total") or 0.0),
        earned=float(imp.get("earned") or 0.0),
        projection=float(imp.get("projection") or 0.0),
        collapsed=bool(res.get("collapsed")),
        collapse_month=res.get("collapse_month"),
        months=cfg_months,
        months_played=int(res.get("months_played") or 0),
        publications=int(res.get("publications") or 0),
        grants=int(res.get("grants") or 0),
        hires=int(res.get("hires") or 0),
        quits=int(res.get("quits") or 0),
        model=res.get("model") or res.get("policy"),
        tokens=tokens.get("total") if kind == "agent" else None,
        prompt_tokens=tokens.get("prompt") if kind == "agent" else None,
        completion_tokens=tokens.get("completion") if kind == "agent" else None,
        calls=llm.get("calls") if kind == "agent" else None,
        failed_calls=llm.get("failed_calls") if kind == "agent" else None,
        flags=integ.get("flags") if kind == "agent" else None,
        integrity=dict(integ.get("by_kind") or {}),
        valid=res.get("valid"),
    )
    if res.get("valid") is False:
        c.invalid_reason = str((res.get("replay") or {}).get("message") or "marked invalid by pibench replay")
    if kind == "agent":
        blocks = [e for e in read_jsonl(path / "transcript.jsonl") if e.get("event") == "block"]
        c.blocks = len(blocks)
        c.block_errors = sum(1 for e in blocks if not e.get("ok"))
    ev = path / "eval.json"
    if ev.is_file():
        try:
            c.axes = read_json(ev).get("axes")
        except ValueError:
            c.axes = None
    if simulate and c.seed is not None and res.get("config"):
        from world.config import WorldConfig
        from world.errors import ActionError

        try:
            cfg = WorldConfig.from_dict(res["config"])
            world, e_traj, b_traj = _replay_with_trajectory(cfg, int(c.seed), read_jsonl(path / "actions.jsonl"))
        except (ActionError, ValueError, TypeError, KeyError) as exc:
            c.valid = False
            c.invalid_reason = f"the action log does not replay: {exc}"
        else:
            _finish_from_world(c, world, e_traj, b_traj, res.get("digest"), res.get("memory_final") or "")
    else:
        for row in read_jsonl(path / "months.jsonl"):
            rep = row.get("report") or {}
            dash = row.get("dashboard") or {}
            cit = (rep.get("citations") or {}).get("total")
            if cit is not None:
                c.earned_by_month.append(float(cit))
            if dash.get("budget") is not None:
                c.budget_by_month.append(float(dash["budget"]))
    return c


# ---------------------------------------------------------------------------- run --json
def _config_for(scenario: str) -> Any:
    from world.config import WorldConfig

    if canonical_scenario(scenario) == "standard":
        return WorldConfig()
    from scenarios import load_scenario

    return load_scenario(scenario).config


def _from_run_json(path: Path, data: dict[str, Any], simulate: bool) -> list[Career]:
    scenario = canonical_scenario(data.get("scenario"))
    if "policy" in data and isinstance(data.get("rows"), list):
        groups = {str(data["policy"]): data["rows"]}
    elif isinstance(data.get("rows"), dict):
        groups = {str(k): v for k, v in data["rows"].items()}
    else:
        raise LoadError(f"{path}: a JSON file from `pibench run --json` or `pibench compare --json` was expected")
    try:
        config = _config_for(scenario)
    except Exception:  # noqa: BLE001 - ScenarioError: keep the rows without re-simulation
        config = None
    out = []
    for policy, rows in groups.items():
        for row in rows:
            c = Career(
                label=policy,
                kind="policy",
                scenario=scenario,
                seed=row.get("seed"),
                source=str(path),
                impact=float(row["impact"]),
                earned=float(row.get("earned") or 0.0),
                projection=float(row.get("projection") or 0.0),
                collapsed=row.get("collapse_month") is not None,
                collapse_month=row.get("collapse_month"),
                months=int(config.months) if config is not None else 60,
                months_played=int(row.get("months") or 0),
                publications=int(row.get("papers") or 0),
                grants=int(row.get("grants_won") or 0),
                hires=int(row.get("hires") or 0),
                quits=int(row.get("quits") or 0),
                model=policy,
                axes=row.get("axes"),
            )
            if simulate and config is not None and c.seed is not None:
                try:
                    world, e_traj, b_traj = _play_policy_with_trajectory(policy, int(c.seed), config)
                except KeyError:
                    pass  # a policy this pibench does not know: keep the row as it is
                else:
                    _finish_from_world(c, world, e_traj, b_traj, None, None)
            out.append(c)
    return out


def load_careers(paths: list[str], *, simulate: bool = True) -> list[Career]:
    """Every career under ``paths`` (run directories, folders of them, or ``run --json``
    files), completed careers only.

    Raises:
        LoadError: A path does not exist or holds no career.
    """
    careers: list[Career] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise LoadError(f"{raw}: no such file or folder")
        if p.is_file():
            try:
                data = json.loads(p.read_text(encoding="utf-8"))
            except ValueError as exc:
                raise LoadError(f"{raw}: not valid JSON ({exc})") from None
            if isinstance(data, dict) and data.get("format") == RUN_FORMAT:
                careers.append(_from_run_dir(p.parent, simulate))
            elif isinstance(data, dict):
                careers.extend(_from_run_json(p, data, simulate))
            else:
                raise LoadError(f"{raw}: not a pibench result")
            continue
        found = [d for d in iter_run_dirs(p) if (d / "result.json").is_file()]
        if not found:
            raise LoadError(f"{raw}: no completed run (no result.json) in this folder")
        careers.extend(_from_run_dir(d, simulate) for d in found)
    return careers
