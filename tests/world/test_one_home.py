"""One home for every rule: the API namespaces validate and delegate; formulas live once (ARCHITECTURE)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from world import scoring
from world.config import WorldConfig
from world.engine import World
from world.runner import build_policy, play

NAMESPACE_DIR = Path(__file__).resolve().parents[2] / "world" / "api" / "namespaces"
WORLD_CALLS = {"spend", "reputation_impulse", "next_id", "eval_event", "add_news", "note_fact"}


def _state_changes(path: Path) -> list[str]:
    """Assignments to attributes/items and direct world mutator calls in one namespace module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in targets:
            local_item = isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)  # a local dict or list
            own = ast.unparse(t) in ("self._w", "self._mirror")  # the namespace's wiring
            if isinstance(t, (ast.Attribute, ast.Subscript)) and not local_item and not own:
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(t)} = ...")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WORLD_CALLS:
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node.func)}(...)")
    return found


@pytest.mark.parametrize(
    "path", sorted(p for p in NAMESPACE_DIR.glob("*.py") if p.name != "memory.py"), ids=lambda p: p.name
)
def test_namespaces_change_no_state_themselves(path):
    """No API namespace module assigns to world state or calls a world mutator: every state change
    (revision, events, grant proposals, the conference trip, attention charges ...) is a function of a
    subsystem module. (memory.py is the agent's own notes, not a rule of the world.)"""
    assert _state_changes(path) == []


def test_the_check_finds_a_state_change(tmp_path):
    """The AST check above does flag an inline rule (so its silence means something)."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "def f(self, d, w):\n    d.q = d.q + 1\n    w.s.oneoff_used += 2\n    w.spend(-5, 'x', 'y')\n"
        "    w.s.postings['x'] = 1\n    seen = {}\n    seen['x'] = 1\n"
    )
    assert len(_state_changes(bad)) == 4


def test_projection_by_paper_adds_up_to_the_projection():
    """§12: the per-paper projection (the end screen's table) sums to Impact's projection term,
    and the end screen's function is the world's own."""
    w = World(WorldConfig(), 102)
    play(w, build_policy("baseline", w))
    per = scoring.projection_by_paper(w)
    assert per and all(v >= 0 for v in per.values())
    assert set(per) == {p.id for p in w.s.publications.values() if p.published_month <= w.s.month}
    assert sum(per.values()) == pytest.approx(scoring.projection(w), rel=1e-12)
    pytest.importorskip("textual")
    from pibench_tui.tui.screens.end import paper_projection

    assert paper_projection(w) == per


def test_the_tick_runs_the_rule_homes(monkeypatch):
    """The month tick computes its rules by calling their homes (the functions the mechanics
    tests check bit for bit), not copies: a baseline career calls each home, and one whose
    homes are replaced follows the replacements (no citations at λ = 0, every researcher
    quits at a quit probability of 1)."""
    from world import field as field_mod
    from world import grants as grants_mod
    from world import papers as papers_mod
    from world import people as people_mod
    from world import projects as projects_mod

    homes = [
        (papers_mod, "citation_rate"),
        (people_mod, "quit_probability"),
        (projects_mod, "effectiveness"),
        (projects_mod, "progress_increment"),
        (field_mod, "magnitude_word"),
        (grants_mod, "active_awards"),
    ]
    calls = dict.fromkeys((name for _, name in homes), 0)

    def counting(name, fn):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    plain = World(WorldConfig(months=36), 3)
    play(plain, build_policy("baseline", plain))
    for module, name in homes:
        monkeypatch.setattr(module, name, counting(name, getattr(module, name)))
    counted = World(WorldConfig(months=36), 3)
    play(counted, build_policy("baseline", counted))
    assert counted.digest() == plain.digest()
    assert all(n > 0 for n in calls.values()), calls
    assert plain.s.citations_monthly  # the career has citations to lose

    monkeypatch.setattr(papers_mod, "citation_rate", lambda *a: 0.0)
    monkeypatch.setattr(people_mod, "quit_probability", lambda cfg, morale: 1.0)
    changed = World(WorldConfig(months=36), 3)
    play(changed, build_policy("baseline", changed))
    assert not changed.s.citations_monthly
    researchers = [p for p in changed.s.people.values() if p.role in people_mod.RESEARCHER_ROLES]
    assert researchers and all(p.status == "quit" for p in researchers)
